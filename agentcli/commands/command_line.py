"""Whether a line of text is a slash command, and which: read before the registry loads.

A `-p` prompt is read this way on every run (commands/headless_prompt.py), and most are
prose: the command registry and the command files load only for one that is a command.
"""

from __future__ import annotations


def parse_command_line(text: str) -> tuple[str, str] | None:
    """'/model opus' -> ('model', 'opus'); text not starting with '/' -> None."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped == "/":
        return None
    name, _, args = stripped[1:].partition(" ")
    if "/" in name:  # a path like /usr/bin is a message, not a command
        return None
    return name.lower(), args.strip()
