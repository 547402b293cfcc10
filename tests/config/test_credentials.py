"""agentcli's own credentials stay out of the processes it starts.

The environment a child gets (`child_env`) never holds them unless the
settings' `env` names them; the real binary also takes them out of its own
environment at start and makes its memory unreadable to those children.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from agentcli.config.credentials import CREDENTIAL_VARIABLES, child_env


@pytest.fixture
def keyed(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-secret-key")
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "secret-token")
    monkeypatch.setenv("GITHUB_TOKEN", "the-person's-own")


def test_the_list_names_every_variable_the_provider_reads():
    assert set(CREDENTIAL_VARIABLES) >= {"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"}


def test_children_get_the_environment_without_agentcli_credentials(keyed):
    env = child_env({})
    assert "ANTHROPIC_API_KEY" not in env and "ANTHROPIC_AUTH_TOKEN" not in env
    assert env["GITHUB_TOKEN"] == "the-person's-own"  # not agentcli's: left alone
    assert env["PATH"] == os.environ["PATH"]


def test_a_setting_that_names_a_credential_passes_it_on(keyed):
    env = child_env({"ANTHROPIC_API_KEY": "${ANTHROPIC_API_KEY}", "NODE_ENV": "test"})
    assert env["ANTHROPIC_API_KEY"] == "sk-secret-key"
    assert "ANTHROPIC_AUTH_TOKEN" not in env
    assert env["NODE_ENV"] == "test"


def test_references_expand_anywhere_in_a_value_and_unset_ones_are_empty(keyed, monkeypatch):
    monkeypatch.delenv("NOT_SET_ANYWHERE", raising=False)
    env = child_env(
        {"AUTH": "Bearer ${ANTHROPIC_AUTH_TOKEN}", "EMPTY": "${NOT_SET_ANYWHERE}", "KEEP": "$HOME"}
    )
    assert env["AUTH"] == "Bearer secret-token"
    assert env["EMPTY"] == ""
    assert env["KEEP"] == "$HOME"  # only ${NAME} is a reference: other text stays as written


def test_a_literal_value_in_settings_is_passed_as_written(keyed):
    assert child_env({"ANTHROPIC_API_KEY": "another-key"})["ANTHROPIC_API_KEY"] == "another-key"


# The real binary: credentials leave os.environ at start, and the process is not dumpable.
_PROBE = textwrap.dedent(
    """
    import ctypes, os, subprocess, sys
    from agentcli.config.credentials import child_env, credential, keep_credentials_private
    keep_credentials_private()
    print("environ:", os.environ.get("ANTHROPIC_API_KEY"))
    print("kept:", credential("ANTHROPIC_API_KEY"))
    print("passed:", child_env({"K": "${ANTHROPIC_API_KEY}"})["K"])
    print("dumpable:", ctypes.CDLL(None).prctl(3, 0, 0, 0, 0))  # PR_GET_DUMPABLE
    child = subprocess.run(["sh", "-c", sys.argv[1]], capture_output=True, text=True)
    print("child sees key:", "sk-secret-key" in child.stdout)
    """
)


def _probe(tmp_path, child_command: str) -> list[str]:
    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-secret-key", "HOME": str(tmp_path)}
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, child_command],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


@pytest.mark.skipif(sys.platform != "linux", reason="prctl is Linux's")
def test_the_binary_takes_its_key_out_of_the_environment_children_inherit(tmp_path):
    assert _probe(tmp_path, "env") == [
        "environ: None",
        "kept: sk-secret-key",
        "passed: sk-secret-key",
        "dumpable: 0",
        "child sees key: False",
    ]


@pytest.mark.skipif(sys.platform != "linux", reason="/proc is Linux's")
@pytest.mark.skipif(
    os.geteuid() == 0,
    reason="root may read any process's memory; the sandbox's own /proc covers root "
    "(tests/permissions/test_attack_sandbox.py)",
)
def test_a_child_cannot_read_the_key_back_from_proc(tmp_path):
    lines = _probe(tmp_path, "cat /proc/$PPID/environ | tr '\\0' '\\n'")
    assert lines[-1] == "child sees key: False"


def test_building_an_engine_takes_only_the_providers_key_variables_out(tmp_path, monkeypatch):
    """The binary hides agentcli's own keys at start (`__main__`); building an engine
    hides just the variables the settings' providers name. It must not take the
    Anthropic key out of an embedding program's environment (a test suite's, an SDK
    host's) for good: a later engine without that key must still see it missing."""
    from agentcli.config import credentials
    from agentcli.wiring.bootstrap import Options, build_engine
    from agentcli.wiring.composition import finish_session

    monkeypatch.setenv("AGENTCLI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-embedder")
    monkeypatch.setenv("LOCAL_KEY", "local-secret")
    monkeypatch.setattr(credentials, "_kept", {})
    project = tmp_path / "project"
    (project / ".agentcli").mkdir(parents=True)
    (project / ".agentcli" / "settings.json").write_text(
        '{"providers": {"local": {"type": "openai-chat", "baseUrl": "http://127.0.0.1:9/v1",'
        ' "apiKeyEnv": "LOCAL_KEY"}}}'
    )

    finish_session(build_engine(Options(cwd=project, trusted=True), None))

    assert os.environ["ANTHROPIC_API_KEY"] == "sk-embedder"
    assert "LOCAL_KEY" not in os.environ and "LOCAL_KEY" not in child_env({})
    assert credentials.credential("LOCAL_KEY") == "local-secret"
