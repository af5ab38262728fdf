# Two commands from a fresh clone: `make run` starts the app, `make test` runs the whole test suite.
# Both install what they need first (a virtual environment in .venv and the browser libraries from npm).

VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 5000

.PHONY: run test lint install

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

install: $(VENV)/.installed node_modules/.installed

run: install
	$(VENV)/bin/gunicorn -w 1 --threads 64 -b $(HOST):$(PORT) "webapp:create_app()"

lint: install
	$(VENV)/bin/ruff check .
	$(PY) -m mypy

test: install lint
	$(PY) -m pytest
