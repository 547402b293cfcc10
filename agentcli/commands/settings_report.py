"""What /status and /permissions say about settings, as markdown.

Each settings file with its state (loaded, not found, or skipped and why),
where each permission rule came from, and whether protection is uncertain
(deny or ask rules that could not be read: then everything asks). Built from
the engine's Settings and policy only, so it is plain text, testable without
an app; the wording of the locked state is config/notices.py's, the same as on
start and in headless runs.
"""

from __future__ import annotations

import re
from typing import Any

from agentcli.config.notices import uncertain_notice
from agentcli.config.settings import Settings
from agentcli.config.show import claude_switch_line, layer_summary

_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_\[\]<>#|~])")
_SOURCES = {"session": "this session", "command line": "command line"}
UNTRUSTED = "folder not trusted: only its deny and ask rules apply; /trust to review"


def md(text: str) -> str:
    """Plain text that markdown shows as written (paths, rules, error messages)."""
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", text)


def settings_files_lines(settings: Settings) -> list[str]:
    """A nested list item per file: `- layer path: loaded, gives ... | not found |
    skipped: why`, then each key of it that was ignored, and why."""
    lines = []
    for layer in settings.layers:
        state = f"skipped: {md(layer.problem)}" if layer.problem else layer.status
        if layer.partly_applied:
            state += f" ({UNTRUSTED})"
        summary = layer_summary(settings, layer, md, lambda path: f"`{path}`")
        if summary:
            state += f", {summary}"
        lines.append(f"  - {layer.name} `{layer.path}`: {state}")
        lines += [f"    - ignored: {md(notice)}" for notice in layer.notices]
        if layer.unsupported:
            listed = md(", ".join(layer.unsupported))
            lines.append(f"    - Claude Code settings agentcli does not use: {listed}")
    lines += [f"  - {md(p)}" for p in settings.problems if p.startswith("command line:")]
    switch = claude_switch_line(settings)
    return lines + ([f"  - {md(switch)}"] if switch else [])


def sandbox_state(workspace: Any) -> str:
    """The sandbox for /status: off, on and what it allows, or on but unable to run."""
    sandbox = workspace.sandbox
    if sandbox is None:
        return "off (`--sandbox` or `sandbox.enabled` in settings turns it on)"
    problem = sandbox.problem([workspace.root, *workspace.extra_dirs])
    if problem is not None:
        return f"on, but it cannot run commands: {md(problem)}; Bash commands are refused"
    return md(sandbox.describe())


def uncertain_line(settings: Settings | None) -> list[str]:
    if settings is None or not settings.uncertain:
        return []
    text = uncertain_notice(settings).removeprefix("Protection uncertain: ")
    return [f"**Protection uncertain:** {md(text)}"]


def problem_lines(settings: Settings) -> list[str]:
    """The settings files skipped, and each key of a file that was ignored, and why."""
    lines = []
    for layer in settings.layers:
        if layer.problem:
            lines.append(f"- {layer.name} `{layer.path}`: skipped: {md(layer.problem)}")
        lines += [f"- {layer.name} `{layer.path}`: ignored {md(n)}" for n in layer.notices]
    return ["**Settings problems:**", "", *lines] if lines else []


def rules_lines(label: str, rules: list[Any], settings: Settings | None) -> list[str]:
    """`**Allow:**` and one item per rule with its source, or `none`."""
    if not rules:
        return [f"**{label}:** none"]
    return [f"**{label}:**", "", *(f"- `{rule}` — {source_of(rule, settings)}" for rule in rules)]


def source_of(rule: Any, settings: Settings | None) -> str:
    """`project settings (path)`, `command line`, `this session`."""
    layer = next((x for x in settings.layers if x.name == rule.source), None) if settings else None
    if layer is None:
        return _SOURCES.get(rule.source, md(rule.source))
    return f"{layer.name} settings (`{layer.path}`)"
