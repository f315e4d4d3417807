# SPDX-License-Identifier: MIT
#
# A thin wrapper around CMake for the two commands in the README:
#
#   make demo    install missing dependencies, build, run gpuscope on a sample
#   make check   install missing dependencies, build, run the whole test suite
#
# Other targets: deps build release asan format format-check install clean help.
# CMake does the real work; the options are in CMakeLists.txt.

BUILD_DIR    ?= build
ASAN_DIR     ?= build-asan
BENCH_DIR    ?= build-bench
FUZZ_DIR     ?= build-fuzz
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
TSAN_DIR     ?= build-tsan
RELEASE_DIR  ?= build-release
TSAN_LABELS  ?= collector|threads
BENCH_SIZES  ?= 1e5 1e6 1e7
BENCH_ARGS   ?=
HTA_PYTHON   ?= python3
CMAKE        ?= cmake
CTEST        ?= ctest
CLANG_FORMAT ?= clang-format
JOBS         ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS   ?=
DEMO_TRACE   ?= samples/synthetic/serial_stream.gscope

GPUSCOPE := $(BUILD_DIR)/analyzer/gpuscope

# The C sources and headers under version control, plus new files not yet
# added (ignored files, such as generated code in build dirs, are left out).
C_SOURCES = $(wildcard $(shell git ls-files --cached --others --exclude-standard \
	-- '*.c' '*.h' 2>/dev/null || find . -path './build*' -prune -o \
	\( -name '*.c' -o -name '*.h' \) -print))

# Steps run in the order written; CMake parallelises the build itself.
MAKEFLAGS += --no-print-directory
.NOTPARALLEL:

.PHONY: all help deps configure build demo check python release asan bench bench-mpi fuzz tsan tidy valgrind format \
	format-check install clean

all: build

help:
	@echo 'make demo          install missing deps, build, run gpuscope analyze on $(DEMO_TRACE)'
	@echo 'make check         install missing deps, build, run all tests (ctest, then the Python package)'
	@echo 'make python        the Python package into $(BUILD_DIR)/python-venv (pip install ./python)'
	@echo 'make deps          install missing build dependencies (scripts/install-deps.sh)'
	@echo 'make build         configure $(BUILD_DIR)/ (warnings are errors) and build'
	@echo 'make release       Release build (-O3, warnings are errors) in $(RELEASE_DIR)/ and all tests'
	@echo 'make asan          build $(ASAN_DIR)/ with ASan+UBSan and run all tests'
	@echo 'make fuzz          clang libFuzzer build in $(FUZZ_DIR)/, each target FUZZ_SECONDS ($(FUZZ_SECONDS)) s'
	@echo 'make tsan          ThreadSanitizer build in $(TSAN_DIR)/, ctest -L "$(TSAN_LABELS)"'
	@echo 'make tidy          clang-tidy (.clang-tidy) over the C sources of $(BUILD_DIR)/'
	@echo 'make valgrind      the command-line checks under valgrind (build in $(BUILD_DIR)/)'
	@echo 'make format        clang-format -i the C sources'
	@echo 'make format-check  fail when a C source is not clang-formatted'
	@echo 'make install       cmake --install $(BUILD_DIR)'
	@echo 'make bench         Release build in $(BENCH_DIR)/, benchmark table for BENCH_SIZES ($(BENCH_SIZES))'
	@echo 'make bench-mpi     Release build, gpuscope-mpi -n 1, 2, 4 on 256 ranks x 20k ops (bench/NOTES.md)'
	@echo 'make clean         remove $(BUILD_DIR)/, $(ASAN_DIR)/, $(BENCH_DIR)/, $(FUZZ_DIR)/, $(TSAN_DIR)/'

deps:
	@scripts/install-deps.sh

configure:
	$(CMAKE) -S . -B $(BUILD_DIR) -DGPUSCOPE_WERROR=ON $(CMAKE_ARGS)

build: configure
	$(CMAKE) --build $(BUILD_DIR) -j $(JOBS)

