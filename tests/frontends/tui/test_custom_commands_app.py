"""Custom commands in the app: offered in completion, expanded into the prompt the
model receives (arguments, `!` lines through the permission gate), their allowed
tools granted for their turn only. What the model receives is read from the
requests the scripted provider got."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agentcli.config.rules import Rule
from agentcli.config.trust import remember
from agentcli.permissions.types import PermissionMode
from agentcli.tools.bash import BashTool
from tests.engine.scripted import Response, ScriptedProvider, text, tool_use
from tests.frontends.tui.helpers import idle, make_app, question_ready, send, type_text, wait_for
from tests.frontends.tui.mcp_support import notes

FIX_ISSUE = """\
---
description: Fix a GitHub issue
argument-hint: <number> [priority]
model: claude-command-model
---
Fix issue #$0 (priority: $1).
Current changes:
!`git status --short`
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "changed.py").write_text("x = 1\n")
    commands = root / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "fix-issue.md").write_text(FIX_ISSUE)
    return root


def app_for(provider: ScriptedProvider, root: Path):
    return make_app(provider, root, [BashTool()], mode=PermissionMode.DEFAULT)


def prompt_text(provider: ScriptedProvider) -> str:
    content = provider.requests[0].messages[0]["content"]
    if isinstance(content, str):
        return content
    return "\n".join(block["text"] for block in content if block["type"] == "text")


def git_status(root: Path) -> str:
    done = subprocess.run(["git", "status", "--short"], cwd=root, capture_output=True, text=True)
    return done.stdout.strip()


async def test_the_command_is_offered_with_its_description_and_hint(repo):
    app = app_for(ScriptedProvider(), repo)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: "fix-issue" in app.registry, "the command files")
        await type_text(pilot, "/fix")
        await wait_for(pilot, lambda: app.popup.showing, "the popup")

        [item] = app.popup.items
        assert item.label == "/fix-issue <number> [priority]"
        assert item.description == "Fix a GitHub issue (project)"
    assert "fix-issue" not in app.registry  # the app's commands leave with it


async def test_arguments_and_a_shell_line_expand_into_the_prompt_in_a_trusted_folder(repo):
    remember(repo, True)
    provider = ScriptedProvider(Response([text("Fixed.")]))
    app = app_for(provider, repo)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: "fix-issue" in app.registry, "the command files")
        await send(pilot, '/fix-issue 123 "very high"')
        await wait_for(pilot, lambda: provider.requests, "the request")
        await idle(pilot, app)

        prompt = prompt_text(provider)
        assert prompt.startswith("Fix issue #123 (priority: very high).\nCurrent changes:\n")
        assert "?? changed.py" in git_status(repo) and git_status(repo) in prompt
        assert app.permission_prompt is None  # read-only, in a trusted folder: no question
        assert provider.requests[0].model == "claude-command-model"
        assert app.engine.config.model == "claude-test"  # for that turn only


async def test_an_untrusted_folders_command_asks_before_its_shell_line_runs(repo):
    provider = ScriptedProvider(Response([text("Fixed.")]))
    app = app_for(provider, repo)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: "fix-issue" in app.registry, "the command files")
        await send(pilot, "/fix-issue 7")
        question = await wait_for(pilot, lambda: question_ready(app), "the question")
        assert question.question.request.input == {"command": "git status --short"}
        assert "not trusted" in question.question.request.reason
        assert provider.requests == []
        await pilot.press("1")
        await wait_for(pilot, lambda: provider.requests, "the request")
        await idle(pilot, app)

        assert git_status(repo) in prompt_text(provider)


async def test_refusing_the_shell_line_sends_nothing_and_says_why(repo):
    provider = ScriptedProvider()
    app = app_for(provider, repo)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: "fix-issue" in app.registry, "the command files")
        await send(pilot, "/fix-issue 7")
        await wait_for(pilot, lambda: question_ready(app), "the question")
        await pilot.press("3")
        await pilot.press("enter")  # no feedback
        await idle(pilot, app)

        assert provider.requests == []
        assert any("/fix-issue: !`git status --short` was not allowed" in n for n in notes(app))


async def test_help_lists_the_command_with_its_description(repo):
    app = app_for(ScriptedProvider(), repo)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: "fix-issue" in app.registry, "the command files")
        await send(pilot, "/help")
        shown = await wait_for(pilot, lambda: app.conversation.query(".-command"), "the help")

        assert "/fix-issue <number> [priority]" in shown.last().source
        assert "Fix a GitHub issue (project)" in shown.last().source


