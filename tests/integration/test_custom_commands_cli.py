"""`agentcli -p "/name args"`: a custom command expanded into the prompt the model
receives, and skills listed and loaded, run as a real subprocess against the fake API."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from agentcli.config.paths import agentcli_home
from tests.fakeapi import reply, text, tool_use
from tests.integration.test_headless_cli import agentcli

FIX_ISSUE = """\
---
description: Fix a GitHub issue
argument-hint: <number> [priority]
---
Fix issue #$0 (priority: $1).
Current changes:
!`git status --short`
"""


def write(path: Path, content: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "changed.py").write_text("x = 1\n")
    return root


def first_prompt(server) -> str:
    content = server.requests[0].body["messages"][0]["content"]
    return "\n".join(block["text"] for block in content if block["type"] == "text")


def test_a_command_with_arguments_and_a_shell_line_expands_into_the_prompt(fake_api, repo):
    write(repo / ".claude/commands/fix-issue.md", FIX_ISSUE)
    status = subprocess.run(
        ["git", "status", "--short"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout
    assert "?? changed.py" in status
    fake_api.enqueue(reply(text("Fixed.")))

    done = agentcli(["-p", '/fix-issue 123 "very high"'], repo, fake_api)

    assert done.returncode == 0, done.stderr
    assert done.stdout == "Fixed.\n"
    prompt = first_prompt(fake_api)
    assert prompt.startswith("Fix issue #123 (priority: very high).\nCurrent changes:\n")
    assert status.strip() in prompt
    assert "!`" not in prompt


def test_a_namespaced_command_with_a_file_include(fake_api, repo):
    write(repo / ".agentcli/commands/frontend/review.md", "Review @$0 for $1 problems.")
    fake_api.enqueue(reply(text("Reviewed.")))

    done = agentcli(["-p", "/frontend:review changed.py naming"], repo, fake_api)

    assert done.returncode == 0, done.stderr
    content = fake_api.requests[0].body["messages"][0]["content"]
    assert content[0]["text"].startswith("Contents of changed.py:")
    assert "x = 1" in content[0]["text"]
    assert content[-1]["text"] == "Review @changed.py for naming problems."


def test_a_shell_line_the_gate_would_ask_about_is_refused_and_nothing_is_sent(fake_api, repo):
    write(repo / ".claude/commands/touchy.md", "Done:\n!`touch made-by-command`\n")

    done = agentcli(["-p", "/touchy"], repo, fake_api)

    assert done.returncode == 1
    assert "/touchy: !`touch made-by-command` was not allowed" in done.stderr
    assert "non-interactive run" in done.stderr
    assert fake_api.requests == []
    assert not (repo / "made-by-command").exists()


def test_allowed_tools_in_the_front_matter_let_that_command_run(fake_api, repo):
    write(
        repo / ".claude/commands/touchy.md",
        "---\nallowed-tools: Bash(touch:*)\n---\nDone:\n!`touch made-by-command`\n",
    )
    fake_api.enqueue(reply(text("ok")))

    done = agentcli(["-p", "/touchy"], repo, fake_api)

    assert done.returncode == 0, done.stderr
    assert (repo / "made-by-command").exists()


def test_a_broken_command_file_is_an_error_that_says_why_and_nothing_is_sent(fake_api, repo):
    write(repo / ".claude/commands/broken.md", "---\nmodel: [oops\n---\nbody\n")

    done = agentcli(["-p", "/broken now"], repo, fake_api)

    assert done.returncode == 1
    assert "error: /broken could not be loaded: " in done.stderr
    assert "broken.md: broken front matter" in done.stderr
    assert fake_api.requests == []


SKILL = """\
---
name: release-notes
description: Write release notes from the git log. Use when asked for release notes.
---
Read template.md in this skill's folder, then fill it in.
"""


def test_a_skill_is_listed_in_the_context_and_loaded_by_the_skill_tool(fake_api, repo):
    folder = agentcli_home() / "skills" / "release-notes"
    write(folder / "SKILL.md", SKILL)
    write(folder / "template.md", "## Changes\n- ...\n")
    write(repo / ".claude/skills/nameless/SKILL.md", "---\ndescription: no name\n---\nx\n")
    fake_api.enqueue(reply(tool_use("Skill", {"skill": "release-notes"})))
    fake_api.enqueue(reply(tool_use("Read", {"file_path": str(folder / "template.md")})))
    fake_api.enqueue(reply(text("Notes written.")))

    done = agentcli(["-p", "Write the release notes", "--output-format", "json"], repo, fake_api)

    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == "Notes written."
    assert "nameless/SKILL.md: the front matter has no `name`" in done.stderr
    [skill_tool] = [t for t in fake_api.requests[0].body["tools"] if t["name"] == "Skill"]
    assert "- release-notes: Write release notes from the git log." in skill_tool["description"]
    assert skill_tool["input_schema"]["required"] == ["skill"]
    loaded = fake_api.requests[1].body["messages"][-1]["content"][0]
    assert loaded["type"] == "tool_result" and not loaded.get("is_error")
    assert f"Base directory for this skill: {folder.resolve()}" in str(loaded["content"])
    assert "Read template.md in this skill's folder" in str(loaded["content"])
    read = fake_api.requests[2].body["messages"][-1]["content"][0]
    assert not read.get("is_error") and "## Changes" in str(read["content"])
    # The listing is part of the cached prefix: the same on every request.
    assert {json.dumps(r.body["tools"]) for r in fake_api.requests} == {
        json.dumps(fake_api.requests[0].body["tools"])
    }


@pytest.mark.parametrize(
    ("body", "arguments"),
    [
        ("Q: $ARGUMENTS\n", "!`touch marker`"),
        ("Q: $ARGUMENTS\n", "first\n!`touch marker`"),
        ("Q: $0\n", "'!`touch marker`'"),
        ("Echo: !`echo $ARGUMENTS`\nQ: $ARGUMENTS\n", "$(touch marker)"),
        ("Echo: !`echo $ARGUMENTS`\nQ: $ARGUMENTS\n", "x; touch marker"),
    ],
)
def test_arguments_never_run_even_in_bypass_mode(fake_api, repo, body, arguments):
    """`-p "/q ..."`: the arguments reach the model as typed; only the file's own
    `!` line runs, as the file wrote it."""
    write(repo / ".claude/commands/q.md", body)
    fake_api.enqueue(reply(text("ok")))

    done = agentcli(
        ["-p", f"/q {arguments}", "--permission-mode", "bypassPermissions"], repo, fake_api
    )

    assert done.returncode == 0, done.stderr
    assert not (repo / "marker").exists()
    prompt = first_prompt(fake_api)
    word = arguments.strip("'") if "$0" in body else arguments
    assert prompt.endswith(f"Q: {word}")
