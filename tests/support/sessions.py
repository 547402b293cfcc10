"""A session recorded by the real engine, for the tests of resuming and reading it back."""

from __future__ import annotations

from pathlib import Path

from agentcli.wiring.bootstrap import Options, build_engine
from agentcli.wiring.composition import finish_session
from tests.engine.scripted import Response, ScriptedProvider, text, tool_use


async def record_reading_session(project: Path, prompts: int, answer_tail: str = "") -> str:
    """`prompts` prompts ("prompt number N") in `project`, each answered by a Read of
    config.py and then "Answer N." (plus `answer_tail`); the session's id."""
    config = project / "config.py"
    config.write_text("value = 1\n")
    responses = []
    for n in range(prompts):
        read = tool_use("Read", {"file_path": str(config)})
        responses += [Response([text(f"Reading {n}."), read])]
        responses += [Response([text(f"Answer {n}.{answer_tail}")])]
    engine = build_engine(Options(cwd=project), ScriptedProvider(*responses))
    for n in range(prompts):
        async for _event in engine.submit_message(f"prompt number {n}"):
            pass
    finish_session(engine)
    return engine.session_id
