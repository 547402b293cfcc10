"""The SDK's flags on the command line: impossible combinations are refused with one
clear line, flags that cannot apply are accepted with a note, and dontAsk is for runs
that cannot ask."""

from __future__ import annotations

import subprocess
import uuid

from tests.fakeapi import reply, text
from tests.frontends.sdk.raw import SDK_FLAGS, run, user
from tests.frontends.sdk.support import AGENTCLI
from tests.support.cli import agentcli_env, run_agentcli


def agentcli(fake_api, project, *args: str) -> subprocess.CompletedProcess[str]:
    return run_agentcli(
        list(args), project, agentcli_env(fake_api), stdin="", command=[str(AGENTCLI)]
    )


def test_impossible_combinations_are_refused(fake_api, project):
    text_out = agentcli(fake_api, project, "--input-format", "stream-json")
    assert text_out.returncode == 1
    assert "--input-format stream-json needs --output-format stream-json" in text_out.stderr

    missing = agentcli(fake_api, project, *SDK_FLAGS, "--settings", "no-such.json")
    assert missing.returncode == 1 and "--settings: no such file: no-such.json" in missing.stderr

    session = str(uuid.uuid4())
    forked = agentcli(
        fake_api, project, *SDK_FLAGS, "--session-id", session, "--continue", "--fork-session"
    )
    assert forked.returncode == 1 and "cannot go with --resume or --continue" in forked.stderr

    schema = agentcli(fake_api, project, *SDK_FLAGS, "--json-schema", '{"type": 5}')
    assert schema.returncode == 1 and "--json-schema is not a JSON schema" in schema.stderr

    sources = agentcli(fake_api, project, *SDK_FLAGS, "--setting-sources", "user,managed")
    assert sources.returncode == 1 and "managed is not one of" in sources.stderr

    interactive = agentcli(fake_api, project, "--permission-mode", "dontAsk")
    assert (
        interactive.returncode == 2 and "dontAsk is for runs that cannot ask" in interactive.stderr
    )
    assert fake_api.requests == []


def test_flags_that_cannot_apply_are_accepted_with_a_note(fake_api, project):
    fake_api.enqueue(reply(text("Answered.")))

    lines, err, status = run(
        fake_api,
        project,
        [user("hi")],
        "--max-thinking-tokens",
        "4000",
        "--fallback-model",
        "claude-other",
    )

    assert status == 0, err
    assert "--fallback-model is not used" in err
    assert "max-thinking-tokens" not in err  # it is used: a thinking budget (or adaptive)
    assert fake_api.requests[0].body["thinking"] == {"type": "adaptive"}
    assert [line["result"] for line in lines if line["type"] == "result"] == ["Answered."]


async def test_the_sdks_thinking_option_runs_unchanged(fake_api, project):
    """`ClaudeAgentOptions(thinking=...)` passes `--thinking` (and `--thinking-display`):
    adaptive is adaptive thinking, disabled is none, as Claude Code takes them."""
    from claude_agent_sdk import query

    from tests.frontends.sdk.support import result_of, sdk_options

    for thinking in ({"type": "adaptive", "display": "summarized"}, {"type": "disabled"}):
        fake_api.enqueue(reply(text("Thought about it.")))
        stderr_lines: list[str] = []
        options = sdk_options(fake_api, project, thinking=thinking, stderr_lines=stderr_lines)
        messages = [m async for m in query(prompt="hi", options=options)]
        assert result_of(messages).result == "Thought about it.", stderr_lines
    adaptive, disabled = (r.body for r in fake_api.requests)
    assert adaptive["thinking"] == {"type": "adaptive"}
    assert adaptive["output_config"] == {"effort": "high"}
    assert "thinking" not in disabled and "output_config" not in disabled
