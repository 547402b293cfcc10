"""How the app draws a tool's display model: a summary line, and maybe a body below it.

Tools describe what they did as data (agentcli/tools/display.py); this is the
one place that knows how each model looks. `register()` maps a model class
to its renderer. A model with none (a new tool's, a subagent's) and a call
with no display at all get the generic view: the result's first line as the
summary, no body. So a tool is added without touching the UI, and drawn
better once it registers a renderer (an MCP call's line counts the images
and resources that came back). A subclass of a registered model is drawn like its parent
until it has its own.

The tool pane (a finished call) and the permission prompt (a call's preview)
both look here; neither knows any tool. Text from a display (a path, a plan)
is untrusted: summaries are shown with their controls as symbols by the
pane, and bodies do the same themselves.

Imported when the first call finishes or asks, not before the first frame:
the display models need pydantic, which the app does not load until then.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from rich.text import Text
from textual.widget import Widget
from textual.widgets import Static

from agentcli.agents.display import SubagentDisplay
from agentcli.core.terminal_text import visible_controls
from agentcli.frontends.tui.widgets.diff_view import DiffView
from agentcli.tools.ask_user_question import QuestionsDisplay
from agentcli.tools.display import (
    CommandDisplay,
    CreatedDisplay,
    DiffDisplay,
    McpCallDisplay,
    NotebookDisplay,
    NotebookEditDisplay,
    PdfDisplay,
    PlanDisplay,
    ReadDisplay,
    SearchDisplay,
    ToolDisplay,
    WebFetchDisplay,
)
from agentcli.tools.todo_write import TodoDisplay

D = TypeVar("D", bound=ToolDisplay)


@dataclass(frozen=True, slots=True)
class Renderer:
    """What the app draws for one display model; None: the generic view's part."""

    summary: Callable[[ToolDisplay, str], str | None]
    body: Callable[[ToolDisplay, int], Widget | None]


_RENDERERS: dict[type[ToolDisplay], Renderer] = {}


def register(
    model: type[D],
    *,
    summary: Callable[[D, str], str] | None = None,
    body: Callable[[D, int], Widget] | None = None,
) -> None:
    """Draw `model` with `summary(display, result_text)` (the line of a finished
    call) and `body(display, max_lines)` (a widget under it, and the preview of a
    permission question). Either may be left out for the generic view's part."""

    def summary_of(display: ToolDisplay, text: str) -> str | None:
        return summary(display, text) if summary and isinstance(display, model) else None

    def body_of(display: ToolDisplay, max_lines: int) -> Widget | None:
        return body(display, max_lines) if body and isinstance(display, model) else None

    _RENDERERS[model] = Renderer(summary_of, body_of)


def renderer_for(display: ToolDisplay | None) -> Renderer | None:
    """The renderer of `display`'s class, or of its nearest registered parent."""
    if display is None:
        return None
    for cls in type(display).__mro__:
        if cls in _RENDERERS:
            return _RENDERERS[cls]
    return None


def summary_of(display: ToolDisplay | None, text: str) -> str | None:
    """The summary the renderer gives; None: use the generic line."""
    renderer = renderer_for(display)
    return renderer.summary(display, text) if renderer and display is not None else None


def body_of(display: ToolDisplay | None, max_lines: int) -> Widget | None:
    """The widget under the summary (or in the question); None: nothing more to show."""
    renderer = renderer_for(display)
    return renderer.body(display, max_lines) if renderer and display is not None else None


def first_line(text: str) -> str | None:
    """`first line (+N lines)`: the generic summary; None for no text."""
    lines = text.strip().splitlines()
    if not lines:
        return None
    return lines[0][:200] + (f" (+{len(lines) - 1} lines)" if len(lines) > 1 else "")


class PlanView(Static):
    """A plan, as the model wrote it (controls shown as symbols), up to `max_lines`."""

    DEFAULT_CSS = "PlanView { height: auto; }"

    def __init__(self, plan: str, max_lines: int) -> None:
        lines = plan.strip().splitlines()
        text = Text(visible_controls("\n".join(lines[:max_lines])))
        if len(lines) > max_lines:
            text.append(f"\n   … {len(lines) - max_lines} more lines", style="dim")
        super().__init__(text)


# -- the built-in tools' models -------------------------------------------------------


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def _command_summary(display: CommandDisplay, text: str) -> str:
    """`exit 2: first line of output (+N lines)`, the whole first line."""
    if display.timed_out:
        return "Timed out"
    lines = text.strip().splitlines()
    first = lines[0] if lines else "(no output)"
    more = f" (+{len(lines) - 1} lines)" if len(lines) > 1 else ""
    prefix = f"exit {display.exit_code}: " if display.exit_code not in (0, None) else ""
    return f"{prefix}{first}{more}"


