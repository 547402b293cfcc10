"""Static expansion of words: what bash would pass to a command, when it can be known.

Bash turns `"$HOME"/src/*.py` into a list of arguments through quote removal,
brace expansion, tilde expansion, parameter expansion, word splitting and
pathname expansion. To judge where a command really reads or writes we do
the same, before the command runs:

- variables come from the environment the command will get (the Bash tool's:
  the process environment plus settings `env`) and from plain assignments
  earlier in the line; a variable whose value cannot be known (`$_`, one set
  from a substitution, one bash sets itself) makes the word unknown;
- only the plain forms `$NAME` and `${NAME}` are expanded: every operator
  (`${x:-y}`, `${#x}`, `${x@P}`, `${!x}`...) is "not understood", because
  several of them run code;
- `$((...))` and `$[...]` on integer literals become their value
  (arithmetic.py); with a name, `$` or a subscript they are not understood;
- `~`, `~+`, `~-`, `~user` expand as bash does, also after `=` in arguments
  that look like assignments;
- globs are matched against the disk from the folder the command runs in
  (POSIX classes like `[[:alpha:]]` are not modelled, so they are "not
  understood" rather than guessed);
- `$(...)`, backticks and `<(...)` are handed to a callback (the command
  walker analyses the commands inside), with whether they stand in double
  quotes (backticks read differently there); their output is unknown.

A word's result is either its fields or the reason it cannot be known.
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from agentcli.permissions.shell.arithmetic import literal_value
from agentcli.permissions.shell.constructs import not_understood_reason
from agentcli.permissions.shell.parse import Node
from agentcli.permissions.shell.text import short

MAX_FIELDS = 256
_ASSIGNMENT_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]|[@*#?$!_-]")
_IFS = " \t\n"
# Special parameters whose value is a number or flags: never a path that leaves the folder.
_PLACEHOLDERS = {"?": "0", "$": "1", "!": "", "#": "0", "-": "hBc", "0": "bash"}
# Variables bash sets itself (not from the environment): their value is not known here.
_BASH_SET = frozenset(
    {
        "_", "BASH", "BASHOPTS", "BASHPID", "BASH_ALIASES", "BASH_ARGC", "BASH_ARGV",
        "BASH_ARGV0", "BASH_CMDS", "BASH_COMMAND", "BASH_ENV", "BASH_LINENO", "BASH_REMATCH",
        "BASH_SOURCE", "BASH_SUBSHELL", "BASH_VERSINFO", "BASH_VERSION", "COLUMNS",
        "DIRSTACK", "EPOCHREALTIME", "EPOCHSECONDS", "EUID", "FUNCNAME", "GROUPS",
        "HISTCMD", "HOSTNAME", "HOSTTYPE", "IFS", "LINENO", "LINES", "MACHTYPE",
        "OPTARG", "OPTIND", "OSTYPE", "PIPESTATUS", "PPID", "PS4", "RANDOM", "REPLY",
        "SECONDS", "SHELLOPTS", "SHLVL", "SRANDOM", "UID",
    }
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Word:
    """One word of a command as bash will expand it."""

    text: str  # as written, for messages
    values: tuple[str, ...] | None  # the fields it becomes; None when not known
    variables: tuple[str, ...] = ()  # environment variables it expands
    variable_unknown: bool = False  # a variable's value is not known (`$_`, `$RANDOM`)
    one_field: bool = False  # one quoted string: exactly one field, whatever it expands to
    # A glob that matched nothing here: bash passes it as it is, unless files appear
    # before it runs (an earlier command of the line, the sandbox's own /tmp).
    unmatched_glob: bool = False


@dataclass(slots=True)
class Scope:
    """What expansion depends on: variables and the folder the command runs in."""

    env: Mapping[str, str]
    line_vars: dict[str, str | None] = field(default_factory=dict)  # None: unknown value
    cwds: tuple[Path, ...] | None = None  # None: not known
    positional_known: bool = True  # $1... are empty at the top of `bash -c`
    env_complete: bool = True  # False when a BASH_ENV script may set more variables

    def lookup(self, name: str) -> tuple[str | None, bool]:
        """(value or None when unknown, whether it is an environment variable, set or not)."""
        if name in self.line_vars:
            return self.line_vars[name], False
        if name in ("PWD", "OLDPWD"):
            if name == "PWD" and self.cwds and len(self.cwds) == 1:
                return str(self.cwds[0]), False
            return None, False
        if name in _PLACEHOLDERS:
            return _PLACEHOLDERS[name], False
        if name.isdigit() or name in ("@", "*"):
            return ("" if self.positional_known else None), False
        if name in _BASH_SET:
            return None, False
        if name in self.env:
            return self.env[name], True
        return ("" if self.env_complete else None), True


class NotUnderstood(Exception):
    """The word uses a construct the analysis does not model; the message says which."""


# One piece of a word: text, whether it was quoted, whether it came from an expansion.
_Piece = tuple[str, bool, bool]


@dataclass(slots=True)
class _Builder:
    scope: Scope
    on_substitution: Callable[[Node, bool], None]
    pieces: list[_Piece] = field(default_factory=list)
    variables: list[str] = field(default_factory=list)
    unknown: bool = False  # a piece's value is not known: the word's fields are not
    variable_unknown: bool = False
    unmatched_glob: bool = False

    def literal(self, text: str, quoted: bool) -> None:
        if text:
            self.pieces.append((text, quoted, False))

    def expanded(self, text: str, quoted: bool) -> None:
        self.pieces.append((text, quoted, True))


def expand_word(
    node: Node, scope: Scope, on_substitution: Callable[[Node, bool], None], *, glob_ok: bool = True
) -> Word:
    """Expand one word node into its fields (None when not known). Raises NotUnderstood."""
    builder = _Builder(scope, on_substitution)
    _collect(node, builder, quoted=False)
    values = None
    if not builder.unknown:
        values = _fields(builder, scope, node.text, glob_ok=glob_ok)
    return _word(node.text, values, builder, one_field=node.type in ("string", "raw_string"))


def expand_heredoc(node: Node, scope: Scope, on_substitution: Callable[[Node, bool], None]) -> Word:
    """The expansions in a here-document body (its text is data, not arguments)."""
    builder = _Builder(scope, on_substitution)
    for child in node.children:
        if child.type in ("simple_expansion", "expansion", "command_substitution"):
            _collect(child, builder, quoted=True)
        elif child.type != "heredoc_content":
            raise NotUnderstood(not_understood_reason(child.type, child.text))
    return _word(node.text, (), builder)


def _word(
    text: str, values: tuple[str, ...] | None, b: _Builder, *, one_field: bool = False
) -> Word:
    return Word(text, values, tuple(b.variables), b.variable_unknown, one_field, b.unmatched_glob)


def _collect(node: Node, b: _Builder, quoted: bool) -> None:
    kind = node.type
    if kind == "word" or kind == "number":
        _unquoted_word(node.text, b) if not quoted else b.literal(node.text, True)
    elif kind == "raw_string":
        b.literal(node.text[1:-1], True)
    elif kind == "string":
        _double_quoted(node, b)
    elif kind == "concatenation":
        for child in node.children:
            _collect(child, b, quoted)
    elif kind in ("simple_expansion", "expansion"):
        _parameter(node, b, quoted)
    elif kind in ("command_substitution", "process_substitution"):
        b.on_substitution(node, quoted)
        if kind == "process_substitution":
            b.literal("/dev/fd/63", True)
        else:
            b.unknown = True  # its output
    elif kind == "brace_expression":
        b.literal(node.text, False)  # `{1..3}`: expanded with the other braces below
    elif kind == "arithmetic_expansion":
        b.expanded(str(_arithmetic(node)), quoted)
    else:
        raise NotUnderstood(not_understood_reason(kind, node.text))


def _arithmetic(node: Node) -> int:
    """`$((...))` / `$[...]` on integer literals: its value (names and subscripts run code)."""
    text = node.text
    if text.startswith("$((") and text.endswith("))"):
        body = text[3:-2]
    elif text.startswith("$[") and text.endswith("]"):
        body = text[2:-1]
    else:
        body = None
    value = literal_value(body) if body is not None else None
    if value is None:
        raise NotUnderstood(not_understood_reason("arithmetic_expansion", text))
    return value


def _unquoted_word(text: str, b: _Builder) -> None:
    """Backslash escapes quote one character; `\\<newline>` disappears."""
    i, start = 0, 0
    while i < len(text):
        if text[i] == "\\":
            b.literal(text[start:i], False)
            if i + 1 < len(text) and text[i + 1] != "\n":
                b.literal(text[i + 1], True)
            i += 2
            start = i
            continue
        i += 1
    b.literal(text[start:], False)


def _double_quoted(node: Node, b: _Builder) -> None:
    b.pieces.append(("", True, False))  # "" is still a field
    for child in node.children:
        if not child.named:  # the quotes; blanks before the closing one are content
            b.literal(child.text.replace('"', ""), True)
            continue
        if child.type == "string_content":
            b.literal(_unescape_double(child.text), True)
            continue
        lead = child.text[: len(child.text) - len(child.text.lstrip(" \t\n"))]
        b.literal(lead, True)
        _collect(child, b, quoted=True)


def _unescape_double(text: str) -> str:
    return re.sub(r'\\([$`"\\\n])', lambda m: "" if m.group(1) == "\n" else m.group(1), text)


def _parameter(node: Node, b: _Builder, quoted: bool) -> None:
    named = node.named_children()
    plain = len(named) == 1 and named[0].type in ("variable_name", "special_variable_name")
    if node.type == "expansion":
        tokens = [c.text.strip() for c in node.children]
        plain = plain and tokens == ["${", named[0].text, "}"] if plain else False
    if not plain:
        raise NotUnderstood(
            f"`{short(node.text.strip())}` is a parameter expansion operator agentcli does "
            "not model"
        )
    name = named[0].text
    if not _NAME.fullmatch(name):
        raise NotUnderstood(f"`{short(node.text.strip())}` is not a plain variable")
    value, from_env = b.scope.lookup(name)
    if from_env:
        b.variables.append(name)
    if value is None:
        b.variable_unknown = b.unknown = True
        return
    if name in ("@", "*") and not quoted:
        return
    b.expanded(value, quoted)


# -- from pieces to fields ----------------------------------------------------------

_Char = tuple[str, bool]  # a character and whether it is quoted


def _fields(b: _Builder, scope: Scope, text: str, *, glob_ok: bool) -> tuple[str, ...]:
    pieces = b.pieces
    if not any(expanded for _t, _q, expanded in pieces):
        words = _brace_expand([(c, q) for t, q, _e in pieces for c in t])
        if words is None:
            raise NotUnderstood(f"`{short(text)}` expands to too many words")
        split = [_tilde(w, scope) for w in words]
    else:
        if _has_brace(pieces):
            raise NotUnderstood(f"`{short(text)}` mixes brace expansion with expansions")
        split = _split(pieces, scope)
    out: list[str] = []
    for chars in split:
        out.extend(_glob(chars, scope, text, b) if glob_ok else ["".join(c for c, _ in chars)])
        if len(out) > MAX_FIELDS:
            raise NotUnderstood(f"`{short(text)}` expands to too many words")
    return tuple(out)


def _has_brace(pieces: list[_Piece]) -> bool:
    chars = [(c, q) for t, q, e in pieces if not e for c in t]
    return _first_brace(chars) is not None


def _split(pieces: list[_Piece], scope: Scope) -> list[list[_Char]]:
    """Word splitting: unquoted expansion results split on blanks."""
    fields: list[list[_Char]] = []
    current: list[_Char] = []
    started = False
    for index, (text, quoted, expanded) in enumerate(pieces):
        if index == 0 and not expanded:
            text = _tilde_text(text, quoted, scope)
        if not expanded or quoted:
            current.extend((c, quoted) for c in text)
            started = started or quoted or bool(text)
            continue
        for c in text:
            if c in _IFS:
                if started:
                    fields.append(current)
                current, started = [], False
            else:
                current.append((c, False))
                started = True
    if started:
        fields.append(current)
    return fields


def _tilde_text(text: str, quoted: bool, scope: Scope) -> str:
    if quoted or not text.startswith("~"):
        return text
    return "".join(c for c, _ in _tilde([(c, False) for c in text], scope))


def _tilde(chars: list[_Char], scope: Scope) -> list[_Char]:
    """`~` at the start, and after `=` / `:` in an assignment-like word."""
    out = _tilde_at(chars, 0, scope)
    text = "".join(c for c, _ in out)
    match = _ASSIGNMENT_WORD.match(text)
    if match and all(not q for _, q in out[: match.end()]):
        i = match.end()
        while i < len(out):
            if i == match.end() or (out[i - 1] == (":", False)):
                out = _tilde_at(out, i, scope)
            i += 1
    return out


def _tilde_at(chars: list[_Char], start: int, scope: Scope) -> list[_Char]:
    if start >= len(chars) or chars[start] != ("~", False):
        return chars
    end = start + 1
    while end < len(chars) and chars[end][0] not in "/:" and not chars[end][1]:
        end += 1
    if end < len(chars) and chars[end][1]:
        return chars  # a quoted character in the prefix: no expansion
    prefix = "".join(c for c, _ in chars[start + 1 : end])
    home = _tilde_value(prefix, scope)
    if home is None:
        return chars
    return chars[:start] + [(c, True) for c in home] + chars[end:]


def _tilde_value(prefix: str, scope: Scope) -> str | None:
    if prefix == "":
        value, _ = scope.lookup("HOME")
        return value if value is not None else str(Path.home())
    if prefix in ("+", "-"):
        value, _ = scope.lookup("PWD" if prefix == "+" else "OLDPWD")
        if value is None:
            raise NotUnderstood(f"`~{prefix}` names a folder that is not known before it runs")
        return value
    try:
        return pwd.getpwnam(prefix).pw_dir
    except KeyError:
        return None


def _brace_expand(chars: list[_Char]) -> list[list[_Char]] | None:
    """Bash brace expansion on unquoted braces: `a{b,c}` and `{1..3}`; None if too many."""
    results = [chars]
    done: list[list[_Char]] = []
    while results:
        word = results.pop()
        found = _first_brace(word)
        if found is None:
            done.append(word)
        else:
            start, end, alternatives = found
            for alt in reversed(alternatives):
                results.append(word[:start] + alt + word[end + 1 :])
        if len(done) + len(results) > MAX_FIELDS:
            return None
    return done


def _first_brace(chars: list[_Char]) -> tuple[int, int, list[list[_Char]]] | None:
    for start, (c, q) in enumerate(chars):
        if c != "{" or q or (start > 0 and chars[start - 1] == ("$", False)):
            continue
        depth, commas = 0, list[int]()
        for end in range(start, len(chars)):
            ch, quoted = chars[end]
            if quoted:
                continue
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    body = chars[start + 1 : end]
                    if commas:
                        bounds = [start, *commas, end]
                        alts = [chars[a + 1 : z] for a, z in itertools.pairwise(bounds)]
                        return start, end, alts
                    sequence = _sequence("".join(c for c, _ in body))
                    if sequence is not None and all(not q for _, q in body):
                        return start, end, [[(c, True) for c in s] for s in sequence]
                    break
            elif ch == "," and depth == 1:
                commas.append(end)
    return None


def _sequence(body: str) -> list[str] | None:
    match = re.fullmatch(r"(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?", body)
    if not match:
        return None
    a, z, step = match.group(1), match.group(2), abs(int(match.group(3) or 1)) or 1
    if a.lstrip("-").isdigit() and z.lstrip("-").isdigit():
        lo, hi = int(a), int(z)
        if abs(hi - lo) // step > MAX_FIELDS:
            return ["x"] * (MAX_FIELDS + 1)
        rng = range(lo, hi + 1, step) if lo <= hi else range(lo, hi - 1, -step)
        return [str(n) for n in rng]
    if a.isalpha() and z.isalpha():
        lo, hi = ord(a), ord(z)
        rng = range(lo, hi + 1, step) if lo <= hi else range(lo, hi - 1, -step)
        return [chr(n) for n in rng]
    return None


_POSIX_CLASS = re.compile(r"\[[^\]]*\[[:=.]")


def _glob(chars: list[_Char], scope: Scope, text: str, b: _Builder) -> list[str]:
    """Pathname expansion: the matching names, sorted; the word itself when none match."""
    word = "".join(c for c, _ in chars)
    if not any(c in "*?[" and not q for c, q in chars):
        return [word]
    pattern = "".join(glob.escape(c) if q else c for c, q in chars)
    if _POSIX_CLASS.search(pattern) or (re.search(r"\((?=.*\))", pattern) and "@(" in pattern):
        raise NotUnderstood(f"`{short(text)}` uses glob syntax agentcli does not model")
    if scope.cwds is None:
        raise NotUnderstood(f"`{short(text)}` is a glob in a folder that is not known")
    matches: set[str] = set()
    for cwd in scope.cwds:
        matches.update(glob.glob(pattern, root_dir=cwd))
        matches.update(_dot_dirs(pattern, cwd))
    if not matches:
        b.unmatched_glob = True
    return sorted(matches) or [word]


def _dot_dirs(pattern: str, cwd: Path) -> list[str]:
    """Older bash matches `.*` against `.` and `..`; count them in, to be safe."""
    head, _, last = pattern.rpartition("/")
    if not last.startswith(".") or not any(c in last for c in "*?["):
        return []
    import fnmatch

    base = head + "/" if head else ""
    if head and not os.path.isdir(os.path.join(cwd, head)):
        return []
    return [base + name for name in ("..",) if fnmatch.fnmatchcase(name, last)]
