"""Prompt history, kept per project across runs (Up/Down in the prompt).

Stored append-only as JSON lines in the project's folder under AGENTCLI_HOME,
so a crash never loses earlier entries and two sessions in the same project
can both add to it. Unreadable lines are skipped, not fatal.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from agentcli.config.paths import project_dir
from agentcli.config.private_files import make_private_dir, open_private

MAX_ENTRIES = 500


def history_path(project: Path) -> Path:
    return project_dir(project) / "prompt_history.jsonl"


class PromptHistory:
    """Entries oldest first; `previous()`/`next()` walk them like a shell."""

    def __init__(self, path: Path | None, entries: list[str] | None = None) -> None:
        self.path = path
        self.entries: list[str] = list(entries or [])
        self._index: int | None = None  # None = not walking (editing a fresh prompt)
        self._draft = ""
        self.problem: str | None = None

    @classmethod
    def load(cls, project: Path) -> PromptHistory:
        path = history_path(project)
        history = cls(path)
        try:
            with path.open(encoding="utf-8") as fh:
                for line in fh:
                    try:
                        value = json.loads(line)
                    except json.JSONDecodeError:
                        continue
                    if isinstance(value, dict) and isinstance(value.get("prompt"), str):
                        history.entries.append(value["prompt"])
        except FileNotFoundError:
            pass
        except (OSError, UnicodeDecodeError) as exc:
            history.problem = f"{path}: cannot read prompt history: {exc}"
        history.entries = history.entries[-MAX_ENTRIES:]
        return history

    def add(self, prompt: str) -> None:
        """Remember a sent prompt (not twice in a row) and stop walking."""
        self.reset()
        if not prompt.strip() or (self.entries and self.entries[-1] == prompt):
            return
        self.entries.append(prompt)
        if self.path is None:
            return
        try:
            make_private_dir(self.path.parent)
            line = json.dumps({"prompt": prompt}, ensure_ascii=False) + "\n"
            fd = open_private(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
            with os.fdopen(fd, "a", encoding="utf-8") as fh:
                fh.write(line)
        except OSError as exc:
            self.problem = f"{self.path}: cannot save prompt history: {exc}"

    def reset(self) -> None:
        self._index = None
        self._draft = ""

    @property
    def walking(self) -> bool:
        return self._index is not None

    def previous(self, current: str) -> str | None:
        """The entry before the one shown (the draft is kept to come back to)."""
        if not self.entries:
            return None
        if self._index is None:
            self._draft = current
            self._index = len(self.entries)
        if self._index == 0:
            return None
        self._index -= 1
        return self.entries[self._index]

    def next(self) -> str | None:
        """The entry after the one shown; past the newest, the draft again."""
        if self._index is None:
            return None
        self._index += 1
        if self._index >= len(self.entries):
            draft = self._draft
            self.reset()
            return draft
        return self.entries[self._index]
