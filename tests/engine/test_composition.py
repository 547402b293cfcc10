"""The engine is built in one place (agentcli/wiring/composition.py), whole, and stays so.

A front end calls `bootstrap.build_engine()` once and has everything a
session needs; nothing it holds can be swapped under the engine afterwards,
and `/clear` goes on through the same root with the same parts.
"""

from __future__ import annotations

import ast
import json

import pytest

from agentcli.config.settings import Settings
from agentcli.engine.compaction import Compactor
from agentcli.wiring.bootstrap import Options, build_engine
from agentcli.wiring.composition import finish_session, start_new_session
from tests.engine.harness import make_engine, run_turn
from tests.engine.scripted import Response, ScriptedProvider, text, tool_use
from tests.hooks.helpers import hook_script, payloads
from tests.support.sources import PACKAGE, nodes_of, python_files

PARTS = (
    "provider",
    "tools",
    "gate",
    "workspace",
    "config",
    "system",
    "hooks",
    "compactor",
    "settings",
    "transcript",
)


def test_only_the_composition_root_constructs_an_engine():
    found = []
    for path in python_files(PACKAGE):
        for node in nodes_of(path):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                if name == "QueryEngine":
                    found.append(str(path.relative_to(PACKAGE)))
    assert set(found) == {"wiring/composition.py"}


def test_an_engines_parts_cannot_be_set_from_outside(tmp_path):
    engine = make_engine(ScriptedProvider(), [], tmp_path, session=True)
    for name in PARTS:
        with pytest.raises(AttributeError):
            setattr(engine, name, getattr(engine, name))


async def test_the_provider_arrives_through_connect_and_only_between_turns(tmp_path):
    engine = make_engine(None, [], tmp_path)
    with pytest.raises(RuntimeError, match="no model provider"):
        await run_turn(engine, "too early")
    provider = ScriptedProvider(Response([text("Now.")]))

    engine.connect(provider)

    assert engine.provider is provider
    await run_turn(engine, "now")
    assert engine.messages[-1]["content"] == [text("Now.")]


def hooks_settings(project, hooks_dir) -> None:
    events = ("Notification", "SessionStart", "SessionEnd")
    hooks = {
        event: [{"hooks": [{"type": "command", "command": hook_script(hooks_dir, event)}]}]
        for event in events
    }
    (project / ".agentcli").mkdir(parents=True)
    (project / ".agentcli" / "settings.json").write_text(json.dumps({"hooks": hooks}))


async def test_one_call_gives_a_front_end_the_whole_session(tmp_path):
    """Transcript, hooks that name it, the Notification hook on a question, request
    shaping, compaction and the settings: all there from `build_engine()`, and after
    `/clear` the hooks name the new session and its new transcript."""
    project, hooks_dir = tmp_path / "project", tmp_path / "hooks"
    hooks_dir.mkdir()
    hooks_settings(project, hooks_dir)
    write = tool_use("Write", {"file_path": str(project / "a.txt"), "content": "x"})
    provider = ScriptedProvider(
        Response([write]),
        Response([text("Not allowed.")]),
        Response([write]),
        Response([text("Still not.")]),
    )
    engine = build_engine(Options(project, trusted=True), provider)

    assert isinstance(engine.settings, Settings) and isinstance(engine.compactor, Compactor)
    await engine.start_session()
    await run_turn(engine, "write it")
    first_id, first_path = engine.session_id, engine.transcript.path
    await start_new_session(engine)
    await run_turn(engine, "write it again")
    await engine.end_session()
    finish_session(engine)

    assert first_path.exists() and engine.transcript.path.exists()
    assert engine.transcript.path != first_path and engine.session_id != first_id
    asked = [(p["session_id"], p["transcript_path"]) for p in payloads(hooks_dir, "Notification")]
    assert asked == [(first_id, str(first_path)), (engine.session_id, str(engine.transcript.path))]
    started = [(p["session_id"], p["source"]) for p in payloads(hooks_dir, "SessionStart")]
    assert started == [(first_id, "startup"), (engine.session_id, "clear")]
    sent = provider.requests[0]
    assert sent.messages[-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert [tool["name"] for tool in sent.tools][-2:] == ["ExitPlanMode", "Task"]
