"""`agentcli -p` with MCP servers: the real binary, the test server, the fake API.

The fake API validates every request as the real one does, so a test that
gets to its second request has shown that the MCP result made a valid
conversation.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

from tests.fakeapi import reply, text, tool_use
from tests.mcp.support import REPO, TEST_SERVER, eventually_sync, tagged_processes
from tests.support.cli import agentcli_env, run_agentcli


def mcp_config(folder: Path, *args: str, name: str = "t") -> Path:
    """A --mcp-config file naming the test server (with extra arguments)."""
    path = folder / f"mcp-{uuid.uuid4().hex}.json"
    server = {
        "command": TEST_SERVER[0],
        "args": [*TEST_SERVER[1:], *args],
        "env": {"PYTHONPATH": str(REPO)},
    }
    path.write_text(json.dumps({"mcpServers": {name: server}}))
    return path


def cli_env(server: Any, **extra: str) -> dict[str, str]:
    """The run's environment. -p waits for its servers as long as their start-up may take
    (MCP_TIMEOUT), not the 5 s it waits by default: on a busy machine the Python test
    server can take longer to start, and these tests use its tools in the first turn."""
    return agentcli_env(server, **{"MCP_CONNECT_TIMEOUT_MS": "30000", **extra})


def agentcli(
    args: list[str], cwd: Path, server: Any, **env: str
) -> subprocess.CompletedProcess[str]:
    return run_agentcli(args, cwd, cli_env(server, **env), timeout=90)


def tool_result_of(request_body: dict[str, Any]) -> dict[str, Any]:
    last = request_body["messages"][-1]
    return next(block for block in last["content"] if block["type"] == "tool_result")


def test_the_model_calls_an_mcp_tool_and_gets_text_image_and_structured_content(fake_api, tmp_path):
    config = mcp_config(tmp_path)
    fake_api.enqueue(reply(tool_use("mcp__t__picture", {})))
    fake_api.enqueue(reply(text("A red dot, 1 by 1.")))

    done = agentcli(
        ["-p", "draw", "--mcp-config", str(config), "--allowedTools", "mcp__t"], tmp_path, fake_api
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout == "A red dot, 1 by 1.\n"
    first, second = (request.body for request in fake_api.requests)
    tools = {tool["name"]: tool for tool in first["tools"]}
    assert tools["mcp__t__echo"]["input_schema"]["required"] == ["text"]
    assert list(tools).index("mcp__t__echo") > list(tools).index("Write")  # after the built-ins
    result = tool_result_of(second)
    assert not result.get("is_error")
    kinds = [block["type"] for block in result["content"]]
    assert kinds == ["text", "image", "text"]
    assert json.loads(result["content"][2]["text"]) == {"width": 1, "height": 1, "color": "red"}


def test_stream_json_init_lists_the_mcp_servers_and_their_tools(fake_api, tmp_path):
    config = mcp_config(tmp_path)
    broken = mcp_config(tmp_path, "--fail-at-start", name="broken")
    fake_api.enqueue(reply(text("Hi.")))

    done = agentcli(
        ["-p", "hi", "--output-format", "stream-json", "--mcp-config", str(config), str(broken)],
        tmp_path,
        fake_api,
    )

    assert done.returncode == 0, done.stderr
    init = json.loads(done.stdout.splitlines()[0])
    assert init["mcp_servers"] == [
        {"name": "t", "status": "connected"},
        {"name": "broken", "status": "failed"},
    ]
    assert "mcp__t__echo" in init["tools"] and "ReadMcpResourceTool" in init["tools"]
    assert "MCP server broken failed" in done.stderr


def test_without_a_rule_an_mcp_call_is_refused_in_headless_mode(fake_api, tmp_path):
    config = mcp_config(tmp_path)
    fake_api.enqueue(reply(tool_use("mcp__t__echo", {"text": "hi"})))
    fake_api.enqueue(reply(text("It was refused.")))

    done = agentcli(["-p", "echo", "--mcp-config", str(config)], tmp_path, fake_api)

    assert done.returncode == 0, done.stderr
    result = tool_result_of(fake_api.requests[1].body)
    assert result["is_error"] is True


def test_a_deny_rule_for_a_server_hides_its_tools(fake_api, tmp_path):
    config = mcp_config(tmp_path)
    fake_api.enqueue(reply(text("Fine.")))

    done = agentcli(
        ["-p", "hi", "--mcp-config", str(config), "--disallowedTools", "mcp__t__*"],
        tmp_path,
        fake_api,
    )

    assert done.returncode == 0, done.stderr
    names = [tool["name"] for tool in fake_api.requests[0].body["tools"]]
    assert not [name for name in names if name.startswith("mcp__t__")]


def test_a_server_that_crashes_mid_call_gives_an_error_result_and_the_run_goes_on(
    fake_api, tmp_path
):
    config = mcp_config(tmp_path)
    fake_api.enqueue(reply(tool_use("mcp__t__crash", {})))
    fake_api.enqueue(reply(text("The server died.")))

    done = agentcli(
        ["-p", "go", "--mcp-config", str(config), "--allowedTools", "mcp__t"], tmp_path, fake_api
    )

    assert done.returncode == 0, done.stderr
    result = tool_result_of(fake_api.requests[1].body)
    assert result["is_error"] is True
    assert "exited during tool crash" in json.dumps(result)
    assert "out of cheese" in json.dumps(result)
    names = [tool["name"] for tool in fake_api.requests[1].body["tools"]]
    assert "mcp__t__echo" not in names  # a failed server's tools are gone


def test_a_call_that_never_answers_ends_at_the_tool_timeout(fake_api, tmp_path):
    config = mcp_config(tmp_path)
    fake_api.enqueue(reply(tool_use("mcp__t__slow", {"seconds": 600})))
    fake_api.enqueue(reply(text("It timed out.")))

    done = agentcli(
        ["-p", "wait", "--mcp-config", str(config), "--allowedTools", "mcp__t"],
        tmp_path,
        fake_api,
        MCP_TOOL_TIMEOUT="500",
    )

    assert done.returncode == 0, done.stderr
    result = tool_result_of(fake_api.requests[1].body)
    assert result["is_error"] is True and "MCP_TOOL_TIMEOUT" in json.dumps(result)


def test_a_tool_list_that_changes_is_seen_by_the_next_request(fake_api, tmp_path):
    config = mcp_config(tmp_path)
    fake_api.enqueue(reply(tool_use("mcp__t__grow", {})))
    fake_api.enqueue(reply(tool_use("mcp__t__extra", {})))
    fake_api.enqueue(reply(text("Done.")))

    done = agentcli(
        ["-p", "grow", "--mcp-config", str(config), "--allowedTools", "mcp__t"], tmp_path, fake_api
    )

    assert done.returncode == 0, done.stderr
    first, second, _ = ([t["name"] for t in r.body["tools"]] for r in fake_api.requests)
    assert "mcp__t__extra" not in first and "mcp__t__extra" in second
    servers_tools = [name for name in second if name.startswith("mcp__")]
    assert second[-len(servers_tools) :] == servers_tools == sorted(servers_tools)
    assert tool_result_of(fake_api.requests[2].body)["content"] == [
        {"type": "text", "text": "extra!"}
    ]


def test_an_interrupt_during_a_call_cancels_it_on_the_server_and_ends_the_run(fake_api, tmp_path):
    config = mcp_config(tmp_path)
    mark = tmp_path / "mark"
    fake_api.enqueue(reply(tool_use("mcp__t__slow", {"seconds": 600, "mark": str(mark)})))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agentcli",
            "-p",
            "wait",
            "--output-format=json",
            "--mcp-config",
            str(config),
            "--allowedTools",
            "mcp__t",
        ],
        cwd=tmp_path,
        env=cli_env(fake_api),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        eventually_sync(lambda: mark.exists() and mark.read_text() == "started")

        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

    assert json.loads(out)["terminal_reason"] == "aborted_tools", err
    assert mark.read_text() == "cancelled"


def test_every_server_process_ends_with_the_run(fake_api, tmp_path):
    tag = uuid.uuid4().hex
    configs = [str(mcp_config(tmp_path, "--tag", tag, name=name)) for name in ("a", "b", "c")]
    fake_api.enqueue(reply(text("Bye.")))

    done = agentcli(["-p", "hi", "--mcp-config", *configs], tmp_path, fake_api)

    assert done.returncode == 0, done.stderr
    assert tagged_processes(tag) == []


def test_a_projects_mcp_json_not_approved_is_not_started(fake_api, tmp_path):
    tag = uuid.uuid4().hex
    server = {
        "command": TEST_SERVER[0],
        "args": [*TEST_SERVER[1:], "--tag", tag],
        "env": {"PYTHONPATH": str(REPO)},
    }
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"repo": server}}))
    fake_api.enqueue(reply(text("Hi.")))

    done = agentcli(["-p", "hi", "--output-format", "stream-json"], tmp_path, fake_api)

    assert done.returncode == 0, done.stderr
    init = json.loads(done.stdout.splitlines()[0])
    assert init["mcp_servers"] == [{"name": "repo", "status": "disabled"}]
    assert not [name for name in init["tools"] if name.startswith("mcp__")]
    assert tagged_processes(tag) == []


def test_strict_mcp_config_uses_only_the_files_given(fake_api, tmp_path):
    server = {"command": TEST_SERVER[0], "args": TEST_SERVER[1:], "env": {"PYTHONPATH": str(REPO)}}
    settings = tmp_path / ".agentcli" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"mcpServers": {"local": server}}))
    config = mcp_config(tmp_path, name="given")
    fake_api.enqueue(reply(text("Hi.")))

    done = agentcli(
        [
            "-p",
            "hi",
            "--output-format",
            "stream-json",
            "--mcp-config",
            str(config),
            "--strict-mcp-config",
        ],
        tmp_path,
        fake_api,
    )

    init = json.loads(done.stdout.splitlines()[0])
    assert [server["name"] for server in init["mcp_servers"]] == ["given"]


def test_ctrl_c_while_waiting_for_a_slow_server_ends_the_run(fake_api, tmp_path):
    tag = uuid.uuid4().hex
    config = mcp_config(tmp_path, "--delay", "120", "--tag", tag)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agentcli",
            "-p",
            "hi",
            "--output-format=json",
            "--mcp-config",
            str(config),
        ],
        cwd=tmp_path,
        env=cli_env(fake_api, MCP_TIMEOUT="600000"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        eventually_sync(lambda: bool(tagged_processes(tag)))

        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

    assert json.loads(out)["is_error"] is True, err
    assert fake_api.requests == []
    assert tagged_processes(tag) == []
