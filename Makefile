# The two commands of the quick start: `make run` and `make test`.
# Both create .venv when it is missing and install the project into it.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

# The reference MCP server, for tests/mcp/test_server_everything.py: installed from
# npm into a project-local folder when Node is here (CI has it; the tests then
# fail rather than skip without it).
MCP_TEST_SERVERS := .mcp-test-servers
EVERYTHING_VERSION := 2026.8.31
EVERYTHING := $(MCP_TEST_SERVERS)/node_modules/@modelcontextprotocol/server-everything/package.json

.PHONY: install run test lint bench clean mcp-test-servers

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: install
	$(BIN)/agentcli $(ARGS)

test: install mcp-test-servers
	$(BIN)/python -m pytest -q

mcp-test-servers:
	@if command -v npm >/dev/null 2>&1; then \
		grep -qs '"version": "$(EVERYTHING_VERSION)"' $(EVERYTHING) || \
		npm install --silent --no-audit --no-fund --prefix $(MCP_TEST_SERVERS) \
			@modelcontextprotocol/server-everything@$(EVERYTHING_VERSION); \
	else echo "no npm here: the server-everything tests are skipped"; fi

lint: install
	$(BIN)/ruff check agentcli tests bench
	$(BIN)/ruff format --check agentcli tests bench
	$(BIN)/mypy

bench: install
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) build *.egg-info $(MCP_TEST_SERVERS)
