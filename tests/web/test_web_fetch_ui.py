"""WebFetch in the app: asked per domain, drawn with its URL, status and size, and a
hostile page's control sequences shown as symbols, never obeyed."""

from __future__ import annotations

import re

from agentcli.frontends.tui.widgets.tool_pane import summary_line
from agentcli.permissions.types import PermissionMode
from agentcli.tools.display import WebFetchDisplay
from agentcli.tools.web.fetch_tool import WebFetchTool
from tests.engine.scripted import Response, ScriptedProvider, text, tool_use
from tests.frontends.tui.helpers import click, idle, make_app, question_ready, send, wait_for
from tests.frontends.tui.test_terminal_safety import rendered
from tests.web.site import Site

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
HOSTILE = "<p>\x1b]0;PWNED\x07title \x1b[2Jcleared \x1b]52;c;QUJD\x07clipboard</p>"


async def test_a_fetch_is_asked_per_domain_and_drawn_safely(tmp_path, site: Site):
    # A broad allow rule does not cover a loopback address: the question says why.
    url = site.page("/hostile", HOSTILE)
    provider = ScriptedProvider(
        Response([tool_use("WebFetch", {"url": url, "prompt": "?"}, "toolu_w")]),
        Response([text("read it")]),
    )
    app = make_app(
        provider,
        tmp_path,
        [WebFetchTool()],
        mode=PermissionMode.DEFAULT,
        engine_kw={"allow": ["WebFetch"]},
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "fetch it")
        prompt = await wait_for(pilot, lambda: question_ready(app), "the question")
        assert str(prompt.query_one(".permission-subject").render()) == url
        shown = rendered(prompt)[0]
        assert "WebFetch(domain:127.0.0.1)" in shown
        assert "127.0.0.1 is a loopback address (this machine)" in shown  # why it asks
        assert site.hits["/hostile"] == 0  # nothing is fetched before the answer
        await pilot.press("1")
        await idle(pilot, app)
        pane = app.conversation.pane("toolu_w")
        assert pane.state == "done"
        size = len(HOSTILE.encode())
        assert pane.summary == f"{url} · HTTP 200 · {size} bytes · text/html"
        await click(pilot, pane)
        await wait_for(pilot, lambda: "title" in rendered(pane)[0], "the result to expand")
        shown = rendered(pane)[0]
        assert "clipboard" in shown
        assert CONTROL.search(shown) is None, shown


def test_the_summary_names_a_redirect_the_cache_and_the_model():
    redirect = WebFetchDisplay(url="https://a.com/x", status=301, redirect="https://b.com/y")
    answered = WebFetchDisplay(
        url="https://a.com/", status=200, size=2_500_000, content_type="text/html",
        cached=True, answered_by="claude-haiku-4-5",
    )  # fmt: skip

    assert summary_line("done", redirect, "") == (
        "https://a.com/x redirects to another host (not followed): https://b.com/y"
    )
    assert summary_line("done", answered, "") == (
        "https://a.com/ · HTTP 200 · 2.38 MB · text/html · cached · answered by claude-haiku-4-5"
    )
