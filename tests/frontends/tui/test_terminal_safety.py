"""Nothing a command, a file or the model prints can control the terminal.

A real Bash tool prints hostile bytes (screen clears, a title, OSC 52, links,
DCS/APC strings, 8-bit CSI, RIS, a `\\r` progress line). What the tool pane
renders, live and finished, collapsed and expanded, keeps the visible words
and the colour, and holds no control character. The model's answer, notes,
the permission question and a resumed session are held to the same rule.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from types import SimpleNamespace

from rich.segment import Segment
from textual.geometry import Region
from textual.widget import Widget

from agentcli.engine.events import Notice
from agentcli.frontends.tui.history_view import render_history
from agentcli.frontends.tui.renderers import PlanView
from agentcli.frontends.tui.screens.session_picker import row_text
from agentcli.frontends.tui.widgets.conversation import Note, UserMessageView
from agentcli.frontends.tui.widgets.diff_view import DiffView
from agentcli.frontends.tui.widgets.permission_prompt import PermissionPrompt
from agentcli.frontends.tui.widgets.streaming_markdown import StreamingMarkdown
from agentcli.frontends.tui.widgets.tool_pane import ToolPane, summary_line
from agentcli.permissions.types import PermissionMode
from agentcli.tools.bash import BashTool
from agentcli.tools.diff import build_diff
from agentcli.tools.display import CreatedDisplay
from tests.engine.scripted import Response, ScriptedProvider, text, tool_use
from tests.frontends.tui.helpers import (
    click,
    idle,
    make_app,
    question_ready,
    send,
    type_text,
    wait_for,
)

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

HOSTILE_SCRIPT = (
    r"printf '\033[2J\033[Hstart \033]0;PWNED\007\033[31mred words\033[0m\n'; "
    r"printf 'osc52\033]52;c;QUJD\007 \033]8;;http://evil\033\\link\033]8;;\033\\ ';"
    r"printf '\033Pdcs\033\\\302\2332J\033_apc\033\\\033c\0337\0338 bell\a\n'; "
    r"printf 'progress 10%%\rprogress 100%%\n'"
)
HIDDEN = ("PWNED", "QUJD", "evil", "dcs", "apc", "2J", "progress 10%")
VISIBLE = ("start red words", "osc52 link  bell", "progress 100%")


def rendered(widget: Widget) -> tuple[str, list[Segment]]:
    """The lines a widget and its descendants paint, and their segments.

    Each widget paints its own content (the screen composes them), so every
    widget of the tree is asked for its lines.
    """
    lines: list[str] = []
    segments: list[Segment] = []
    for each in widget.walk_children(with_self=True):
        width, height = each.size
        if not each.display or not width or not height:
            continue
        for strip in each.render_lines(Region(0, 0, width, height)):
            lines.append("".join(segment.text for segment in strip).rstrip())
            segments.extend(strip)
    return "\n".join(lines), segments


async def painted(pilot, widget: Widget, *fragments: str) -> tuple[str, list[Segment]]:
    """What `widget` paints once it shows every fragment (its text, then its segments).

    A change (a click, a new widget) is painted after a layout pass or two, so a
    single pause can read the frame before it; waiting for the text the person
    would see reads the frame they see. The control checks then run on that frame.
    """
    await wait_for(
        pilot,
        lambda: all(fragment in rendered(widget)[0] for fragment in fragments),
        f"{widget!r} to show {fragments!r}",
    )
    return rendered(widget)


def assert_safe(shown: str) -> None:
    assert CONTROL.search(shown) is None, f"a control character reached the screen: {shown!r}"
    for word in HIDDEN:
        assert word not in shown, f"{word!r} should not be shown: {shown!r}"


def assert_red(segments: list[Segment], word: str) -> None:
    """The colour survives as a style: the word is drawn in another colour than `start`."""
    colour = {seg.text.strip(): seg.style.color for seg in segments if seg.style and seg.text}
    red, plain = colour[word], colour["start"]
    assert red is not None and red != plain
    assert red.get_truecolor().red > red.get_truecolor().green


def bash_app(tmp_path, command: str):
    provider = ScriptedProvider(
        Response([tool_use("Bash", {"command": command}, "toolu_bash")]), Response([text("ok")])
    )
    return make_app(provider, tmp_path, [BashTool(progress_interval=0.0)])


async def test_hostile_bash_output_is_shown_safely_live_and_finished(tmp_path):
    command = f"{HOSTILE_SCRIPT}; while [ ! -e go ]; do sleep 0.01; done; echo finished"
    app = bash_app(tmp_path, command)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "run it")
        pane = await wait_for(pilot, lambda: app.conversation.pane("toolu_bash"), "the pane")
        live, segments = await painted(pilot, pane._body, *VISIBLE)
        assert_safe(live)
        assert all(line in live for line in VISIBLE), live
        assert_red(segments, "red words")
        await click(pilot, pane)  # expanded while running
        assert_safe((await painted(pilot, pane._body, *VISIBLE))[0])
        (tmp_path / "go").touch()
        await idle(pilot, app)
        assert pane.state == "done"
        expanded, segments = rendered(pane._body)
        assert_safe(expanded)
        assert all(line in expanded for line in (*VISIBLE, "finished")), expanded
        assert_red(segments, "red words")
        await click(pilot, pane)  # collapsed: the summary line
        await wait_for(pilot, lambda: "finished" not in rendered(pane._body)[0], "the summary")
        collapsed = rendered(pane._body)[0]
        assert_safe(collapsed)
        assert "start red words" in collapsed
        header = rendered(pane._header)[0]
        assert CONTROL.search(header) is None


async def test_shell_mode_output_is_shown_safely(tmp_path):
    app = bash_app(tmp_path, "true")
    async with app.run_test(size=(100, 40)) as pilot:
        app.prompt.set_text("!" + HOSTILE_SCRIPT)  # pasted: typing it key by key is slow
        await pilot.press("enter")
        pane = await wait_for(
            pilot,
            lambda: next((p for p in app.conversation.query(ToolPane) if p.state == "done"), None),
            "the shell pane to finish",
        )
        await click(pilot, pane)
        shown = (await painted(pilot, pane._body, *VISIBLE))[0]
        assert_safe(shown)


async def test_model_answer_with_escapes_renders_without_them(tmp_path):
    answer = "Hello \x1b]0;pwned\x07**world** \x1b[2Jand\x9b31m more\x1b"
    provider = ScriptedProvider(Response([text(answer)]))
    app = make_app(provider, tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "hi")
        await idle(pilot, app)
        widget = app.conversation.query_one(StreamingMarkdown)
        shown = rendered(widget)[0]
        assert "Hello world and more" in shown
        assert "pwned" not in shown and CONTROL.search(shown) is None
        assert "\x1b" not in widget.source and "pwned" not in widget.source


async def test_notes_and_the_echoed_message_show_no_controls(tmp_path):
    app = make_app(ScriptedProvider(), tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await app.view.show(
            Notice(text="hook said \x1b]0;PWNED\x07\x1b[31mred\x1b[0m", level="warning")
        )
        app.conversation.add_user("pasted \x1b[2Jtext\x07")
        note = (await painted(pilot, app.conversation.query(Note).last(), "hook said red"))[0]
        assert CONTROL.search(note) is None and "PWNED" not in note
        echoed = (await painted(pilot, app.conversation.query(UserMessageView).last(), "text"))[0]
        assert CONTROL.search(echoed) is None and "pasted" in echoed


async def test_permission_question_shows_the_command_controls_instead_of_obeying_them(tmp_path):
    command = "echo safe\rrm -rf ~ \x1b]0;PWNED\x07"
    provider = ScriptedProvider(
        Response([tool_use("Bash", {"command": command}, "toolu_ask")]), Response([text("ok")])
    )
    app = make_app(provider, tmp_path, [BashTool()], mode=PermissionMode.DEFAULT)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "go")
        prompt: PermissionPrompt = await wait_for(pilot, lambda: question_ready(app), "question")
        # The whole command is there to be read: nothing hides `rm -rf ~`.
        shown = (await painted(pilot, prompt, "echo safe␍rm -rf ~ ␛]0;PWNED␇"))[0]
        assert CONTROL.search(shown) is None
        header = rendered(app.conversation.pane("toolu_ask")._header)[0]
        assert CONTROL.search(header) is None
        await pilot.press("n")
        await idle(pilot, app)


async def test_resumed_history_is_shown_safely(tmp_path):
    app = make_app(ScriptedProvider(), tmp_path)
    history = [
        {"role": "user", "content": "show \x1b]0;PWNED\x07me"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "answer \x1b]0;PWNED\x07here"},
                {"type": "tool_use", "id": "toolu_old", "name": "Bash", "input": {"command": "x"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_old",
                    "content": "out \x1b[2J\x1b]0;PWNED\x07\x1b[31mput\x1b[0m",
                }
            ],
        },
    ]
    async with app.run_test(size=(100, 40)) as pilot:
        await render_history(app.conversation, history, {}, app.engine.tools, app.engine.workspace)
        pane = app.conversation.pane("toolu_old")
        await click(pilot, pane)
        await wait_for(pilot, lambda: "out" in rendered(pane)[0], "the expanded output")
        shown = "\n".join(
            rendered(widget)[0]
            for widget in (
                app.conversation.query(UserMessageView).last(),
                app.conversation.query(StreamingMarkdown).last(),
                pane,
            )
        )
        assert CONTROL.search(shown) is None and "PWNED" not in shown
        assert "answer here" in shown and "output" in shown.replace(" ", "")


async def test_file_names_and_diff_lines_show_their_controls_as_symbols(tmp_path):
    app = make_app(ScriptedProvider(), tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: app.prompt_flow.files is not None, "the file list")
        app.prompt_flow.files = ["evil\x1b]0;PWNED\x07.txt"]
        await type_text(pilot, "@evil")
        await wait_for(pilot, lambda: app.popup.showing, "the popup")
        shown = rendered(app.popup)[0]
        assert CONTROL.search(shown) is None and "evil␛]0;PWNED␇.txt" in shown
        diff = build_diff("a.txt", "old\n", "new \x1b[2J\x9b31m\n")
        view = app.conversation.add_widget(DiffView(diff))
        shown = (await painted(pilot, view, "+ new ␛[2J␛[31m"))[0]
        assert CONTROL.search(shown) is None


def test_summaries_and_session_rows_hold_no_control():
    display = CreatedDisplay(path="x\x1b]0;PWNED\x07.py", lines=1)
    assert summary_line("done", display, "") == "Created x␛]0;PWNED␇.py (1 lines)"
    plan = PlanView("1. run \x1b]0;PWNED\x07 it\x1b[2J", max_lines=10)
    shown = str(plan.content)
    assert CONTROL.search(shown) is None and "1. run ␛]0;PWNED␇ it␛[2J" in shown
    session = SimpleNamespace(
        updated=datetime.now(UTC), first_prompt="fix \x1b]0;PWNED\x07it\x1b[2J", message_count=2
    )
    row = row_text(session).plain
    assert CONTROL.search(row) is None and "fix it" in row and "PWNED" not in row
