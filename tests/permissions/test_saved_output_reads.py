"""The model may Read the full output a tool result points it to, without asking."""

from __future__ import annotations

from agentcli.permissions.policy import PermissionPolicy
from agentcli.permissions.types import PermissionMode
from agentcli.tools.base import Workspace
from agentcli.tools.edit import EditTool
from agentcli.tools.read import ReadTool


def decide(tool, workspace, **fields):
    policy = PermissionPolicy(workspace, PermissionMode.DEFAULT)
    return policy.decide(tool, tool.input_model.model_validate(fields)).behavior


def test_saved_tool_output_is_readable_but_not_editable(tmp_path):
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    scratch = home / "projects" / "key" / "tool-output"
    scratch.mkdir(parents=True)
    saved = scratch / "bash-output-1.txt"
    saved.write_text("lots of output\n")
    workspace = Workspace(root=project, scratch_dir=scratch)

    assert decide(ReadTool(), workspace, file_path=str(saved)) == "allow"
    assert (
        decide(EditTool(), workspace, file_path=str(saved), old_string="a", new_string="b") == "ask"
    )
    neighbour = home / "projects" / "key" / "other.txt"
    assert decide(ReadTool(), workspace, file_path=str(neighbour)) == "ask"
    sneaky = scratch / ".." / "other.txt"
    assert decide(ReadTool(), workspace, file_path=str(sneaky)) == "ask"
