"""No tool input crashes a run (class 9): whatever the model sends, the turn goes on.

NUL bytes, lone surrogates, enormous strings, wrong types, missing and extra
fields, at every built-in tool, through the real engine loop. Each call gets
exactly one result (an `is_error` one when the input is bad), the next request
is one the API accepts, and the transcript stays writable and loadable.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.engine.events import EndReason, ToolCallFinished, TurnEnded
from agentcli.permissions.types import PermissionMode
from agentcli.providers.tool_input import parse_tool_input
from agentcli.session import records
from agentcli.session.loader import load_session
from agentcli.session.writer import TranscriptWriter
from agentcli.tools.exit_plan_mode import ExitPlanModeTool
from agentcli.tools.registry import builtin_tools
from tests.engine.harness import make_engine, of_type, run_turn
from tests.engine.scripted import Response, ScriptedProvider, text, tool_use

FIELDS = {
    "Read": ("file_path", "offset", "limit"),
    "Edit": ("file_path", "old_string", "new_string", "replace_all"),
    "Write": ("file_path", "content"),
    "Bash": ("command", "timeout", "description"),
    "Grep": (
        "pattern",
        "path",
        "glob",
        "type",
        "output_mode",
        "-i",
        "-n",
        "-A",
        "-C",
        "head_limit",
    ),
    "Glob": ("pattern", "path"),
    "ExitPlanMode": ("plan",),
}
PATH_FIELDS = {
    "Read": "file_path",
    "Edit": "file_path",
    "Write": "file_path",
    "Grep": "path",
    "Glob": "path",
}
REQUIRED = {
    "Read": {"file_path": "a.txt"},
    "Edit": {"file_path": "a.txt", "old_string": "a", "new_string": "b"},
    "Write": {"file_path": "a.txt", "content": "x"},
    "Bash": {"command": "ls"},
    "Grep": {"pattern": "x"},
    "Glob": {"pattern": "*"},
    "ExitPlanMode": {"plan": "do it"},
}
HUGE = "x" * 10_000_000
# In the property, past every limit (a path's 4 KiB, an argument's 128 KiB) yet quick to
# write and send 60 times over; HUGE itself goes to each tool in its own test below.
LARGE = "x" * 1_000_000


async def run_calls(
    root: Path, calls: list[tuple[str, Any]], mode: PermissionMode
) -> tuple[list[ToolCallFinished], ScriptedProvider, TranscriptWriter, list[Any]]:
    """One model response with these tool calls, then a final answer."""
    blocks = [tool_use(name, inp) for name, inp in calls]
    provider = ScriptedProvider(Response(blocks), Response([text("done")]))
    tools = [*builtin_tools(), ExitPlanModeTool()]
    engine = make_engine(provider, tools, root, mode=mode, session=True)
    writer = engine.transcript
    try:
        events = await run_turn(engine, "go")
    finally:
        writer.close()
    return of_type(events, ToolCallFinished), provider, writer, events


def assert_run_survived(calls, finished, provider, writer, events) -> None:
    assert isinstance(events[-1], TurnEnded) and events[-1].reason is EndReason.COMPLETED
    assert provider.invalid == []
    assert len(provider.requests) == 2
    results = provider.requests[1].messages[-1]["content"]
    uses = [b for b in provider.requests[1].messages[-2]["content"] if b["type"] == "tool_use"]
    assert [r["tool_use_id"] for r in results] == [u["id"] for u in uses]
    assert len(finished) == len(calls)
    assert writer.problem is None
    loaded = load_session(writer.path)
    assert [m["role"] for m in loaded.messages] == ["user", "assistant", "user", "assistant"]


# -- the property ---------------------------------------------------------------------

_surrogates = st.integers(0xD800, 0xDFFF).map(chr)
_text = st.text(
    alphabet=st.one_of(st.characters(), _surrogates, st.sampled_from("\x00\n/.*~{},")),
    max_size=40,
)
_nasty_text = st.sampled_from(
    [
        "a\x00b",
        "\x00",
        "\ud800",
        "x\udfffy",
        "\ud83d",
        LARGE,
        "",
        "../../etc/passwd",
        "~",
        "/",
        "-",
        "--help",
        "{a,../b}",
        "**/../../*",
        ".env",
        "\U0001f600",
    ]
)
_scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    _text,
    _nasty_text,
)
_value = st.recursive(
    _scalar,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.one_of(_text, _nasty_text), inner, max_size=3),
    ),
    max_leaves=8,
)


@st.composite
def tool_calls(draw: st.DrawFn) -> tuple[str, Any]:
    name = draw(st.sampled_from(sorted(FIELDS)))
    if draw(st.integers(0, 9)) == 0:  # not an object at all
        return name, draw(st.one_of(st.lists(_scalar, max_size=2), _text, st.integers()))
    fields = draw(st.lists(st.sampled_from(FIELDS[name]), unique=True))
    inp: dict[str, Any] = dict(REQUIRED[name]) if draw(st.booleans()) else {}
    for field in fields:
        inp[field] = draw(_value)
    if draw(st.integers(0, 4)) == 0:
        inp[draw(_text)] = draw(_value)  # an extra field
    return name, inp


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    calls=st.lists(tool_calls(), min_size=1, max_size=3),
    mode=st.sampled_from(
        [PermissionMode.DEFAULT, PermissionMode.ACCEPT_EDITS, PermissionMode.PLAN]
    ),
)
def test_no_tool_input_breaks_the_turn(calls, mode):
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "project"
        root.mkdir()
        (root / "a.txt").write_text("a\n")
        finished, provider, writer, events = asyncio.run(run_calls(root, calls, mode))
        assert_run_survived(calls, finished, provider, writer, events)


# -- the cases that used to crash ---------------------------------------------------------


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    (project / "a.txt").write_text("a\n")
    return project


@pytest.mark.parametrize("mode", [PermissionMode.DEFAULT, PermissionMode.BYPASS])
@pytest.mark.parametrize("name", sorted(PATH_FIELDS))
async def test_a_nul_byte_in_a_path_is_an_error_result(root, name, mode):
    calls = [(name, {**REQUIRED[name], PATH_FIELDS[name]: "a\x00b"})]

    finished, provider, writer, events = await run_calls(root, calls, mode)

    assert_run_survived(calls, finished, provider, writer, events)
    assert finished[0].is_error
    assert "NUL" in finished[0].result["content"]


@pytest.mark.parametrize(
    ("name", "field"),
    [
        ("Read", "file_path"),
        ("Write", "content"),
        ("Edit", "new_string"),
        ("Grep", "pattern"),
        ("Glob", "pattern"),
        ("Bash", "command"),
        ("ExitPlanMode", "plan"),
    ],
)
async def test_a_lone_surrogate_is_an_error_result_and_leaves_no_trace(root, name, field):
    calls = [(name, {**REQUIRED[name], field: "x\ud800y"})]

    finished, provider, writer, events = await run_calls(root, calls, PermissionMode.BYPASS)

    assert_run_survived(calls, finished, provider, writer, events)
    assert finished[0].is_error and "Unicode" in finished[0].result["content"]
    assert sorted(p.name for p in root.iterdir()) == ["a.txt"]
    assert (root / "a.txt").read_text() == "a\n"
    sent = json.dumps(provider.requests[1].messages, ensure_ascii=False)
    sent.encode("utf-8")  # no lone surrogate left in what goes to the API
    assert writer.path.read_bytes().decode("utf-8")


@pytest.mark.parametrize("name", ["Read", "Grep", "Glob", "Bash", "Edit"])
async def test_enormous_strings_are_error_results(root, name):
    field = {"Bash": "command", "Grep": "pattern", "Glob": "pattern"}.get(name, "file_path")
    calls = [(name, {**REQUIRED[name], field: HUGE})]

    finished, provider, writer, events = await run_calls(root, calls, PermissionMode.DEFAULT)

    assert_run_survived(calls, finished, provider, writer, events)
    assert finished[0].is_error and "too long" in finished[0].result["content"]


@pytest.mark.parametrize("inp", [[1, 2], "a.txt", 7, None, True])
async def test_an_input_that_is_not_an_object_is_an_error_result(root, inp):
    calls = [("Read", inp)]

    finished, provider, writer, events = await run_calls(root, calls, PermissionMode.DEFAULT)

    assert_run_survived(calls, finished, provider, writer, events)
    assert finished[0].is_error


async def test_a_file_name_that_is_not_utf8_does_not_break_the_next_request(root):
    (root / b"caf\xe9.txt".decode("utf-8", "surrogateescape")).write_text("x\n")
    calls = [("Read", {"file_path": "cafe.txt"})]  # "did you mean café?" names the odd file

    finished, provider, writer, events = await run_calls(root, calls, PermissionMode.DEFAULT)

    assert_run_survived(calls, finished, provider, writer, events)
    json.dumps(provider.requests[1].messages, ensure_ascii=False).encode("utf-8")


# -- the pieces around the loop -------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        '{"file_path": NaN}',
        '{"offset": Infinity}',
        '{"limit": -Infinity}',
        "[" * 100_000 + "]" * 100_000,
        '{"a": ' * 50_000 + "1" + "}" * 50_000,
    ],
)
def test_tool_input_json_the_api_could_not_take_back_is_invalid(raw):
    assert "__invalid_json__" in parse_tool_input(raw)


def test_a_transcript_record_with_a_lone_surrogate_is_written_and_read_back():
    line = records.dumps({"type": "user", "message": {"content": "a\ud800b"}})

    assert json.loads(line.encode("utf-8"))["message"]["content"] == "a\ud800b"
