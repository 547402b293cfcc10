"""Command files: names and namespaces, front matter, arguments, bad files."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcli.commands.command_files import load_command_files
from agentcli.commands.expansion import ExpansionError, fill_arguments
from agentcli.commands.file_commands import FileCommands
from agentcli.commands.registry import Command, CommandRegistry
from agentcli.config.paths import agentcli_home


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_sub_folders_namespace_a_command_with_a_colon(tmp_path):
    write(tmp_path / ".claude/commands/frontend/component.md", "Make a component named $0")
    write(tmp_path / ".agentcli/commands/fix-issue.md", "Fix issue $0")

    found = load_command_files(tmp_path)

    assert [c.name for c in found.commands] == ["fix-issue", "frontend:component"]
    assert found.problems == []


def test_front_matter_gives_description_hint_tools_and_model(tmp_path):
    write(
        tmp_path / ".claude/commands/commit.md",
        "---\n"
        "description: Create a git commit\n"
        "argument-hint: [message] [--amend]\n"
        "allowed-tools: Bash(git add:*), Bash(git commit:*)\n"
        "model: claude-haiku-test\n"
        "---\n"
        "Commit with message: $ARGUMENTS\n",
    )

    [command] = load_command_files(tmp_path).commands

    assert command.shown_description == "Create a git commit (project)"
    assert command.argument_hint == "[message] [--amend]"  # as written, though not YAML
    assert [str(rule) for rule in command.allowed_tools] == [
        "Bash(git add:*)",
        "Bash(git commit:*)",
    ]
    assert command.model == "claude-haiku-test"
    assert command.body == "Commit with message: $ARGUMENTS"


def test_a_users_command_is_found_and_a_projects_of_the_same_name_wins(tmp_path):
    home = agentcli_home()
    write(home / "commands/review.md", "user review")
    write(home / "commands/mine.md", "---\ndescription: Mine\n---\nbody")
    write(tmp_path / ".agentcli/commands/review.md", "project review")

    found = load_command_files(tmp_path)

    by_name = {c.name: c for c in found.commands}
    assert by_name["review"].body == "project review"
    assert by_name["mine"].shown_description == "Mine (user)"
    [problem] = found.problems
    assert "review.md: skipped, /review is already defined by" in problem


def test_broken_front_matter_is_reported_and_the_others_still_load(tmp_path):
    write(tmp_path / ".claude/commands/bad.md", "---\nmodel: [unclosed\n---\nbody\n")
    write(tmp_path / ".claude/commands/open.md", "---\ndescription: no end\nbody\n")
    write(tmp_path / ".claude/commands/list.md", "---\n- a\n- b\n---\nbody\n")
    write(tmp_path / ".claude/commands/good.md", "Good one")

    found = load_command_files(tmp_path)

    assert [c.name for c in found.commands] == ["good"]
    problems = "\n".join(found.problems)
    assert "bad.md: broken front matter" in problems
    assert "open.md: the front matter has no closing `---` line" in problems
    assert "list.md: the front matter should be `name: value` lines" in problems


def test_a_description_that_opens_yaml_it_does_not_close_is_reported_not_read_as_text(tmp_path):
    write(tmp_path / ".claude/commands/bad.md", "---\ndescription: [unclosed\n---\nbody\n")
    write(tmp_path / ".claude/commands/hint.md", "---\nargument-hint: [a] [b\n---\nbody $0\n")

    found = load_command_files(tmp_path)

    assert [(c.name, c.argument_hint) for c in found.commands] == [("hint", "[a] [b")]
    (problem,) = found.problems
    assert "bad.md: broken front matter" in problem and "(line 2)" in problem, problem


def test_a_bad_allowed_tools_entry_is_left_out_and_reported(tmp_path):
    write(tmp_path / ".claude/commands/x.md", "---\nallowed-tools: Read, Bash(\n---\nbody\n")

    found = load_command_files(tmp_path)

    [command] = found.commands
    assert [str(rule) for rule in command.allowed_tools] == ["Read"]
    assert "x.md: allowed-tools:" in found.problems[0]


def test_a_file_name_that_cannot_be_typed_is_reported(tmp_path):
    write(tmp_path / ".claude/commands/two words.md", "body")

    found = load_command_files(tmp_path)

    assert found.commands == []
    assert "two words.md: skipped" in found.problems[0]


async def _nothing(_ctx):
    return None


def test_commands_join_the_registry_and_a_builtin_keeps_its_name(tmp_path):
    registry = CommandRegistry()
    registry.register(Command("help", "Show the commands", _nothing))
    write(tmp_path / ".claude/commands/help.md", "my help")
    write(tmp_path / ".claude/commands/fix-issue.md", "---\nargument-hint: <n>\n---\nFix $0")
    files = FileCommands(registry)

    problems = files.load(tmp_path)

    assert registry.get("help").description == "Show the commands"
    assert "help.md: skipped, /help is a built-in command" in problems[0]
    fix = registry.get("fix-issue")
    assert (fix.description, fix.argument_hint, fix.source) == (
        "Fix $0 (project)",
        "<n>",
        "project",
    )
    assert [c.name for c in registry.matching("fix")] == ["fix-issue"]
    files.clear()
    assert "fix-issue" not in registry and "help" in registry


def test_positional_arguments_are_split_shell_style_from_zero():
    body = "Issue $0, priority $1, owner $ARGUMENTS[2], missing [$3]. All: $ARGUMENTS"

    filled = fill_arguments(body, '123 "very high" ada')

    assert filled == (
        'Issue 123, priority very high, owner ada, missing []. All: 123 "very high" ada'
    )


def test_a_body_without_placeholders_gets_the_arguments_appended():
    assert fill_arguments("Review the code.", "focus on errors") == (
        "Review the code.\n\nARGUMENTS: focus on errors"
    )
    assert fill_arguments("Review the code.", "") == "Review the code."


def test_an_unclosed_quote_is_a_clear_error():
    with pytest.raises(ExpansionError, match="could not read the arguments"):
        fill_arguments("Issue $0", '"unclosed')
