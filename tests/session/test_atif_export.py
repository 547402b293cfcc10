"""`agentcli export --format atif`: a saved session as Harbor's ATIF trajectory.

The shapes checked here are Harbor's rules (ATIF-v1.8: step ids from 1, only
agent steps carry model, reasoning, tool calls and metrics, every observation
names a call of its own step); tests/integrations/test_harbor_atif.py also
validates the same exports with Harbor's own `Trajectory` model.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentcli.cli.export_command import main as export_main
from agentcli.cli.main import run as cli_run
from agentcli.core.pricing import cost_usd
from agentcli.core.usage import Usage
from agentcli.session.atif import AtifError, export_file
from agentcli.session.writer import transcript_path
from tests.engine.harness import make_engine, run_turn
from tests.engine.scripted import Probe, Response, ScriptedProvider, make_tool, text, tool_use

HEADER = {"type": "session", "version": 1, "sessionId": "s-1", "cwd": "/p", "model": "claude-x"}
AGENT_ONLY = ("model_name", "reasoning_content", "tool_calls", "metrics", "reasoning_effort")


def record(role: str, content, **meta) -> dict:
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    return {
        "type": role,
        "version": 1,
        "timestamp": "2026-12-01T10:00:00.000Z",
        "message": {"role": role, "content": content},
        "meta": meta,
    }


def write(path: Path, *records: dict) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in [HEADER, *records]))
    return path


def check_atif_rules(trajectory: dict) -> None:
    """What Harbor's model enforces, so a 3.11 run catches a break too."""
    assert trajectory["schema_version"] == "ATIF-v1.8"
    assert [s["step_id"] for s in trajectory["steps"]] == list(
        range(1, len(trajectory["steps"]) + 1)
    )
    for step in trajectory["steps"]:
        assert step["source"] in ("user", "agent", "system")
        if step["source"] != "agent":
            assert not set(AGENT_ONLY) & set(step), step
        calls = {c["tool_call_id"] for c in step.get("tool_calls", [])}
        for result in step.get("observation", {}).get("results", []):
            if "source_call_id" in result:
                assert result["source_call_id"] in calls


FIRST, SECOND = Usage(1_000, 40, 200, 300), Usage(50, 10, 0, 1_500)


async def engine_transcript(tmp_path: Path) -> tuple[Path, float | None]:
    """A real engine's transcript: thinking, text, two tool calls (one fails), an
    answer; and what the engine counted it cost."""
    first, second = FIRST, SECOND
    provider = ScriptedProvider(
        Response(
            [
                {"type": "thinking", "thinking": "Look first.", "signature": "sig"},
                text("Checking."),
                tool_use("Probe", {"value": "a"}, id="toolu_a"),
                tool_use("Broken", {"value": "b"}, id="toolu_b"),
            ],
            usage=first,
        ),
        Response([text("All done.")], usage=second),
    )
    probe = Probe()
    tools = [
        make_tool("Probe", probe, safe=True),
        make_tool("Broken", probe, safe=True, behaviour="tool_error"),
    ]
    engine = make_engine(provider, tools, tmp_path, session=True, model="claude-opus-4-1")
    await run_turn(engine, "Do the thing")
    engine.transcript.close()
    return engine.transcript.path, engine.cost_usd


async def test_an_engine_run_exports_every_step_with_its_calls_results_and_usage(tmp_path):
    first = FIRST
    path, engine_cost = await engine_transcript(tmp_path)

    trajectory = export_file(path)

    check_atif_rules(trajectory)
    steps = trajectory["steps"]
    assert [s["source"] for s in steps] == ["user", "agent", "agent"]
    assert steps[0]["message"] == "Do the thing"
    act = steps[1]
    assert act["message"] == "Checking."
    assert act["reasoning_content"] == "Look first."
    assert act["model_name"] == "claude-opus-4-1"
    assert act["tool_calls"] == [
        {"tool_call_id": "toolu_a", "function_name": "Probe", "arguments": {"value": "a"}},
        {"tool_call_id": "toolu_b", "function_name": "Broken", "arguments": {"value": "b"}},
    ]
    results = {r["source_call_id"]: r for r in act["observation"]["results"]}
    assert results["toolu_a"]["content"] == "Probe did a"
    assert "Broken cannot do b" in results["toolu_b"]["content"]
    assert results["toolu_b"]["extra"] == {"is_error": True}
    assert "extra" not in results["toolu_a"]
    assert act["metrics"] == {
        "prompt_tokens": 1_500,  # input + cache written + cache read, as Harbor counts it
        "completion_tokens": 40,
        "cached_tokens": 300,
        "cost_usd": pytest.approx(cost_usd("claude-opus-4-1", first)),
        "extra": {"cache_creation_input_tokens": 200},
    }
    assert steps[2]["message"] == "All done." and "observation" not in steps[2]
    final = trajectory["final_metrics"]
    assert final["total_prompt_tokens"] == 1_500 + 1_550
    assert final["total_completion_tokens"] == 50
    assert final["total_cached_tokens"] == 1_800
    assert final["total_cost_usd"] == pytest.approx(engine_cost)
    assert final["total_steps"] == 3
    assert trajectory["session_id"] == path.stem
    assert trajectory["agent"]["name"] == "agentcli"


