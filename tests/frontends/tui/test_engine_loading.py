"""The app builds its engine and loads the provider in a thread, and hands both to
its own thread: no other thread writes the engine's state."""

from __future__ import annotations

import threading

from agentcli.cli.main import build_parser
from agentcli.engine.query_engine import QueryEngine
from agentcli.frontends.tui.app import AgentApp
from tests.frontends.tui.helpers import wait_for


async def test_the_loaded_provider_is_handed_over_on_the_apps_thread(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")  # the provider builds; nothing is sent
    connected_on: list[threading.Thread] = []
    connect = QueryEngine.connect

    def watched(engine, provider):
        connected_on.append(threading.current_thread())
        connect(engine, provider)

    monkeypatch.setattr(QueryEngine, "connect", watched)
    app = AgentApp(build_parser().parse_args([]), cwd=tmp_path, remember_theme=False)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.ready, "the provider")

        assert connected_on == [threading.main_thread()]
        assert app.engine.provider is not None
        assert "starting" not in str(app.status_bar.render())
