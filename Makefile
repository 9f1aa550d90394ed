# gpufilt: sobel, conv2d and edge.  Plain GNU make; safe under -j.
#
#   make            build bin/sobel, bin/conv2d, bin/edge
#   make deps       install the Debian packages the build and tests need,
#                   and nvJPEG's header where the CUDA toolkit lacks it
#                   (apt-get as root or through sudo: the one target that
#                   installs anything)
#   make demo       build, run sobel on a bundled sample
#   make test       build, run every test (GPU cases skip without a GPU);
#                   a missing dependency is named, and make deps installs it
#   make test-asan  the host code and tests under clang ASan+UBSan (CPU)
#   make test-tsan  the tests of the engine's threads under clang's
#                   ThreadSanitizer (CPU)
#   make fuzz       libFuzzer on the image reader, the fast PNG reader
#                   against libpng, the TIFF reader, the WebP reader,
#                   kspec_parse, the JPEG engines' check and the server's
#                   side of a client's connection,
#                   FUZZ_SECONDS (default 30) per target: 210 s in all
#   make bench      GPU only: kernel times against a copy kernel, kept
#                   in bench/figures.md
#   make bench-io   GPU only: stream, large image and batch, end to end
#   make bench-cpu  the CPU path against libvips, pamedge (and cv2, if any)
#   make bench-crossover  GPU only: one image, cold GPU against --cpu, by
#                   size: the small-run rule's GF_SMALL_PIXELS
#   make install    PREFIX=/usr/local, built for every GPU (GPU_ARCHS
#                   below): the tools (stripped; STRIP= keeps
#                   their symbols), their man pages, and bash, zsh and
#                   fish completion under $(PREFIX)/share; the library
#                   libgpufilt (.so and .a), gpufilt.h, gpufilt.pc and
#                   gpufilt(3); the server's systemd user units
#                   (gpufiltd.socket, .service) under $(PREFIX)/lib
#   make uninstall  removes what make install wrote (same PREFIX)
#
# Each step prints one short line (  CC lib/img.o); make V=1 prints the
# full commands.  make demo and make test build with -j(number of CPUs)
# unless a -j is given.

# The version is the public header's (lib/api/gpufilt.h), so the two agree.
VERSION   := $(shell sed -n 's/^\#define GF_VERSION_STRING "\(.*\)"/\1/p' lib/api/gpufilt.h)
PREFIX    ?= /usr/local
LIBDIR    ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
CUDA      ?= /usr/local/cuda
NVCC      ?= $(CUDA)/bin/nvcc
# gcc unless CC is given (make CC=clang, or CC in the environment).
ifeq ($(origin CC),default)
CC        := gcc
endif
CFLAGS    ?= -O2 -g
NVCCFLAGS ?= -O3
# What nvcc builds, GPU_ARCHS: sm_NN is machine code for that GPU,
# compute_NN PTX the driver compiles on first use for NN and newer.
# dev (make, make test): Hopper's code and PTX for the rest, one quick
# pass; all (make install's default): native code for the GPUs people
# run (A100, A10/RTX 30, L4/RTX 40, H100, B200, RTX 50), and PTX for the
# newest; or a list (make GPU_ARCHS="sm_86").  Nothing older than sm_80:
# conv2d_fast8's tensor-core code (mma m16n8k16) needs it.  build/gencode
# records what the objects hold: a change rebuilds them.
GPU_ARCHS_dev := sm_90 compute_80
GPU_ARCHS_all := sm_80 sm_86 sm_89 sm_90 sm_100 sm_120 compute_120
GPU_ARCHS ?= $(if $(filter install,$(MAKECMDGOALS)),all,dev)
GENCODE   ?= $(foreach a,$(or $(GPU_ARCHS_$(GPU_ARCHS)),$(GPU_ARCHS)),\
             -gencode arch=compute_$(lastword $(subst _, ,$(a))),code=$(a))

