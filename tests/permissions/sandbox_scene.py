"""The machine the sandbox attacks run on, and running one command as the model would.

Shared by the attack files (test_attack_sandbox*.py): a project that is a git
repository, a home folder outside /tmp with credentials in it, agentcli's
own folder with a settings file, a folder next to the project, a listening
TCP port and a Unix socket. The session's permission policy is connected to
the sandbox the way bootstrap connects it (`connect_sandbox`), so Read deny
rules added to `scene.policy` reach the sandbox.
"""

from __future__ import annotations

import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from agentcli.config.rules import parse_tool_list
from agentcli.core.abort import AbortSignal
from agentcli.permissions.policy import PermissionPolicy
from agentcli.permissions.types import PermissionMode
from agentcli.sandbox import Sandbox
from agentcli.tools.base import ToolContext, Workspace
from agentcli.tools.bash import BashInput, BashTool
from agentcli.wiring.bootstrap import connect_sandbox

SECRET = "SECRET-KEY-MATERIAL-4711"
RAN = "THE-COMMAND-RAN"  # printed last: the sandbox started and ran the attack to its end
PY = shlex.quote(sys.executable)


@dataclass
class Scene:
    """The machine the attacks run on."""

    root: Path  # the project
    home: Path
    agentcli_home: Path
    sibling: Path  # a folder next to the project
    tcp_port: int
    unix_socket: Path
    workspace: Workspace
    policy: PermissionPolicy  # bypassPermissions: every command runs; its deny rules hold

    def deny(self, *rules: str, base: Path | None = None) -> None:
        """Add deny rules, as a settings file at `base` (the project) would hold them."""
        self.policy.deny.extend(parse_tool_list(list(rules), "project", base or self.root))

    def sandbox(self, sandbox: Sandbox) -> None:
        """Use another sandbox (other settings), connected like the session's."""
        self.workspace.sandbox = sandbox
        connect_sandbox(self.policy)


@pytest.fixture
def home_outside_tmp(monkeypatch) -> Iterator[Path]:
    """The sandbox has its own /tmp: a home folder under /tmp would be out of sight for
    that reason, so the home folder lives outside /tmp, where hiding is what is tested."""
    base = Path("/var/tmp")
    if not base.is_dir() or not _writable(base):
        pytest.skip("no writable folder outside /tmp for a home folder")
    home = Path(tempfile.mkdtemp(prefix="agentcli-attack-home-", dir=base))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("AGENTCLI_HOME", str(home / ".agentcli"))
    yield home
    shutil.rmtree(home, ignore_errors=True)


def _writable(folder: Path) -> bool:
    try:
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True


@pytest.fixture
def scene(tmp_path, home_outside_tmp, needs_bwrap) -> Iterator[Scene]:
    home = home_outside_tmp
    for name in (".ssh/id_rsa", ".aws/credentials", ".config/gcloud/credentials.db", ".netrc"):
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(f"{SECRET}\n")
    (home / ".bashrc").write_text("# the person's\n")
    (home / "target.txt").write_text("original\n")
    agentcli_home = home / ".agentcli"
    agentcli_home.mkdir()
    (agentcli_home / "settings.json").write_text('{"permissions": {"deny": ["Bash(rm:*)"]}}')
    root = tmp_path / "project"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    sibling = tmp_path / "sibling"
    sibling.mkdir()
    (sibling / "notes.txt").write_text("original\n")
    with _tcp_server() as port, _unix_server(root / "daemon.sock") as unix_socket:
        workspace = Workspace(root, scratch_dir=agentcli_home / "tool-output", sandbox=Sandbox())
        policy = PermissionPolicy(workspace, PermissionMode.BYPASS)
        connect_sandbox(policy)
        yield Scene(root, home, agentcli_home, sibling, port, unix_socket, workspace, policy)


@contextmanager
def _tcp_server() -> Iterator[int]:
    """A listening loopback port: what a network exfiltration would reach."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        yield server.getsockname()[1]


@contextmanager
def _unix_server(path: Path) -> Iterator[Path]:
    """A listening Unix socket in the project: stands in for the Docker or systemd socket."""
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        server.listen()
        yield path


async def run_allowed(scene: Scene, command: str) -> str:
    """The command as the model would send it: allowed without a question, then run.

    Fails unless the command really ran to its end: an attack that "gets nothing"
    because the sandbox did not start at all proves nothing.
    """
    command = f"{command}\necho; echo {RAN}"
    decision = scene.policy.decide(BashTool(), BashInput(command=command))
    assert decision.behavior == "allow", decision
    result = await BashTool(kill_grace=0.5).run(
        BashInput(command=command, timeout=20_000), ToolContext(scene.workspace, AbortSignal())
    )
    output = str(result.content)
    head, ran, notes = output.partition(f"\n{RAN}")
    assert ran, output
    return (head + notes).strip("\n")
