"""What the completion popup offers: slash commands after `/`; after `@`, project
files and MCP resources (`@server:` first, then that server's URIs).

Pure functions over plain data (no textual), so they are easy to test. File
paths come from `rg --files` (respects .gitignore, also outside git) once per
session, refreshed in the background; matching is fuzzy (the letters in
order, closer together and in the file name ranking higher).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agentcli.commands.registry import CommandRegistry

if TYPE_CHECKING:
    from agentcli.mcp.status import ResourceInfo

MAX_ITEMS = 12
MAX_COMMANDS = 100  # the popup scrolls
MAX_FILES = 50_000


@dataclass(frozen=True, slots=True)
class Completion:
    """One choice: `value` replaces the token `start:end` of the prompt text;
    `command`: the name of the slash command it is, if it is one (Enter runs it)."""

    value: str
    label: str
    description: str
    start: int
    end: int
    command: str = ""


def command_completions(text: str, registry: CommandRegistry) -> list[Completion]:
    """`/he` -> `/help`. Only while the prompt is a single word starting with `/`.

    The command the word names exactly (by its name or an alias) comes first, so the
    highlighted choice, which Enter runs, is what was typed (`/quit` runs /exit, not a
    `/quitters-guide` that happens to contain it)."""
    if not text.startswith("/") or any(ch.isspace() for ch in text):
        return []
    exact = registry.get(text[1:]) if text[1:] else None
    commands = registry.matching(text[1:])
    if exact is not None:
        commands = [exact, *(cmd for cmd in commands if cmd.name != exact.name)]
    out = []
    for cmd in commands[:MAX_COMMANDS]:
        hint = f" {cmd.argument_hint}" if cmd.argument_hint else ""
        label = f"/{cmd.name}{hint}"
        out.append(Completion(f"/{cmd.name} ", label, cmd.description, 0, len(text), cmd.name))
    return out


AT_TOKEN = re.compile(r"(?:^|(?<=\s))@(\S*)$")


def at_token(text: str, cursor: int) -> tuple[int, str] | None:
    """The `@partial` token ending at the cursor: (start offset, partial)."""
    match = AT_TOKEN.search(text[:cursor])
    if match is None:
        return None
    return match.start(), match.group(1)


def fuzzy_score(query: str, path: str) -> int | None:
    """Lower is better; None when the letters of `query` are not in `path` in order."""
    if not query:
        return len(path)
    q, p = query.lower(), path.lower()
    pos, score, last = 0, 0, -1
    for ch in q:
        found = p.find(ch, pos)
        if found < 0:
            return None
        if last >= 0:
            score += found - last - 1  # gaps cost
        last, pos = found, found + 1
    name_start = p.rfind("/") + 1
    if p.find(q, name_start) >= 0:
        score -= 100  # the query is in the file name
    elif q in p:
        score -= 50
    return score * 10 + len(path) // 10


def file_completions(text: str, cursor: int, files: list[str]) -> list[Completion]:
    token = at_token(text, cursor)
    if token is None:
        return []
    start, partial = token
    scored = []
    for path in files:
        score = fuzzy_score(partial, path)
        if score is not None:
            scored.append((score, path))
    scored.sort()
    return [Completion(f"@{path} ", path, "", start, cursor) for _, path in scored[:MAX_ITEMS]]


def resource_completions(
    text: str, cursor: int, resources: Sequence[ResourceInfo]
) -> list[Completion]:
    """`@do` -> `@docs:` (a server with resources); `@docs:no` -> `@docs:file:///notes.md`."""
    token = at_token(text, cursor)
    if token is None or not resources:
        return []
    start, partial = token
    server, colon, rest = partial.partition(":")
    if colon:
        scored = []
        for resource in resources:
            score = fuzzy_score(rest, resource.uri) if resource.server == server else None
            if score is not None:
                scored.append((score, resource.uri, resource))
        scored.sort(key=lambda item: item[:2])
        return [
            Completion(
                f"@{server}:{r.uri} ", f"{server}:{r.uri}", r.description or r.name, start, cursor
            )
            for _, _, r in scored[:MAX_ITEMS]
        ]
    counts: dict[str, int] = {}
    for resource in resources:
        counts[resource.server] = counts.get(resource.server, 0) + 1
    return [
        Completion(
            f"@{name}:",
            f"{name}:",
            f"MCP server · {count} resource{'s' * (count != 1)}",
            start,
            cursor,
        )
        for name, count in counts.items()
        if fuzzy_score(partial, name) is not None
    ]


async def list_project_files(root: Path) -> list[str]:
    """Project files relative to `root`, .gitignore respected (via ripgrep)."""
    from agentcli.tools.ripgrep import run_rg

    try:
        out = await run_rg(
            ["--files", "--hidden", "--no-require-git", "-g", "!.git"], root, max_lines=MAX_FILES
        )
    except Exception:
        return []
    lines = out.stdout.decode("utf-8", "replace").splitlines()
    if out.stopped_early:
        lines = lines[:MAX_FILES]
    return sorted(line.removeprefix("./") for line in lines if line)
