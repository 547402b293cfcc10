"""A fetched page as text the model can read: HTML becomes markdown.

The converter is html-to-markdown (a maintained Rust library with Python
bindings): it imports in a few tens of milliseconds and converts a large page
about twenty times faster than the pure-Python markdownify, so it is
imported here, when the first page arrives, and never on start-up. Links
are made absolute against the page's URL so the model can fetch them next.
"""

from __future__ import annotations

from agentcli.tools.web.fetching import FetchError, Page

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
TEXT_TYPES = frozenset(
    {"application/json", "application/xml", "application/javascript", "application/x-yaml"}
)


def page_text(page: Page) -> str:
    """The page's text: markdown for HTML, as it is for other text; binary is refused."""
    kind = page.content_type
    if kind in HTML_TYPES or (not kind and _looks_like_html(page.body)):
        return html_to_markdown(page.text(), page.url)
    if kind.startswith("text/") or kind in TEXT_TYPES or kind.endswith(("+json", "+xml")):
        return page.text()
    raise FetchError(
        f"{page.url} is not a text page (Content-Type {kind or 'unknown'}); WebFetch reads "
        "HTML and text only."
    )


def html_to_markdown(html: str, base_url: str) -> str:
    from html_to_markdown import ConversionOptions, convert

    # Inline images (data: URIs) would fill the context with base64.
    options = ConversionOptions(base_url=base_url, skip_images=True)
    return str(convert(html, options).content).strip()


def _looks_like_html(body: bytes) -> bool:
    head = body[:512].lstrip().lower()
    return head.startswith((b"<!doctype html", b"<html"))
