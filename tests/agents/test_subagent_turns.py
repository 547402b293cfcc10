"""A subagent's turns are bounded: by the run's --max-turns, by its agent file's
`maxTurns`, and by a default of its own; one cut short says so in its Task result."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from agentcli.agents.definitions import load_agents
from agentcli.agents.sub_engine import DEFAULT_SUBAGENT_TURNS
from agentcli.engine.events import SubagentEvent, ToolCallFinished, TurnEnded
from tests.agents.test_task_over_http import (
    EXPLORE,
    GUARD_S,
    assert_all_requests_valid,
    close_providers,  # noqa: F401  (autouse: the providers engine_for opened are closed)
    engine_for,
    home,  # noqa: F401  (autouse: AGENTCLI_HOME in the test's folder)
    results_in,
    run,
    system_of,
    task,
)
from tests.fakeapi import reply, text, tool_use
from tests.integration.test_headless_cli import agentcli

LOOPER = "You look forever for the looping test."


def looping_subagent(body: dict[str, Any], *, parent_loops: bool = False) -> Any:
    """A subagent that never stops looking: every answer is some words and a Glob. The
    parent starts it once (or, `parent_loops`, again at every turn)."""
    results = results_in(body)
    system = system_of(body)
    if EXPLORE in system or LOOPER in system:
        return reply(
            text(f"Still looking ({len(results) + 1})."), tool_use("Glob", {"pattern": "*"})
        )
    if results and not parent_loops:
        return reply(text("The subagent gave up."))
    return reply(
        tool_use("Task", task("Explore", "Find it.", "find it"), id=f"toolu_{len(results)}")
    )


def stream(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines()]


def test_max_turns_bounds_a_looping_subagent_and_its_task_result_says_so(fake_api, project):
    fake_api.default = looping_subagent

    args = ["-p", "find it", "--max-turns", "4", "--output-format", "stream-json"]
    done = agentcli(args, project, fake_api)

    assert done.returncode == 0, done.stderr
    assert_all_requests_valid(fake_api)
    sub = [r for r in fake_api.requests if EXPLORE in system_of(r.body)]
    assert len(sub) == 4 and len(fake_api.requests) == 6  # the parent: the Task call, the end
    results = [
        block
        for line in stream(done.stdout)
        if line["type"] == "user" and line["parent_tool_use_id"] is None
        for block in line["message"]["content"]
    ]
    (result,) = results
    assert result["tool_use_id"] == "toolu_0" and result["is_error"]
    said = result["content"]
    assert "stopped at its limit of 4 turns" in said, said
    assert said.endswith("Still looking (4).")  # what it had when it was stopped
    assert stream(done.stdout)[-1]["result"] == "The subagent gave up."


def test_every_subagent_of_a_looping_parent_is_bounded_too(fake_api, project):
    fake_api.default = lambda body: looping_subagent(body, parent_loops=True)

    done = agentcli(
        ["-p", "find it", "--max-turns", "4", "--output-format", "json"], project, fake_api
    )

    assert json.loads(done.stdout)["subtype"] == "error_max_turns"
    assert_all_requests_valid(fake_api)
    parent = [r for r in fake_api.requests if EXPLORE not in system_of(r.body)]
    assert len(parent) == 4
    assert len(fake_api.requests) == 4 + 4 * 4  # each of the 4 Task calls: 4 turns at most


def looper_file(root: Path, max_turns: str | None) -> None:
    agents = root / ".agentcli" / "agents"
    agents.mkdir(parents=True)
    limit = f"maxTurns: {max_turns}\n" if max_turns is not None else ""
    (agents / "looper.md").write_text(
        f"---\nname: looper\ndescription: Loops.\ntools: Glob\n{limit}---\n{LOOPER}\n"
    )


def starts_the_looper(body: dict[str, Any]) -> Any:
    if LOOPER in system_of(body):
        return looping_subagent(body)
    if results_in(body):
        return reply(text("Done."))
    return reply(tool_use("Task", task("looper", "Loop.", "loop"), id="toolu_loop"))


async def looper_requests(fake_api, root: Path, max_turns: int | None) -> tuple[int, str]:
    fake_api.default = starts_the_looper
    engine = engine_for(fake_api, root)
    engine.config.max_turns = max_turns
    events = await asyncio.wait_for(run(engine, "loop"), GUARD_S)
    assert_all_requests_valid(fake_api)
    assert isinstance(events[-1], TurnEnded)
    (finished,) = [e for e in events if isinstance(e, ToolCallFinished)]
    sub_ends = [
        e.event for e in events if isinstance(e, SubagentEvent) and isinstance(e.event, TurnEnded)
    ]
    assert [e.turns for e in sub_ends] == [
        sum(LOOPER in system_of(r.body) for r in fake_api.requests)
    ]
    assert finished.display is not None and finished.display.status == "turn limit reached"
    content = finished.result["content"]
    return sub_ends[0].turns, content if isinstance(content, str) else json.dumps(content)


@pytest.mark.parametrize(
    ("own", "run_limit", "turns"),
    [
        ("2", None, 2),  # the agent file's own bound
        ("10", 3, 3),  # the run's is lower
        ("3", 5, 3),  # the agent file's is lower
    ],
)
async def test_an_agent_files_max_turns_and_the_runs_whichever_is_lower(
    fake_api, tmp_path, own, run_limit, turns
):
    looper_file(tmp_path, own)

    done, result = await looper_requests(fake_api, tmp_path, run_limit)

    assert done == turns
    assert f"stopped at its limit of {turns} turns" in result


async def test_with_no_limit_given_a_subagent_stops_at_the_default(fake_api, tmp_path):
    looper_file(tmp_path, None)

    done, result = await looper_requests(fake_api, tmp_path, None)

    assert done == DEFAULT_SUBAGENT_TURNS
    assert f"stopped at its limit of {DEFAULT_SUBAGENT_TURNS} turns" in result


@pytest.mark.parametrize("bad", ["0", "-1", "many", "true", "2.5", "[3]"])
def test_a_max_turns_that_is_not_a_positive_whole_number_is_refused(tmp_path, bad):
    looper_file(tmp_path, bad)

    catalog = load_agents(tmp_path)

    assert catalog.get("looper") is None
    (problem,) = catalog.problems
    assert "looper.md" in problem and "maxTurns" in problem and "skipped" in problem


def test_an_agent_files_max_turns_is_read(tmp_path):
    looper_file(tmp_path, "7")

    assert load_agents(tmp_path).get("looper").max_turns == 7
