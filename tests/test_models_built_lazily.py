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
import subprocess
import sys

IMPORT_ALL_AND_LIST_MODELS = """
import importlib, json, pkgutil, sys
import agentcli
for info in pkgutil.walk_packages(agentcli.__path__, "agentcli."):
    if info.name != "agentcli.__main__":
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
