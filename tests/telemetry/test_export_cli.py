"""`agentcli -p` as a process, exporting to a real OTLP receiver on loopback.

The export interval is set far beyond the run, so what arrives was flushed by
agentcli on its way out: these tests also check the flush before exit.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakeapi import reply, text, tool_use
from tests.support.cli import agentcli_env, run_agentcli
from tests.telemetry.receiver import GrpcReceiver, HttpReceiver, Received

pytestmark = pytest.mark.subprocess

SECRET_PROMPT = "write notes.txt, codeword PAPAYA-7781"
FILE_TEXT = "line one MANGO-4410\nline two\nline three\n"


def exporting(endpoint: str, protocol: str = "http/protobuf", **more: str) -> dict[str, str]:
    return {
        "OTEL_METRICS_EXPORTER": "otlp",
        "OTEL_LOGS_EXPORTER": "otlp",
        "OTEL_TRACES_EXPORTER": "otlp",
        "OTEL_EXPORTER_OTLP_PROTOCOL": protocol,
        "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
        "OTEL_METRIC_EXPORT_INTERVAL": "600000",  # only the flush at exit sends
        "OTEL_LOGS_EXPORT_INTERVAL": "600000",
        "OTEL_TRACES_EXPORT_INTERVAL": "600000",
        **more,
    }


def script_a_session(fake_api, project: Path) -> None:
    notes = str(project / "notes.txt")
    fake_api.enqueue(reply(tool_use("Write", {"file_path": notes, "content": FILE_TEXT})))
    fake_api.enqueue(reply(tool_use("Bash", {"command": "rm -rf build"})))
    fake_api.enqueue(reply(text("Wrote notes.txt.")))


def run(
    project: Path, fake_api, env: dict[str, str], *args: str
) -> subprocess.CompletedProcess[str]:
    return run_agentcli(
        ["-p", SECRET_PROMPT, "--allowedTools", "Write", "--disallowedTools", "Bash(rm:*)",
         "--output-format", "json", *args],
        project,
        agentcli_env(fake_api, **env),
    )  # fmt: skip


def everything(received: Received) -> str:
    return repr((received.points, received.records, received.spans, received.resources))


def test_a_run_exports_metrics_events_and_spans_over_http(fake_api, project):
    script_a_session(fake_api, project)
    with HttpReceiver() as receiver:
        done = run(project, fake_api, exporting(receiver.endpoint, AGENTCLI_ENABLE_TELEMETRY="1"))
    got = receiver.received

    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    result = json.loads(done.stdout)
    assert result["result"] == "Wrote notes.txt."
    assert got.rejected == []
    session = result["session_id"]

    # Metrics: the session, its tokens and cost (as the run reports them), the calls.
    assert got.total("agentcli.session.count") == 1
    assert {p.attributes["session.id"] for p in got.points} == {session}
    usage = result["usage"]
    assert got.total("agentcli.token.usage", type="input") == usage["input_tokens"]
    assert got.total("agentcli.token.usage", type="output") == usage["output_tokens"]
    assert {p.attributes["model"] for p in got.metric("agentcli.token.usage")} == {
        fake_api.requests[0].body["model"]
    }
    assert got.total("agentcli.cost.usage") == pytest.approx(result["total_cost_usd"], abs=1e-6)
    assert (
        got.total("agentcli.tool_call.count", tool_name="Write", decision="accept", success=True)
        == 1
    )
    assert (
        got.total("agentcli.tool_call.count", tool_name="Bash", decision="reject", source="config")
        == 1
    )
    assert got.total("agentcli.lines_of_code.count", type="added") == 3
    assert got.total("agentcli.active_time.total") > 0

    # Events: the prompt by its length only, each request, each decision and result.
    (prompt,) = got.events("agentcli.user_prompt")
    assert prompt.attributes["prompt_length"] == len(SECRET_PROMPT)
    assert "prompt" not in prompt.attributes
    requests = got.events("agentcli.api_request")
    assert len(requests) == 3 == len(fake_api.requests)
    assert sum(r.attributes["input_tokens"] for r in requests) == usage["input_tokens"]
    assert all(r.attributes["duration_ms"] >= 0 and "cost_usd" in r.attributes for r in requests)
    decisions = {
        (e.attributes["tool_name"], e.attributes["decision"])
        for e in got.events("agentcli.tool_decision")
    }
    assert decisions == {("Write", "accept"), ("Bash", "reject")}
    results = {e.attributes["tool_name"]: e.attributes for e in got.events("agentcli.tool_result")}
    assert results["Write"]["success"] is True and results["Bash"]["success"] is False
    assert prompt.resource["service.name"] == "agentcli"
    assert prompt.resource["service.version"]

    # Spans: one interaction, its requests and tool calls under it.
    (interaction,) = [s for s in got.spans if s.name == "agentcli.interaction"]
    children = [s for s in got.spans if s.parent_span_id == interaction.span_id]
    assert sorted(s.name for s in children) == ["agentcli.llm_request"] * 3 + ["agentcli.tool"] * 2
    assert all(s.trace_id == interaction.trace_id for s in children)
    assert all("permission_decision" in s.events for s in children if s.name == "agentcli.tool")

    # Never the prompt's text, the file's contents or the model's answer.
    exported = everything(got)
    assert "PAPAYA" not in exported and "MANGO" not in exported and "Wrote notes" not in exported


def test_grpc_carries_the_same(fake_api, project):
    script_a_session(fake_api, project)
    with GrpcReceiver() as receiver:
        done = run(
            project, fake_api, exporting(receiver.endpoint, "grpc", AGENTCLI_ENABLE_TELEMETRY="1")
        )
    got = receiver.received

    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert got.total("agentcli.session.count") == 1
    assert got.total("agentcli.tool_call.count", tool_name="Write") == 1
    assert len(got.events("agentcli.api_request")) == 3
    assert len([s for s in got.spans if s.name == "agentcli.tool"]) == 2


def test_claude_codes_switch_in_the_user_settings_turns_it_on(fake_api, project, tmp_path):
    script_a_session(fake_api, project)
    claude_home = tmp_path / "claude-home"
    claude_home.mkdir()
    with HttpReceiver() as receiver:
        settings = {"env": {"CLAUDE_CODE_ENABLE_TELEMETRY": "1", **exporting(receiver.endpoint)}}
        (claude_home / "settings.json").write_text(json.dumps(settings))
        done = run(project, fake_api, {"CLAUDE_CONFIG_DIR": str(claude_home)})
    assert done.returncode == 0, done.stderr
    assert receiver.received.total("agentcli.session.count") == 1
    assert len(receiver.received.events("agentcli.api_request")) == 3


def test_a_projects_settings_cannot_switch_it_on(fake_api, project):
    """A cloned repository must not send the session's metadata where it likes."""
    script_a_session(fake_api, project)
    with HttpReceiver() as receiver:
        for folder in (".claude", ".agentcli"):
            (project / folder).mkdir()
            settings = {"env": {"AGENTCLI_ENABLE_TELEMETRY": "1", **exporting(receiver.endpoint)}}
            (project / folder / "settings.json").write_text(json.dumps(settings))
        done = run(project, fake_api, {})
    assert done.returncode == 0, done.stderr
    assert everything(receiver.received) == repr(([], [], [], []))


