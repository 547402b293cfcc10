"""The Bash tool under the sandbox: it still works like Bash, and stopping it still stops all.

What the sandbox keeps a command from doing is in
tests/permissions/test_attack_sandbox.py; here: output, exit codes, the
working directory carried over, the person's /tmp, interrupts and timeouts
that leave nothing running (not even a process that started its own
session), and a clear refusal when the sandbox cannot start.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path

import pytest

from agentcli.core.abort import AbortSignal
from agentcli.sandbox import Sandbox
from agentcli.tools.base import ToolContext, ToolError, Workspace
from agentcli.tools.bash import BashInput, BashTool
from tests.tools.test_bash import Recorder


@pytest.fixture
def workspace(tmp_path: Path, needs_bwrap) -> Workspace:
    root = tmp_path / "project"
    root.mkdir()
    return Workspace(root, scratch_dir=tmp_path / "scratch", sandbox=Sandbox())


@pytest.fixture
def tool() -> BashTool:
    return BashTool(kill_grace=0.5)


async def bash(tool: BashTool, ws: Workspace, command: str, **kw):
    return await tool.run(BashInput(command=command, **kw), ToolContext(ws, AbortSignal()))


def _running(token: str) -> list[int]:
    """Host pids of live processes whose command line holds `token`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            stat = (entry / "stat").read_bytes()
        except OSError:
            continue
        state = stat[stat.rfind(b")") + 2 :].split()[0]
        if token.encode() in cmdline and state not in (b"Z", b"X"):
            found.append(int(entry.name))
    return found


async def _all_gone(token: str) -> None:
    """Bounded poll: the kill already happened, this only absorbs kernel latency."""
    deadline = time.monotonic() + 10
    while alive := _running(token):
        assert time.monotonic() < deadline, f"still running: {alive}"
        await asyncio.sleep(0.02)


def _sleepers(token: str) -> str:
    """A background job, a subshell and one that leaves the process group (setsid)."""
    sleep = f"exec -a {token} sleep 300"
    return f"bash -c '{sleep}' & (bash -c '{sleep}') & setsid bash -c '{sleep}' & echo ready; wait"


async def test_runs_in_the_project_with_output_and_exit_code(tool, workspace):
    result = await bash(tool, workspace, "pwd; echo out; echo err >&2; touch made; exit 3")
    assert result.content == f"{workspace.root}\nout\nerr\nExit code: 3"
    assert (workspace.root / "made").exists()


async def test_the_working_directory_carries_over(tool, workspace):
    (workspace.root / "sub").mkdir()
    await bash(tool, workspace, "cd sub")
    assert (await bash(tool, workspace, "pwd")).content == str(workspace.root / "sub")


async def test_tmp_is_private_and_lasts_the_session(tool, workspace, tmp_path):
    marker = f"agentcli-test-{uuid.uuid4().hex}"
    assert (await bash(tool, workspace, f"echo kept > /tmp/{marker}")).content == "(no output)"
    assert (await bash(tool, workspace, f"cat /tmp/{marker}")).content == "kept"
    assert not Path("/tmp", marker).exists()  # the real /tmp is untouched
    assert (await bash(tool, workspace, "echo $TMPDIR")).content == "/tmp"


async def test_the_settings_env_still_reaches_the_command(tool, workspace):
    workspace.env["NODE_ENV"] = "test"
    assert (await bash(tool, workspace, "echo $NODE_ENV")).content == "test"


async def test_a_timeout_stops_everything_inside(tool, workspace):
    token = f"agentcli-sleeper-{uuid.uuid4().hex}"
    result = await bash(tool, workspace, _sleepers(token), timeout=1500)
    assert result.display.timed_out and result.is_error
    await _all_gone(token)


async def test_an_interrupt_stops_everything_inside(tool, workspace):
    token = f"agentcli-sleeper-{uuid.uuid4().hex}"
    recorder = Recorder()
    ctx = ToolContext(workspace, AbortSignal(), report=recorder)
    task = asyncio.create_task(tool.run(BashInput(command=_sleepers(token)), ctx))
    await recorder.wait_for("ready")
    while len(_running(token)) < 3:  # all three have started
        await asyncio.sleep(0.01)
    ctx.abort.abort()
    result = await asyncio.wait_for(task, 30)
    assert result.display.interrupted and "ready" in result.content
    await _all_gone(token)


async def test_cancelling_the_call_stops_everything_inside(tool, workspace):
    token = f"agentcli-sleeper-{uuid.uuid4().hex}"
    recorder = Recorder()
    ctx = ToolContext(workspace, AbortSignal(), report=recorder)
    task = asyncio.create_task(tool.run(BashInput(command=_sleepers(token)), ctx))
    await recorder.wait_for("ready")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await _all_gone(token)


