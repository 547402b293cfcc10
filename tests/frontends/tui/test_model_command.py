"""`/model` with providers from the settings: listing, switching, refusing."""

from __future__ import annotations

import json
import os
from pathlib import Path

from agentcli.frontends.tui.app import AgentApp
from agentcli.wiring.bootstrap import Options, build_engine
from tests.fakeapi import reply, text
from tests.frontends.tui.helpers import idle, send, wait_for


def last_output(app) -> str:
    widget = app.conversation.children[-1]
    return getattr(widget, "source", None) or str(widget.render())


def app_with_providers(root: Path, server) -> AgentApp:
    providers = {
        "local": {
            "type": "openai-chat",
            "baseUrl": server.base_url,
            "models": {"configured-one": {"contextWindow": 8192}},
        },
        "down": {"type": "openai-chat", "baseUrl": "http://127.0.0.1:9/v1"},
        "keyed": {"type": "openai-chat", "baseUrl": server.base_url, "apiKeyEnv": "UNSET_KEY"},
    }
    settings = Path(os.environ["AGENTCLI_HOME"]) / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"providers": providers}))
    engine = build_engine(Options(root, model="local/qwen3-coder", trusted=True), provider=None)
    return AgentApp(cwd=root, engine=engine, remember_theme=False)


async def test_model_lists_each_provider_and_says_which_could_not_answer(tmp_path, fake_openai):
    app = app_with_providers(tmp_path, fake_openai)
    async with app.run_test(size=(120, 50)) as pilot:
        await wait_for(pilot, lambda: app.engine.provider is not None, "the provider")
        await send(pilot, "/model ")  # the space: past the completion popup
        await wait_for(pilot, lambda: "**down**" in last_output(app), "the listing")
        shown = last_output(app)
        assert "`local/configured-one`" in shown  # from the settings
        assert "`local/gpt-oss`" in shown and "`local/qwen3-coder`" in shown  # from the server
        assert "could not list the server's models (could not connect)" in shown


async def test_switching_to_a_provider_model_sends_there_and_cost_is_unknown(tmp_path, fake_openai):
    fake_openai.enqueue(reply(text("Hello from gpt-oss.")))
    app = app_with_providers(tmp_path, fake_openai)
    async with app.run_test(size=(120, 50)) as pilot:
        await wait_for(pilot, lambda: app.engine.provider is not None, "the provider")
        await send(pilot, "/model local/gpt-oss")
        await wait_for(pilot, lambda: app.engine.config.model == "local/gpt-oss", "the switch")
        await send(pilot, "hi")
        await idle(pilot, app)
        assert fake_openai.requests[-1].body["model"] == "gpt-oss"
        assert "cost unknown" in str(app.status_bar.render())
        await send(pilot, "/cost")
        await pilot.pause()
        assert "**Total cost:** unknown" in last_output(app)


async def test_an_unknown_provider_or_a_missing_key_is_refused_and_the_model_kept(
    tmp_path, fake_openai
):
    app = app_with_providers(tmp_path, fake_openai)
    async with app.run_test(size=(120, 50)) as pilot:
        await wait_for(pilot, lambda: app.engine.provider is not None, "the provider")
        await send(pilot, "/model elsewhere/gpt-5")
        await wait_for(pilot, lambda: "elsewhere" in last_output(app), "the refusal")
        assert app.engine.config.model == "local/qwen3-coder"
        assert "Unknown provider 'elsewhere'" in last_output(app)
        await send(pilot, "/model keyed/gpt-oss")
        await wait_for(pilot, lambda: "UNSET_KEY" in last_output(app), "the refusal")
        assert app.engine.config.model == "local/qwen3-coder"
