"""The decision material for one Bash line: rule matches, what it reads, whether it is allowed.

policy.py asks three questions, in its own order:
- `rule_match(specs)`: does a deny (or ask) rule match any command the line
  runs, anywhere in the tree and behind wrappers? When the line holds
  something we do not understand, or a command whose name is not known
  before it runs, the answer can be "cannot tell" (`certain=False`): the
  caller asks rather than lets it through, even in bypassPermissions mode.
  A rule's words that appear in the text of a line we do not fully
  understand count as a match (`\\rm`, `eval "r""m" x`).
- `denied_read()`: does a read-only command (or a `<` redirect) read a file
  a Read deny rule covers? Then the line is refused.
- `verdict(allow_specs)`: is every command allowed, by a rule or as
  read-only, with every path it touches where it may land?
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from agentcli.permissions.shell.commands import Command, Redirect, Walk, walk_line
from agentcli.permissions.shell.paths import Reads, reads_of
from agentcli.permissions.shell.specifiers import first_words, matches, suggest_prefix
from agentcli.permissions.shell.words import Scope
from agentcli.permissions.shell.wrappers import Arg
from agentcli.permissions.special_paths import SpecialPlaces
from agentcli.tools.readonly_commands import is_read_only_argv

MAX_TREE_ENTRIES = 20_000
MAX_NAME_MATCHES = 32
_QUIET = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/zero"})
# Environment variables a read-only command may print: none of them is a secret.
_SAFE_ENV = frozenset(
    {
        "HOME", "USER", "LOGNAME", "PWD", "OLDPWD", "PATH", "SHELL", "LANG", "LANGUAGE",
        "TERM", "TMPDIR", "TZ", "EDITOR", "VISUAL", "PAGER", "HOSTNAME", "COLUMNS", "LINES",
        "NODE_ENV", "CI", "VIRTUAL_ENV", "CONDA_DEFAULT_ENV", "GOPATH", "GOROOT", "JAVA_HOME",
        "CARGO_HOME", "RUSTUP_HOME", "PYTHONPATH", "NVM_DIR", "SHLVL", "DISPLAY",
    }
)  # fmt: skip
_CREDENTIAL = re.compile(
    r"KEY|TOKEN|SECRET|PASS|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|CERT|^ANTHROPIC_|^AWS_|"
    r"^AZURE_|^GCP_|^GOOGLE_|^GITHUB_|^GH_|^GITLAB_|^NPM_|^OPENAI_|^DATABASE_URL|DSN",
    re.IGNORECASE,
)
# Prefix assignments (`NODE_ENV=test npm test`) that change nothing worth asking about.
_HARMLESS_PREFIX = frozenset(
    {"NODE_ENV", "CI", "NO_COLOR", "FORCE_COLOR", "TERM", "LANG", "LC_ALL", "TZ",
     "RUST_BACKTRACE", "RUST_LOG", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "DEBUG"}
)  # fmt: skip
_TOKEN = re.compile(r"[^\s;&|()<>`$={}\[\],!#]+")


@dataclass(frozen=True, slots=True)
class ShellContext:
    """What the analysis needs from the session (the policy builds it)."""

    cwd: Path  # where the line starts: the shell's current folder
    roots: tuple[Path, ...]  # the project and added folders
    env: Mapping[str, str]  # the environment the command will get
    project: Path  # for special paths (settings files)
    read_denied: Callable[[Path], bool] | None = None  # None: no Read deny rules
    scratch: Path | None = None  # agentcli's own saved outputs: reading them is fine


@dataclass(frozen=True, slots=True)
class RuleMatch:
    spec: str
    certain: bool  # False: the rule may match, the line cannot tell
    reason: str = ""


@dataclass(frozen=True, slots=True)
class LineVerdict:
    allowed: bool
    read_only: bool  # every command only reads (paths may still need a question)
    reason: str
    rule: str | None = None


@dataclass(frozen=True, slots=True)
class _Judgement:
    ok: bool
    reason: str = ""
    suggest: tuple[str, ...] = ()  # rules that would allow it
    rules: tuple[str, ...] = ()  # the allow rules it relies on


def analyse(command: str, ctx: ShellContext) -> Analysis:
    scope = Scope(
        env=ctx.env,
        cwds=(Path(os.path.realpath(ctx.cwd)),),
        env_complete=not ctx.env.get("BASH_ENV"),
    )
    return Analysis(command, ctx, walk_line(command, scope))


@dataclass
class Analysis:
    command: str
    ctx: ShellContext
    walk: Walk
    _paths: _Paths = field(init=False)

    def __post_init__(self) -> None:
        self._paths = _Paths(self.ctx)

    @property
    def understood(self) -> bool:
        return not self.walk.problems and not self.walk.dynamic

    @property
    def not_understood(self) -> str:
        return (self.walk.problems + self.walk.dynamic)[0] if not self.understood else ""

    # -- deny and ask rules ---------------------------------------------------------

    def rule_match(self, specs: Sequence[str]) -> RuleMatch | None:
        if not specs:
            return None
        maybe: str | None = None
        for command in self.walk.all_commands():
            for view in _name_views(command):
                for spec in specs:
                    hit = matches(spec, view)
                    if hit:
                        return RuleMatch(spec, True)
                    if hit is None and maybe is None:
                        maybe = spec
        if self.understood and maybe is None:
            return None
        text_hit = self._in_text(specs)
        if text_hit is not None:
            return RuleMatch(
                text_hit, True, "its words appear in a line agentcli cannot fully read"
            )
        if maybe is not None:
            why = "a word it needs is not known before the line runs"
            return RuleMatch(maybe, False, why)
        return RuleMatch(specs[0], False, self.not_understood)

    @cached_property
    def _tokens(self) -> list[str]:
        text = self.command.replace("\\\n", "")  # bash joins lines that end in `\`
        text = re.sub(r"\\(.)", r"\1", text, flags=re.DOTALL).replace("'", "").replace('"', "")
        tokens = _TOKEN.findall(text)
        return [t.rsplit("/", 1)[-1] if "/" in t else t for t in tokens]

    def _in_text(self, specs: Sequence[str]) -> str | None:
        tokens = self._tokens
        for spec in specs:
            words = [w.rsplit("/", 1)[-1] if i == 0 else w for i, w in enumerate(first_words(spec))]
            n = len(words)
            if n and any(tokens[i : i + n] == words for i in range(len(tokens) - n + 1)):
                return spec
        return None

    # -- Read deny rules ------------------------------------------------------------

    def denied_read(self) -> str | None:
        """Why the line is refused: it reads a file a Read deny rule covers."""
        if self.ctx.read_denied is None:
            return None
        for command in self.walk.all_commands():
            for redirect in command.redirects:
                if redirect.reads and redirect.target is not None and redirect.target.values:
                    for value in redirect.target.values:
                        if self._paths.denied(value, redirect.cwds):
                            return f"it reads {value}, which a Read deny rule covers"
            if not _listed(command):
                continue
            reads = self._reads(command)
            for value in reads.files + reads.maybe + reads.repo:
                cwds = self._repo_cwds(command) if value in reads.repo else command.cwds
                if self._paths.denied(value, cwds):
                    return f"`{_short(command.text)}` reads {value}, which a Read deny rule covers"
        return None

    # -- allow ------------------------------------------------------------------------

    @cached_property
    def read_only(self) -> bool:
        """Every command only reads and writes no file (where it reads is judged apart)."""
        return (
            self.understood
            and bool(self.walk.commands)
            and all(self._only_reads(c) for c in self.walk.commands)
        )

    def _only_reads(self, command: Command) -> bool:
        if command.dynamic_name or command.assignments or not command.exact:
            return False
        if any(r.writes and r.target is not None and r.target.values != ("/dev/null",)
               for r in command.redirects):  # fmt: skip
            return False
        if not command.argv:
            return True
        unwrapped = command.unwrapped
        if unwrapped is not None and (unwrapped.inners or unwrapped.script is not None):
            clean = not (unwrapped.needs_own_rule or unwrapped.candidates or unwrapped.opaque)
            own = command.name != "find" or is_read_only_argv([a or "" for a in command.argv])
            return clean and own and all(self._only_reads(c) for c in command.inner)
        return self._read_only(command)

    def verdict(self, allow_specs: Sequence[str]) -> LineVerdict:
        judgements = [self._judge(c, allow_specs) for c in self.walk.commands]
        read_only = self.read_only
        if not self.understood:
            return LineVerdict(
                False, False, f"agentcli cannot check this command: {self.not_understood}"
            )
        if not judgements:
            return LineVerdict(False, False, "the command is empty")
        failed = next((j for j in judgements if not j.ok), None)
        if failed is not None:
            return LineVerdict(False, read_only, failed.reason)
        rules = list(dict.fromkeys(r for j in judgements for r in j.rules))
        if rules:
            shown = ", ".join(f"Bash({r})" for r in rules)
            return LineVerdict(True, read_only, f"allowed by {shown}", shown)
        return LineVerdict(True, True, "read-only command")

    def suggestions(self, allow_specs: Sequence[str] = ()) -> list[str]:
        """Prefix rules for the commands not yet allowed; none when the line is not understood."""
        if not self.understood:
            return []
        out: list[str] = []
        for command in self.walk.commands:
            for spec in self._judge(command, allow_specs).suggest:
                if spec not in out:
                    out.append(spec)
        return out

    def _judge(self, command: Command, specs: Sequence[str]) -> _Judgement:
        """Is one command allowed: by a rule, through a wrapper, or as read-only?"""
        problem = self._structure(command) or self._redirect_problem(command)
        if problem:
            return _Judgement(False, problem)
        if not command.argv:
            return _Judgement(True)
        argv = [a for a in command.argv if a is not None]
        read_only = self._only_reads(command)
        rule = next((s for s in specs if matches(s, command.argv) is True), None)
        if rule is not None:
            trouble = self._secret_problem(command, rule_allowed=True) or self._argument_problem(
                command
            )
            if trouble is None and read_only:
                trouble = self._read_problem(command, rule_allowed=True)
            return _Judgement(False, trouble) if trouble else _Judgement(True, rules=(rule,))
        wrapped = self._through_wrapper(command, specs)
        if wrapped is not None:
            return wrapped
        if read_only:
            trouble = self._secret_problem(command, rule_allowed=False) or self._read_problem(
                command, rule_allowed=False
            )
            return (
                _Judgement(True) if trouble is None else _Judgement(False, trouble, _suggest(argv))
            )
        shown = _short(" ".join(a if a is not None else "…" for a in command.argv))
        return _Judgement(False, f"`{shown}` is not allowed by any rule", _suggest(argv))

    def _structure(self, command: Command) -> str | None:
        if command.dynamic_name:
            return "the command name is not known before the line runs"
        for name, _word in command.assignments:
            if name not in _HARMLESS_PREFIX:
                return f"it sets {name} for the command, which can change what it runs"
        if not command.exact:
            return f"`{command.via}` has options agentcli does not model"
        if command.words and len(command.words[0].values or ()) != 1:
            return f"the command name `{_short(command.words[0].text)}` is not one plain word"
        return None

    def _argument_problem(self, command: Command) -> str | None:
        """A rule vouches for a command, not for what it may do to protected files.

        An argument or option value naming a protected place (`--output=.git/config`)
        asks, and so do arguments that are not known before the line runs (they
        could name one).
        """
        if any(a is None for a in command.argv):
            return f"`{_short(command.text)}` has arguments that are not known before it runs"
        for arg in command.argv[1:]:
            if arg.startswith("-") and "=" not in arg:
                continue
            value = arg.split("=", 1)[1] if arg.startswith("-") else arg
            if value and self._paths.looks_like_path(value, command.cwds):
                problem = self._paths.write(value, command.cwds, special_only=True)
                if problem:
                    return f"`{_short(command.text)}` names {value}: {problem}"
        return None

    def _through_wrapper(self, command: Command, specs: Sequence[str]) -> _Judgement | None:
        """A wrapper that adds nothing is allowed when everything it runs is."""
        unwrapped = command.unwrapped
        if unwrapped is None or not (unwrapped.inners or unwrapped.script is not None):
            return None
        if (
            unwrapped.needs_own_rule
            or unwrapped.candidates
            or unwrapped.dynamic
            or unwrapped.opaque
        ):
            why = (
                unwrapped.needs_own_rule
                or f"`{command.name}` runs a command agentcli cannot pin down"
            )
            return _Judgement(False, why, _suggest([a or "" for a in command.argv]))
        if command.name == "find":
            if not is_read_only_argv([a or "" for a in command.argv]):
                return None
            own = self._read_problem(command, rule_allowed=False, content=True)
            if own:
                return _Judgement(False, own)
        inner = [self._judge(c, specs) for c in command.inner]
        failed = next((j for j in inner if not j.ok), None)
        if failed is not None:
            return _Judgement(False, failed.reason, tuple(s for j in inner for s in j.suggest))
        return _Judgement(True, rules=tuple(r for j in inner for r in j.rules))

    def _read_only(self, command: Command) -> bool:
        name = command.name
        if name in ("cd", "pushd"):
            return not command.via
        if command.unwrapped and (command.unwrapped.inners or command.unwrapped.script):
            return False
        if any(a is None for a in command.argv):
            if command.via.startswith("find"):
                return is_read_only_argv([a for a in command.argv if a is not None])
            return _no_paths(command) and is_read_only_argv([a for a in command.argv if a])
        return is_read_only_argv(command.argv)  # type: ignore[arg-type]

    # -- paths ------------------------------------------------------------------------

    def _reads(self, command: Command) -> Reads:
        if command.name in ("cd", "pushd"):
            return Reads(files=[str(f) for f in command.lands or ()])
        return reads_of([a for a in command.argv if a is not None])

    def _read_problem(
        self, command: Command, *, rule_allowed: bool, content: bool = False
    ) -> str | None:
        unknown = any(a is None for a in command.argv) and not command.via.startswith("find")
        if unknown and not _no_paths(command):
            return f"`{_short(command.text)}` names files that are not known before it runs"
        reads = self._reads(command)
        if command.name in ("cd", "pushd"):
            if command.lands is None:
                return (
                    f"`{_short(command.text)}` moves to a folder that is not known before it runs"
                )
            for folder in command.lands:
                finding = self._paths.read(str(folder), None, tree=False, hidden=False)
                if finding:
                    return f"`{_short(command.text)}`: {finding[1]}"
            return None
        hidden = reads.hidden or content
        for value in reads.files + reads.maybe:
            maybe = value not in reads.files
            if maybe and not self._paths.looks_like_path(value, command.cwds):
                continue
            tree = value in reads.tree or (content and value in reads.tree)
            finding = self._paths.read(value, command.cwds, tree=tree, hidden=hidden)
            if finding is None or (rule_allowed and finding[0] == "outside"):
                continue
            return f"`{_short(command.text)}`: {finding[1]}"
        for value in reads.repo:
            finding = self._paths.read(value, self._repo_cwds(command), tree=False, hidden=False)
            if finding is not None and not (rule_allowed and finding[0] == "outside"):
                return f"`{_short(command.text)}`: {finding[1]}"
        if command.name == "git":
            finding = self._paths.read(".", command.cwds, tree=True, hidden=False)
            if finding is not None and finding[0] != "outside":
                return f"`{_short(command.text)}`: {finding[1]}"
        return None

    def _repo_cwds(self, command: Command) -> tuple[Path, ...] | None:
        """`REV:path` is relative to the top of the repository (`REV:./path` to the folder)."""
        if command.cwds is None:
            return None
        return tuple(_repo_top(cwd) for cwd in command.cwds)

    def _redirect_problem(self, command: Command) -> str | None:
        for redirect in command.redirects:
            problem = self._redirect(redirect)
            if problem:
                return problem
        return None

    def _redirect(self, redirect: Redirect) -> str | None:
        target = redirect.target
        if target is None:
            return None
        if target.values is None:
            return f"it redirects to `{_short(target.text)}`, which is not known before it runs"
        if len(target.values) != 1:
            return f"the redirect target `{_short(target.text)}` is ambiguous"
        value = target.values[0]
        if value in _QUIET:
            return None
        if redirect.writes:
            finding = self._paths.write(value, redirect.cwds)
            return f"it writes to {value}: {finding}" if finding else None
        if redirect.reads:
            finding = self._paths.read(value, redirect.cwds, tree=False, hidden=False)
            return f"it reads {value}: {finding[1]}" if finding else None
        return f"`{redirect.op}` redirects are not modelled"

    def _secret_problem(self, command: Command, *, rule_allowed: bool) -> str | None:
        for word in _all_words(command):
            if word.variable_unknown and not rule_allowed:
                return f"`{_short(word.text)}` has a value that is not known before it runs"
            for name in word.variables:
                if _CREDENTIAL.search(name):
                    return f"it expands ${name}, which may hold a credential"
                safe = name in _SAFE_ENV or name.startswith("LC_") or name not in self.ctx.env
                if not rule_allowed and not safe:
                    return f"it prints ${name} from the environment, which may hold a secret"
        return None


def _all_words(command: Command) -> Iterator:
    yield from command.words
    for _name, word in command.assignments:
        yield word
    for redirect in command.redirects:
        yield from (w for w in (redirect.target, redirect.body) if w is not None)


def _listed(command: Command) -> bool:
    known = [a for a in command.argv if a is not None]
    return bool(known) and (is_read_only_argv(known) or known[0] in ("cd", "pushd"))


def _no_paths(command: Command) -> bool:
    known = [a for a in command.argv if a is not None]
    return bool(known) and known[0] in (
        "echo",
        "true",
        "false",
        "pwd",
        "whoami",
        "uname",
        "[[",
        "test",
    )


def _name_views(command: Command) -> Iterator[tuple[Arg, ...]]:
    """Every way a deny or ask rule could read this command.

    The program's folder is dropped (`/bin/rm` is `rm`); a name that is a
    glob may be any of its matches; options before a subcommand are skipped
    (`git -C . push` is `git push`), each either with or without a value.
    """
    argv = command.argv
    if not argv:
        return
    first = command.words[0].values if command.words and command.words[0].values else ()
    names = dict.fromkeys([argv[0], *first[:MAX_NAME_MATCHES]])
    for name in names:
        base = name.rsplit("/", 1)[-1] if name else name
        for view in _skipping_options((base, *argv[1:])):
            yield view
            if name != base:
                yield (name, *view[1:])


def _skipping_options(argv: tuple[Arg, ...]) -> Iterator[tuple[Arg, ...]]:
    yield argv
    options = 0
    while 1 + options < len(argv) and (argv[1 + options] or "").startswith("-"):
        options += 1
    if not options or options > 4:
        return
    rest = argv[1:]
    for mask in range(2**options):  # which options take the next word as a value
        kept, i, skip = [], 0, 0
        while i < len(rest):
            word = rest[i]
            if skip < options and word is not None and word.startswith("-"):
                takes_value = bool(mask >> skip & 1) and "=" not in word
                skip += 1
                i += 2 if takes_value else 1
                continue
            kept.extend(rest[i:])
            break
        yield (argv[0], *kept)


def _suggest(argv: Sequence[str]) -> tuple[str, ...]:
    spec = suggest_prefix([a for a in argv if a])
    return (spec,) if spec else ()


def _repo_top(cwd: Path) -> Path:
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return cwd


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _Paths:
    """Where a path lands, and what that means: outside, special, denied.

    Paths are plain text here (absolute, normalised): a decision checks many
    of them and must stay well under a millisecond.
    """

    def __init__(self, ctx: ShellContext) -> None:
        self.ctx = ctx
        self.roots = tuple(os.path.realpath(r) for r in ctx.roots)
        self.scratch = os.path.realpath(ctx.scratch) if ctx.scratch else None
        self.special = SpecialPlaces.of(ctx.project)
        self._trees: dict[tuple[str, bool], str | None] = {}
        self._resolved: dict[tuple[str, tuple[Path, ...] | None], list[tuple[str, str]]] = {}

    def is_denied(self, path: str) -> bool:
        return self.ctx.read_denied is not None and self.ctx.read_denied(Path(path))

    def inside(self, real: str) -> bool:
        return any(_under(real, root) for root in self.roots)

    def _places(self, value: str, cwds: tuple[Path, ...] | None) -> list[tuple[str, str]] | None:
        """(as written, with every link followed) for each folder it may be relative to."""
        if value.startswith("/"):
            cwds = (Path("/"),)
        elif cwds is None:
            return None
        key = (value, cwds)
        if key not in self._resolved:
            joined = [os.path.join(base, value) for base in cwds]
            self._resolved[key] = [(os.path.normpath(j), os.path.realpath(j)) for j in joined]
        return self._resolved[key]

    def looks_like_path(self, value: str, cwds: tuple[Path, ...] | None) -> bool:
        if "/" in value or value.startswith("~") or value in (".", ".."):
            return True
        if cwds is None:
            return True
        return bool(value) and any(os.path.lexists(os.path.join(c, value)) for c in cwds)

    def denied(self, value: str, cwds: tuple[Path, ...] | None) -> bool:
        places = self._places(value, cwds) or []
        return any(self.is_denied(lit) or self.is_denied(real) for lit, real in places)

    def read(
        self, value: str, cwds: tuple[Path, ...] | None, *, tree: bool, hidden: bool
    ) -> tuple[str, str] | None:
        """(kind, reason) when reading `value` is a problem: deny, special, outside, tree."""
        if value.startswith("/dev/fd/") or value in _QUIET:
            return None
        places = self._places(value, cwds)
        if places is None:
            return ("unknown", f"{value} is relative to a folder that is not known before it runs")
        for literal, real in places:
            if self.is_denied(literal) or self.is_denied(real):
                return ("deny", f"{value} is covered by a Read deny rule")
            special = self.special.reason(literal, writing=False) or self.special.reason(
                real, writing=False
            )
            if special:
                return ("special", special)
            if not self.inside(real) and not (self.scratch and _under(real, self.scratch)):
                return ("outside", f"it reads {real}, outside the project")
            if tree and os.path.isdir(real):
                problem = self._tree(real, hidden)
                if problem:
                    return ("tree", problem)
        return None

    def write(
        self, value: str, cwds: tuple[Path, ...] | None, *, special_only: bool = False
    ) -> str | None:
        places = self._places(value, cwds)
        if places is None:
            return "the folder it is relative to is not known before it runs"
        for literal, real in places:
            special = self.special.reason(literal, writing=True) or self.special.reason(
                real, writing=True
            )
            if special:
                return special
            if not special_only and not self.inside(real):
                return "outside the project"
        return None

    def _tree(self, folder: str, hidden: bool) -> str | None:
        if not hidden and self.ctx.read_denied is None:
            return None  # nothing to look for
        key = (folder, hidden)
        if key not in self._trees:
            self._trees[key] = self._walk(folder, hidden)
        return self._trees[key]

    def _walk(self, folder: str, hidden: bool) -> str | None:
        """A recursive read over `folder`: does it reach a denied or secret file?"""
        seen = 0
        everything = f"it reads everything under {folder}"
        for top, dirs, files in os.walk(folder):
            dirs[:] = [d for d in dirs if d != ".git"]
            for name in dirs + files:
                seen += 1
                if seen > MAX_TREE_ENTRIES:
                    return f"{everything}, too many files to check"
                path = os.path.join(top, name)
                if self.is_denied(path):
                    return f"{everything}, which holds {path} (a Read deny rule covers it)"
                if not hidden:
                    continue
                if name.startswith(".env"):
                    return f"{everything}, which holds {path} (may hold secrets)"
                if os.path.islink(path) and not self.inside(os.path.realpath(path)):
                    return f"{everything}, where {path} links outside the project"
        return None


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def line_is_read_only(command: str) -> bool:
    """For the Bash tool's `is_read_only`: every command only reads, all of it understood."""
    cwd = Path.cwd()
    ctx = ShellContext(cwd=cwd, roots=(Path("/"),), env=dict(os.environ), project=cwd)
    return analyse(command, ctx).read_only