def rewound_and_compacted(path: Path) -> Path:
    return write(
        path,
        record("user", "one", promptId="p1"),
        record("assistant", "a1", usage=Usage(10, 1).to_dict(), model="claude-x"),
        record("user", "abandoned", promptId="p2"),
        record("assistant", "never mind", usage=Usage(20, 2).to_dict()),
        {"type": "rewind", "version": 1, "promptId": "p2"},
        {"type": "compact_boundary", "version": 1, "trigger": "auto", "kept": 1},
        record("user", "Summary of before", compactSummary=True),
        record("assistant", "a1", kept=True, usage=Usage(10, 1).to_dict()),
        record("user", "two", promptId="p3"),
        record("assistant", "a2", usage=Usage(30, 3).to_dict()),
    )


def test_a_rewound_prompt_and_kept_copies_are_not_exported_and_a_summary_is_a_system_step(
    tmp_path,
):
    trajectory = export_file(rewound_and_compacted(tmp_path / "s.jsonl"))

    check_atif_rules(trajectory)
    shown = [(s["source"], s["message"]) for s in trajectory["steps"]]
    assert shown == [
        ("user", "one"),
        ("agent", "a1"),
        ("system", "Summary of before"),
        ("user", "two"),
        ("agent", "a2"),
    ]
    # A copy kept across the compaction is not counted twice; the rewound answer was not
    # part of the conversation that went on.
    assert trajectory["final_metrics"]["total_prompt_tokens"] == 40


def server_tools_and_images(path: Path) -> Path:
    return write(
        path,
        record("user", [{"type": "text", "text": "see"}, {"type": "image", "source": {}}]),
        record(
            "assistant",
            [
                {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {}},
                {"type": "web_search_tool_result", "tool_use_id": "srv_1", "content": []},
                {"type": "redacted_thinking", "data": "xx"},
                {"type": "text", "text": "Found it."},
            ],
        ),
        # A result for a call this step never made (an edited or foreign file): kept,
        # but not pointed at a call that is not there.
        record("user", [{"type": "tool_result", "tool_use_id": "ghost", "content": "late"}]),
    )


def test_server_tools_results_without_a_call_and_images_stay_valid(tmp_path):
    trajectory = export_file(server_tools_and_images(tmp_path / "s.jsonl"))

    check_atif_rules(trajectory)
    user, agent = trajectory["steps"]
    assert user["message"] == "see\n[image]"
    assert agent["tool_calls"][0]["function_name"] == "web_search"
    assert agent["observation"]["results"][0]["source_call_id"] == "srv_1"
    assert agent["observation"]["results"][1] == {"content": "late"}
    assert "reasoning_content" not in agent and "metrics" not in agent
    assert "total_cost_usd" not in trajectory["final_metrics"]  # nothing was priced


def test_tool_results_with_no_agent_step_before_them_are_kept_in_a_system_step(tmp_path):
    path = write(
        tmp_path / "s.jsonl",
        record("user", [{"type": "tool_result", "tool_use_id": "t1", "content": "out"}]),
        record("user", "next"),
    )
    trajectory = export_file(path)
    check_atif_rules(trajectory)
    first, second = trajectory["steps"]
    assert first["source"] == "system"
    assert first["observation"] == {"results": [{"content": "out"}]}
    assert (second["source"], second["message"]) == ("user", "next")


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"", "not an agentcli session transcript"),
        (b"hello\nworld\n", "not an agentcli session transcript"),
        (b'{"type": "prompt", "id": "x"}\n', "not an agentcli session transcript"),
        (json.dumps(HEADER).encode() + b"\n", "holds no messages"),
        (b"\xff\xfe\x00garbage", "not an agentcli session transcript"),
    ],
)
def test_a_file_that_is_no_transcript_is_refused_with_one_line(tmp_path, content, problem):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    with pytest.raises(AtifError, match=problem):
        export_file(path)


