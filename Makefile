# gpufilt: sobel, conv2d and edge.  Plain GNU make; safe under -j.
#
#   make            build bin/sobel, bin/conv2d, bin/edge
#   make deps       install the Debian packages the build and tests need,
#                   and nvJPEG's header where the CUDA toolkit lacks it
#   make demo       deps, build, run sobel on a bundled sample
#   make test       deps, build, run every test (GPU cases skip without a GPU)
#   make test-asan  the host code and tests under clang ASan+UBSan (CPU)
#   make test-tsan  the tests of the engine's threads under clang's
#                   ThreadSanitizer (CPU)
#   make fuzz       libFuzzer on the image reader, the fast PNG reader
#                   against libpng, the TIFF reader, and kspec_parse,
#                   FUZZ_SECONDS (default 30) per target: 120 s in all
#   make bench      GPU only: kernel times against a copy kernel, kept
#                   in bench/figures.md
#   make bench-io   GPU only: stream, large image and batch, end to end
#   make bench-cpu  the CPU path against libvips, pamedge (and cv2, if any)
#   make install    PREFIX=/usr/local: the tools (stripped; STRIP= keeps
#                   their symbols), their man pages, and bash, zsh and
#                   fish completion under $(PREFIX)/share; the library
#                   libgpufilt (.so and .a), gpufilt.h, gpufilt.pc and
#                   gpufilt(3)
#   make uninstall  removes what make install wrote (same PREFIX)
#
# Each step prints one short line (  CC lib/img.o); make V=1 prints the
# full commands.  make demo and make test build with -j(number of CPUs)
# unless a -j is given.

# The version is the public header's (lib/gpufilt.h), so the two agree.
VERSION   := $(shell sed -n 's/^\#define GF_VERSION_STRING "\(.*\)"/\1/p' lib/gpufilt.h)
PREFIX    ?= /usr/local
LIBDIR    ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
CUDA      ?= /usr/local/cuda
NVCC      ?= $(CUDA)/bin/nvcc
CC        := gcc
CFLAGS    ?= -O2 -g
NVCCFLAGS ?= -O3
# Hopper machine code, plus PTX the driver can compile for older GPUs.
GENCODE   ?= -gencode arch=compute_90,code=sm_90 -gencode arch=compute_75,code=compute_75

PKGS      := netpbm stb libpng libdeflate libjpeg libtiff-4 libexif libwebp \
             libwebpdemux
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

# Position-independent code throughout: the same objects make the tools
# and the shared library (build/libgpufilt.so).
ALL_CFLAGS    = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Wall -Wextra \
                -fPIC -Ilib -I$(CUDA)/include $(PKG_CFLAGS) $(CFLAGS)
ALL_NVCCFLAGS = -std=c++17 $(GENCODE) -fmad=false -Ilib -Xcompiler -Wall,-Wextra,-fPIC \
                $(NVCCFLAGS)
# The link line takes CFLAGS too (make CFLAGS=-fsanitize=address links the
# sanitizer runtime), then LDFLAGS.
LDFLAGS      ?=
LDLIBS        = $(PKG_LIBS) -L$(CUDA)/lib64 -lcudart_static -lstdc++ -lpthread \
                -ldl -lrt -lm

