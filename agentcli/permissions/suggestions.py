"""The rules an "allow for this session" (or "always") answer adds.

Narrow enough not to surprise, broad enough not to nag:
- Bash: a rule per command of the line that was not already allowed, from
  the same analysis as the decision (shell/check.py): a subcommand prefix
  (`git diff:*` keeps `git push` apart), or the exact command for programs
  that run code they are given (`python3 build.py --fast`, never
  `python3:*`), see shell/suggest.py; none when the line was not understood,
  since no rule could make it safe;
- an edit inside the project: the bare tool (edits inside the project, for
  the session, as Claude Code's "allow all edits this session");
- a read or edit outside the project: the folder of that file, by absolute path;
- a special path (.env, .git/...): that exact file only;
- a web fetch: its domain (`WebFetch(domain:example.com)`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentcli.config.path_rules import real_path
from agentcli.config.rules import Rule
from agentcli.config.special_paths import special_path_reason
from agentcli.permissions.policy import PermissionPolicy, shell_analysis
from agentcli.permissions.web_rules import WEB_TOOLS, suggest_domain_rules
from agentcli.tools.base import Tool


def suggest_rules(tool: Tool, inp: Any, policy: PermissionPolicy) -> list[Rule]:
    workspace = policy.workspace
    root = workspace.root
    if tool.name in WEB_TOOLS:
        return suggest_domain_rules(tool, inp, policy)
    subject = tool.permission_subject(inp)
    if subject is not None:
        return _command_rules(tool.name, subject, policy)
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


def _command_rules(tool_name: str, command: str, policy: PermissionPolicy) -> list[Rule]:
    allowed = [r.specifier for r in policy.allow if r.applies_to(tool_name) and r.specifier]
    specs = shell_analysis(policy, command).suggestions(allowed)
    return [Rule(tool_name, spec, base=policy.workspace.root) for spec in specs]


def _absolute(path: Path) -> str:
    """`//abs/path`: the rule syntax for an absolute path."""
    return "/" + path.as_posix()
