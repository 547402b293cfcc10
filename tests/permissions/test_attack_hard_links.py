"""Issue 22, class 6: a hard link to a protected file is that file.

A Write to `hl_cfg`, a hard link to `.git/config`, was allowed in acceptEdits:
the rules judged the name, and the name was harmless. Now a file with more
than one link is judged under each of its names found in the places the
rules protect (same device and inode), by the file tools and by the Bash
analysis alike; a write to a file whose other names cannot all be found asks.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from agentcli.config.rules import parse_tool_list
from agentcli.permissions import hardlinks
from agentcli.permissions.policy import PermissionPolicy
from agentcli.permissions.types import PermissionMode
from agentcli.sandbox import Sandbox
from agentcli.tools.base import Workspace
from agentcli.tools.bash import BashInput, BashTool
from agentcli.tools.edit import EditTool
from agentcli.tools.read import ReadTool
from agentcli.tools.write import WriteTool
from tests.permissions.test_attack_shell import GIT_DIFF, PRIVATE, Case, decide, layout

ACCEPT_EDITS = PermissionMode.ACCEPT_EDITS


def _link(target: Path, name: Path) -> None:
    try:
        os.link(target, name)
    except OSError as exc:  # pragma: no cover - a machine whose home is on another disk
        if exc.errno == errno.EXDEV:
            pytest.skip("the home folder is on another file system here")
        raise


@pytest.fixture
def project(tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("CDPATH", raising=False)
    monkeypatch.delenv("BASH_ENV", raising=False)
    root = layout(tmp_path, isolated_home)
    (root / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\n")
    (root / ".agentcli" / "settings.json").write_text("{}\n")
    (root / "config").mkdir()
    (root / "config" / "app.yml").write_text("a: 1\n")
    (isolated_home / ".bashrc").write_text("# mine\n")
    (tmp_path / "outside" / "elsewhere.txt").write_text("x\n")
    (root / "src" / "twin_a.py").write_text("x = 1\n")
    links = {
        "hl_cfg": root / ".git" / "config",
        "hl_hook": root / ".git" / "hooks" / "pre-commit",
        "hl_settings": root / ".agentcli" / "settings.json",
        "hl_env": root / ".env",
        "hl_key": root / "private" / "key",
        "hl_app": root / "config" / "app.yml",
        "hl_bashrc": isolated_home / ".bashrc",
        "hl_ssh": isolated_home / ".ssh" / "id_rsa",
        "hl_far": tmp_path / "outside" / "elsewhere.txt",
        "src/twin_b.py": root / "src" / "twin_a.py",
    }
    for name, target in links.items():
        _link(target, root / name)
    return root


def _policy(root: Path, mode=PermissionMode.DEFAULT, *, allow=(), deny=(), sandbox=False):
    return PermissionPolicy(
        Workspace(root=root, sandbox=Sandbox() if sandbox else None),
        mode,
        allow=parse_tool_list(list(allow), "test", root),
        deny=parse_tool_list(list(deny), "test", root),
    )


def _write(policy: PermissionPolicy, path: Path):
    return policy.decide(WriteTool(), WriteTool.input_model(file_path=str(path), content="x"))


def _edit(policy: PermissionPolicy, path: Path):
    inp = EditTool.input_model(file_path=str(path), old_string="a", new_string="b")
    return policy.decide(EditTool(), inp)


def _read(policy: PermissionPolicy, path: Path):
    return policy.decide(ReadTool(), ReadTool.input_model(file_path=str(path)))


@pytest.mark.parametrize("name", ["hl_cfg", "hl_hook", "hl_settings", "hl_bashrc", "hl_env"])
def test_writing_a_hard_link_to_a_protected_file_asks_in_accept_edits(project: Path, name: str):
    policy = _policy(project, ACCEPT_EDITS)
    for decision in (_write(policy, project / name), _edit(policy, project / name)):
        assert decision.behavior == "ask", decision
        assert "hard link" in decision.reason


def test_the_reason_names_the_protected_file(project: Path):
    decision = _write(_policy(project, ACCEPT_EDITS), project / "hl_cfg")
    assert str(project / ".git" / "config") in decision.reason


def test_a_broad_edit_rule_does_not_cover_the_protected_file_behind_a_link(project: Path):
    decision = _write(_policy(project, allow=("Edit",)), project / "hl_cfg")
    assert decision.behavior == "ask", decision


def test_an_edit_deny_rule_holds_for_a_hard_link_to_a_file_it_covers(project: Path):
    policy = _policy(project, ACCEPT_EDITS, deny=("Edit(./config/**)",))
    assert _write(policy, project / "hl_app").behavior == "deny"


def test_a_read_deny_rule_holds_for_a_hard_link_to_a_file_it_covers(project: Path):
    assert _read(_policy(project, deny=PRIVATE), project / "hl_key").behavior == "deny"


@pytest.mark.parametrize("name", ["hl_env", "hl_ssh"])
def test_reading_a_hard_link_to_a_secret_asks(project: Path, name: str):
    decision = _read(_policy(project), project / name)
    assert decision.behavior == "ask", decision


def test_writing_a_file_whose_other_names_cannot_all_be_seen_asks(project: Path):
    """hl_far's other name is outside every place agentcli looks: it could be any file."""
    decision = _write(_policy(project, ACCEPT_EDITS), project / "hl_far")
    assert decision.behavior == "ask" and "cannot all see" in decision.reason


