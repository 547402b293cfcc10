"""The `statusLine` command in the app: a real script reads the session's JSON from
stdin and prints a line; the app shows its first line in the status area, colours
kept, cursor moves and screen clears dropped, and a command that hangs is stopped
without ever holding up typing."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from agentcli.config.settings import load_settings
from agentcli.core.reasoning import Reasoning
from tests.engine.scripted import ScriptedProvider
from tests.frontends.tui.helpers import make_app, type_text, wait_for

ECHO_FIELDS = r"""
import json, sys
data = json.load(sys.stdin)
model = data["model"]["display_name"]
folder = data["workspace"]["current_dir"].rsplit("/", 1)[-1]
effort = data["effort"]["level"]
window = data["context_window"]["context_window_size"]
sys.stdout.write(
    f"\x1b[31m{model}\x1b[0m {folder} \x1b[2J\x1b[5;5H{effort} {window} "
    f"{data['session_id'][:8]}\nsecond line\n"
)
"""
HANG = "import sys, time; sys.stdin.read(); time.sleep(600)"


def _colour(style) -> int | None:
    color = getattr(style, "color", None)
    return color.number if color is not None else None


def project_with(root: Path, script: str) -> Path:
    (root / "status.py").write_text(script, encoding="utf-8")
    command = f"{sys.executable} {root / 'status.py'}"
    (root / ".agentcli").mkdir()
    settings = {"statusLine": {"type": "command", "command": command, "padding": 2}}
    (root / ".agentcli" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    return root


def app_for(root: Path):
    settings = load_settings(root, trusted=True)
    assert not settings.problems, settings.problems
    app = make_app(
        ScriptedProvider([]),
        root,
        engine_kw={
            "settings": settings,
            "model": "claude-sonnet-5-5",
            "reasoning": Reasoning(effort="high"),
        },
    )
    # A Python start on a loaded CI machine can pass a status line's 5 s; the tests of
    # the limit set their own.
    app.status_feed.timeout_s = 120.0
    return app


async def test_the_first_line_is_shown_with_its_colours_and_no_other_control(tmp_path):
    app = app_for(project_with(tmp_path, ECHO_FIELDS))
    async with app.run_test() as pilot:
        line = app.command_status
        await wait_for(pilot, lambda: line.line.plain, "the status line command's line")
        session = app.engine.session_id[:8]

        assert line.line.plain == f"Sonnet 5.5 {tmp_path.name} high 200000 {session}"
        assert "\x1b" not in line.line.plain and "second line" not in line.line.plain
        red = [span for span in line.line.spans if _colour(span.style) == 1]  # SGR 31
        assert [line.line.plain[span.start : span.end] for span in red] == ["Sonnet 5.5"]
        assert line.display and line.styles.padding.left == 2


async def test_the_same_session_state_runs_the_command_once(tmp_path):
    app = app_for(project_with(tmp_path, ECHO_FIELDS))
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.command_status.line.plain, "the first run")
        runner = app.status_feed.runner
        assert runner is not None
        for _ in range(5):
            app.refresh_status()
        await pilot.pause()

        assert runner.runs == 1 and not runner.running


async def test_typing_never_waits_for_a_command_that_hangs(tmp_path):
    app = app_for(project_with(tmp_path, HANG))
    app.status_feed.timeout_s = 600.0
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.status_feed.runner and app.status_feed.runner.running)
        await type_text(pilot, "still typing")

        assert app.prompt.text == "still typing"
        assert app.status_feed.runner.running  # all the while
    assert not app.status_feed.runner.running  # the app's end stopped it


async def test_a_hanging_command_is_stopped_at_its_timeout_with_one_note(tmp_path):
    app = app_for(project_with(tmp_path, HANG))
    app.status_feed.timeout_s = 0.5
    notes: list[str] = []
    app.note = lambda text, level="info": notes.append(text)  # type: ignore[method-assign]
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: notes, "the timeout's note")

        assert notes == [
            f"The status line command ({sys.executable} {tmp_path / 'status.py'}): "
            "it did not finish within 0.5 s and was stopped."
        ]
        assert not app.status_feed.runner.running
        assert not app.command_status.display


async def test_a_folder_not_trusted_runs_no_status_line_command(tmp_path):
    root = project_with(tmp_path, ECHO_FIELDS)
    settings = load_settings(root, trusted=False)
    app = make_app(ScriptedProvider([]), root, engine_kw={"settings": settings})
    async with app.run_test() as pilot:
        app.refresh_status()
        await pilot.pause()

        assert app.status_feed.runner is None
        assert any(item.key == "statusLine" for item in settings.withheld)
