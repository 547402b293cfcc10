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


def agent_text(name: str, words: str = "D.") -> str:
    return f"---\nname: {name}\ndescription: {words}\n---\nBody."


def test_a_shadowed_agent_file_is_named_with_the_one_that_wins(tmp_path, home):
    mine = write(home / "agents", "reviewer.md", agent_text("reviewer", "person"))
    claude = write(tmp_path / ".claude" / "agents", "reviewer.md", agent_text("reviewer", "claude"))
    ours = write(tmp_path / ".agentcli" / "agents", "review.md", agent_text("reviewer", "agentcli"))

    catalog = load_agents(tmp_path)

    assert catalog.get("reviewer").description == "agentcli"
    assert sorted(catalog.problems) == sorted(
        f"{path}: the agent `reviewer` is already defined by {ours}; the agent file was skipped"
        for path in (mine, claude)
    )


def test_two_files_of_one_name_in_one_folder_the_first_by_file_name_wins(tmp_path, home):
    folder = tmp_path / ".claude" / "agents"
    first = write(folder, "a.md", agent_text("same", "first"))
    second = write(folder, "b.md", agent_text("same", "second"))

    catalog = load_agents(tmp_path)

    assert catalog.get("same").description == "first"
    assert catalog.problems == (
        f"{second}: the agent `same` is already defined by {first}; the agent file was skipped",
    )


@pytest.mark.parametrize(
    ("front", "problem"),
    [
        ("name: x\ndescription: [unclosed", "line 3"),  # where the `[` opens
        ("name: x\ndescription: {a: b", "line 3"),
        ("name: x\n  description: D.", "line 3"),  # indented under nothing
        ("name: x\ndescription: D.\ntools:\n  - Read\n - Grep", "line 6"),
        ("- name\n- description", "should be `name: value` lines (line 2)"),
        ("just words", "should be `name: value` lines (line 2)"),
        ("name: x\ndescription: D.\nname: y", "`name` appears twice (lines 2 and 4)"),
        ("name: x\ndescription: *nothing", "line 3"),
        ("name: x\ndescription: D.\ncolor: " + "[" * 5000, "nested too deeply"),
        ("name: x\ndescription: !!python/name:os.system", "line 3"),
    ],
)
def test_broken_yaml_is_reported_with_the_file_and_line_and_the_file_skipped(
    tmp_path, home, front, problem
):
    path = write(tmp_path / ".claude" / "agents", "x.md", f"---\n{front}\n---\nBody.\n")

    catalog = load_agents(tmp_path)

    assert catalog.get("x") is None and catalog.get("y") is None
    (said,) = catalog.problems
    assert said.startswith(f"{path}: ") and problem in said and "skipped" in said, said


@pytest.mark.parametrize(
    ("description", "read"),
    [
        ("Reviews code: finds bugs, # and style", "Reviews code: finds bugs, # and style"),
        ("'[quoted]'", "[quoted]"),
        ("first line\n  and its continuation", "first line and its continuation"),
        (">\n  folded\n  text", "folded text"),
    ],
)
def test_a_description_that_is_text_is_read_as_text(tmp_path, home, description, read):
    write(
        tmp_path / ".claude" / "agents",
        "x.md",
        f"---\nname: x\ndescription: {description}\n---\nB.",
    )

    catalog = load_agents(tmp_path)

    assert catalog.problems == ()
    assert catalog.get("x").description == read
