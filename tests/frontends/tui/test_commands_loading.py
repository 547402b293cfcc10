"""The slash commands' modules load in the start-up's thread, not on the app's loop:
keys typed while they load are handled at once (the imports once held every key for
a second after the first frame), and a command entered before they are in runs once
they are, in its place among what was entered.

A command module that waits at import (on an event the test sets) stands for a slow
one: while it waits, the app must go on handling keys.
"""

from __future__ import annotations

import sys
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from textual.widgets import Markdown

from agentcli.commands import registry as registry_module
from agentcli.commands.registry import REGISTRY
from agentcli.frontends.tui.app import AgentApp
from agentcli.frontends.tui.widgets.items import Note, UserMessageView
from tests.engine.scripted import ScriptedProvider
from tests.frontends.tui.helpers import make_app, texts, type_text, wait_for
from tests.frontends.tui.test_resume import open_app

# The events the slow modules wait on at import, by module name.
GATES: dict[str, threading.Event] = {}
IMPORT_WAIT_S = 60.0  # the longest a slow module waits (the test fails before that)

SLOW_MODULE = """
import threading

from agentcli.commands.registry import command
from tests.frontends.tui.test_commands_loading import GATES

GATES[__name__].wait({wait})
IMPORTED_IN = threading.current_thread()


@command("slowpoke", "A command whose module is slow to import")
async def slowpoke(ctx):
    ctx.output("slowpoke ran")
"""


@dataclass
class SlowModule:
    name: str
    gate: threading.Event

    def release(self) -> None:
        self.gate.set()

    def imported_in(self) -> threading.Thread:
        return sys.modules[self.name].IMPORTED_IN  # type: ignore[no-any-return]


@pytest.fixture
def slow_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SlowModule]:
    """A command module (registering /slowpoke) that waits at import until released,
    added to the modules the app loads."""
    name = f"slow_commands_{uuid.uuid4().hex}"
    folder = tmp_path / "modules"
    folder.mkdir()
    (folder / f"{name}.py").write_text(SLOW_MODULE.format(wait=IMPORT_WAIT_S))
    monkeypatch.syspath_prepend(str(folder))
    GATES[name] = threading.Event()
    modules = (*registry_module.COMMAND_MODULES, name)
    monkeypatch.setattr(registry_module, "COMMAND_MODULES", modules)
    slow = SlowModule(name, GATES[name])
    try:
        yield slow
    finally:
        slow.release()
        REGISTRY.unregister("slowpoke")
        sys.modules.pop(name, None)
        GATES.pop(name, None)


def command_outputs(app: AgentApp) -> list[str]:
    return [w.source for w in app.conversation.query(Markdown) if w.has_class("-command")]


async def test_keys_are_handled_while_the_command_modules_load(tmp_path, slow_module):
    app = make_app(ScriptedProvider(), tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await type_text(pilot, "typed early")
        assert app.prompt.text == "typed early"
        assert not app.commands_loaded  # the slow module is still importing
        slow_module.release()
        await wait_for(pilot, lambda: app.commands_loaded, "the commands")
        assert "slowpoke" in app.registry
        assert slow_module.imported_in() is not threading.main_thread()


async def test_keys_are_handled_while_a_resume_loads_the_commands(tmp_path, slow_module):
    project = tmp_path / "project"
    project.mkdir()
    app = open_app(project, "--continue")  # no session here: a new one, by the loader
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.engine is not None, "the engine")
        await type_text(pilot, "typed early")
        assert app.prompt.text == "typed early" and not app.commands_loaded
        slow_module.release()
        await wait_for(pilot, lambda: app.commands_loaded, "the commands")
        assert slow_module.imported_in() is not threading.main_thread()


async def test_a_command_entered_before_the_commands_are_in_runs_in_its_place(
    tmp_path, slow_module
):
    app = make_app(ScriptedProvider(), tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await type_text(pilot, "/slowpoke")
        await pilot.pause()
        assert not app.popup.showing  # no half-loaded list of commands
        await pilot.press("enter")
        await type_text(pilot, "after it")
        await pilot.press("enter")
        assert app.prompt.text == "" and not command_outputs(app)
        slow_module.release()
        ran = ["slowpoke ran"]  # its markdown shows once mounted: wait for the text
        await wait_for(pilot, lambda: command_outputs(app) == ran, "the command's output")
        await wait_for(pilot, lambda: app.conversation.query(UserMessageView), "the message")
        items = [w for w in app.conversation.children if isinstance(w, Markdown | UserMessageView)]
        assert [type(w) for w in items] == [Markdown, UserMessageView]  # in the order entered
        assert not any("Unknown command" in note for note in texts(app, Note))
