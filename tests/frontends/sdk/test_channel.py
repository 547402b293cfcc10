"""The protocol's pieces in-process: reading a line, and our control requests' answers."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agentcli.frontends.sdk.channel import ClientGone, ControlChannel, ControlError
from agentcli.frontends.sdk.wire import parse_line


def test_parse_line():
    assert parse_line(b"  \n") is None
    assert parse_line(b'{"type": "user"}\n').kind == "user"
    broken = parse_line(b"{oops\n")
    assert broken is not None and broken.message is None and "not JSON" in str(broken.problem)
    listed = parse_line(b"[1]\n")
    assert listed is not None and "not a JSON object" in str(listed.problem)
    assert parse_line(b'{"type": "user", "x": "\xff"}\n').kind == "user"  # not UTF-8: replaced


async def test_a_response_answers_its_request():
    sent: list[dict[str, Any]] = []
    channel = ControlChannel(sent.append)
    waiting = asyncio.create_task(channel.request({"subtype": "can_use_tool"}))
    await asyncio.sleep(0)
    request_id = sent[0]["request_id"]

    assert channel.resolve({"subtype": "success", "request_id": "someone-else"}) is not None
    assert (
        channel.resolve({"subtype": "success", "request_id": request_id, "response": {"a": 1}})
        is None
    )
    assert await waiting == {"a": 1}


async def test_an_error_response_and_the_end_of_stdin_fail_the_request():
    sent: list[dict[str, Any]] = []
    channel = ControlChannel(sent.append)
    failing = asyncio.create_task(channel.request({"subtype": "hook_callback"}))
    pending = asyncio.create_task(channel.request({"subtype": "hook_callback"}))
    await asyncio.sleep(0)
    channel.resolve({"subtype": "error", "request_id": sent[0]["request_id"], "error": "boom"})
    with pytest.raises(ControlError, match="boom"):
        await failing

    channel.close()

    with pytest.raises(ClientGone):
        await pending
    with pytest.raises(ClientGone):
        await channel.request({"subtype": "can_use_tool"})
    assert len(sent) == 2  # nothing is sent once stdin has ended


async def test_a_cancelled_request_is_withdrawn():
    sent: list[dict[str, Any]] = []
    channel = ControlChannel(sent.append)
    waiting = asyncio.create_task(channel.request({"subtype": "can_use_tool"}))
    await asyncio.sleep(0)

    waiting.cancel()
    await asyncio.gather(waiting, return_exceptions=True)

    assert sent[1] == {"type": "control_cancel_request", "request_id": sent[0]["request_id"]}
