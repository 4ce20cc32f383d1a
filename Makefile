# drsim: two commands on a fresh Debian 12 machine.
#   make demo   install missing packages, build (Release), install, run the default scenario
#   make test   build and run every test: GoogleTest (ctest), pytest, notebooks,
#               and a short run of each fuzz target (fuzz-smoke)
#   make fuzz   the fuzz targets for FUZZ_SECONDS in all (docs/fuzzing.md)
# The Debian package list is scripts/debian-packages.txt.

PYTHON    := /usr/bin/python3
BUILD_DIR ?= build
ASAN_DIR  ?= build-asan
FUZZ_DIR  ?= build-fuzz
JOBS      ?= $(shell nproc)
CMAKE_ARGS ?=

.PHONY: all deps configure build install demo test test-cpp test-python drills sanitize fuzz-build fuzz fuzz-smoke bench clean

all: build

deps:
	@scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE=$(PYTHON) $(CMAKE_ARGS) >/dev/null

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

# Installs the drsim command and the Python package (for /usr/bin/python3).
install: build
	@cmake --install $(BUILD_DIR) >/dev/null
	@echo "installed: $$(command -v drsim) and the drsim Python package ($$($(PYTHON) -c 'import drsim; print(drsim.__file__)'))"

demo: install
	$(BUILD_DIR)/cli/drsim run scenarios/default.yaml --out results/default

test: build
	@$(MAKE) --no-print-directory test-cpp test-python fuzz-smoke

test-cpp:
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

test-python:
	PYTHONPATH=$(CURDIR)/$(BUILD_DIR)/python DRSIM_CLI=$(CURDIR)/$(BUILD_DIR)/cli/drsim \
	  $(PYTHON) -m pytest tests/python -q -n $(JOBS)

# Runs every drill of the drill library over its seeds and rewrites the
# published-vs-simulated tables of docs/validation.md.
drills: build
	PYTHONPATH=$(CURDIR)/$(BUILD_DIR)/python $(PYTHON) -m drsim.drills docs/drill_library.yaml --update docs/validation.md

# The C++ tests under AddressSanitizer and UndefinedBehaviorSanitizer.
sanitize: deps
	@cmake -S . -B $(ASAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DDRSIM_SANITIZE=ON \
	  -DDRSIM_BUILD_PYTHON=OFF -DDRSIM_BUILD_BENCH=OFF -DPython_EXECUTABLE=$(PYTHON) >/dev/null
	@cmake --build $(ASAN_DIR) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir $(ASAN_DIR) --output-on-failure -j $(JOBS)

# The libFuzzer targets of fuzz/ (docs/fuzzing.md): clang, every library under
# AddressSanitizer and UndefinedBehaviorSanitizer, only what the targets link.
# -O1 with line tables: fast enough to fuzz, stack traces with lines; no NDEBUG.
FUZZ_TARGETS := fuzz_scenario_loader fuzz_overrides fuzz_check fuzz_run fuzz_import_kubernetes fuzz_import_experiment fuzz_import_traces
fuzz-build: deps
	@cmake -S . -B $(FUZZ_DIR) -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" -DDRSIM_FUZZ=ON -DDRSIM_BUILD_TESTS=OFF \
	  -DDRSIM_BUILD_PYTHON=OFF -DDRSIM_BUILD_BENCH=OFF -DPython_EXECUTABLE=$(PYTHON) $(CMAKE_ARGS) >/dev/null
	@cmake --build $(FUZZ_DIR) -j $(JOBS) --target $(FUZZ_TARGETS)

# FUZZ_SECONDS of wall-clock time in all: the targets two at a time (one
# per core), each for FUZZ_SECONDS x FUZZ_PARALLEL / (number of targets). Exits non-zero on a finding,
# whose input is left in $(FUZZ_DIR)/findings/<target>/.
FUZZ_SECONDS ?= 1800
FUZZ_PARALLEL ?= 2
fuzz: fuzz-build
	fuzz/run_fuzz.sh --seconds $$(( $(FUZZ_SECONDS) * $(FUZZ_PARALLEL) / $(words $(FUZZ_TARGETS)) )) --parallel $(FUZZ_PARALLEL) $(FUZZ_DIR)

# The short run of make test: each target tries FUZZ_SMOKE_RUNS inputs from
# the seeds with a fixed libFuzzer seed, the same inputs every time (about
# 20 s a target on 2 cores).
FUZZ_SMOKE_RUNS ?= 2000
fuzz-smoke: fuzz-build
	fuzz/run_fuzz.sh --runs $(FUZZ_SMOKE_RUNS) --parallel $(FUZZ_PARALLEL) $(FUZZ_DIR)

bench: build
	$(BUILD_DIR)/bench/event_queue_bench --benchmark_repetitions=10 --benchmark_report_aggregates_only=true

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(FUZZ_DIR) results
