"""Paths that always ask, whatever the mode or a broad allow rule says.

These are where a quiet change does the most harm: git's internals (a hook
there runs on the next commit), SSH keys, agentcli's own settings (an agent
that can edit them can grant itself anything), and `.env` files (secrets:
even reading one asks). Only bypassPermissions or an allow rule naming the
exact file (no wildcard) lets such a call through without a question.
"""

from __future__ import annotations

from pathlib import Path

from agentcli.config.paths import agentcli_home


def special_path_reason(path: Path, root: Path, *, writing: bool) -> str | None:
    """Why touching `path` (already resolved) must be asked about, or None.

    Reading asks only under `ssh_folder()` and for a `secret_name()`; the
    search filter (search_filter.py) applies the same two tests to every file
    a search finds.
    """
    if _under(path, ssh_folder()):
        return "it touches ~/.ssh (keys and SSH configuration)"
    if secret_name(path.name):
        return f"{path.name} may hold secrets"
    if not writing:
        return None
    if ".git" in path.parts:
        return "it changes git's internals (.git/)"
    if _under(path, _real(root / ".agentcli")) or path in settings_paths(root):
        return "it changes agentcli's settings"
    return None


def ssh_folder() -> Path:
    """~/.ssh, resolved: keys and SSH configuration."""
    return _real(Path.home() / ".ssh")


def secret_name(name: str) -> bool:
    """A file name that says "secrets here": .env, .env.local, .env.production..."""
    return name.startswith(".env")


def settings_paths(root: Path) -> list[Path]:
    """The settings files that configure a session in `root`."""
    return [
        _real(agentcli_home() / "settings.json"),
        _real(root / ".agentcli" / "settings.json"),
        _real(root / ".agentcli" / "settings.local.json"),
    ]


def _under(path: Path, folder: Path) -> bool:
    return path == folder or path.is_relative_to(folder)


def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:
        return path
