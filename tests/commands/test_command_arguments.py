"""A custom command's arguments are data: only the command file's own `!` lines run.

The attack: a command file `Q: $ARGUMENTS` run as `/q !`echo INJECTED`` (or with
a newline and a `!` line, or `$(...)` for a file whose own `!` line uses
`$ARGUMENTS`) ran the injected command, because the arguments were filled in first
and the result was then scanned for `!` lines. Now the body's own text is read for
`!` lines before anything is filled in, placeholders are filled in one pass (so an
argument's `$ARGUMENTS` or `$1` stays as typed), and a `!` line runs exactly as the
file wrote it. `@file` mentions in the arguments still attach, through Read's
permission, as the command file's own do.
"""

from __future__ import annotations

import pytest

from agentcli.commands.expansion import Blocks, expand


class Recording:
    """A Runner that records what would run and what would be attached."""

    def __init__(self) -> None:
        self.ran: list[str] = []
        self.included: list[str] = []

    async def shell(self, command: str) -> str:
        self.ran.append(command)
        return f"<output of {command}>\n"

    async def include(self, mention: str) -> tuple[Blocks, list[str]]:
        self.included.append(mention)
        return [{"type": "text", "text": f"<contents of {mention}>"}], [f"Attached {mention}"]


async def run(body: str, arguments: str) -> tuple[str, Recording]:
    runner = Recording()
    expansion = await expand(body, arguments, runner)
    return expansion.blocks[-1]["text"], runner


INJECTIONS = [
    "!`echo INJECTED`",
    "x !`touch marker`",
    "first line\n!`touch marker`",
    "\n!`touch marker`\n",
    "'!`touch marker`'",  # one quoted word, for $0
    "$(touch marker)",
    "`touch marker`",
    "x; touch marker",
]
# Each body, and whether the model gets the arguments whole (not only some words).
BODIES = [
    ("Q: $ARGUMENTS", True),
    ("Q: $0 and $ARGUMENTS[0]", False),
    ("Q:", True),  # no placeholder: the arguments are appended
    ("Q: $ARGUMENTS\n!$ARGUMENTS", True),
]


@pytest.mark.parametrize("arguments", INJECTIONS)
@pytest.mark.parametrize(("body", "whole"), BODIES)
async def test_no_argument_text_ever_runs(body, whole, arguments):
    text, runner = await run(body, arguments)

    assert runner.ran == []
    if whole:
        assert arguments in text  # the model gets it as typed


@pytest.mark.parametrize("arguments", INJECTIONS)
async def test_the_files_own_shell_line_runs_as_written_whatever_the_arguments(arguments):
    body = "Status:\n!`git status --short`\nQ: $ARGUMENTS"

    text, runner = await run(body, arguments)

    assert runner.ran == ["git status --short"]
    assert text.startswith("Status:\n<output of git status --short>\nQ: ")
    assert text.endswith(arguments)


@pytest.mark.parametrize("arguments", INJECTIONS)
async def test_placeholders_inside_the_files_shell_line_are_not_filled(arguments):
    """Arguments never become shell text: `$1` there is the shell's own."""
    text, runner = await run("!`echo $ARGUMENTS $0 $ARGUMENTS[1]`\nAsked: $ARGUMENTS", arguments)

    assert runner.ran == ["echo $ARGUMENTS $0 $ARGUMENTS[1]"]
    assert text == f"<output of echo $ARGUMENTS $0 $ARGUMENTS[1]>\nAsked: {arguments}"


async def test_a_shell_line_using_dollar_one_for_itself_keeps_it():
    text, runner = await run("!`awk '{print $1}' notes.txt`", "focus")

    assert runner.ran == ["awk '{print $1}' notes.txt"]
    assert text.endswith("\n\nARGUMENTS: focus")  # no placeholder outside it: appended


async def test_placeholders_typed_as_arguments_are_not_filled_again():
    body = "zero=$0 one=$1 all=$ARGUMENTS first=$ARGUMENTS[0]"

    text, _runner = await run(body, "$ARGUMENTS $1 $ARGUMENTS[0]")

    assert text == ("zero=$ARGUMENTS one=$1 all=$ARGUMENTS $1 $ARGUMENTS[0] first=$ARGUMENTS")


async def test_positional_words_from_the_arguments_are_data_too():
    text, runner = await run("Issue $0, priority $1.", "'!`touch a`' \"!`touch b`\"")

    assert runner.ran == []
    assert text == "Issue !`touch a`, priority !`touch b`."


async def test_mentions_in_the_arguments_attach_as_the_files_own_do():
    """The person's `@file` in the arguments: Read's permission decides, as for the
    file's own `@` mentions; output of the file's `!` lines is never scanned."""
    body = "Review @$0 and !`echo @from-output`: $ARGUMENTS"

    text, runner = await run(body, "main.py @notes.md")

    assert runner.included == ["main.py", "notes.md"]
    assert runner.ran == ["echo @from-output"]
    assert text == "Review @main.py and <output of echo @from-output>: main.py @notes.md"
