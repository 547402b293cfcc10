"""agentcli's pydantic models are built when first used, not when their module is imported.

Building a model (its validator and serializer) costs about a millisecond, and a
start imports dozens that a run may never validate (settings files that do not
exist, permission questions nobody is asked, tool displays of tools not called).
So every model is declared with `defer_build=True` (docs/architecture.md,
"Start-up"). Checked in a fresh interpreter that imports every agentcli module:
no model of ours is complete after the imports, and a new one without the flag
is named.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.fakeapi import reply, text

IMPORT_ALL_AND_LIST_MODELS = """
import importlib, json, pkgutil, sys
import agentcli
for info in pkgutil.walk_packages(agentcli.__path__, "agentcli."):
    # integrations/: imported only by the program each adapts to, which brings its own
    # dependencies (Harbor); agentcli never imports them.
    if info.name != "agentcli.__main__" and not info.name.startswith("agentcli.integrations."):
        importlib.import_module(info.name)
from pydantic import BaseModel
found, todo = {}, [BaseModel]
while todo:
    for model in todo.pop().__subclasses__():
        todo.append(model)
        if model.__module__.startswith("agentcli."):
            found[f"{model.__module__}.{model.__qualname__}"] = {
                "deferred": model.model_config.get("defer_build") is True,
                "built": bool(model.__pydantic_complete__),
            }
print(json.dumps(found))
"""


def agentcli_models() -> dict[str, dict[str, bool]]:
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_ALL_AND_LIST_MODELS],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    models: dict[str, dict[str, bool]] = json.loads(done.stdout.splitlines()[-1])
    return models


def test_no_model_is_built_when_its_module_is_imported():
    models = agentcli_models()

    assert len(models) > 40  # the walk found them: tool inputs, displays, settings...
    assert sorted(name for name, state in models.items() if not state["deferred"]) == []
    assert sorted(name for name, state in models.items() if state["built"]) == []


RUN_ONE_SHOT_AND_LIST_BUILT = """
import sys
from agentcli.__main__ import main
code = main(["-p", "hi"])
from pydantic import BaseModel
built, todo = [], [BaseModel]
while todo:
    for model in todo.pop().__subclasses__():
        todo.append(model)
        if model.__module__.startswith("agentcli.") and model.__pydantic_complete__:
            built.append(f"{model.__module__}.{model.__qualname__}")
print("BUILT", sorted(built))
sys.exit(code)
"""


def test_a_one_shot_run_that_calls_no_tool_builds_no_model(fake_api, tmp_path):
    """`-p hi` offers every tool and validates nothing: no settings file, no hooks, no
    tool call. So none of our models is built (their schemas are stored, the empty
    hook set is made without validation)."""
    fake_api.enqueue(reply(text("Hello!")))
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=fake_api.base_url)

    done = subprocess.run(
        [sys.executable, "-c", RUN_ONE_SHOT_AND_LIST_BUILT],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines()[0] == "Hello!"
    offered = {tool["name"] for tool in fake_api.requests[-1].body["tools"]}
    assert {"Bash", "Read", "ExitPlanMode", "Task"} <= offered
    assert done.stdout.splitlines()[-1] == "BUILT []"
