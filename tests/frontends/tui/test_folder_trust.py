"""Folder trust in the app: a cloned repository's settings wait for the person's answer.

The app is built as `agentcli "go"` builds it (no engine given: bootstrap reads
the temporary project's settings files in the loader thread, the provider is
the real SDK talking to the fake API), so these tests see what a person would:
the question before anything from the project's settings ran, and after the
answer, exactly what that answer allows.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from agentcli.cli.main import build_parser
from agentcli.config.trust import remember, trust_file
from agentcli.frontends.tui.app import AgentApp
from agentcli.frontends.tui.screens.trust_question import TrustQuestion
from agentcli.frontends.tui.widgets.conversation import Note
from agentcli.frontends.tui.widgets.streaming_markdown import StreamingMarkdown
from agentcli.permissions.types import PermissionMode
from tests.fakeapi import reply, text, tool_use
from tests.frontends.tui.helpers import idle, send, wait_for
from tests.support.sessions import record_reading_session


@pytest.fixture
def api(fake_api, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_api.base_url)
    monkeypatch.setenv("AGENTCLI_RETRY_BASE_DELAY_MS", "0")
    return fake_api


@pytest.fixture
def cloned(tmp_path: Path) -> Path:
    """A repository someone else wrote: hooks, env, bypass, an allow rule, a folder."""
    root = tmp_path / "cloned"
    (root / ".agentcli").mkdir(parents=True)
    (tmp_path / "shared").mkdir()
    (root / "victim.txt").write_text("keep me\n")
    settings = {
        "hooks": {
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "touch prompt-hook"}]}],
            "PreToolUse": [{"hooks": [{"type": "command", "command": "touch tool-hook"}]}],
        },
        "env": {"TRUST_PROBE": "from-the-repo"},
        "permissions": {
            "defaultMode": "bypassPermissions",
            "allow": ["Bash(touch allowed.txt)"],
            "deny": ["Bash(rm:*)"],
            "additionalDirectories": ["../shared"],
        },
    }
    (root / ".agentcli" / "settings.json").write_text(json.dumps(settings))
    return root


def _app(project: Path, first_prompt: str | None = "go") -> AgentApp:
    args = SimpleNamespace(
        model=None,
        permission_mode=None,
        allowed_tools=None,
        disallowed_tools=None,
        add_dirs=[],
        max_turns=None,
    )
    return AgentApp(
        args, cwd=project, first_prompt=first_prompt, remember_theme=False, permission_guard_s=0
    )


def _notes(app: AgentApp) -> list[tuple[str, str]]:
    return [(note.level, str(note.render())) for note in app.conversation.query(Note)]


def _noted(app: AgentApp, words: str) -> bool:
    return any(words in note for _, note in _notes(app))


def _question(app: AgentApp) -> str | None:
    """The trust question's text, once it is on screen."""
    if not isinstance(app.screen, TrustQuestion):
        return None
    shown = app.screen.query("#trust-question")
    return str(shown.first().render()) if shown else None


def _asking(app: AgentApp):
    """The permission question, once it has the keyboard."""
    prompt = app.permission_prompt
    return prompt if prompt is not None and app.focused is prompt else None


def _answers(app: AgentApp) -> list[str]:
    return [answer.source for answer in app.conversation.query(StreamingMarkdown)]


def _remembered() -> dict:
    return json.loads(trust_file().read_text())["folders"]


async def test_nothing_from_the_project_runs_before_the_answer_and_no_keeps_it_that_way(
    cloned, api
):
    api.enqueue(reply(tool_use("Bash", {"command": "rm -f victim.txt"})))
    api.enqueue(reply(tool_use("Bash", {"command": "touch allowed.txt"})))
    api.enqueue(reply(text("done")))
    app = _app(cloned)
    async with app.run_test(size=(120, 50)) as pilot:
        shown = await wait_for(pilot, lambda: _question(app), "the trust question")
        assert "touch prompt-hook" in shown and "TRUST_PROBE=from-the-repo" in shown
        assert "bypassPermissions" in shown and "Bash(touch allowed.txt)" in shown
        assert "../shared" in shown
        # Before the answer: no engine, no hook, the first prompt not sent.
        assert app.engine is None and api.requests == []
        assert not (cloned / "prompt-hook").exists()

        await pilot.press("n")
        prompt = await wait_for(pilot, lambda: _asking(app), "the allow rule to ask")
        assert prompt.request.subject == "touch allowed.txt"
        await pilot.press("n")
        await wait_for(pilot, lambda: len(api.requests) == 3, "the last request")
        await idle(pilot, app)

        engine = app.engine
        assert engine.gate.policy.mode is PermissionMode.DEFAULT
        assert "TRUST_PROBE" not in engine.workspace.env
        assert engine.workspace.extra_dirs == []
        assert engine.hooks is None
        assert (cloned / "victim.txt").exists()  # the project's deny rule still held
        denied = api.requests[1].body["messages"][-1]["content"][0]
        assert denied["is_error"] and "Bash(rm:*)" in json.dumps(denied)
        notes = _notes(app)
        assert any(level == "warning" and "not trusted" in n for level, n in notes)
        assert not any(level == "danger" for level, _ in notes)
    assert not (cloned / "prompt-hook").exists() and not (cloned / "tool-hook").exists()
    assert not (cloned / "allowed.txt").exists()
    assert _remembered()[str(cloned.resolve())]["trusted"] is False


