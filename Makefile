# Two commands from a fresh clone: `make run` starts the app, `make test` runs the whole test suite.
# Both install what they need first (a virtual environment in .venv and the browser libraries from npm).

VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 5000

.PHONY: run test test-interpreted lint install lock tables

# Python writes its bytecode caches (in __pycache__ folders, ignored by git) even where the environment says not to:
# a test run starts hundreds of Python processes (servers, engine workers, pytest's own), and without the caches each
# one compiles the project's sources again, and each pytest worker rewrites every test module's asserts again.
unexport PYTHONDONTWRITEBYTECODE

# Installing takes every package at the version and hashes requirements.txt locks (runtime, test and build
# requirements alike), then builds the project itself with them: the compiled engine (setup.py, docs/compiled.md),
# so any change to the engine's sources installs again and the build never lags behind the code (engine.native
# ignores a build that does).
$(VENV)/.installed: requirements.txt pyproject.toml setup.py $(wildcard engine/*.py engine/*/*.py)
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --require-hashes -r requirements.txt
	$(PY) -m pip install -q --no-deps --no-build-isolation -e .
	$(PY) -m engine build
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

install: $(VENV)/.installed node_modules/.installed

# requirements.txt again from pyproject.toml's ranges (its dependencies, the test extra and the build requirements),
# each package at the newest release they admit: run after changing a range, or to take new releases; commit both.
# pip-tools runs from a virtual environment of its own, so the project's keeps exactly what the lock says.
LOCK_VENV := $(VENV)-lock
lock:
	test -x $(LOCK_VENV)/bin/python || python3 -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/python -m pip install -q pip-tools==7.6.2
	CUSTOM_COMPILE_COMMAND="make lock" $(LOCK_VENV)/bin/pip-compile --quiet --upgrade --allow-unsafe --generate-hashes \
		--strip-extras --extra test --all-build-deps --no-emit-index-url --no-emit-find-links \
		-o requirements.txt pyproject.toml

run: install
	$(VENV)/bin/gunicorn -w 1 -b $(HOST):$(PORT) "webapp:create_app()"

# Chess's four-piece endgame tables (docs/chess.md): one process per core, into the engine's cache; the three-piece
# ones are built on first use. A deployment runs it once after installing.
tables: install
	$(PY) -m engine tablebase build chess

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
