"""A server's prompts as slash commands, and `@server:uri` attaching its resources.

Through the app, against the real test server: its prompt `review(topic)` and its
resources `test://greeting` (text) and `test://dot.png` (an image). What the model
receives is read from the requests the scripted provider got.
"""

from __future__ import annotations

import contextlib
import os
import signal

import pytest

from agentcli.commands.mcp_prompts import PromptArgumentsError, prompt_arguments
from agentcli.frontends.tui.completers import resource_completions
from agentcli.mcp.status import PromptArgument, PromptInfo, ResourceInfo
from tests.engine.scripted import Probe, Response, ScriptedProvider, make_tool, text, tool_use
from tests.frontends.tui.helpers import idle, send, type_text, wait_for
from tests.frontends.tui.mcp_support import mcp_app, notes
from tests.mcp.support import run_tool, state_of, stdio, tool_named

# One server for the tests that only read from it (prompts, resources); the tests that
# disable or stop it start their own (`connected`).
shared = pytest.mark.asyncio(loop_scope="module")


async def connected(mcp_manager, name: str = "test"):
    manager = mcp_manager(stdio(name))
    await manager.start()
    await manager.wait_ready()
    return manager


def first_message(provider: ScriptedProvider) -> list:
    return provider.requests[0].messages[0]["content"]


# -- prompts -------------------------------------------------------------------------


@shared
async def test_a_prompt_is_a_slash_command_offered_with_its_description(
    tmp_path, shared_test_server
):
    manager = shared_test_server
    app = mcp_app(ScriptedProvider(), tmp_path, manager)
    async with app.run_test(size=(100, 40)) as pilot:
        await type_text(pilot, "/mcp__te")
        await wait_for(pilot, lambda: app.popup.showing, "the popup")

        [item] = app.popup.items
        assert item.label == "/mcp__test__review <topic>"
        assert item.description == "Ask for a review of a topic. (MCP: test)"
        await pilot.press("tab")  # completed, for the argument to follow
        assert app.prompt.text == "/mcp__test__review "


@shared
async def test_enter_runs_a_prompt_and_a_missing_argument_is_said_once(
    tmp_path, shared_test_server
):
    """Enter runs the highlighted command, as in Claude Code; the prompt's required
    argument is missing, so it says which and how to give it, and sends nothing."""
    manager = shared_test_server
    provider = ScriptedProvider()
    app = mcp_app(provider, tmp_path, manager)
    async with app.run_test(size=(100, 40)) as pilot:
        await type_text(pilot, "/mcp__te")
        await wait_for(pilot, lambda: app.popup.showing, "the popup")
        await pilot.press("enter")
        problem = "missing required argument: topic · usage: /mcp__test__review <topic>"
        await wait_for(pilot, lambda: any(problem in n for n in notes(app)), "the problem")
        assert app.prompt.text == "" and provider.requests == []


@shared
async def test_running_a_prompt_sends_its_messages_as_the_persons_turn(
    tmp_path, shared_test_server
):
    manager = shared_test_server
    provider = ScriptedProvider(Response([text("Reviewed.")]))
    app = mcp_app(provider, tmp_path, manager)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, '/mcp__test__review "the login page"')
        await wait_for(pilot, lambda: provider.requests, "the request")
        await idle(pilot, app)

        assert first_message(provider) == [text("Please review the login page.")]
        assert app.conversation.last_answer_source == "Reviewed."


@shared
async def test_the_last_argument_takes_the_rest_of_the_words(tmp_path, shared_test_server):
    manager = shared_test_server
    provider = ScriptedProvider(Response([text("ok")]))
    app = mcp_app(provider, tmp_path, manager)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "/mcp__test__review error handling in the parser")
        await wait_for(pilot, lambda: provider.requests, "the request")

        assert first_message(provider) == [text("Please review error handling in the parser.")]