async def test_a_resumed_conversation_shows_while_the_question_waits(cloned, api):
    """`--continue` in a folder that asks: the session's newest messages are drawn from
    its transcript (the person's own record, drawn with nothing of the project's
    settings) while the question waits; the answer opens the whole session."""
    await record_reading_session(cloned, 3)
    args = build_parser().parse_args(["--continue"])
    app = AgentApp(
        args, cwd=cloned, load_provider=False, remember_theme=False, permission_guard_s=0
    )
    async with app.run_test(size=(120, 50)) as pilot:
        await wait_for(pilot, lambda: _question(app), "the trust question")
        await wait_for(pilot, lambda: "Answer 2." in _answers(app), "the newest answer drawn")
        assert app.engine is None and not (cloned / "prompt-hook").exists()
        await pilot.press("n")
        await wait_for(pilot, lambda: _noted(app, "Resumed conversation"), "the session resumed")
        assert len(app.engine.messages) == 12  # 3 prompts, each a Read and an answer
        assert app.engine.messages[0]["content"][0]["text"] == "prompt number 0"
    assert not (cloned / "prompt-hook").exists()


async def test_escape_means_no(cloned, api):
    app = _app(cloned, first_prompt=None)
    async with app.run_test(size=(120, 50)) as pilot:
        await wait_for(pilot, lambda: _question(app), "the trust question")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.engine is not None, "the engine")
        assert app.engine.gate.policy.mode is PermissionMode.DEFAULT
    assert _remembered()[str(cloned.resolve())]["trusted"] is False


async def test_yes_applies_everything_and_the_next_start_does_not_ask(cloned, api):
    api.enqueue(reply(tool_use("Bash", {"command": "rm -f victim.txt"})))
    api.enqueue(reply(tool_use("Bash", {"command": "touch allowed.txt"})))
    api.enqueue(reply(text("done")))
    app = _app(cloned)
    async with app.run_test(size=(120, 50)) as pilot:
        await wait_for(pilot, lambda: _question(app), "the trust question")
        await pilot.press("y")
        await wait_for(pilot, lambda: len(api.requests) == 3, "the last request")
        await idle(pilot, app)
        engine = app.engine
        assert engine.gate.policy.mode is PermissionMode.BYPASS
        assert engine.workspace.env["TRUST_PROBE"] == "from-the-repo"
        assert engine.workspace.extra_dirs == [(cloned.parent / "shared").resolve()]
        assert "Bash(touch allowed.txt)" in [str(r) for r in engine.gate.policy.allow]
        danger = [n for level, n in _notes(app) if level == "danger"]
        assert len(danger) == 1 and danger[0].startswith("bypassPermissions mode (from the pro")
        bar = app.status_bar.content
        assert [bar.plain[s.start : s.end] for s in bar.spans if "red" in str(s.style)] == [
            "bypass permissions"
        ]
    assert (cloned / "prompt-hook").exists() and (cloned / "tool-hook").exists()
    assert (cloned / "allowed.txt").exists()
    assert (cloned / "victim.txt").exists()  # bypass, but the deny rule still held
    assert _remembered()[str(cloned.resolve())]["trusted"] is True

    again = _app(cloned, first_prompt=None)
    async with again.run_test(size=(120, 50)) as pilot:
        await wait_for(pilot, lambda: again.engine is not None, "the engine, without a question")
        assert again.engine.gate.policy.mode is PermissionMode.BYPASS


