"""Built-in tools offered from their stored schemas, imported when first used (tools/lazy.py).

What a person relies on: the model is offered exactly what the tools accept (the
same bytes as before, a cached prefix), and a run that never calls a tool never
pays for importing it. Checked on the real process: which modules a `-p` run had
loaded when it ended, and what the fake API was sent.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import import_module
from pathlib import Path

import pytest

from agentcli.tools.base import Workspace
from agentcli.tools.lazy import LazyTool
from agentcli.tools.registry import (
    ALIAS_TOOLS,
    BUILTIN_TOOLS,
    STORED_TOOLS,
    builtin_tool,
    builtin_tools,
)
from agentcli.tools.stored_schemas import SCHEMA_FILE, current_entries, file_text
from tests.fakeapi import reply, text, tool_use

# The modules of the tools the model is offered at start, and what only they import.
TOOL_MODULES = {
    "agentcli.tools.bash",
    "agentcli.tools.background.tools",
    "agentcli.tools.background.tasks",
    "agentcli.tools.glob",
    "agentcli.tools.grep",
    "agentcli.tools.read",
    "agentcli.tools.edit",
    "agentcli.tools.write",
    "agentcli.tools.todo_write",
    "agentcli.tools.exit_plan_mode",
    "agentcli.tools.web.fetch_tool",
    "agentcli.tools.web.fetching",
    "agentcli.tools.web.markdown",
    "agentcli.tools.web.cache",
    "agentcli.tools.fileio",
    "agentcli.tools.ripgrep",
    "agentcli.tools.shell_output",
}


def real_tool(where: str):
    module_name, class_name = where.split(":")
    return getattr(import_module(module_name), class_name)()


def test_the_stored_schemas_are_what_the_tools_input_models_say():
    expected = file_text(current_entries(dict(STORED_TOOLS)))

    assert SCHEMA_FILE.read_text("utf-8") == expected, (
        "the tools' input models changed: run `python -m agentcli.tools.write_stored_schemas`"
    )


def test_every_tool_is_offered_byte_for_byte_as_the_real_tool_offers_itself():
    offered = [
        *builtin_tools(),
        *(builtin_tool(name, where) for name, where in STORED_TOOLS[len(BUILTIN_TOOLS) :]),
    ]
    real = [real_tool(where) for _, where in STORED_TOOLS]

    assert [tool.name for tool in offered] == [tool.name for tool in real]
    offered_schemas = [tool.schema() for tool in offered]
    assert json.dumps(offered_schemas) == json.dumps([tool.schema() for tool in real])
    lazy = {tool.name for tool in offered if isinstance(tool, LazyTool)}
    assert lazy == {
        *("Bash", "Glob", "Grep", "Read", "Edit", "Write", "NotebookEdit", "WebFetch", "TodoWrite"),
        *("TaskOutput", "TaskStop", "BashOutput", "KillShell"),
        "ExitPlanMode",
        "AskUserQuestion",
    }


def test_a_lazy_tool_answers_as_its_real_tool_once_asked_about_a_call(tmp_path):
    read = LazyTool("Read", "agentcli.tools.read:ReadTool")
    edit = LazyTool("Edit", "agentcli.tools.edit:EditTool")
    workspace = Workspace(root=tmp_path)
    read.schema()
    assert not read.is_loaded  # offering it did not load it

    inp = read.input_model.model_validate({"file_path": "notes.txt"})

    assert read.is_loaded
    assert type(inp).__name__ == "ReadInput"
    assert read.is_read_only(inp) and read.is_concurrency_safe(inp)
    assert read.summary(inp, workspace) == "notes.txt"
    assert read.target_path(inp, workspace) == workspace.root / "notes.txt"
    change = edit.input_model.model_validate(
        {"file_path": "notes.txt", "old_string": "a", "new_string": "b"}
    )
    assert not edit.is_read_only(change) and not edit.read_only
    assert edit.permission_title == "Edit file"
    assert edit.files_written(change, workspace) == [workspace.root / "notes.txt"]


def test_a_lazy_tool_with_the_wrong_class_says_so():
    wrong = LazyTool("Read", "agentcli.tools.edit:EditTool")

    with pytest.raises(RuntimeError, match="named 'Edit', not 'Read'"):
        wrong.real()


def loaded_by_run(args: list[str], cwd: Path, base_url: str) -> tuple[set[str], str]:
    """(the modules loaded when `agentcli ARGS` ended, its stdout), run in a child."""
    listing = cwd.parent / "modules.json"
    code = (
        "import atexit, json, sys\n"
        f"atexit.register(lambda: open({str(listing)!r}, 'w').write(json.dumps(list(sys.modules))))\n"
        "from agentcli.__main__ import main\n"
        f"sys.exit(main({args!r}))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=base_url)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return set(json.loads(listing.read_text())), done.stdout


def test_a_run_that_calls_no_tool_imports_none_yet_offers_them_all(fake_api, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    fake_api.enqueue(reply(text("Hello!")))

    loaded, out = loaded_by_run(["-p", "hi"], project, fake_api.base_url)

    assert out == "Hello!\n"
    assert not loaded & TOOL_MODULES
    assert "agentcli.tools.lazy" in loaded  # the lazy path is what ran
    real = [real_tool(where) for _, where in STORED_TOOLS]
    # Not WebSearch, as before; nor AskUserQuestion, which -p does not offer (nobody to ask);
    # nor the old names of TaskOutput and TaskStop, accepted when called.
    offered = [t for t in real if t.name not in ("WebSearch", "AskUserQuestion", *ALIAS_TOOLS)]
    expected = [tool.schema() for tool in offered]
    names = {tool["name"] for tool in expected}
    every_name = {tool["name"] for tool in fake_api.requests[0].body["tools"]}
    assert not every_name & ALIAS_TOOLS  # accepted when called, never offered
    sent = [tool for tool in fake_api.requests[0].body["tools"] if tool["name"] in names]
    for tool in sent:
        tool.pop("cache_control", None)  # the prefix's cache mark, on the last tool
    assert json.dumps(sent) == json.dumps(expected)


def test_the_tool_the_model_calls_is_imported_and_only_that_one(fake_api, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("the answer is 42\n")
    fake_api.enqueue(reply(tool_use("Read", {"file_path": str(project / "notes.txt")})))
    fake_api.enqueue(reply(text("It says 42.")))

    loaded, out = loaded_by_run(["-p", "what does notes.txt say?"], project, fake_api.base_url)

    assert out == "It says 42.\n"
    assert "agentcli.tools.read" in loaded
    assert not loaded & (TOOL_MODULES - {"agentcli.tools.read", "agentcli.tools.fileio"})
    result = fake_api.requests[1].body["messages"][-1]["content"][0]
    assert result["type"] == "tool_result" and "the answer is 42" in json.dumps(result)
