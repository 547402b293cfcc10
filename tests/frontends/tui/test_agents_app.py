"""The app with subagents and a todo list, against the fake Messages API (Pilot)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from agentcli.agents.definitions import load_agents
from agentcli.frontends.tui.widgets.subagent_pane import SubagentProgress
from agentcli.permissions.types import PermissionMode
from agentcli.providers.anthropic import AnthropicProvider
from agentcli.providers.retry import RetryPolicy
from agentcli.tools.glob import GlobTool
from agentcli.tools.read import ReadTool
from agentcli.tools.todo_write import TodoWriteTool
from agentcli.tools.write import WriteTool
from tests.fakeapi import hang, reply, text, tool_use
from tests.frontends.tui.helpers import idle, make_app, question_ready, send, wait_for

GUARD_S = 15

_providers: list[AnthropicProvider] = []


@pytest.fixture(autouse=True)
async def close_providers():
    yield
    while _providers:
        await _providers.pop().aclose()


def app_for(server, root: Path, mode: PermissionMode = PermissionMode.BYPASS):
    provider = AnthropicProvider(
        api_key="test-key", base_url=server.base_url, retry=RetryPolicy(max_retries=0)
    )
    _providers.append(provider)
    tools = [ReadTool(), WriteTool(), GlobTool(), TodoWriteTool()]
    return make_app(provider, root, tools, mode=mode, engine_kw={"agents": load_agents(root)})


def todo(content: str, status: str, active: str) -> dict[str, str]:
    return {"content": content, "status": status, "activeForm": active}


def task(agent: str, description: str, prompt: str) -> dict[str, Any]:
    return {"description": description, "prompt": prompt, "subagent_type": agent}


def rendered(widget) -> str:
    return str(widget.render())


async def test_the_todo_list_is_pinned_above_the_prompt_with_the_current_item_highlighted(
    fake_api, tmp_path
):
    first = [
        todo("Read the code", "completed", "Reading the code"),
        todo("Fix the bug", "in_progress", "Fixing the bug"),
        todo("Run the tests", "pending", "Running the tests"),
    ]
    done = [todo(t["content"], "completed", t["activeForm"]) for t in first]
    finishing = reply(text("Fixed."), tool_use("TodoWrite", {"todos": done}, id="toolu_t2"))
    working = hang(finishing, after_events=2)
    fake_api.enqueue(reply(tool_use("TodoWrite", {"todos": first}, id="toolu_t1")))
    fake_api.enqueue(working)
    fake_api.enqueue(reply(text("All done.")))
    app = app_for(fake_api, tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "fix it")
        panel = app.todo_panel
        await wait_for(pilot, lambda: panel.display, "the todo list")
        assert panel.parent.id == "bottom" and panel in app.query("#bottom > *")
        bottom = list(app.query_one("#bottom").children)
        assert bottom.index(panel) < bottom.index(app.prompt)  # pinned above the prompt
        shown = panel.render()
        assert str(shown).splitlines() == [
            "☒ Read the code",
            "▶ Fixing the bug",
            "☐ Run the tests",
        ]
        highlighted = [shown.plain[s.start : s.end] for s in shown.spans if s.style.reverse]
        assert highlighted == ["Fixing the bug"]
        pane = app.conversation.pane("toolu_t1")
        await wait_for(pilot, lambda: pane.summary, "the TodoWrite pane's summary")
        assert pane.summary == "Updated the todo list (1/3 done)"
        await asyncio.to_thread(working.reached.wait, GUARD_S)
        working.release()
        await idle(pilot, app)
        assert app.conversation.last_answer_source == "All done."
        assert not panel.display  # every item done: nothing left to pin


async def test_a_subagent_shows_its_live_progress_then_folds_to_one_line(fake_api, tmp_path):
    (tmp_path / "a.py").write_text("A = 1\n")
    held = hang(reply(text("A is in a.py.")), after_events=4)  # one text delta
    fake_api.enqueue(
        reply(tool_use("Task", task("Explore", "find A", "Where is A?"), id="toolu_k"))
    )
    fake_api.enqueue(reply(tool_use("Glob", {"pattern": "*.py"}, id="toolu_g")))
    fake_api.enqueue(held)
    fake_api.enqueue(reply(text("Found it in a.py.")))
    app = app_for(fake_api, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "where is A?")
        pane = await wait_for(pilot, lambda: app.conversation.pane("toolu_k"), "the Task pane")
        assert app.conversation.pane("toolu_g") is None  # the subagent's calls stay in its pane

        def progress_after_glob():
            found = pane.query(SubagentProgress)
            return found and found.first().tool_uses == 1 and found.first()

        progress = await wait_for(pilot, progress_after_glob, "the subagent's progress")
        assert rendered(progress).startswith("⎿  Explore: find A · ")
        assert "1 tool use · " in rendered(progress) and rendered(progress).endswith(" tokens")
        await asyncio.to_thread(held.reached.wait, GUARD_S)
        await wait_for(pilot, lambda: "Writing" in rendered(progress), "the subagent writing")
        held.release()
        await idle(pilot, app)
        assert not pane.query(SubagentProgress)  # folded
        assert pane.state == "done"
        assert pane.summary.startswith("Explore: find A · 1 tool use · ")
        assert app.conversation.last_answer_source == "Found it in a.py."


async def test_esc_during_a_subagent_stops_it_and_its_pane_says_so(fake_api, tmp_path):
    held = hang(reply(text("never")), after_events=2)
    fake_api.enqueue(reply(tool_use("Task", task("Explore", "look", "Look."), id="toolu_k")))
    fake_api.enqueue(held)
    app = app_for(fake_api, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "look")
        await asyncio.to_thread(held.reached.wait, GUARD_S)
        pane = app.conversation.pane("toolu_k")
        await wait_for(pilot, lambda: pane.query(SubagentProgress), "the subagent's progress")
        await pilot.press("escape")
        await idle(pilot, app)
        assert pane.state == "interrupted" and not pane.query(SubagentProgress)
        await asyncio.to_thread(fake_api.requests[-1].finished.wait, GUARD_S)
        assert fake_api.requests[-1].outcome == "client_disconnected"


async def test_a_subagents_permission_question_says_which_subagent_asks(fake_api, tmp_path):
    write = {"file_path": str(tmp_path / "b.py"), "content": "B = 2\n"}
    fake_api.enqueue(
        reply(tool_use("Task", task("general-purpose", "write b", "Write b.py."), id="toolu_k"))
    )
    fake_api.enqueue(reply(tool_use("Write", write, id="toolu_w")))
    fake_api.enqueue(reply(text("It was refused.")))
    fake_api.enqueue(reply(text("The subagent could not write.")))
    app = app_for(fake_api, tmp_path, PermissionMode.DEFAULT)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "write b")
        prompt = await wait_for(pilot, lambda: question_ready(app), "the question")
        title = rendered(prompt.query_one(".permission-title"))
        assert "(asked by subagent 'write b' (general-purpose))" in title
        await pilot.press("n")
        await idle(pilot, app)
        assert not (tmp_path / "b.py").exists()
        assert app.conversation.last_answer_source == "The subagent could not write."


async def test_an_unfinished_list_stays_between_turns_and_clear_takes_it_down(fake_api, tmp_path):
    items = [todo("Fix the bug", "in_progress", "Fixing the bug")]
    fake_api.enqueue(reply(tool_use("TodoWrite", {"todos": items}, id="toolu_t")))
    fake_api.enqueue(reply(text("I need your answer first.")))
    app = app_for(fake_api, tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "fix it")
        await idle(pilot, app)
        assert app.todo_panel.display and app.todo_panel.current.content == "Fix the bug"
        await send(pilot, "/clear")
        await wait_for(pilot, lambda: not app.todo_panel.display, "the list to go")


async def test_the_progress_line_names_the_tool_running_now_and_counts_tokens():
    from textual.app import App

    from agentcli.core.usage import Usage
    from agentcli.engine.events import AssistantMessage, ToolCallRunning, ToolCallStarted

    class Host(App[None]):
        def compose(self):
            yield SubagentProgress("Explore", "find \x1b[2JA")

    async with Host().run_test() as pilot:
        progress = pilot.app.query_one(SubagentProgress)
        assert rendered(progress) == "⎿  Explore: find ␛[2JA · Starting · 0 tool uses · 0 tokens"
        answer = {"role": "assistant", "content": []}
        progress.see(AssistantMessage(answer, Usage(1000, 234), "tool_use", "m"))
        progress.see(ToolCallStarted("t1", "Grep", {"pattern": "def main"}))
        progress.see(ToolCallStarted("t2", "Read", {"file_path": "a.py"}, "a.py"))
        progress.see(ToolCallRunning("t1", "Grep"))
        assert rendered(progress) == (
            "⎿  Explore: find ␛[2JA · Running Grep(def main) · 2 tool uses · 1.2k tokens"
        )
