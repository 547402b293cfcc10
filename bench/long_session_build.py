"""Long sessions for the benchmarks, made by the real agent against the fake API.

A session is built by the engine in-process (the same `build_engine` and provider
`agentcli -p` uses, its transcript written by the real writer) answering prompt
after prompt from the fake Messages API: each prompt is answered by four tool
rounds (Read, Edit, Read, Glob) and a markdown answer, ten messages in all, so
the transcript holds what a working session holds (diffs, file contents,
answers). Nothing is written by hand.

Built sessions are kept under the temp folder, keyed by their size and the
transcript format, so a second `make bench` reuses them; the project folder is
fixed (a transcript belongs to its folder's path).
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

MESSAGES_PER_PROMPT = 10  # the prompt, 4 x (tool call + result), the answer
CACHE_ROOT = Path(tempfile.gettempdir()) / "agentcli-long-session-bench"
# Raised when what a build makes changes (2: compaction keeps a share of the threshold,
# so the 10,000-message build no longer compacts on nearly every request).
BUILD_VERSION = 2


def marker(prompt: int) -> str:
    """A word that only the answer to prompt `prompt` contains (searched for on screen)."""
    return f"LSB{prompt:05d}Z"


def prompt_text(prompt: int) -> str:
    return f"Please look at part {prompt} of the loader and fix what is wrong (ref P{prompt:05d}Q)"


def answer_text(prompt: int) -> str:
    return (
        f"Done with part {prompt}: {marker(prompt)}\n\n"
        "Here is what I found in `config.py`:\n\n"
        "- the config is read **once** at start\n"
        "- the cache is never cleared, so a changed file is not seen\n\n"
        "```python\ndef load(path):\n    return json.loads(path.read_text())\n```\n\n"
        "I changed the value and left the loader as it is; "
        "the next part will make it re-read the file when it changes.\n"
    )


def _answerer(project: Path) -> Any:
    """The fake API's answer to each request, read from the conversation so far."""
    from tests.fakeapi import reply, text, tool_use

    config = str(project / "config.py")
    state = {"value": 0}

    def answer(body: dict[str, Any]) -> Any:
        rounds, prompt = 0, None
        for message in reversed(body.get("messages") or []):
            content = message.get("content")
            blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
            if message["role"] == "assistant":
                rounds += 1
            elif not any(b.get("type") == "tool_result" for b in blocks):
                found = re.search(r"ref P(\d+)Q", " ".join(str(b.get("text")) for b in blocks))
                prompt = int(found.group(1)) if found else None
                break
        if prompt is None:  # a side request (a compaction's summary, a title)
            return reply(text("The person asked for fixes to the loader, part by part."))
        if rounds == 0:
            return reply(text("Let me read the config."), tool_use("Read", {"file_path": config}))
        if rounds == 1:
            old, state["value"] = state["value"], state["value"] + 1
            edit = {
                "file_path": config,
                "old_string": f"value = {old}\n",
                "new_string": f"value = {old + 1}\n",
            }
            return reply(text("Changing the value."), tool_use("Edit", edit))
        if rounds == 2:
            return reply(
                text("And the notes."), tool_use("Read", {"file_path": str(project / "notes.md")})
            )
        if rounds == 3:
            return reply(text("Which files are there?"), tool_use("Glob", {"pattern": "*"}))
        return reply(text(answer_text(prompt)))

    return answer


async def _converse(project: Path, prompts: int) -> None:
    from agentcli.engine.events import EndReason, ToolPermissionRequested, TurnEnded
    from agentcli.wiring.bootstrap import Options, build_engine, make_provider
    from agentcli.wiring.composition import finish_session

    options = Options(cwd=project, trusted=True, permission_mode="acceptEdits")
    engine = build_engine(options, provider=None)
    engine.connect(make_provider(None, engine.settings, engine.config.model))
    try:
        for n in range(prompts):
            async for event in engine.submit_message(prompt_text(n)):
                if isinstance(event, ToolPermissionRequested):
                    raise RuntimeError(f"the builder was asked for permission: {event}")
                if isinstance(event, TurnEnded) and event.reason != EndReason.COMPLETED:
                    raise RuntimeError(f"prompt {n} ended badly: {event}")
    finally:
        finish_session(engine)


def _build_here(project: Path, prompts: int) -> None:
    """In the builder's process (its environment names the home and the server)."""
    from tests.fakeapi import FakeAnthropic

    (project / "config.py").write_text("import json\n\nvalue = 0\n" + "# padding\n" * 30)
    notes = "".join(f"- note {i}: the loader reads `config.py` once\n" for i in range(40))
    (project / "notes.md").write_text("# Notes\n\n" + notes)
    with FakeAnthropic() as server:
        server.default = _answerer(project)
        os.environ["ANTHROPIC_BASE_URL"] = server.base_url
        asyncio.run(_converse(project, prompts))


def session_for(messages: int, env: dict[str, str]) -> tuple[Path, Path]:
    """(the project folder, the agentcli home holding its session) of a session of about
    `messages` messages, built once and kept."""
    from agentcli.session import records

    prompts = max(1, messages // MESSAGES_PER_PROMPT)
    place = CACHE_ROOT / f"v{records.FORMAT_VERSION}-b{BUILD_VERSION}-{prompts}"
    project, home, done = place / "project", place / "home", place / "built"
    if done.exists():
        return project, home
    shutil.rmtree(place, ignore_errors=True)
    project.mkdir(parents=True)
    home.mkdir()
    # Compacted at a quarter of the window (a long session is compacted many times
    # anyway): the requests stay small, so building 10,000 messages takes minutes.
    child_env = {**env, "AGENTCLI_HOME": str(home), "AGENTCLI_AUTOCOMPACT_PCT": "25"}
    repo = Path(__file__).resolve().parent.parent
    argv = [sys.executable, "-m", "bench.long_session_build", str(project), str(prompts)]
    subprocess.run(argv, env=child_env, cwd=repo, check=True)
    done.write_text("")
    return project, home


def fresh_copy(home: Path) -> Path:
    """A copy of a built home for one run, so a run can never change the kept session."""
    copy = Path(tempfile.mkdtemp(prefix="agentcli-long-bench-home-"))
    shutil.copytree(home, copy, dirs_exist_ok=True)
    return copy


if __name__ == "__main__":
    _build_here(Path(sys.argv[1]), int(sys.argv[2]))