demo: deps build
	@echo '$$ $(GPUSCOPE) analyze $(DEMO_TRACE)'
	@$(GPUSCOPE) analyze $(DEMO_TRACE)

# Then how many tests were skipped (exit 77: no GPU, no ../shared/data, no
# Chromium, ...) and why, one line each; the exit status is ctest's.
check: deps build
	@{ $(CTEST) --test-dir $(BUILD_DIR) --output-on-failure -j2; \
	   echo $$? >$(BUILD_DIR)/ctest.rc; } | tee $(BUILD_DIR)/ctest.out
	@scripts/ctest-skips.sh $(BUILD_DIR) $(BUILD_DIR)/ctest.out
	@test $$(cat $(BUILD_DIR)/ctest.rc) = 0
	scripts/python-check.sh $(BUILD_DIR)

# The Python package, installed into $(BUILD_DIR)/python-venv (made when
# missing): pip install ./python, scikit-build-core driving this CMake.
python: deps build
	scripts/python-check.sh $(BUILD_DIR) --install-only

# The build type packagers use (-O3, NDEBUG), warnings still errors: some
# warnings (-Wnull-dereference, -Wdangling-pointer) appear only with the
# optimiser's view of the code.
release: deps
	$(CMAKE) -S . -B $(RELEASE_DIR) -DGPUSCOPE_WERROR=ON -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)
	$(CMAKE) --build $(RELEASE_DIR) -j $(JOBS)
	$(CTEST) --test-dir $(RELEASE_DIR) --output-on-failure -j2

# abort_on_error: a sanitizer report ends the process with SIGABRT, so it can
# never pass for the exit status 1 that command-line tests expect on bad input.
asan: deps
	$(CMAKE) -S . -B $(ASAN_DIR) -DGPUSCOPE_WERROR=ON \
		-DGPUSCOPE_SANITIZE=address,undefined -DCMAKE_BUILD_TYPE=Debug $(CMAKE_ARGS)
	$(CMAKE) --build $(ASAN_DIR) -j $(JOBS)
	ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:strict_string_checks=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:abort_on_error=1 \
		$(CTEST) --test-dir $(ASAN_DIR) --output-on-failure -j2

# Benchmarks (bench/NOTES.md): a Release build of the driver and gpuscope,
# then the table for each size in BENCH_SIZES (GPU ops), also written to
# bench/results/latest.txt. Generated traces go to $TMPDIR (or /tmp) and
# are deleted; then, once, a job of 64 ranks x 20k ops against the same ops as
# one rank (BENCH_ARGS="--job-ranks 0" leaves it out; --job-ranks N --job-ops K
# resize it), and the text report of a job of 1,024 ranks x 200 ops against
# one rank ("--scale-ranks 0" leaves it out; --scale-ranks N --scale-ops K
# resize it). Last, Holistic Trace Analysis side by side (bench/hta_compare.sh,
# into bench/results/hta.txt; says "skipped" when HTA_PYTHON cannot import
# hta). Warnings are not errors here: -O3 finds different ones than
# the checked builds, and a benchmark should not fail on them.
bench: deps
	$(CMAKE) -S . -B $(BENCH_DIR) -DCMAKE_BUILD_TYPE=Release -DGPUSCOPE_WERROR=OFF \
		-DBUILD_TESTING=OFF -DGPUSCOPE_BUILD_KERNELS=OFF $(CMAKE_ARGS)
	$(CMAKE) --build $(BENCH_DIR) -j $(JOBS) --target gs_bench gs_bench_gen_cli gpuscope
	@mkdir -p bench/results
	$(BENCH_DIR)/bench/gs_bench --gpuscope $(BENCH_DIR)/analyzer/gpuscope \
		--out bench/results/latest.txt $(BENCH_ARGS) $(BENCH_SIZES)
	PYTHON=$(HTA_PYTHON) GPUSCOPE=$(BENCH_DIR)/analyzer/gpuscope \
		GEN=$(BENCH_DIR)/bench/gs_bench_gen bench/hta_compare.sh >bench/results/hta.txt
	@cat bench/results/hta.txt

