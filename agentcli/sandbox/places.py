"""The places a sandboxed command must leave as they are, because something outside runs them.

In every writable folder: `.git` (a hook or `core.fsmonitor` runs on the
person's next git command, and agentcli runs `git status` on start),
`.agentcli/` and `.claude/` (settings, hooks, custom commands with
`allowed-tools` and `!` lines, skills, agents), `.mcp.json` (servers that
start with the next session) and `AGENTS.md`/`CLAUDE.md` (instructions the
next session believes; `CLAUDE.local.md` too, which Claude Code reads). They are protected whether or not they exist: one a
command could create would be as good as one it could change.

A `.git` that is a file (worktrees, submodules, `--separate-git-dir`) names
the folder git really uses, and that folder's `commondir` the one hooks and
config live in: both are protected like `.git` itself. So are the files a
repository's config includes (`[include]`, `[includeIf]`) and the folder
`core.hooksPath` names, when they lie in a writable folder: git runs code
from those as from `.git/hooks`.
"""

from __future__ import annotations

import os
import re
import stat

AGENT_PLACES = (
    ".git",
    ".agentcli",
    ".claude",
    ".mcp.json",
    "AGENTS.md",
    "CLAUDE.md",
    "CLAUDE.local.md",
)
GIT = ".git"
_POINTER_MAX_BYTES = 4096
_CONFIG_MAX_BYTES = 256 * 1024
_SECTION = re.compile(r"^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+\"[^\"]*\")?\s*\]\s*(.*)$")


def git_pointer(path: str) -> str | None:
    """The folder a `.git` file names (`gitdir: ...`, relative to the file), or None."""
    text = _small_text(path)
    if text is None:
        return None
    first = text.splitlines()[0] if text else ""
    if not first.startswith("gitdir:"):
        return None
    target = first.removeprefix("gitdir:").strip()
    return os.path.join(os.path.dirname(path), target) if target else None


def common_dir(gitdir: str) -> str | None:
    """The repository folder a worktree's git folder shares (its `commondir` file), or None."""
    text = _small_text(os.path.join(gitdir, "commondir"))
    if not text or not text.strip():
        return None
    return os.path.join(gitdir, text.strip())


def git_config_code_paths(gitdir: str, worktree: str) -> list[str]:
    """Where a repository's config (in `gitdir`) has git read more config or run hooks:
    `[include]`/`[includeIf] path`s and `core.hooksPath`. Relative include paths are
    taken from the config's folder, a relative hooksPath from the worktree."""
    found: list[str] = []
    for name in ("config", "config.worktree"):
        config = os.path.join(gitdir, name)
        text = _small_text(config, _CONFIG_MAX_BYTES)
        if text is None:
            continue
        for section, key, value in _config_entries(text):
            if section in ("include", "includeif") and key == "path":
                found.append(_config_path(value, gitdir))
            elif section == "core" and key == "hookspath":
                found.append(_config_path(value, worktree))
    return found


def git_links(gitdir: str) -> list[str]:
    """The links in a git folder where git finds code (its config, hooks): a link there
    may lead out of the read-only folder into a writable one."""
    names = [os.path.join(gitdir, name) for name in ("config", "config.worktree", "hooks")]
    hooks = os.path.join(gitdir, "hooks")
    if os.path.isdir(hooks) and not os.path.islink(hooks):
        try:
            names += [entry.path for entry in os.scandir(hooks)]
        except OSError:
            pass
    return [name for name in names if os.path.islink(name)]


def _config_entries(text: str) -> list[tuple[str, str, str]]:
    """(section, key, value) of a git config file, lower-cased names, unquoted values."""
    entries: list[tuple[str, str, str]] = []
    section = ""
    for raw in text.splitlines():
        line = raw
        match = _SECTION.match(line)
        if match:
            section, line = match.group(1).lower(), match.group(2)
        key, equals, value = line.partition("=")
        key = key.strip().lower()
        if equals and key and not key.startswith(("#", ";")):
            entries.append((section, key, _config_value(value)))
    return entries


def _config_value(value: str) -> str:
    out: list[str] = []
    quoted = False
    for char in value.strip():
        if char == '"':
            quoted = not quoted
        elif char in "#;" and not quoted:
            break
        else:
            out.append(char)
    return "".join(out).strip()


def _config_path(value: str, base: str) -> str:
    path = os.path.expanduser(value)
    return os.path.normpath(os.path.join(base, path))


def _small_text(path: str, limit: int = _POINTER_MAX_BYTES) -> str | None:
    """The start of a regular file, or None (never waits on a FIFO or a device)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = os.read(fd, limit)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data.decode("utf-8", "replace")
