"""Run in the Harbor venv (Python 3.12+, `make harbor-venv`) by tests/integrations.

    harbor_run.py validate FILE...   each FILE checked with Harbor's own Trajectory model
    harbor_run.py run < SPEC.json    the agent, built by Harbor's own agent factory from
                                     `agentcli.integrations.harbor:AgentcliAgent` (as
                                     `harbor run --agent` does), set up and run in a
                                     FolderEnvironment; then its context

Prints one JSON object on stdout: what the calling test asserts on (this script
checks nothing itself, so the assertions stay in the suite, on 3.11).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path, PurePosixPath
from typing import Any

from harbor.agents.factory import AgentFactory
from harbor.models.agent.context import AgentContext
from harbor.models.trajectories import Trajectory
from harbor.models.trial.config import AgentConfig
from pydantic import ValidationError

from tests.integrations.folder_environment import FolderEnvironment

AGENT = "agentcli.integrations.harbor:AgentcliAgent"


def validate(path: Path) -> str:
    """ "valid", or what Harbor's model says is wrong."""
    try:
        Trajectory.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (ValidationError, ValueError, OSError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return "valid"


async def run(spec: dict[str, Any]) -> dict[str, Any]:
    os.environ.update(spec.get("host_env", {}))  # the host's keys and addresses
    trial = Path(spec["trial_dir"])
    logs = trial / "agent"
    config = AgentConfig(name=AGENT, model_name=spec.get("model"), kwargs=spec.get("kwargs", {}))
    try:
        # No container: the agent's logs folder inside the "environment" is the host's.
        agent = AgentFactory.create_agent_from_config(
            config, logs_dir=logs, environment_logs_dir=PurePosixPath(logs)
        )
    except ValueError as exc:  # Harbor refused the kwargs, as `harbor run` would
        return {"error": f"{type(exc).__name__}: {exc}", "trajectory": None}
    environment = FolderEnvironment(
        Path(spec["workdir"]), trial, path=spec["path"], home=Path(spec["home"])
    )
    error = None
    context = AgentContext()
    try:
        await agent.setup(environment)
        await agent.run(spec["instruction"], environment, context)
    except Exception as exc:  # reported to the test, which decides
        error = f"{type(exc).__name__}: {exc}"
    agent.populate_context_post_run(context)
    trajectory = logs / "trajectory.json"
    return {
        "class": f"{type(agent).__module__}:{type(agent).__name__}",
        "name": agent.name(),
        "version": agent.version(),
        "error": error,
        "context": context.model_dump(mode="json"),
        "trajectory": validate(trajectory) if trajectory.exists() else None,
    }


def main(argv: list[str]) -> int:
    if argv[:1] == ["validate"]:
        result: dict[str, Any] = {name: validate(Path(name)) for name in argv[1:]}
    elif argv == ["run"]:
        result = asyncio.run(run(json.load(sys.stdin)))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
