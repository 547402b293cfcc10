"""Issue 22, class 8: wrappers that run a command, or a command string.

`su -c 'rm x'` passed `deny Bash(rm:*)` in bypass mode: the string was one
word nobody parsed. Every wrapper is now read with its own options, its
command string parsed as the shell would, and a wrapper whose options are
not modelled is not understood (deny and ask rules then look at its words
and at the text). A rule for the inner command covers only wrappers that add
nothing (a timeout, a priority); running as another user, elsewhere, or
with a file of its own needs a rule for the wrapper.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.permissions.test_attack_shell import BYPASS, NPM, RM, Case, decide, layout


@pytest.fixture
def project(tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("CDPATH", raising=False)
    monkeypatch.delenv("BASH_ENV", raising=False)
    return layout(tmp_path, isolated_home)


DENIED = [
    # as another user
    "su -c 'rm src'", "su root -c 'rm src'", "su - root -c 'rm src'",
    "su -l root --command='rm src'", "su --comm 'rm src'", "su -s /bin/sh -c 'rm src' root",
    "su -mc 'rm src'", "runuser -u nobody -- rm src", "runuser -u nobody rm src",
    "runuser -l nobody -c 'rm src'", "sudo rm src", "sudo -u root -g wheel rm src",
    "sudo -E -H rm src", "sudo --user=root rm src", "sudo -s rm src", "sudo -i rm src",
    "sudo sh -c 'rm src'", "sudo -u root bash -lc 'rm src'", "sudo FOO=1 rm src",
    "sudo -- rm src", "sudo -nu root rm src", "sudo --preserve-env=PATH rm src",
    "doas rm src", "doas -u root rm src", "doas -n sh -c 'rm src'", "pkexec rm src",
    "pkexec --user root rm src", "sg wheel -c 'rm src'", "sg wheel 'rm src'",
    # elsewhere
    "chroot / rm src", "chroot --userspec=0:0 / rm src", "nsenter -t 1 -m -u rm src",
    "nsenter --target=1 --mount rm src", "nsenter -t1 -m/proc/1/ns/mnt rm src",
    "unshare -r rm src", "unshare --map-root-user --mount rm src", "unshare -Urm rm src",
    # from a string, or with a file of their own
    "flock /tmp/l rm src", "flock -w 5 /tmp/l rm src", "flock /tmp/l -c 'rm src'",
    "flock -n /tmp/l --command 'rm src'", "flock -xn /tmp/l sh -c 'rm src'", "watch rm src",
    "watch 'rm src'", "watch -n 1 'rm src'", "watch -n1 -d 'ls; rm src'", "watch -x rm src",
    "watch --differences=permanent 'rm src'", "script -c 'rm src'",
    "script -q -c 'rm src' /dev/null", "script --command='rm src' log", "script log -c 'rm src'",
    # scheduling
    "setsid rm src", "setsid -f rm src", "setsid -w sh -c 'rm src'", "timeout 5 rm src",
    "timeout -k 1 5 rm src", "timeout --signal=KILL 5 rm src", "nice rm src",
    "nice -n 5 rm src", "nice -5 rm src", "ionice -c 3 rm src", "ionice -c3 -n7 rm src",
    "ionice -c 3 rm -p src", "chrt 5 rm src", "chrt -f 10 rm src", "taskset 0x1 rm src",
    "taskset -c 0 rm src", "stdbuf -oL rm src", "stdbuf -o L -e 0 rm src",
    # env, xargs and the rest
    "env rm src", "env -i rm src", "env - rm src", "env -u HOME rm src", "env A=1 rm src",
    "env -S 'rm src'", "env -S'rm src'", "env --split-string='rm src'", "env -C / rm src",
    "env -iS 'A=1 rm src'", "ls | xargs rm", "ls | xargs -I{} rm {}", "ls | xargs -0 -n 1 rm",
    "ls | xargs sh -c 'rm src'", "ls | xargs -a list rm", "nohup rm src", "time rm src",
    "time -p rm src", "command rm src", "command -p rm src", "busybox rm src",
    "toybox rm src", "busybox sh -c 'rm src'",
    # shells and their option spellings
    "bash -c 'rm src'", "bash -lc 'rm src'", "bash -ec 'rm src'",
    "bash -euo pipefail -c 'rm src'", "bash --norc --noprofile -c 'rm src'",
    "bash -c -x 'rm src'", "sh -c -- 'rm src'", "dash -c 'rm src'", "zsh -c 'rm src'",
    "ksh -c 'rm src'", "fish -c 'rm src'", "bash -O extglob -c 'rm src'",
    "bash +B -c 'rm src'", "bash --rcfile x -c 'rm src'",
    # programs whose options are not modelled: their words, and words that are scripts
    "strace -f rm src", "strace -o /tmp/x -- rm src", "parallel 'rm {}' ::: src",
    "parallel rm ::: src", "valgrind --tool=none rm src", "unbuffer rm src",
    "prlimit --nofile=10 rm src", "fakeroot rm src", "numactl -N 0 rm src",
    "setpriv --reuid=0 rm src", "systemd-run --user rm src", "firejail rm src",
    "gosu root rm src", "su-exec root rm src", "faketime '2020-01-01' rm src",
    "sshpass -p x rm src", "exec -a x rm src", "strace -e trace=all sh -c 'ls; rm src'",
    # values a program runs through the shell
    "GIT_PAGER='rm src' git log", "PAGER='less; rm src' man ls", "EDITOR='rm src' git commit",
    "GIT_SSH_COMMAND='rm src' git fetch", "LESSOPEN='|rm src %s' less README.md",
    "git -c core.pager='rm src' log", "git -c alias.x='!rm src' x", "git -ccore.editor='rm src' commit",
    "git -c diff.external='rm src' diff", "git -c core.fsmonitor='rm src' status",
    "git config core.pager 'rm src'", "git config --global alias.x '!rm src'",
    "git config --file x core.fsmonitor 'rm src'", "rc -c 'rm src'", "pwsh -c 'rm src'",
    # nested
    "sudo -u root timeout 5 nice rm src", "watch \"sudo sh -c 'rm src'\"",
    "su -c \"flock /tmp/l -c 'rm src'\"", "setsid -f script -qc 'rm src' /dev/null",
]  # fmt: skip


NOT_A_COMMAND = [
    "MSG='rm old files' git commit -m x",
    "git config user.name 'rm src'",
    "git commit -m 'rm src'",
]


@pytest.mark.parametrize("command", NOT_A_COMMAND)
def test_text_that_no_program_runs_is_not_taken_for_a_command(project: Path, command: str):
    behavior, reason = decide(project, Case(command, "allow", deny=RM, mode=BYPASS))
    assert behavior == "allow", reason


@pytest.mark.parametrize("command", DENIED)
def test_a_deny_rule_sees_through_every_wrapper_in_bypass_mode(project: Path, command: str):
    behavior, reason = decide(project, Case(command, "deny", deny=RM, mode=BYPASS))
    assert behavior == "deny", reason


CANNOT_TELL = [
    "su", "su root", "sudo -s", "sudo -i", "doas -s", "chroot /", "unshare -r",
    "script", "script log", "flock /tmp/l -c \"$(cat cmd)\"", "watch \"$(cat cmd)\"",
    "su -c \"$(cat cmd)\"", "env -S \"$(cat cmd)\"",
]  # fmt: skip


@pytest.mark.parametrize("command", CANNOT_TELL)
def test_a_wrapper_that_runs_what_cannot_be_known_asks_under_a_deny_rule(project: Path, command):
    """A shell reading its input, a command string from a substitution: the deny rule
    cannot be checked, so the call asks (a headless run refuses it), also in bypass mode."""
    behavior, reason = decide(project, Case(command, "ask", deny=RM, mode=BYPASS))
    assert behavior == "ask", reason
    assert "cannot be checked" in reason


ALLOW_RULES = [
    # Adding nothing: the inner command's rule covers the wrapper.
    Case("setsid npm test", "allow", NPM),
    Case("setsid -f npm test", "allow", NPM),
    Case("stdbuf -oL npm test", "allow", NPM),
    Case("ionice -c 3 npm test", "allow", NPM),
    Case("chrt -b 0 npm test", "allow", NPM),
    Case("taskset -c 0,1 npm test", "allow", NPM),
    Case("timeout --kill-after=5 60 npm test", "allow", NPM),
    Case("nice -n 10 npm test", "allow", NPM),
    Case("bash -lc 'npm test'", "allow", NPM),
    Case("bash -euo pipefail -c 'npm test'", "allow", NPM),
    Case("sh -ec 'npm test && ls'", "allow", NPM),
    Case("watch -n 5 git status", "allow"),  # read-only, run again and again
    Case("watch -n 5 'git status; ls'", "allow"),
    Case("env -u NODE_OPTIONS npm test", "allow", NPM),
    # Another user, another root, namespaces, a file of its own: a rule for the wrapper.
    Case("sudo npm test", "ask", NPM),
    Case("sudo -u root npm test", "ask", NPM),
    Case("su -c 'npm test'", "ask", NPM),
    Case("runuser -u nobody npm test", "ask", NPM),
    Case("doas npm test", "ask", NPM),
    Case("chroot / npm test", "ask", NPM),
    Case("unshare -r npm test", "ask", NPM),
    Case("flock /tmp/l npm test", "ask", NPM),
    Case("flock .git/index.lock npm test", "ask", NPM),
    Case("script -qc 'npm test' out.log", "ask", NPM),
    Case("env -S 'npm test'", "ask", NPM),
    Case("env -C .. npm test", "ask", NPM),
    Case("busybox cat README.md", "ask"),
    Case("zsh -c 'ls'", "ask"),  # zsh reads a script differently from bash
    Case("sudo -u root npm test", "allow", ("Bash(sudo -u root npm test)",)),
    # Options that change how the script is read.
    Case("bash -O dotglob -c 'cat *'", "ask"),
    Case("bash +B -c 'cat {a,b}'", "ask"),
    Case("bash -f -c 'cat *'", "ask"),
    Case("bash -k -c 'ls x=y'", "ask"),
    Case("bash --posix -c 'ls'", "ask"),
    # xargs -a reads its arguments from a file: a protected one is not listed for free.
    Case("xargs -a .env echo", "ask"),
    Case("xargs --arg-file=.env echo", "ask"),
    # The inner command's own options are its own: `-p` here is not ionice's pid mode.
    Case("ionice -c 3 cat -p README.md", "allow"),
]


@pytest.mark.parametrize("case", ALLOW_RULES, ids=[f"{c.command}-{c.allow}" for c in ALLOW_RULES])
def test_what_a_rule_for_the_inner_command_covers(project: Path, case: Case) -> None:
    behavior, reason = decide(project, case)
    assert behavior == case.expected, reason


_WRAPPERS = [
    lambda c: f"su -c {shlex.quote(c)}",
    lambda c: f"su root -c {shlex.quote(c)}",
    lambda c: f"runuser -u nobody -- {c}",
    lambda c: f"sudo -u root {c}",
    lambda c: f"sudo -s {c}",
    lambda c: f"sudo bash -c {shlex.quote(c)}",
    lambda c: f"doas {c}",
    lambda c: f"setsid -f {c}",
    lambda c: f"chroot / {c}",
    lambda c: f"nsenter -t 1 -m {c}",
    lambda c: f"unshare -r {c}",
    lambda c: f"flock /tmp/l {c}",
    lambda c: f"flock /tmp/l -c {shlex.quote(c)}",
    lambda c: f"watch -n 1 {shlex.quote(c)}",
    lambda c: f"script -qc {shlex.quote(c)} /dev/null",
    lambda c: f"ionice -c 3 {c}",
    lambda c: f"chrt 5 {c}",
    lambda c: f"taskset 0x1 {c}",
    lambda c: f"stdbuf -oL {c}",
    lambda c: f"env -S {shlex.quote(c)}",
    lambda c: f"env A=1 {c}",
    lambda c: f"busybox {c}",
    lambda c: f"bash -lc {shlex.quote(c)}",
    lambda c: f"dash -ec {shlex.quote(c)}",
    lambda c: f"zsh -c {shlex.quote(c)}",
    lambda c: f"strace -f {c}",
    lambda c: f"parallel {shlex.quote(c)} ::: x",
]


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(wrappers=st.lists(st.sampled_from(_WRAPPERS), min_size=1, max_size=3))
def test_a_deny_rule_holds_through_any_nesting_of_wrappers(project: Path, wrappers) -> None:
    command = "rm src"
    for wrap in wrappers:
        command = wrap(command)
    behavior, reason = decide(project, Case(command, "deny", deny=RM, mode=BYPASS))
    assert behavior == "deny", (command, reason)
