"""PDFs and notebooks through the real `agentcli -p` against the fake API: what the
model gets back from Read (text and pictures, on the wire), a NotebookEdit that
lands in a valid notebook and is undone by a rewind, and a deny rule for edits
that stops a NotebookEdit."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import nbformat

from tests.fakeapi import reply, text, tool_use
from tests.integration.test_headless_cli import agentcli
from tests.tools.pdf_files import text_pdf

LINES = [f"Requirement {n}: the service answers within one second." for n in range(12)]


def tool_result_of(request) -> dict:
    """The one tool_result the request's last message carries."""
    [block] = [b for b in request.body["messages"][-1]["content"] if b["type"] == "tool_result"]
    return block


def notebook(path: Path) -> Path:
    v4 = nbformat.v4
    book = v4.new_notebook()
    cell = v4.new_code_cell("total = 1 + 1\nprint(total)", id="sum", execution_count=1)
    cell.outputs = [v4.new_output("stream", name="stdout", text="2\n")]
    book.cells = [v4.new_markdown_cell("# Sums", id="title"), cell]
    path.write_text(nbformat.writes(book))
    return path


def test_read_of_pdf_pages_sends_the_text_and_a_picture_of_a_scanned_page(fake_api, project):
    spec = project / "spec.pdf"
    spec.write_bytes(text_pdf([["Chapter 1", *LINES], ["Chapter 2", *LINES], ["Figure 3"]]))
    read = {"file_path": str(spec), "pages": "2-3"}
    fake_api.enqueue(reply(text("Reading the spec."), tool_use("Read", read)))
    fake_api.enqueue(reply(text("Page 2 is chapter 2.")))

    done = agentcli(["-p", "What does the spec say?"], project, fake_api)

    assert done.returncode == 0, done.stderr
    assert done.stdout == "Page 2 is chapter 2.\n" and done.stderr == ""
    result = tool_result_of(fake_api.requests[1])
    assert not result.get("is_error")
    words = "\n".join(p["text"] for p in result["content"] if p["type"] == "text")
    assert "spec.pdf: PDF of 3 pages; showing pages 2-3." in words
    assert "--- Page 2 ---\nChapter 2\nRequirement 0" in words and "Chapter 1" not in words
    [picture] = [p for p in result["content"] if p["type"] == "image"]
    assert picture["source"]["media_type"] == "image/png"
    assert base64.b64decode(picture["source"]["data"]).startswith(b"\x89PNG\r\n\x1a\n")
    schema = next(t for t in fake_api.requests[0].body["tools"] if t["name"] == "Read")
    assert "pages" in schema["input_schema"]["properties"]


def test_a_hostile_pdf_is_one_sentence_for_the_model_and_no_traceback(fake_api, project):
    bad = project / "bad.pdf"
    bad.write_bytes(b"%PDF-1.7\n" + b"\xff" * 5000)
    fake_api.enqueue(reply(tool_use("Read", {"file_path": str(bad)})))
    fake_api.enqueue(reply(text("It is damaged.")))

    done = agentcli(["-p", "read bad.pdf"], project, fake_api)

    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    result = tool_result_of(fake_api.requests[1])
    assert result["is_error"] is True
    assert "bad.pdf is not a PDF that can be opened" in json.dumps(result["content"])


def test_notebook_edit_lands_valid_and_a_rewind_puts_the_notebook_back(fake_api, project):
    path = notebook(project / "sums.ipynb")
    before = path.read_bytes()
    edit = {"notebook_path": str(path), "cell_id": "sum", "new_source": "print(2 + 2)"}
    fake_api.enqueue(reply(tool_use("Read", {"file_path": str(path)})))
    fake_api.enqueue(reply(tool_use("NotebookEdit", edit)))
    fake_api.enqueue(reply(text("Changed the sum.")))

    done = agentcli(
        ["-p", "change the sum", "--permission-mode", "acceptEdits", "--output-format", "json"],
        project,
        fake_api,
    )

    assert done.returncode == 0, done.stderr
    read_back = tool_result_of(fake_api.requests[1])
    shown = "".join(p["text"] for p in read_back["content"] if p["type"] == "text")
    assert '<cell id="sum" type="code" execution_count="1">\ntotal = 1 + 1' in shown
    assert tool_result_of(fake_api.requests[2])["content"] == (
        "Updated cell sum of sums.ipynb. Its outputs were cleared (they belonged to the old source)."
    )
    book = nbformat.read(str(path), as_version=nbformat.NO_CONVERT)
    nbformat.validate(book)
    assert [c.source for c in book.cells] == ["# Sums", "print(2 + 2)"]

    session = json.loads(done.stdout)["session_id"]
    listed = agentcli(["--resume", session, "--rewind-to", "list"], project)
    prompt = listed.stdout.split()[0]
    rewound = agentcli(["--resume", session, "--rewind-to", prompt], project)

    assert rewound.returncode == 0, rewound.stderr
    assert rewound.stdout == "restored sums.ipynb\n"
    assert path.read_bytes() == before


def test_a_deny_rule_for_edits_stops_notebook_edit(fake_api, project):
    (project / "vendor").mkdir()
    path = notebook(project / "vendor" / "lib.ipynb")
    before = path.read_bytes()
    edit = {"notebook_path": str(path), "cell_id": "sum", "new_source": "pwned()"}
    fake_api.enqueue(reply(tool_use("Read", {"file_path": str(path)})))
    fake_api.enqueue(reply(tool_use("NotebookEdit", edit)))
    fake_api.enqueue(reply(text("Could not.")))
    settings = project / ".agentcli" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(json.dumps({"permissions": {"deny": ["Edit(vendor/**)"]}}))

    done = agentcli(
        ["-p", "edit it", "--permission-mode", "bypassPermissions", "--output-format", "json"],
        project,
        fake_api,
    )

    assert done.returncode == 0, done.stderr
    assert path.read_bytes() == before
    refused = tool_result_of(fake_api.requests[2])
    assert refused["is_error"] is True
    assert [d["tool_name"] for d in json.loads(done.stdout)["permission_denials"]] == [
        "NotebookEdit"
    ]
