"""Reading a transcript from its end (session/tail.py, session/tail_first.py).

The tail is whole lines, and the tail and the head read after it are exactly
the file, whatever the sizes of the lines and of the blocks read; a torn last
line and bytes that are not UTF-8 are read as a whole read takes them. The
session is recorded for real (the engine, the real tools and writer).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from agentcli.session.loader import load_session, parse_tail, tail_agrees
from agentcli.session.lock import SessionBusy, open_locked
from agentcli.session.store import latest_session_path
from agentcli.session.tail import read_tail
from agentcli.session.tail_first import TailFirst, open_tail_first
from tests.support.sessions import record_reading_session

CONTENTS = [
    b"",
    b"one\n",
    b"one",
    b"a\nbb\nccc\n",
    b"a\nbb\nccc",  # the last line torn
    b"\n\n\n",
    b"x" * 300 + b"\n" + b"y" * 5 + b"\n" + b"z" * 700,  # lines longer than a block
    "d\u00e9j\u00e0\n\u00fcber\n".encode() + b"\xff\xfe broken\n" + "\u65e5\u672c\n".encode(),
]


@pytest.mark.parametrize("content", CONTENTS)
@pytest.mark.parametrize("lines", [0, 1, 2, 3, 10])
@pytest.mark.parametrize("block", [1, 2, 7, 64, 1 << 16])
def test_the_tail_is_whole_lines_and_the_head_and_tail_are_the_file(content, lines, block):
    file = io.BytesIO(content)
    tail = read_tail(file, lines, block=block)
    read_before = file.tell()
    assert tail.head() + tail.data == content
    assert file.closed and read_before >= 0
    assert tail.offset == len(content) - len(tail.data)
    starts_a_line = tail.offset == 0 or content[tail.offset - 1 : tail.offset] == b"\n"
    assert starts_a_line or not tail.data  # (no line asked for: nothing, at the end)
    ends = content.split(b"\n")
    whole = len(ends) - (content.endswith(b"\n") or not content)  # the file's lines
    got = tail.data.count(b"\n") + (not tail.data.endswith(b"\n") and bool(tail.data))
    assert got == min(lines, whole)  # the last `lines` lines (all of a short file)


async def record(project: Path, prompts: int) -> Path:
    """`prompts` prompts, each a Read and an answer; the transcript's path."""
    await record_reading_session(project, prompts)
    path = latest_session_path(project)
    assert path is not None
    return path


async def test_the_tail_first_then_the_whole_session_as_a_whole_load_reads_it(tmp_path):
    path = await record(tmp_path, 12)
    opened = open_tail_first(path, lines=9)
    assert isinstance(opened, TailFirst)
    whole = load_session(path)
    assert 0 < len(opened.tail.history) < len(whole.history)
    assert opened.tail.history == whole.history[-len(opened.tail.history) :]
    assert opened.tail.history[-1]["content"][0]["text"] == "Answer 11."
    with pytest.raises(SessionBusy):  # claimed before the tail was read
        open_locked(path).close()
    completed = opened.complete()
    assert tail_agrees(opened.tail, completed)
    assert completed.messages == whole.messages
    assert completed.history == whole.history
    assert completed.prompts.keys() == whole.prompts.keys()
    assert completed.lock is not None
    completed.release()
    open_locked(path).close()  # released: free again


async def test_a_session_held_elsewhere_is_forked_from_one_whole_read(tmp_path):
    path = await record(tmp_path, 2)
    held = open_locked(path)
    try:
        opened = open_tail_first(path, lines=3)
        assert not isinstance(opened, TailFirst)
        assert opened.forked_from == path.stem
        assert [m["content"] for m in opened.history][-1][0]["text"] == "Answer 1."
    finally:
        held.close()


async def test_a_torn_last_line_and_bad_bytes_are_read_as_a_whole_read_takes_them(tmp_path):
    path = await record(tmp_path, 6)
    lines = path.read_bytes().split(b"\n")
    lines.insert(len(lines) // 2, b'{"type": "user", "message": \xff\xfe not json')
    path.write_bytes(b"\n".join(lines) + b'{"type": "assistant", "mess')  # cut mid-write
    whole = load_session(path)
    opened = open_tail_first(path, lines=5)
    assert isinstance(opened, TailFirst)
    assert opened.tail.history and opened.tail.notices == []
    assert opened.tail.history == whole.history[-len(opened.tail.history) :]
    completed = opened.complete()
    assert completed.history == whole.history and completed.notices == whole.notices
    assert any("cut off" in n for n in completed.notices)
    assert any("unreadable" in n for n in completed.notices)
    completed.release()


async def test_a_tail_that_a_rewind_before_it_changes_does_not_agree(tmp_path):
    path = await record(tmp_path, 6)
    whole = load_session(path)
    first_prompt = next(iter(whole.prompts))  # a prompt long before the tail
    rewind = {"type": "rewind", "promptId": first_prompt, "uuid": "r1"}
    with path.open("a") as out:
        out.write(json.dumps(rewind) + "\n")
    raw = path.read_bytes()
    tail = parse_tail(raw[len(raw) - len(read_tail(io.BytesIO(raw), 4).data) :], path)
    assert tail.history  # the tail alone cannot tell what the rewind took away
    rewound = load_session(path)
    assert not tail_agrees(tail, rewound)


async def test_a_tails_displays_are_kept_as_recorded_and_validate_as_a_whole_loads(tmp_path):
    """The tail is drawn before any display model is built: its displays are the
    recorded data, the same models once validated."""
    from agentcli.tools.display import load_display

    path = await record(tmp_path, 3)
    whole = load_session(path)
    tail = parse_tail(path.read_bytes(), path)
    assert tail.displays == {} and set(tail.raw_displays) == set(whole.displays)
    assert {k: load_display(v) for k, v in tail.raw_displays.items()} == whole.displays
    assert whole.raw_displays == {}
