"""What a tool shows a person about one call, beyond the text the model gets.

A tool returns one of these models as `ToolResult.display`, and may give one
as its permission preview (Edit: the diff it is about to make). They are
data, not pictures: each front end decides how to draw them (the TUI keeps a
registry from model class to renderer, `agentcli/frontends/tui/renderers.py`, and draws
a model it does not know generically), so a new tool brings its own model
and needs no change in any front end.

Every model dumps to JSON (`model_dump(mode="json")`) with its `type` name,
so an SDK or ACP front end can send it and the transcript can keep it;
`load_display()` reads one back. A subclass registers itself under the
default of its `type` field when it is defined.

The models map onto the Agent Client Protocol's tool-call content: each hunk
of a `DiffDisplay` is a `diff` (path; oldText: its context and removed
lines; newText: its context and added lines), a `CreatedDisplay` is a `diff`
with oldText null, a `CommandDisplay` is a `terminal`'s exit status
(exitCode; a timeout or an interrupt ends it by signal), and the others are
`content` with these fields as the call's rawOutput.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

_KNOWN: dict[str, type[ToolDisplay]] = {}


class ToolDisplay(BaseModel):
    """The base of every display model. A subclass sets `type` to a literal name."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    type: str

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: object) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        name = cls.model_fields["type"].default
        if isinstance(name, str):
            _KNOWN[name] = cls


def load_display(data: object) -> ToolDisplay | None:
    """The model `data` (a dumped display) describes; None when it is not one we know."""
    if not isinstance(data, dict):
        return None
    model = _KNOWN.get(str(data.get("type")))
    if model is None:
        return None
    try:
        return model.model_validate(data)
    except ValidationError:
        return None


class ReadDisplay(ToolDisplay):
    """Read: how many lines of which file were shown, from which line."""

    type: Literal["read"] = "read"
    path: str
    lines: int
    offset: int = 1
    truncated: bool = False
    encoding: str | None = None


class DiffHunk(BaseModel):
    """One hunk of a unified diff as data. Starts are 1-based; for an empty side, the
    number of the line before the hunk. `lines` keep their sign (" ", "-", "+")."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    old_start: int
    old_lines: int
    new_start: int
    new_lines: int
    lines: tuple[str, ...]


class DiffDisplay(ToolDisplay):
    """Edit, Write: the change made to a file (or, as a preview, about to be made)."""

    type: Literal["diff"] = "diff"
    path: str
    hunks: tuple[DiffHunk, ...]
    added: int
    removed: int


class CreatedDisplay(ToolDisplay):
    """Write (or Edit with an empty old_string): a new file of `lines` lines."""

    type: Literal["created"] = "created"
    path: str
    lines: int


class CommandDisplay(ToolDisplay):
    """Bash, and `!command` in the TUI: how the command ended. `exit_code` is None when
    it did not exit by itself; `output_file` holds the full output when it was cut."""

    type: Literal["command"] = "command"
    exit_code: int | None = None
    timed_out: bool = False
    interrupted: bool = False
    output_file: str | None = None


class SearchDisplay(ToolDisplay):
    """Grep, Glob: how much was found (`found`), and how much of it the result shows."""

    type: Literal["search"] = "search"
    found: int
    shown: int
    unit: Literal["files", "results"]


class ImageDisplay(ToolDisplay):
    """Read of an image: the model gets the picture itself."""

    type: Literal["image"] = "image"
    path: str
    media_type: str
    size: int


class PdfDisplay(ToolDisplay):
    """Read of a PDF: pages `first`..`last` of `page_count`, `images` of them as pictures
    (`last` < `first`: no page came back)."""

    type: Literal["pdf"] = "pdf"
    path: str
    page_count: int
    first: int
    last: int
    images: int = 0


class NotebookDisplay(ToolDisplay):
    """Read of a Jupyter notebook: how many cells, and how many output pictures."""

    type: Literal["notebook"] = "notebook"
    path: str
    cells: int
    images: int = 0


class NotebookEditDisplay(DiffDisplay):
    """NotebookEdit: one cell's source before and after, drawn like Edit's diff; its line
    numbers count from the cell's first line."""

    type: Literal["notebook_edit"] = "notebook_edit"  # type: ignore[assignment]
    cell_id: str
    edit_mode: Literal["replace", "insert", "delete"]
    cell_type: str


class PlanDisplay(ToolDisplay):
    """ExitPlanMode: the plan put to the person."""

    type: Literal["plan"] = "plan"
    plan: str


class LiveOutput(BaseModel):
    """What a running tool reports as it goes (Bash: new output), before its display."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    text: str


class McpCallDisplay(ToolDisplay):
    """An MCP server's tool (agentcli/mcp): which one, and what came back besides text."""

    type: Literal["mcp"] = "mcp"
    server: str
    tool: str
    images: int = 0
    resources: int = 0  # embedded resources and resource links
    structured: bool = False  # the result carried structuredContent


class WebFetchDisplay(ToolDisplay):
    """WebFetch: which page, how it answered, and what the model got from it.

    `redirect` is the target of a redirect to another host (not followed);
    `answered_by` the small model that answered the prompt about a long page
    (None: the page's text itself went to the model)."""

    type: Literal["web_fetch"] = "web_fetch"
    url: str
    status: int
    size: int = 0  # bytes received
    content_type: str = ""
    cached: bool = False
    redirect: str | None = None
    answered_by: str | None = None


class SubagentDisplay(ToolDisplay):
    """A finished Task call: which subagent did what, at what cost; `status`: how its
    run ended (completed, interrupted, failed). The link to the subagent's own
    transcript (`transcript`) stays with the parent's record of the call."""

    type: Literal["subagent"] = "subagent"
    agent_type: str
    description: str
    status: str
    tool_uses: int
    tokens: int
    transcript: str | None = None
