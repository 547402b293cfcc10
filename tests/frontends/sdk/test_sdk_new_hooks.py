"""The SDK's hook callbacks for the events beyond PreToolUse, with the real
`claude-agent-sdk` driving `agentcli`: PostToolUseFailure (its fields, its
additionalContext in the next request) and PermissionRequest (allow without a
can_use_tool answer, deny with a message), as Claude Code runs them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from claude_agent_sdk import ClaudeSDKClient, HookMatcher

from tests.fakeapi import reply, text, tool_use
from tests.frontends.sdk.support import result_of, sdk_options, tool_results, until_result


async def _turn(options: Any, prompt: str) -> Any:
    async with ClaudeSDKClient(options) as client:
        await client.query(prompt)
        return result_of(await until_result(client.receive_response()))


async def test_a_post_tool_use_failure_callback_gets_the_failure_and_adds_context(
    fake_api, project
):
    fake_api.enqueue(reply(tool_use("Bash", {"command": "exit 4"}, id="toolu_x")))
    fake_api.enqueue(reply(text("It failed.")))
    seen: list[dict[str, Any]] = []

    async def on_failure(hook_input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        seen.append({**hook_input, "id": tool_use_id})
        return {
            "hookSpecificOutput": {
                "hookEventName": "PostToolUseFailure",
                "additionalContext": "exit 4 means the cache is cold",
            }
        }

    async def on_success(hook_input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        seen.append({"wrong": hook_input["hook_event_name"]})
        return {}

    options = sdk_options(
        fake_api,
        project,
        permission_mode="bypassPermissions",
        hooks={
            "PostToolUseFailure": [HookMatcher(matcher="Bash", hooks=[on_failure])],
            "PostToolUse": [HookMatcher(hooks=[on_success])],
        },
    )
    result = await _turn(options, "run it")

    (failure,) = seen
    assert failure["hook_event_name"] == "PostToolUseFailure" and failure["id"] == "toolu_x"
    assert failure["tool_name"] == "Bash" and failure["tool_input"]["command"] == "exit 4"
    assert "Exit code: 4" in failure["error"] and failure["is_interrupt"] is False
    assert isinstance(failure["duration_ms"], int) and failure["session_id"]
    (failed,) = tool_results(fake_api.requests[1].body)
    assert failed["is_error"] and "exit 4 means the cache is cold" in str(failed["content"])
    assert result.result == "It failed."


def _write(path: Path, content: str) -> dict[str, Any]:
    return {"file_path": str(path), "content": content}


async def test_a_permission_request_callback_allows_one_call_and_denies_another(fake_api, project):
    allowed, denied = project / "allowed.txt", project / "denied.txt"
    fake_api.enqueue(
        reply(
            tool_use("Write", _write(allowed, "a\n"), id="toolu_a"),
            tool_use("Write", _write(denied, "d\n"), id="toolu_d"),
        )
    )
    fake_api.enqueue(reply(text("One written.")))
    asked: list[dict[str, Any]] = []

    async def decide(hook_input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        asked.append(hook_input)
        ok = hook_input["tool_input"]["file_path"] == str(allowed)
        decision = {"behavior": "allow"} if ok else {"behavior": "deny", "message": "not that one"}
        return {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}

    options = sdk_options(
        fake_api,
        project,
        hooks={"PermissionRequest": [HookMatcher(matcher="Write", hooks=[decide])]},
    )
    result = await _turn(options, "write both")  # default mode, no can_use_tool

    assert allowed.read_text() == "a\n" and not denied.exists()
    assert [a["hook_event_name"] for a in asked] == ["PermissionRequest"] * 2
    assert all(a["tool_name"] == "Write" and a["permission_mode"] == "default" for a in asked)
    assert all(isinstance(a["permission_suggestions"], list) for a in asked)
    results = {r["tool_use_id"]: r for r in tool_results(fake_api.requests[1].body)}
    assert not results["toolu_a"].get("is_error")
    assert results["toolu_d"]["is_error"] and "not that one" in str(results["toolu_d"]["content"])
    assert [d["tool_name"] for d in result.permission_denials] == ["Write"]
