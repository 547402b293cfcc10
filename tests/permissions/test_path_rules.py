"""File rules: relative, home and absolute anchors, `..` escapes, symlinks, special paths."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentcli.config.path_rules import compile_path_pattern
from agentcli.config.rules import Rule, parse_tool_list
from agentcli.permissions.policy import PermissionPolicy
from agentcli.permissions.types import PermissionMode
from agentcli.tools.base import Workspace
from agentcli.tools.edit import EditTool
from agentcli.tools.grep import GrepTool
from agentcli.tools.read import ReadTool
from agentcli.tools.write import WriteTool


def _edit(path: str):
    return EditTool(), EditTool.input_model(file_path=path, old_string="a", new_string="b")


def _read(path: str):
    return ReadTool(), ReadTool.input_model(file_path=path)


def _write(path: str):
    return WriteTool(), WriteTool.input_model(file_path=path, content="x")


def _policy(root: Path, mode=PermissionMode.DEFAULT, allow=(), ask=(), deny=()):
    return PermissionPolicy(
        Workspace(root=root),
        mode,
        allow=parse_tool_list(list(allow), "test", root),
        ask=parse_tool_list(list(ask), "test", root),
        deny=parse_tool_list(list(deny), "test", root),
    )


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("./src/**", "src/a.py", True),
        ("./src/**", "src/deep/er/a.py", True),
        ("./src/**", "srcx/a.py", False),
        ("./src/*.py", "src/a.py", True),
        ("./src/*.py", "src/deep/a.py", False),  # * does not cross folders
        ("src/**/*.py", "src/a.py", True),
        ("src/**/*.py", "src/x/y/a.py", True),
        ("*.py", "deep/inside/a.py", True),  # no slash: any depth
        ("./*.py", "deep/a.py", False),
        (".env", "app/.env", True),
        ("./.env", "app/.env", False),
        ("./secrets", "secrets/key", True),  # a folder covers what is inside
        ("./a?.txt", "ab.txt", True),
        ("./a?.txt", "a/.txt", False),
        ("./[ab].txt", "b.txt", True),
        ("./[!ab].txt", "b.txt", False),
    ],
)
def test_gitignore_style_globs(tmp_path, pattern, path, expected):
    compiled = compile_path_pattern(pattern, tmp_path)
    assert compiled.matches(tmp_path.resolve() / path) is expected


def test_anchors_home_absolute_and_parent(tmp_path, isolated_home):
    home = Path(os.environ["HOME"])
    assert compile_path_pattern("~/secrets/**", tmp_path).matches(home.resolve() / "secrets/k")
    assert compile_path_pattern("//etc/**", tmp_path).matches(Path("/etc/passwd"))
    assert not compile_path_pattern("//etc/**", tmp_path).matches(Path("/tmp/etc/x"))
    project = tmp_path / "p"
    project.mkdir()
    assert compile_path_pattern("../shared/**", project).matches(tmp_path.resolve() / "shared/x")


def test_relative_rule_is_relative_to_its_own_project(tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    rule = Rule.parse("Edit(./src/**)", "test", base=other)
    policy = PermissionPolicy(Workspace(root=tmp_path), allow=[rule])
    assert policy.decide(*_edit("src/a.py")).behavior == "ask"
    assert policy.decide(*_edit(str(other / "src/a.py"))).behavior == "allow"


def test_edit_rule_allows_only_its_folder(tmp_path):
    policy = _policy(tmp_path, allow=["Edit(./src/**)"])
    assert policy.decide(*_edit("src/a.py")).behavior == "allow"
    assert policy.decide(*_write("src/new.py")).behavior == "allow"  # Edit speaks for Write
    assert policy.decide(*_edit("lib/a.py")).behavior == "ask"


def test_dotdot_escape_does_not_match_inside_rule(tmp_path):
    (tmp_path / "src").mkdir()
    policy = _policy(tmp_path, PermissionMode.ACCEPT_EDITS, allow=["Edit(./src/**)"])
    assert policy.decide(*_edit("src/../../outside.py")).behavior == "ask"


def test_symlink_pointing_outside_is_outside(tmp_path):
    project = tmp_path / "project"
    outside = tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (outside / "target.txt").write_text("x")
    (project / "link.txt").symlink_to(outside / "target.txt")
    (project / "linkdir").symlink_to(outside, target_is_directory=True)
    policy = _policy(project, PermissionMode.ACCEPT_EDITS, allow=["Edit(./**)"])
    assert policy.decide(*_edit("link.txt")).behavior == "ask"
    assert policy.decide(*_edit("linkdir/new.txt")).behavior == "ask"
    assert policy.decide(*_read("link.txt")).behavior == "ask"


def test_deny_matches_the_symlink_target_too(tmp_path, isolated_home):
    secrets = Path(os.environ["HOME"]) / "secrets"
    secrets.mkdir()
    (secrets / "key").write_text("k")
    (tmp_path / "innocent.txt").symlink_to(secrets / "key")
    policy = _policy(tmp_path, PermissionMode.BYPASS, deny=["Read(~/secrets/**)"])
    assert policy.decide(*_read("innocent.txt")).behavior == "deny"


def test_read_deny_keeps_grep_out_too(tmp_path):
    policy = _policy(tmp_path, deny=["Read(./private/**)"])
    tool = GrepTool()
    assert policy.decide(tool, tool.input_model(pattern="x", path="private")).behavior == "deny"
    assert policy.decide(tool, tool.input_model(pattern="x", path="src")).behavior == "allow"


@pytest.mark.parametrize(
    ("mode", "call", "expected"),
    [
        (PermissionMode.DEFAULT, "read_inside", "allow"),
        (PermissionMode.DEFAULT, "edit_inside", "ask"),
        (PermissionMode.ACCEPT_EDITS, "edit_inside", "allow"),
        (PermissionMode.ACCEPT_EDITS, "edit_outside", "ask"),
        (PermissionMode.ACCEPT_EDITS, "edit_added_dir", "allow"),
        (PermissionMode.DEFAULT, "read_outside", "ask"),
        (PermissionMode.PLAN, "edit_inside", "deny"),
        (PermissionMode.PLAN, "read_inside", "allow"),
        (PermissionMode.BYPASS, "edit_outside", "allow"),
    ],
)
def test_modes_for_files(tmp_path, mode, call, expected):
    project, extra = tmp_path / "p", tmp_path / "extra"
    project.mkdir()
    extra.mkdir()
    workspace = Workspace(root=project, extra_dirs=[extra])
    policy = PermissionPolicy(workspace, mode)
    calls = {
        "read_inside": _read("a.py"),
        "read_outside": _read(str(tmp_path / "elsewhere.py")),
        "edit_inside": _edit("a.py"),
        "edit_outside": _edit(str(tmp_path / "elsewhere.py")),
        "edit_added_dir": _edit(str(extra / "a.py")),
    }
    assert policy.decide(*calls[call]).behavior == expected


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (lambda: _edit(".git/config"), "ask"),
        (lambda: _edit(".git/hooks/pre-commit"), "ask"),
        (lambda: _read(".git/HEAD"), "allow"),  # reading git internals is fine
        (lambda: _read(".env"), "ask"),
        (lambda: _read("config/.env.local"), "ask"),
        (lambda: _edit(".agentcli/settings.json"), "ask"),
        (lambda: _edit(".agentcli/settings.local.json"), "ask"),
        (lambda: _read("~/.ssh/id_rsa"), "ask"),
    ],
)
def test_special_paths_ask_even_in_accept_edits_with_broad_rules(tmp_path, call, expected):
    policy = _policy(tmp_path, PermissionMode.ACCEPT_EDITS, allow=["Edit", "Read", "Edit(./**)"])
    assert policy.decide(*call()).behavior == expected


def test_an_exact_rule_lets_a_special_path_through(tmp_path):
    policy = _policy(tmp_path, allow=["Read(./.env)"])
    assert policy.decide(*_read(".env")).behavior == "allow"
    assert policy.decide(*_read("app/.env")).behavior == "ask"


def test_user_settings_file_is_special(tmp_path, isolated_home):
    policy = _policy(tmp_path, PermissionMode.ACCEPT_EDITS, allow=["Edit(//**)"])
    settings = Path(os.environ["AGENTCLI_HOME"]) / "settings.json"
    assert policy.decide(*_edit(str(settings))).behavior == "ask"


def test_bare_edit_allow_stays_inside_the_project(tmp_path):
    policy = _policy(tmp_path / "p", allow=["Edit"])
    (tmp_path / "p").mkdir()
    assert policy.decide(*_edit(str(tmp_path / "p" / "a.py"))).behavior == "allow"
    assert policy.decide(*_edit(str(tmp_path / "b.py"))).behavior == "ask"


def test_ask_rule_beats_allow(tmp_path):
    policy = _policy(tmp_path, PermissionMode.ACCEPT_EDITS, ask=["Edit(./migrations/**)"])
    assert policy.decide(*_edit("migrations/001.sql")).behavior == "ask"
    assert policy.decide(*_edit("app.py")).behavior == "allow"


def test_bare_deny_hides_the_tool(tmp_path):
    policy = _policy(tmp_path, deny=["Bash", "Read(./x)"])
    assert policy.hidden_tools() == {"Bash"}
