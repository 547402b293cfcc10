"""Paths that always ask, whatever the mode or a broad allow rule says.

These are where a quiet change does the most harm: git's internals (a hook
there runs on the next commit), SSH keys, agentcli's own settings and Claude
Code's (`.claude/`, `.mcp.json`: an agent that can edit them can grant
itself anything), shell start-up files (they run in every new shell), and
`.env` files (secrets: even reading one asks). Only bypassPermissions or an allow rule naming the
exact file (no wildcard) lets such a call through without a question.

The permission policy (agentcli/permissions/) asks on these; the sandbox's
survey (agentcli/sandbox/survey.py) masks the secret files from a sandboxed
command. Both read this list, so it lives below them, beside the settings
whose files it names.
"""

from __future__ import annotations

import os
from pathlib import Path

from agentcli.config.paths import agentcli_home, claude_config_dir
from agentcli.config.trust import trust_file


def special_path_reason(path: Path, root: Path, *, writing: bool) -> str | None:
    """Why touching `path` (already resolved) must be asked about, or None.

    Reading asks only under `ssh_folder()` and for a `secret_name()`; the
    search filter (permissions/search_filter.py) applies the same two tests to every file
    a search finds.
    """
    return SpecialPlaces(root).reason(path, writing=writing)


class SpecialPlaces:
    """The special folders and files of one project, resolved once (for many checks).

    Paths are compared as text (resolved, absolute): this runs for every path
    a Bash command names, so it avoids building Path objects, and resolves the
    settings files only when a write is checked.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.ssh = str(ssh_folder()).lower()
        self._settings: tuple[str, frozenset[str]] | None = None

    def settings(self) -> tuple[str, frozenset[str]]:
        if self._settings is None:
            folder = os.path.realpath(self.root / ".agentcli").lower()
            files = frozenset(str(p).lower() for p in settings_paths(self.root))
            self._settings = (folder, files)
        return self._settings

    def reason(self, path: Path | str, *, writing: bool) -> str | None:
        # Lower case: on a case-insensitive disk (macOS) `.Git/config` is `.git/config`.
        text = str(path).lower()
        name = os.path.basename(text)
        if _under_text(text, self.ssh):
            return "it touches ~/.ssh (keys and SSH configuration)"
        if secret_name(name):
            return f"{name} may hold secrets"
        if not writing:
            return None
        if "/.git/" in text + "/":
            return "it changes git's internals (.git/)"
        folder, files = self.settings()
        # Any `.agentcli/` folder: agentcli started in that folder would read it.
        if _under_text(text, folder) or text in files or "/.agentcli/" in text + "/":
            return "it changes agentcli's settings"
        if "/.claude/" in text + "/" or name == ".mcp.json":
            return f"it changes agent settings ({name})"
        if name in SHELL_STARTUP_FILES:
            return f"it changes {name}, which every new shell runs"
        return None


def _under_text(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


# Files a shell (or git, which runs commands from its config) reads at start-up.
SHELL_STARTUP_FILES = frozenset(
    {
        ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc",
        ".zshenv", ".zprofile", ".zlogin", ".zlogout", ".kshrc", ".mkshrc", ".cshrc",
        ".tcshrc", ".inputrc", ".gitconfig", "config.fish",
    }
)  # fmt: skip


def ssh_folder() -> Path:
    """~/.ssh, resolved: keys and SSH configuration."""
    return _real(Path.home() / ".ssh")


def secret_name(name: str) -> bool:
    """A file name that says "secrets here": .env, .env.local, .env.production...
    (in any case: on a case-insensitive disk `.ENV` is `.env`)."""
    return name.lower().startswith(".env")


def settings_paths(root: Path) -> list[Path]:
    """The settings files that configure a session in `root` (Claude Code's too, read
    beside agentcli's: config/settings.py), and the list of trusted folders (a folder
    written into it would have its settings applied)."""
    return [
        _real(agentcli_home() / "settings.json"),
        _real(claude_config_dir() / "settings.json"),  # CLAUDE_CONFIG_DIR may be anywhere
        _real(trust_file()),
        _real(root / ".agentcli" / "settings.json"),
        _real(root / ".agentcli" / "settings.local.json"),
        _real(root / ".claude" / "settings.json"),
        _real(root / ".claude" / "settings.local.json"),
    ]


def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:
        return path
