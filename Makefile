# Makefile — thin wrapper over scripts/setup-deps.sh and CMake (CMakeLists.txt).
#   make test    install dependencies, configure build/, build, run every test
#   make build   the same without the tests (binaries in build/bin)
#   make tune    build, then tune every shape
#                (TUNE_ARGS="--backend sim --tuning tuning-sim" for a dry run in its own directory)
#   make install build, then install libcroqsparse (header, static and shared library,
#                pkg-config file, CMake package) under PREFIX (default /usr/local; PREFIX=DIR)
SHELL := /bin/bash
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps configure build test tune install clean

all: build

deps:
	bash scripts/setup-deps.sh

configure: deps
	cmake -S . -B $(BUILD)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# ctest prints skipped tests after its summary, without their reasons: those are listed
# from its log, and the summary line is repeated last so the final line is the result.
test: build
	@set -o pipefail; cd $(BUILD) && ctest --output-on-failure -j $(JOBS) 2>&1 | tee ctest.log; \
	  rc=$${PIPESTATUS[0]}; bash ../scripts/show-skips.sh Testing/Temporary/LastTest.log; \
	  grep -E '^[0-9]+% tests passed' ctest.log | tail -n 1; exit $$rc

# The main job: every shape of shapes.json, both dtypes, resumable (README.md). The
# tuning directory is ./tuning unless TUNE_ARGS names one.
TUNE_ARGS ?=
tune: build
	$(BUILD)/bin/croqtuner sweep --dtype all $(if $(findstring --tuning,$(TUNE_ARGS)),,--tuning tuning) $(TUNE_ARGS)

# cmake's own install rules (cmake/croqsparse.cmake), so `make install` and
# `cmake --install build --prefix P` are the same thing.
PREFIX ?= /usr/local
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD)
