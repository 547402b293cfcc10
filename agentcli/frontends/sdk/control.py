"""The client's control requests once the session runs, and their answers.

Each request gets exactly one `control_response`: `success` with a payload, or
`error` with the reason (an unknown subtype, a mode agentcli does not have,
a `rewind_files` that would overwrite what the person changed). `initialize` is the
driver's (session.py), since it decides how the engine is built.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agentcli.engine.query_engine import QueryEngine
from agentcli.frontends.sdk.permissions import DONT_ASK
from agentcli.mcp.status import sdk_status
from agentcli.permissions.types import PermissionMode
from agentcli.session.checkpoints import SessionCheckpoints, UnknownPrompt
from agentcli.session.rewind import rewind_files

MODES = (*(mode.value for mode in PermissionMode), DONT_ASK)


# McpManager's states, as the SDK's McpServerConnectionStatus names them.
class ControlProblem(Exception):
    """The request cannot be done; the message goes back in the error response."""


@dataclass
class Controls:
    """What the requests act on: the engine, the driver's own `dontAsk` switch, and the
    ids of user messages folded into a turn started by another (session.py)."""

    engine: QueryEngine
    default_model: str
    set_dont_ask: Callable[[bool], None]
    folded_into: dict[str, str] = field(default_factory=dict)

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        """The success payload for `request`, or ControlProblem."""
        match request.get("subtype"):
            case "interrupt":
                self.engine.interrupt("interrupted by the SDK client")
                return {}
            case "set_permission_mode":
                return self._set_mode(request.get("mode"))
            case "set_model":
                return self._set_model(request.get("model"))
            case "mcp_status":
                return {"mcpServers": self._mcp_servers()}
            case "rewind_files":
                return self._rewind(request.get("user_message_id"), request.get("dry_run") is True)
            case "initialize":
                raise ControlProblem("already initialized")
            case subtype:
                raise ControlProblem(f"unsupported control request subtype: {subtype!r}")

    def _set_mode(self, mode: Any) -> dict[str, Any]:
        if mode not in MODES:
            raise ControlProblem(f"unknown permission mode {mode!r}; one of: {', '.join(MODES)}")
        self.set_dont_ask(mode == DONT_ASK)
        policy = self.engine.gate.policy
        policy.mode = PermissionMode.DEFAULT if mode == DONT_ASK else PermissionMode(mode)
        return {}

    def _rewind(self, prompt_id: Any, dry_run: bool) -> dict[str, Any]:
        """The files the agent changed since the user message `prompt_id` (its `uuid`) back
        as they were; refused, changing nothing, when the person changed one since."""
        checkpoints = self.engine.checkpoints
        if not isinstance(checkpoints, SessionCheckpoints):
            raise ControlProblem("this session keeps no checkpoints (it is not saved)")
        if not isinstance(prompt_id, str) or not prompt_id:
            raise ControlProblem("rewind_files needs the user_message_id of a user message")
        prompt_id = self.folded_into.get(prompt_id, prompt_id)  # its turn began with another
        try:
            report = rewind_files(checkpoints, prompt_id, dry_run=dry_run)
        except UnknownPrompt:
            raise ControlProblem(f"no user message {prompt_id!r} in this session") from None
        if report.conflicts:
            changed = ", ".join(str(path) for path in report.conflicts)
            raise ControlProblem(
                "nothing was rewound: changed since the agent's last edit "
                f"(by a shell command or by you): {changed}"
            )
        files = [str(path) for path in (*report.restored, *report.deleted)]
        return {"canRewind": True, "filesChanged": files, **report.to_json()}

    def _set_model(self, model: Any) -> dict[str, Any]:
        if model is not None and (not isinstance(model, str) or not model.strip()):
            raise ControlProblem(f"set_model needs a model name or null, not {model!r}")
        self.engine.config.model = model or self.default_model
        return {}

    def _mcp_servers(self) -> list[dict[str, Any]]:
        mcp = self.engine.mcp
        if mcp is None:
            return []
        servers = []
        for server in mcp.status():
            entry: dict[str, Any] = {
                "name": server.name,
                "status": sdk_status(server.state),
                "scope": server.scope,
            }
            if server.error:
                entry["error"] = server.error
            servers.append(entry)
        return servers
