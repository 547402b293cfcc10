"""The app's idle notification: once the prompt has waited after an answer, the
Notification hooks run with `notification_type: "idle_prompt"`; the next message
cancels a pending one. (The wait is 60 s; the tests set it to a moment or to an hour.)"""

from __future__ import annotations

from tests.engine.scripted import Response, ScriptedProvider, text
from tests.frontends.tui.helpers import idle, make_app, wait_for
from tests.hooks.helpers import hook_script, one, payloads


async def test_the_notification_hook_hears_when_the_prompt_has_waited(tmp_path):
    hooks_dir = tmp_path / "hooks"
    hooks_dir.mkdir()
    hooks = one("Notification", hook_script(hooks_dir, "note"), "idle_prompt")
    provider = ScriptedProvider(Response([text("Done.")]))
    app = make_app(provider, tmp_path, engine_kw={"hooks": hooks}, first_prompt="hello")
    app.turns.idle.delay_s = 0.01
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: payloads(hooks_dir, "note"), "the idle notification")
        (note,) = payloads(hooks_dir, "note")
        assert note["hook_event_name"] == "Notification"
        assert note["notification_type"] == "idle_prompt"
        assert note["message"] == "agentcli is waiting for your input"
        assert note["session_id"] and note["cwd"] == str(tmp_path)
        assert not app.turns.idle.armed  # once per wait


async def test_the_next_message_cancels_a_pending_idle_notification(tmp_path):
    hooks_dir = tmp_path / "hooks"
    hooks_dir.mkdir()
    hooks = one("Notification", hook_script(hooks_dir, "note"))
    provider = ScriptedProvider(Response([text("One.")]), Response([text("Two.")]))
    app = make_app(provider, tmp_path, engine_kw={"hooks": hooks}, first_prompt="first")
    app.turns.idle.delay_s = 3600.0
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: provider.requests, "the first request")
        await idle(pilot, app)
        assert app.turns.idle.armed
        app.turns.send("second")
        assert not app.turns.idle.armed
        await wait_for(pilot, lambda: len(provider.requests) == 2, "the second request")
        await idle(pilot, app)
        assert app.turns.idle.armed  # waiting again after the second answer


async def test_no_idle_notification_is_armed_without_a_hook_for_it(tmp_path):
    hooks_dir = tmp_path / "hooks"
    hooks_dir.mkdir()
    hooks = one("Notification", hook_script(hooks_dir, "note"), "permission_prompt")
    provider = ScriptedProvider(Response([text("Done.")]))
    app = make_app(provider, tmp_path, engine_kw={"hooks": hooks}, first_prompt="hello")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: provider.requests, "the first request")
        await idle(pilot, app)
        assert not app.turns.idle.armed
