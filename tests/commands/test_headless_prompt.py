"""Every built-in command says whether it runs without the app, and the ones that do
answer with the app absent (`-p "/cost"`); the others are refused by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcli.commands.headless_prompt import (
    BuiltinCommand,
    Prose,
    Refused,
    read_prompt,
    run_builtin,
)
from agentcli.commands.registry import REGISTRY, load_command_modules
from agentcli.wiring.bootstrap import Options, build_engine
from agentcli.wiring.composition import finish_session
from tests.engine.scripted import ScriptedProvider

load_command_modules()
HEADLESS = sorted(c.name for c in REGISTRY.all(include_hidden=True) if c.runs_in("print"))
APP_ONLY = sorted(c.name for c in REGISTRY.all(include_hidden=True) if not c.runs_in("print"))


@pytest.fixture
def engine(tmp_path: Path):
    project = tmp_path / "project"
    project.mkdir()
    built = build_engine(Options(cwd=project), ScriptedProvider())
    yield built
    finish_session(built)


def test_the_headless_built_ins_are_the_ones_that_need_no_app():
    assert HEADLESS == [
        "agents",
        "compact",
        "context",
        "cost",
        "export",
        "memory",
        "permissions",
        "plugin",
        "status",
    ]
    assert {"clear", "exit", "help", "model", "theme", "trust"} <= set(APP_ONLY)


@pytest.mark.parametrize("name", APP_ONLY)
def test_an_app_only_built_in_is_refused_by_name(engine, name):
    reading, _ = read_prompt(engine, f"/{name} some words")

    assert reading == Refused(f"/{name} works only in the interactive app, not with -p")


# /compact and /export of an empty session say there is nothing to do (the continued
# ones: tests/integration/test_compaction_cli.py, tests/commands/test_export.py).
@pytest.mark.parametrize("name", [name for name in HEADLESS if name not in ("compact", "export")])
async def test_a_headless_built_in_answers_with_no_app(engine, name):
    reading, _ = read_prompt(engine, f"/{name}")
    assert isinstance(reading, BuiltinCommand)

    said, failed = await run_builtin(engine, reading)

    assert failed is None and said.strip()


def test_text_that_is_not_a_command_is_prose(engine):
    for prompt in ("explain this", "/usr/bin/env is missing", "/ alone", "/tmp is full"):
        assert read_prompt(engine, prompt) == (Prose(), [])