@shared
async def test_a_missing_required_argument_says_which_and_sends_nothing(
    tmp_path, shared_test_server
):
    manager = shared_test_server
    provider = ScriptedProvider()
    app = mcp_app(provider, tmp_path, manager)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "/mcp__test__review ")  # past the completion: run as is

        await wait_for(pilot, lambda: any("missing required" in n for n in notes(app)), "error")
        assert (
            "/mcp__test__review: missing required argument: topic · "
            "usage: /mcp__test__review <topic>"
        ) in notes(app)
        assert not provider.requests and not app.busy and not app.engine.messages


async def test_a_prompt_of_a_server_that_went_away_is_an_unknown_command(tmp_path, mcp_manager):
    manager = await connected(mcp_manager)
    provider = ScriptedProvider()
    app = mcp_app(provider, tmp_path, manager)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: "mcp__test__review" in app.registry, "the command")
        await manager.disable("test")
        await wait_for(pilot, lambda: "mcp__test__review" not in app.registry, "it to go")

        await send(pilot, "/mcp__test__review anything")

        await wait_for(pilot, lambda: any("Unknown command" in n for n in notes(app)), "note")
        assert not provider.requests and not app.engine.messages


async def test_a_prompt_queued_behind_a_turn_is_fetched_when_its_turn_comes(tmp_path, mcp_manager):
    manager = await connected(mcp_manager)
    probe = Probe()
    provider = ScriptedProvider(
        Response([tool_use("Wait", {"value": "x"}, "toolu_wait")]), Response([text("waited")])
    )
    wait = make_tool("Wait", probe, safe=True, behaviour="wait")
    app = mcp_app(provider, tmp_path, manager, tools=[wait])
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "wait")
        await wait_for(pilot, lambda: probe.started.is_set(), "the first turn's tool")
        await send(pilot, "/mcp__test__review the queue")
        assert [str(item.text) for item in app.turns.queue] == ["/mcp__test__review the queue"]
        await manager.disable("test")  # the server goes before the prompt's turn comes

        probe.release.set()

        problem = "/mcp__test__review: MCP server test is not connected (disabled)"
        await wait_for(pilot, lambda: problem in notes(app), "the prompt's failure")
        await idle(pilot, app)
        assert len(provider.requests) == 2  # the first turn's; nothing for the prompt
        assert not app.turns.queue


def test_prompt_arguments_fill_the_declared_ones_in_order():
    prompt = PromptInfo(
        "s",
        "p",
        arguments=(PromptArgument("file", required=True), PromptArgument("style")),
    )
    assert prompt_arguments(prompt, "main.py") == {"file": "main.py"}
    assert prompt_arguments(prompt, "main.py terse please") == {
        "file": "main.py",
        "style": "terse please",
    }
    assert prompt_arguments(prompt, "'my file.py' terse") == {
        "file": "my file.py",
        "style": "terse",
    }
    for words, problem in (
        ("", "missing required argument: file"),
        ("'unclosed", "could not read the arguments"),
    ):
        try:
            prompt_arguments(prompt, words)
        except PromptArgumentsError as error:
            assert problem in str(error)
        else:
            raise AssertionError(f"{words!r} was accepted")
    try:
        prompt_arguments(PromptInfo("s", "bare"), "extra words")
    except PromptArgumentsError as error:
        assert str(error) == "this prompt takes no arguments"
    else:
        raise AssertionError("words for a prompt without arguments were accepted")


# -- resources -----------------------------------------------------------------------


@shared
async def test_at_completes_a_server_then_its_resource_uris(tmp_path, shared_test_server):
    manager = shared_test_server
    app = mcp_app(ScriptedProvider(), tmp_path, manager)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: app.state.mcp_link is not None, "the servers followed")
        await type_text(pilot, "see @te")
        await wait_for(pilot, lambda: app.popup.showing, "the popup")
        assert app.popup.items[0].label == "test:"
        assert app.popup.items[0].description == "MCP server · 2 resources"

        await pilot.press("tab")
        assert app.prompt.text == "see @test:"
        await wait_for(pilot, lambda: app.popup.showing, "the resources")
        assert [item.label for item in app.popup.items] == [
            "test:test://dot.png",
            "test:test://greeting",
        ]

        await type_text(pilot, "gre")
        await pilot.press("tab")
        assert app.prompt.text == "see @test:test://greeting "


