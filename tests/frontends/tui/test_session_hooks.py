"""SessionStart and SessionEnd hooks in the app, as `-p` and `/clear` already run them.

SessionStart runs once the engine is ready and before the first prompt goes, so
the context a hook prints travels with that prompt; SessionEnd runs when the
person leaves the app.
"""

from __future__ import annotations

from typing import Any

from tests.engine.scripted import Response, ScriptedProvider, text
from tests.frontends.tui.helpers import idle, make_app, wait_for
from tests.hooks.helpers import hook_script, payloads


def session_hooks(folder, start_body: str = "") -> dict[str, Any]:
    def entry(event: str, body: str = "") -> list[dict[str, Any]]:
        return [{"hooks": [{"type": "command", "command": hook_script(folder, event, body)}]}]

    return {
        "SessionStart": entry("SessionStart", start_body),
        "SessionEnd": entry("SessionEnd"),
    }


async def test_the_app_runs_session_start_before_the_first_prompt_and_session_end_on_exit(
    tmp_path,
):
    hooks_dir = tmp_path / "hooks"
    hooks_dir.mkdir()
    hooks = session_hooks(hooks_dir, start_body="print('Team rule: say hi first.')")
    provider = ScriptedProvider(Response([text("Hi.")]))
    app = make_app(provider, tmp_path, engine_kw={"hooks": hooks}, first_prompt="hello")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: provider.requests, "the first request")
        await idle(pilot, app)
        started = payloads(hooks_dir, "SessionStart")
        assert [(p["hook_event_name"], p["source"]) for p in started] == [
            ("SessionStart", "startup")
        ]
        first = provider.requests[0].messages[0]["content"]
        assert first[0] == {"type": "text", "text": "hello"}
        assert any("Team rule: say hi first." in block.get("text", "") for block in first[1:])
        assert payloads(hooks_dir, "SessionEnd") == []
    ended = payloads(hooks_dir, "SessionEnd")
    assert [(p["hook_event_name"], p["reason"]) for p in ended] == [
        ("SessionEnd", "prompt_input_exit")
    ]
