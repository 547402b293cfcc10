"""Issue 22, class 7: git readers that print committed files without naming a path.

Under `deny Read(./private/**)`, `git log -p`, `git show REV`, `git grep`,
`git cat-file --batch-all-objects --batch` printed a denied file's committed
content: the paths on the line named nothing denied. Here the denied file is
committed and then deleted from the work tree, so no look at the folder can
find it: only knowing what the command prints does. Such a command asks
under a Read deny rule that can cover the repository's files, whatever
allows it (read-only, a prefix rule, `git -C`/`-c` spellings); narrowing it
with pathspecs away from the denied files, or reading `REV:path` files one by
one, is still free; without such a rule nothing changes.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.permissions.test_attack_shell import (
    PRIVATE,
    Case,
    assert_refused_and_nothing_happened,
    decide,
    layout,
    run_headless,
    snapshot,
)

GIT = ("Bash(git:*)",)


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


@pytest.fixture
def project(tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """private/key was committed, then deleted from the work tree (it stays in history)."""
    monkeypatch.delenv("CDPATH", raising=False)
    monkeypatch.delenv("BASH_ENV", raising=False)
    root = layout(tmp_path, isolated_home)
    (root / ".git" / "config").unlink()
    (root / ".git" / "hooks").rmdir()
    (root / ".git").rmdir()
    _git(root, "init", "-q")
    _git(root, "add", "src", "README.md", "private")
    _git(root, "commit", "-qm", "first")
    _git(root, "rm", "-rq", "private")
    _git(root, "commit", "-qm", "second")
    assert not (root / "private").exists()
    return root


def _blob(root: Path) -> str:
    return _git(root, "rev-parse", "HEAD~1:private/key")


ASKS = [
    Case("git log -p", "ask", deny=PRIVATE),
    Case("git log --patch --all", "ask", deny=PRIVATE),
    Case("git log -u -1", "ask", deny=PRIVATE),
    Case("git log -S PRIVATEKEY", "ask", deny=PRIVATE),  # a search through content
    Case("git log -G KEY --oneline", "ask", deny=PRIVATE),
    Case("git log --stat", "ask", deny=PRIVATE),
    Case("git log --name-only", "ask", deny=PRIVATE),
    Case("git --no-pager log -p", "ask", deny=PRIVATE),
    Case("git show", "ask", deny=PRIVATE),
    Case("git show HEAD~1", "ask", deny=PRIVATE),
    Case("git show --stat HEAD~1", "ask", deny=PRIVATE),
    Case("git diff HEAD~1", "ask", deny=PRIVATE),
    Case("git diff HEAD~1 HEAD", "ask", deny=PRIVATE),
    Case("git diff-tree -p HEAD", "ask", deny=PRIVATE),
    Case("git grep -h KEY", "ask", deny=PRIVATE),
    Case("git grep KEY HEAD~1", "ask", deny=PRIVATE),
    Case("git cat-file --batch-all-objects --batch", "ask", deny=PRIVATE),
    Case("echo HEAD~1:private/key | git cat-file --batch", "ask", deny=PRIVATE),
    Case("git ls-tree -r HEAD~1", "ask", deny=PRIVATE),
    Case("git whatchanged -p", "ask", deny=PRIVATE),
    # Through a prefix rule, and git's own options.
    Case("git log -p", "ask", ("Bash(git log:*)",), deny=PRIVATE),
    Case("git -C . log -p", "ask", GIT, deny=PRIVATE),
    Case("git -C src log -p", "ask", GIT, deny=PRIVATE),
    Case("git -c core.pager=cat log -p", "ask", GIT, deny=PRIVATE),
    Case("git --git-dir=.git log -p", "ask", GIT, deny=PRIVATE),
    Case("git archive HEAD~1", "ask", ("Bash(git archive:*)",), deny=PRIVATE),
    Case("git bundle create - --all", "ask", ("Bash(git bundle:*)",), deny=PRIVATE),
    Case("git format-patch --stdout HEAD~2", "ask", ("Bash(git format-patch:*)",), deny=PRIVATE),
    Case("git fast-export --all", "ask", ("Bash(git fast-export:*)",), deny=PRIVATE),
    Case("git stash show -p", "ask", ("Bash(git stash:*)",), deny=PRIVATE),
    Case("git reflog -p", "ask", ("Bash(git reflog:*)",), deny=PRIVATE),
    Case("git rev-list --objects --all", "ask", GIT, deny=PRIVATE),
    Case("git range-diff HEAD~2 HEAD~1 HEAD", "ask", GIT, deny=PRIVATE),
    Case("timeout 5 git log -p", "ask", GIT, deny=PRIVATE),
    # An alias (from git's config, or given with -c) may be `log -p`.
    Case("git lg", "ask", GIT, deny=PRIVATE),
    Case("git -c alias.lg='log -p' lg", "ask", GIT, deny=PRIVATE),
    # Pathspecs that reach the denied folder, or may.
    Case("git log -p -- .", "ask", deny=PRIVATE),
    Case("git log -p -- private", "deny", deny=PRIVATE),
    Case("git log -p -- 'priv*'", "ask", deny=PRIVATE),
    Case("git log -p -- ':!src'", "ask", deny=PRIVATE),
    Case("git archive HEAD~1 -- .", "ask", ("Bash(git archive:*)",), deny=PRIVATE),
    # An unanchored rule covers files at any depth.
    Case("git log -p -- src", "ask", deny=("Read(*.key)",)),
]


@pytest.mark.parametrize("case", ASKS, ids=[f"{c.command}-{c.allow}" for c in ASKS])
def test_a_git_reader_of_the_history_asks_under_a_read_deny_rule(project: Path, case: Case):
    behavior, reason = decide(project, case)
    assert behavior == case.expected, reason


def test_an_object_named_by_its_hash_asks(project: Path) -> None:
    for command in (f"git cat-file -p {_blob(project)}", f"git show {_blob(project)}"):
        assert decide(project, Case(command, "ask", deny=PRIVATE))[0] == "ask", command


FREE = [
    Case("git log --oneline -5", "allow", deny=PRIVATE),
    Case("git log", "allow", deny=PRIVATE),
    Case("git status", "allow", deny=PRIVATE),
    Case("git branch -a", "allow", deny=PRIVATE),
    Case("git log -p -- src", "allow", deny=PRIVATE),
    Case("git diff HEAD~1 -- src README.md", "allow", deny=PRIVATE),
    Case("git show HEAD:src/app.py", "allow", deny=PRIVATE),
    Case("git show -s HEAD", "allow", deny=PRIVATE),  # the message only
    Case("git cat-file -t HEAD", "allow", deny=PRIVATE),
    Case("git blame src/app.py", "allow", deny=PRIVATE),
    Case("git log -p -- src", "allow", GIT, deny=PRIVATE),
    Case("git archive HEAD -- src", "allow", ("Bash(git archive:*)",), deny=PRIVATE),
    Case("git commit --allow-empty -m x", "allow", GIT, deny=PRIVATE),
    # A Read deny rule for files outside the repository does not concern its history.
    Case("git log -p", "allow", deny=("Read(~/secrets/**)",)),
    Case("git show HEAD~1", "allow", deny=("Read(//etc/**)",)),
    # Without a Read deny rule, git's history is not asked about.
    Case("git log -p", "allow"),
    Case("git show HEAD~1", "allow"),
    Case("git grep KEY", "allow"),
    Case("git cat-file --batch-all-objects --batch-check", "allow"),
]


@pytest.mark.parametrize("case", FREE, ids=[f"{c.command}-{c.allow}-{c.deny}" for c in FREE])
def test_what_stays_free(project: Path, case: Case) -> None:
    behavior, reason = decide(project, case)
    assert behavior == case.expected, reason


@pytest.mark.parametrize(
    "command",
    ["git log -p", "git cat-file --batch-all-objects --batch", "git grep -h KEY HEAD~1"],
)
def test_end_to_end_the_committed_secret_is_not_printed(
    fake_api, project: Path, tmp_path: Path, command: str
) -> None:
    assert "PRIVATEKEY" in _git(project, "log", "-p")  # what the command would have printed
    before = snapshot(tmp_path)
    stdout, result = run_headless(fake_api, project, command, "--disallowedTools", PRIVATE[0])
    assert_refused_and_nothing_happened(tmp_path, before, stdout, result)
