"""`/effort` in the app: the level shows in the status bar and goes with the next
request to the fake Messages API, in the shape the model takes."""

from __future__ import annotations

from pathlib import Path

from agentcli.frontends.tui.app import AgentApp
from agentcli.wiring.bootstrap import Options, build_engine
from tests.fakeapi import reply, text
from tests.frontends.tui.helpers import idle, send, wait_for


def last_output(app) -> str:
    widget = app.conversation.children[-1]
    return getattr(widget, "source", None) or str(widget.render())


def app_for(root: Path, server, monkeypatch, model: str) -> AgentApp:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("AGENTCLI_MAX_RETRIES", "0")
    engine = build_engine(Options(root, model=model, trusted=True), provider=None)
    return AgentApp(cwd=root, engine=engine, remember_theme=False)


async def test_effort_is_set_shown_and_sent_then_cleared(tmp_path, fake_api, monkeypatch):
    fake_api.enqueue(reply(text("one")))
    fake_api.enqueue(reply(text("two")))
    app = app_for(tmp_path, fake_api, monkeypatch, "claude-opus-4-6")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.engine.provider is not None, "the provider")
        await send(pilot, "/effort ")
        await wait_for(pilot, lambda: "Effort: auto" in last_output(app), "the current level")

        await send(pilot, "/effort xhigh")
        await wait_for(pilot, lambda: "Effort set to" in last_output(app), "the change")
        assert "adaptive thinking at effort `high`" in last_output(app)  # 4.6: no xhigh
        assert "claude-opus-4-6 · effort xhigh" in str(app.status_bar.render())
        await send(pilot, "hi")
        await idle(pilot, app)
        sent = fake_api.requests[-1].body
        assert sent["thinking"] == {"type": "adaptive"}
        assert sent["output_config"] == {"effort": "high"}

        await send(pilot, "/effort turbo")
        await wait_for(pilot, lambda: "not an effort level" in last_output(app), "the refusal")
        assert app.engine.config.reasoning.effort == "xhigh"

        await send(pilot, "/effort auto")
        await wait_for(pilot, lambda: "Effort set to auto" in last_output(app), "the reset")
        assert "effort" not in str(app.status_bar.render())
        await send(pilot, "again")
        await idle(pilot, app)
        assert "output_config" not in fake_api.requests[-1].body
        assert "thinking" not in fake_api.requests[-1].body
