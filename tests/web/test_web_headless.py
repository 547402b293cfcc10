"""`agentcli -p` with WebFetch: a domain allowed on the command line, the small model
named by the `smallFastModel` setting, and web searches offered to the API."""

from __future__ import annotations

import json

from tests.fakeapi import reply, text, tool_use
from tests.integration.test_headless_cli import agentcli
from tests.web.site import Site


def test_p_fetches_an_allowed_domain_with_the_configured_small_model(
    fake_api, site: Site, tmp_path
):
    settings = tmp_path / ".agentcli" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"smallFastModel": "claude-tiny-1"}))
    url = site.page("/long", "<p>" + "lorem ipsum " * 2000 + "</p><p>the answer is 42</p>")
    fake_api.enqueue(
        reply(tool_use("WebFetch", {"url": url, "prompt": "What is the answer?"})),
        reply(text("42")),
        reply(text("It is 42.")),
    )

    done = agentcli(
        ["-p", "find the answer", "--allowedTools", "WebFetch(domain:127.0.0.1)"],
        tmp_path,
        fake_api,
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout == "It is 42.\n"
    main, side, after = (r.body for r in fake_api.requests)
    assert "It is 42" not in json.dumps(after) and "42" in json.dumps(after["messages"][-1])
    assert side["model"] == "claude-tiny-1"
    assert "the answer is 42" in side["messages"][0]["content"][0]["text"]
    assert {"type": "web_search_20250305", "name": "web_search", "max_uses": 5} in main["tools"]
    names = [t["name"] for t in main["tools"]]
    assert "WebFetch" in names and names.count("web_search") == 1
    assert site.hits["/long"] == 1


def test_p_refuses_a_loopback_address_under_a_broad_rule_and_says_why(
    fake_api, site: Site, tmp_path
):
    url = site.page("/admin", "<p>the admin page</p>").replace("127.0.0.1", "0x7f.1")
    fake_api.enqueue(
        reply(tool_use("WebFetch", {"url": url, "prompt": "?"})),
        reply(text("Could not read it.")),
    )

    done = agentcli(["-p", "read it", "--allowedTools", "WebFetch"], tmp_path, fake_api)

    assert done.returncode == 0, done.stderr
    result = json.dumps(fake_api.requests[1].body["messages"][-1])
    assert "127.0.0.1 is a loopback address (this machine)" in result
    assert "the admin page" not in result
    assert site.hits["/admin"] == 0
