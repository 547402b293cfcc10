"""The rules of the server-side web search tool, as the real API enforces them.

A request may offer `{"type": "web_search_20250305", "name": "web_search", ...}`
among its tools. The model's searches come back in the assistant message as a
`server_tool_use` block followed, in the same message, by the
`web_search_tool_result` with its id; a client replays both unchanged in the
next request, and gives them no `tool_result` (the API ran the tool). The
results' `encrypted_content` is opaque and must come back as it was sent
(the fake's is a base64 of the result's url and title, see sse.py).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any

WEB_SEARCH_TYPES = frozenset({"web_search_20250305"})
SERVER_BLOCKS = frozenset({"server_tool_use", "web_search_tool_result"})
_SERVER_ID = re.compile(r"^srvtoolu_[a-zA-Z0-9_]+$")


def offers_web_search(body: dict[str, Any]) -> bool:
    tools = body.get("tools")
    return isinstance(tools, list) and any(
        isinstance(t, dict) and t.get("type") in WEB_SEARCH_TYPES for t in tools
    )


def check_server_tools(body: dict[str, Any]) -> str | None:
    """The first problem with the request's server tools or server blocks, or None."""
    for i, tool in enumerate(body.get("tools") or []):
        problem = _tool_problem(i, tool) if isinstance(tool, dict) else None
        if problem:
            return problem
    messages = body["messages"]
    for i, message in enumerate(messages):
        content = message["content"]
        if isinstance(content, list):
            final = i == len(messages) - 1
            problem = _message_problem(i, message["role"], content, final)
            if problem:
                return problem
    return None


def _tool_problem(i: int, tool: dict[str, Any]) -> str | None:
    kind = tool.get("type")
    if kind in (None, "custom"):
        return None
    if kind not in WEB_SEARCH_TYPES:
        return (
            f"tools.{i}: Input tag '{kind}' found using 'type' does not match any of the "
            "expected tags"
        )
    if tool.get("name") != "web_search":
        return f"tools.{i}.{kind}.name: Input should be 'web_search'"
    unknown = set(tool) - {
        "type", "name", "max_uses", "allowed_domains", "blocked_domains", "user_location",
        "cache_control",
    }  # fmt: skip
    if unknown:
        return f"tools.{i}.{kind}.{sorted(unknown)[0]}: Extra inputs are not permitted"
    uses = tool.get("max_uses")
    if uses is not None and (not isinstance(uses, int) or isinstance(uses, bool) or uses < 1):
        return f"tools.{i}.{kind}.max_uses: Input should be greater than 0"
    if tool.get("allowed_domains") and tool.get("blocked_domains"):
        return f"tools.{i}.{kind}: Cannot specify both allowed_domains and blocked_domains"
    return None


def _message_problem(i: int, role: str, content: list[Any], final: bool) -> str | None:
    calls: set[str] = set()
    answered: set[str] = set()
    for j, block in enumerate(content):
        kind = block.get("type")
        if kind not in SERVER_BLOCKS:
            continue
        where = f"messages.{i}.content.{j}"
        if role != "assistant":
            return f"{where}: `{kind}` blocks may only appear in assistant messages"
        if kind == "server_tool_use":
            problem = _call_problem(where, block)
            calls.add(block.get("id", ""))
        else:
            problem = _result_problem(where, block, calls)
            answered.add(block.get("tool_use_id", ""))
        if problem:
            return problem
    missing = sorted(calls - answered)
    if missing and not final:
        return (
            f"messages.{i}: `server_tool_use` ids were found without `web_search_tool_result` "
            f"blocks after them: {', '.join(missing)}"
        )
    return None


def _call_problem(where: str, block: dict[str, Any]) -> str | None:
    if not _SERVER_ID.match(str(block.get("id", ""))):
        return f"{where}.server_tool_use.id: String should match pattern '^srvtoolu_[a-zA-Z0-9_]+$'"
    if block.get("name") != "web_search":
        return f"{where}.server_tool_use.name: Input should be 'web_search'"
    inp = block.get("input")
    if not isinstance(inp, dict) or not isinstance(inp.get("query"), str):
        return f"{where}.server_tool_use.input: a web_search input needs a `query` string"
    return None


def _result_problem(where: str, block: dict[str, Any], calls: set[str]) -> str | None:
    if block.get("tool_use_id") not in calls:
        return (
            f"{where}: `web_search_tool_result` block with tool_use_id "
            f"{block.get('tool_use_id')} has no `server_tool_use` block before it"
        )
    content = block.get("content")
    if isinstance(content, dict):
        if content.get("type") != "web_search_tool_result_error" or "error_code" not in content:
            return f"{where}.content: Input should be a valid list"
        return None
    if not isinstance(content, list):
        return f"{where}.content: Input should be a valid list"
    for k, result in enumerate(content):
        if not isinstance(result, dict) or result.get("type") != "web_search_result":
            return f"{where}.content.{k}: Input should be a web_search_result"
        if not _sealed(result):
            return f"{where}.content.{k}.encrypted_content: Invalid encrypted content"
    return None


def _sealed(result: dict[str, Any]) -> bool:
    """Does the opaque content still belong to this url and title?"""
    try:
        sealed = json.loads(base64.b64decode(str(result.get("encrypted_content")), validate=True))
    except (binascii.Error, ValueError):
        return False
    return sealed == {"url": result.get("url"), "title": result.get("title")}