def test_off_unless_switched_on_and_nothing_of_it_is_imported(fake_api, project):
    fake_api.enqueue(reply(text("hi")))
    with HttpReceiver() as receiver:
        env = agentcli_env(fake_api, **exporting(receiver.endpoint))
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "agentcli", "-p", "hello"],
            cwd=project, env=env, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == "hi\n"
    assert "opentelemetry" not in done.stderr  # -X importtime lists every module imported
    assert receiver.received.points == receiver.received.records == []


def test_prompts_are_exported_only_when_asked(fake_api, project):
    fake_api.enqueue(reply(text("hi")))
    with HttpReceiver() as receiver:
        env = exporting(receiver.endpoint, AGENTCLI_ENABLE_TELEMETRY="1", OTEL_LOG_USER_PROMPTS="1")
        done = run_agentcli(["-p", SECRET_PROMPT], project, agentcli_env(fake_api, **env))
    assert done.returncode == 0, done.stderr
    (prompt,) = receiver.received.events("agentcli.user_prompt")
    assert prompt.attributes["prompt"] == SECRET_PROMPT


def test_an_unreachable_collector_does_not_touch_the_run(fake_api, project):
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    script_a_session(fake_api, project)
    # The exporters' own timeout (1 s here) bounds their retries; agentcli's flush at
    # exit bounds the whole wait in any case.
    env = exporting(closed, AGENTCLI_ENABLE_TELEMETRY="1", OTEL_EXPORTER_OTLP_TIMEOUT="1")
    done = run(project, fake_api, env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == "Wrote notes.txt."
    assert done.stderr == ""
    assert (project / "notes.txt").read_text() == FILE_TEXT


def test_an_exporter_agentcli_does_not_have_is_named(fake_api, project):
    fake_api.enqueue(reply(text("hi")))
    env = exporting(
        "http://127.0.0.1:9", AGENTCLI_ENABLE_TELEMETRY="1", OTEL_METRICS_EXPORTER="prometheus"
    )
    env |= {"OTEL_LOGS_EXPORTER": "none", "OTEL_TRACES_EXPORTER": "none"}
    done = run_agentcli(["-p", "hello", "--verbose"], project, agentcli_env(fake_api, **env))
    assert done.returncode == 0, done.stderr
    assert "OTEL_METRICS_EXPORTER=prometheus" in done.stderr
    assert "Traceback" not in done.stderr
