"""A tool the UI has never heard of: drawn generically, or by the renderer it registers.

Each test brings a brand-new tool with a display model of its own, through the
real app: its permission question, then its finished pane.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from textual.widgets import Static

from agentcli.frontends.tui.renderers import register
from agentcli.frontends.tui.widgets.diff_view import DiffView
from agentcli.frontends.tui.widgets.tool_pane import summary_line
from agentcli.permissions.types import PermissionMode
from agentcli.tools.base import Tool, ToolContext, ToolResult, Workspace
from agentcli.tools.diff import build_diff
from agentcli.tools.display import DiffDisplay, ToolDisplay
from agentcli.tools.inputs import ToolInput
from tests.engine.scripted import Response, ScriptedProvider, text, tool_use
from tests.frontends.tui.helpers import idle, make_app, question_ready, send, wait_for


class DeployInput(ToolInput):
    target: str


class DeployDisplay(ToolDisplay):
    """No renderer knows this one."""

    type: Literal["test-deploy"] = "test-deploy"
    target: str


class ReleaseDisplay(ToolDisplay):
    """Registered below, as a tool's own module would do."""

    type: Literal["test-release"] = "test-release"
    version: str
    notes: tuple[str, ...]


register(
    ReleaseDisplay,
    summary=lambda d, _text: f"Released {d.version}",
    body=lambda d, max_lines: Static("\n".join(f"• {note}" for note in d.notes[:max_lines])),
)


def deploy_tool(display: Callable[[DeployInput], ToolDisplay]) -> Tool:
    class DeployTool(Tool):
        name = "Deploy"
        input_model = DeployInput

        @property
        def description(self) -> str:
            return "Deploy the project."

        def summary(self, inp: DeployInput, workspace: Workspace) -> str:
            return inp.target

        async def permission_preview(self, inp: DeployInput, workspace: Workspace) -> ToolDisplay:
            return display(inp)

        async def run(self, inp: DeployInput, ctx: ToolContext) -> ToolResult:
            return ToolResult(f"Deployed to {inp.target}\nlog: all green", display=display(inp))

    return DeployTool()


def deploy_app(tmp_path, display: Callable[[DeployInput], ToolDisplay]):
    provider = ScriptedProvider(
        Response([tool_use("Deploy", {"target": "staging"}, "toolu_d")]), Response([text("ok")])
    )
    return make_app(provider, tmp_path, [deploy_tool(display)], mode=PermissionMode.DEFAULT)


async def test_a_display_no_renderer_knows_gets_the_generic_view(tmp_path):
    app = deploy_app(tmp_path, lambda inp: DeployDisplay(target=inp.target))
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "deploy it")
        prompt = await wait_for(pilot, lambda: question_ready(app), "the question")
        title = str(prompt.query_one(".permission-title").render())
        subject = str(prompt.query_one(".permission-subject").render())
        assert (title, subject) == ("Use Deploy", "staging")
        assert not prompt.query(".permission-preview")  # nothing to draw the preview with
        await pilot.press("1")
        await idle(pilot, app)
        pane = app.conversation.pane("toolu_d")
        assert pane.state == "done"
        assert pane.summary == "Deployed to staging (+1 lines)"  # the result's first line
        assert not pane.query(".tool-detail")


async def test_a_registered_renderer_draws_the_summary_the_body_and_the_preview(tmp_path):
    app = deploy_app(tmp_path, lambda inp: ReleaseDisplay(version="1.2", notes=("fast", "safe")))
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "deploy it")
        prompt = await wait_for(pilot, lambda: question_ready(app), "the question")
        preview = prompt.query_one(".permission-preview", Static)
        assert str(preview.content) == "• fast\n• safe"
        await pilot.press("1")
        await idle(pilot, app)
        pane = app.conversation.pane("toolu_d")
        assert pane.summary == "Released 1.2"
        assert str(pane.query_one(".tool-detail", Static).content) == "• fast\n• safe"


def test_a_model_derived_from_a_known_one_is_drawn_like_it():
    class NotebookDiff(DiffDisplay):
        type: Literal["test-notebook-diff"] = "test-notebook-diff"

    base = build_diff("a.ipynb", "x\n", "y\n")
    derived = NotebookDiff(path=base.path, hunks=base.hunks, added=1, removed=1)
    assert summary_line("done", derived, "") == "Updated a.ipynb with 1 addition and 1 removal"


def test_no_display_at_all_is_the_results_first_line_or_the_state():
    assert summary_line("done", None, "Found it\nmore") == "Found it (+1 lines)"
    assert summary_line("done", None, "") == "Done"
    assert summary_line("failed", None, "") == "Failed"


def test_pdf_notebook_and_cell_edit_summaries():
    from agentcli.tools.display import NotebookDisplay, NotebookEditDisplay, PdfDisplay

    pdf = PdfDisplay(path="spec.pdf", page_count=30, first=2, last=4, images=1)
    cell = build_diff("nb.ipynb", "a\n", "b\n")
    edit = NotebookEditDisplay(
        path="nb.ipynb",
        hunks=cell.hunks,
        added=1,
        removed=1,
        cell_id="load",
        edit_mode="replace",
        cell_type="code",
    )
    assert summary_line("done", pdf, "") == "Read pages 2-4 of 30 · 1 image"
    assert summary_line("done", NotebookDisplay(path="nb.ipynb", cells=4), "") == "Read 4 cells"
    assert summary_line("done", edit, "") == (
        "Updated cell load of nb.ipynb with 1 addition and 1 removal"
    )


async def test_the_notebook_edit_question_shows_the_cells_diff(tmp_path):
    import nbformat

    from agentcli.tools.notebook_edit import NotebookEditTool
    from agentcli.tools.read import ReadTool

    book = nbformat.v4.new_notebook()
    book.cells = [nbformat.v4.new_code_cell("a = 1\nb = 2", id="calc")]
    path = tmp_path / "nb.ipynb"
    path.write_text(nbformat.writes(book))
    edit = {"notebook_path": str(path), "cell_id": "calc", "new_source": "a = 1\nb = 3"}
    provider = ScriptedProvider(
        Response([tool_use("Read", {"file_path": str(path)}, "toolu_r")]),
        Response([tool_use("NotebookEdit", edit, "toolu_n")]),
        Response([text("ok")]),
    )
    tools = [ReadTool(), NotebookEditTool()]
    app = make_app(provider, tmp_path, tools, mode=PermissionMode.DEFAULT)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "change b")
        prompt = await wait_for(pilot, lambda: question_ready(app), "the question")
        assert str(prompt.query_one(".permission-title").render()) == "Edit notebook"
        [view] = prompt.query(DiffView)
        assert str(view.render()).splitlines() == ["1   a = 1", "2 - b = 2", "2 + b = 3"]
        await pilot.press("1")
        await idle(pilot, app)
        pane = app.conversation.pane("toolu_n")
        assert pane.summary == "Updated cell calc of nb.ipynb with 1 addition and 1 removal"
    assert nbformat.read(str(path), as_version=4).cells[0].source == "a = 1\nb = 3"
