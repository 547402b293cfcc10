"""The tools' I/O seams: an editor's buffers (`Workspace.editor`) and terminals
(`Workspace.terminals`), as an ACP client provides them. Permission checks are
not the tools' business; what is tested here is where the bytes come from and go."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agentcli.core.abort import AbortSignal
from agentcli.tools.base import ShellCommand, ShellExit, ToolContext, ToolError, Workspace
from agentcli.tools.bash import BashTool
from agentcli.tools.display import CommandDisplay
from agentcli.tools.edit import EditTool, plan_edit
from agentcli.tools.fileio import replace_checked
from agentcli.tools.read import ReadTool
from agentcli.tools.write import WriteTool
from tests.tools.conftest import call_tool


class Buffers:
    """An editor: unsaved text per path; a write lands in the buffer and is saved."""

    def __init__(self, texts: dict[Path, str] | None = None) -> None:
        self.texts = dict(texts or {})
        self.writes: list[tuple[Path, str]] = []

    def read_text(self, path: Path) -> str:
        return self.texts[path] if path in self.texts else path.read_text()

    def write_text(self, path: Path, text: str) -> None:
        self.writes.append((path, text))
        self.texts.pop(path, None)
        path.write_text(text)


@pytest.fixture
def editor() -> Buffers:
    return Buffers()


@pytest.fixture
def ctx(tmp_path: Path, editor: Buffers) -> ToolContext:
    root = tmp_path / "project"
    root.mkdir()
    return ToolContext(workspace=Workspace(root=root, editor=editor), abort=AbortSignal())


async def test_read_shows_the_unsaved_buffer(ctx, editor):
    path = ctx.workspace.root / "a.py"
    path.write_text("on disk\n")
    editor.texts[path] = "in the buffer\nsecond line\n"

    result = await call_tool(ReadTool(), ctx, file_path=str(path))

    assert result.content == "     1\tin the buffer\n     2\tsecond line"


async def test_an_empty_buffer_reads_as_an_empty_file(ctx, editor):
    path = ctx.workspace.root / "a.py"
    path.write_text("on disk\n")
    editor.texts[path] = ""

    result = await call_tool(ReadTool(), ctx, file_path=str(path))

    assert "exists but is empty" in str(result.content)


async def test_a_binary_file_is_read_from_disk_not_asked_of_the_editor(ctx, editor):
    path = ctx.workspace.root / "blob.bin"
    path.write_bytes(b"\x00\x01binary")
    editor.texts[path] = "should not be used"

    with pytest.raises(ToolError, match="binary file"):
        await call_tool(ReadTool(), ctx, file_path=str(path))


async def test_edit_changes_the_buffer_and_the_editor_saves_it(ctx, editor):
    path = ctx.workspace.root / "a.py"
    path.write_text("x = 1\n")
    editor.texts[path] = "x = 1\ny = 2  # unsaved\n"
    await call_tool(ReadTool(), ctx, file_path=str(path))

    await call_tool(EditTool(), ctx, file_path=str(path), old_string="y = 2", new_string="y = 3")

    assert editor.writes == [(path, "x = 1\ny = 3  # unsaved\n")]
    # The next edit needs no new Read: what the editor saved is recorded as read.
    await call_tool(EditTool(), ctx, file_path=str(path), old_string="x = 1", new_string="x = 0")
    assert path.read_text() == "x = 0\ny = 3  # unsaved\n"


async def test_edit_refuses_a_file_changed_on_disk_since_it_was_read(ctx, editor):
    path = ctx.workspace.root / "a.py"
    path.write_text("x = 1\n")
    await call_tool(ReadTool(), ctx, file_path=str(path))
    inp = EditTool().input_model.model_validate(
        {"file_path": str(path), "old_string": "x = 1", "new_string": "x = 2"}
    )
    edit = plan_edit(inp, ctx.workspace)
    assert edit.new_data is not None and edit.seen is not None
    path.write_text("x = 1  # changed by someone else\n")  # between the plan and the write

    with pytest.raises(ToolError, match="modified by another process"):
        replace_checked(ctx.workspace, path, edit.new_data, edit.seen, "a.py", "meanwhile")
    assert editor.writes == []


async def test_write_creates_a_new_file_through_the_editor(ctx, editor):
    path = ctx.workspace.root / "sub" / "new.md"

    await call_tool(WriteTool(), ctx, file_path=str(path), content="# New\n")

    assert editor.writes == [(path, "# New\n")]
    assert ctx.workspace.read_files[str(path)]  # it can be edited at once


class Terminal:
    """Terminals that answer from a script and remember what they ran."""

    def __init__(self, done: ShellExit) -> None:
        self.done = done
        self.ran: list[ShellCommand] = []

    async def run(self, command: ShellCommand, abort: AbortSignal) -> ShellExit:
        self.ran.append(command)
        await asyncio.sleep(0)
        return self.done


async def test_bash_runs_in_the_terminals_and_reports_as_a_local_run(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    terminal = Terminal(ShellExit("made it\n", "exited", 3))
    ctx = ToolContext(
        workspace=Workspace(root=root, terminals=terminal, env={"STAGE": "test"}),
        abort=AbortSignal(),
        tool_use_id="toolu_7",
    )

    result = await call_tool(BashTool(), ctx, command="make", timeout=5000)

    assert result.content == "made it\nExit code: 3" and result.is_error
    assert result.display == CommandDisplay(exit_code=3)
    (command,) = terminal.ran
    assert command.argv == ["bash", "-c", "make"]
    assert (command.cwd, command.timeout_s, command.tool_use_id) == (root, 5.0, "toolu_7")
    assert command.env["STAGE"] == "test" and "BASH_ENV" in command.env
    assert "PATH" not in command.env  # only what differs from agentcli's own environment


async def test_a_timed_out_command_in_the_terminals_says_so(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    terminal = Terminal(ShellExit("partial", "timed_out", None))
    ctx = ToolContext(workspace=Workspace(root=root, terminals=terminal), abort=AbortSignal())

    result = await call_tool(BashTool(), ctx, command="sleep 9", timeout=1000)

    assert result.is_error and "timed out after 1s" in str(result.content)
