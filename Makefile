# The two commands of the quick start: `make run` and `make test`.
# Both create .venv when it is missing and install the project into it.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

# The reference MCP servers, for tests/mcp/test_server_everything.py and
# tests/mcp/test_server_filesystem.py: installed from npm into a project-local
# folder when Node is here (CI has it; the tests then fail rather than skip without it).
MCP_TEST_SERVERS := .mcp-test-servers
EVERYTHING_VERSION := 2026.8.31
EVERYTHING := $(MCP_TEST_SERVERS)/node_modules/@modelcontextprotocol/server-everything/package.json
FILESYSTEM_VERSION := 2026.8.31
FILESYSTEM := $(MCP_TEST_SERVERS)/node_modules/@modelcontextprotocol/server-filesystem/package.json

# LiteLLM's proxy, for tests/litellm (a real OpenAI-compatible server in front of the
# fake): some 400 MB and minutes to download on a fresh machine, so it has its own venv
# and target, which `make test` makes in CI (AGENTCLI_CI); elsewhere those tests skip
# without it (in CI they fail).
LITELLM_VENV := .litellm-venv
LITELLM_STAMP := $(LITELLM_VENV)/.installed-stamp

# Harbor (the framework Terminal-Bench runs on), for tests/integrations: Harbor 0.25 needs
# Python 3.12+, the suite runs on 3.11, so Harbor and this project (editable: its
# `agentcli` is this tree's) get their own venv, which `make test` makes in CI
# (AGENTCLI_CI); elsewhere those tests skip without it (in CI they fail).
# The first of these that runs and is 3.12+ (a pyenv shim may exist and not run).
PYTHON312_CANDIDATES := $(wildcard $(HOME)/.pyenv/versions/3.1[23]*/bin/python) \
	$(shell command -v python3.12 python3.13 2>/dev/null)
PYTHON312 ?= $(firstword $(foreach p,$(PYTHON312_CANDIDATES),$(if $(shell $(p) -c \
	'import sys; print(sys.version_info >= (3, 12))' 2>/dev/null | grep True),$(p))))
HARBOR_VENV := .harbor-venv
HARBOR_STAMP := $(HARBOR_VENV)/.installed-stamp

# Codex (written in Rust), the peer `make bench` times `agentcli -p hi` against
# (bench/startup_bench.py): from npm into a project-local folder when npm is here
# (some 400 MB, the bench only); without it the bench says the line is skipped.
BENCH_TOOLS := .bench-tools
CODEX_VERSION := 0.171.0
CODEX := $(BENCH_TOOLS)/node_modules/@openai/codex/package.json

# The tests run on every core (pytest-xdist; `make test PYTEST_WORKERS=0` runs them in
# one process). `worksteal` hands single tests out and lets an idle worker take queued
# ones from a busy one, so the files of slow tests (pty, agentcli runs) end up spread
# over the workers rather than queued behind each other on one.
# `make test-fast` is the edit-test loop: no processes, pty or snapshots (tests/README.md).
PYTEST_WORKERS ?= auto
PYTEST_PARALLEL := -n $(PYTEST_WORKERS) --dist worksteal
FAST_TIER := not subprocess and not pty and not snapshot and not slow
# The tests of what is downloaded for them (LiteLLM's venv, the reference MCP servers from
# npm): `make test` starts the rest at once (`test-local`) and these when their downloads
# are in (`test-downloaded`, in one process beside the rest).
DOWNLOADED_TESTS := tests/litellm tests/mcp/test_server_everything.py tests/mcp/test_server_filesystem.py \
	tests/integrations

.PHONY: install run test test-fast test-local test-downloaded lint bench bench-tools clean mcp-test-servers litellm-test-proxy harbor-venv

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: install
	$(BIN)/agentcli $(ARGS)

# Everything: the suite starts at once on every core (`test-local`) while, beside it, what
# the downloaded tests need is fetched (the MCP servers from npm; in CI, LiteLLM's venv
# too) and those tests run in one process (`test-downloaded`, its output shown after).
test: install
	@status=0; log=$$(mktemp); \
	$(MAKE) --no-print-directory test-downloaded >"$$log" 2>&1 & downloaded=$$!; \
	$(MAKE) --no-print-directory test-local || status=$$?; \
	wait $$downloaded || status=$$?; \
	echo "The tests of the downloads (the reference MCP servers, LiteLLM, Harbor):"; cat "$$log"; \
	rm -f "$$log"; exit $$status

test-local: install
	$(BIN)/python -m pytest -q $(PYTEST_PARALLEL) $(addprefix --ignore=,$(DOWNLOADED_TESTS))

# CI (AGENTCLI_CI) installs LiteLLM's proxy and Harbor's venv for their tests; elsewhere
# they skip without them.
test-downloaded: install mcp-test-servers $(if $(AGENTCLI_CI),litellm-test-proxy harbor-venv)
	$(BIN)/python -m pytest -q -n 0 $(DOWNLOADED_TESTS)

test-fast: install
	$(BIN)/python -m pytest -q $(PYTEST_PARALLEL) -m "$(FAST_TIER)"

mcp-test-servers:
	@if command -v npm >/dev/null 2>&1; then \
		{ grep -qs '"version": "$(EVERYTHING_VERSION)"' $(EVERYTHING) && \
		  grep -qs '"version": "$(FILESYSTEM_VERSION)"' $(FILESYSTEM); } || \
		npm install --silent --no-audit --no-fund --prefix $(MCP_TEST_SERVERS) \
			@modelcontextprotocol/server-everything@$(EVERYTHING_VERSION) \
			@modelcontextprotocol/server-filesystem@$(FILESYSTEM_VERSION); \
	else echo "no npm here: the reference MCP server tests are skipped"; fi

$(LITELLM_STAMP): tests/litellm/requirements.txt
	test -x $(LITELLM_VENV)/bin/python || $(PYTHON) -m venv $(LITELLM_VENV)
	$(LITELLM_VENV)/bin/python -m pip install --quiet --disable-pip-version-check \
		--no-compile --no-deps -r tests/litellm/requirements.txt
	touch $(LITELLM_STAMP)

litellm-test-proxy: $(LITELLM_STAMP)

$(HARBOR_STAMP): pyproject.toml
	@test -n "$(PYTHON312)" || { echo "Harbor needs Python 3.12 or newer: none found (set PYTHON312)"; exit 1; }
	test -x $(HARBOR_VENV)/bin/python || $(PYTHON312) -m venv $(HARBOR_VENV)
	$(HARBOR_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -e '.[harbor]'
	touch $(HARBOR_STAMP)

harbor-venv: $(HARBOR_STAMP)

lint: install
	$(BIN)/ruff check agentcli tests bench
	$(BIN)/ruff format --check agentcli tests bench
	$(BIN)/mypy

bench: install bench-tools
	$(BIN)/python -m bench

bench-tools:
	@if command -v npm >/dev/null 2>&1; then \
		grep -qs '"version": "$(CODEX_VERSION)"' $(CODEX) || \
		npm install --silent --no-audit --no-fund --prefix $(BENCH_TOOLS) \
			@openai/codex@$(CODEX_VERSION); \
	else echo "no npm here: the bench's comparison with Codex is skipped"; fi

clean:
	rm -rf $(VENV) build *.egg-info $(MCP_TEST_SERVERS) $(LITELLM_VENV) $(HARBOR_VENV) $(BENCH_TOOLS)
