"""`agentcli -p --sandbox` (and `sandbox.enabled`) end to end, with the fake API.

agentcli itself still talks to the API (only its Bash commands are
sandboxed), the model's commands run without a question and cannot get
out, and without bubblewrap the run says so and runs nothing.
"""

from __future__ import annotations

import shlex
import shutil
import socket
import sys
from pathlib import Path

import pytest

from tests.integration.bash_run import KEY, run_bash
from tests.support.projects import new_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return new_project(tmp_path)  # empty: not this folder's project with config.py


@pytest.fixture
def port():
    with socket.create_server(("127.0.0.1", 0)) as server:
        yield server.getsockname()[1]


def _connect(port: int) -> str:
    probe = f"bash -c 'echo hi > /dev/tcp/127.0.0.1/{port}'"
    return f"if {probe} 2>/dev/null; then echo CONNECTED; else echo BLOCKED; fi"


def test_sandboxed_commands_run_without_asking_and_stay_inside(
    fake_api, project, isolated_home, port, needs_bwrap
):
    (isolated_home / ".ssh").mkdir()
    (isolated_home / ".ssh" / "id_rsa").write_text("PRIVATE-KEY\n")
    (project / "where.txt").write_text(f"{isolated_home}/.ssh/id_rsa\n")
    (project / "read.sh").write_text('cat "$(cat where.txt)"\n')
    run = run_bash(
        fake_api,
        project,
        [
            "touch made-inside && echo inside-ok",
            "touch $HOME/outside; echo > /tmp/../etc/agentcli-x",
            # Named outright, ~/.ssh is asked about (refused here), and so is a path
            # only known when it runs; reached by a script the line does not show,
            # it is hidden by the sandbox.
            "sh read.sh; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'",
            _connect(port),
        ],
        ["--sandbox"],  # default mode, no allow rule: only the sandbox lets these run
    )
    assert run.done.returncode == 0, run.done.stderr
    assert run.done.stderr == ""
    # The write outside fails (exit 1): an error result, as any failed command is.
    assert [r.get("is_error", False) for r in run.results] == [False, True, False, False]
    assert run.output(0) == "inside-ok" and (project / "made-inside").exists()
    assert "Read-only file system" in run.output(1)
    assert not (isolated_home / "outside").exists() and not Path("/etc/agentcli-x").exists()
    assert "PRIVATE-KEY" not in run.output(2) and KEY not in run.output(2)
    assert run.output(3) == "BLOCKED"
    system = " ".join(block["text"] for block in fake_api.requests[0].body["system"])
    assert "Bash sandbox: every Bash command runs in an OS sandbox" in system
    assert "There is no network" in system


def test_settings_turn_it_on_and_may_allow_the_network(fake_api, project, port, needs_bwrap):
    run = run_bash(
        fake_api,
        project,
        [_connect(port), "touch /etc/agentcli-x 2>&1 | grep -o 'Read-only file system'"],
        ["--permission-mode", "bypassPermissions"],
        settings={"sandbox": {"enabled": True, "network": True}},
    )
    assert run.done.returncode == 0, run.done.stderr
    assert run.output(0) == "CONNECTED"
    assert run.output(1) == "Read-only file system"  # bypass mode, still confined


def test_without_auto_allow_a_headless_run_refuses_as_usual(fake_api, project, needs_bwrap):
    run = run_bash(
        fake_api,
        project,
        ["touch made"],
        settings={"sandbox": {"enabled": True, "autoAllowBashIfSandboxed": False}},
    )
    assert run.results[0]["is_error"] is True and not (project / "made").exists()


def test_without_bubblewrap_the_run_says_so_and_runs_nothing(fake_api, project, tmp_path):
    no_bwrap = tmp_path / "bin"
    no_bwrap.mkdir()
    for tool in ("bash", "git"):  # everything a run needs, but no bwrap
        (no_bwrap / tool).symlink_to(shutil.which(tool))
    run = run_bash(fake_api, project, ["touch made"], ["--sandbox"], env={"PATH": str(no_bwrap)})
    assert run.done.returncode == 0, run.done.stderr
    assert run.done.stderr.startswith(
        "agentcli: warning: The sandbox is on but cannot run commands: bubblewrap is not installed"
    )
    assert run.results[0]["is_error"] is True
    assert "The sandbox is on but cannot run commands" in run.output(0)
    assert not (project / "made").exists()


def test_read_deny_rules_reach_the_sandbox(fake_api, project, needs_bwrap):
    """`--disallowedTools Read(...)` and a settings file's Read deny rule are masked inside
    the sandbox, for a program the rules cannot read (it opens the files itself)."""
    (project / "private").mkdir()
    (project / "private/key").write_text("KEY-FROM-THE-FLAG\n")
    (project / "db.secret").write_text("KEY-FROM-THE-SETTINGS\n")
    (project / "read.py").write_text(
        "for name in ('private/key', 'db.secret', 'read.py'):\n"
        "    try: print(open(name).read()[:12])\n"
        "    except OSError as error: print(name, error.strerror)\n"
    )
    run = run_bash(
        fake_api,
        project,
        [f"{shlex.quote(sys.executable)} read.py"],
        ["--sandbox", "--disallowedTools", "Read(./private/**)"],
        settings={"permissions": {"deny": ["Read(**/*.secret)"]}, "sandbox": {"enabled": True}},
    )
    assert run.done.returncode == 0, run.done.stderr
    output = run.output(0)
    assert "KEY-FROM" not in output, output
    assert "private/key No such file or directory" in output  # the folder is empty inside
    assert "db.secret Permission denied" in output
    assert "for name in " in output  # the rest is readable
    assert sorted(p.name for p in project.iterdir()) == [
        ".agentcli",
        "db.secret",
        "private",
        "read.py",
    ]
