"""Glob tool: ripgrep file listing, newest first."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from agentcli.core.abort import AbortSignal
from agentcli.tools.base import ToolContext, ToolError, Workspace
from agentcli.tools.display import SearchDisplay
from agentcli.tools.glob import MAX_RESULTS, GlobInput, GlobTool, split_pattern
from agentcli.tools.inputs import input_schema


def touch(root: Path, rel: str, mtime: int) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(rel)
    os.utime(path, (mtime, mtime))
    return path


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    touch(root, ".git/hooks/pre-commit.py", 9_000)
    touch(root, ".gitignore", 1_000)
    (root / ".gitignore").write_text("build/\n")
    touch(root, "setup.py", 1_000)
    touch(root, "src/a.py", 3_000)
    touch(root, "src/deep/b.py", 5_000)
    touch(root, "src/c.ts", 4_000)
    touch(root, "tests/test_a.py", 2_000)
    touch(root, "build/gen.py", 8_000)
    touch(root, ".config/tool.py", 6_000)
    return Workspace(root, scratch_dir=tmp_path / "scratch")


@pytest.fixture
def tool() -> GlobTool:
    return GlobTool()


async def glob(tool: GlobTool, ws: Workspace, **fields: Any):
    return await tool.run(GlobInput.model_validate(fields), ToolContext(ws, AbortSignal()))


def test_schema_and_flags(tool: GlobTool, workspace: Workspace) -> None:
    schema = input_schema(GlobInput)
    assert set(schema["properties"]) == {"pattern", "path"}
    assert schema["required"] == ["pattern"]
    inp = GlobInput(pattern="**/*.py")
    assert tool.is_read_only(inp) and tool.is_concurrency_safe(inp)
    assert tool.summary(inp, workspace) == "**/*.py"


async def test_newest_first_hidden_found_git_and_ignored_skipped(
    tool: GlobTool, workspace: Workspace
) -> None:
    result = await glob(tool, workspace, pattern="**/*.py")
    assert not result.is_error
    assert result.content.splitlines() == [
        ".config/tool.py",
        "src/deep/b.py",
        "src/a.py",
        "tests/test_a.py",
        "setup.py",
    ]


async def test_order_follows_mtime_changes(tool: GlobTool, workspace: Workspace) -> None:
    os.utime(workspace.root / "setup.py", (10_000, 10_000))
    result = await glob(tool, workspace, pattern="**/*.py")
    assert result.content.splitlines()[0] == "setup.py"


async def test_pattern_semantics(tool: GlobTool, workspace: Workspace) -> None:
    # Like a .gitignore line: no slash matches at any depth; a slash anchors.
    nested = await glob(tool, workspace, pattern="*.ts")
    assert nested.content == "src/c.ts"
    anchored = await glob(tool, workspace, pattern="src/*.py")
    assert anchored.content == "src/a.py"
    recursive = await glob(tool, workspace, pattern="src/**/*.py")
    assert recursive.content.splitlines() == ["src/deep/b.py", "src/a.py"]
    top_only = await glob(tool, workspace, pattern="./*.py")
    assert top_only.content == "setup.py"
    braces = await glob(tool, workspace, pattern="src/*.{py,ts}")
    assert braces.content.splitlines() == ["src/c.ts", "src/a.py"]


async def test_absolute_pattern(tool: GlobTool, workspace: Workspace) -> None:
    result = await glob(tool, workspace, pattern=f"{workspace.root}/src/*.py")
    assert result.content == "src/a.py"


async def test_path_argument_gives_root_relative_results(
    tool: GlobTool, workspace: Workspace
) -> None:
    result = await glob(tool, workspace, pattern="**/*.py", path="src")
    assert result.content.splitlines() == ["src/deep/b.py", "src/a.py"]
    anchored = await glob(tool, workspace, pattern="deep/*.py", path="src")
    assert anchored.content == "src/deep/b.py"


async def test_path_outside_project_gives_absolute_paths(
    tool: GlobTool, workspace: Workspace, tmp_path: Path
) -> None:
    other = touch(tmp_path, "elsewhere/x.md", 1_000)
    result = await glob(tool, workspace, pattern="*.md", path=str(other.parent))
    assert result.content == str(other)


async def test_cap_at_100_with_note(tool: GlobTool, workspace: Workspace) -> None:
    for i in range(MAX_RESULTS + 20):
        touch(workspace.root, f"many/f{i:03}.txt", 100_000 + i)
    result = await glob(tool, workspace, pattern="many/*.txt")
    lines = result.content.splitlines()
    assert lines[0] == "many/f119.txt"  # the newest
    assert lines[MAX_RESULTS - 1] == "many/f020.txt"
    assert "results truncated, use a more specific pattern or path" in lines[-1]
    assert "of 120 files" in lines[-1]
    assert result.display == SearchDisplay(found=120, shown=100, unit="files")


async def test_no_files_found(tool: GlobTool, workspace: Workspace) -> None:
    result = await glob(tool, workspace, pattern="**/*.rs")
    assert result.content == "No files found" and not result.is_error


async def test_bad_path_and_bad_pattern(tool: GlobTool, workspace: Workspace) -> None:
    with pytest.raises(ToolError, match="does not exist"):
        await glob(tool, workspace, pattern="*", path="nowhere")
    with pytest.raises(ToolError, match="Not a directory"):
        await glob(tool, workspace, pattern="*", path="setup.py")
    with pytest.raises(ToolError, match="glob"):
        await glob(tool, workspace, pattern="src/[a")


def test_split_pattern(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    assert split_pattern(tmp_path, "**/*.py") == (tmp_path, "**/*.py")
    assert split_pattern(tmp_path, "./src/*.py") == (tmp_path, "/src/*.py")
    assert split_pattern(tmp_path, f"{tmp_path}/lib/*.py") == (tmp_path / "lib", "/*.py")
    assert split_pattern(tmp_path / "lib", "../lib/**/x") == (tmp_path / "lib", "/**/x")
    assert split_pattern(tmp_path, "/nonexistent-dir/*.py") == (tmp_path, "/nonexistent-dir/*.py")
    assert split_pattern(tmp_path, "/**/*.py") == (tmp_path, "/**/*.py")
    assert split_pattern(tmp_path, "!x") == (tmp_path, "\\!x")
