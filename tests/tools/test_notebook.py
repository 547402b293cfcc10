"""Notebooks: Read shows each cell and its outputs (bounded); NotebookEdit changes one cell,
keeps the file valid nbformat 4, obeys Read-before-edit and the path rules."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import nbformat
import pytest

from agentcli.config.rules import parse_tool_list
from agentcli.permissions.policy import PermissionPolicy
from agentcli.permissions.types import PermissionMode
from agentcli.tools.base import ToolError, Workspace
from agentcli.tools.display import NotebookDisplay, NotebookEditDisplay
from agentcli.tools.notebook_edit import NotebookEditTool
from agentcli.tools.read import ReadTool

PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00"
    b"\x00\x90wS\xde\x00\x00\x00\x0cIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81"
    b"\x84\x00\x00\x00\x00IEND\xaeB`\x82"
)


def sample_notebook(minor: int = 5) -> nbformat.NotebookNode:
    v4 = nbformat.v4
    notebook = v4.new_notebook()
    notebook.nbformat_minor = minor
    notebook.metadata["language_info"] = {"name": "python"}
    title = v4.new_markdown_cell("# Analysis", id="intro")
    load = v4.new_code_cell("import math\nprint(math.pi)", id="load", execution_count=1)
    load.outputs = [v4.new_output("stream", name="stdout", text="3.141592653589793\n")]
    plot = v4.new_code_cell("plot()", id="plot", execution_count=2)
    plot.outputs = [
        v4.new_output(
            "display_data",
            data={"image/png": base64.b64encode(PNG).decode(), "text/plain": "<Figure>"},
        )
    ]
    fail = v4.new_code_cell("1/0", id="fail", execution_count=3)
    fail.outputs = [
        v4.new_output(
            "error",
            ename="ZeroDivisionError",
            evalue="division by zero",
            traceback=["\x1b[0;31mZeroDivisionError\x1b[0m: division by zero"],
        )
    ]
    notebook.cells = [title, load, plot, fail]
    if minor < 5:
        for cell in notebook.cells:
            cell.pop("id")
    return notebook


def save(path: Path, notebook) -> Path:
    path.write_text(nbformat.writes(notebook))
    return path


def texts(result) -> str:
    return "\n".join(p["text"] for p in result.content if p["type"] == "text")


@pytest.fixture
def notebook_file(workspace: Workspace) -> Path:
    return save(workspace.root / "analysis.ipynb", sample_notebook())


# --- Read ---------------------------------------------------------------------------


async def test_read_shows_each_cell_with_its_id_type_source_and_outputs(run_tool, notebook_file):
    result = await run_tool(ReadTool(), file_path=str(notebook_file))

    shown = texts(result)
    assert shown.startswith("analysis.ipynb: Jupyter notebook with 4 cells (python).")
    assert '<cell id="intro" type="markdown">\n# Analysis\n</cell>' in shown
    assert (
        '<cell id="load" type="code" execution_count="1">\nimport math\nprint(math.pi)\n</cell>\n'
        '<output type="stream" name="stdout">\n3.141592653589793\n</output>'
    ) in shown
    assert (
        '<output type="error">\nZeroDivisionError: division by zero\nZeroDivisionError: division by zero\n</output>'
        in shown
    )
    assert "\x1b" not in shown  # the traceback's terminal colours are gone
    [image] = [p for p in result.content if p["type"] == "image"]
    assert base64.b64decode(image["source"]["data"]) == PNG
    assert image["source"]["media_type"] == "image/png"
    assert result.display == NotebookDisplay(path="analysis.ipynb", cells=4, images=1)


async def test_cells_without_ids_are_named_by_their_place(run_tool, workspace):
    path = save(workspace.root / "old.ipynb", sample_notebook(minor=4))

    shown = texts(await run_tool(ReadTool(), file_path=str(path)))

    assert (
        '<cell id="cell-0" type="markdown">' in shown and '<cell id="cell-3" type="code"' in shown
    )


async def test_outputs_are_bounded_each_and_together(run_tool, workspace):
    notebook = sample_notebook()
    for n in range(20):
        cell = nbformat.v4.new_code_cell(f"spam({n})", id=f"spam{n}")
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="x" * 1_000_000)]
        notebook.cells.append(cell)
    path = save(workspace.root / "big.ipynb", notebook)

    result = await run_tool(ReadTool(), file_path=str(path))

    shown = texts(result)
    assert len(shown) < 40_000
    assert "… [output cut: 1000000 characters]" in shown
    assert "the outputs' share of the result is used up" in shown
    assert '<cell id="spam19" type="code">' in shown  # every cell's source still shown


async def test_a_notebook_past_the_result_size_is_cut_at_a_cell_with_a_way_on(run_tool, workspace):
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_markdown_cell("word " * 2000, id=f"c{n}") for n in range(10)]
    path = save(workspace.root / "long.ipynb", notebook)

    shown = texts(await run_tool(ReadTool(), file_path=str(path)))

    assert "(Showing cells 0-2 of 10: the result size limit was reached." in shown
    assert "jq '.cells[3:] | map({id, cell_type, source})' long.ipynb" in shown


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("{not json", "bad.ipynb is not a Jupyter notebook: its content is not valid JSON."),
        ("[" * 100_000 + "]" * 100_000, "bad.ipynb is not a Jupyter notebook"),
        ("{}", "bad.ipynb is not a Jupyter notebook: it has no nbformat version."),
        ('{"nbformat": 99, "cells": []}', "bad.ipynb is not a Jupyter notebook nbformat can read"),
        (
            '{"nbformat": 3, "nbformat_minor": 0, "worksheets": 5}',
            "bad.ipynb is not a Jupyter notebook nbformat can read",
        ),
        (
            '{"nbformat": 4, "nbformat_minor": 5, "cells": 3, "metadata": {}}',
            "it has no list of cells",
        ),
    ],
)
async def test_a_file_that_is_not_a_notebook_gets_one_sentence(run_tool, workspace, content, says):
    path = workspace.root / "bad.ipynb"
    path.write_text(content)

    with pytest.raises(ToolError) as refused:
        await run_tool(ReadTool(), file_path=str(path))

    assert says in str(refused.value)


async def test_a_picture_whose_bytes_are_not_what_it_says_is_not_sent(run_tool, workspace):
    notebook = sample_notebook()
    notebook.cells[2].outputs[0]["data"]["image/png"] = base64.b64encode(b"GIF89a....").decode()
    path = save(workspace.root / "odd.ipynb", notebook)

    result = await run_tool(ReadTool(), file_path=str(path))

    assert not [p for p in result.content if p["type"] == "image"]
    assert "(image/png picture not shown: its data is not a image/png file)" in texts(result)


# --- NotebookEdit --------------------------------------------------------------------


async def read_then_edit(run_tool, path: Path, **fields):
    await run_tool(ReadTool(), file_path=str(path))
    return await run_tool(NotebookEditTool(), notebook_path=str(path), **fields)


def cells_of(path: Path) -> list[tuple[str, str, str]]:
    notebook = nbformat.read(str(path), as_version=nbformat.NO_CONVERT)
    nbformat.validate(notebook)  # raises when the file is no longer valid nbformat
    return [(c.get("id", "-"), c.cell_type, c.source) for c in notebook.cells]


async def test_replace_changes_one_cell_and_clears_its_outputs(run_tool, notebook_file):
    result = await read_then_edit(
        run_tool, notebook_file, cell_id="load", new_source="import math\nprint(math.e)"
    )

    assert result.content == (
        "Updated cell load of analysis.ipynb. Its outputs were cleared (they belonged to the "
        "old source)."
    )
    assert cells_of(notebook_file)[1] == ("load", "code", "import math\nprint(math.e)")
    cell = nbformat.read(str(notebook_file), as_version=4).cells[1]
    assert cell.outputs == [] and cell.execution_count is None
    assert cells_of(notebook_file)[2:] == [("plot", "code", "plot()"), ("fail", "code", "1/0")]
    assert notebook_file.read_text().endswith("}\n")


async def test_replace_can_change_the_cell_type(run_tool, notebook_file):
    await read_then_edit(
        run_tool, notebook_file, cell_id="fail", new_source="Division *fails*", cell_type="markdown"
    )

    cell = nbformat.read(str(notebook_file), as_version=4).cells[3]
    assert cell.cell_type == "markdown" and "outputs" not in cell and "execution_count" not in cell
    cells_of(notebook_file)


async def test_insert_goes_after_the_cell_or_first_without_one(run_tool, notebook_file):
    after = await read_then_edit(
        run_tool,
        notebook_file,
        cell_id="intro",
        new_source="x = 1",
        cell_type="code",
        edit_mode="insert",
    )
    first = await run_tool(
        NotebookEditTool(),
        notebook_path=str(notebook_file),
        new_source="Top",
        cell_type="markdown",
        edit_mode="insert",
    )

    cells = cells_of(notebook_file)
    assert [c[1:] for c in cells[:3]] == [
        ("markdown", "Top"),
        ("markdown", "# Analysis"),
        ("code", "x = 1"),
    ]
    assert after.content == f"Inserted a code cell {cells[2][0]} in analysis.ipynb."
    assert first.content == f"Inserted a markdown cell {cells[0][0]} in analysis.ipynb."
    assert len({c[0] for c in cells}) == 6  # every cell has its own id


async def test_insert_into_an_old_notebook_adds_no_id_it_cannot_hold(run_tool, workspace):
    path = save(workspace.root / "old.ipynb", sample_notebook(minor=4))

    result = await read_then_edit(
        run_tool, path, cell_id="cell-1", new_source="y = 2", cell_type="code", edit_mode="insert"
    )

    assert result.content == "Inserted a code cell cell-2 in old.ipynb."
    assert cells_of(path)[2] == ("-", "code", "y = 2")


async def test_delete_removes_the_cell(run_tool, notebook_file):
    result = await read_then_edit(run_tool, notebook_file, cell_id="plot", edit_mode="delete")

    assert result.content == "Deleted cell plot from analysis.ipynb."
    assert [c[0] for c in cells_of(notebook_file)] == ["intro", "load", "fail"]


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        (
            {"cell_id": "nope", "new_source": "x"},
            "analysis.ipynb has no cell 'nope'. Its cells are: intro, load, plot, fail.",
        ),
        ({"new_source": "x"}, "cell_id is required to replace a cell"),
        (
            {"cell_id": "load", "new_source": "x", "edit_mode": "insert"},
            "cell_type (code or markdown) is required",
        ),
        ({"cell_id": "cell-9", "edit_mode": "delete"}, "has no cell 'cell-9'"),
    ],
)
async def test_an_edit_that_cannot_apply_changes_nothing(run_tool, notebook_file, fields, says):
    before = notebook_file.read_bytes()

    with pytest.raises(ToolError) as refused:
        await read_then_edit(run_tool, notebook_file, **fields)

    assert says in str(refused.value)
    assert notebook_file.read_bytes() == before


async def test_a_notebook_must_be_read_first_and_unchanged_since(run_tool, notebook_file):
    edit = {"notebook_path": str(notebook_file), "cell_id": "load", "new_source": "x"}
    with pytest.raises(ToolError) as unread:
        await run_tool(NotebookEditTool(), **edit)
    await run_tool(ReadTool(), file_path=str(notebook_file))
    save(notebook_file, sample_notebook())  # changed by someone else (a save in Jupyter)
    notebook_file.write_text(notebook_file.read_text() + " ")

    with pytest.raises(ToolError) as stale:
        await run_tool(NotebookEditTool(), **edit)

    assert "has not been read in this session" in str(unread.value)
    assert "was modified since it was last read" in str(stale.value)


async def test_only_notebooks_are_edited(run_tool, workspace):
    path = workspace.root / "a.py"
    path.write_text("x = 1\n")

    with pytest.raises(ToolError) as refused:
        await read_then_edit(run_tool, path, cell_id="cell-0", new_source="y")

    assert "a.py is not a Jupyter notebook (.ipynb file). Use the Edit tool" in str(refused.value)


async def test_the_permission_question_shows_the_cells_diff(notebook_file, workspace, run_tool):
    await run_tool(ReadTool(), file_path=str(notebook_file))
    tool = NotebookEditTool()
    inp = tool.input_model.model_validate(
        {
            "notebook_path": str(notebook_file),
            "cell_id": "load",
            "new_source": "import math\nprint(math.tau)",
        }
    )

    preview = await tool.permission_preview(inp, workspace)

    assert isinstance(preview, NotebookEditDisplay)
    assert preview.cell_id == "load" and preview.edit_mode == "replace"
    [hunk] = preview.hunks
    assert hunk.lines == (" import math", "-print(math.pi)", "+print(math.tau)")
    assert (preview.added, preview.removed) == (1, 1)
    assert tool.files_written(inp, workspace) == [notebook_file]  # checkpointed before it runs


def test_path_rules_for_edits_cover_notebook_edit(tmp_path):
    root = tmp_path / "project"
    (root / "vendor").mkdir(parents=True)
    policy = PermissionPolicy(
        Workspace(root=root),
        PermissionMode.ACCEPT_EDITS,
        deny=parse_tool_list(["Edit(vendor/**)"], "test", root),
    )
    tool = NotebookEditTool()

    def decide(path: str) -> str:
        inp = tool.input_model.model_validate(
            {"notebook_path": path, "cell_id": "a", "new_source": "x"}
        )
        return policy.decide(tool, inp).behavior

    assert decide("vendor/lib.ipynb") == "deny"
    assert decide(str(root / "vendor" / "deep" / "lib.ipynb")) == "deny"
    assert decide("mine.ipynb") == "allow"  # acceptEdits, inside the project


async def test_the_pictures_of_one_read_are_bounded_in_number_and_size(run_tool, workspace):
    notebook = sample_notebook()
    big = base64.b64encode(PNG + os.urandom(2_500_000)).decode()
    for n in range(5):
        cell = nbformat.v4.new_code_cell(f"show({n})", id=f"show{n}")
        cell.outputs = [nbformat.v4.new_output("display_data", data={"image/png": big})]
        notebook.cells.append(cell)
    for n in range(10):
        cell = nbformat.v4.new_code_cell(f"small({n})", id=f"small{n}")
        cell.outputs = [
            nbformat.v4.new_output(
                "display_data", data={"image/png": base64.b64encode(PNG).decode()}
            )
        ]
        notebook.cells.append(cell)
    path = save(workspace.root / "gallery.ipynb", notebook)

    result = await run_tool(ReadTool(), file_path=str(path))

    sent = [p["source"]["data"] for p in result.content if p["type"] == "image"]
    assert len(sent) == 8 and sum(map(len, sent)) <= 12_000_000
    assert "this read's pictures are large enough" in texts(result)
    assert "this read's 8 pictures are used" in texts(result)


async def test_an_nbformat_3_notebook_is_read_and_edited_into_nbformat_4(run_tool, workspace):
    v3 = nbformat.v3
    old = v3.new_notebook(
        worksheets=[v3.new_worksheet(cells=[v3.new_code_cell(input="x = 3", prompt_number=1)])]
    )
    path = workspace.root / "v3.ipynb"
    path.write_text(nbformat.writes(old, version=3))

    shown = texts(await run_tool(ReadTool(), file_path=str(path)))
    result = await run_tool(
        NotebookEditTool(), notebook_path=str(path), cell_id="cell-0", new_source="x = 4"
    )

    assert '<cell id="cell-0" type="code" execution_count="1">\nx = 3\n</cell>' in shown
    assert result.content == "Updated cell cell-0 of v3.ipynb."
    assert nbformat.read(str(path), as_version=nbformat.NO_CONVERT).nbformat == 4
    assert [c[1:] for c in cells_of(path)] == [("code", "x = 4")]
