# Two commands from a fresh clone: `make run` starts the app, `make test` runs the whole test suite.
# Both install what they need first (a virtual environment in .venv and the browser libraries from npm).

VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 5000

.PHONY: run test test-interpreted lint install

# Python writes its bytecode caches (in __pycache__ folders, ignored by git) even where the environment says not to:
# a test run starts hundreds of Python processes (servers, engine workers, pytest's own), and without the caches each
# one compiles the project's sources again, and each pytest worker rewrites every test module's asserts again.
unexport PYTHONDONTWRITEBYTECODE

# Installing builds the compiled engine (setup.py, docs/compiled.md), so any change to the engine's sources
# installs again: the build never lags behind the code (and engine.native ignores a build that does).
$(VENV)/.installed: pyproject.toml setup.py $(wildcard engine/*.py engine/*/*.py)
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	$(PY) -m engine build
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

install: $(VENV)/.installed node_modules/.installed

run: install
	$(VENV)/bin/gunicorn -w 1 -b $(HOST):$(PORT) "webapp:create_app()"

lint: install
	$(VENV)/bin/ruff check .
	$(PY) -m mypy

# The checks (ruff, then mypy on one core) run beside the engine's own tests on the interpreted modules, then the
# whole suite runs on the compiled engine; each pytest run spreads its tests over parallel pytest-xdist workers. The
# whole suite uses twice as many workers as the machine has cores, so that a test waiting on a server, the browser
# or a clock leaves its core to another.
CORES := $(shell nproc 2>/dev/null || echo 2)
test: install
	$(MAKE) --no-print-directory --jobs=2 --output-sync=target lint test-interpreted
	$(PY) -m pytest -n $$(( $(CORES) * 2 )) --dist worksteal

test-interpreted: install
	ARENA_PURE_PYTHON=1 $(PY) -m pytest -m engine -n $(CORES) --dist worksteal
