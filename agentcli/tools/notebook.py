"""Jupyter notebooks for Read and NotebookEdit: parse one with nbformat, show its cells.

Read of an `.ipynb` shows each cell with its id, its type and its source, then its
outputs: stream and result text, errors (name, message, traceback without the
terminal colours), and PNG/JPEG pictures as image blocks. Outputs are bounded,
each and together, since a notebook often holds megabytes of them; a notebook
larger than the result can hold is cut at a cell and the result says how to read
the rest.

A cell without an id (nbformat before 4.5) is named `cell-N` (N counts from 0),
as Claude Code names it; NotebookEdit takes that name too. The notebook's own
text is untrusted: it is shown, never followed, and a file that is not a
notebook gets one sentence. nbformat is imported here, when a notebook is first
read, never at start-up.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from agentcli.core.images import ImageProblem, base64_chars, fit_image
from agentcli.core.messages import ImageBlock, ResultPart, TextBlock
from agentcli.tools.base import RESULT_BUDGET_CHARS, ToolError, ToolResult, Workspace
from agentcli.tools.display import NotebookDisplay

# Past this size a notebook is not parsed: its JSON in memory would be many times this.
MAX_NOTEBOOK_BYTES = 32 * 1024 * 1024
MAX_RESULT_CHARS = RESULT_BUDGET_CHARS - 2_000
MAX_OUTPUT_CHARS = 4_000  # of one output's text
MAX_OUTPUTS_CHARS = 16_000  # of all outputs' text together
MAX_IMAGES = 8
MAX_IMAGES_BASE64 = 12_000_000  # all pictures of one read, as sent
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")
_MAGIC = {"image/png": b"\x89PNG\r\n\x1a\n", "image/jpeg": b"\xff\xd8\xff"}
_INDEX_ID = re.compile(r"cell-(\d{1,9})")


def nbformat_library() -> Any:
    """nbformat, imported now (untyped: its functions carry no annotations)."""
    import nbformat

    return nbformat


def parse_notebook(text: str, display: str) -> Any:
    """The notebook as nbformat 4 (an older one converted); ToolError when it is not a
    notebook at all. Not checked against the schema (`schema_problem`)."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested deeper than Python goes
        raise ToolError(f"{display} is not a Jupyter notebook: its content is not valid JSON.")
    if not isinstance(data, dict) or not isinstance(data.get("nbformat"), int):
        raise ToolError(f"{display} is not a Jupyter notebook: it has no nbformat version.")
    if data["nbformat"] >= 4 and not isinstance(data.get("cells"), list):
        raise ToolError(f"{display} is not a Jupyter notebook: it has no list of cells.")
    nbformat = nbformat_library()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            notebook = nbformat.convert(nbformat.from_dict(data), 4)
    except Exception as exc:  # a version nbformat does not know, an odd shape inside
        raise ToolError(
            f"{display} is not a Jupyter notebook nbformat can read: {_first_line(exc)}."
        ) from exc
    if not isinstance(notebook.get("cells"), list):
        raise ToolError(f"{display} is not a Jupyter notebook: it has no list of cells.")
    if data["nbformat"] < 4:
        _name_converted_cells(notebook["cells"])
    return notebook


def _name_converted_cells(cells: list[Any]) -> None:
    """Give the cells of a notebook converted from nbformat 3 the ids `cell-N`.

    The conversion makes random ids up, a new set on every read: the id Read
    showed would never be found by the NotebookEdit after it. `cell-N` is what a
    cell without an id is called anyway, and a valid id for nbformat 4.5.
    """
    taken: set[str] = set()
    for index, cell in enumerate(cells):
        if isinstance(cell, dict) and "id" in cell:
            name = f"cell-{index}"
            while name in taken:
                name += "-"
            cell["id"] = name
            taken.add(name)


def schema_problem(notebook: Any) -> str | None:
    """What nbformat's schema finds wrong with `notebook`; None when it is valid."""
    nbformat = nbformat_library()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nbformat.validate(notebook)
    except nbformat.ValidationError as exc:
        return _first_line(exc)
    return None


