"""LiteLLM's proxy on loopback, in front of the fake OpenAI server: a real server between.

`make litellm-test-proxy` installs LiteLLM into its own venv (`.litellm-venv`,
from tests/litellm/requirements.txt: some 400 MB, which `make test`'s venv
does not carry). The proxy serves `/v1/chat/completions` and `/v1/responses`
for one model, `qwen3-coder`, passed on to the fake server as `openai/...`
with `api_base`: agentcli's requests go through LiteLLM's own parsing and
re-serialising both ways, as they do for people who put it in front of vLLM
or llama.cpp. It runs offline (the model price map is its bundled copy) and
answers only with the master key made for the run.

Without the venv a test skips; in CI (AGENTCLI_CI=1) it fails, as the
reference MCP servers' tests do (tests/mcp/everything.py).
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.ci_required import require

REPO = Path(__file__).resolve().parents[2]
VENV = REPO / ".litellm-venv"
LITELLM = VENV / "bin" / "litellm"
MODEL = "qwen3-coder"
READY = re.compile(r"Uvicorn running on (http://127\.0\.0\.1:\d+)")
START_TIMEOUT_S = 180  # importing the proxy takes 10-20 s on a busy machine


@dataclass(frozen=True)
class Proxy:
    base_url: str  # ends in /v1
    key: str  # the master key: the bearer token every request needs


def litellm_problem() -> str | None:
    if not LITELLM.exists():
        return f"{LITELLM} is missing (run `make litellm-test-proxy`)"
    return None


def needs_litellm() -> None:
    require(litellm_problem(), "the LiteLLM proxy tests", "no LiteLLM proxy")


@contextlib.contextmanager
def litellm_proxy(upstream: str, folder: Path) -> Iterator[Proxy]:
    """The proxy, started with its config in `folder`, in front of `upstream` (the fake's
    base URL, ending in /v1); stopped (and waited for) at the end."""
    key = f"sk-agentcli-tests-{secrets.token_hex(16)}"
    config = folder / "litellm.yaml"
    config.write_text(
        "model_list:\n"
        f"  - model_name: {MODEL}\n"
        "    litellm_params:\n"
        f"      model: openai/{MODEL}\n"
        f"      api_base: {upstream}\n"
        "      api_key: fake-upstream-key\n"
    )
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "LITELLM_"))},
        "LITELLM_MASTER_KEY": key,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",  # its bundled price map: no download
        "LITELLM_TELEMETRY": "False",
        "NO_PROXY": "*",
    }
    process = subprocess.Popen(
        [str(LITELLM), "--config", str(config), "--host", "127.0.0.1", "--port", "0"],
        cwd=folder,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
    )
    try:
        yield Proxy(f"{_ready(process)}/v1", key)
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _ready(process: subprocess.Popen[str]) -> str:
    """The proxy's address, from the line uvicorn prints once it listens; the rest of
    its output is drained in a thread (a full pipe would stall it)."""
    assert process.stdout is not None
    found: list[str] = []
    seen: list[str] = []
    listening = threading.Event()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            if not found:
                seen.append(line)
                match = READY.search(line)
                if match:
                    found.append(match.group(1))
                    listening.set()
        listening.set()  # the output ended: the proxy exited

    threading.Thread(target=read, daemon=True).start()
    listening.wait(START_TIMEOUT_S)
    if not found:
        process.kill()
        tail = "".join(seen[-30:])
        raise RuntimeError(f"LiteLLM's proxy did not start:\n{tail}")
    return found[0]
