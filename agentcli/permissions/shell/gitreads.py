"""Git commands that print what was committed without naming a path.

`git log -p`, `git show REV`, `git grep PATTERN`, `git cat-file --batch-all-objects
--batch`, `git archive HEAD`, `git diff HEAD~5` print the contents (or names) of
any file ever committed: a file a Read deny rule covers is among them, and
checking the paths on the line finds nothing. Under a Read deny rule that can
cover files of the repository (reading.py decides), such a command asks. It is
fine when pathspecs after `--` narrow it to files the rule does not cover
(`git log -p -- src`), or when it only names `REV:path` files, which are
checked one by one (`git show HEAD:README.md`).

What counts (`history_reach`):
- always: `show`, `diff` (and `diff-tree`/`diff-index`/`diff-files`), `grep`,
  `archive`, `bundle`, `format-patch`, `fast-export`, `range-diff`,
  `request-pull`, `merge-tree`, `unpack-file`, `checkout-index`, `ls-tree`,
  `whatchanged`, `cat-file` (except `-t`/`-s`/`-e`, and objects named `REV:path`);
- with an option that shows changes or names (`-p`, `-u`, `-U`, `--stat`,
  `--name-only`, `-L`, `-S`/`-G` pickaxe searches...): `log`, `reflog`,
  `show-branch`, `stash`, `rev-list` (`--objects`), `shortlog`;
- a git whose own options (before the subcommand) are not modelled, and a
  subcommand git does not have itself (an alias from its config, `lg = log
  -p`, or an external `git-NAME` program).

Plain `git log`, `git status`, `git branch` and the like print messages and
names of the work tree, not committed files: they do not ask for this.
Git's global options are read here (`-C DIR`, `-c k=v`, `--git-dir`...), so
`git -C sub --no-pager log -p` is still `log -p` in `sub`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agentcli.permissions.shell.options import Arg, parse_options, spec

_GLOBAL = spec(
    flags={"--no-pager", "-P", "-p", "--paginate", "--bare", "--literal-pathspecs",
           "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--no-replace-objects",
           "--no-optional-locks", "--no-advice", "--no-lazy-fetch"},
    values={"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env",
            "--super-prefix", "--list-cmds", "--attr-source"},
    optional={"--exec-path"},
)  # fmt: skip
ALWAYS = frozenset(
    {"show", "diff", "diff-tree", "diff-index", "diff-files", "grep", "archive", "bundle",
     "format-patch", "fast-export", "range-diff", "request-pull", "merge-tree", "unpack-file",
     "checkout-index", "ls-tree", "whatchanged", "cat-file", "difftool", "annotate", "blame"}
)  # fmt: skip
WITH_DETAIL = frozenset({"log", "reflog", "show-branch", "stash", "rev-list", "shortlog"})
_DETAIL = (
    "-p", "--patch", "-u", "-U", "--unified", "--cc", "-c", "-m", "--stat", "--numstat",
    "--shortstat", "--name-only", "--name-status", "--raw", "--summary", "--full-diff",
    "--dirstat", "--follow", "-L", "-S", "-G", "--pickaxe", "--objects", "--diff-merges",
    "--remerge-diff", "--word-diff", "--color-words", "--compact-summary", "--patch-with",
    "--binary", "--textconv", "--dd", "--submodule=diff", "--find-object",
)  # fmt: skip
# Git's own commands that print no committed file. Any other word may be an alias
# from git's config (`lg = log -p`) or an external `git-NAME` program: it counts.
QUIET = frozenset(
    {"add", "am", "apply", "bisect", "branch", "checkout", "cherry-pick", "clean", "clone",
     "commit", "config", "describe", "fetch", "gc", "init", "merge", "merge-base", "mv",
     "pull", "push", "rebase", "remote", "reset", "restore", "revert", "rev-parse", "rm",
     "sparse-checkout", "status", "submodule", "switch", "tag", "worktree", "maintenance",
     "prune", "repack", "fsck", "count-objects", "for-each-ref", "show-ref", "symbolic-ref",
     "update-ref", "update-index", "read-tree", "write-tree", "commit-tree", "hash-object",
     "mktree", "mktag", "verify-commit", "verify-tag", "var", "version", "help",
     "check-ignore", "check-attr", "check-ref-format", "ls-remote", "name-rev", "cherry",
     "rerere", "notes", "ls-files", "blame", "annotate", "mergetool", "citool", "gui",
     "credential", "column", "bugreport", "send-pack", "fetch-pack", "pack-refs",
     "prune-packed", "replace", "stage"}
)  # fmt: skip
# cat-file options that print an object's type, size or existence, not its content.
_CAT_FILE_QUIET = frozenset({"-t", "-s", "-e"})


@dataclass(frozen=True, slots=True)
class GitCall:
    """`git [global options] SUB REST`, as git reads it."""

    sub: str
    rest: tuple[str, ...]
    chdirs: tuple[str, ...]  # `-C DIR`, in order (each relative to the one before)
    repo_moved: bool  # `--git-dir`, `--work-tree`: another repository than the folder's


def git_call(argv: Sequence[Arg]) -> GitCall | None:
    """The subcommand git runs; None when a word or a global option is not understood."""
    if not argv or any(a is None for a in argv):
        return None
    parsed = parse_options(tuple(argv[1:]), _GLOBAL)
    if parsed is None or not parsed.operands:
        return None
    sub, *rest = parsed.operands
    if sub is None:
        return None
    chdirs = tuple(v or "" for name, v in parsed.options if name == "-C")
    moved = parsed.has("--git-dir", "--work-tree")
    return GitCall(sub, tuple(a for a in rest if a is not None), chdirs, moved)


def history_reach(call: GitCall) -> list[str] | None:
    """What of the history it can print without naming files: None (nothing), the
    pathspecs after `--` that narrow it, or [] (anything ever committed)."""
    pathspecs, revision_paths, positional = _operands(call)
    first = call.rest[0] if call.rest else ""
    if call.sub in ("blame", "annotate"):
        return None  # it reads the file it names (checked as a path)
    if call.sub == "cat-file" and any(a in _CAT_FILE_QUIET for a in call.rest):
        return None
    if call.sub in ("show", "cat-file") and revision_paths and not positional:
        return None  # only `REV:path` objects, each checked
    message_only = {"-s", "--no-patch"} & set(call.rest)
    if call.sub == "show" and message_only and not any(_is_detail(a) for a in call.rest):
        return None  # the commit message only
    if call.sub == "stash":
        shows = first == "show" or (first == "list" and any(_is_detail(a) for a in call.rest))
        return pathspecs if shows else None
    if call.sub in WITH_DETAIL and not any(_is_detail(a) for a in call.rest):
        return None
    if call.sub in QUIET:
        return None
    return pathspecs  # ALWAYS, WITH_DETAIL with detail, or an alias / external command


def _is_detail(arg: str) -> bool:
    return arg.startswith(_DETAIL)


def _operands(call: GitCall) -> tuple[list[str], list[str], int]:
    """Pathspecs after `--`, `REV:path` words, and how many other positionals there are."""
    pathspecs: list[str] = []
    revision_paths: list[str] = []
    positional = 0
    dashes = False
    for arg in call.rest:
        if dashes:
            pathspecs.append(arg)
        elif arg == "--":
            dashes = True
        elif arg.startswith("-"):
            continue
        elif ":" in arg:
            revision_paths.append(arg)
        else:
            positional += 1
    return pathspecs, revision_paths, positional