def test_reading_it_is_free_the_places_where_reading_is_protected_were_all_looked_at(project):
    assert _read(_policy(project, deny=PRIVATE), project / "hl_far").behavior == "allow"


def test_two_ordinary_names_in_the_project_change_nothing(project: Path):
    policy = _policy(project, ACCEPT_EDITS, deny=PRIVATE)
    assert _write(policy, project / "src" / "twin_b.py").behavior == "allow"
    assert _read(policy, project / "src" / "twin_b.py").behavior == "allow"


def test_when_the_scan_is_cut_short_a_read_of_a_multi_link_file_asks(project, monkeypatch):
    monkeypatch.setattr(hardlinks, "MAX_SCAN_ENTRIES", 3)
    decision = _read(_policy(project, deny=PRIVATE), project / "hl_far")
    assert decision.behavior == "ask" and "could not check" in decision.reason


def test_bypass_mode_still_lets_an_edit_through_but_not_a_denied_read(project: Path):
    assert _write(_policy(project, PermissionMode.BYPASS), project / "hl_cfg").behavior == "allow"
    bypass = _policy(project, PermissionMode.BYPASS, deny=PRIVATE)
    assert _read(bypass, project / "hl_key").behavior == "deny"


SHELL = [
    Case("git diff > hl_cfg", "ask", GIT_DIFF),
    Case("git diff >> hl_hook", "ask", GIT_DIFF),
    Case("git diff --output=hl_settings", "ask", GIT_DIFF),
    Case("echo x > hl_bashrc", "ask"),
    Case("git diff > hl_far", "ask", GIT_DIFF),  # its other names are not all known
    Case("cat hl_key", "deny", deny=PRIVATE),
    Case("cat < hl_key", "deny", deny=PRIVATE),
    Case("cat hl_env", "ask"),
    Case("cat hl_ssh", "ask"),
    Case("cat src/twin_b.py", "allow", deny=PRIVATE),
    Case("git diff > src/twin_b.py", "allow", GIT_DIFF),
]


@pytest.mark.parametrize("case", SHELL, ids=[c.command for c in SHELL])
def test_the_bash_analysis_judges_a_hard_link_as_the_file(project: Path, case: Case) -> None:
    behavior, reason = decide(project, case)
    assert behavior == case.expected, reason


@pytest.mark.parametrize(
    "command", ["tool hl_cfg", "cp x hl_hook", "base64 hl_key", "tool --in=hl_env"]
)
def test_a_sandboxed_line_naming_a_hard_link_to_a_protected_file_asks(project: Path, command):
    policy = _policy(project, deny=PRIVATE, sandbox=True)
    decision = policy.decide(BashTool(), BashInput(command=command))
    assert decision.behavior in ("ask", "deny"), decision


@pytest.mark.parametrize("pattern", ["PRIVATEKEY", "hunter2"])
async def test_a_search_does_not_show_a_hidden_file_through_a_hard_link(project: Path, pattern):
    """Grep over the project: private/key is denied and .env is a secret; their hard
    links hl_key and hl_env are the same files, and stay out of the results too."""
    from tests.permissions.test_attack_search import output, search

    finished = await search(
        project, "Grep", pattern=pattern, output_mode="content", deny=PRIVATE, ask=()
    )
    shown = output(finished)
    assert pattern not in shown and "hl_key" not in shown and "hl_env" not in shown, shown