# gpuscope-mpi at scale (bench/NOTES.md, "Many ranks over MPI"): the
# Release build, then bench/mpi_bench.sh (MPI_RANKS ranks x MPI_OPS ops).
MPI_RANKS ?= 256
MPI_OPS ?= 20000
bench-mpi: deps
	$(CMAKE) -S . -B $(BENCH_DIR) -DCMAKE_BUILD_TYPE=Release -DGPUSCOPE_WERROR=OFF \
		-DBUILD_TESTING=OFF -DGPUSCOPE_BUILD_KERNELS=OFF -DGPUSCOPE_MPI=ON $(CMAKE_ARGS)
	$(CMAKE) --build $(BENCH_DIR) -j $(JOBS) --target gs_bench_gen_cli gpuscope gpuscope-mpi
	bench/mpi_bench.sh $(BENCH_DIR) $(MPI_RANKS) $(MPI_OPS)

# libFuzzer targets (tests/fuzz/README.md): clang with ASan+UBSan, each run
# for FUZZ_SECONDS on its corpus; a crash, leak, timeout (10 s) or 2 GB of
# memory fails and leaves the input in $(FUZZ_DIR)/fuzz-artifacts/.
# Warnings are not errors here: clang warns where gcc does not, and finding
# bugs should not wait on that (make build checks the warnings).
fuzz: deps
	$(CMAKE) -S . -B $(FUZZ_DIR) -DCMAKE_C_COMPILER=$(FUZZ_CC) -DGPUSCOPE_FUZZ=ON \
		-DGPUSCOPE_WERROR=OFF -DBUILD_TESTING=OFF -DGPUSCOPE_BUILD_KERNELS=OFF \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_ARGS)
	$(CMAKE) --build $(FUZZ_DIR) -j $(JOBS) --target gs_fuzz_all
	tests/fuzz/run.sh $(FUZZ_DIR) $(FUZZ_SECONDS)

# ThreadSanitizer over the collector (its threads, CUPTI's callback threads,
# 16 threads at once in test_collector_faults). The collector tests exist
# only where the CUDA toolkit's CUPTI headers were found at configure time.
tsan: deps
	$(CMAKE) -S . -B $(TSAN_DIR) -DGPUSCOPE_WERROR=ON -DGPUSCOPE_SANITIZE=thread \
		-DCMAKE_BUILD_TYPE=Debug -DGPUSCOPE_BUILD_KERNELS=OFF $(CMAKE_ARGS)
	$(CMAKE) --build $(TSAN_DIR) -j $(JOBS)
	@if $(CTEST) --test-dir $(TSAN_DIR) -N -L '$(TSAN_LABELS)' | grep -q 'Total Tests: 0'; then \
		echo 'tsan: no tests labelled $(TSAN_LABELS) in this build (no CUPTI headers): nothing to run'; \
	else \
		TSAN_OPTIONS=halt_on_error=1:abort_on_error=1:second_deadlock_stack=1 \
		$(CTEST) --test-dir $(TSAN_DIR) -L '$(TSAN_LABELS)' --output-on-failure -j2; \
	fi

# clang-tidy with .clang-tidy over every C source in the compile database of
# $(BUILD_DIR) (scripts/tidy.sh); any finding fails.
tidy: deps configure
	$(CMAKE) --build $(BUILD_DIR) -j $(JOBS) --target gs_trace_pb
	scripts/tidy.sh $(BUILD_DIR)

# The command-line checks (tests/valgrind/run.sh) under valgrind
# --error-exitcode=1 with full leak checking.
valgrind: deps build
	$(CTEST) --test-dir $(BUILD_DIR) -L valgrind --output-on-failure

format:
	$(if $(C_SOURCES),$(CLANG_FORMAT) -i $(C_SOURCES),@echo 'format: no C sources')

format-check:
	$(if $(C_SOURCES),$(CLANG_FORMAT) --dry-run --Werror $(C_SOURCES),@echo 'format-check: no C sources')

install: build
	$(CMAKE) --install $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(BENCH_DIR) $(FUZZ_DIR) $(TSAN_DIR) $(RELEASE_DIR)
