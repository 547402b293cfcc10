"""`agentcli` with providers from the settings, as a real subprocess.

A `provider/model` name sends the prompt to that provider's server (here the
fake OpenAI-compatible one), with the key from the variable the settings
name; the cost of a model without prices is unknown (null), not $0.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.fakeapi import reply, text, tool_use
from tests.integration.test_headless_cli import agentcli


def write_settings(folder: Path, providers: dict, **more) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "settings.json"
    path.write_text(json.dumps({"providers": providers, **more}))
    return path


def local(server, kind: str = "openai-chat", **more) -> dict:
    return {"local": {"type": kind, "baseUrl": server.base_url, **more}}


@pytest.mark.parametrize("kind", ["openai-chat", "openai-responses"])
def test_a_provider_model_runs_the_seed_and_its_cost_is_unknown(fake_openai, project, kind):
    config = project / "config.py"
    edit = {"file_path": str(config), "old_string": "value = 1", "new_string": "value = 2"}
    fake_openai.enqueue(
        reply(text("Reading."), tool_use("Read", {"file_path": str(config)})),
        reply(tool_use("Edit", edit)),
        reply(text("Changed value to 2.")),
    )
    fake_openai.api_key = "local-secret"
    write_settings(
        Path(os.environ["AGENTCLI_HOME"]), local(fake_openai, kind, apiKeyEnv="LOCAL_KEY")
    )

    done = agentcli(
        [
            "-p",
            "Change value to 2",
            "--model",
            "local/qwen3-coder",
            "--permission-mode",
            "acceptEdits",
            "--output-format",
            "json",
        ],
        project,
        key=False,  # no Anthropic key is needed to use another provider
        env={"LOCAL_KEY": "local-secret"},
    )

    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["result"] == "Changed value to 2." and result["num_turns"] == 3
    assert result["total_cost_usd"] is None
    assert config.read_text() == "value = 2\n"
    assert all(r.body["model"] == "qwen3-coder" for r in fake_openai.requests)


def test_configured_prices_give_a_cost(fake_openai, project):
    fake_openai.enqueue(reply(text("Hi.")))
    prices = {"models": {"qwen3-coder": {"inputPrice": 1.0, "outputPrice": 2.0}}}
    write_settings(Path(os.environ["AGENTCLI_HOME"]), local(fake_openai, **prices))

    done = agentcli(
        ["-p", "hi", "--model", "local/qwen3-coder", "--output-format", "json"], project, key=False
    )

    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["total_cost_usd"] > 0


def test_a_missing_key_variable_is_named(fake_openai, project):
    write_settings(Path(os.environ["AGENTCLI_HOME"]), local(fake_openai, apiKeyEnv="LOCAL_KEY"))

    done = agentcli(["-p", "hi", "--model", "local/qwen3-coder"], project, key=False)

    assert done.returncode == 1
    assert "LOCAL_KEY" in done.stderr and fake_openai.requests == []


def test_an_unknown_provider_is_refused_with_the_configured_ones(fake_openai, project):
    write_settings(Path(os.environ["AGENTCLI_HOME"]), local(fake_openai))

    done = agentcli(["-p", "hi", "--model", "elsewhere/gpt"], project, key=False)

    assert done.returncode == 1
    assert "Unknown provider 'elsewhere'" in done.stderr and "local" in done.stderr


def test_the_key_is_kept_from_commands_the_model_runs(fake_openai, project):
    fake_openai.enqueue(
        reply(tool_use("Bash", {"command": "printenv LOCAL_KEY"})), reply(text("ok"))
    )
    write_settings(Path(os.environ["AGENTCLI_HOME"]), local(fake_openai, apiKeyEnv="LOCAL_KEY"))

    done = agentcli(
        ["-p", "show it", "--model", "local/qwen3-coder", "--allowedTools", "Bash(printenv:*)"],
        project,
        key=False,
        env={"LOCAL_KEY": "local-secret"},
    )

    assert done.returncode == 0, done.stderr
    (result,) = [m for m in fake_openai.requests[1].body["messages"] if m["role"] == "tool"]
    assert "Exit code: 1" in result["content"] and "local-secret" not in result["content"]


def test_config_shows_where_each_provider_came_from(fake_openai, project):
    write_settings(Path(os.environ["AGENTCLI_HOME"]), local(fake_openai, apiKeyEnv="LOCAL_KEY"))
    write_settings(
        project / ".agentcli",
        {"work": {"type": "openai-responses", "baseUrl": "https://llm.example.com/v1"}},
    )

    done = agentcli(["config"], project, key=False)

    assert done.returncode == 0, done.stderr
    assert f"local: openai-chat at {fake_openai.base_url}, key from $LOCAL_KEY" in done.stdout
    assert "(user)" in done.stdout.split("local: openai-chat")[1].splitlines()[0]
    # The folder is not trusted: the project's provider is withheld, and shown so.
    assert "providers: work: openai-responses at https://llm.example.com/v1" in done.stdout
