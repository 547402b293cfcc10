"""Reject requests the way strict OpenAI-compatible servers do (HTTP 400).

Strict servers (OpenAI itself, and local servers built on pydantic models
that forbid extra fields) refuse a field they do not know, such as an
Anthropic `cache_control` left on a block, and a conversation whose tool
calls and results do not pair up; local servers (vLLM, llama.cpp) also parse
each replayed call's arguments and refuse arguments that are not one JSON
object, and build a grammar from each tool's schema without resolving `$ref`. These checks mirror that, with OpenAI's
own wording where it is known, so a translation that leaks an
Anthropic-only field or breaks the pairing fails in tests, not in use.
"""

from __future__ import annotations

import json
import re
from typing import Any

_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")

CHAT_KEYS = {
    "model",
    "messages",
    "stream",
    "stream_options",
    "tools",
    "tool_choice",
    "max_tokens",
    "max_completion_tokens",
    "temperature",
    "top_p",
    "stop",
    "n",
    "seed",
    "parallel_tool_calls",
    "presence_penalty",
    "frequency_penalty",
    "user",
    "response_format",
    "reasoning_effort",
}
_MESSAGE_KEYS = {
    "system": {"role", "content", "name"},
    "developer": {"role", "content", "name"},
    "user": {"role", "content", "name"},
    "assistant": {"role", "content", "tool_calls", "name", "refusal"},
    "tool": {"role", "content", "tool_call_id"},
}
RESPONSES_KEYS = {
    "model",
    "input",
    "instructions",
    "tools",
    "tool_choice",
    "stream",
    "store",
    "max_output_tokens",
    "reasoning",
    "temperature",
    "top_p",
    "parallel_tool_calls",
    "previous_response_id",
    "include",
    "text",
    "truncation",
    "metadata",
    "user",
}


class Invalid(ValueError):
    """The request is refused; the message is what the server says."""


REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")
# OpenAI's models that do not reason refuse the field (the server's own list).
_NOT_REASONING = ("gpt-4", "gpt-3.5", "chatgpt-4o")


def _reasoning_effort(effort: Any, model: str, where: str) -> None:
    """OpenAI's rules for a reasoning effort: one of its values, on a reasoning model."""
    if effort not in REASONING_EFFORTS:
        raise Invalid(
            f"Invalid value for '{where}': {effort!r}. Supported values are: "
            "'none', 'minimal', 'low', 'medium', 'high', and 'xhigh'."
        )
    if model.startswith(_NOT_REASONING):
        raise Invalid(f"Unsupported parameter: '{where}' is not supported with this model.")


def _keys(value: Any, allowed: set[str], where: str) -> None:
    if not isinstance(value, dict):
        raise Invalid(f"{where}: expected an object")
    for key in value:
        if key not in allowed:
            raise Invalid(
                f"Unrecognized request argument supplied: {where}.{key}".replace(": .", ": ")
            )


def validate_chat(body: Any) -> str | None:
    try:
        _chat(body)
    except Invalid as problem:
        return str(problem)
    return None


def validate_responses(body: Any) -> str | None:
    try:
        _responses(body)
    except Invalid as problem:
        return str(problem)
    return None


# -- Chat Completions ---------------------------------------------------------------


def _chat(body: Any) -> None:
    _keys(body, CHAT_KEYS, "")
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise Invalid("you must provide a model parameter")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise Invalid("'messages' must contain at least one message")
    if "stream_options" in body:
        if not body.get("stream"):
            raise Invalid(
                "The 'stream_options' parameter is only allowed when 'stream' is enabled."
            )
        _keys(body["stream_options"], {"include_usage"}, "stream_options")
    if "reasoning_effort" in body:
        _reasoning_effort(body["reasoning_effort"], body["model"], "reasoning_effort")
    for index, tool in enumerate(body.get("tools") or []):
        _keys(tool, {"type", "function"}, f"tools[{index}]")
        _keys(
            tool["function"],
            {"name", "description", "parameters", "strict"},
            f"tools[{index}].function",
        )
        if not _NAME.match(str(tool["function"].get("name", ""))):
            raise Invalid(f"Invalid 'tools[{index}].function.name'")
        _no_refs(tool["function"].get("parameters"), f"tools[{index}].function.parameters")
    pending: list[str] = []
    for index, message in enumerate(messages):
        where = f"messages[{index}]"
        role = message.get("role") if isinstance(message, dict) else None
        if role not in _MESSAGE_KEYS:
            raise Invalid(f"Invalid value for '{where}.role': {role!r}")
        _keys(message, _MESSAGE_KEYS[role], where)
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in pending:
                raise Invalid(
                    "Invalid parameter: messages with role 'tool' must be a response to a "
                    "preceeding message with 'tool_calls'."
                )
            pending.remove(call_id)
            _text_content(message.get("content"), f"{where}.content")
            continue
        if pending:
            raise Invalid(
                "An assistant message with 'tool_calls' must be followed by tool messages "
                "responding to each 'tool_call_id'. The following tool_call_ids did not have "
                f"response messages: {', '.join(pending)}"
            )
        if role == "assistant":
            pending = _assistant(message, where)
        else:
            _content(message.get("content"), f"{where}.content")
    if pending:
        raise Invalid(f"tool_call_ids did not have response messages: {', '.join(pending)}")


