"""Paths that always ask, whatever the mode or a broad allow rule says.

These are where a quiet change does the most harm: git's internals (a hook
there runs on the next commit), SSH keys, agentcli's own settings and Claude
Code's (`.claude/`, `.mcp.json`: an agent that can edit them can grant
itself anything), shell start-up files (they run in every new shell), and
`.env` files (secrets: even reading one asks). Only bypassPermissions or an allow rule naming the
exact file (no wildcard) lets such a call through without a question.
"""

from __future__ import annotations

from pathlib import Path

from agentcli.config.paths import agentcli_home


def special_path_reason(path: Path, root: Path, *, writing: bool) -> str | None:
    """Why touching `path` (already resolved) must be asked about, or None."""
    home = Path.home()
    if _under(path, _real(home / ".ssh")):
        return "it touches ~/.ssh (keys and SSH configuration)"
    if path.name.startswith(".env"):
        return f"{path.name} may hold secrets"
    if not writing:
        return None
    if ".git" in path.parts:
        return "it changes git's internals (.git/)"
    if _under(path, _real(root / ".agentcli")) or path in settings_paths(root):
        return "it changes agentcli's settings"
    if ".claude" in path.parts or path.name == ".mcp.json":
        return f"it changes agent settings ({path.name})"
    if path.name in SHELL_STARTUP_FILES:
        return f"it changes {path.name}, which every new shell runs"
    return None


# Files a shell (or git, which runs commands from its config) reads at start-up.
SHELL_STARTUP_FILES = frozenset(
    {
        ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc",
        ".zshenv", ".zprofile", ".zlogin", ".zlogout", ".kshrc", ".mkshrc", ".cshrc",
        ".tcshrc", ".inputrc", ".gitconfig", "config.fish",
    }
)  # fmt: skip


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