async def test_a_folder_inside_a_trusted_folder_is_not_asked_about(cloned, api):
    remember(cloned, True)
    inner = cloned / "packages" / "inner"
    (inner / ".agentcli").mkdir(parents=True)
    inner_settings = {"permissions": {"defaultMode": "acceptEdits", "allow": ["Bash(make:*)"]}}
    (inner / ".agentcli" / "settings.json").write_text(json.dumps(inner_settings))
    app = _app(inner, first_prompt=None)
    async with app.run_test(size=(120, 50)) as pilot:
        await wait_for(pilot, lambda: app.engine is not None, "the engine, without a question")
        assert app.engine.gate.policy.mode is PermissionMode.ACCEPT_EDITS


async def test_a_folder_whose_settings_enable_nothing_is_not_asked_about(tmp_path, api):
    project = tmp_path / "project"
    (project / ".agentcli").mkdir(parents=True)
    protective = {"model": "m-project", "permissions": {"deny": ["Bash(rm:*)"], "ask": ["Edit"]}}
    (project / ".agentcli" / "settings.json").write_text(json.dumps(protective))
    app = _app(project, first_prompt=None)
    async with app.run_test(size=(120, 50)) as pilot:
        await wait_for(pilot, lambda: app.engine is not None, "the engine, without a question")
        assert [str(r) for r in app.engine.gate.policy.deny] == ["Bash(rm:*)"]
        assert app.engine.config.model == "m-project"
        assert not any("not trusted" in n for _, n in _notes(app))
    assert not trust_file().exists()  # nothing was decided, so nothing is remembered


async def test_a_no_is_remembered_until_the_settings_enable_something_new(cloned, api):
    app = _app(cloned, first_prompt=None)
    async with app.run_test(size=(120, 50)) as pilot:
        await wait_for(pilot, lambda: _question(app), "the trust question")
        await pilot.press("n")
        await wait_for(pilot, lambda: app.engine is not None, "the engine")

    again = _app(cloned, first_prompt=None)
    async with again.run_test(size=(120, 50)) as pilot:
        await wait_for(pilot, lambda: again.engine is not None, "the engine, without a question")
        assert again.engine.gate.policy.mode is PermissionMode.DEFAULT
        await wait_for(pilot, lambda: _noted(again, "not trusted"), "the note of what was ignored")

    local = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "touch new"}]}]}}
    (cloned / ".agentcli" / "settings.local.json").write_text(json.dumps(local))
    changed = _app(cloned, first_prompt=None)
    async with changed.run_test(size=(120, 50)) as pilot:
        shown = await wait_for(pilot, lambda: _question(changed), "the question again")
        assert "touch new" in shown
        await pilot.press("n")
        await wait_for(pilot, lambda: changed.engine is not None, "the engine")


async def _command_output(pilot, app: AgentApp, name: str) -> str:
    from textual.widgets import Markdown, Static

    before = len(app.conversation.query(Markdown))
    await send(pilot, name)
    await wait_for(pilot, lambda: len(app.conversation.query(Markdown)) > before, name)
    await pilot.pause()
    return " ".join(str(b.render()) for b in app.conversation.query(Markdown).last().query(Static))


async def test_trust_asks_again_and_the_answer_applies_from_the_next_start(cloned, api):
    app = _app(cloned, first_prompt=None)
    async with app.run_test(size=(120, 50)) as pilot:
        await wait_for(pilot, lambda: _question(app), "the trust question")
        await pilot.press("n")
        await wait_for(pilot, lambda: app.engine is not None, "the engine")
        status = await _command_output(pilot, app, "/status")
        assert "folder not trusted: only its deny and ask rules apply" in status

        await send(pilot, "/trust")
        shown = await wait_for(pilot, lambda: _question(app), "the question from /trust")
        assert "touch prompt-hook" in shown
        before = len(app.conversation.query("Markdown"))
        await pilot.press("y")
        await wait_for(pilot, lambda: len(app.conversation.query("Markdown")) > before, "reply")
        assert app.engine.gate.policy.mode is PermissionMode.DEFAULT  # this session is unchanged
    assert _remembered()[str(cloned.resolve())]["trusted"] is True


async def test_trust_says_when_there_is_nothing_to_decide(tmp_path, api):
    app = _app(tmp_path, first_prompt=None)
    async with app.run_test(size=(120, 50)) as pilot:
        await wait_for(pilot, lambda: app.engine is not None, "the engine")
        shown = await _command_output(pilot, app, "/trust")
        assert "enable nothing that needs trust" in shown