def test_the_command_finds_a_session_by_id_in_this_folder_and_writes_the_file(
    tmp_path, monkeypatch, capsys
):
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    path = transcript_path(project, "0b7e4d1c-1111-4000-8000-000000000001")
    path.parent.mkdir(parents=True, exist_ok=True)
    write(path, record("user", "hi", promptId="p"), record("assistant", "hello"))
    out = tmp_path / "trajectory.json"

    assert cli_run(["export", "--format", "atif", "0b7e4d1c-1111", "-o", str(out)]) == 0
    assert json.loads(out.read_text()) == export_file(path)
    assert cli_run(["export", "--format", "atif", str(path)]) == 0
    assert json.loads(capsys.readouterr().out) == export_file(path)


@pytest.mark.parametrize(
    ("argv", "problem"),
    [
        (["--format", "atif", "no-such-session"], "no session 'no-such-session'"),
        (["--format", "atif", "{missing}"], "no such file"),
        (["--format", "atif", "{folder}"], "is a folder"),
        (["--format", "atif", "{not_jsonl}"], "not an agentcli session transcript"),
        (["--format", "csv", "{not_jsonl}"], "invalid choice"),
        (["{not_jsonl}"], "required: --format"),
    ],
)
def test_bad_input_gets_one_message_exit_1_and_leaves_the_output_file(
    tmp_path, monkeypatch, capsys, argv, problem
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("just words\n")
    names = {
        "missing": str(tmp_path / "gone.jsonl"),
        "folder": str(tmp_path),
        "not_jsonl": str(tmp_path / "notes.txt"),
    }
    out = tmp_path / "keep.json"
    out.write_text("earlier work")

    status = export_main([a.format(**names) for a in argv] + ["-o", str(out)])

    assert status == 1
    err = capsys.readouterr().err
    assert problem in err and "Traceback" not in err
    assert err.count("\n") == 1
    assert out.read_text() == "earlier work"


def test_an_output_file_that_cannot_be_written_is_one_message(tmp_path, capsys):
    path = write(tmp_path / "s.jsonl", record("user", "hi"), record("assistant", "hello"))
    status = export_main(["--format", "atif", str(path), "-o", str(tmp_path / "no" / "x.json")])
    assert status == 1
    err = capsys.readouterr().err
    assert err.startswith("agentcli export: cannot write") and err.count("\n") == 1


def test_subagents_are_embedded_and_their_requests_counted(tmp_path):
    main = write(
        tmp_path / "s-1.jsonl",
        record("user", "look around"),
        record("assistant", [tool_use("Task", {"prompt": "find it"}, id="t1")], model="claude-x",
               usage={"input_tokens": 100, "output_tokens": 10}),
        record("user", [{"type": "tool_result", "tool_use_id": "t1", "content": "found"}]),
        record("assistant", "Found it.", model="claude-x", usage={"input_tokens": 120, "output_tokens": 5}),
    )  # fmt: skip
    subagents = tmp_path / "s-1" / "subagents"
    subagents.mkdir(parents=True)
    write(
        subagents / "a1b2.jsonl",
        record("user", "find it"),
        record("assistant", "It is in b.py.", model="claude-x",
               usage={"input_tokens": 40, "output_tokens": 7, "cache_read_input_tokens": 3}),
    )  # fmt: skip
    (subagents / "broken.jsonl").write_text("not json\n")

    exported = export_file(main)

    check_atif_rules(exported)
    (sub,) = exported["subagent_trajectories"]
    check_atif_rules(sub)
    assert sub["trajectory_id"] == "a1b2"
    assert [step["source"] for step in sub["steps"]] == ["user", "agent"]
    final = exported["final_metrics"]
    assert final["total_prompt_tokens"] == 100 + 120 + 40 + 3
    assert final["total_completion_tokens"] == 10 + 5 + 7
    assert final["total_cached_tokens"] == 3
    assert final["extra"]["main_conversation"]["total_prompt_tokens"] == 220
    assert final["extra"]["subagents"] == 1
