"""Images in the prompt, as Claude Code users know them: a pasted image path (a
drag-and-drop), `@shot.png` and Ctrl+V attach the image, the prompt shows `[Image #1]`,
and the request the fake API validates carries the file's bytes as an image block."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import os
from pathlib import Path

import pytest
from PIL import Image
from textual import events

from agentcli.core.messages import text_of
from agentcli.frontends.tui.history_entries import UserEntry
from agentcli.frontends.tui.history_view import history_entries
from agentcli.frontends.tui.prompt_images import PromptImages, pasted_paths
from agentcli.frontends.tui.widgets.items import Note
from agentcli.providers.anthropic import AnthropicProvider
from agentcli.providers.retry import RetryPolicy
from agentcli.tools.base import ToolContext
from agentcli.tools.registry import ToolRegistry
from tests.engine.harness import make_engine
from tests.fakeapi import reply, text
from tests.frontends.tui.helpers import idle, texts, type_text, wait_for


def picture(path: Path, fmt: str = "PNG", size: tuple[int, int] = (64, 48)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (10, 120, 200)).save(out, format=fmt)
    path.write_bytes(out.getvalue())
    return out.getvalue()


def sent_images(request) -> list[tuple[str, bytes]]:
    content = request.body["messages"][-1]["content"]
    return [
        (b["source"]["media_type"], base64.b64decode(b["source"]["data"]))
        for b in content
        if b["type"] == "image"
    ]


def sent_text(request) -> str:
    return "".join(b.get("text", "") for b in request.body["messages"][-1]["content"])


@pytest.fixture
async def app_on_fake_api(tmp_path, fake_api):
    from agentcli.frontends.tui.app import AgentApp

    providers = []

    def make(**engine_kw):
        provider = AnthropicProvider(
            api_key="test-key", base_url=fake_api.base_url, retry=RetryPolicy(max_retries=0)
        )
        providers.append(provider)
        engine = make_engine(provider, [], tmp_path, **engine_kw)
        return AgentApp(cwd=tmp_path, engine=engine, permission_guard_s=0.0, remember_theme=False)

    yield make
    for provider in providers:
        await provider.aclose()


async def paste(pilot, app, pasted: str) -> None:
    app.post_message(events.Paste(pasted))  # as the driver delivers a paste
    await pilot.pause()
    await pilot.pause()


# -- pasted paths ------------------------------------------------------------------------


def test_the_shapes_terminals_paste_a_dragged_file_in(tmp_path):
    spaced = tmp_path / "my shot (1).png"
    spaced.write_bytes(b"x")
    plain = tmp_path / "plain.png"
    plain.write_bytes(b"x")
    url = "file://" + str(spaced).replace(" ", "%20").replace("(", "%28").replace(")", "%29")
    assert pasted_paths(str(plain)) == [plain]
    assert pasted_paths(f"'{spaced}' ") == [spaced]  # GNOME Terminal: quoted, a space after
    assert pasted_paths(
        str(spaced).replace(" ", "\\ ").replace("(", "\\(").replace(")", "\\)")
    ) == [spaced]  # iTerm2, Terminal.app: escaped
    assert pasted_paths(url) == [spaced]
    assert pasted_paths(f"{url}\r\nfile://{plain}\r\n") == [spaced, plain]  # a URI list
    assert pasted_paths(f"{plain} '{spaced}'") == [plain, spaced]
    assert pasted_paths(str(spaced)) == [spaced]  # unescaped spaces, one file


def test_a_paste_that_is_not_only_paths_of_files_is_text(tmp_path):
    shot = tmp_path / "shot.png"
    shot.write_bytes(b"x")
    assert pasted_paths(f"look at {shot}") is None
    assert pasted_paths(f"{shot} {tmp_path / 'missing.png'}") is None
    assert pasted_paths("shot.png") is None  # relative: a word, not a drag-and-drop
    assert pasted_paths(str(tmp_path)) is None  # a folder
    assert pasted_paths("file://elsewhere.example/shot.png") is None  # another host
    assert pasted_paths("def f():\n    return 1\n") is None


async def test_pasting_an_image_path_attaches_its_bytes_and_the_api_gets_them(
    tmp_path, fake_api, app_on_fake_api
):
    # A JPEG named .png: the media type is the bytes', not the name's.
    data = picture(tmp_path / "my shot.png", fmt="JPEG")
    fake_api.enqueue(reply(text("a blue square")))
    app = app_on_fake_api(session=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.ready, "the engine")
        await type_text(pilot, "what is ")
        await paste(pilot, app, "'" + str(tmp_path / "my shot.png") + "' ")
        assert app.prompt.text == "what is [Image #1] "
        await type_text(pilot, "?")
        await pilot.press("enter")
        await idle(pilot, app)
    request = fake_api.requests[0]
    assert request.status == 200, request.error
    assert sent_images(request) == [("image/jpeg", data)]
    assert sent_text(request) == "what is [Image #1] ?"
    # The transcript keeps the image as sent, so a resume sends it again; it shows the token.
    lines = [json.loads(line) for line in app.engine.transcript.path.read_text().splitlines()]
    recorded = next(r for r in lines if r.get("type") == "user")["message"]
    assert [b["type"] for b in recorded["content"]] == ["image", "text"]
    assert base64.b64decode(recorded["content"][0]["source"]["data"]) == data
    assert text_of(recorded) == "what is [Image #1] ?"
    # What a resume shows of it: the prompt as typed, the token in its place.
    shown = history_entries([recorded], {}, ToolContext(ToolRegistry([]), app.engine.workspace))
    assert shown == [UserEntry("what is [Image #1] ?")]


async def test_several_dragged_files_each_image_a_token_numbered_in_the_prompt(
    tmp_path, fake_api, app_on_fake_api
):
    first = picture(tmp_path / "a.png")
    second = picture(tmp_path / "b.gif", fmt="GIF")
    (tmp_path / "notes.txt").write_text("hello")
    fake_api.enqueue(reply(text("two pictures")))
    app = app_on_fake_api()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.ready, "the engine")
        await paste(
            pilot, app, f"{tmp_path / 'a.png'} {tmp_path / 'notes.txt'} {tmp_path / 'b.gif'}"
        )
        assert app.prompt.text == f"[Image #1] {tmp_path / 'notes.txt'} [Image #2]"
        await pilot.press("enter")
        await idle(pilot, app)
    assert sent_images(fake_api.requests[0]) == [("image/png", first), ("image/gif", second)]


async def test_deleting_the_token_removes_the_image_and_the_next_prompt_counts_from_one(
    tmp_path, fake_api, app_on_fake_api
):
    picture(tmp_path / "a.png")
    kept = picture(tmp_path / "b.png", size=(10, 10))
    fake_api.enqueue(reply(text("one")), reply(text("two")))
    app = app_on_fake_api()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.ready, "the engine")
        await paste(pilot, app, str(tmp_path / "a.png"))
        await paste(pilot, app, " " + str(tmp_path / "b.png"))
        assert app.prompt.text == "[Image #1] [Image #2]"
        await pilot.press("home", *["shift+right"] * 11, "backspace")  # "[Image #1] " gone
        assert app.prompt.text == "[Image #2]"
        await pilot.press("end", "space", "x", "enter")
        await idle(pilot, app)
        await paste(pilot, app, str(tmp_path / "a.png"))
        assert app.prompt.text == "[Image #1]"  # a new prompt: numbered from 1 again
        await pilot.press("enter")
        await idle(pilot, app)
    assert sent_images(fake_api.requests[0]) == [("image/png", kept)]
    assert len(sent_images(fake_api.requests[1])) == 1
    assert all(r.status == 200 for r in fake_api.requests)


async def test_an_oversized_image_is_scaled_down_and_said_so(tmp_path, fake_api, app_on_fake_api):
    picture(tmp_path / "wide.png", size=(9000, 300))  # over even the 8000 px of one image
    fake_api.enqueue(reply(text("wide")))
    app = app_on_fake_api()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.ready, "the engine")
        await paste(pilot, app, str(tmp_path / "wide.png"))
        assert app.prompt.text == "[Image #1]"
        await wait_for(pilot, lambda: any("scaled down" in t for t in texts(app, Note)), "note")
        assert any("2000×67" in t and "9000×300" in t for t in texts(app, Note))
        await pilot.press("enter")
        await idle(pilot, app)
    request = fake_api.requests[0]
    assert request.status == 200, request.error
    ((_, data),) = sent_images(request)
    with Image.open(io.BytesIO(data)) as image:
        assert image.size == (2000, 67)


async def test_a_file_named_as_an_image_that_is_not_one_is_pasted_as_text_with_a_note(
    tmp_path, app_on_fake_api
):
    (tmp_path / "fake.png").write_text("not an image at all")
    huge = tmp_path / "huge.png"
    with huge.open("wb") as handle:  # sparse: 31 MB without writing them
        handle.write(b"\x89PNG\r\n\x1a\n")
        handle.truncate(31 * 1024 * 1024)
    app = app_on_fake_api()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.ready, "the engine")
        await type_text(pilot, "typed ")
        await paste(pilot, app, f"{tmp_path / 'fake.png'} {huge}")
        assert app.prompt.text == f"typed {tmp_path / 'fake.png'} {huge}"  # nothing lost
        notes = await wait_for(
            pilot, lambda: [t for t in texts(app, Note) if "Not attached" in t], "notes"
        )
        assert any("fake.png: it is not a PNG, JPEG, GIF or WebP image" in n for n in notes)
        assert any("huge.png: it is 31.0 MB, more than the 30 MB" in n for n in notes)
        assert len(app.prompt.images) == 0


# -- @-mentions --------------------------------------------------------------------------


async def test_choosing_an_image_file_after_at_attaches_it_as_a_token(
    tmp_path, fake_api, app_on_fake_api
):
    data = picture(tmp_path / "shot.webp", fmt="WEBP")
    fake_api.enqueue(reply(text("seen")))
    app = app_on_fake_api()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.ready and app.prompt_flow.files, "the file list")
        await type_text(pilot, "see @shot.we")
        await wait_for(pilot, lambda: app.popup.showing, "the popup")
        await pilot.press("tab")
        assert app.prompt.text == "see [Image #1] "
        await pilot.press("enter")
        await idle(pilot, app)
    assert sent_images(fake_api.requests[0]) == [("image/webp", data)]
    assert sent_text(fake_api.requests[0]) == "see [Image #1] "


async def test_a_typed_at_mention_of_an_image_sends_the_image(tmp_path, fake_api, app_on_fake_api):
    data = picture(tmp_path / "shot.png")
    fake_api.enqueue(reply(text("seen")))
    app = app_on_fake_api()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.ready, "the engine")
        app.prompt.set_text("what is in @shot.png ?")
        await pilot.press("enter")
        await idle(pilot, app)
        assert any("Attached shot.png (image, 64×48" in t for t in texts(app, Note))
    assert fake_api.requests[0].status == 200
    assert sent_images(fake_api.requests[0]) == [("image/png", data)]


# -- Ctrl+V ------------------------------------------------------------------------------


def fake_tool(folder: Path, name: str, script: str) -> None:
    tool = folder / name
    tool.write_text("#!/bin/sh\n" + script)
    tool.chmod(0o755)


@pytest.fixture
def clipboard(tmp_path, monkeypatch):
    """A `wl-paste` of our own first on PATH, under a Wayland display."""
    folder = tmp_path / "bin"
    folder.mkdir()
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-test")
    monkeypatch.delenv("DISPLAY", raising=False)
    return folder


async def test_ctrl_v_attaches_the_clipboard_image(tmp_path, fake_api, app_on_fake_api, clipboard):
    data = picture(tmp_path / "clip.png")
    fake_tool(
        clipboard,
        "wl-paste",
        'case "$1" in --list-types) printf "text/plain\\nimage/png\\n";;\n'
        f'--no-newline) [ "$3" = image/png ] && cat "{tmp_path / "clip.png"}";;\nesac\n',
    )
    fake_api.enqueue(reply(text("pasted")))
    app = app_on_fake_api()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.ready, "the engine")
        await type_text(pilot, "look ")
        await pilot.press("ctrl+v")
        await wait_for(pilot, lambda: "[Image #1]" in app.prompt.text, "the token", 60)
        assert app.prompt.text == "look [Image #1]"
        await pilot.press("enter")
        await idle(pilot, app)
    assert sent_images(fake_api.requests[0]) == [("image/png", data)]


async def test_ctrl_v_without_an_image_says_so_and_keeps_the_text(app_on_fake_api, clipboard):
    fake_tool(clipboard, "wl-paste", 'printf "text/plain\\nUTF8_STRING\\n"\n')
    app = app_on_fake_api()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.ready, "the engine")
        await type_text(pilot, "draft")
        await pilot.press("ctrl+v")
        await wait_for(pilot, lambda: "No image on the clipboard." in texts(app, Note), "note", 60)
        assert app.prompt.text == "draft"


async def test_ctrl_v_where_the_clipboard_cannot_be_read_says_why(
    app_on_fake_api, clipboard, monkeypatch
):
    monkeypatch.delenv("WAYLAND_DISPLAY")
    app = app_on_fake_api()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.ready, "the engine")
        await pilot.press("ctrl+v")
        note = await wait_for(
            pilot, lambda: [t for t in texts(app, Note) if "clipboard cannot be read" in t], "note"
        )
        assert "no graphical display here" in note[0]


# -- a rewound prompt ---------------------------------------------------------------------


def test_a_rewound_prompt_gets_its_images_back_by_their_tokens(tmp_path):
    images = PromptImages()
    one = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}
    two = {"type": "image", "source": {"type": "base64", "media_type": "image/gif", "data": "BBBB"}}
    message = {
        "role": "user",
        "content": [one, two, {"type": "text", "text": "[Image #2] vs [Image #3]"}],
    }
    images.restore(message)
    assert images.take("[Image #3] and [Image #2]") == [two, one]


async def test_a_rewind_puts_the_prompt_back_with_its_image(tmp_path, fake_api, app_on_fake_api):
    from agentcli.frontends.tui.screens.rewind import RewindPicker, RewindQuestion

    data = picture(tmp_path / "a.png")
    fake_api.enqueue(reply(text("one")), reply(text("two")), reply(text("three")))
    app = app_on_fake_api(session=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.ready, "the engine")
        await paste(pilot, app, str(tmp_path / "a.png") + " ")
        await type_text(pilot, "look")
        await pilot.press("enter")
        await idle(pilot, app)
        await type_text(pilot, "later")
        await pilot.press("enter")
        await idle(pilot, app)
        app.prompt.set_text("/rewind")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RewindPicker), "the prompt list")
        await pilot.press("down", "enter")  # the first prompt
        await wait_for(pilot, lambda: isinstance(app.screen, RewindQuestion), "the choices")
        await pilot.press("enter")  # code and conversation
        await wait_for(pilot, lambda: app.prompt.text, "the prompt back in the input")
        assert app.prompt.text == "[Image #1] look"
        await pilot.press("end", "enter")  # sent again as it was: with its image
        await idle(pilot, app)
    assert sent_images(fake_api.requests[-1]) == [("image/png", data)]
    assert fake_api.requests[-1].status == 200


async def test_under_x11_xclip_is_asked_and_an_empty_clipboard_is_no_image(
    tmp_path, clipboard, monkeypatch
):
    from agentcli.frontends.tui.clipboard_image import read_clipboard_image

    data = picture(tmp_path / "clip.jpg", fmt="JPEG")
    monkeypatch.delenv("WAYLAND_DISPLAY")
    monkeypatch.setenv("DISPLAY", ":0")
    fake_tool(
        clipboard,
        "xclip",
        '[ "$4" = TARGETS ] && { printf "TARGETS\\nimage/jpeg\\n"; exit 0; }\n'
        f'[ "$4" = image/jpeg ] && cat "{tmp_path / "clip.jpg"}"\n',
    )
    assert (await read_clipboard_image()).data == data
    fake_tool(clipboard, "xclip", 'echo "Error: target TARGETS not available" >&2; exit 1\n')
    empty = await read_clipboard_image()
    assert empty.data is None
    assert empty.problem == (
        "No image on the clipboard (xclip failed: Error: target TARGETS not available)."
    )


async def test_a_clipboard_tool_that_hangs_is_given_up_on(tmp_path, clipboard, monkeypatch):
    from agentcli.frontends.tui import clipboard_image

    monkeypatch.setattr(clipboard_image, "TIMEOUT_S", 0.5)
    fake_tool(clipboard, "wl-paste", "exec sleep 30\n")
    hung = await clipboard_image.read_clipboard_image()
    assert hung.data is None
    assert hung.problem == "The clipboard could not be read: wl-paste did not answer within 0.5 s"


async def test_a_clipboard_image_past_the_bound_is_refused_without_waiting_for_the_tool(
    clipboard,
):
    from agentcli.core.images import MAX_SOURCE_BYTES
    from agentcli.frontends.tui.clipboard_image import read_clipboard_image

    # It writes more than the bound and then neither ends nor exits: reading stops at the
    # bound and the tool is stopped there, long before its sleep.
    fake_tool(
        clipboard,
        "wl-paste",
        '[ "$1" = --list-types ] && { echo image/png; exit 0; }\n'
        f"head -c {MAX_SOURCE_BYTES + 4 * 65536} /dev/zero\nexec sleep 600\n",
    )
    big = await asyncio.wait_for(read_clipboard_image(), 60)
    assert big.data is None
    assert big.problem == (
        f"The clipboard could not be read: the image is more than {MAX_SOURCE_BYTES // 2**20} MB"
    )