PKGS      := netpbm stb libpng libdeflate libjpeg libtiff-4 libexif libwebp \
             libwebpdemux libwebpmux zlib
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# The tools and libgpufilt.so load libtiff at their first TIFF
# (lib/io/img_tiff_lib.h), by the soname of the one built against; the
# tests link it, to make their TIFFs.
TOOL_PKG_LIBS = $(shell pkg-config --libs $(filter-out libtiff-4,$(PKGS)) 2>/dev/null)
TIFF_SONAME  := $(shell objdump -p "$$(pkg-config --variable=libdir libtiff-4 \
                2>/dev/null)/libtiff.so" 2>/dev/null | awk '$$1 == "SONAME" { print $$2 }')

# lib/'s rooms, each a folder of its own (HACKING.md): every folder with a
# header is on the include path, so a file names a header by its name.
LIB_SRCS := $(wildcard lib/*/*.c lib/*/*/*.c)
LIB_INC  := $(patsubst %/,-I%,$(sort $(dir $(wildcard lib/*/*.h lib/*/*/*.h))))

# Position-independent code throughout: the same objects make the tools
# and the shared library (build/libgpufilt.so).
ALL_CFLAGS    = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Wall -Wextra \
                -fPIC $(LIB_INC) -I$(CUDA)/include $(PKG_CFLAGS) \
                $(if $(TIFF_SONAME),-DGF_TIFF_SONAME='"$(TIFF_SONAME)"') $(CFLAGS)
ALL_NVCCFLAGS = -std=c++17 $(GENCODE) -fmad=false $(LIB_INC) -Xcompiler -Wall,-Wextra,-fPIC \
                $(NVCCFLAGS)
# The link line takes CFLAGS too (make CFLAGS=-fsanitize=address links the
# sanitizer runtime), then LDFLAGS.
LDFLAGS      ?=
LDLIBS_CUDA   = -L$(CUDA)/lib64 -lcudart_static -lstdc++ -lpthread -ldl -lrt -lm
LDLIBS        = $(PKG_LIBS) $(LDLIBS_CUDA)
LDLIBS_TOOLS  = $(TOOL_PKG_LIBS) $(LDLIBS_CUDA)

