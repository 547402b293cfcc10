# The two commands of the quick start: `make run` and `make test`.
# Both create .venv when it is missing and install the project into it.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: install run test lint bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: install
	$(BIN)/agentcli $(ARGS)

test: install
	$(BIN)/python -m pytest -q

lint: install
	$(BIN)/ruff check agentcli tests bench
	$(BIN)/ruff format --check agentcli tests bench
	$(BIN)/mypy

bench: install
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) build *.egg-info
