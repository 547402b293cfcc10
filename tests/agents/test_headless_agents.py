"""`agentcli -p --output-format stream-json` with subagents and a todo list (a real subprocess)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakeapi import reply, text, tool_use
from tests.integration.test_headless_cli import agentcli

TODOS = [
    {"content": "Read the code", "status": "completed", "activeForm": "Reading the code"},
    {"content": "Fix the bug", "status": "in_progress", "activeForm": "Fixing the bug"},
    {"content": "Run the tests", "status": "pending", "activeForm": "Running the tests"},
]


def stream(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines()]


def test_a_subagents_messages_carry_the_task_calls_id(fake_api, project):
    task = {"description": "find A", "prompt": "Where is A?", "subagent_type": "Explore"}
    fake_api.enqueue(reply(tool_use("Task", task, id="toolu_task"), usage={"output_tokens": 11}))
    glob = tool_use("Glob", {"pattern": "*.py"}, id="toolu_glob")
    fake_api.enqueue(reply(glob, usage={"output_tokens": 13}))
    fake_api.enqueue(reply(text("A is in a.py."), usage={"output_tokens": 17}))
    fake_api.enqueue(reply(text("The subagent found A in a.py."), usage={"output_tokens": 19}))

    done = agentcli(["-p", "where is A?", "--output-format", "stream-json"], project, fake_api)

    assert done.returncode == 0, done.stderr
    lines = stream(done.stdout)
    said = [
        (m["type"], m["parent_tool_use_id"]) for m in lines if m["type"] in ("assistant", "user")
    ]
    assert said == [
        ("assistant", None),  # the Task call
        ("assistant", "toolu_task"),  # the subagent's Glob call
        ("user", "toolu_task"),  # its result
        ("assistant", "toolu_task"),  # its answer
        ("user", None),  # the Task call's result: that answer
        ("assistant", None),
    ]
    task_result = lines[-3]["message"]["content"][0]
    assert (task_result["tool_use_id"], task_result["content"]) == ("toolu_task", "A is in a.py.")
    sub_requests = [r.body for r in fake_api.requests[1:3]]
    assert all([t["name"] for t in b["tools"]] == ["Glob", "Grep", "Read"] for b in sub_requests)
    result = lines[-1]
    assert result["result"] == "The subagent found A in a.py."
    answered = [r.body for r in fake_api.requests]
    assert len(answered) == 4
    assert "Task" in lines[0]["tools"] and "TodoWrite" in lines[0]["tools"]
    assert result["usage"]["output_tokens"] == 11 + 13 + 17 + 19  # the subagent's count too


def test_todowrite_appears_as_the_tool_call_and_its_confirmation(fake_api, project):
    fake_api.enqueue(
        reply(text("Planning."), tool_use("TodoWrite", {"todos": TODOS}, id="toolu_td"))
    )
    fake_api.enqueue(reply(text("Working on it.")))

    done = agentcli(["-p", "fix the bug", "--output-format", "stream-json"], project, fake_api)

    assert done.returncode == 0, done.stderr
    lines = stream(done.stdout)
    call = lines[1]["message"]["content"][1]
    assert (call["name"], call["input"]) == ("TodoWrite", {"todos": TODOS})
    result = lines[2]["message"]["content"][0]
    assert result["tool_use_id"] == "toolu_td" and "1/3 done" in result["content"]
    assert not result.get("is_error")


def test_a_bad_todo_list_is_refused_with_the_reason(fake_api, project):
    bad = [{"content": "x", "status": "started", "activeForm": "x-ing"}]
    fake_api.enqueue(reply(tool_use("TodoWrite", {"todos": bad}, id="toolu_bad")))
    fake_api.enqueue(reply(text("Fixed my list.")))

    done = agentcli(["-p", "go", "--output-format", "stream-json"], project, fake_api)

    result = stream(done.stdout)[2]["message"]["content"][0]
    assert result["is_error"] and "todos.0.status" in result["content"]


def test_a_shadowed_or_broken_agent_file_is_reported_at_start(fake_api, project):
    def agent_file(folder: str, name: str, text: str) -> Path:
        path = project / folder / "agents" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    claude = agent_file(".claude", "reviewer.md", "---\nname: reviewer\ndescription: C.\n---\nC.")
    ours = agent_file(".agentcli", "reviewer.md", "---\nname: reviewer\ndescription: A.\n---\nA.")
    broken = agent_file(".agentcli", "broken.md", "---\nname: b\ndescription: [unclosed\n---\nB.")
    fake_api.enqueue(reply(text("Hello.")))

    done = agentcli(["-p", "hi"], project, fake_api)

    assert done.returncode == 0, done.stderr
    assert f"{claude}: the agent `reviewer` is already defined by {ours}" in done.stderr
    assert f"{broken}: broken front matter:" in done.stderr and "(line 3)" in done.stderr
    tools = {t["name"]: t for t in fake_api.requests[0].body["tools"]}
    assert "- reviewer: A." in tools["Task"]["description"]
    assert "- b:" not in tools["Task"]["description"]