# Each cmd/<tool>.c is a tool's definition; cmd/cli.c is the main they share.
TOOLS    := $(filter-out cli,$(basename $(notdir $(wildcard cmd/*.c))))
BINS     := $(TOOLS:%=bin/%)
LIB_OBJS := $(patsubst lib/%.c,build/lib/%.o,$(wildcard lib/*.c)) \
            $(patsubst kernels/%.cu,build/kernels/%.o,$(wildcard kernels/*.cu))
# Short lines per step unless V=1: $(say) NAME target prints "  NAME target".
V ?= 0
ifeq ($(V),1)
Q   :=
say := @:
else
Q   := @
say := @printf '  %-5s %s\n'
endif

# The -j of the sub-make of demo and test: none if the user gave one (the
# jobserver then shares it), else one job per CPU online.  Decided in the
# recipe's shell: make before 4.4 shows -j in MAKEFLAGS only there.
SUBMAKE_J = case " $$MAKEFLAGS" in *" -j"*|*jobserver*) ;; \
            *) j=-j$$(nproc 2>/dev/null || echo 1) ;; esac

TESTS    := $(patsubst tests/%.c,build/tests/%,$(wildcard tests/*_test.c)) \
            build/tests/gpu_probe build/bench/framegen build/bench/cpuops \
            build/bench/jpeggen build/bench/jpegdec

# libgpufilt as installed: the shared library (its soname the major
# version) exporting the names of lib/gpufilt.sym alone, linked against
# the shared CUDA runtime so that a CUDA program's streams and pointers
# are its own; and the static one, one object whose other symbols are
# made local.  The tools link build/libgpufilt.a, every symbol visible.
SO_MAJOR := $(firstword $(subst ., ,$(VERSION)))
LIB_SO   := build/dist/libgpufilt.so.$(VERSION)
LIB_A    := build/dist/libgpufilt.a
OBJCOPY  ?= objcopy

all: $(BINS) $(LIB_SO) $(LIB_A)

build/dist/gpufilt.map: lib/gpufilt.sym
	@mkdir -p $(@D)
	$(say) GEN $@
	$(Q){ echo 'GPUFILT_$(SO_MAJOR) {'; echo '  global:'; \
	    sed 's/.*/    &;/' $<; echo '  local: *;'; echo '};'; } >$@

$(LIB_SO): $(LIB_OBJS) build/dist/gpufilt.map
	$(say) LD $@
	$(Q)$(CC) -shared -Wl,-soname,libgpufilt.so.$(SO_MAJOR) \
	    -Wl,--version-script=build/dist/gpufilt.map -Wl,--no-undefined \
	    $(CFLAGS) $(LDFLAGS) -o $@ $(LIB_OBJS) $(PKG_LIBS) -L$(CUDA)/lib64 \
	    -Wl,-rpath,$(CUDA)/lib64 -lcudart -lstdc++ -lpthread -ldl -lrt -lm
	$(Q)ln -sf libgpufilt.so.$(VERSION) build/dist/libgpufilt.so.$(SO_MAJOR)
	$(Q)ln -sf libgpufilt.so.$(SO_MAJOR) build/dist/libgpufilt.so

$(LIB_A): $(LIB_OBJS) lib/gpufilt.sym
	@mkdir -p $(@D)
	$(say) AR $@
	$(Q)$(LD) -r -o build/dist/gpufilt.o $(LIB_OBJS)
	$(Q)$(OBJCOPY) --keep-global-symbols=lib/gpufilt.sym build/dist/gpufilt.o
	$(Q)rm -f $@
	$(Q)ar rcs $@ build/dist/gpufilt.o

build/libgpufilt.a: $(LIB_OBJS)
	@mkdir -p $(@D)
	$(say) AR $@
	$(Q)rm -f $@
	$(Q)ar rcs $@ $(LIB_OBJS)

# Header dependencies come from the compilers (-MMD -MP): an edit to a
# header rebuilds only the objects that include it.
build/lib/%.o: lib/%.c
	@mkdir -p $(@D)
	$(say) CC $@
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# The CPU paths' row loops are written for the vectorizer: -O3 turns it
# on fully; without errno a sqrtf is one instruction; without traps the
# selects of a finish step may be computed for every lane.  None changes
# a result (no -ffast-math: IEEE steps as written, no contraction).
CPU_CFLAGS ?= -O3 -fno-math-errno -fno-trapping-math
build/lib/%_cpu.o build/lib/pool.o build/lib/gray.o: ALL_CFLAGS += $(CPU_CFLAGS)

# nvJPEG's header: the CUDA toolkit's, else the one make deps fetched
# (scripts/deps-nvjpeg.sh).  With it lib/jpeg_gpu.c holds the GPU's JPEG
# decoder, which loads libnvjpeg at run time (never linked); without it,
# a decoder that says it was not built.
NVJPEG_H := $(firstword $(wildcard $(CUDA)/include/nvjpeg.h \
            .deps-extra/nvjpeg/include/nvjpeg.h))
ifneq ($(NVJPEG_H),)
build/lib/jpeg_gpu.o build/asan/lib/jpeg_gpu.o build/tsan/lib/jpeg_gpu.o: ALL_CFLAGS += -DGF_HAVE_NVJPEG \
    -I$(dir $(NVJPEG_H)) -DGF_CUDA_LIB='"$(CUDA)/lib64"'
endif

build/kernels/%.o: kernels/%.cu
	@mkdir -p $(@D)
	$(say) NVCC $<
	$(Q)$(NVCC) $(ALL_NVCCFLAGS) -MMD -MP -c -o $@ $<

build/cmd/%.o: cmd/%.c
	@mkdir -p $(@D)
	$(say) CC $@
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -DGF_VERSION='"$(VERSION)"' -c -o $@ $<

bin/%: build/cmd/%.o build/cmd/cli.o build/libgpufilt.a
	@mkdir -p $(@D)
	$(say) LD $@
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< build/cmd/cli.o build/libgpufilt.a $(LDLIBS)

build/tests/%: tests/%.c build/libgpufilt.a
	@mkdir -p $(@D)
	$(say) CCLD $@
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -MMD -MP -o $@ $< build/libgpufilt.a $(LDLIBS)

# webp_test makes animations with libwebpmux's encoder; the tools do not link it.
build/tests/webp_test build/asan/tests/webp_test: private LDLIBS += \
    $(shell pkg-config --libs libwebpmux 2>/dev/null)

build/bench/%: bench/%.c build/libgpufilt.a
	@mkdir -p $(@D)
	$(say) CCLD $@
	$(Q)$(CC) $(ALL_CFLAGS) $(BENCH_CFLAGS) $(LDFLAGS) -MMD -MP -o $@ $< \
	    $(BENCH_OBJS) build/libgpufilt.a $(BENCH_LIBS) $(LDLIBS)

# NVIDIA NPP where the CUDA toolkit has it (the GPU machine's has, CI's
# has not): make bench then times NPP's nearest equivalents beside our
# strategies (bench/bench_npp.c); without npp.h it is built as before.
# private: the flags and libraries are build/bench/bench's alone, not
# inherited by the library objects it depends on.
HAVE_NPP := $(wildcard $(CUDA)/include/npp.h)
ifneq ($(HAVE_NPP),)
build/bench/bench: build/bench/bench_npp.o
build/bench/bench: private BENCH_CFLAGS = -DGF_HAVE_NPP
build/bench/bench: private BENCH_OBJS = build/bench/bench_npp.o
build/bench/bench: private BENCH_LIBS = -Wl,-rpath,$(CUDA)/lib64 -lnppif \
    -lnppitc -lnppc
endif

build/bench/bench_npp.o: bench/bench_npp.c
	@mkdir -p $(@D)
	$(say) CC $@
	$(Q)$(CC) $(ALL_CFLAGS) -DGF_HAVE_NPP -MMD -MP -c -o $@ $<

# ---- sanitizers and fuzzing: host code only, compiled by clang.
# test-asan builds lib/, cmd/ and the unit tests into build/asan/ with
# ASan and UBSan (the CUDA kernels' objects are the ones of the normal
# build: the tools run on the CPU there) and runs tests/run.sh on them.
ASAN_CC    ?= clang
ASAN_FLAGS ?= -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
              -fno-sanitize-recover=undefined
ASAN_OBJS   = $(patsubst lib/%.c,build/asan/lib/%.o,$(wildcard lib/*.c)) \
              $(patsubst kernels/%.cu,build/kernels/%.o,$(wildcard kernels/*.cu))
ASAN_BINS   = $(TOOLS:%=build/asan/bin/%)
ASAN_TESTS  = $(patsubst tests/%.c,build/asan/tests/%,$(wildcard tests/*_test.c)) \
              build/asan/tests/gpu_probe

build/asan/lib/%.o: lib/%.c
	@mkdir -p $(@D)
	$(say) CC $@
	$(Q)$(ASAN_CC) $(ALL_CFLAGS) $(ASAN_FLAGS) -MMD -MP -c -o $@ $<

build/asan/libgpufilt.a: $(ASAN_OBJS)
	$(say) AR $@
	$(Q)rm -f $@
	$(Q)ar rcs $@ $(ASAN_OBJS)

build/asan/bin/%: cmd/%.c cmd/cli.c build/asan/libgpufilt.a
	@mkdir -p $(@D)
	$(say) CCLD $@
	$(Q)$(ASAN_CC) $(ALL_CFLAGS) $(ASAN_FLAGS) -DGF_VERSION='"$(VERSION)"' \
	    -o $@ $< cmd/cli.c build/asan/libgpufilt.a $(LDLIBS)

build/asan/tests/%: tests/%.c build/asan/libgpufilt.a
	@mkdir -p $(@D)
	$(say) CCLD $@
	$(Q)$(ASAN_CC) $(ALL_CFLAGS) $(ASAN_FLAGS) -MMD -MP -o $@ $< \
	    build/asan/libgpufilt.a $(LDLIBS)

test-asan: deps
	@$(MAKE) --no-print-directory $(ASAN_BINS) $(ASAN_TESTS) build/bench/framegen \
	    build/bench/jpeggen
	@GF_ASAN=1 GF_BUILD=build/asan LSAN_OPTIONS=suppressions=tests/fuzz/lsan.supp \
	    UBSAN_OPTIONS=print_stacktrace=1 sh tests/run.sh

# test-tsan builds the same into build/tsan/ with ThreadSanitizer and runs
# the tests whose runs have threads on the CPU path (TSAN_TESTS: streams,
# the decode pool, batches, the engine's stages; lib/engine_*.c).  Each
# process writes what it reports to build/tsan/reports/race.PID: a run
# that reports anything fails its case (exit 66) and the target lists
# the reports and fails.
TSAN_CC    ?= clang
TSAN_FLAGS ?= -O1 -g -fno-omit-frame-pointer -fsanitize=thread
TSAN_OBJS   = $(patsubst lib/%.c,build/tsan/lib/%.o,$(wildcard lib/*.c)) \
              $(patsubst kernels/%.cu,build/kernels/%.o,$(wildcard kernels/*.cu))
TSAN_BINS   = $(TOOLS:%=build/tsan/bin/%)
TSAN_UNITS  = build/tsan/tests/gpu_probe build/tsan/tests/gpufilt_test
TSAN_TESTS ?= unit t_stream t_split t_stream_bounds t_engine t_multi t_lib \
              t_hostile t_env

build/tsan/lib/%.o: lib/%.c
	@mkdir -p $(@D)
	$(say) CC $@
	$(Q)$(TSAN_CC) $(ALL_CFLAGS) $(TSAN_FLAGS) -MMD -MP -c -o $@ $<

build/tsan/libgpufilt.a: $(TSAN_OBJS)
	$(say) AR $@
	$(Q)rm -f $@
	$(Q)ar rcs $@ $(TSAN_OBJS)

build/tsan/bin/%: cmd/%.c cmd/cli.c build/tsan/libgpufilt.a
	@mkdir -p $(@D)
	$(say) CCLD $@
	$(Q)$(TSAN_CC) $(ALL_CFLAGS) $(TSAN_FLAGS) -DGF_VERSION='"$(VERSION)"' \
	    -o $@ $< cmd/cli.c build/tsan/libgpufilt.a $(LDLIBS)

build/tsan/tests/%: tests/%.c build/tsan/libgpufilt.a
	@mkdir -p $(@D)
	$(say) CCLD $@
	$(Q)$(TSAN_CC) $(ALL_CFLAGS) $(TSAN_FLAGS) -MMD -MP -o $@ $< \
	    build/tsan/libgpufilt.a $(LDLIBS)

test-tsan: deps
	@$(MAKE) --no-print-directory $(TSAN_BINS) $(TSAN_UNITS) build/bench/framegen \
	    build/bench/jpeggen
	@rm -rf build/tsan/reports && mkdir -p build/tsan/reports
	@GF_ASAN=1 GF_BUILD=build/tsan \
	    TSAN_OPTIONS="log_path=$(CURDIR)/build/tsan/reports/race" \
	    sh tests/run.sh $(TSAN_TESTS); st=$$?; \
	n=$$(ls build/tsan/reports | wc -l); \
	if [ "$$n" -gt 0 ]; then cat build/tsan/reports/*; \
	    echo "ThreadSanitizer: $$n processes reported (build/tsan/reports)"; exit 1; fi; \
	echo "ThreadSanitizer: no report"; exit $$st

# The fuzz targets link only the host sources they use, built from
# source with the fuzzer's instrumentation (never the gcc library).  The
# headers that -MMD adds to a target's prerequisites are not linked.
FUZZ_CC      ?= clang
FUZZ_FLAGS   ?= -O1 -g -fsanitize=fuzzer-no-link,address,undefined \
                -fno-sanitize-recover=undefined
FUZZ_SECONDS ?= 30
# Every image reader and writer (lib/img*.c: a new format needs no line here).
FUZZ_IMG_SRC   := $(wildcard lib/img*.c) lib/gf.c lib/outfile.c lib/gray.c
FUZZ_KSPEC_SRC := lib/kspec.c lib/opts.c lib/strategy.c $(FUZZ_IMG_SRC)

build/fuzz/lib/%.o: lib/%.c
	@mkdir -p $(@D)
	$(say) CC $@
	$(Q)$(FUZZ_CC) $(ALL_CFLAGS) $(FUZZ_FLAGS) -MMD -MP -c -o $@ $<

build/fuzz/fuzz_img: tests/fuzz/fuzz_img.c $(FUZZ_IMG_SRC:lib/%.c=build/fuzz/lib/%.o)
	$(FUZZ_CC) $(ALL_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer -MMD -MP -o $@ \
	    $(filter %.c %.o,$^) \
	    $(PKG_LIBS) -lpthread -lm

build/fuzz/fuzz_png: tests/fuzz/fuzz_png.c $(FUZZ_IMG_SRC:lib/%.c=build/fuzz/lib/%.o)
	$(FUZZ_CC) $(ALL_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer -MMD -MP -o $@ \
	    $(filter %.c %.o,$^) \
	    $(PKG_LIBS) -lpthread -lm

build/fuzz/fuzz_tiff: tests/fuzz/fuzz_tiff.c $(FUZZ_IMG_SRC:lib/%.c=build/fuzz/lib/%.o)
	$(FUZZ_CC) $(ALL_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer -MMD -MP -o $@ \
	    $(filter %.c %.o,$^) \
	    $(PKG_LIBS) -lpthread -lm

build/fuzz/fuzz_kspec: tests/fuzz/fuzz_kspec.c $(FUZZ_KSPEC_SRC:lib/%.c=build/fuzz/lib/%.o)
	$(FUZZ_CC) $(ALL_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer -MMD -MP -o $@ \
	    $(filter %.c %.o,$^) \
	    $(PKG_LIBS) -lpthread -lm

# Seeds from tests/fuzz/seeds.py; what the fuzzers find accumulates in
# build/fuzz/corpus, crashes land in build/fuzz/ (crash-*, timeout-*).
fuzz: build/fuzz/fuzz_img build/fuzz/fuzz_png build/fuzz/fuzz_tiff \
    build/fuzz/fuzz_kspec
	python3 tests/fuzz/seeds.py build/fuzz/seeds
	mkdir -p build/fuzz/corpus/img build/fuzz/corpus/png build/fuzz/corpus/tiff \
	    build/fuzz/corpus/kspec
	LSAN_OPTIONS=suppressions=tests/fuzz/lsan.supp build/fuzz/fuzz_img -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
	    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	    -artifact_prefix=build/fuzz/ build/fuzz/corpus/img build/fuzz/seeds/img
	build/fuzz/fuzz_png -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
	    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	    -artifact_prefix=build/fuzz/ build/fuzz/corpus/png build/fuzz/seeds/png
	LSAN_OPTIONS=suppressions=tests/fuzz/lsan.supp build/fuzz/fuzz_tiff -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
	    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	    -artifact_prefix=build/fuzz/ build/fuzz/corpus/tiff build/fuzz/seeds/tiff
	build/fuzz/fuzz_kspec -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
	    -timeout=10 -print_final_stats=1 -artifact_prefix=build/fuzz/ \
	    build/fuzz/corpus/kspec build/fuzz/seeds/kspec

deps:
	@sh scripts/deps.sh
	@sh scripts/deps-nvjpeg.sh $(CUDA)

demo: deps
	@j=; $(SUBMAKE_J); $(MAKE) --no-print-directory $$j all build/tests/gpu_probe
	@sh scripts/demo.sh

test: deps
	@j=; $(SUBMAKE_J); $(MAKE) --no-print-directory $$j all $(TESTS)
	@sh tests/run.sh

# make bench keeps its tables in bench/figures.md (bench/figures.sh), with
# the date, the commit and the GPU: the figures comments point to.
bench: all build/bench/bench
	sh bench/figures.sh build/bench/bench

bench-io: all build/bench/framegen build/bench/jpeggen build/bench/jpegdec \
    build/tests/gpu_probe
	sh bench/io.sh
bench-cpu: all build/bench/cpuops
	sh bench/cpu.sh

# Shell completion: each tool prints its own from its option tables.
BASH_COMPLETIONS := $(TOOLS:%=build/completion/bash/%)
ZSH_COMPLETIONS  := $(TOOLS:%=build/completion/zsh/_%)
FISH_COMPLETIONS := $(TOOLS:%=build/completion/fish/%.fish)

build/completion/bash/%: bin/%
	@mkdir -p $(@D)
	$(say) GEN $@
	$(Q)$< --completion bash >$@.tmp && mv $@.tmp $@

build/completion/zsh/_%: bin/%
	@mkdir -p $(@D)
	$(say) GEN $@
	$(Q)$< --completion zsh >$@.tmp && mv $@.tmp $@

build/completion/fish/%.fish: bin/%
	@mkdir -p $(@D)
	$(say) GEN $@
	$(Q)$< --completion fish >$@.tmp && mv $@.tmp $@

# Where make install puts each kind of file, under $(DESTDIR).
BINDIR      ?= $(PREFIX)/bin
MAN1DIR     ?= $(PREFIX)/share/man/man1
MAN3DIR     ?= $(PREFIX)/share/man/man3
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
# The installed tools are stripped of their symbols and debug information
# (most of their size); make install STRIP= keeps them.
STRIP       ?= strip
# libgpufilt's files: the libraries, the soname's links, header, pc, man page.
LIB_INSTALLED = $(LIBDIR)/libgpufilt.so.$(VERSION) \
               $(LIBDIR)/libgpufilt.so.$(SO_MAJOR) $(LIBDIR)/libgpufilt.so \
               $(LIBDIR)/libgpufilt.a $(PKGCONFIGDIR)/gpufilt.pc \
               $(INCLUDEDIR)/gpufilt.h $(MAN3DIR)/gpufilt.3
# Every file make install writes: make uninstall removes these.
INSTALLED    = $(TOOLS:%=$(BINDIR)/%) $(TOOLS:%=$(MAN1DIR)/%.1) \
               $(TOOLS:%=$(BASHCOMPDIR)/%) $(TOOLS:%=$(ZSHCOMPDIR)/_%) \
               $(TOOLS:%=$(FISHCOMPDIR)/%.fish) $(LIB_INSTALLED)

install: all $(BASH_COMPLETIONS) $(ZSH_COMPLETIONS) $(FISH_COMPLETIONS)
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(MAN1DIR) $(DESTDIR)$(BASHCOMPDIR) \
	    $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR) $(DESTDIR)$(LIBDIR) \
	    $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(MAN3DIR)
	cp $(BINS) $(DESTDIR)$(BINDIR)/
	$(if $(STRIP),$(STRIP) $(TOOLS:%=$(DESTDIR)$(BINDIR)/%))
	cp $(TOOLS:%=man/%.1) $(DESTDIR)$(MAN1DIR)/
	cp $(BASH_COMPLETIONS) $(DESTDIR)$(BASHCOMPDIR)/
	cp $(ZSH_COMPLETIONS) $(DESTDIR)$(ZSHCOMPDIR)/
	cp $(FISH_COMPLETIONS) $(DESTDIR)$(FISHCOMPDIR)/
	cp $(LIB_SO) $(LIB_A) $(DESTDIR)$(LIBDIR)/
	ln -sf libgpufilt.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libgpufilt.so.$(SO_MAJOR)
	ln -sf libgpufilt.so.$(SO_MAJOR) $(DESTDIR)$(LIBDIR)/libgpufilt.so
	cp lib/gpufilt.h $(DESTDIR)$(INCLUDEDIR)/
	cp man/gpufilt.3 $(DESTDIR)$(MAN3DIR)/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
	    -e 's|@PKGS@|$(PKGS)|' -e 's|@CUDALIB@|$(CUDA)/lib64|' \
	    lib/gpufilt.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/gpufilt.pc

# Then the directories that are left empty, up to (not with) PREFIX.
uninstall:
	rm -f $(INSTALLED:%=$(DESTDIR)%)
	@for d in $(FISHCOMPDIR) $(ZSHCOMPDIR) $(BASHCOMPDIR) $(MAN1DIR) \
	    $(MAN3DIR) $(PKGCONFIGDIR) $(LIBDIR) $(INCLUDEDIR) $(BINDIR); do \
		while [ "$${d#$(PREFIX)/}" != "$$d" ] && \
		    rmdir "$(DESTDIR)$$d" 2>/dev/null; do d=$${d%/*}; done; \
	done

clean:
	rm -rf bin build

.PHONY: all deps demo test test-asan test-tsan fuzz bench bench-io bench-cpu install \
    uninstall clean
.SECONDARY:

-include $(shell find build -name '*.d' 2>/dev/null)