@shared
async def test_a_mentioned_resource_is_attached_before_the_prompt(tmp_path, shared_test_server):
    manager = shared_test_server
    provider = ScriptedProvider(Response([text("Hello to you.")]))
    app = mcp_app(provider, tmp_path, manager)
    async with app.run_test(size=(100, 40)) as pilot:
        await type_text(pilot, "answer @test:test://greeting and look at @test:test://dot.png")
        await pilot.press("escape", "enter")  # the popup offers the last URI: closed, sent
        await idle(pilot, app)

        greeting, label, image, prompt = first_message(provider)
        assert greeting == text("[Resource from test at test://greeting] hello")
        assert label == text("[Resource from test at test://dot.png]")
        assert image["type"] == "image" and image["source"]["media_type"] == "image/png"
        assert prompt == text("answer @test:test://greeting and look at @test:test://dot.png")
        assert "Attached @test:test://greeting" in notes(app)


@shared
async def test_a_resource_that_cannot_be_read_is_said_and_the_message_still_goes(
    tmp_path, shared_test_server
):
    manager = shared_test_server
    provider = ScriptedProvider(Response([text("ok")]))
    app = mcp_app(provider, tmp_path, manager)
    async with app.run_test(size=(100, 40)) as pilot:
        await type_text(pilot, "read @test:test://nowhere")
        await pilot.press("escape", "enter")
        await idle(pilot, app)

        assert first_message(provider) == [text("read @test:test://nowhere")]
        [problem] = [n for n in notes(app) if "Could not attach" in n]
        assert problem.startswith("Could not attach @test:test://nowhere: MCP server test")
        assert state_of(manager, "test").state == "connected"


def test_resource_completions_only_for_servers_with_resources():
    resources = [
        ResourceInfo("docs", "file:///guide.md", "guide", "The guide"),
        ResourceInfo("docs", "file:///notes.md", "notes"),
    ]
    assert resource_completions("@", 1, []) == []
    [server] = resource_completions("x @do", 5, resources)
    assert (server.value, server.start, server.end) == ("@docs:", 2, 5)
    uris = resource_completions("@docs:not", 9, resources)
    assert [(c.value, c.description) for c in uris] == [("@docs:file:///notes.md ", "notes")]
    assert resource_completions("@other:x", 8, resources) == []


# -- a server that does not answer ---------------------------------------------------


@contextlib.asynccontextmanager
async def stopped(manager, name: str = "test"):
    """The server's process stopped (SIGSTOP): connected, but it answers nothing."""
    pid = int((await run_tool(tool_named(manager, f"mcp__{name}__pid"), {})).content[0]["text"])
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


@pytest.mark.parametrize("message", ["/mcp__test__review the code", "read @test:test://greeting"])
async def test_esc_stops_waiting_for_a_server_that_does_not_answer(tmp_path, mcp_manager, message):
    manager = await connected(mcp_manager)
    provider = ScriptedProvider(Response([text("ok")]))
    app = mcp_app(provider, tmp_path, manager)
    async with app.run_test(size=(100, 40)) as pilot, stopped(manager):
        await type_text(pilot, message)
        await pilot.press("escape", "enter")  # (the first Esc closes the `@` popup)
        await wait_for(pilot, lambda: app.turns.making_message, "the server to be asked")

        await pilot.press("escape")

        await wait_for(pilot, lambda: not app.busy, "the turn to end")
        assert "Interrupted before the message was sent: nothing went to the model." in notes(app)
        assert not provider.requests and not app.engine.messages
        assert app.status_line.display is False  # the spinner stopped with it
