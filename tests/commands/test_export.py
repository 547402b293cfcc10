"""`/export [file]`: the conversation as clean Markdown, to a file or (no file) the
clipboard in the app and stdout in `-p`; what the person and the model said verbatim,
each tool call by name with the start of its result, no thinking, nothing of the UI."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcli.commands.headless_prompt import BuiltinCommand, read_prompt, run_builtin
from agentcli.core.messages import Message
from agentcli.wiring.bootstrap import Options, build_engine
from agentcli.wiring.composition import finish_session
from tests.engine.scripted import ScriptedProvider

RESULT_LINES = "\n".join(f"line {n}" for n in range(1, 61))


def conversation(project: Path) -> list[Message]:
    return [
        {"role": "user", "content": "Why does `make test` fail?\nNever edit vendor/."},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "SECRET REASONING", "signature": "s"},
                {"type": "text", "text": "Let me read the Makefile."},
                {
                    "type": "tool_use",
                    "id": "t1",
                    "name": "Read",
                    "input": {"file_path": str(project / "Makefile")},
                },
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t1", "content": RESULT_LINES}],
        },
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "It runs:\n\n```sh\npytest -q\n```\nFixed."}],
        },
    ]


@pytest.fixture
def engine(tmp_path: Path):
    project = tmp_path / "project"
    project.mkdir()
    built = build_engine(Options(cwd=project), ScriptedProvider())
    yield built
    finish_session(built)


async def export(engine, arguments: str = "") -> tuple[str, str | None]:
    reading, _ = read_prompt(engine, f"/export {arguments}".strip())
    assert isinstance(reading, BuiltinCommand), reading
    return await run_builtin(engine, reading)


async def test_export_to_a_file_writes_the_conversation_as_markdown(engine):
    root = engine.workspace.root
    engine.messages[:] = conversation(root)

    said, failed = await export(engine, "notes/out.md")

    assert failed is None
    written = (root / "notes" / "out.md").read_text()
    assert str(root / "notes" / "out.md") in said
    assert "Why does `make test` fail?\nNever edit vendor/." in written
    assert "Let me read the Makefile." in written and "SECRET REASONING" not in written
    assert "Read" in written and str(root / "Makefile") in written
    assert "line 1\n" in written and "line 60" not in written and "more line" in written
    # The answer's own code block survives, inside the answer, not broken by a fence.
    assert "```sh\npytest -q\n```\nFixed." in written
    assert written.index("## You") < written.index("## agentcli")


async def test_export_without_a_file_in_p_prints_the_markdown(engine):
    engine.messages[:] = conversation(engine.workspace.root)

    said, failed = await export(engine)

    assert failed is None and said.startswith("# ") and "Let me read the Makefile." in said


async def test_a_tool_result_with_fences_of_its_own_stays_inside_its_block(engine):
    messages = conversation(engine.workspace.root)
    messages[2]["content"][0]["content"] = "````\nnot the end\n````"  # type: ignore[index]
    engine.messages[:] = messages

    said, _ = await export(engine)

    block = said[said.index("not the end") - 40 : said.index("not the end") + 40]
    assert "`````" in block  # a longer fence than any run of backticks inside


async def test_nothing_to_export_and_a_folder_are_refused_with_a_message(engine):
    root = engine.workspace.root
    _, failed = await export(engine, "out.md")
    assert failed is not None and "nothing to export" in failed.lower()
    assert not (root / "out.md").exists()

    engine.messages[:] = conversation(root)
    (root / "adir").mkdir()
    _, failed = await export(engine, "adir")
    assert failed is not None and "adir" in failed and "folder" in failed
