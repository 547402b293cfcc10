"""A resumed session's earlier messages, drawn the way the live turn drew them.

The transcript holds API-shaped messages: user text, assistant text and
tool_use blocks, and user messages of tool_result blocks. Each tool_use
becomes a finished tool pane (its result paired by id), so a resumed
conversation reads like the one the person left. Edits get their diff back
from the Edit input itself (old_string -> new_string).
"""

from __future__ import annotations

from typing import Any

from agentcli.engine.loop import INTERRUPT_MARKER
from agentcli.tools.diff import build_diff
from agentcli.ui.widgets.conversation import Conversation


async def render_history(
    conversation: Conversation, messages: list[dict[str, Any]], tools: Any, workspace: Any
) -> None:
    results = _results_by_id(messages)
    for message in messages:
        for block in _blocks(message):
            kind = block.get("type")
            if message["role"] == "user" and kind == "text":
                text = block.get("text", "")
                if text == INTERRUPT_MARKER:
                    conversation.add_note("Interrupted", "interrupted")
                elif text.strip():
                    conversation.add_user(text)
            elif message["role"] == "assistant" and kind == "text":
                conversation.append_text(block.get("text", ""))
                await conversation.finish_answer()
            elif kind == "tool_use":
                _add_finished_pane(conversation, block, results.get(block["id"]), tools, workspace)


def _add_finished_pane(
    conversation: Conversation,
    block: dict[str, Any],
    result: dict[str, Any] | None,
    tools: Any,
    workspace: Any,
) -> None:
    name, inp = block.get("name", "?"), block.get("input") or {}
    pane = conversation.add_tool(block["id"], name, inp, _summary(tools, name, inp, workspace))
    if result is None:
        result = {"type": "tool_result", "tool_use_id": block["id"], "content": "(no result)"}
    status = "failed" if result.get("is_error") else "done"
    display = _display(name, inp, result, workspace) if status == "done" else None
    pane.finish(status, result, display)


def _summary(tools: Any, name: str, inp: dict[str, Any], workspace: Any) -> str:
    tool = tools.get(name) if tools is not None else None
    if tool is None:
        return ""
    try:
        return tool.summary(tool.input_model.model_validate(inp), workspace)
    except Exception:  # an old or odd input still gets a pane, just without a summary
        return ""


def _display(name: str, inp: dict[str, Any], result: dict[str, Any], workspace: Any) -> Any:
    """What the live pane got from the tool, rebuilt from the call and its result."""
    path = str(inp.get("file_path", ""))
    shown = workspace.display_path(workspace.resolve(path)) if path and workspace else path
    if name == "Edit" and isinstance(inp.get("old_string"), str):
        return build_diff(shown, inp["old_string"], str(inp.get("new_string", "")))
    if name == "Write" and isinstance(inp.get("content"), str):
        return {"kind": "create", "path": shown, "lines": inp["content"].count("\n") + 1}
    if name == "Read" and isinstance(result.get("content"), str):
        numbered = [line for line in result["content"].splitlines() if line[:6].strip().isdigit()]
        return {"kind": "read", "path": shown, "lines": len(numbered)}
    return None


def _results_by_id(messages: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {
        block["tool_use_id"]: block
        for message in messages
        if message["role"] == "user"
        for block in _blocks(message)
        if block.get("type") == "tool_result"
    }


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, dict)]
