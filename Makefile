# gpufilt: sobel, conv2d and edge.  Plain GNU make; safe under -j.
#
#   make            build bin/sobel, bin/conv2d, bin/edge
#   make deps       install the Debian packages the build and tests need
#   make demo       deps, build, run sobel on a bundled sample
#   make test       deps, build, run every test (GPU cases skip without a GPU)
#   make bench      GPU only: kernel times against a copy kernel
#   make install    PREFIX=/usr/local

PREFIX    ?= /usr/local
CUDA      ?= /usr/local/cuda
NVCC      ?= $(CUDA)/bin/nvcc
CC        := gcc
CFLAGS    ?= -O2 -g
NVCCFLAGS ?= -O3
# Hopper machine code, plus PTX the driver can compile for older GPUs.
GENCODE   ?= -gencode arch=compute_90,code=sm_90 -gencode arch=compute_75,code=compute_75

PKGS      := netpbm stb libpng libjpeg
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

ALL_CFLAGS    = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Wall -Wextra \
                -Ilib -I$(CUDA)/include $(PKG_CFLAGS) $(CFLAGS)
ALL_NVCCFLAGS = -std=c++17 $(GENCODE) -fmad=false -Ilib -Xcompiler -Wall,-Wextra \
                $(NVCCFLAGS)
# The link line takes CFLAGS too (make CFLAGS=-fsanitize=address links the
# sanitizer runtime), then LDFLAGS.
LDFLAGS      ?=
LDLIBS        = $(PKG_LIBS) -L$(CUDA)/lib64 -lcudart_static -lstdc++ -lpthread \
                -ldl -lrt -lm

TOOLS    := $(basename $(notdir $(wildcard cmd/*.c)))
BINS     := $(TOOLS:%=bin/%)
LIB_OBJS := $(patsubst lib/%.c,build/lib/%.o,$(wildcard lib/*.c)) \
            $(patsubst kernels/%.cu,build/kernels/%.o,$(wildcard kernels/*.cu))
TESTS    := $(patsubst tests/%.c,build/tests/%,$(wildcard tests/*_test.c)) \
            build/tests/gpu_probe

all: $(BINS)

build/libgpufilt.a: $(LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $(LIB_OBJS)

# Header dependencies come from the compilers (-MMD -MP): an edit to a
# header rebuilds only the objects that include it.
build/lib/%.o: lib/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

build/kernels/%.o: kernels/%.cu
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -MMD -MP -c -o $@ $<

build/cmd/%.o: cmd/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -MMD -MP -DGF_VERSION='"$(VERSION)"' -c -o $@ $<

bin/%: build/cmd/%.o build/libgpufilt.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< build/libgpufilt.a $(LDLIBS)

build/tests/%: tests/%.c build/libgpufilt.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -MMD -MP -o $@ $< build/libgpufilt.a $(LDLIBS)

build/bench: tests/bench.c build/libgpufilt.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -MMD -MP -o $@ $< build/libgpufilt.a $(LDLIBS)

VERSION := 0.1

deps:
	@sh tests/deps.sh

demo: deps
	@$(MAKE) --no-print-directory all build/tests/gpu_probe
	@sh tests/demo.sh

test: deps
	@$(MAKE) --no-print-directory all $(TESTS)
	@sh tests/run.sh

bench: all build/bench
	build/bench

install: all
	mkdir -p $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	cp $(BINS) $(DESTDIR)$(PREFIX)/bin/
	cp $(TOOLS:%=man/%.1) $(DESTDIR)$(PREFIX)/share/man/man1/

clean:
	rm -rf bin build

.PHONY: all deps demo test bench install clean
.SECONDARY:

-include $(shell find build -name '*.d' 2>/dev/null)
