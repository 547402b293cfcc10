"""Each slash command says which front ends it runs in, and every front end reads that:
the app's `/help`, the editor's `available_commands_update` and what `-p` accepts come
from the same declarations, never from a list of names kept somewhere else. A command
declared for a front end without the app really runs there (it gets no host)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agentcli.commands.headless_prompt import BuiltinCommand, Refused, read_prompt, run_builtin
from agentcli.commands.host import Frontend
from agentcli.commands.registry import (
    REGISTRY,
    Command,
    CommandContext,
    load_command_modules,
)
from agentcli.frontends.acp.agent import _commands_update
from agentcli.wiring.bootstrap import Options, build_engine
from agentcli.wiring.composition import finish_session
from tests.engine.scripted import ScriptedProvider

load_command_modules()
WITHOUT_THE_APP = sorted(c.name for c in REGISTRY.all(include_hidden=True) if c.frontends - {"tui"})


@pytest.fixture
def engine(tmp_path: Path):
    project = tmp_path / "project"
    project.mkdir()
    built = build_engine(Options(cwd=project), ScriptedProvider())
    yield built
    finish_session(built)


@pytest.fixture
def probes() -> Iterator[dict[str, list[CommandContext]]]:
    """Three commands registered for the test, one per mix of front ends; each records
    the context it ran with."""
    seen: dict[str, list[CommandContext]] = {}
    kinds: dict[str, tuple[Frontend, ...]] = {
        "probe-editor": ("tui", "acp"),
        "probe-print": ("tui", "print"),
        "probe-print-only": ("print",),
    }
    for name, frontends in kinds.items():
        seen[name] = []

        async def handler(ctx: CommandContext, name: str = name) -> None:
            seen[name].append(ctx)
            ctx.output(f"{name} ran")

        REGISTRY.register(
            Command(name, f"the {name} command", handler, frontends=frozenset(frontends))
        )
    yield seen
    for name in kinds:
        REGISTRY.unregister(name)


def editor_list() -> set[str]:
    return {entry["name"] for entry in _commands_update()["availableCommands"]}


async def help_text() -> str:
    said: list[str] = []
    help_command = REGISTRY.get("help")
    assert help_command is not None
    await help_command.handler(CommandContext(host=None, engine=None, output=said.append))
    return "\n".join(said)


async def test_each_front_end_offers_the_commands_that_declare_it(engine, probes):
    listed = editor_list()
    assert "probe-editor" in listed
    assert not listed & {"probe-print", "probe-print-only"}

    assert isinstance(read_prompt(engine, "/probe-print")[0], BuiltinCommand)
    assert isinstance(read_prompt(engine, "/probe-print-only")[0], BuiltinCommand)
    assert read_prompt(engine, "/probe-editor")[0] == Refused(
        "/probe-editor works only in the interactive app, not with -p"
    )

    shown = await help_text()
    assert "/probe-editor`" in shown and "/probe-print`" in shown
    assert "/probe-print-only" not in shown  # declared for -p alone: not the app's


async def test_a_command_outside_the_app_gets_no_host(engine, probes):
    reading, _ = read_prompt(engine, "/probe-print some words")
    assert isinstance(reading, BuiltinCommand)

    said, failed = await run_builtin(engine, reading)

    assert (said, failed) == ("probe-print ran", None)
    [ctx] = probes["probe-print"]
    assert ctx.host is None and ctx.engine is engine and ctx.args == "some words"


def test_the_editor_is_offered_the_session_commands_and_none_of_the_apps():
    listed = editor_list()
    assert {"compact", "context", "cost", "memory", "rewind"} <= listed
    assert not listed & {"init", "resume", "clear", "theme", "exit", "help", "mcp"}
    assert listed == {c.name for c in REGISTRY.all() if c.runs_in("acp")}


@pytest.mark.parametrize("name", WITHOUT_THE_APP)
async def test_a_command_declared_outside_the_app_runs_there_without_failing(engine, name):
    """A command that says it runs in -p or in an editor must not need the app there:
    with no host it answers (or says why not), and never raises."""
    command = REGISTRY.get(name)
    assert command is not None
    said: list[str] = []
    ctx = CommandContext(
        host=None, engine=engine, registry=REGISTRY, output=said.append, error=said.append
    )

    await command.handler(ctx)

    assert "".join(said).strip()


async def test_an_app_command_run_without_its_host_is_refused_plainly():
    """Only a front end bug could run one without the app: it fails with one clear line,
    not an AttributeError deep in the handler."""
    clear = REGISTRY.get("theme")
    assert clear is not None and not clear.runs_in("print") and not clear.runs_in("acp")

    with pytest.raises(RuntimeError, match="runs only in the interactive app"):
        await clear.handler(CommandContext(host=None, engine=None))
