"""What starting up loads: the `anthropic` SDK is not on the one-shot path nor the app's.

Importing the SDK costs more than everything else `agentcli -p` does (issue 16),
so neither `-p` nor the provider the app builds may pull it in. Checked on the
real binary with Python's own import log (`-X importtime`), against the fake API.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

from tests.fakeapi import reply, text


def imported_modules(import_log: str) -> set[str]:
    """The modules named in `-X importtime` output (one per line, after the last '|')."""
    return {
        line.rsplit("|", 1)[1].strip()
        for line in import_log.splitlines()
        if line.startswith("import time:") and "|" in line
    }


def run_python(args: list[str], cwd: Path, base_url: str) -> subprocess.CompletedProcess[str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("ANTHROPIC_") and not k.lower().endswith("_proxy")
    }
    env.update(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=base_url)
    return subprocess.run(
        [sys.executable, "-X", "importtime", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_one_shot_run_answers_without_importing_the_sdk(fake_api, tmp_path):
    fake_api.enqueue(reply(text("Hello!")))

    done = run_python(["-m", "agentcli", "-p", "hi"], tmp_path, fake_api.base_url)

    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == "Hello!\n"
    loaded = imported_modules(done.stderr)
    assert "agentcli.providers.anthropic" in loaded  # the log does list our provider
    assert not {name for name in loaded if name.split(".")[0] == "anthropic"}


def test_a_one_shot_run_loads_nothing_only_other_features_need(fake_api, tmp_path):
    """What a plain `-p hi` never uses stays unloaded: the MCP SDK (no servers),
    jsonschema (no --json-schema), YAML (no command or agent files), the ACP and SDK
    front ends, the HTML converter, httpx's command-line tool (click, rich), the
    sandbox (not turned on), and what only a settings file that does not fit or a folder
    not trusted needs (config/settings_reading.py and the Claude Code key names it uses,
    config/salvage.py, config/untrusted.py)."""
    fake_api.enqueue(reply(text("Hello!")))

    done = run_python(["-m", "agentcli", "-p", "hi"], tmp_path, fake_api.base_url)

    assert done.returncode == 0, done.stderr[-2000:]
    roots = {name.split(".")[0] for name in imported_modules(done.stderr)}
    loaded = imported_modules(done.stderr)
    assert not roots & {"mcp", "jsonschema", "yaml", "html_to_markdown", "rich", "click", "textual"}
    assert not {"agentcli.frontends.acp.agent", "agentcli.frontends.sdk.session"} & loaded
    assert not {name for name in loaded if name.startswith("agentcli.sandbox")}
    lenient = {"agentcli.config.settings_reading", "agentcli.config.claude_code_keys"}
    assert not {"agentcli.config.salvage", "agentcli.config.untrusted", *lenient} & loaded


HTTPX_STACK = {"httpx", "httpcore", "h11", "anyio", "sniffio"}


def test_a_one_shot_run_sends_its_request_without_httpx(fake_api, tmp_path):
    """The model request goes over the lean client (providers/lean_http.py): httpx and
    the stack under it, a third of the start's imports, stay unloaded when no proxy
    applies. With a proxy in the environment httpx carries the request instead
    (tests/providers/test_lean_http.py checks that the proxy is used)."""
    fake_api.enqueue(reply(text("Hello!")))

    done = run_python(["-m", "agentcli", "-p", "hi"], tmp_path, fake_api.base_url)

    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == "Hello!\n"
    loaded = imported_modules(done.stderr)
    assert "agentcli.providers.lean_http" in loaded
    assert not {name.split(".")[0] for name in loaded} & HTTPX_STACK


def test_the_provider_the_app_loads_does_not_import_the_sdk(fake_api, tmp_path):
    build = "from agentcli.wiring.bootstrap import make_provider; make_provider()"

    done = run_python(["-c", build], tmp_path, fake_api.base_url)

    assert done.returncode == 0, done.stderr[-2000:]
    loaded = imported_modules(done.stderr)
    assert "agentcli.providers.anthropic" in loaded
    assert not {name for name in loaded if name.split(".")[0] == "anthropic"}


# What `agentcli FLAG` loaded, in a fresh interpreter: agentcli's modules and those of
# the standard library a run needs but `--version` and `--help` must not pay for.
LIST_LOADED = """
import sys
from agentcli.__main__ import main
try:
    code = main([sys.argv[1]])
except SystemExit as exit:  # argparse's way of ending
    code = exit.code
watched = {"dataclasses", "inspect", "tempfile", "uuid", "json", "asyncio", "pydantic"}
print("LOADED", sorted(m for m in sys.modules if m.split(".")[0] == "agentcli" or m in watched))
sys.exit(code)
"""


def loaded_by(flag: str, cwd: Path) -> tuple[str, list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", LIST_LOADED, flag],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    *printed, last = done.stdout.splitlines()
    assert last.startswith("LOADED ")
    return "\n".join(printed), ast.literal_eval(last.removeprefix("LOADED "))


def test_version_loads_nothing_of_the_app(tmp_path):
    """`--version` is answered by the entry point alone: no compile cache, no parser."""
    for flag in ("--version", "-v"):
        printed, loaded = loaded_by(flag, tmp_path)
        assert printed == "agentcli 0.1.0"
        assert loaded == ["agentcli", "agentcli.__main__"]


def test_help_builds_the_parser_and_nothing_else(tmp_path):
    """`--help` loads the parser's modules only, which import nothing a run needs first."""
    from agentcli.cli.main import build_parser

    for flag in ("--help", "-h"):
        printed, loaded = loaded_by(flag, tmp_path)
        assert printed.startswith("usage: agentcli ")
        assert "--output-format" in printed and "--input-format" in printed
        assert printed.rstrip() == build_parser().format_help().rstrip()
        assert set(loaded) <= {
            "agentcli",
            "agentcli.__main__",
            "agentcli.cli",
            "agentcli.cli.main",
            "agentcli.frontends",
            "agentcli.frontends.sdk",
            "agentcli.frontends.sdk.flags",
        }


# `-p hi` in a fresh interpreter, then what it loaded (sys.modules after the run).
RUN_ONE_SHOT_AND_LIST_LOADED = """
import sys
from agentcli.__main__ import main
code = main(["-p", "hi"])
print("LOADED", sorted(m for m in sys.modules if m.split(".")[0] in ("pydantic", "pydantic_core")))
sys.exit(code)
"""


def test_a_one_shot_run_imports_no_pydantic(fake_api, tmp_path):
    """No settings file, no hooks, no MCP server, no tool call: nothing to validate, so
    pydantic (a sixth of the start's imports) stays unloaded. Its models are where they
    are made: a tool's input (tools/inputs.py), a permission question
    (permissions/question_models.py), a settings file's keys (config/settings_schema.py,
    config/hooks.py), an MCP entry (mcp/config/specs.py); what every start imports names
    them only for the type checker (docs/architecture.md, "Start-up")."""
    fake_api.enqueue(reply(text("Hello!")))
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=fake_api.base_url)

    done = subprocess.run(  # HOME is the test's own (tests/conftest.py): no settings file
        [sys.executable, "-c", RUN_ONE_SHOT_AND_LIST_LOADED],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines()[0] == "Hello!"
    offered = {tool["name"] for tool in fake_api.requests[-1].body["tools"]}
    assert {"Bash", "Read", "Edit", "Task", "web_search"} <= offered  # all offered, none loaded
    assert done.stdout.splitlines()[-1] == "LOADED []"