def cell_name(cell: Any, index: int) -> str:
    """The cell's id, or `cell-N` for a cell without one."""
    found = cell.get("id") if isinstance(cell, dict) else None
    return found if isinstance(found, str) and found else f"cell-{index}"


def find_cell(cells: list[Any], wanted: str) -> int | None:
    """The index of the cell named `wanted`: its id, else the `cell-N` form."""
    for index, cell in enumerate(cells):
        if isinstance(cell, dict) and cell.get("id") == wanted:
            return index
    match = _INDEX_ID.fullmatch(wanted)
    if match is not None and int(match.group(1)) < len(cells):
        return int(match.group(1))
    return None


def source_of(cell: Any) -> str:
    """A cell's source as one string (the format allows a list of lines)."""
    source = cell.get("source", "") if isinstance(cell, dict) else ""
    if isinstance(source, list):
        return "".join(str(part) for part in source)
    return str(source)


def read_notebook(
    handle: BinaryIO, head: bytes, size: int, path: Path, display: str, workspace: Workspace
) -> ToolResult:
    """Read's result for the notebook open on `handle` (its first bytes in `head`)."""
    if size > MAX_NOTEBOOK_BYTES:
        raise ToolError(
            f"{display} is a notebook of {size / 1024 / 1024:.1f} MB, more than the "
            f"{MAX_NOTEBOOK_BYTES >> 20} MB Read parses. Read parts of it through Bash, e.g. "
            f"`jq '.cells[:10] | map(.source)' {display}`."
        )
    if workspace.editor is not None:
        text = workspace.editor.read_text(path)
    else:
        data = head + handle.read(MAX_NOTEBOOK_BYTES + 1 - len(head))
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ToolError(f"{display} is not a Jupyter notebook: it is not UTF-8 JSON.")
    notebook = parse_notebook(text, display)
    return _render(notebook, display)


# --- showing the cells -----------------------------------------------------------------


@dataclass(slots=True)
class _Budget:
    text: int = MAX_RESULT_CHARS
    outputs: int = MAX_OUTPUTS_CHARS
    images: int = MAX_IMAGES
    image_chars: int = MAX_IMAGES_BASE64


def _render(notebook: Any, display: str) -> ToolResult:
    cells: list[Any] = notebook["cells"]
    language = _language(notebook)
    head = f"{display}: Jupyter notebook with {len(cells)} cell{'s' if len(cells) != 1 else ''}"
    head += f" ({language})." if language else "."
    parts: list[ResultPart] = []
    lines = [head]
    budget = _Budget()
    budget.text -= len(head)
    shown = 0
    images = 0
    for index, cell in enumerate(cells):
        piece, pictures = _cell(cell, index, budget)
        size = sum(len(line) + 1 for line in piece)
        if shown and size > budget.text:
            break
        budget.text -= size
        lines += piece
        for picture in pictures:
            parts.append(_text(lines))
            parts.append(picture)
            lines = []
            images += 1
        shown += 1
    if shown < len(cells):
        lines.append(
            f"\n(Showing cells 0-{shown - 1} of {len(cells)}: the result size limit was "
            f"reached. Read the rest through Bash, e.g. `jq '.cells[{shown}:] | "
            f"map({{id, cell_type, source}})' {display}`.)"
        )
    if lines:
        parts.append(_text(lines))
    return ToolResult(
        [p for p in parts if p.get("type") != "text" or p.get("text")],
        display=NotebookDisplay(path=display, cells=len(cells), images=images),
    )


def _language(notebook: Any) -> str:
    metadata = notebook.get("metadata")
    info = metadata.get("language_info") if isinstance(metadata, dict) else None
    name = info.get("name") if isinstance(info, dict) else None
    return name if isinstance(name, str) and name.isprintable() and len(name) < 40 else ""


