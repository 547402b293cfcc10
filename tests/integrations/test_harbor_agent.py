"""agentcli under Harbor: the adapter, loaded by Harbor's own agent factory, runs a task.

Each test runs tests/integrations/harbor_run.py in Harbor's venv (harbor_venv.py):
Harbor builds `agentcli.integrations.harbor:AgentcliAgent` as `harbor run --agent`
does, sets it up and runs it in a FolderEnvironment (Harbor's BaseEnvironment,
commands run in a temporary folder: no container runtime here), against the fake
Messages API on loopback. What Harbor relies on is checked: the task's file
changed, trajectory.json valid by Harbor's own `Trajectory` model, and the
context's token counts and cost those of the requests made.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.fakeapi import reply, tool_use
from tests.integrations.harbor_venv import VENV, harbor_run, needs_harbor

KEY = "sk-ant-harbor-test-key"


@pytest.fixture(autouse=True)
def _harbor() -> None:
    needs_harbor()


def task(tmp_path: Path) -> Path:
    folder = tmp_path / "task"
    folder.mkdir()
    (folder / "config.py").write_text("value = 1\n")
    return folder


def spec(tmp_path: Path, base_url: str, **more: Any) -> dict[str, Any]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {
        "workdir": str(tmp_path / "task"),
        "trial_dir": str(tmp_path / "trial"),
        # The environment's PATH has agentcli on it (Harbor's venv's, this tree's):
        # install() finds it and installs nothing (as offline, in an image that ships it).
        "path": f"{VENV / 'bin'}:/usr/bin:/bin",
        "home": str(home),
        "model": "anthropic/claude-sonnet-5-5",
        "instruction": "Change value to 2 in config.py",
        "host_env": {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": base_url},
        **more,
    }


def trajectory_of(tmp_path: Path) -> dict[str, Any]:
    path = tmp_path / "trial" / "agent" / "trajectory.json"
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def test_harbor_runs_the_agent_on_a_task_and_gets_its_trajectory_and_usage(fake_api, tmp_path):
    fake_api.api_key = KEY  # any other key is answered 401
    folder = task(tmp_path)
    config = folder / "config.py"
    fake_api.enqueue(
        reply("Reading.", tool_use("Read", {"file_path": str(config)}, id="toolu_read")),
        reply(
            "Editing.",
            tool_use(
                "Edit",
                {"file_path": str(config), "old_string": "value = 1", "new_string": "value = 2"},
                id="toolu_edit",
            ),
        ),
        reply("Checking.", tool_use("Bash", {"command": "cat config.py"}, id="toolu_bash")),
        reply("Changed value to 2."),
    )

    result = harbor_run(["run"], spec(tmp_path, fake_api.base_url, kwargs={"max_turns": 6}))

    assert result["error"] is None
    assert result["class"] == "agentcli.integrations.harbor:AgentcliAgent"
    assert result["name"] == "agentcli" and result["version"]  # from get_version_command
    assert config.read_text() == "value = 2\n"
    assert result["trajectory"] == "valid"  # by Harbor's own Trajectory model
    trajectory = trajectory_of(tmp_path)
    steps = trajectory["steps"]
    assert [s["source"] for s in steps] == ["user", "agent", "agent", "agent", "agent"]
    assert steps[0]["message"] == "Change value to 2 in config.py"
    assert [c["function_name"] for s in steps for c in s.get("tool_calls", [])] == [
        "Read",
        "Edit",
        "Bash",
    ]
    bash = steps[3]["observation"]["results"][0]
    assert bash["source_call_id"] == "toolu_bash" and "value = 2" in bash["content"]
    # Every request went to the fake, with the host's key, for the model Harbor named.
    assert len(fake_api.requests) == 4
    assert {r.status for r in fake_api.requests} == {200}  # the fake takes only KEY
    assert {r.body["model"] for r in fake_api.requests} == {"claude-sonnet-5-5"}
    # The context holds what the requests used, as the trajectory's steps add up.
    context = result["context"]
    per_step = [s["metrics"] for s in steps if "metrics" in s]
    assert len(per_step) == 4
    assert context["n_input_tokens"] == sum(m["prompt_tokens"] for m in per_step) > 0
    assert context["n_cache_tokens"] == sum(m["cached_tokens"] for m in per_step)
    assert context["n_output_tokens"] == sum(m["completion_tokens"] for m in per_step) > 0
    assert context["cost_usd"] == pytest.approx(sum(m["cost_usd"] for m in per_step))
    assert context["cost_usd"] > 0


def test_a_run_cut_short_by_max_turns_still_reports_what_it_did_and_the_knobs_apply(
    fake_api, tmp_path
):
    folder = task(tmp_path)
    fake_api.enqueue(
        reply(tool_use("Bash", {"command": "echo started > notes.txt"}, id="toolu_1")),
        reply(tool_use("Bash", {"command": "echo more >> notes.txt"}, id="toolu_2")),
    )

    kwargs = {"max_turns": 1, "reasoning_effort": "low", "disallowed_tools": "Write"}
    result = harbor_run(["run"], spec(tmp_path, fake_api.base_url, kwargs=kwargs))

    assert result["error"] is not None  # agentcli said the turns ran out; Harbor sees it
    assert len(fake_api.requests) == 1
    body = fake_api.requests[0].body
    assert body["output_config"]["effort"] == "low"  # --effort low
    offered = {tool["name"] for tool in body["tools"]}
    assert "Bash" in offered and "Write" not in offered  # --disallowedTools Write
    assert (folder / "notes.txt").read_text() == "started\n"
    assert result["trajectory"] == "valid"
    assert result["context"]["n_input_tokens"] > 0
    assert result["context"]["n_output_tokens"] > 0


def test_bad_kwargs_are_refused_by_harbor_before_anything_runs(fake_api, tmp_path):
    task(tmp_path)
    result = harbor_run(
        ["run"], spec(tmp_path, fake_api.base_url, kwargs={"permission_mode": "yolo"})
    )
    assert result["error"] is not None and "permission_mode" in result["error"]
    assert fake_api.requests == []
    assert not (tmp_path / "trial" / "agent" / "trajectory.json").exists()


@pytest.mark.parametrize(
    ("provider", "api_path"),
    [("openai", "/v1/responses"), ("my-vllm", "/v1/chat/completions")],
)
def test_another_vendors_model_runs_through_its_openai_compatible_api(
    fake_openai, tmp_path, provider, api_path
):
    """`-m openai/...` is OpenAI's Responses API, any other provider Chat Completions,
    each at `<PROVIDER>_BASE_URL` with `<PROVIDER>_API_KEY` from the host."""
    prefix = provider.upper().replace("-", "_")
    fake_openai.api_key = "sk-openai-harbor-test"
    folder = task(tmp_path)
    fake_openai.enqueue(
        reply(tool_use("Bash", {"command": "echo done > result.txt"}, id="call_1")),
        reply("Wrote result.txt."),
    )
    host_env = {
        f"{prefix}_API_KEY": "sk-openai-harbor-test",
        f"{prefix}_BASE_URL": fake_openai.base_url,
    }
    run = spec(tmp_path, "http://127.0.0.1:9", model=f"{provider}/qwen3-coder", host_env=host_env)

    result = harbor_run(["run"], run)

    assert result["error"] is None
    assert (folder / "result.txt").read_text() == "done\n"
    assert [r.path for r in fake_openai.requests] == [api_path, api_path]
    assert {r.status for r in fake_openai.requests} == {200}  # the fake takes only that key
    assert {r.body["model"] for r in fake_openai.requests} == {"qwen3-coder"}
    assert result["trajectory"] == "valid"
    steps = trajectory_of(tmp_path)["steps"]
    assert {s.get("model_name") for s in steps if s["source"] == "agent"} == {
        f"{provider}/qwen3-coder"
    }
    assert result["context"]["n_output_tokens"] > 0


def test_a_provider_without_an_address_is_refused_with_what_to_set(fake_openai, tmp_path):
    task(tmp_path)
    run = spec(tmp_path, "http://127.0.0.1:9", model="my-vllm/qwen3-coder", host_env={})
    result = harbor_run(["run"], run)
    assert "MY_VLLM_BASE_URL" in result["error"]
    assert fake_openai.requests == []