def _assistant(message: dict[str, Any], where: str) -> list[str]:
    calls = message.get("tool_calls") or []
    content = message.get("content")
    if content is None and not calls:
        raise Invalid(f"{where}: an assistant message needs content or tool_calls")
    if content is not None:
        _text_content(content, f"{where}.content", empty_ok=bool(calls))
    ids = []
    for index, call in enumerate(calls):
        _keys(call, {"id", "type", "function"}, f"{where}.tool_calls[{index}]")
        _keys(call["function"], {"name", "arguments"}, f"{where}.tool_calls[{index}].function")
        _arguments(call["function"].get("arguments"), f"{where}.tool_calls[{index}].function")
        ids.append(call["id"])
    return ids


def _no_refs(schema: Any, where: str) -> None:
    """Servers that build a grammar from a tool's schema as written (several local
    runtimes) do not resolve `$ref`: refuse one anywhere in the schema."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if "$ref" in node:
                raise Invalid(f"{where}: unsupported JSON schema: $ref {node['$ref']!r}")
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def _arguments(arguments: Any, where: str) -> None:
    """A replayed call's arguments: a string holding one JSON object, as vLLM and
    llama.cpp's server parse them (they refuse the whole request otherwise)."""
    if not isinstance(arguments, str):
        raise Invalid(f"{where}.arguments: expected a string")
    try:
        value = json.loads(arguments)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise Invalid(
            f"{where}.arguments: failed to parse tool call arguments as a JSON object: "
            f"{arguments[:80]!r}"
        )


def _text_content(content: Any, where: str, *, empty_ok: bool = False) -> None:
    if isinstance(content, str):
        if not content and not empty_ok:
            raise Invalid(f"{where}: empty content")
        return
    if not isinstance(content, list):
        raise Invalid(f"{where}: expected a string or a list of parts")
    for index, part in enumerate(content):
        _keys(part, {"type", "text"}, f"{where}[{index}]")


def _content(content: Any, where: str) -> None:
    if isinstance(content, str):
        if not content:
            raise Invalid(f"{where}: empty content")
        return
    if not isinstance(content, list) or not content:
        raise Invalid(f"{where}: expected a string or a non-empty list of parts")
    for index, part in enumerate(content):
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text":
            _keys(part, {"type", "text"}, f"{where}[{index}]")
        elif kind == "image_url":
            _keys(part, {"type", "image_url"}, f"{where}[{index}]")
        else:
            raise Invalid(f"Invalid value for '{where}[{index}].type': {kind!r}")


# -- Responses ------------------------------------------------------------------------


def _responses(body: Any) -> None:
    _keys(body, RESPONSES_KEYS, "")
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise Invalid("Missing required parameter: 'model'.")
    items = body.get("input")
    if not isinstance(items, list) or not items:
        raise Invalid("Missing required parameter: 'input'.")
    if "reasoning" in body:
        _keys(body["reasoning"], {"effort", "summary"}, "reasoning")
        if "effort" in body["reasoning"]:
            _reasoning_effort(body["reasoning"]["effort"], body["model"], "reasoning.effort")
    for index, tool in enumerate(body.get("tools") or []):
        _keys(tool, {"type", "name", "description", "parameters", "strict"}, f"tools[{index}]")
        if tool.get("type") != "function" or not _NAME.match(str(tool.get("name", ""))):
            raise Invalid(f"Invalid 'tools[{index}]'")
        _no_refs(tool.get("parameters"), f"tools[{index}].parameters")
    calls: set[str] = set()
    answered: set[str] = set()
    for index, item in enumerate(items):
        where = f"input[{index}]"
        kind = item.get("type", "message") if isinstance(item, dict) else None
        if kind == "message":
            _keys(item, {"type", "role", "content"}, where)
            _responses_message(item, where)
        elif kind == "function_call":
            _keys(item, {"type", "call_id", "name", "arguments", "id", "status"}, where)
            _arguments(item.get("arguments"), where)
            calls.add(item["call_id"])
        elif kind == "function_call_output":
            _keys(item, {"type", "call_id", "output", "id", "status"}, where)
            if item["call_id"] not in calls:
                raise Invalid(
                    f"No tool call found for function call output with call_id {item['call_id']}."
                )
            answered.add(item["call_id"])
        else:
            raise Invalid(f"Invalid value for '{where}.type': {kind!r}")
    missing = sorted(calls - answered)
    if missing:
        raise Invalid(f"No tool output found for function call {missing[0]}.")


def _responses_message(item: dict[str, Any], where: str) -> None:
    role, content = item.get("role"), item.get("content")
    if role not in ("user", "assistant", "system", "developer"):
        raise Invalid(f"Invalid value for '{where}.role': {role!r}")
    if isinstance(content, str):
        if not content:
            raise Invalid(f"{where}.content: empty")
        return
    if not isinstance(content, list) or not content:
        raise Invalid(f"{where}.content: expected a string or a non-empty list")
    allowed = {"output_text", "refusal"} if role == "assistant" else {"input_text", "input_image"}
    for index, part in enumerate(content):
        kind = part.get("type") if isinstance(part, dict) else None
        if kind not in allowed:
            raise Invalid(f"Invalid value for '{where}.content[{index}].type': {kind!r}")
        fields = (
            {"type", "image_url", "detail"}
            if kind == "input_image"
            else {"type", "text", "annotations"}
        )
        _keys(part, fields, f"{where}.content[{index}]")
