# drsim: two commands on a fresh Debian 12 machine.
#   make demo   install missing packages, build (Release), install, run the default scenario
#   make test   build and run every test: GoogleTest (ctest), pytest, notebooks
# The Debian package list is scripts/debian-packages.txt.

PYTHON    := /usr/bin/python3
BUILD_DIR ?= build
ASAN_DIR  ?= build-asan
JOBS      ?= $(shell nproc)
CMAKE_ARGS ?=

.PHONY: all deps configure build install demo test test-cpp test-python drills sanitize bench clean

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
	@$(MAKE) --no-print-directory test-cpp test-python

test-cpp:
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

test-python:
	PYTHONPATH=$(CURDIR)/$(BUILD_DIR)/python DRSIM_CLI=$(CURDIR)/$(BUILD_DIR)/cli/drsim \
	  $(PYTHON) -m pytest tests/python -q

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

bench: build
	$(BUILD_DIR)/bench/event_queue_bench --benchmark_repetitions=10 --benchmark_report_aggregates_only=true

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) results
