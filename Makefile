# The README's commands. Each sets up .venv on first use.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
XVFB := xvfb-run -a -s "-screen 0 1600x1000x24"
PYTEST_ARGS ?=
# The Khronos glTF validator (npm) checks every export in the tests; skipped where npm is missing.
NODE_DIR := .node
export NODE_PATH := $(CURDIR)/$(NODE_DIR)/node_modules
# `make package` installs the package extra (PyInstaller) on top of the test install.
PACKAGE_STAMP := $(VENV)/.installed-package
# `make bench` installs the bench extra (f3d, the baseline of render_vs_f3d); where it cannot, that
# benchmark reports itself skipped.
BENCH_STAMP := $(VENV)/.installed-bench

.PHONY: run test install-test bench fuzz system-deps window-deps node-deps demo clean package package-test

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test]"
	touch $(STAMP)

# The window's system libraries (Qt's xcb plugin, GL) are installed first where apt-get can, as `make
# test` does; where it cannot, .ci/system-deps names the packages to install.
run: $(STAMP) window-deps
	$(PY) -m app $(ARGS)

system-deps:
	@bash .ci/system-deps

window-deps:
	@bash .ci/system-deps window

node-deps:
	@if command -v npm >/dev/null 2>&1 && [ ! -d $(NODE_DIR)/node_modules/gltf-validator ]; then \
		npm install --silent --no-audit --no-fund --prefix $(NODE_DIR) gltf-validator >/dev/null 2>&1 \
		|| echo "node-deps: could not install gltf-validator; its tests will skip" >&2; \
	fi

# Runs its arguments under Xvfb unless a display is already there (or xvfb-run is missing).
ON_DISPLAY = if [ -n "$${DISPLAY:-}" ] || ! command -v xvfb-run >/dev/null 2>&1; then $(1); else $(XVFB) $(1); fi

# One pytest worker per core (pytest-xdist), each with its own Xvfb display (pytest-xvfb).
test: $(STAMP) system-deps node-deps
	$(PY) -m ruff check app tests benchmarks
	$(PY) -m pytest -n auto $(PYTEST_ARGS)

# Builds the wheel and the sdist, installs each into a fresh venv outside the checkout and runs the
# commands and the window from there (tests/core/test_installed.py).
install-test: $(STAMP) system-deps
	@$(call ON_DISPLAY,env BONEYARD_INSTALL_TEST=1 $(PY) -m pytest tests/core/test_installed.py $(PYTEST_ARGS))

$(BENCH_STAMP): $(STAMP)
	@if $(PY) -m pip install -q -e ".[test,bench]"; then touch $(BENCH_STAMP); \
	else echo "bench: could not install f3d; render_vs_f3d will be skipped" >&2; fi

bench: $(BENCH_STAMP)
	$(PY) -m benchmarks.bench

# 20,000 mutated inputs per reader, each under a CPU limit (tests/fuzzing.py), and the writes mode:
# convert, render -o .mp4 and batch killed 200 times each while they write (tests/cli/test_fuzz_writes.py);
# the result is the tables of docs/fuzzing.md. The soak tests (random ragdoll runs) run long too.
# `make fuzz FUZZ_MODE=writes` runs the writes mode alone (its table: build/fuzz-writes.md).
FUZZ_EXAMPLES ?= 20000
FUZZ_WRITES ?= 200
FUZZ_MODE ?= all
FUZZ_MARKS := $(if $(filter writes,$(FUZZ_MODE)),tests/cli/test_fuzz_writes.py,-m "fuzz or soak")
FUZZ_TABLE := $(if $(filter writes,$(FUZZ_MODE)),build/fuzz-writes.md,docs/fuzzing.md)
FUZZ_REPORT := build/fuzz-report.jsonl

fuzz: $(STAMP)
	mkdir -p build && rm -f $(FUZZ_REPORT)
	BONEYARD_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) BONEYARD_FUZZ_WRITES=$(FUZZ_WRITES) \
		BONEYARD_FUZZ_REPORT=$(CURDIR)/$(FUZZ_REPORT) BONEYARD_SOAK=long \
		$(PY) -m pytest $(FUZZ_MARKS); status=$$?; \
		$(PY) -m tests.fuzzing_report $(FUZZ_REPORT) $(FUZZ_TABLE); exit $$status

demo: $(STAMP)
	$(PY) assets/make_demo.py

$(PACKAGE_STAMP): $(STAMP)
	$(PY) -m pip install -q -e ".[test,package]"
	touch $(PACKAGE_STAMP)

# The standalone one-folder app in dist/boneyard/ and its tarball (packaging/build.py).
package: $(PACKAGE_STAMP)
	$(PY) packaging/build.py

# Builds the bundle afresh in a temporary folder and runs it with a clean environment.
package-test: $(PACKAGE_STAMP) system-deps
	BONEYARD_PACKAGE_TEST=1 $(PY) -m pytest tests/core/test_package.py $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) $(NODE_DIR) build *.egg-info .pytest_cache
