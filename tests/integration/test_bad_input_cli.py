"""`agentcli -p` survives tool input no file system can take (a NUL byte, a lone surrogate)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakeapi import reply, text, tool_use
from tests.integration.test_headless_cli import agentcli


def test_a_nul_byte_in_a_read_path_gives_an_error_result_and_the_run_completes(
    fake_api, tmp_path: Path
):
    fake_api.enqueue(reply(tool_use("Read", {"file_path": "a\u0000b"})))
    fake_api.enqueue(reply(text("I could not read it.")))

    done = agentcli(["-p", "read a\\0b", "--output-format", "stream-json"], tmp_path, fake_api)

    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    (result,) = [
        block
        for line in lines
        if line["type"] == "user"
        for block in line["message"]["content"]
        if block["type"] == "tool_result"
    ]
    assert result["is_error"] is True and "NUL" in result["content"]
    assert lines[-1]["type"] == "result" and lines[-1]["subtype"] == "success"
    assert fake_api.requests[1].body["messages"][-1]["content"][0]["is_error"] is True


def test_a_lone_surrogate_in_a_tool_input_leaves_the_conversation_sendable(
    fake_api, tmp_path: Path
):
    fake_api.enqueue(reply(tool_use("Read", {"file_path": "x\ud800.txt"})))
    fake_api.enqueue(reply(text("Done.")))

    done = agentcli(["-p", "read it", "--output-format", "stream-json"], tmp_path, fake_api)

    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1])["subtype"] == "success"
    assert [r.status for r in fake_api.requests] == [200, 200]
