"""NotebookEdit: replace, insert or delete one cell of a Jupyter notebook, as Claude Code's
tool of that name does (the same input fields).

The notebook goes through nbformat both ways: read (an older format is converted
to 4), changed, checked against nbformat's schema, written in nbformat's own layout.
An edit that would leave a valid notebook invalid is refused and nothing is
written. Like Edit, it changes only a notebook the model has read and that has not
changed since (Read records it), the write is atomic and checked against the file
as read, and the engine checkpoints the file before the call (`files_written`), so
a rewind restores it. The permission question shows the cell's source before and
after (`NotebookEditDisplay`, drawn as Edit's diff).

Semantics are Claude Code's: `cell_id` names the cell (its id, or `cell-N` for a
cell without one, N from 0); insert puts the new cell after it, or first when
`cell_id` is absent, and needs `cell_type`; replace keeps the cell's type unless
`cell_type` says otherwise and clears a code cell's outputs and execution count,
since they no longer belong to its source.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import Field

from agentcli.tools.base import Tool, ToolContext, ToolError, ToolResult, Workspace
from agentcli.tools.diff import build_diff
from agentcli.tools.display import NotebookEditDisplay
from agentcli.tools.fileio import (
    ensure_read_and_fresh,
    missing_file_message,
    read_current,
    replace_checked,
    stat_for_change,
)
from agentcli.tools.inputs import PathText, ToolInput
from agentcli.tools.notebook import (
    MAX_NOTEBOOK_BYTES,
    cell_name,
    find_cell,
    nbformat_library,
    parse_notebook,
    schema_problem,
    source_of,
)


class NotebookEditInput(ToolInput):
    notebook_path: PathText = Field(
        description="The absolute path to the Jupyter notebook file to edit (must be "
        "absolute, not relative)"
    )
    cell_id: str | None = Field(
        default=None,
        max_length=200,
        description="The ID of the cell to edit. When inserting a new cell, the new cell "
        "will be inserted after the cell with this ID, or at the beginning if not specified.",
    )
    new_source: str = Field(
        default="", description="The new source for the cell (ignored by delete)"
    )
    cell_type: Literal["code", "markdown"] | None = Field(
        default=None,
        description="The type of the cell (code or markdown). If not specified, it defaults "
        "to the current cell type. If using edit_mode=insert, this is required.",
    )
    edit_mode: Literal["replace", "insert", "delete"] = Field(
        default="replace",
        description="The type of edit to make (replace, insert, delete). Defaults to replace.",
    )


class NotebookEditTool(Tool):
    name = "NotebookEdit"
    input_model: ClassVar[type[ToolInput]] = NotebookEditInput
    read_only: ClassVar[bool] = False
    concurrency_safe: ClassVar[bool] = False
    permission_title: ClassVar[str] = "Edit notebook"
    prompt_file: ClassVar[str | None] = "notebook_edit.md"

    def summary(self, inp: Any, workspace: Workspace) -> str:
        shown = workspace.display_path(workspace.resolve(inp.notebook_path))
        return f"{shown}, {inp.edit_mode} {inp.cell_id}" if inp.cell_id else shown

    def target_path(self, inp: Any, workspace: Workspace) -> Path | None:
        return workspace.resolve(inp.notebook_path)

    def files_written(self, inp: Any, workspace: Workspace) -> list[Path]:
        return [workspace.resolve(inp.notebook_path)]

    async def permission_preview(self, inp: Any, workspace: Workspace) -> NotebookEditDisplay:
        """The cell before and after; an edit that cannot apply (notebook not read,
        changed since, no such cell) fails here, before the person is asked."""
        plan = await asyncio.to_thread(plan_notebook_edit, inp, workspace)
        return plan.display()

    async def run(self, inp: Any, ctx: ToolContext) -> ToolResult:
        return await asyncio.to_thread(_edit, inp, ctx.workspace)


@dataclass(slots=True)
class NotebookPlan:
    """A cell edit worked out in full, not yet written."""

    path: Path
    shown: str
    seen: os.stat_result
    new_data: bytes
    cell: str  # the edited (or new, or deleted) cell's name
    cell_type: str
    mode: Literal["replace", "insert", "delete"]
    old_source: str
    new_source: str
    cleared_outputs: bool
    note: str

    def display(self) -> NotebookEditDisplay:
        diff = build_diff(self.shown, self.old_source, self.new_source)
        return NotebookEditDisplay(
            path=diff.path,
            hunks=diff.hunks,
            added=diff.added,
            removed=diff.removed,
            cell_id=self.cell,
            edit_mode=self.mode,
            cell_type=self.cell_type,
        )


def plan_notebook_edit(inp: Any, workspace: Workspace) -> NotebookPlan:
    """Everything short of writing: ToolError when the edit cannot apply as it stands."""
    nbformat = nbformat_library()
    path = workspace.resolve(inp.notebook_path)
    shown = workspace.display_path(path)
    if path.suffix.lower() != ".ipynb":
        raise ToolError(
            f"{shown} is not a Jupyter notebook (.ipynb file). Use the Edit tool for other files."
        )
    st = stat_for_change(path, shown)
    if st is None:
        raise ToolError(
            missing_file_message(path, shown, workspace)
            + " NotebookEdit changes an existing notebook; create one with the Write tool."
        )
    if st.st_size > MAX_NOTEBOOK_BYTES:
        raise ToolError(
            f"{shown} is larger than the {MAX_NOTEBOOK_BYTES >> 20} MB NotebookEdit takes."
        )
    ensure_read_and_fresh(workspace, path, st, shown, "editing it")
    data, seen = read_current(workspace, path, shown)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ToolError(f"{shown} is not a Jupyter notebook: it is not UTF-8 JSON.")
    notebook = parse_notebook(text, shown)
    was_invalid = schema_problem(notebook)
    cells: list[Any] = notebook["cells"]
    plan = _apply(notebook, cells, inp, shown)
    problem = schema_problem(notebook)
    if problem is not None and was_invalid is None:
        raise ToolError(
            f"The edit would leave {shown} an invalid notebook ({problem}); nothing was written."
        )
    if was_invalid is not None:
        plan.note += f" (The notebook did not match nbformat's schema before this edit either: {was_invalid}.)"
    # nbformat's own layout; v4.writes, unlike nbformat.writes, logs nothing on its own.
    with_newline = nbformat.v4.writes(notebook) + "\n"
    return NotebookPlan(path, shown, seen, with_newline.encode("utf-8"), **asdict(plan))


@dataclass(slots=True)
class _Change:
    cell: str
    cell_type: str
    mode: Literal["replace", "insert", "delete"]
    old_source: str
    new_source: str
    cleared_outputs: bool
    note: str = ""


def _apply(notebook: Any, cells: list[Any], inp: Any, shown: str) -> _Change:
    """Make the change in `notebook` (in memory)."""
    nbformat = nbformat_library()
    mode = inp.edit_mode
    index: int | None = None
    if inp.cell_id is not None:
        index = find_cell(cells, inp.cell_id)
        if index is None:
            raise ToolError(_no_such_cell(inp.cell_id, cells, shown))
    elif mode != "insert":
        raise ToolError(f"cell_id is required to {mode} a cell (only insert may leave it out).")

    if mode == "insert":
        if inp.cell_type is None:
            raise ToolError("cell_type (code or markdown) is required when edit_mode is insert.")
        make = (
            nbformat.v4.new_code_cell if inp.cell_type == "code" else nbformat.v4.new_markdown_cell
        )
        cell = make(source=inp.new_source)
        at = 0 if index is None else index + 1
        if notebook.get("nbformat_minor", 0) < 5:
            cell.pop("id", None)  # ids came with nbformat 4.5; the schema of 4.4 has none
        cells.insert(at, cell)
        return _Change(cell_name(cell, at), inp.cell_type, mode, "", inp.new_source, False)

    assert index is not None
    cell = cells[index]
    name = cell_name(cell, index)
    old_source = source_of(cell)
    if mode == "delete":
        del cells[index]
        return _Change(name, str(cell.get("cell_type", "")), mode, old_source, "", False)

    kind = inp.cell_type or str(cell.get("cell_type", "code"))
    cleared = bool(cell.get("outputs")) if cell.get("cell_type") == "code" else False
    if kind == "code":
        cell["outputs"] = []
        cell["execution_count"] = None
        cell.pop("attachments", None)  # a markdown cell's pictures; code cells have none
    else:
        cell.pop("outputs", None)
        cell.pop("execution_count", None)
    cell["cell_type"] = kind
    cell["source"] = inp.new_source
    return _Change(name, kind, mode, old_source, inp.new_source, cleared)


def _no_such_cell(wanted: str, cells: list[Any], shown: str) -> str:
    names = [cell_name(cell, i) for i, cell in enumerate(cells)]
    listed = ", ".join(names[:20]) + (", …" if len(names) > 20 else "")
    return (
        f"{shown} has no cell {wanted!r}. Its cells are: {listed or '(none)'}. Read the "
        "notebook to see each cell's id."
    )


def _edit(inp: Any, workspace: Workspace) -> ToolResult:
    plan = plan_notebook_edit(inp, workspace)
    replace_checked(
        workspace,
        plan.path,
        plan.new_data,
        plan.seen,
        plan.shown,
        "while the cell was being edited",
    )
    if plan.mode == "insert":
        head = f"Inserted a {plan.cell_type} cell {plan.cell} in {plan.shown}."
    elif plan.mode == "delete":
        head = f"Deleted cell {plan.cell} from {plan.shown}."
    else:
        head = f"Updated cell {plan.cell} of {plan.shown}."
        if plan.cleared_outputs:
            head += " Its outputs were cleared (they belonged to the old source)."
    return ToolResult(head + plan.note, display=plan.display())
