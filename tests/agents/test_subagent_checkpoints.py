"""A subagent's file changes are checkpointed under the person's prompt that started it.

A rewind to that prompt must undo everything the turn did, the Task
subagents' edits included: through the real binary (`agentcli -p`, then
`--resume ID --rewind-to`), and for subagents that run at once.
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

from agentcli.session.rewind import rewind_files
from agentcli.wiring.composition import finish_session
from tests.agents.test_task_over_http import (
    GENERAL,
    GUARD_S,
    PARENT,
    assert_all_requests_valid,
    close_providers,  # noqa: F401  (autouse: the providers engine_for opened are closed)
    engine_for,
    home,  # noqa: F401  (autouse: AGENTCLI_HOME in the test's folder)
    results_in,
    run,
    system_of,
    task,
)
from tests.fakeapi import hang, reply, text, tool_use
from tests.integration.test_headless_cli import agentcli


def subagent_edits_a_and_writes_n(body: dict[str, Any]) -> Any:
    """The parent starts one general-purpose subagent, which reads and edits `a.py` and
    writes `new/deep/n.py` (two folders that do not exist)."""
    results = results_in(body)
    if GENERAL in system_of(body):
        if not results:
            return reply(tool_use("Read", {"file_path": "a.py"}, id="toolu_read"))
        if len(results) == 1:
            edit = {"file_path": "a.py", "old_string": "A = 1", "new_string": "A = 2"}
            write = {"file_path": "new/deep/n.py", "content": "N = 1\n"}
            return reply(tool_use("Edit", edit, id="toolu_edit"), tool_use("Write", write))
        return reply(text("Changed a.py and wrote new/deep/n.py."))
    if not results:
        return reply(tool_use("Task", task("general-purpose", "Change A, add N."), id="toolu_t"))
    return reply(text("The subagent did it."))


def test_rewind_to_the_prompt_undoes_what_its_subagent_changed(fake_api, tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.py").write_text("A = 1\n")
    fake_api.default = subagent_edits_a_and_writes_n
    prompt = ["-p", "change A through a subagent", "--output-format", "json"]

    done = agentcli([*prompt, "--permission-mode", "acceptEdits"], root, fake_api)

    assert done.returncode == 0, done.stderr
    assert (root / "a.py").read_text() == "A = 2\n" and (root / "new/deep/n.py").is_file()
    assert_all_requests_valid(fake_api)
    session = json.loads(done.stdout)["session_id"]
    listed = agentcli(["--resume", session, "--rewind-to", "list"], root)
    assert listed.returncode == 0, listed.stderr
    (line,) = listed.stdout.splitlines()  # the subagent's task is not a prompt of its own
    assert line.endswith("(2 files changed since)"), line
    as_json = agentcli(
        ["--resume", session, "--rewind-to", "list", "--output-format", "json"], root
    )
    (listed_prompt,) = json.loads(as_json.stdout)["prompts"]
    assert sorted(listed_prompt["filesChanged"]) == [
        str(root / "a.py"),
        str(root / "new/deep/n.py"),
    ]

    rewound = agentcli(["--resume", session, "--rewind-to", listed_prompt["id"]], root)

    assert rewound.returncode == 0, rewound.stderr
    assert (root / "a.py").read_text() == "A = 1\n"
    assert not (root / "new").exists()  # n.py, and the folders the agent made for it
    assert sorted(rewound.stdout.splitlines()) == [
        "deleted new/deep/n.py (the agent created it)",
        "removed the empty folder new (the agent created it)",
        "removed the empty folder new/deep (the agent created it)",
        "restored a.py",
    ]


class TwoWriters:
    """Two general-purpose subagents at once, each reading and writing the file its task
    names. `in_order`: the second subagent's first answer waits until the first
    subagent has written (so both change one file in a known order); otherwise the
    first subagent's first answer waits until the second's request arrives (so both are
    in flight at once)."""

    def __init__(self, files: tuple[str, str], *, in_order: bool) -> None:
        self.files = files
        self.in_order = in_order
        self.lock = threading.Lock()
        self.held: Any = None
        self.first_wrote = False

    def __call__(self, body: dict[str, Any]) -> Any:
        results = results_in(body)
        if PARENT in system_of(body):
            if results:
                return reply(text("Both wrote."))
            first, second = self.files
            return reply(
                tool_use("Task", task("general-purpose", f"First: {first}"), id="toolu_1"),
                tool_use("Task", task("general-purpose", f"Second: {second}"), id="toolu_2"),
            )
        first = "First:" in json.dumps(body["messages"][0])
        name = self.files[0 if first else 1]
        with self.lock:
            if self.in_order:
                return self._in_order(self._step(name, len(results)), first, len(results))
            return self._together(self._step(name, len(results)), len(results))

    def _step(self, name: str, done: int) -> Any:
        if done == 0:
            return reply(tool_use("Read", {"file_path": name}))
        if done == 1:
            return reply(tool_use("Write", {"file_path": name, "content": f"by {name}\n"}))
        return reply(text(f"Wrote {name}."))

    def _in_order(self, answer: Any, first: bool, done: int) -> Any:
        if first and done == 2:  # the first has written: the second may start
            self.first_wrote = True
            if self.held is not None:
                self.held.release()
        elif not first and done == 0 and not self.first_wrote:
            self.held = hang(answer, after_events=2)
            return self.held
        return answer

    def _together(self, answer: Any, done: int) -> Any:
        if done:
            return answer
        if self.held is None:
            self.held = hang(answer, after_events=2)
            return self.held
        self.held.release()
        return answer


async def test_two_subagents_at_once_both_have_their_files_recorded(fake_api, tmp_path):
    (tmp_path / "a.py").write_text("A = 1\n")
    (tmp_path / "b.py").write_text("B = 1\n")
    fake_api.default = TwoWriters(("a.py", "b.py"), in_order=False)
    engine = engine_for(fake_api, tmp_path, session=True)

    await asyncio.wait_for(run(engine, "write a and b"), GUARD_S)

    assert_all_requests_valid(fake_api)
    assert (tmp_path / "a.py").read_text() == "by a.py\n"
    assert (tmp_path / "b.py").read_text() == "by b.py\n"
    (prompt,) = engine.prompt_ids()
    assert [mark.id for mark in engine.checkpoints.prompts()] == [prompt]
    assert sorted(engine.checkpoints.changed_since(prompt)) == [
        tmp_path / "a.py",
        tmp_path / "b.py",
    ]
    report = rewind_files(engine.checkpoints, prompt)
    finish_session(engine)
    assert sorted(report.restored) == [tmp_path / "a.py", tmp_path / "b.py"]
    assert (tmp_path / "a.py").read_text() == "A = 1\n"
    assert (tmp_path / "b.py").read_text() == "B = 1\n"


async def test_two_subagents_changing_one_file_keep_its_content_before_the_first(
    fake_api, tmp_path
):
    (tmp_path / "a.py").write_text("A = 1\n")
    fake_api.default = TwoWriters(("a.py", "a.py"), in_order=True)
    engine = engine_for(fake_api, tmp_path, session=True)

    await asyncio.wait_for(run(engine, "write a twice"), GUARD_S)

    assert_all_requests_valid(fake_api)
    writes = [r for r in fake_api.requests if GENERAL in system_of(r.body)]
    assert len(writes) == 6  # each subagent: read, write, answer; the second after the first
    (prompt,) = engine.prompt_ids()
    log = [json.loads(line) for line in engine.checkpoints.path.read_text().splitlines()]
    befores = [r for r in log if r["type"] == "before"]
    assert [(r["prompt"], r["path"]) for r in befores] == [(prompt, str(tmp_path / "a.py"))]
    report = rewind_files(engine.checkpoints, prompt)
    finish_session(engine)
    assert report.restored == [tmp_path / "a.py"]
    assert (tmp_path / "a.py").read_text() == "A = 1\n"
