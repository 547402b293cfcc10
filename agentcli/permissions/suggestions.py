"""The rules an "allow for this session" (or "always") answer adds.

Narrow enough not to surprise, broad enough not to nag:
- Bash: a prefix rule per command of the line that was not already allowed,
  from its first word or two (`git diff:*` keeps `git push` apart);
- an edit inside the project: the bare tool (edits inside the project, for
  the session, as Claude Code's "allow all edits this session");
- a read or edit outside the project: the folder of that file, by absolute path;
- a special path (.env, .git/...): that exact file only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentcli.permissions.bash_check import part_is_read_only
from agentcli.permissions.bash_rules import command_words, split_for_allow, suggest_prefix
from agentcli.permissions.path_rules import real_path
from agentcli.permissions.rules import Rule
from agentcli.permissions.special_paths import special_path_reason
from agentcli.tools.base import Tool, Workspace


def suggest_rules(tool: Tool, inp: Any, workspace: Workspace) -> list[Rule]:
    root = workspace.root
    subject = tool.permission_subject(inp)
    if subject is not None:
        return _command_rules(tool.name, subject, workspace)
    path = tool.target_path(inp, workspace)
    if path is None:
        return [Rule(tool.name, base=root)]
    real = real_path(path)
    if special_path_reason(real, root, writing=not tool.is_read_only(inp)):
        return [Rule(tool.name, _absolute(real), base=root)]
    if workspace.is_inside(real):
        return [Rule(tool.name, base=root)]
    folder = real if real.is_dir() else real.parent
    return [Rule(tool.name, _absolute(folder) + "/**", base=root)]


def _command_rules(tool_name: str, command: str, workspace: Workspace) -> list[Rule]:
    parts = split_for_allow(command)
    if parts is None:
        return []
    rules: list[Rule] = []
    for part in parts:
        words = command_words(part)
        if part_is_read_only(part, words, workspace):
            continue
        prefix = suggest_prefix(words)
        if prefix is not None:
            rule = Rule(tool_name, prefix, base=workspace.root)
            if rule not in rules:
                rules.append(rule)
    return rules


def _absolute(path: Path) -> str:
    """`//abs/path`: the rule syntax for an absolute path."""
    return "/" + path.as_posix()
