"""Images an editor puts in a prompt reach the model as the API takes them in any
conversation: scaled past its limits, refused (with an error the editor shows) when
they cannot be decoded, since the API would refuse them in every later request."""

from __future__ import annotations

import base64
import io

import pytest
from acp import RequestError, image_block, text_block
from PIL import Image

from tests.fakeapi import reply, text
from tests.frontends.acp.client import EditorClient, agent_in_process


def png(size: tuple[int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (30, 160, 90)).save(out, format="PNG")
    return out.getvalue()


async def test_many_big_screenshots_in_a_prompt_are_sent_as_the_api_takes_them(fake_api, project):
    shot = base64.b64encode(png((3200, 1800))).decode()
    fake_api.enqueue(reply(text("Seen.")))
    async with agent_in_process(EditorClient(), project, fake_api) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        prompt = [text_block("compare these"), *[image_block(shot, "image/png")] * 21]
        done = await conn.prompt(session_id=session.session_id, prompt=prompt)

    assert done.stop_reason == "end_turn"
    [request] = fake_api.requests
    assert request.status == 200  # the fake API checks images as the real one does
    sent = [b for b in request.body["messages"][-1]["content"] if b["type"] == "image"]
    assert len(sent) == 21


async def test_an_image_that_cannot_be_decoded_is_refused_before_any_request(fake_api, project):
    broken = base64.b64encode(png((300, 200))[:50]).decode()
    async with agent_in_process(EditorClient(), project, fake_api) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        with pytest.raises(RequestError) as refused:
            await conn.prompt(
                session_id=session.session_id,
                prompt=[text_block("look"), image_block(broken, "image/png")],
            )

    assert refused.value.code == -32602 and "could not be" in str(refused.value)
    assert fake_api.requests == []