# Each cmd/<tool>.c is a tool's definition; cmd/cli.c is the main they
# share.  cmd/gpufiltd.c is the server's main: it serves every tool, so
# it links each definition built without its main.
TOOLS    := $(filter-out cli gpufiltd,$(basename $(notdir $(wildcard cmd/*.c))))
BINS     := $(TOOLS:%=bin/%) bin/gpufiltd
LIB_OBJS := $(patsubst lib/%.c,build/lib/%.o,$(LIB_SRCS)) \
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
            build/bench/jpeggen build/bench/jpegdec build/bench/jpegdamage \
            build/tests/jpegcheck build/tests/server_hostile build/tests/iccmake \
            build/tests/remote_lanes

# libgpufilt as installed: the shared library (its soname the major
# version) exporting the names of lib/api/gpufilt.sym alone; and the static
# one, one object whose other symbols are made local.  Both hold the CUDA
# runtime (libcudart_static.a, which opens the driver's libcuda.so.1 at
# run time), as the tools do: they load, and run on the CPU, where CUDA
# is not installed, and need no CUDA to link.  A CUDA program's pointers
# and streams are the driver's, shared by every runtime in the process.
# The tools link build/libgpufilt.a, every symbol visible.
SO_MAJOR := $(firstword $(subst ., ,$(VERSION)))
LIB_SO   := build/dist/libgpufilt.so.$(VERSION)
LIB_A    := build/dist/libgpufilt.a
OBJCOPY  ?= objcopy

all: $(BINS) $(LIB_SO) $(LIB_A)

build/dist/gpufilt.map: lib/api/gpufilt.sym
	@mkdir -p $(@D)
	$(say) GEN $@
	$(Q){ echo 'GPUFILT_$(SO_MAJOR) {'; echo '  global:'; \
	    sed 's/.*/    &;/' $<; echo '  local: *;'; echo '};'; } >$@

$(LIB_SO): $(LIB_OBJS) build/dist/gpufilt.map
	$(say) LD $@
	$(Q)$(CC) -shared -Wl,-soname,libgpufilt.so.$(SO_MAJOR) \
	    -Wl,--version-script=build/dist/gpufilt.map -Wl,--no-undefined \
	    $(CFLAGS) $(LDFLAGS) -o $@ $(LIB_OBJS) $(TOOL_PKG_LIBS) $(LDLIBS_CUDA)
	$(Q)ln -sf libgpufilt.so.$(VERSION) build/dist/libgpufilt.so.$(SO_MAJOR)
	$(Q)ln -sf libgpufilt.so.$(SO_MAJOR) build/dist/libgpufilt.so

$(LIB_A): $(LIB_OBJS) lib/api/gpufilt.sym
	@mkdir -p $(@D)
	$(say) AR $@
	$(Q)$(LD) -r -o build/dist/gpufilt.o $(LIB_OBJS) -L$(CUDA)/lib64 -lcudart_static
	$(Q)$(OBJCOPY) --keep-global-symbols=lib/api/gpufilt.sym build/dist/gpufilt.o
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
build/lib/%_cpu.o build/lib/base/pool.o build/lib/io/gray.o: ALL_CFLAGS += $(CPU_CFLAGS)

# nvJPEG's header: the CUDA toolkit's, else the one make deps fetched
# (scripts/deps-nvjpeg.sh).  With it lib/io/jpeg_gpu.c holds the GPU's JPEG
# decoder, which loads libnvjpeg at run time (never linked); without it,
# a decoder that says it was not built.
NVJPEG_H := $(firstword $(wildcard $(CUDA)/include/nvjpeg.h \
            .deps-extra/nvjpeg/include/nvjpeg.h))
ifneq ($(NVJPEG_H),)
build/lib/io/jpeg_gpu.o build/asan/lib/io/jpeg_gpu.o build/tsan/lib/io/jpeg_gpu.o: ALL_CFLAGS += -DGF_HAVE_NVJPEG \
    -I$(dir $(NVJPEG_H)) -DGF_CUDA_LIB='"$(CUDA)/lib64"'
endif

build/gencode: FORCE
	@mkdir -p $(@D)
	@echo '$(strip $(GENCODE))' | cmp -s - $@ || echo '$(strip $(GENCODE))' >$@

build/kernels/%.o: kernels/%.cu build/gencode
	@mkdir -p $(@D)
	$(say) NVCC $<
	$(Q)$(NVCC) $(ALL_NVCCFLAGS) -MMD -MP -c -o $@ $<

build/cmd/%.o: cmd/%.c
	@mkdir -p $(@D)
	$(say) CC $@
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -DGF_VERSION='"$(VERSION)"' -c -o $@ $<

build/cmd/nomain/%.o: cmd/%.c
	@mkdir -p $(@D)
	$(say) CC $@
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -DGF_NO_MAIN -DGF_VERSION='"$(VERSION)"' -c -o $@ $<

bin/gpufiltd: build/cmd/gpufiltd.o build/cmd/cli.o \
              $(TOOLS:%=build/cmd/nomain/%.o) build/libgpufilt.a
	@mkdir -p $(@D)
	$(say) LD $@
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) build/libgpufilt.a $(LDLIBS_TOOLS)

bin/%: build/cmd/%.o build/cmd/cli.o build/libgpufilt.a
	@mkdir -p $(@D)
	$(say) LD $@
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< build/cmd/cli.o build/libgpufilt.a $(LDLIBS_TOOLS)

build/tests/%: tests/%.c build/libgpufilt.a
	@mkdir -p $(@D)
	$(say) CCLD $@
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -MMD -MP -o $@ $< build/libgpufilt.a $(LDLIBS)

# engine_test makes the run's threads fail to start: its pthread_create
# is the test's own, which calls the real one.
build/tests/engine_test build/asan/tests/engine_test \
build/tsan/tests/engine_test: private LDLIBS += -Wl,--wrap=pthread_create

build/bench/%: bench/%.c build/libgpufilt.a
	@mkdir -p $(@D)
	$(say) CCLD $@
	$(Q)$(CC) $(ALL_CFLAGS) $(BENCH_CFLAGS) $(LDFLAGS) -MMD -MP -o $@ $< \
	    $(BENCH_OBJS) build/libgpufilt.a $(BENCH_LIBS) $(LDLIBS)

# make bench's yardstick and its timer (bench/copy.cu, bench/timing.c)
# are the bench's own, not the library's.
BENCH_TIMING := build/bench/copy.o build/bench/timing.o
build/bench/bench: $(BENCH_TIMING)
build/bench/bench: private BENCH_OBJS = $(BENCH_TIMING) $(BENCH_NPP_OBJS)

build/bench/timing.o: bench/timing.c
	@mkdir -p $(@D)
	$(say) CC $@
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

build/bench/copy.o: bench/copy.cu
	@mkdir -p $(@D)
	$(say) NVCC $<
	$(Q)$(NVCC) $(ALL_NVCCFLAGS) -MMD -MP -c -o $@ $<

# NVIDIA NPP where the CUDA toolkit has it (the GPU machine's has, CI's
# has not): make bench then times NPP's nearest equivalents beside our
# strategies (bench/bench_npp.c); without npp.h it is built as before.
# private: the flags and libraries are build/bench/bench's alone, not
# inherited by the library objects it depends on.
HAVE_NPP := $(wildcard $(CUDA)/include/npp.h)
ifneq ($(HAVE_NPP),)
build/bench/bench: build/bench/bench_npp.o
build/bench/bench: private BENCH_CFLAGS = -DGF_HAVE_NPP
BENCH_NPP_OBJS := build/bench/bench_npp.o
build/bench/bench: private BENCH_LIBS = -Wl,-rpath,$(CUDA)/lib64 -lnppif \
    -lnppitc -lnppc
endif

build/bench/bench_npp.o: bench/bench_npp.c
	@mkdir -p $(@D)
	$(say) CC $@
	$(Q)$(CC) $(ALL_CFLAGS) -DGF_HAVE_NPP -MMD -MP -c -o $@ $<

# The libraries alone: the Python package's build (python/setup.py) runs
# make lib and carries build/dist/libgpufilt.so in its wheel.
lib: $(LIB_SO) $(LIB_A)
.PHONY: lib

# ---- sanitizers and fuzzing: host code only, compiled by clang.
# test-asan builds lib/, cmd/ and the unit tests into build/asan/ with
# ASan and UBSan (the CUDA kernels' objects are the ones of the normal
# build: the tools run on the CPU there) and runs tests/run.sh on them.
ASAN_CC    ?= clang
ASAN_FLAGS ?= -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
              -fno-sanitize-recover=undefined
ASAN_OBJS   = $(patsubst lib/%.c,build/asan/lib/%.o,$(LIB_SRCS)) \
              $(patsubst kernels/%.cu,build/kernels/%.o,$(wildcard kernels/*.cu))
ASAN_BINS   = $(TOOLS:%=build/asan/bin/%) build/asan/bin/gpufiltd
ASAN_TESTS  = $(patsubst tests/%.c,build/asan/tests/%,$(wildcard tests/*_test.c)) \
              build/asan/tests/gpu_probe build/asan/tests/jpegcheck \
              build/asan/tests/server_hostile build/asan/tests/iccmake \
              build/asan/tests/remote_lanes

build/asan/lib/%.o: lib/%.c
	@mkdir -p $(@D)
	$(say) CC $@
	$(Q)$(ASAN_CC) $(ALL_CFLAGS) $(ASAN_FLAGS) -MMD -MP -c -o $@ $<

build/asan/libgpufilt.a: $(ASAN_OBJS)
	$(say) AR $@
	$(Q)rm -f $@
	$(Q)ar rcs $@ $(ASAN_OBJS)

build/asan/bin/gpufiltd: cmd/gpufiltd.c cmd/cli.c $(TOOLS:%=cmd/%.c) \
                         build/asan/libgpufilt.a
	@mkdir -p $(@D)
	$(say) CCLD $@
	$(Q)$(ASAN_CC) $(ALL_CFLAGS) $(ASAN_FLAGS) -DGF_NO_MAIN \
	    -DGF_VERSION='"$(VERSION)"' -o $@ $(filter %.c,$^) \
	    build/asan/libgpufilt.a $(LDLIBS)

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

test-asan: check-deps
	@$(MAKE) --no-print-directory $(ASAN_BINS) $(ASAN_TESTS) build/bench/framegen \
	    build/bench/jpeggen build/bench/jpegdamage
	@GF_ASAN=1 GF_BUILD=build/asan LSAN_OPTIONS=suppressions=$(CURDIR)/tests/fuzz/lsan.supp \
	    UBSAN_OPTIONS=print_stacktrace=1 sh tests/run.sh

# test-tsan builds the same into build/tsan/ with ThreadSanitizer and runs
# the tests whose runs have threads on the CPU path (TSAN_TESTS: streams,
# the decode pool, batches, the engine's stages; lib/engine_*.c).  Each
# process writes what it reports to build/tsan/reports/race.PID: a run
# that reports anything fails its case (exit 66) and the target lists
# the reports and fails.
TSAN_CC    ?= clang
TSAN_FLAGS ?= -O1 -g -fno-omit-frame-pointer -fsanitize=thread
TSAN_OBJS   = $(patsubst lib/%.c,build/tsan/lib/%.o,$(LIB_SRCS)) \
              $(patsubst kernels/%.cu,build/kernels/%.o,$(wildcard kernels/*.cu))
TSAN_BINS   = $(TOOLS:%=build/tsan/bin/%) build/tsan/bin/gpufiltd
TSAN_UNITS  = build/tsan/tests/gpu_probe build/tsan/tests/gpufilt_test \
              build/tsan/tests/engine_test \
              build/tsan/tests/server_hostile build/tsan/tests/remote_lanes
TSAN_TESTS ?= unit t_stream t_split t_stream_bounds t_engine t_multi t_lib \
              t_hostile t_env t_small t_server

build/tsan/lib/%.o: lib/%.c
	@mkdir -p $(@D)
	$(say) CC $@
	$(Q)$(TSAN_CC) $(ALL_CFLAGS) $(TSAN_FLAGS) -MMD -MP -c -o $@ $<

build/tsan/libgpufilt.a: $(TSAN_OBJS)
	$(say) AR $@
	$(Q)rm -f $@
	$(Q)ar rcs $@ $(TSAN_OBJS)

build/tsan/bin/gpufiltd: cmd/gpufiltd.c cmd/cli.c $(TOOLS:%=cmd/%.c) \
                         build/tsan/libgpufilt.a
	@mkdir -p $(@D)
	$(say) CCLD $@
	$(Q)$(TSAN_CC) $(ALL_CFLAGS) $(TSAN_FLAGS) -DGF_NO_MAIN \
	    -DGF_VERSION='"$(VERSION)"' -o $@ $(filter %.c,$^) \
	    build/tsan/libgpufilt.a $(LDLIBS)

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

test-tsan: check-deps
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
# Every image reader and writer (lib/io/img*.c: a new format needs no line here).
FUZZ_IMG_SRC   := $(wildcard lib/io/img*.c) lib/base/gf.c lib/io/outfile.c lib/io/gray.c
FUZZ_KSPEC_SRC := lib/ops/conv2d/kspec.c lib/ops/conv2d/kspec_class.c lib/tool/opts.c lib/base/strategy.c $(FUZZ_IMG_SRC)

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

build/fuzz/fuzz_webp: tests/fuzz/fuzz_webp.c $(FUZZ_IMG_SRC:lib/%.c=build/fuzz/lib/%.o)
	$(FUZZ_CC) $(ALL_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer -MMD -MP -o $@ \
	    $(filter %.c %.o,$^) \
	    $(PKG_LIBS) -lpthread -lm

build/fuzz/fuzz_jpegcheck: tests/fuzz/fuzz_jpegcheck.c $(FUZZ_IMG_SRC:lib/%.c=build/fuzz/lib/%.o) \
    build/fuzz/lib/io/jpeg_walk.o
	$(FUZZ_CC) $(ALL_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer -MMD -MP -o $@ \
	    $(filter %.c %.o,$^) \
	    $(PKG_LIBS) -lpthread -lm

build/fuzz/fuzz_kspec: tests/fuzz/fuzz_kspec.c $(FUZZ_KSPEC_SRC:lib/%.c=build/fuzz/lib/%.o)
	$(FUZZ_CC) $(ALL_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer -MMD -MP -o $@ \
	    $(filter %.c %.o,$^) \
	    $(PKG_LIBS) -lpthread -lm

# fuzz_proto is the server's side of a connection: every host file of
# lib/ (the server reaches the engine), the CUDA kernels' objects of the
# normal build (linked, never called: the server opens no GPU), and the
# tools' definitions, whose parser reads a client's options.
FUZZ_PROTO_OBJS := $(LIB_SRCS:lib/%.c=build/fuzz/lib/%.o) \
                   $(patsubst kernels/%.cu,build/kernels/%.o,$(wildcard kernels/*.cu)) \
                   $(patsubst %,build/fuzz/cmd/%.o,cli $(TOOLS))

build/fuzz/cmd/%.o: cmd/%.c
	@mkdir -p $(@D)
	$(say) CC $@
	$(Q)$(FUZZ_CC) $(ALL_CFLAGS) $(FUZZ_FLAGS) -DGF_NO_MAIN \
	    -DGF_VERSION='"$(VERSION)"' -MMD -MP -c -o $@ $<

build/fuzz/fuzz_proto: tests/fuzz/fuzz_proto.c $(FUZZ_PROTO_OBJS)
	$(FUZZ_CC) $(ALL_CFLAGS) -Icmd $(FUZZ_FLAGS) -fsanitize=fuzzer \
	    -DGF_VERSION='"$(VERSION)"' -MMD -MP -o $@ $(filter %.c %.o,$^) \
	    $(LDLIBS)

# Its seeds: the packets of real runs of the tools through a CPU server,
# recorded by a proxy (tests/fuzz/proto_record.c, tests/fuzz/proto_seeds.sh).
build/fuzz/proto_record: tests/fuzz/proto_record.c
	@mkdir -p $(@D)
	$(say) CCLD $@
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $<

build/fuzz/seeds/proto/.done: tests/fuzz/proto_seeds.sh build/fuzz/proto_record $(BINS)
	sh tests/fuzz/proto_seeds.sh build/fuzz/proto_record bin build/fuzz/seeds/proto
	@touch $@

# Seeds from tests/fuzz/seeds.py; what the fuzzers find accumulates in
# build/fuzz/corpus, crashes land in build/fuzz/ (crash-*, timeout-*).
fuzz: build/fuzz/fuzz_img build/fuzz/fuzz_png build/fuzz/fuzz_tiff \
    build/fuzz/fuzz_webp build/fuzz/fuzz_kspec build/fuzz/fuzz_jpegcheck \
    build/fuzz/fuzz_proto build/fuzz/seeds/proto/.done
	python3 tests/fuzz/seeds.py build/fuzz/seeds
	mkdir -p build/fuzz/corpus/img build/fuzz/corpus/png build/fuzz/corpus/tiff \
	    build/fuzz/corpus/webp build/fuzz/corpus/kspec build/fuzz/corpus/jpeg \
	    build/fuzz/corpus/proto
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/fuzz/lsan.supp build/fuzz/fuzz_img -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
	    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	    -artifact_prefix=build/fuzz/ build/fuzz/corpus/img build/fuzz/seeds/img
	build/fuzz/fuzz_png -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
	    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	    -artifact_prefix=build/fuzz/ build/fuzz/corpus/png build/fuzz/seeds/png
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/fuzz/lsan.supp build/fuzz/fuzz_tiff -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
	    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	    -artifact_prefix=build/fuzz/ build/fuzz/corpus/tiff build/fuzz/seeds/tiff
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/fuzz/lsan.supp build/fuzz/fuzz_webp -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
	    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	    -artifact_prefix=build/fuzz/ build/fuzz/corpus/webp build/fuzz/seeds/webp
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/fuzz/lsan.supp build/fuzz/fuzz_jpegcheck -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
	    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	    -artifact_prefix=build/fuzz/ build/fuzz/corpus/jpeg build/fuzz/seeds/jpeg
	build/fuzz/fuzz_kspec -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
	    -timeout=10 -print_final_stats=1 -artifact_prefix=build/fuzz/ \
	    build/fuzz/corpus/kspec build/fuzz/seeds/kspec
	build/fuzz/fuzz_proto -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
	    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	    -artifact_prefix=build/fuzz/ build/fuzz/corpus/proto \
	    build/fuzz/seeds/proto tests/fuzz/proto

deps:
	@sh scripts/deps.sh
	@sh scripts/deps-nvjpeg.sh $(CUDA)

# What make test and make demo need, checked and named, never installed.
check-deps:
	@sh scripts/deps.sh --check

demo: check-deps
	@j=; $(SUBMAKE_J); $(MAKE) --no-print-directory $$j all build/tests/gpu_probe
	@sh scripts/demo.sh

test: check-deps
	@j=; $(SUBMAKE_J); $(MAKE) --no-print-directory $$j all $(TESTS)
	@sh tests/run.sh

# test-served: the whole suite with every run through a server of its own
# (tests/run.sh GF_SERVED=1: a run the server does not take fails).
test-served: check-deps
	@j=; $(SUBMAKE_J); $(MAKE) --no-print-directory $$j all $(TESTS)
	@GF_SERVED=1 sh tests/run.sh

# What make test runs, built and not run: scripts/gpu.sh builds this on
# the GPU machine and runs the suite there side by side.
test-bins: all $(TESTS)

# make bench keeps its tables in bench/figures.md (bench/figures.sh), with
# the date, the commit and the GPU: the figures comments point to.
bench: all build/bench/bench
	sh bench/figures.sh build/bench/bench

bench-io: all build/bench/framegen build/bench/jpeggen build/bench/jpegdec \
    build/tests/gpu_probe
	sh bench/io.sh
bench-cpu: all build/bench/cpuops
	sh bench/cpu.sh
# bench-serve: issue 42's table, each row against its baseline in the
# same run (bench/serve.sh): one image, a pipe, xargs, batches, streams.
bench-serve: all build/bench/framegen build/bench/jpegdec
	sh bench/serve.sh

bench-crossover: all build/bench/framegen build/bench/jpeggen build/tests/gpu_probe
	sh bench/crossover.sh

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
               $(BINDIR)/gpufiltd $(MAN1DIR)/gpufiltd.1 \
               $(TOOLS:%=$(BASHCOMPDIR)/%) $(TOOLS:%=$(ZSHCOMPDIR)/_%) \
               $(TOOLS:%=$(FISHCOMPDIR)/%.fish) $(LIB_INSTALLED)

install: all $(BASH_COMPLETIONS) $(ZSH_COMPLETIONS) $(FISH_COMPLETIONS)
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(MAN1DIR) $(DESTDIR)$(BASHCOMPDIR) \
	    $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR) $(DESTDIR)$(LIBDIR) \
	    $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(MAN3DIR)
	cp $(BINS) $(DESTDIR)$(BINDIR)/
	$(if $(STRIP),$(STRIP) $(BINS:bin/%=$(DESTDIR)$(BINDIR)/%))
	cp $(TOOLS:%=man/%.1) man/gpufiltd.1 $(DESTDIR)$(MAN1DIR)/
	cp $(BASH_COMPLETIONS) $(DESTDIR)$(BASHCOMPDIR)/
	cp $(ZSH_COMPLETIONS) $(DESTDIR)$(ZSHCOMPDIR)/
	cp $(FISH_COMPLETIONS) $(DESTDIR)$(FISHCOMPDIR)/
	cp $(LIB_SO) $(LIB_A) $(DESTDIR)$(LIBDIR)/
	ln -sf libgpufilt.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libgpufilt.so.$(SO_MAJOR)
	ln -sf libgpufilt.so.$(SO_MAJOR) $(DESTDIR)$(LIBDIR)/libgpufilt.so
	cp lib/api/gpufilt.h $(DESTDIR)$(INCLUDEDIR)/
	cp man/gpufilt.3 $(DESTDIR)$(MAN3DIR)/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
	    -e 's|@PKGS@|$(PKGS)|' lib/api/gpufilt.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/gpufilt.pc

# find_package(gpufilt): the CMake package beside gpufilt.pc, with its
# paths; the static target's libraries are what pkg-config says now.
CMAKEDIR      ?= $(LIBDIR)/cmake/gpufilt
LIB_INSTALLED += $(CMAKEDIR)/gpufilt-config.cmake \
                 $(CMAKEDIR)/gpufilt-config-version.cmake
CMAKE_SED      = -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' \
                 -e 's|@VERSION@|$(VERSION)|g' -e 's|@SO_MAJOR@|$(SO_MAJOR)|g' \
                 -e 's|@STATIC_LIBS@|$(subst $() ,;,$(strip $(shell \
                     pkg-config --static --libs $(PKGS)) $(LIBS_PRIVATE)))|'
LIBS_PRIVATE  := $(shell sed -n 's/^Libs.private: //p' lib/api/gpufilt.pc.in)

install: install-cmake
install-cmake:
	mkdir -p $(DESTDIR)$(CMAKEDIR)
	sed $(CMAKE_SED) lib/api/gpufilt-config.cmake.in \
	    >$(DESTDIR)$(CMAKEDIR)/gpufilt-config.cmake
	sed $(CMAKE_SED) lib/api/gpufilt-config-version.cmake.in \
	    >$(DESTDIR)$(CMAKEDIR)/gpufilt-config-version.cmake

# The server's systemd user units (systemd/): gpufiltd.socket, which
# systemd --user listens on, and gpufiltd.service, which it starts on the
# first connection, naming the installed server (BINDIR, not DESTDIR).
SYSTEMDUSERDIR ?= $(PREFIX)/lib/systemd/user
INSTALLED      += $(SYSTEMDUSERDIR)/gpufiltd.socket $(SYSTEMDUSERDIR)/gpufiltd.service

install: install-systemd
install-systemd:
	mkdir -p $(DESTDIR)$(SYSTEMDUSERDIR)
	cp systemd/gpufiltd.socket $(DESTDIR)$(SYSTEMDUSERDIR)/
	sed -e 's|@BINDIR@|$(BINDIR)|g' systemd/gpufiltd.service.in \
	    >$(DESTDIR)$(SYSTEMDUSERDIR)/gpufiltd.service

# Then the directories that are left empty, up to (not with) PREFIX.
uninstall:
	rm -f $(INSTALLED:%=$(DESTDIR)%)
	@for d in $(CMAKEDIR) $(SYSTEMDUSERDIR) $(FISHCOMPDIR) $(ZSHCOMPDIR) $(BASHCOMPDIR) $(MAN1DIR) \
	    $(MAN3DIR) $(PKGCONFIGDIR) $(LIBDIR) $(INCLUDEDIR) $(BINDIR); do \
		while [ "$${d#$(PREFIX)/}" != "$$d" ] && \
		    rmdir "$(DESTDIR)$$d" 2>/dev/null; do d=$${d%/*}; done; \
	done

clean:
	rm -rf bin build

.PHONY: all deps check-deps demo test test-served test-bins test-asan test-tsan fuzz bench bench-io \
    bench-cpu bench-crossover bench-serve install install-cmake install-systemd uninstall clean FORCE
.SECONDARY:

-include $(shell find build -name '*.d' 2>/dev/null)
