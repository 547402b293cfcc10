"""Memory files in the system prompt; the budget for one huge tool result; /context, /cost."""

from __future__ import annotations

import os
from pathlib import Path

from agentcli.commands.session_commands import context_text, cost_text, memory_text
from agentcli.core.usage import Usage
from agentcli.engine.budget import ToolResultBudget
from agentcli.engine.context import Environment, system_prompt
from agentcli.engine.memory import load_memory
from agentcli.permissions.types import PermissionMode
from tests.engine.harness import make_engine
from tests.engine.scripted import ScriptedProvider


def test_memory_from_home_and_each_folder_up_to_the_repository_root(tmp_path):
    repo = tmp_path / "repo"
    project = repo / "pkg" / "app"
    project.mkdir(parents=True)
    (repo / ".git").mkdir()
    (tmp_path / "AGENTS.md").write_text("ABOVE THE REPO: never loaded")
    (repo / "AGENTS.md").write_text("ROOT RULES\nSee @docs/style.md and `@not/this.md`.")
    (repo / "docs").mkdir()
    (repo / "docs" / "style.md").write_text("STYLE GUIDE @../AGENTS.md")  # a cycle
    (project / "CLAUDE.md").write_text("APP RULES")
    home = Path(os.environ["AGENTCLI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "AGENTS.md").write_text("PERSONAL RULES")

    memory = load_memory(project)
    assert [f.path for f in memory.files] == [
        home / "AGENTS.md",
        repo / "AGENTS.md",
        repo / "docs" / "style.md",
        project / "CLAUDE.md",
    ]
    env = Environment(cwd=project, platform="Linux", today="2025-01-02", is_git_repo=True)
    blocks = system_prompt(env, PermissionMode.DEFAULT, memory)
    prompt = "\n".join(b["text"] for b in blocks)
    for marker in ("PERSONAL RULES", "ROOT RULES", "STYLE GUIDE", "APP RULES"):
        assert marker in prompt
    assert f"Contents of {repo / 'docs' / 'style.md'} (imported by {repo / 'AGENTS.md'})" in prompt
    assert "ABOVE THE REPO" not in prompt
    assert blocks[-1]["cache_control"] == {"type": "ephemeral"}
    assert system_prompt(env, PermissionMode.DEFAULT, memory) == blocks  # byte-stable

    engine = make_engine(ScriptedProvider(), [], project, system=blocks)
    listing = memory_text(engine)
    assert str(repo / "docs" / "style.md") in listing and "imported" in listing


def test_imports_stop_at_the_depth_limit(tmp_path):
    for i in range(8):
        (tmp_path / f"m{i}.md").write_text(f"LEVEL{i} @m{i + 1}.md")
    (tmp_path / "AGENTS.md").write_text("TOP @m0.md")
    memory = load_memory(tmp_path)
    assert len(memory.files) == 6  # AGENTS.md and five levels of imports
    assert any("deeper than" in p for p in memory.problems)


def test_a_huge_tool_result_is_cut_with_a_note_and_saved_whole(tmp_path):
    huge = "".join(f"log line {i}\n" for i in range(50_000))  # ~600 KB
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "run"}]},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_big", "name": "Bash", "input": {}}],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_big", "content": huge}],
        },
    ]
    budget = ToolResultBudget(tmp_path / "out")
    first = budget(messages)
    second = ToolResultBudget(tmp_path / "out")(messages)  # a later process: same bytes

    sent = first[2]["content"][0]["content"][0]["text"]
    assert len(sent) < 40_000 + 1_000
    assert sent.startswith("log line 0\n") and "log line 49999" in sent
    saved = tmp_path / "out" / "toolu_big.txt"
    assert str(saved) in sent and saved.read_text() == huge
    assert first == second
    assert messages[2]["content"][0]["content"] == huge  # the conversation keeps it all


def test_context_and_cost_reports(tmp_path):
    engine = make_engine(ScriptedProvider(), [], tmp_path)
    engine.usage = Usage(1000, 500, 2000, 30_000)
    engine.cost_usd = 0.05
    cost = cost_text(engine)
    assert "Cache read | 30,000" in cost and "$0.0500" in cost
    context = context_text(engine)
    for part in ("system", "tools", "memory", "messages", "free"):
        assert f"| {part} |" in context
