# The README's commands. Each sets up .venv on first use.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
XVFB := xvfb-run -a -s "-screen 0 1600x1000x24"
PYTEST_ARGS ?=

.PHONY: run test bench fuzz system-deps demo clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test]"
	touch $(STAMP)

run: $(STAMP)
	$(PY) -m app $(ARGS)

system-deps:
	@bash .ci/system-deps

test: $(STAMP) system-deps
	@if [ -n "$${DISPLAY:-}" ] || ! command -v xvfb-run >/dev/null 2>&1; then \
		$(PY) -m pytest $(PYTEST_ARGS); \
	else \
		$(XVFB) $(PY) -m pytest $(PYTEST_ARGS); \
	fi

bench: $(STAMP)
	$(PY) -m tests.bench

fuzz: $(STAMP)
	BONEYARD_FUZZ_EXAMPLES=50000 $(PY) -m pytest -m fuzz

demo: $(STAMP)
	$(PY) assets/make_demo.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