async def test_esc_while_a_shell_line_runs_stops_it_and_sends_nothing(repo):
    remember(repo, True)
    (repo / ".claude/commands/slow.md").write_text(
        "---\nallowed-tools: Bash(touch:*), Bash(sleep:*)\n---\n"
        "Output: !`touch started && sleep 30 && touch finished`\n"
    )
    provider = ScriptedProvider()
    app = app_for(provider, repo)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: "slow" in app.registry, "the command files")
        await send(pilot, "/slow")
        await wait_for(pilot, lambda: (repo / "started").exists(), "the command to start")
        await pilot.press("escape")
        await idle(pilot, app)

        assert provider.requests == []
        assert not (repo / "finished").exists()
        assert app.engine.gate.policy.allow == []  # the command's grants went with its turn


async def test_allowed_tools_are_granted_for_the_commands_turn_only(repo):
    remember(repo, True)
    (repo / ".claude/commands/touch.md").write_text(
        "---\nallowed-tools: Bash(touch:*)\n---\nCreate the file $0.\n"
    )
    provider = ScriptedProvider(
        Response([tool_use("Bash", {"command": "touch made.txt"})]), Response([text("Made.")])
    )
    app = app_for(provider, repo)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: "touch" in app.registry, "the command files")
        await send(pilot, "/touch made.txt")
        await wait_for(pilot, lambda: len(provider.requests) == 2, "the second request")
        await idle(pilot, app)

        assert (repo / "made.txt").exists()
        assert app.permission_prompt is None
        assert Rule("Bash", "touch:*") not in app.engine.gate.policy.allow


async def test_an_untrusted_folders_allowed_tools_do_not_apply_and_it_says_so(repo):
    (repo / ".claude/commands/touch.md").write_text(
        "---\nallowed-tools: Bash(touch:*)\n---\nCreate the file $0.\n"
    )
    provider = ScriptedProvider(
        Response([tool_use("Bash", {"command": "touch made.txt"})]), Response([text("No.")])
    )
    app = app_for(provider, repo)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: "touch" in app.registry, "the command files")
        await send(pilot, "/touch made.txt")
        await wait_for(pilot, lambda: question_ready(app), "the question about Bash")
        await pilot.press("3")
        await pilot.press("enter")
        await idle(pilot, app)

        assert not (repo / "made.txt").exists()
        assert any("its allowed-tools do not apply" in n for n in notes(app))


async def test_clear_reads_the_command_files_again(repo):
    commands = repo / ".claude" / "commands"
    app = app_for(ScriptedProvider(), repo)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: "fix-issue" in app.registry, "the command files")
        (commands / "deploy.md").write_text("---\ndescription: Deploy it\n---\nDeploy.\n")
        (commands / "help.md").write_text("Mine.\n")  # a built-in's name: reported
        (commands / "fix-issue.md").unlink()
        await send(pilot, "/clear")
        await wait_for(pilot, lambda: "deploy" in app.registry, "the new command file")

        assert "fix-issue" not in app.registry
        assert any("help.md: skipped, /help is a built-in command" in n for n in notes(app))
        await type_text(pilot, "/dep")
        await wait_for(pilot, lambda: app.popup.showing, "the popup")
        [item] = app.popup.items
        assert item.label == "/deploy"
        assert item.description == "Deploy it (project)"


@pytest.mark.parametrize("arguments", ["!`touch marker`", "$(touch marker)"])
async def test_arguments_are_sent_as_typed_and_never_run(repo, arguments):
    """In bypass mode, in a trusted folder: only the file's own `!` line runs."""
    remember(repo, True)
    (repo / ".claude" / "commands" / "q.md").write_text("!`echo $ARGUMENTS`\nQ: $ARGUMENTS\n")
    provider = ScriptedProvider(Response([text("ok")]))
    app = make_app(provider, repo, [BashTool()], mode=PermissionMode.BYPASS)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: "q" in app.registry, "the command files")
        await send(pilot, f"/q {arguments}")
        await wait_for(pilot, lambda: provider.requests, "the request")
        await idle(pilot, app)

        assert prompt_text(provider).endswith(f"Q: {arguments}")
    assert not (repo / "marker").exists()
