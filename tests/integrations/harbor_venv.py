"""Harbor's own venv (Python 3.12+, `make harbor-venv`), for the tests of agentcli under Harbor.

Harbor 0.25 needs Python 3.12 or newer, and the suite runs on 3.11: these tests
run tests/integrations/harbor_run.py with the venv's python, which imports
Harbor, and assert on the JSON it prints. `make harbor-venv` makes the venv
(`.harbor-venv`: Harbor and this project, installed editable, so its `agentcli`
is this tree's); `make test` makes it in CI. Without it the tests skip; in CI
(AGENTCLI_CI=1) they fail, as the LiteLLM proxy's do (tests/litellm/proxy.py).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from tests.ci_required import require

REPO = Path(__file__).resolve().parents[2]
VENV = REPO / ".harbor-venv"
PYTHON = VENV / "bin" / "python"
AGENTCLI = VENV / "bin" / "agentcli"
RUN_TIMEOUT_S = 300  # Harbor's imports take seconds; a whole agent run a few more


def harbor_problem() -> str | None:
    for needed in (PYTHON, AGENTCLI):
        if not needed.exists():
            return f"{needed} is missing (run `make harbor-venv`)"
    return None


def needs_harbor() -> None:
    require(harbor_problem(), "the Harbor tests", "no Harbor venv")


def harbor_run(args: list[str], stdin: dict[str, Any] | None = None) -> dict[str, Any]:
    """tests/integrations/harbor_run.py ARGS in Harbor's venv; the JSON it printed."""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))},
        # LiteLLM (which Harbor imports) fetches a price list at import: its bundled copy.
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "NO_PROXY": "*",
    }
    done = subprocess.run(
        [str(PYTHON), "-m", "tests.integrations.harbor_run", *args],
        cwd=REPO,
        env=env,
        input=json.dumps(stdin) if stdin is not None else None,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
    )
    assert done.returncode == 0, f"harbor_run failed:\n{done.stdout}\n{done.stderr}"
    lines = done.stdout.strip().splitlines()
    assert lines, f"harbor_run printed nothing:\n{done.stderr}"
    result: dict[str, Any] = json.loads(lines[-1])
    return result
