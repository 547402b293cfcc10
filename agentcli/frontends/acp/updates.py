"""Engine events (and saved messages) as ACP `session/update`s.

One place turns what the engine says into what an editor shows: streamed
text and thinking become message and thought chunks (and a warning, such as
a hook's, a message of its own); a tool call becomes a
`tool_call` (title, kind, the locations of its target path, raw input),
then `tool_call_update`s (in progress, Bash's output so far, completed or
failed with its result: Edit and Write as diffs of old and new text); the
list of a TodoWrite call the tool accepted also becomes the session's
`plan`. `replay()` turns a saved conversation into the same updates, for
`session/load`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, assert_never

from agentcli.engine.events import (
    ApiRetry,
    AssistantMessage,
    Event,
    Notice,
    RequestStarted,
    SubagentEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallFinished,
    ToolCallProgress,
    ToolCallRunning,
    ToolCallStarted,
    ToolPermissionRequested,
    TurnEnded,
    UserMessage,
)
from agentcli.frontends.acp.link import Update
from agentcli.tools.base import Tool, Workspace
from agentcli.tools.display import CreatedDisplay, DiffDisplay, ToolDisplay

# Every built-in tool has its kind here (tests/frontends/acp/test_acp_tool_kinds.py):
# an editor picks an icon and groups calls by it. MCP and other tools are "other".
TOOL_KINDS = {
    "Read": "read",
    "Edit": "edit",
    "Write": "edit",
    "NotebookEdit": "edit",
    "Bash": "execute",
    "TaskOutput": "execute",  # a background command's output and status
    "TaskStop": "execute",
    "BashOutput": "execute",
    "KillShell": "execute",
    "Grep": "search",
    "Glob": "search",
    "TodoWrite": "think",
    "Task": "think",
    "Skill": "think",
    "AskUserQuestion": "other",  # asked as a permission request (acp/person_questions.py)
    "ExitPlanMode": "switch_mode",
    "WebFetch": "fetch",
    "WebSearch": "fetch",
}
PLAN_STATUSES = ("pending", "in_progress", "completed")


def text_chunk(kind: str, text: str) -> Update:
    """`agent_message_chunk`, `agent_thought_chunk` or `user_message_chunk` of text."""
    return {"sessionUpdate": kind, "content": {"type": "text", "text": text}}


def text_content(text: str) -> dict[str, Any]:
    """Tool-call content holding text."""
    return {"type": "content", "content": {"type": "text", "text": text}}


class UpdateMapper:
    """The updates for one session's events. Keeps what a later event needs: each
    call's input (for its diff), Bash's output so far and TodoWrite's plan."""

    def __init__(
        self,
        workspace: Workspace,
        tool: Callable[[str], Tool | None],
        terminals: dict[str, str] | None = None,
    ) -> None:
        self._workspace = workspace
        self._tool = tool
        self._terminals = terminals if terminals is not None else {}
        self._inputs: dict[str, dict[str, Any]] = {}
        self._output: dict[str, str] = {}
        self._plans: dict[str, Update] = {}  # sent once the tool accepts the list

    def updates(self, event: Event) -> list[Update]:
        match event:
            case TextDelta(text=text):
                return [text_chunk("agent_message_chunk", text)]
            case ThinkingDelta(text=text):
                return [text_chunk("agent_thought_chunk", text)]
            case Notice(
                text=text, level="warning" | "error" as level
            ):  # a hook's, a blocked prompt
                return [text_chunk("agent_message_chunk", f"\n\n[{level}] {text}\n\n")]
            case ToolCallStarted(tool_use_id=call_id, name=name, input=inp, summary=summary):
                return self.started(call_id, name, inp, summary)
            case ToolCallRunning(tool_use_id=call_id):
                return [_progress(call_id, status="in_progress")]
            case ToolCallProgress(tool_use_id=call_id, data=data):
                self._output[call_id] = self._output.get(call_id, "") + data.text
                return [_progress(call_id, content=[text_content(self._output[call_id])])]
            case ToolCallFinished(tool_use_id=call_id, result=result, status=status, display=shown):
                return self.finished(call_id, result, status == "done", shown)
            case Notice():
                return []  # an info notice goes to the agent's log (session.py)
            case (
                RequestStarted()
                | ApiRetry()
                | AssistantMessage()
                | ToolPermissionRequested()
                | UserMessage()
                | TurnEnded()
                | SubagentEvent()
            ):
                return []  # streamed as chunks, asked by session.py, or the stop reason
            case _:
                assert_never(event)

    def started(self, call_id: str, name: str, inp: dict[str, Any], summary: str) -> list[Update]:
        self._inputs[call_id] = inp
        update: Update = {
            "sessionUpdate": "tool_call",
            "toolCallId": call_id,
            "title": f"{name} {summary}".strip(),
            "kind": TOOL_KINDS.get(name, "other"),
            "status": "pending",
            "rawInput": inp,
        }
        located = self._locations(name, inp)
        if located:
            update["locations"] = located
        plan = plan_update(inp) if name == "TodoWrite" else None
        if plan is not None:
            self._plans[call_id] = plan
        return [update]

    def finished(
        self, call_id: str, result: Mapping[str, Any], ok: bool, shown: ToolDisplay | None
    ) -> list[Update]:
        """The call's last update, then its plan if it was a TodoWrite the tool accepted."""
        plan = self._plans.pop(call_id, None)
        update = self._finished(call_id, result, ok, shown)
        return [update, plan] if ok and plan is not None else [update]

    def _finished(
        self, call_id: str, result: Mapping[str, Any], ok: bool, shown: ToolDisplay | None
    ) -> Update:
        inp = self._inputs.pop(call_id, {})
        output = self._output.pop(call_id, None)
        content = self._diffs(shown, inp)
        terminal = self._terminals.pop(call_id, None)
        if terminal is not None:  # ran in the client's terminal: keep showing it
            content = [{"type": "terminal", "terminalId": terminal}]
        if not content:
            text = output if output is not None and ok else result_text(result)
            content = [text_content(text)] if text else []
        update = _progress(call_id, status="completed" if ok else "failed", content=content)
        if shown is not None:
            update["rawOutput"] = shown.model_dump(mode="json")
        return update

    def _locations(self, name: str, inp: dict[str, Any]) -> list[dict[str, Any]]:
        """Where the call points: its tool's target path (Read: at its offset)."""
        tool = self._tool(name)
        if tool is None:
            return []
        try:
            parsed = tool.input_model.model_validate(inp)
            path = tool.target_path(parsed, self._workspace)
        except Exception:  # the model's input is for the tool to refuse, not for us
            return []
        if path is None:
            return []
        location: dict[str, Any] = {"path": str(path)}
        if isinstance(inp.get("offset"), int):
            location["line"] = inp["offset"]
        return [location]

    def _diffs(self, shown: ToolDisplay | None, inp: dict[str, Any]) -> list[dict[str, Any]]:
        """Edit and Write results as ACP diffs: one per hunk, old and new text."""
        if isinstance(shown, DiffDisplay):
            path = str(self._workspace.resolve(shown.path))
            return [diff_content(path, hunk.lines) for hunk in shown.hunks]
        if isinstance(shown, CreatedDisplay):
            text = inp.get("content", inp.get("new_string", ""))
            path = str(self._workspace.resolve(shown.path))
            return [{"type": "diff", "path": path, "oldText": None, "newText": str(text)}]
        return []

    def replay(
        self, messages: Iterable[Mapping[str, Any]], displays: dict[str, ToolDisplay]
    ) -> Iterator[Update]:
        """A saved conversation as the updates it made, for `session/load`."""
        for message in messages:
            content = message.get("content")
            blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
            for block in blocks if isinstance(blocks, list) else []:
                yield from self._replayed(message.get("role"), block, displays)

    def _replayed(
        self, role: object, block: dict[str, Any], displays: dict[str, ToolDisplay]
    ) -> Iterator[Update]:
        kind = block.get("type")
        if kind == "text" and block.get("text"):
            chunk = "user_message_chunk" if role == "user" else "agent_message_chunk"
            yield text_chunk(chunk, str(block["text"]))
        elif kind == "thinking" and block.get("thinking"):
            yield text_chunk("agent_thought_chunk", str(block["thinking"]))
        elif kind == "tool_use":
            call_id, name = str(block.get("id")), str(block.get("name"))
            raw = block.get("input")
            inp: dict[str, Any] = raw if isinstance(raw, dict) else {}
            yield from self.started(
                call_id, name, inp, _summary(self._tool(name), inp, self._workspace)
            )
        elif kind == "tool_result":
            call_id = str(block.get("tool_use_id"))
            ok = not block.get("is_error")
            yield from self.finished(call_id, block, ok, displays.get(call_id))


