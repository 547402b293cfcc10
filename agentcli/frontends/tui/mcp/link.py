"""The app's tie to the session's MCP servers, made once the engine (and its manager) is.

It keeps what the person sees in step with the servers: the prompts as
slash commands (commands/mcp_prompts.py), a note when a server fails (so a
broken server is not silent until someone opens `/mcp`), and the resources
the `@` completer offers. It asks, once, about the project's `.mcp.json`
servers still waiting for approval (screens/mcp_approval.py), and remembers
the answer through frontends/tui/mcp/actions.py. Nothing here imports the MCP SDK: the
manager holds only plain data until a server connects.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from agentcli.commands.mcp_prompts import PromptCommands
from agentcli.frontends.tui.mcp import actions as mcp_actions
from agentcli.frontends.tui.mcp.resources import attach_resources

if TYPE_CHECKING:
    from pathlib import Path

    from agentcli.commands.registry import CommandRegistry
    from agentcli.core.messages import Block
    from agentcli.frontends.tui.screens.mcp_approval import ApprovalAnswer
    from agentcli.mcp.manager import McpManager
    from agentcli.mcp.status import ResourceInfo


class McpLinkHost(Protocol):
    """What the link needs of the app."""

    @property
    def registry(self) -> CommandRegistry: ...
    @property
    def cwd(self) -> Path: ...
    def note(self, text: str, level: str = "info") -> None: ...
    def push_screen(self, screen: Any, callback: Any = None) -> Any: ...


class McpLink:
    def __init__(self, app: McpLinkHost, manager: McpManager) -> None:
        self.app = app
        self.manager = manager
        self.prompt_commands = PromptCommands(app.registry, manager, mcp_actions.fetch_prompt)
        self._states: dict[str, str] = {}
        self._asked = False
        self._undo = manager.on_change(self._changed)
        self._changed()

    def close(self) -> None:
        """Stop following the manager; its prompt commands leave the registry."""
        self._undo()
        self.prompt_commands.clear()

    def resources(self) -> list[ResourceInfo]:
        return self.manager.resources()

    async def attach(self, text: str) -> tuple[list[Block], list[str]]:
        """The `@server:uri` resources in `text`: (content blocks, notes for the person)."""
        return await attach_resources(text, self.manager)

    def _changed(self) -> None:
        self.prompt_commands.sync()
        for status in self.manager.status():
            if status.state == "failed" and self._states.get(status.name) != "failed":
                why = f": {status.error}" if status.error else ""
                self.app.note(f"MCP server {status.name} failed{why} · /mcp to see why", "warning")
        self._states = {status.name: status.state for status in self.manager.status()}

    # -- the project's servers waiting for a yes ---------------------------------------

    def ask_about_new_servers(self, guard_s: float | None) -> None:
        """The approval question, if a `.mcp.json` server waits for one; once. Asked
        once the manager is started, so an approved server is started exactly once."""
        from agentcli.frontends.tui.screens.mcp_approval import GUARD_S, McpApprovalQuestion

        waiting = [server for server in self.manager.configured.values() if not server.approved]
        if waiting and not self._asked:
            self._asked = True
            question = McpApprovalQuestion(waiting, guard_s=GUARD_S if guard_s is None else guard_s)
            self.app.push_screen(question, callback=self._answered)

    async def _answered(self, answer: ApprovalAnswer | None) -> None:
        if answer is None:
            self.app.note("The project's MCP servers wait for your answer: /mcp to approve them.")
            return
        project = self.app.cwd
        for problem in (
            await mcp_actions.approve(self.manager, project, answer.approved),
            await mcp_actions.reject(self.manager, project, answer.rejected),
        ):
            if problem:
                self.app.note(problem, "warning")
        if answer.approved:
            self.app.note(f"Using MCP server{_s(answer.approved)} {', '.join(answer.approved)}.")
        if answer.rejected:
            names = ", ".join(answer.rejected)
            self.app.note(
                f"Not using MCP server{_s(answer.rejected)} {names} (remembered; "
                "`agentcli mcp reset-project-choices` asks again)."
            )


def _s(names: list[str]) -> str:
    return "s" if len(names) > 1 else ""
