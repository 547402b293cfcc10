"""WebFetch against a loopback web site: what the model gets, and what it never gets."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from agentcli.core.abort import AbortSignal
from agentcli.tools.base import ToolContext, ToolError, ToolResult, Workspace
from agentcli.tools.display import WebFetchDisplay
from agentcli.tools.web.cache import TTL_S, PageCache
from agentcli.tools.web.fetch_tool import UNTRUSTED, WebFetchTool
from agentcli.tools.web.fetching import MAX_BYTES, checked_url
from tests.web.site import Site

ARTICLE = """<!doctype html><html><head><title>Release notes</title>
<script>document.write("tracking")</script><style>h1 { color: red }</style></head>
<body><h1>Version 4.2</h1><p>Read the <a href="/docs/install">install guide</a>.</p>
<ul><li>faster</li><li>smaller</li></ul></body></html>"""


async def fetch(tool: WebFetchTool, url: str, prompt: str = "What changed?") -> ToolResult:
    # WebFetch never touches the workspace; the context needs one.
    ctx = ToolContext(workspace=Workspace(root=Path(tempfile.gettempdir())), abort=AbortSignal())
    return await tool.run(tool.input_model.model_validate({"url": url, "prompt": prompt}), ctx)


def display(result: ToolResult) -> WebFetchDisplay:
    assert isinstance(result.display, WebFetchDisplay)
    return result.display


async def test_html_becomes_markdown_framed_as_untrusted(site: Site) -> None:
    url = site.page("/notes", ARTICLE)

    result = await fetch(WebFetchTool(), url)

    assert not result.is_error
    text = str(result.content)
    assert UNTRUSTED in text
    assert "# Version 4.2" in text
    assert f"[install guide]({site.url('/docs/install')})" in text  # links made absolute
    assert "- faster" in text
    assert "tracking" not in text and "color: red" not in text
    shown = display(result)
    assert (shown.url, shown.status, shown.content_type) == (url, 200, "text/html")
    assert shown.size == len(ARTICLE.encode())
    assert not shown.cached and shown.redirect is None


async def test_plain_text_comes_back_as_it_is(site: Site) -> None:
    url = site.page("/a.txt", "line one\n<b>not html</b>\n", content_type="text/plain")

    result = await fetch(WebFetchTool(), url)

    assert "line one\n<b>not html</b>" in str(result.content)


async def test_a_redirect_within_the_host_is_followed(site: Site) -> None:
    site.page("/new", "<p>moved here</p>")
    url = site.redirect("/old", "/new", status=301)

    result = await fetch(WebFetchTool(), url)

    assert "moved here" in str(result.content)
    assert display(result).url == site.url("/new")
    assert site.hits["/new"] == 1


async def test_a_redirect_to_another_host_is_returned_not_followed(site: Site) -> None:
    elsewhere = site.page("/landing", "<p>the landing page</p>").replace("127.0.0.1", "localhost")
    url = site.redirect("/go", elsewhere)

    result = await fetch(WebFetchTool(), url)

    assert not result.is_error
    text = str(result.content)
    assert elsewhere in text and "not followed" in text and "call WebFetch again" in text
    assert "the landing page" not in text
    assert site.hits["/landing"] == 0
    shown = display(result)
    assert (shown.status, shown.redirect) == (302, elsewhere)


async def test_a_404_is_an_error_naming_the_status(site: Site) -> None:
    url = site.url("/missing")

    result = await fetch(WebFetchTool(), url)

    assert result.is_error
    assert "HTTP 404" in str(result.content)
    assert display(result).status == 404


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
async def test_a_page_over_the_size_cap_is_refused(site: Site, chunked: bool) -> None:
    url = site.page("/huge", b"x" * (MAX_BYTES + 1), content_type="text/plain", chunked=chunked)

    with pytest.raises(ToolError, match="larger than 10 MB, the most read"):
        await fetch(WebFetchTool(), url)


async def test_a_binary_page_is_refused(site: Site) -> None:
    url = site.page("/logo.png", b"\x89PNG\r\n\x1a\n", content_type="image/png")

    with pytest.raises(ToolError, match="not a text page"):
        await fetch(WebFetchTool(), url)


async def test_a_second_fetch_within_fifteen_minutes_comes_from_the_cache(site: Site) -> None:
    now = [1000.0]
    tool = WebFetchTool(PageCache(clock=lambda: now[0]))
    url = site.page("/notes", ARTICLE)

    first = await fetch(tool, url)
    now[0] += TTL_S - 1
    second = await fetch(tool, url, "Another question?")

    assert site.hits["/notes"] == 1
    assert display(second).cached and not display(first).cached
    assert "# Version 4.2" in str(second.content)
    now[0] += 1  # fifteen minutes after the download: fetched again
    third = await fetch(tool, url)
    assert site.hits["/notes"] == 2 and not display(third).cached


async def test_a_long_page_without_a_model_is_cut_with_a_note(site: Site) -> None:
    url = site.page("/long", "word " * 20_000, content_type="text/plain")

    result = await fetch(WebFetchTool(), url)

    assert "[cut: the page's text has" in str(result.content)
    assert display(result).answered_by is None


def test_http_is_upgraded_to_https_except_on_loopback() -> None:
    assert checked_url("http://example.com/a?b=1") == "https://example.com/a?b=1"
    assert checked_url("http://127.0.0.1:8000/x") == "http://127.0.0.1:8000/x"
    assert checked_url("http://localhost/x") == "http://localhost/x"
    assert checked_url("https://example.com") == "https://example.com/"  # canonical: a path


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("ftp://example.com/file", "only http:// and https://"),
        ("file:///etc/passwd", "only http:// and https://"),
        ("https:///path", "names no host"),
        ("example.com/page", "only http:// and https://"),
        ("https://user:secret@example.com/", "user name or password"),
        ("https://example.com:99999999/", "Invalid URL"),
    ],
)
async def test_a_url_that_cannot_be_fetched_says_why(url: str, why: str) -> None:
    with pytest.raises(ToolError, match=why):
        await fetch(WebFetchTool(), url)
