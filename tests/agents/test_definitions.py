"""Agent files: Claude Code's format read from the person's and the project's folders."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcli.agents.definitions import EXPLORE_TOOLS, load_agents


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("AGENTCLI_HOME", str(home))
    return home


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text)
    return path


def test_the_built_in_agents_are_always_there(tmp_path, home):
    catalog = load_agents(tmp_path)
    assert catalog.names() == ["general-purpose", "Explore"]
    assert catalog.get("Explore").tools == EXPLORE_TOOLS
    assert catalog.get("general-purpose").tools is None
    assert catalog.problems == ()


def test_tools_as_a_comma_list_or_a_yaml_list_and_model_aliases(tmp_path, home):
    agents = tmp_path / ".claude" / "agents"
    write(agents, "a.md", "---\nname: a\ndescription: A.\ntools: Read, Grep\nmodel: opus\n---\nA.")
    write(agents, "b.md", "---\nname: b\ndescription: B.\ntools:\n  - Read\n  - Bash\n---\nB.")
    write(agents, "c.md", "---\nname: c\ndescription: C.\nmodel: inherit\n---\nBe C.\n")
    catalog = load_agents(tmp_path)
    assert catalog.get("a").tools == ("Read", "Grep")
    assert catalog.get("a").model == "claude-opus-4-1"
    assert catalog.get("b").tools == ("Read", "Bash")
    assert (catalog.get("c").tools, catalog.get("c").model) == (None, None)
    assert catalog.get("c").system_prompt == "Be C."


def test_the_project_beats_the_person_and_agentcli_beats_claude(tmp_path, home):
    def agent(words: str) -> str:
        return f"---\nname: same\ndescription: {words}\n---\nBody."

    write(home / "agents", "same.md", agent("person"))
    write(tmp_path / ".claude" / "agents", "same.md", agent("claude"))
    assert load_agents(tmp_path).get("same").description == "claude"
    write(tmp_path / ".agentcli" / "agents", "same.md", agent("agentcli"))
    assert load_agents(tmp_path).get("same").description == "agentcli"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("---\nname: x: y\n---\nBody", "broken front matter"),
        ("---\ndescription: D.\n---\nBody", "no 'name'"),
        ("---\nname: x\n---\nBody", "no 'description'"),
        ("---\nname: x\ndescription: D.\n---\n  \n", "the body"),
        ("---\nname: x\ndescription: D.\ntool: Read\n---\nBody", "unknown front matter keys"),
        ("---\nname: x\ndescription: D.\ntools: 3\n---\nBody", "'tools' must be"),
        ("---\nname: two words\ndescription: D.\n---\nBody", "may hold only"),
        ("---\nname: x\ndescription: D.\nBody", "no closing `---`"),
    ],
)
def test_a_bad_file_is_skipped_and_said_why(tmp_path, home, text, reason):
    path = write(tmp_path / ".agentcli" / "agents", "bad.md", text)
    write(tmp_path / ".agentcli" / "agents", "good.md", "---\nname: good\ndescription: G.\n---\nG.")
    catalog = load_agents(tmp_path)
    assert catalog.names() == ["general-purpose", "Explore", "good"]
    (problem,) = catalog.problems
    assert problem.startswith(f"{path}: ") and reason in problem and "skipped" in problem
