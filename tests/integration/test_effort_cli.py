"""`agentcli -p` with --effort, the effortLevel setting and --max-thinking-tokens: what
the real binary sends to the fake Messages API (which refuses what the real one does)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.fakeapi import reply, text
from tests.support.cli import agentcli_env, run_agentcli


def run(args: list[str], cwd: Path, server, **env: str):
    return run_agentcli(["-p", "hi", *args], cwd, agentcli_env(server, **env))


def user_settings(values: dict) -> None:
    home = Path(os.environ["AGENTCLI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.json").write_text(json.dumps(values), encoding="utf-8")


def test_effort_goes_as_adaptive_thinking_and_output_config(fake_api, project):
    fake_api.enqueue(reply(text("ok")))

    done = run(["--effort", "medium", "--model", "claude-sonnet-5-5"], project, fake_api)

    assert done.returncode == 0, done.stderr
    body = fake_api.requests[0].body
    assert body["thinking"] == {"type": "adaptive"}
    assert body["output_config"] == {"effort": "medium"}


def test_the_effort_level_setting_applies_and_the_flag_wins(fake_api, project):
    user_settings({"effortLevel": "low"})
    fake_api.enqueue(reply(text("ok")))
    fake_api.enqueue(reply(text("ok")))

    from_settings = run(["--model", "claude-opus-4-6"], project, fake_api)
    from_flag = run(["--model", "claude-opus-4-6", "--effort", "max"], project, fake_api)

    assert from_settings.returncode == from_flag.returncode == 0, from_settings.stderr
    assert fake_api.requests[0].body["output_config"] == {"effort": "low"}
    assert fake_api.requests[1].body["output_config"] == {"effort": "max"}


def test_max_thinking_tokens_is_sent_as_the_budget(fake_api, project):
    fake_api.enqueue(reply(text("ok")))

    done = run(["--max-thinking-tokens", "4096", "--model", "claude-sonnet-4-5"], project, fake_api)

    assert done.returncode == 0, done.stderr
    assert fake_api.requests[0].body["thinking"] == {"type": "enabled", "budget_tokens": 4096}
    assert "not used" not in done.stderr


def test_claude_codes_variables_are_read(fake_api, project):
    fake_api.enqueue(reply(text("ok")))

    done = run(["--model", "claude-haiku-4-5"], project, fake_api, MAX_THINKING_TOKENS="2048")

    assert done.returncode == 0, done.stderr
    assert fake_api.requests[0].body["thinking"] == {"type": "enabled", "budget_tokens": 2048}


def test_a_bad_level_or_budget_is_one_usage_error_and_nothing_is_sent(fake_api, project):
    bad_level = run(["--effort", "huge"], project, fake_api)
    bad_budget = run(["--max-thinking-tokens", "64000"], project, fake_api)

    assert bad_level.returncode == bad_budget.returncode == 2
    assert "'huge' is not one of low, medium, high, xhigh, max" in bad_level.stderr
    assert "must be less than the reply's limit (32000 tokens)" in bad_budget.stderr
    assert "Traceback" not in bad_level.stderr + bad_budget.stderr
    assert fake_api.requests == []


def test_a_malformed_variable_is_named_and_not_used(fake_api, project):
    fake_api.enqueue(reply(text("ok")))

    done = run([], project, fake_api, CLAUDE_CODE_EFFORT_LEVEL="turbo")

    assert done.returncode == 0, done.stderr
    assert "CLAUDE_CODE_EFFORT_LEVEL='turbo'" in done.stderr
    assert "output_config" not in fake_api.requests[0].body
