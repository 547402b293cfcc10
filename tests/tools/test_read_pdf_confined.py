"""Read's PDF child runs confined where bubblewrap works (sandbox/confine.py): a file that
took PDFium over would find no network and none of the person's files.

The worker is replaced by a stand-in for a PDFium taken over by a crafted file: it tries
what such code would (reach a server on this machine, read a secret in the home folder
and in /tmp, read agentcli's environment through /proc) and reports what it got where
the parent shows a worker's words (the "missing library" sentence's detail). The real
worker runs under the same confinement in test_read_pdf.py.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading

import pytest

import agentcli.tools.pdf as pdf_module
from agentcli.tools.base import ToolError
from agentcli.tools.pdf import read_pdf

TAKEN_OVER = r"""
import json, os, socket, sys
json.loads(sys.stdin.readline())
found = {}
try:
    socket.create_connection(("127.0.0.1", int(os.environ["PORT_FOR_TEST"])), timeout=5).close()
    found["network"] = "reached"
except OSError as exc:
    found["network"] = type(exc).__name__
for name, path in (("home", os.environ["HOME_SECRET"]), ("tmp", os.environ["TMP_SECRET"])):
    try:
        found[name] = open(path).read()
    except OSError as exc:
        found[name] = type(exc).__name__
try:
    found["environ"] = "API_KEY_FOR_TEST" if b"sk-secret" in open(f"/proc/{os.environ['PARENT_PID']}/environ", "rb").read() else "other"
except OSError as exc:
    found["environ"] = type(exc).__name__
import pypdfium2  # what the worker needs still loads
print(json.dumps({"kind": "error", "code": "missing", "detail": json.dumps(found)}), flush=True)
"""


@pytest.fixture
def listening():
    server = socket.create_server(("127.0.0.1", 0))
    accepted: list[bool] = []

    def accept() -> None:
        try:
            server.accept()[0].close()
            accepted.append(True)
        except OSError:
            pass

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1], accepted
    server.close()


def test_a_pdf_child_taken_over_finds_no_network_no_files_no_environment(
    needs_bwrap, workspace, tmp_path, monkeypatch, listening
):
    port, accepted = listening
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY")
    (tmp_path / "token").write_text("TMP TOKEN")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-secret")
    monkeypatch.setenv("PORT_FOR_TEST", str(port))
    monkeypatch.setenv("HOME_SECRET", str(home / ".ssh" / "id_ed25519"))
    monkeypatch.setenv("TMP_SECRET", str(tmp_path / "token"))
    monkeypatch.setenv("PARENT_PID", str(os.getpid()))
    monkeypatch.setattr(pdf_module, "WORKER_COMMAND", (sys.executable, "-c", TAKEN_OVER))
    path = workspace.root / "crafted.pdf"
    path.write_bytes(b"%PDF-1.7\n")

    with open(path, "rb") as handle, pytest.raises(ToolError) as refused:
        read_pdf(handle.fileno(), "crafted.pdf", None, lambda: False)

    said = str(refused.value)
    found = json.loads(said[said.index("({") + 1 : said.index("})") + 1])
    assert found["network"] != "reached" and accepted == []
    assert found["home"] != "PRIVATE KEY" and found["tmp"] != "TMP TOKEN"
    assert found["environ"] != "API_KEY_FOR_TEST"
