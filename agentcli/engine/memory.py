"""Project memory: AGENTS.md / CLAUDE.md files that go into the context at start.

Read, in this order (later ones are more specific and win on conflict):

1. `$AGENTCLI_HOME/AGENTS.md`: the person's own instructions, for every project;
2. `AGENTS.md` then `CLAUDE.md` in each folder from the repository root down to
   the project folder (only the project folder when it is not in a repository).

A line may import another file with `@path` (relative to the file, or `~/...`),
outside code blocks and code spans. Imports are followed up to `MAX_DEPTH`
levels, each file at most once (so a cycle ends), and each lands in the context
marked with its own path. A file that cannot be read is reported, not fatal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from agentcli.config.paths import agentcli_home

MEMORY_NAMES = ("AGENTS.md", "CLAUDE.md")
MAX_DEPTH = 5
MAX_FILE_CHARS = 40_000
_IMPORT = re.compile(r"(?:^|(?<=\s))@((?:~/|\.{1,2}/|/)?[\w.\-/~]+)")
_FENCE = re.compile(r"^\s*(```|~~~)")
_CODE_SPAN = re.compile(r"`[^`]*`")


@dataclass(frozen=True)
class MemoryFile:
    path: Path
    content: str
    kind: str  # "user" | "project" | "import"
    imported_from: Path | None = None


@dataclass
class Memory:
    files: list[MemoryFile] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.files


def repository_root(folder: Path) -> Path | None:
    for candidate in [folder, *folder.parents]:
        if (candidate / ".git").exists():
            return candidate
    return None


def memory_locations(project: Path) -> list[tuple[Path, str]]:
    """The files looked for, in load order, with their kind (whether or not they exist)."""
    project = project.resolve()
    root = repository_root(project)
    folders = [project]
    if root is not None:
        folders = [f for f in [project, *project.parents] if f == root or root in f.parents]
    found = [(agentcli_home() / "AGENTS.md", "user")]
    for folder in reversed(folders):
        found.extend((folder / name, "project") for name in MEMORY_NAMES)
    return found


def load_memory(project: Path) -> Memory:
    memory = Memory()
    seen: set[Path] = set()
    for path, kind in memory_locations(project):
        if path.is_file():
            _load(path, kind, None, 0, memory, seen)
    return memory


def _load(
    path: Path, kind: str, parent: Path | None, depth: int, memory: Memory, seen: set[Path]
) -> None:
    try:
        resolved = path.resolve()
    except OSError:
        resolved = path
    if resolved in seen:
        return
    seen.add(resolved)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        memory.problems.append(f"{path}: cannot read memory file: {exc.strerror or exc}")
        return
    if len(text) > MAX_FILE_CHARS:
        memory.problems.append(
            f"{path}: {len(text):,} characters; only the first {MAX_FILE_CHARS:,} are loaded"
        )
        text = text[:MAX_FILE_CHARS]
    memory.files.append(MemoryFile(path, text, kind, parent))
    if depth >= MAX_DEPTH:
        if find_imports(text):
            memory.problems.append(
                f"{path}: imports deeper than {MAX_DEPTH} levels are not followed"
            )
        return
    for target in find_imports(text):
        candidate = Path(target).expanduser()
        if not candidate.is_absolute():
            candidate = path.parent / candidate
        if candidate.is_file():
            _load(candidate, "import", path, depth + 1, memory, seen)


def find_imports(text: str) -> list[str]:
    """`@path` references outside fenced code blocks and `code spans`."""
    found: list[str] = []
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        for match in _IMPORT.finditer(_CODE_SPAN.sub("", line)):
            target = match.group(1).rstrip(".,;:")
            if target and target not in found:
                found.append(target)
    return found


MEMORY_HEADER = "Instructions from the project's memory files"


def render_memory(memory: Memory) -> str:
    """The memory block of the system prompt, each file marked with its path."""
    if memory.empty:
        return ""
    parts = [
        f"{MEMORY_HEADER} (AGENTS.md, CLAUDE.md and their imports). "
        "Follow them: they override your defaults. Later files are more specific."
    ]
    labels = {"user": "the user's own instructions, for all projects", "project": "project"}
    for item in memory.files:
        label = labels.get(item.kind) or f"imported by {item.imported_from}"
        parts.append(f"Contents of {item.path} ({label}):\n\n{item.content.strip()}")
    return "\n\n".join(parts)