def _summary(tool: Tool | None, inp: dict[str, Any], workspace: Workspace) -> str:
    if tool is None:
        return ""
    try:
        return tool.summary(tool.input_model.model_validate(inp), workspace)
    except Exception:
        return ""


def _progress(call_id: str, **fields: Any) -> Update:
    return {"sessionUpdate": "tool_call_update", "toolCallId": call_id, **fields}


def diff_content(path: str, lines: Iterable[str]) -> dict[str, Any]:
    """One hunk (lines with their " ", "-", "+" signs) as an ACP diff."""
    old = [line[1:] for line in lines if line[:1] in (" ", "-")]
    new = [line[1:] for line in lines if line[:1] in (" ", "+")]
    return {"type": "diff", "path": path, "oldText": "\n".join(old), "newText": "\n".join(new)}


def result_text(result: Mapping[str, Any]) -> str:
    """The text of a tool_result block (its text parts, joined)."""
    content = result.get("content")
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else []
    return "\n".join(str(p.get("text", "")) for p in parts if p.get("type") == "text")


def plan_update(inp: dict[str, Any]) -> Update | None:
    """TodoWrite's list (Claude Code's shape) as the session's plan; None if malformed."""
    todos = inp.get("todos")
    if not isinstance(todos, list):
        return None
    entries = []
    for todo in todos:
        if not isinstance(todo, dict) or not isinstance(todo.get("content"), str):
            return None
        status = todo.get("status")
        entries.append(
            {
                "content": todo["content"],
                "status": status if status in PLAN_STATUSES else "pending",
                "priority": "medium",
            }
        )
    return {"sessionUpdate": "plan", "entries": entries}
