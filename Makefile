# SPDX-License-Identifier: MIT
#
# A thin wrapper around CMake for the two commands in the README:
#
#   make demo    install missing dependencies, build, run gpuscope on a sample
#   make check   install missing dependencies, build, run the whole test suite
#
# Other targets: deps build asan format format-check install clean help.
# CMake does the real work; the options are in CMakeLists.txt.

BUILD_DIR    ?= build
ASAN_DIR     ?= build-asan
CMAKE        ?= cmake
CTEST        ?= ctest
CLANG_FORMAT ?= clang-format
JOBS         ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS   ?=
DEMO_TRACE   ?= samples/tiny_pipeline.json

GPUSCOPE := $(BUILD_DIR)/analyzer/gpuscope

# The C sources and headers under version control, plus new files not yet
# added (ignored files, such as generated code in build dirs, are left out).
C_SOURCES = $(wildcard $(shell git ls-files --cached --others --exclude-standard \
	-- '*.c' '*.h' 2>/dev/null || find . -path './build*' -prune -o \
	\( -name '*.c' -o -name '*.h' \) -print))

# Steps run in the order written; CMake parallelises the build itself.
MAKEFLAGS += --no-print-directory
.NOTPARALLEL:

.PHONY: all help deps configure build demo check asan format format-check install clean

all: build

help:
	@echo 'make demo          install missing deps, build, run gpuscope analyze on $(DEMO_TRACE)'
	@echo 'make check         install missing deps, build, run all tests (ctest)'
	@echo 'make deps          install missing build dependencies (scripts/install-deps.sh)'
	@echo 'make build         configure $(BUILD_DIR)/ (warnings are errors) and build'
	@echo 'make asan          build $(ASAN_DIR)/ with ASan+UBSan and run all tests'
	@echo 'make format        clang-format -i the C sources'
	@echo 'make format-check  fail when a C source is not clang-formatted'
	@echo 'make install       cmake --install $(BUILD_DIR)'
	@echo 'make clean         remove $(BUILD_DIR)/ and $(ASAN_DIR)/'

deps:
	@scripts/install-deps.sh

configure:
	$(CMAKE) -S . -B $(BUILD_DIR) -DGPUSCOPE_WERROR=ON $(CMAKE_ARGS)

build: configure
	$(CMAKE) --build $(BUILD_DIR) -j $(JOBS)

demo: deps build
	@echo '$$ $(GPUSCOPE) analyze $(DEMO_TRACE)'
	@$(GPUSCOPE) analyze $(DEMO_TRACE)

check: deps build
	$(CTEST) --test-dir $(BUILD_DIR) --output-on-failure -j2

# abort_on_error: a sanitizer report ends the process with SIGABRT, so it can
# never pass for the exit status 1 that command-line tests expect on bad input.
asan: deps
	$(CMAKE) -S . -B $(ASAN_DIR) -DGPUSCOPE_WERROR=ON \
		-DGPUSCOPE_SANITIZE=address,undefined -DCMAKE_BUILD_TYPE=Debug $(CMAKE_ARGS)
	$(CMAKE) --build $(ASAN_DIR) -j $(JOBS)
	ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:strict_string_checks=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:abort_on_error=1 \
		$(CTEST) --test-dir $(ASAN_DIR) --output-on-failure -j2

format:
	$(if $(C_SOURCES),$(CLANG_FORMAT) -i $(C_SOURCES),@echo 'format: no C sources')

format-check:
	$(if $(C_SOURCES),$(CLANG_FORMAT) --dry-run --Werror $(C_SOURCES),@echo 'format-check: no C sources')

install: build
	$(CMAKE) --install $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR)