async def test_a_job_left_in_the_background_is_stopped_when_the_command_ends(tool, workspace):
    token = f"agentcli-sleeper-{uuid.uuid4().hex}"
    command = f"setsid bash -c 'exec -a {token} sleep 300' & echo started"
    assert (await bash(tool, workspace, command)).content == "started"
    await _all_gone(token)


async def test_without_bwrap_every_command_is_refused_and_nothing_runs(tmp_path, monkeypatch):
    root = tmp_path / "project"
    root.mkdir()
    with monkeypatch.context() as patch:
        patch.setenv("PATH", str(tmp_path / "no-bwrap-here"))
        sandbox = Sandbox()
    ws = Workspace(root, scratch_dir=tmp_path / "scratch", sandbox=sandbox)
    with pytest.raises(ToolError) as refused:  # the engine gives it to the model as is_error
        await bash(BashTool(), ws, "touch ran")
    assert str(refused.value).startswith("The sandbox is on but cannot run commands: ")
    assert "bubblewrap is not installed" in str(refused.value)
    assert not (root / "ran").exists()


async def test_a_home_folder_made_writable_is_refused(tmp_path, isolated_home):
    ws = Workspace(isolated_home, scratch_dir=tmp_path / "scratch", sandbox=Sandbox())
    with pytest.raises(ToolError, match="holds your home folder"):
        await bash(BashTool(), ws, "touch ran")
    assert not (isolated_home / "ran").exists()


async def test_agentcli_home_inside_the_project_is_still_hidden(
    tool, tmp_path, monkeypatch, needs_bwrap
):
    root = tmp_path / "project"
    home = root / ".agentcli-home"
    home.mkdir(parents=True)
    (home / "settings.json").write_text("{}")
    monkeypatch.setenv("AGENTCLI_HOME", str(home))
    ws = Workspace(root, scratch_dir=home / "tool-output", sandbox=Sandbox())
    result = await bash(
        tool, ws, "ls -A .agentcli-home; echo '{\"x\": 1}' > .agentcli-home/settings.json"
    )
    assert result.content.startswith("tool-output\n")  # only the Bash tool's own files
    assert "Read-only file system" in result.content
    assert (home / "settings.json").read_text() == "{}"


# --- a write outside the writable places fails where the command sees it (issue 23) ---
#
# The home folder of these tests lies under /tmp, as in many CI containers: the sandbox's
# own /tmp must not turn a write to $HOME into one that seems to work and then vanishes.

WRITES_OUTSIDE = [
    (
        "home-folder",
        "$HOME/.cache/tool/f",
        'mkdir -p "$HOME/.cache/tool" && echo data > "$HOME/.cache/tool/f"',
    ),
    ("home-file", "$HOME/notes.txt", 'echo data > "$HOME/notes.txt"'),
    ("dev", "/dev/agentcli-x", "echo data > /dev/agentcli-x"),
    (
        "dev-folder",
        "/dev/agentcli-d/f",
        "mkdir -p /dev/agentcli-d && echo data > /dev/agentcli-d/f",
    ),
    ("hidden-folder", "$HOME/.ssh/authorized_keys", "echo data >> ~/.ssh/authorized_keys"),
    ("hidden-file", "$HOME/.netrc", "echo data > ~/.netrc"),
    ("agentcli-home", "$AGENTCLI_HOME/settings.json", 'echo data > "$AGENTCLI_HOME/settings.json"'),
    ("etc", "/etc/agentcli-x", "echo data > /etc/agentcli-x"),
    ("next-to-the-project", "../sibling.txt", "echo data > ../sibling.txt"),
]


@pytest.mark.parametrize(
    ("where", "command"), [w[1:] for w in WRITES_OUTSIDE], ids=[w[0] for w in WRITES_OUTSIDE]
)
async def test_a_write_outside_fails_visibly_and_leaves_nothing(
    tool, workspace, isolated_home, where, command
):
    (isolated_home / ".ssh").mkdir()
    (isolated_home / ".netrc").write_text("machine x\n")
    (isolated_home / ".agentcli").mkdir(exist_ok=True)
    result = await bash(tool, workspace, command)
    assert result.display.exit_code not in (0, None), result.content
    assert "Read-only file system" in result.content or "Permission denied" in result.content
    again = await bash(tool, workspace, f'cat "{where}" 2>/dev/null || echo NOTHING')
    assert again.content == "NOTHING"  # not in the sandbox either: it did not land anywhere
    host = Path(
        where.replace("$HOME", str(isolated_home))
        .replace("$AGENTCLI_HOME", str(isolated_home / ".agentcli"))
        .replace("..", str(workspace.root.parent))
    )
    assert not host.exists() or "data" not in host.read_text()


async def test_tmp_is_writable_and_the_model_is_told_it_is_private(tool, workspace):
    assert (await bash(tool, workspace, "echo x > /tmp/f && cat /tmp/f")).content == "x"
    note = workspace.sandbox.model_note()
    assert "/tmp" in note and "private" in note
