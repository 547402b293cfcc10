"""Path specifiers of file rules (`Edit(./src/**)`, `Read(~/secrets/**)`), gitignore style.

Where a specifier is anchored:
- `//abs/path`   an absolute path;
- `~/x`          the home folder;
- `./x`, `/x`    the project root of the settings file that holds the rule
                 (for command-line flags: the folder agentcli started in);
- `x/y`          same as `./x/y` (it contains a slash);
- `x`            a name with no slash matches at any depth below the root,
                 as in .gitignore (`.env` matches `.env` and `app/.env`).

Globs: `*` and `?` stay inside one folder, `**` crosses folders, `[abc]` is a
class. A pattern also covers everything below what it names (denying
`./secrets` denies `./secrets/key`), like ignoring a folder in git.
Paths are matched after `..` and symlinks are resolved, by the caller.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

_GLOB_CHARS = re.compile(r"[*?\[]")


@dataclass(frozen=True, slots=True)
class PathPattern:
    anchor: Path  # absolute folder the pattern is relative to
    regex: re.Pattern[str]
    literal: bool  # no glob characters: names one file or folder
    text: str = ""  # the pattern relative to the anchor
    anchored: bool = True

    def names_exactly(self, path: Path) -> bool:
        """A literal pattern naming `path` itself (not a folder above it)."""
        if not self.literal or not self.text:
            return False
        try:
            rel = path.relative_to(self.anchor).as_posix()
        except ValueError:
            return False
        return rel == self.text if self.anchored else path.name == self.text

    def root(self) -> Path:
        """The folder every path it matches is in: the anchor and the pattern's leading
        literal folders (`./private/**` -> private; `.env`, at any depth -> the anchor)."""
        if not self.anchored:
            return self.anchor
        literal = []
        for segment in self.text.split("/"):
            if not segment or _GLOB_CHARS.search(segment):
                break
            literal.append(segment)
        return self.anchor.joinpath(*literal)

    def matches(self, path: Path) -> bool:
        try:
            rel = path.relative_to(self.anchor)
        except ValueError:
            return False
        text = rel.as_posix()
        return self.regex.fullmatch("" if text == "." else text) is not None


def compile_path_pattern(spec: str, base: Path, home: Path | None = None) -> PathPattern:
    """A matcher for one path specifier; `base` is the rule's project root."""
    home = home or Path.home()
    spec = spec.strip()
    if spec.startswith("//"):
        anchor, pattern, anchored = Path("/"), spec[2:], True
    elif spec == "~" or spec.startswith("~/"):
        anchor, pattern, anchored = home, spec[2:], True
    elif spec.startswith("./"):
        anchor, pattern, anchored = base, spec[2:], True
    elif spec.startswith("/"):
        anchor, pattern, anchored = base, spec[1:], True
    else:
        anchor, pattern = base, spec
        anchored = "/" in pattern.rstrip("/")
    if pattern.endswith("/"):
        pattern = pattern + "**"
    # Leading `..` segments move the anchor rather than appearing in the glob.
    segments = [s for s in pattern.split("/") if s not in ("", ".")]
    while segments and segments[0] == "..":
        anchor = anchor.parent
        segments = segments[1:]
    anchor = _resolve(anchor)
    pattern = "/".join(segments)
    literal = not _GLOB_CHARS.search(pattern)
    return PathPattern(anchor, _compile(pattern, anchored), literal, pattern, anchored)


def _resolve(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:
        return Path(os.path.normpath(path))


@lru_cache(maxsize=512)
def _compile(pattern: str, anchored: bool) -> re.Pattern[str]:
    # `dir/**` also names `dir` itself: searching the folder reads what is inside.
    if pattern.endswith("/**"):
        pattern = pattern[:-3]
    body = glob_to_regex(pattern)
    if not anchored:
        body = r"(?:.*/)?" + body
    if pattern:
        body += r"(?:/.*)?"  # what a pattern names includes everything below it
    else:
        body = r".*"
    return re.compile(body, re.DOTALL)


def glob_to_regex(pattern: str) -> str:
    """gitignore-style glob -> regex text: `*`, `?` stay in a folder, `**` crosses them."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            if pattern.startswith("**", i):
                before_ok = i == 0 or pattern[i - 1] == "/"
                after = pattern[i + 2 : i + 3]
                if before_ok and after == "/":
                    out.append(r"(?:.*/)?")  # `**/` : zero or more folders
                    i += 3
                    continue
                if before_ok and after == "":
                    out.append(r".*")
                    i += 2
                    continue
                out.append(r"[^/]*")  # `a**b` acts like `a*b`, as in git
                i += 2
                continue
            out.append(r"[^/]*")
        elif c == "?":
            out.append(r"[^/]")
        elif c == "[":
            end = pattern.find("]", i + 2 if pattern[i + 1 : i + 2] in ("!", "^") else i + 1)
            if end < 0:
                out.append(re.escape(c))
            else:
                inner = pattern[i + 1 : end]
                if inner[:1] in ("!", "^"):
                    inner = "^" + inner[1:]
                out.append("[" + inner.replace("\\", "\\\\").replace("/", "") + "]")
                i = end + 1
                continue
        elif c == "/" and out and out[-1] == r"(?:.*/)?":
            pass
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def real_path(path: Path) -> Path:
    """`path` with `..` and every symlink resolved (the file itself may not exist yet)."""
    return _resolve(Path(os.path.normpath(path)))
