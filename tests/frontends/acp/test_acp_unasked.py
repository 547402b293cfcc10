"""A permission question the editor could not be asked ends the prompt, with the reason.

The session runs a real engine against the fake Messages API; its way back to
the editor fails when the question is put (the editor's end of the pipe gone,
a bug in the link): the request raises something that is not an answer.
Before, that exception ended the task that asked, the question stayed open,
and `session/prompt` never answered. Now the question is refused with an
interrupt, the turn stops, the editor is shown the reason, and the prompt
fails with it; the conversation left is one the API takes.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from agentcli.frontends.acp.link import ClientLink
from agentcli.frontends.acp.rpc import INTERNAL_ERROR, RpcError
from agentcli.frontends.acp.session import AcpSession
from agentcli.frontends.acp.updates import UpdateMapper
from agentcli.permissions.types import PermissionMode
from agentcli.providers.anthropic import AnthropicProvider
from agentcli.providers.retry import RetryPolicy
from agentcli.tools.bash import BashTool
from tests.engine.harness import make_engine
from tests.fakeapi import reply, text, tool_use

LIMIT_S = 60


@pytest.fixture
async def session(fake_api, tmp_path: Path):
    provider = AnthropicProvider(
        api_key="test-key",
        base_url=fake_api.base_url,
        retry=RetryPolicy(max_retries=0, base_delay_s=0.0),
    )
    engine = make_engine(
        provider,
        [BashTool()],
        tmp_path,
        mode=PermissionMode.DEFAULT,
        model="claude-sonnet-5-5",
        system=[{"type": "text", "text": "You are a test agent."}],
    )
    editor = Editor()
    link = ClientLink("s1", editor.request, editor.notify)
    yield (
        AcpSession(engine, link, UpdateMapper(engine.workspace, engine.visible_tools().get)),
        editor,
    )
    await provider.aclose()


class Editor:
    """Takes updates; every request fails as a broken pipe does."""

    def __init__(self) -> None:
        self.updates: list[dict[str, Any]] = []
        self.requests: list[str] = []

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        self.requests.append(method)
        raise BrokenPipeError("the editor's end is closed")

    async def notify(self, method: str, params: dict[str, Any]) -> None:
        self.updates.append(params["update"])


async def test_a_question_that_cannot_be_put_fails_the_prompt_with_the_reason(session, fake_api):
    acp, editor = session
    target = acp.engine.workspace.root / "made"
    fake_api.enqueue(reply(tool_use("Bash", {"command": f"touch {target}"})))

    with pytest.raises(RpcError) as failed:
        await asyncio.wait_for(acp.prompt("go"), LIMIT_S)

    assert failed.value.code == INTERNAL_ERROR
    assert "could not be answered (BrokenPipeError: the editor's end is closed)" in (
        failed.value.message
    )
    assert editor.requests == ["session/request_permission"]
    assert not target.exists()
    said = [
        u["content"]["text"] for u in editor.updates if u["sessionUpdate"] == "agent_message_chunk"
    ]
    assert any("could not be answered" in words for words in said)
    finished = [u for u in editor.updates if u.get("status") == "failed"]
    assert [u["toolCallId"] for u in finished] == [editor.updates[0]["toolCallId"]]
    assert len(fake_api.requests) == 1  # the model was not asked to go on

    fake_api.enqueue(reply(text("Next.")))
    assert await asyncio.wait_for(acp.prompt("again"), LIMIT_S) == "end_turn"
    assert [r.status for r in fake_api.requests] == [200, 200]