def _pdf_summary(display: PdfDisplay) -> str:
    """`Read pages 2-4 of 30 · 1 image`."""
    shown = display.last - display.first + 1
    if shown <= 0:
        facts = [f"Read no page of {display.page_count}"]
    elif shown == 1:
        facts = [f"Read page {display.first} of {display.page_count}"]
    else:
        facts = [f"Read pages {display.first}-{display.last} of {display.page_count}"]
    if display.images:
        facts.append(_plural(display.images, "image"))
    return " · ".join(facts)


def _notebook_edit_summary(display: NotebookEditDisplay) -> str:
    """`Updated cell load of nb.ipynb with 1 addition and 1 removal`, `Inserted…`, `Deleted…`."""
    verb = {"replace": "Updated", "insert": "Inserted", "delete": "Deleted"}[display.edit_mode]
    where = "in" if display.edit_mode == "insert" else "of"
    return (
        f"{verb} cell {display.cell_id} {where} {display.path} with "
        f"{_plural(display.added, 'addition')} and {_plural(display.removed, 'removal')}"
    )


def _mcp_summary(display: McpCallDisplay, text: str) -> str:
    """`first line (+N lines) · 1 image · 2 resources`: what came back besides text
    (an image the pane cannot show; the model got it)."""
    facts = [first_line(text) or "Done"]
    if display.images:
        facts.append(_plural(display.images, "image"))
    if display.resources:
        facts.append(_plural(display.resources, "resource"))
    return " · ".join(facts)


def _web_fetch_summary(display: WebFetchDisplay, _text: str) -> str:
    """`https://… · HTTP 200 · 12.3 kB · text/html · cached · answered by …`; a redirect
    not followed names its target."""
    from agentcli.tools.web.fetching import size_text

    if display.redirect is not None:
        return f"{display.url} redirects to another host (not followed): {display.redirect}"
    facts = [display.url, f"HTTP {display.status}", size_text(display.size)]
    facts += [display.content_type] if display.content_type else []
    facts += ["cached"] if display.cached else []
    facts += [f"answered by {display.answered_by}"] if display.answered_by else []
    return " · ".join(facts)


register(ReadDisplay, summary=lambda d, _text: f"Read {_plural(d.lines, 'line')}")
register(
    DiffDisplay,
    summary=lambda d, _text: (
        f"Updated {d.path} with {_plural(d.added, 'addition')} and {_plural(d.removed, 'removal')}"
    ),
    body=lambda d, max_lines: DiffView(d, max_lines=max_lines),
)
register(CreatedDisplay, summary=lambda d, _text: f"Created {d.path} ({d.lines} lines)")
register(PdfDisplay, summary=lambda d, _text: _pdf_summary(d))
register(
    NotebookDisplay,
    summary=lambda d, _text: (
        f"Read {_plural(d.cells, 'cell')}"
        + (f" · {_plural(d.images, 'image')}" if d.images else "")
    ),
)
register(
    NotebookEditDisplay,
    summary=lambda d, _text: _notebook_edit_summary(d),
    body=lambda d, max_lines: DiffView(d, max_lines=max_lines),
)
register(CommandDisplay, summary=_command_summary)
register(SearchDisplay, summary=lambda d, _text: f"Found {d.found} {d.unit}")
register(PlanDisplay, body=lambda d, max_lines: PlanView(d.plan, max_lines))
register(McpCallDisplay, summary=_mcp_summary)
register(WebFetchDisplay, summary=_web_fetch_summary)


def _subagent_summary(display: SubagentDisplay, _text: str) -> str:
    """`Explore: find A · 3 tool uses · 1.2k tokens`, and how it ended if not done."""
    from agentcli.frontends.tui.widgets.status import format_tokens

    facts = [
        f"{display.agent_type}: {display.description}",
        _plural(display.tool_uses, "tool use"),
        f"{format_tokens(display.tokens)} tokens",
    ]
    if display.status != "completed":
        facts.append(display.status)
    return " · ".join(facts)


def _todo_summary(display: TodoDisplay, _text: str) -> str:
    done = sum(item.status == "completed" for item in display.todos)
    return f"Updated the todo list ({done}/{len(display.todos)} done)"


register(SubagentDisplay, summary=_subagent_summary)
register(TodoDisplay, summary=_todo_summary)


def _questions_summary(display: QuestionsDisplay, _text: str) -> str:
    if not display.answers:
        return "No answers given"
    return f"Answered {_plural(len(display.answers), 'question')}"


def _questions_body(display: QuestionsDisplay, max_lines: int) -> Widget:
    """Each question answered and its answer, as the person gave it."""
    text = Text()
    if not display.answers:
        text.append("(no answers)", style="dim")
    for question, answer in list(display.answers.items())[:max_lines]:
        text.append("· ")
        text.append(visible_controls(question))
        text.append(" → ", style="dim")
        text.append(visible_controls(answer), style="bold")
        text.append("\n")
    text.rstrip()
    return Static(text)


register(QuestionsDisplay, summary=_questions_summary, body=_questions_body)
