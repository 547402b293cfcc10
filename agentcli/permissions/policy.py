"""The permission decision: a pure function of mode, rules, workspace and the call.

When protection is uncertain (`locked_reason`: a settings file whose deny or
ask rules could not be read), whatever would be allowed without asking is
asked about instead, with that reason; denials stay denials. So a broken
deny list can never let a call through that it might have forbidden.

Otherwise, in order, first hit wins:
1. a deny rule (any source, any mode, bypassPermissions included);
2. bypassPermissions mode: allow;
3. plan mode: anything not read-only is refused;
4. an ask rule;
5. a special path (.git internals, ~/.ssh, settings, .env*): ask, unless an
   allow rule names that exact file;
6. allow rules (for Bash: every command of the line must be allowed, see
   shell/check.py);
7. for Bash while the sandbox is on: allow (`autoAllowBashIfSandboxed`,
   as Claude Code names it): the command runs confined, see agentcli/sandbox,
   when the same analysis understands the whole line, knows every word, and
   finds no protected place or Read-denied file named in it
   (shell/confined.py);
8. the mode's defaults: reads inside the project are free, edits there are
   free in acceptEdits, everything else asks; an MCP server's tool always
   asks (its read-only hint lets it run beside other calls, not unasked).

For web tools (WebFetch), rules name domains and the default asks per domain
(web_rules.py).

For Bash, deny and ask rules match every command the line runs (shell/), a
deny rule that cannot be checked on a line asks (in every mode), and a
read-only command reading a file a Read deny rule covers is refused.

Only "ask" ever reaches a person (a question on the event stream, see question.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli.config.credentials import child_env
from agentcli.config.path_rules import PathPattern, compile_path_pattern, real_path
from agentcli.config.rules import EDIT_TOOLS, READ_TOOLS, Rule, is_mcp_tool
from agentcli.config.special_paths import special_path_reason
from agentcli.permissions.hardlinks import LinkScanner, OtherNames, link_scanner
from agentcli.permissions.search_filter import RuleSearchFilter
from agentcli.permissions.types import Decision, PermissionMode
from agentcli.permissions.web_rules import WEB_TOOLS, decide_web
from agentcli.tools.base import SearchFilter, Tool, Workspace

if TYPE_CHECKING:
    from agentcli.permissions.shell.check import Analysis, LineVerdict

BASH_TOOLS = frozenset({"Bash"})
FILE_RULE_TOOLS = EDIT_TOOLS | READ_TOOLS
EXIT_PLAN_MODE = "ExitPlanMode"
# A question for the person (tools/ask_user_question.py): asked about in every mode, since
# the answer is what the call carries back; only a deny rule refuses it.
ASK_USER_QUESTION = "AskUserQuestion"
LOCKED = "protection uncertain"  # how every locked_reason starts


@dataclass
class PermissionPolicy:
    workspace: Workspace
    mode: PermissionMode = PermissionMode.DEFAULT
    allow: list[Rule] = field(default_factory=list)
    ask: list[Rule] = field(default_factory=list)
    deny: list[Rule] = field(default_factory=list)
    # Set when deny or ask rules could not be read: then nothing runs without asking.
    locked_reason: str | None = None

    def hidden_tools(self) -> set[str]:
        """Tools denied outright: the model is not even shown them."""
        return {rule.tool for rule in self.deny if rule.specifier is None}

    def hides(self, tool_name: str) -> bool:
        """Is this tool denied outright (by name, or all its MCP server's tools)?"""
        return any(
            rule.specifier is None
            and (
                rule.tool == tool_name or (rule.names_whole_server() and rule.applies_to(tool_name))
            )
            for rule in self.deny
        )

    def read_deny_patterns(self) -> list[PathPattern]:
        return [
            compile_path_pattern(rule.specifier, rule.base or self.workspace.root)
            for rule in self.deny
            if rule.tool == "Read" and rule.specifier is not None
        ]

    def read_denied_predicate(self) -> Callable[[Path], bool] | None:
        """Is a path covered by a `Read(...)` deny rule? None when there are none."""
        patterns = self.read_deny_patterns()
        if not patterns:
            return None
        return lambda path: any(pattern.matches(path) for pattern in patterns)

    def link_scanner(self) -> LinkScanner:
        """Where the other names of a hard-linked file are looked for (hardlinks.py): the
        project's folders and those the file rules protect."""
        workspace = self.workspace
        rule_roots = [
            compile_path_pattern(rule.specifier, rule.base or workspace.root).root()
            for rule in (*self.deny, *self.ask)
            if rule.specifier is not None and rule.tool in FILE_RULE_TOOLS
        ]
        return link_scanner((workspace.root, *workspace.extra_dirs), rule_roots)

    def add_session_rule(self, rule: Rule) -> None:
        if rule not in self.allow:
            self.allow.append(rule)

    def add_session_deny(self, rule: Rule) -> None:
        """Refuse what `rule` matches for the rest of the session (deny beats allow)."""
        if rule not in self.deny:
            self.deny.append(rule)

    def decide(self, tool: Tool, inp: Any) -> Decision:
        return decide(self, tool, inp)

    def search_filter(self, tool_name: str) -> SearchFilter:
        """What a search by `tool_name` may show: what Read could read without asking."""
        return RuleSearchFilter(self, tool_name)


def decide(policy: PermissionPolicy, tool: Tool, inp: Any) -> Decision:
    """allow / ask / deny for one call; no side effects."""
    return held_if_locked(policy, tool.name, _decide(policy, tool, inp))


def held_if_locked(policy: PermissionPolicy, tool_name: str, decision: Decision) -> Decision:
    """While protection is uncertain, an "allow" (by mode, rule or hook) becomes "ask".

    ExitPlanMode outside plan mode is let through: it runs nothing and
    changes nothing, it only ends a plan.
    """
    if policy.locked_reason and decision.behavior == "allow" and tool_name != EXIT_PLAN_MODE:
        return Decision("ask", policy.locked_reason)
    return decision


def _decide(policy: PermissionPolicy, tool: Tool, inp: Any) -> Decision:
    mode, allow, ask, deny = policy.mode, policy.allow, policy.ask, policy.deny
    workspace = policy.workspace
    name = tool.name
    if name == EXIT_PLAN_MODE and not any(r.applies_to(name) for r in deny):
        if mode is PermissionMode.PLAN:
            return Decision("ask", "the plan needs the user's approval")
        return Decision("allow", "not in plan mode")
    if name == ASK_USER_QUESTION and not any(r.applies_to(name) for r in deny):
        return Decision("ask", "a question for the user")
    if name in BASH_TOOLS:
        return _decide_bash(policy, tool, inp)
    if name in WEB_TOOLS:
        return decide_web(policy, tool, inp)
    call = _PathCall.of(tool, inp, workspace, policy.link_scanner())
    read_only = tool.is_read_only(inp)

    for rule in deny:
        if rule.applies_to(name) and call.matches(rule, workspace, strict=False):
            return Decision("deny", f"denied by the rule {rule}", str(rule))
    if mode is PermissionMode.BYPASS:
        return Decision("allow", "bypassPermissions mode")
    if mode is PermissionMode.PLAN and not read_only:
        return Decision("deny", "plan mode: only read-only tools may run while planning")
    for rule in ask:
        if rule.applies_to(name) and call.matches(rule, workspace, strict=False):
            return Decision("ask", f"the rule {rule} asks", str(rule))
    special = call.special_reason(workspace, writing=not read_only)
    for rule in allow:
        if not rule.applies_to(name):
            continue
        if special and not call.named_exactly(rule, workspace):
            continue
        if call.matches(rule, workspace, strict=True):
            return Decision("allow", f"allowed by the rule {rule}", str(rule))
    if special:
        return Decision("ask", special)
    return _mode_default(mode, workspace, tool, read_only, call)


def _mode_default(
    mode: PermissionMode, workspace: Workspace, tool: Tool, read_only: bool, call: _PathCall
) -> Decision:
    if is_mcp_tool(tool.name):  # a server's own word that it only reads is not ours
        return Decision("ask", f"{tool.name} is an MCP server's tool")
    inside = call.inside(workspace)
    if read_only:
        if inside:
            return Decision("allow", "read-only")
        if call.in_scratch(workspace):
            return Decision("allow", "read-only: agentcli's own saved tool output")
        return Decision("ask", "it reads outside the project folder")
    if tool.name in EDIT_TOOLS:
        if not inside:
            return Decision("ask", "it edits a file outside the project folder")
        if mode is PermissionMode.ACCEPT_EDITS:
            return Decision("allow", "acceptEdits mode")
        return Decision("ask", "it changes a file")
    return Decision("ask", f"{tool.name} needs permission")


@dataclass(frozen=True, slots=True)
class _PathCall:
    """The path a file tool touches: as written (normalised), with symlinks resolved, and
    the other names of the same file when it has hard links (judged as it, hardlinks.py)."""

    tool_name: str
    literal: Path | None
    real: Path | None
    others: OtherNames | None = None

    @classmethod
    def of(cls, tool: Tool, inp: Any, workspace: Workspace, links: LinkScanner) -> _PathCall:
        path = tool.target_path(inp, workspace)
        if path is None:
            return cls(tool.name, None, None)
        literal = Path(real_path(path.parent) / path.name) if path.name else real_path(path)
        real = real_path(path)
        return cls(tool.name, literal, real, links.other_names(str(real)))

    def names(self) -> list[Path]:
        """Every name the file is judged under."""
        names = [p for p in (self.real, self.literal) if p is not None]
        return names + [Path(n) for n in (self.others.names if self.others else ())]

    def inside(self, workspace: Workspace) -> bool:
        return self.real is None or workspace.is_inside(self.real)

    def in_scratch(self, workspace: Workspace) -> bool:
        """The full outputs a tool result points the model to (never the user's files)."""
        scratch = workspace.scratch_dir
        return (
            self.real is not None
            and scratch is not None
            and self.real.is_relative_to(real_path(scratch))
        )

    def matches(self, rule: Rule, workspace: Workspace, *, strict: bool) -> bool:
        """Deny/ask (strict=False): either form of the path. Allow: the resolved one only.

        A bare allow rule for a tool that edits covers the project only: an
        edit outside it always needs a rule that names the place.
        """
        if rule.specifier is None:
            if strict and self.tool_name in EDIT_TOOLS:
                return self.inside(workspace)
            return True
        if self.real is None:
            return False
        pattern = compile_path_pattern(rule.specifier, rule.base or workspace.root)
        if strict:
            return pattern.matches(self.real)
        return any(pattern.matches(name) for name in self.names())

    def named_exactly(self, rule: Rule, workspace: Workspace) -> bool:
        """An allow rule naming this very file (no wildcard) may pass a special path."""
        if rule.specifier is None or self.real is None:
            return False
        pattern = compile_path_pattern(rule.specifier, rule.base or workspace.root)
        return pattern.names_exactly(self.real)

    def special_reason(self, workspace: Workspace, *, writing: bool) -> str | None:
        if self.real is None:
            return None
        for path in dict.fromkeys(self.names()):
            reason = special_path_reason(path, workspace.root, writing=writing)
            if reason and path not in (self.real, self.literal):
                return f"{self.real.name} is a hard link to {path}: {reason}"
            if reason:
                return reason
        if self.others is not None:
            return self.others.unknown_reason(str(self.real), writing=writing)
        return None


def _decide_bash(policy: PermissionPolicy, tool: Tool, inp: Any) -> Decision:
    """Bash: the same order, with rules matched against every command the line runs."""
    name = tool.name
    command = tool.permission_subject(inp) or ""
    deny, ask, allow = (
        _specifiers(rules, name) for rules in (policy.deny, policy.ask, policy.allow)
    )
    if deny.bare is not None:
        return Decision("deny", f"denied by the rule {deny.bare}", str(deny.bare))
    analysis = shell_analysis(policy, command)
    hit = analysis.rule_match(deny.specs)
    if hit is not None and hit.certain:
        return Decision("deny", f"denied by the rule {name}({hit.spec})", f"{name}({hit.spec})")
    if hit is not None:
        why = f"the deny rule {name}({hit.spec}) cannot be checked: {hit.reason}"
        return Decision("ask", why, f"{name}({hit.spec})")
    refused_read = analysis.denied_read()
    if refused_read is not None:
        return Decision("deny", refused_read)
    if policy.mode is PermissionMode.BYPASS:
        return Decision("allow", "bypassPermissions mode")
    verdict = analysis.verdict(allow.specs)
    if policy.mode is PermissionMode.PLAN and not verdict.read_only:
        return Decision("deny", "plan mode: only read-only commands may run while planning")
    if ask.bare is not None:
        return Decision("ask", f"the rule {ask.bare} asks", str(ask.bare))
    hit = analysis.rule_match(ask.specs)
    if hit is not None:
        return Decision("ask", f"the rule {name}({hit.spec}) asks", f"{name}({hit.spec})")
    if allow.bare is not None:
        return Decision("allow", f"allowed by the rule {allow.bare}", str(allow.bare))
    if verdict.allowed:
        return Decision("allow", verdict.reason, verdict.rule)
    return _allowed_by_sandbox(policy.workspace, analysis, allow.specs, verdict)


def _allowed_by_sandbox(
    workspace: Workspace, analysis: Analysis, allow_specs: list[str], verdict: LineVerdict
) -> Decision:
    """autoAllowBashIfSandboxed: what would be asked only because no rule allows it runs
    confined instead (deny and ask rules were looked at first), on the same analysis:
    a line not understood, a word not known before it runs, a protected place or a
    Read-denied file named anywhere still asks (shell/confined.py)."""
    sandbox = workspace.sandbox
    if sandbox is None or not sandbox.auto_allow_bash:
        return Decision("ask", verdict.reason)
    confined = analysis.confined(allow_specs)
    if not confined.allowed:
        return Decision("ask", confined.reason)
    return Decision("allow", "it runs in the sandbox (sandbox.autoAllowBashIfSandboxed)")


@dataclass(frozen=True, slots=True)
class _BashRules:
    bare: Rule | None  # `Bash` with no specifier: every command
    specs: list[str]


def _specifiers(rules: list[Rule], tool_name: str) -> _BashRules:
    mine = [r for r in rules if r.applies_to(tool_name)]
    bare = next((r for r in mine if r.specifier is None), None)
    return _BashRules(bare, [r.specifier for r in mine if r.specifier])


def only_reads(command: str) -> bool:
    """Whether a Bash line only reads, paths aside (shell/check.py `line_is_read_only`):
    what the Bash tool's `is_read_only` says, given it by the composition root
    (tools/bash.py). The parser is loaded on first use."""
    from agentcli.permissions.shell.check import line_is_read_only

    return line_is_read_only(command)


def shell_analysis(policy: PermissionPolicy, command: str) -> Analysis:
    """The analysis of a Bash line in this session (the parser is loaded on first use)."""
    from agentcli.permissions.shell.check import ShellContext, analyse

    workspace = policy.workspace
    cwd = workspace.shell_cwd or workspace.root
    context = ShellContext(
        cwd=cwd if cwd.is_dir() else workspace.root,  # as the Bash tool falls back
        roots=(workspace.root, *workspace.extra_dirs),
        # The environment the Bash tool gives its shell (tools/bash.py `_shell_env`).
        env=child_env(workspace.env),
        project=workspace.root,
        read_denied=policy.read_denied_predicate(),
        read_denied_roots=tuple(p.root() for p in policy.read_deny_patterns()),
        scratch=workspace.scratch_dir,
    )
    return analyse(command, context)