def _cell(cell: Any, index: int, budget: _Budget) -> tuple[list[str], list[ImageBlock]]:
    """The lines that show one cell and its outputs, and the pictures among them."""
    if not isinstance(cell, dict):
        return [f"\n<cell index={index}>(not a cell: {type(cell).__name__})</cell>"], []
    kind = str(cell.get("cell_type", "?"))
    name = cell_name(cell, index)
    attributes = f'id="{name}" type="{kind}"'
    if kind == "code" and isinstance(cell.get("execution_count"), int):
        attributes += f' execution_count="{cell["execution_count"]}"'
    source = source_of(cell)
    if len(source) > budget.text:
        source = source[: max(budget.text, 0)] + f"\n… [cell cut: {len(source)} characters]"
    lines = ["", f"<cell {attributes}>", source, "</cell>"]
    pictures: list[ImageBlock] = []
    outputs = cell.get("outputs") if kind == "code" else None
    for output in outputs if isinstance(outputs, list) else []:
        shown, picture = _output(output, budget)
        lines += shown
        if picture is not None:
            pictures.append(picture)
    return lines, pictures


def _output(output: Any, budget: _Budget) -> tuple[list[str], ImageBlock | None]:
    if not isinstance(output, dict):
        return [], None
    kind = str(output.get("output_type", ""))
    picture: ImageBlock | None = None
    note = ""
    if kind == "stream":
        label = f'<output type="stream" name="{_plain(output.get("name", "stdout"))}">'
        text = _joined(output.get("text", ""))
    elif kind == "error":
        label = '<output type="error">'
        traceback = output.get("traceback")
        lines = [_joined(line) for line in traceback] if isinstance(traceback, list) else []
        summary = f"{_joined(output.get('ename', ''))}: {_joined(output.get('evalue', ''))}"
        text = "\n".join([summary, *lines])
    elif kind in ("execute_result", "display_data"):
        label = f'<output type="{kind}">'
        data = output.get("data") if isinstance(output.get("data"), dict) else {}
        assert isinstance(data, dict)
        text = _joined(data.get("text/plain", ""))
        picture, note = _picture(data, budget)
        if not text and picture is None and not note:
            kinds = ", ".join(sorted(str(k) for k in data)[:5]) or "nothing"
            text = f"(output of type {kinds}, not shown)"
    else:
        return [], None
    text = _ANSI.sub("", text).rstrip("\n")
    if len(text) > MAX_OUTPUT_CHARS:
        text = text[:MAX_OUTPUT_CHARS] + f"\n… [output cut: {len(text)} characters]"
    if len(text) > budget.outputs:
        text = (
            text[: max(budget.outputs, 0)]
            + "\n… [output cut: the outputs' share of the result is used up]"
        )
    budget.outputs -= len(text)
    shown = [label, text] if text else [label]
    if note:
        shown.append(note)
    if picture is not None:
        shown.append("(a picture follows)")
    return [*shown, "</output>"], picture


def _picture(data: dict[str, Any], budget: _Budget) -> tuple[ImageBlock | None, str]:
    """The output's PNG or JPEG as an image block, or a note saying why not."""
    for media_type in ("image/png", "image/jpeg"):
        encoded = data.get(media_type)
        if encoded is None:
            continue
        if budget.images <= 0:
            return (
                None,
                f"({media_type} picture not shown: this read's {MAX_IMAGES} pictures are used)",
            )
        raw = "".join(_joined(encoded).split())
        try:
            decoded = base64.b64decode(raw, validate=True)
        except (binascii.Error, ValueError):
            return None, f"({media_type} picture not shown: its data is not valid base64)"
        if not decoded.startswith(_MAGIC[media_type]):
            return None, f"({media_type} picture not shown: its data is not a {media_type} file)"
        try:
            fitted = fit_image(decoded)  # scaled to the API's limits, refused if undecodable
        except ImageProblem as problem:
            return None, f"({media_type} picture not shown: {problem})"
        block = fitted.block()
        size = base64_chars(len(fitted.data))
        if size > budget.image_chars:
            return None, f"({media_type} picture not shown: this read's pictures are large enough)"
        budget.images -= 1
        budget.image_chars -= size
        return block, ""
    return None, ""


def _joined(value: Any) -> str:
    if isinstance(value, list):
        return "".join(str(part) for part in value)
    return value if isinstance(value, str) else json.dumps(value)[:200]


def _plain(value: Any) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "", str(value))[:20]


def _text(lines: list[str]) -> TextBlock:
    return {"type": "text", "text": "\n".join(lines).strip("\n")}


def _first_line(exc: BaseException) -> str:
    message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    return str(message).splitlines()[0][:300]
