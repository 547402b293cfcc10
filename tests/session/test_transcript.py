"""Transcripts: written as the conversation happens, loaded back with repairs."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

from agentcli.core.messages import INTERRUPTED_MESSAGE, normalize_for_api
from agentcli.engine.events import ToolCallFinished
from agentcli.session.loader import load_session
from agentcli.session.records import FORMAT_VERSION
from agentcli.session.resume import resolve_resumed
from agentcli.session.store import latest_session
from agentcli.tools.registry import builtin_tools
from agentcli.wiring.composition import finish_session
from tests.engine.harness import make_engine, run_turn
from tests.engine.scripted import (
    Probe,
    Response,
    ScriptedProvider,
    check_valid_request,
    make_tool,
    text,
    tool_use,
)


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def line(record: dict) -> str:
    return json.dumps(record) + "\n"


def session_file(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "0b7e4d1c-0000-4000-8000-000000000001.jsonl"
    path.write_text("".join(lines))
    return path


HEADER = {"type": "session", "version": 1, "sessionId": "s1", "cwd": "/p", "model": "m"}


def msg(role: str, content, **extra) -> dict:
    return {
        "type": role,
        "version": 1,
        "uuid": f"u-{id(content)}",
        "message": {"role": role, "content": content},
        **extra,
    }


async def test_a_tool_session_is_written_message_by_message_and_loads_back(tmp_path):
    probe = Probe()
    provider = ScriptedProvider(
        Response([text("Looking."), tool_use("Echo", {"value": "a"}, id="toolu_1")]),
        Response([text("Done.")]),
    )
    engine = make_engine(provider, [make_tool("Echo", probe, safe=True)], tmp_path, session=True)
    writer = engine.transcript
    await run_turn(engine, "do it")

    written = records(writer.path)
    assert written[0]["type"] == "session" and written[0]["version"] == FORMAT_VERSION
    assert [r["type"] for r in written[1:]] == ["user", "assistant", "user", "assistant"]
    for previous, record in itertools.pairwise(written[1:]):
        assert record["parentUuid"] == previous["uuid"]
    assert written[2]["meta"]["model"] == "claude-test"
    assert written[2]["meta"]["usage"]["input_tokens"] == 10
    assert written[1]["meta"]["permissionMode"] == "bypassPermissions"
    assert written[1]["meta"]["cwd"] == str(tmp_path)

    loaded = load_session(writer.path)
    assert loaded.notices == []
    assert loaded.messages == engine.messages
    assert loaded.session_id == engine.session_id
    assert latest_session(tmp_path).id == engine.session_id


async def test_resume_continues_the_same_file_and_sends_everything_before(tmp_path):
    first = make_engine(ScriptedProvider(Response([text("One.")])), [], tmp_path, session=True)
    original = first.transcript.path
    await run_turn(first, "first question")
    finish_session(first)  # else this resume would fork: the first writer holds the file

    resumed = resolve_resumed(tmp_path, continue_latest=True)
    provider = ScriptedProvider(Response([text("Two.")]))
    second = make_engine(provider, [], tmp_path, session=True, resumed=resumed)
    writer = second.transcript
    await run_turn(second, "second question")

    sent = provider.requests[0].messages
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert "first question" in json.dumps(sent) and "second question" in json.dumps(sent)
    assert writer.path == original
    assert len(load_session(writer.path).messages) == 4


def test_a_cut_last_line_is_dropped_with_a_notice_and_the_file_is_untouched(tmp_path):
    good = line(HEADER) + line(msg("user", "hello")) + line(msg("assistant", [text("Hi")]))
    path = session_file(tmp_path, good, '{"type": "user", "message": {"ro')
    before = path.read_bytes()

    loaded = load_session(path)

    assert [m["role"] for m in loaded.messages] == ["user", "assistant"]
    assert any("last line was cut off" in n for n in loaded.notices)
    assert path.read_bytes() == before


def test_each_line_is_read_as_a_whole_read_reads_it(tmp_path):
    """The transcript is decoded a line at a time (session/loader.py): bytes that are
    not UTF-8 spoil only their line, a blank line is nothing, a last line that is
    whole JSON but no record is unreadable (not cut), and the line numbers stay."""
    good = line(HEADER) + line(msg("user", "h\u00e9llo")) + "\n"
    bad = b'{"type": "user", "message": \xff\xfe}\n'
    path = session_file(tmp_path, good)
    path.write_bytes(
        path.read_bytes() + bad + line(msg("assistant", [text("\u65e5\u672c")])).encode() + b"123"
    )

    loaded = load_session(path)

    assert loaded.messages[0]["content"] == "h\u00e9llo"
    assert loaded.messages[1]["content"][0]["text"] == "\u65e5\u672c"
    assert loaded.dropped_lines == [4, 6]
    assert not any("cut off" in n for n in loaded.notices)
    assert any("unreadable line(s) 4, 6" in n for n in loaded.notices)


def test_a_dangling_tool_use_gets_an_interrupted_result(tmp_path):
    call = tool_use("Bash", {"command": "sleep 100"}, id="toolu_dangling")
    path = session_file(
        tmp_path,
        line(HEADER),
        line(msg("user", "run it")),
        line(msg("assistant", [text("Running."), call])),
    )

    loaded = load_session(path)

    assert any("had no result" in n for n in loaded.notices)
    last = loaded.messages[-1]
    assert last["content"][0]["tool_use_id"] == "toolu_dangling"
    assert last["content"][0]["content"] == INTERRUPTED_MESSAGE
    check_valid_request(normalize_for_api([*loaded.messages, {"role": "user", "content": "go"}]))


def test_a_tool_use_followed_by_a_new_prompt_is_repaired_before_it(tmp_path):
    call = tool_use("Bash", {"command": "x"}, id="toolu_mid")
    path = session_file(
        tmp_path,
        line(msg("user", "run it")),
        line(msg("assistant", [call])),
        line(msg("user", [text("never mind")])),
        line(msg("assistant", [text("OK")])),
    )
    loaded = load_session(path)
    check_valid_request(normalize_for_api([*loaded.messages, {"role": "user", "content": "go"}]))
    assert loaded.synthetic == []  # the repair is in the middle, not at the end


def test_unknown_record_types_and_junk_lines_are_skipped_with_notices(tmp_path):
    path = session_file(
        tmp_path,
        line(HEADER),
        line(msg("user", "hello")),
        line({"type": "telemetry", "version": 1, "data": 1}),
        "this is not json\n",
        line(msg("assistant", [text("Hi")])),
    )
    loaded = load_session(path)
    assert [m["role"] for m in loaded.messages] == ["user", "assistant"]
    assert any("unknown type 'telemetry'" in n for n in loaded.notices)
    assert any("unreadable line(s) 4" in n for n in loaded.notices)


def test_a_file_from_a_future_version_loads_what_it_understands(tmp_path):
    path = session_file(
        tmp_path,
        line({**HEADER, "version": 7}),
        line({**msg("user", "hello"), "version": 7, "newField": {"x": 1}}),
        line({"type": "hologram", "version": 7}),
        line({**msg("assistant", [text("Hi")]), "version": 7}),
    )
    loaded = load_session(path)
    assert [m["role"] for m in loaded.messages] == ["user", "assistant"]
    assert any("newer agentcli (format version 7" in n for n in loaded.notices)


def test_resuming_a_cut_file_ends_the_line_and_later_loads_are_quiet(tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    engine = make_engine(ScriptedProvider(), [], project, session=True)
    writer = engine.transcript
    writer({"role": "user", "content": [text("q")]}, {})
    writer({"role": "assistant", "content": [text("a")]}, {})
    writer.close()
    with writer.path.open("a") as handle:
        handle.write('{"type":"assistant","mess')

    resumed = resolve_resumed(project, continue_latest=True)
    assert any("cut off" in n for n in resumed.notices)
    again = make_engine(ScriptedProvider(), [], project, session=True, resumed=resumed)
    second = again.transcript
    second({"role": "user", "content": [text("next")]}, {})
    second.close()

    reloaded = load_session(writer.path)
    assert reloaded.notices == []
    assert [m["role"] for m in reloaded.messages] == ["user", "assistant", "user"]
    lines = writer.path.read_text().splitlines()
    assert lines[-3] == '{"type":"assistant","mess'  # the cut line stays, alone on its line
    assert json.loads(lines[-2])["type"] == "repair"
    assert json.loads(lines[-1])["parentUuid"] == resumed.last_uuid


def test_no_secret_reaches_the_transcript(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-very-secret-123")
    engine = make_engine(ScriptedProvider(), [], tmp_path, session=True)
    writer = engine.transcript
    writer({"role": "user", "content": [text("hi")]}, {"authorization": "Bearer x", "model": "m"})
    data = writer.path.read_text()
    assert "sk-ant" not in data and "Bearer" not in data and "authorization" not in data


def test_a_message_with_plain_string_content_is_kept(tmp_path):
    path = session_file(
        tmp_path, line(HEADER), line(msg("user", "hello")), line(msg("assistant", "hi"))
    )

    loaded = load_session(path)

    assert loaded.messages == [
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": "hi"},
    ]
    assert loaded.notices == []


async def test_each_call_keeps_its_display_and_an_unknown_one_is_left_out(tmp_path):
    config = tmp_path / "config.py"
    config.write_text("a\nb\n")
    edit = {"file_path": str(config), "old_string": "b", "new_string": "B"}
    provider = ScriptedProvider(
        Response([tool_use("Read", {"file_path": str(config)}, id="toolu_r")]),
        Response([tool_use("Edit", edit, id="toolu_e")]),
        Response([text("Done.")]),
    )
    tools = [builtin_tools().get("Read"), builtin_tools().get("Edit")]
    engine = make_engine(provider, tools, tmp_path, session=True)
    writer = engine.transcript
    events = await run_turn(engine, "change b")

    shown = {e.tool_use_id: e.display for e in events if isinstance(e, ToolCallFinished)}
    results = [r for r in records(writer.path) if r.get("meta", {}).get("displays")]
    assert [list(r["meta"]["displays"]) for r in results] == [["toolu_r"], ["toolu_e"]]
    assert load_session(writer.path).displays == shown

    # A display from a newer version (or a tool not installed) is not guessed at.
    newer = re.sub(r'"type": ?"diff"', '"type": "notebook-diff"', writer.path.read_text())
    writer.path.write_text(newer)
    assert load_session(writer.path).displays == {"toolu_r": shown["toolu_r"]}
