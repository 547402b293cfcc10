"""Grep tool: ripgrep-backed content search."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import agentcli.tools.ripgrep as ripgrep
from agentcli.core.abort import AbortSignal
from agentcli.tools.base import ToolContext, ToolError, Workspace
from agentcli.tools.grep import GrepInput, GrepTool, build_rg_args
from agentcli.tools.inputs import input_schema
from agentcli.tools.ripgrep import find_rg, split_globs


def write(root: Path, rel: str, text: str, mtime: int | None = None) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)  # rg applies .gitignore inside a git repo only
    write(root, ".git/config", "needle in git internals\n")
    write(root, ".gitignore", "ignored/\n*.log\n")
    write(root, "src/app.py", "import os\n\ndef main():\n    return 'Needle'\n", 1_000)
    write(root, "src/util.py", "def helper():\n    pass  # needle here\n", 3_000)
    write(root, "web/page.ts", "const needle = 1;\n", 2_000)
    write(root, "web/view.tsx", "export const x = 'needle';\n", 4_000)
    write(root, "ignored/hidden.py", "needle but ignored\n")
    write(root, "debug.log", "needle in a log\n")
    write(root, ".env", "SECRET_NEEDLE=1\n")
    return Workspace(root, scratch_dir=tmp_path / "scratch")


@pytest.fixture
def tool() -> GrepTool:
    return GrepTool()


async def grep(tool: GrepTool, ws: Workspace, **fields: Any):
    return await tool.run(GrepInput.model_validate(fields), ToolContext(ws, AbortSignal()))


# -- schema and metadata -------------------------------------------------------


def test_schema_shows_flag_aliases() -> None:
    props = input_schema(GrepInput)["properties"]
    for name in ("pattern", "path", "glob", "type", "output_mode", "-i", "-n", "-A", "-B", "-C"):
        assert props[name]["description"], name
    assert {"multiline", "head_limit", "offset"} <= set(props)
    assert "case_insensitive" not in props


def test_aliases_and_field_names_both_validate() -> None:
    by_alias = GrepInput.model_validate({"pattern": "x", "-i": True, "-C": 2})
    by_name = GrepInput(pattern="x", case_insensitive=True, context=2)
    assert by_alias == by_name
    with pytest.raises(ValueError):
        GrepInput.model_validate({"pattern": "x", "-A": -1})


def test_flags_and_summary(tool: GrepTool, workspace: Workspace) -> None:
    inp = GrepInput(pattern="TODO", path="src")
    assert tool.is_read_only(inp) and tool.is_concurrency_safe(inp)
    assert tool.summary(inp, workspace) == "TODO in src"
    assert tool.target_path(inp, workspace) == workspace.root / "src"


def test_rg_found_next_to_the_interpreter_first() -> None:
    assert find_rg() == str(Path(sys.executable).parent / "rg")


def test_missing_rg_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(ripgrep, "_found", None)
    monkeypatch.setattr(ripgrep.sys, "executable", str(tmp_path / "python"))
    monkeypatch.setattr(ripgrep.sysconfig, "get_path", lambda _name: str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ToolError, match="ripgrep"):
        find_rg()


def test_split_globs() -> None:
    assert split_globs("*.{ts,tsx}") == ["*.{ts,tsx}"]
    assert split_globs("*.py *.md") == ["*.py", "*.md"]
    assert split_globs("*.py,*.md") == ["*.py", "*.md"]
    assert split_globs("") == []


# -- output modes ---------------------------------------------------------------


async def test_files_with_matches_newest_first(tool: GrepTool, workspace: Workspace) -> None:
    result = await grep(tool, workspace, pattern="needle")
    assert not result.is_error
    assert result.content == "Found 3 files\nweb/view.tsx\nsrc/util.py\nweb/page.ts"


async def test_content_mode_with_line_numbers(tool: GrepTool, workspace: Workspace) -> None:
    result = await grep(tool, workspace, pattern="needle", output_mode="content", glob="*.py")
    assert result.content == "src/util.py:2:    pass  # needle here"


async def test_content_mode_without_line_numbers(tool: GrepTool, workspace: Workspace) -> None:
    fields = {"-n": False, "glob": "*.py"}
    result = await grep(tool, workspace, pattern="needle", output_mode="content", **fields)
    assert result.content == "src/util.py:    pass  # needle here"


async def test_count_mode(tool: GrepTool, workspace: Workspace) -> None:
    write(workspace.root, "src/many.py", "needle\nneedle\nno\nneedle\n")
    result = await grep(tool, workspace, pattern="needle", output_mode="count", glob="*.py")
    assert result.content == "src/many.py:3\nsrc/util.py:1\n\nFound 4 matching lines in 2 files"


async def test_case_insensitive(tool: GrepTool, workspace: Workspace) -> None:
    plain = await grep(tool, workspace, pattern="needle", path="src")
    assert plain.content == "Found 1 file\nsrc/util.py"
    folded = await grep(tool, workspace, pattern="needle", path="src", **{"-i": True})
    assert folded.content == "Found 2 files\nsrc/util.py\nsrc/app.py"


async def test_context_lines(tool: GrepTool, workspace: Workspace) -> None:
    write(workspace.root, "ctx.txt", "a\nb\nTARGET\nc\nd\n")
    around = await grep(tool, workspace, pattern="TARGET", output_mode="content", **{"-C": 1})
    assert around.content == "ctx.txt-2-b\nctx.txt:3:TARGET\nctx.txt-4-c"
    after = await grep(tool, workspace, pattern="TARGET", output_mode="content", **{"-A": 2})
    assert after.content == "ctx.txt:3:TARGET\nctx.txt-4-c\nctx.txt-5-d"
    before = await grep(tool, workspace, pattern="TARGET", output_mode="content", **{"-B": 2})
    assert before.content == "ctx.txt-1-a\nctx.txt-2-b\nctx.txt:3:TARGET"


async def test_glob_and_type_filters(tool: GrepTool, workspace: Workspace) -> None:
    ts = await grep(tool, workspace, pattern="needle", glob="*.{ts,tsx}")
    assert ts.content == "Found 2 files\nweb/view.tsx\nweb/page.ts"
    py = await grep(tool, workspace, pattern="needle", type="py")
    assert py.content == "Found 1 file\nsrc/util.py"


async def test_multiline(tool: GrepTool, workspace: Workspace) -> None:
    pattern = r"def main\(\):.*return"
    single = await grep(tool, workspace, pattern=pattern)
    assert single.content == "No matches found"
    multi = await grep(tool, workspace, pattern=pattern, multiline=True)
    assert multi.content == "Found 1 file\nsrc/app.py"


# -- limits and paging ---------------------------------------------------------


async def test_head_limit_cut_note_and_offset(tool: GrepTool, workspace: Workspace) -> None:
    write(workspace.root, "big.txt", "".join(f"hit {i}\n" for i in range(1, 11)))
    first = await grep(tool, workspace, pattern="hit", output_mode="content", head_limit=3)
    assert first.content.startswith("big.txt:1:hit 1\nbig.txt:2:hit 2\nbig.txt:3:hit 3\n\n")
    assert "Use offset=3" in first.content
    second = await grep(
        tool, workspace, pattern="hit", output_mode="content", head_limit=3, offset=3
    )
    assert second.content.startswith("big.txt:4:hit 4\n")
    everything = await grep(tool, workspace, pattern="hit", output_mode="content", head_limit=0)
    assert everything.content.count("\n") == 9 and "offset" not in everything.content


async def test_head_limit_on_files(tool: GrepTool, workspace: Workspace) -> None:
    result = await grep(tool, workspace, pattern="needle", head_limit=2)
    lines = result.content.splitlines()
    assert lines[:3] == ["Found 3 files", "web/view.tsx", "src/util.py"]
    assert "Showing files 1-2 of 3" in result.content and "offset=2" in result.content
    rest = await grep(tool, workspace, pattern="needle", head_limit=2, offset=2)
    assert rest.content == "Found 3 files\nweb/page.ts"


async def test_default_head_limit_is_250(tool: GrepTool, workspace: Workspace) -> None:
    write(workspace.root, "many.txt", "x\n" * 300)
    result = await grep(tool, workspace, pattern="x", output_mode="content", path="many.txt")
    assert result.content.count("many.txt:") == 250
    assert "offset=250" in result.content


async def test_long_lines_are_previewed(tool: GrepTool, workspace: Workspace) -> None:
    write(workspace.root, "min.js", "needle" + "x" * 5000 + "\n")
    result = await grep(tool, workspace, pattern="needle", output_mode="content", path="min.js")
    assert len(result.content) < 1000 and "omitted" in result.content


# -- what is searched ------------------------------------------------------------


async def test_gitignore_respected_hidden_found_git_skipped(
    tool: GrepTool, workspace: Workspace
) -> None:
    result = await grep(tool, workspace, pattern="(?i)needle", output_mode="count")
    assert "ignored/" not in result.content
    assert "debug.log" not in result.content
    assert ".git/" not in result.content
    assert ".env:1" in result.content


async def test_explicit_path_to_ignored_file_is_searched(
    tool: GrepTool, workspace: Workspace
) -> None:
    result = await grep(tool, workspace, pattern="needle", path="debug.log")
    assert result.content == "Found 1 file\ndebug.log"


async def test_results_relative_to_root_for_subfolder(tool: GrepTool, workspace: Workspace) -> None:
    result = await grep(tool, workspace, pattern="needle", path="web", output_mode="content")
    assert result.content.splitlines() == [
        "web/page.ts:1:const needle = 1;",
        "web/view.tsx:1:export const x = 'needle';",
    ]
    absolute = await grep(tool, workspace, pattern="needle", path=str(workspace.root / "web"))
    assert absolute.content == "Found 2 files\nweb/view.tsx\nweb/page.ts"


async def test_path_outside_project_gives_absolute_paths(
    tool: GrepTool, workspace: Workspace, tmp_path: Path
) -> None:
    other = write(tmp_path, "elsewhere/notes.txt", "needle\n")
    result = await grep(tool, workspace, pattern="needle", path=str(other.parent))
    assert result.content == f"Found 1 file\n{other}"


async def test_no_matches_is_not_an_error(tool: GrepTool, workspace: Workspace) -> None:
    result = await grep(tool, workspace, pattern="zebra-unicorn")
    assert result.content == "No matches found" and not result.is_error


async def test_bad_regex_is_rgs_error(tool: GrepTool, workspace: Workspace) -> None:
    with pytest.raises(ToolError, match="regex parse error"):
        await grep(tool, workspace, pattern="foo(")
    with pytest.raises(ToolError, match="repetition"):
        await grep(tool, workspace, pattern="a{")


async def test_unknown_type_and_missing_path(tool: GrepTool, workspace: Workspace) -> None:
    with pytest.raises(ToolError, match="unrecognized file type"):
        await grep(tool, workspace, pattern="x", type="nosuchtype")
    with pytest.raises(ToolError, match="does not exist"):
        await grep(tool, workspace, pattern="x", path="nowhere")


async def test_pattern_starting_with_dash(tool: GrepTool, workspace: Workspace) -> None:
    write(workspace.root, "flags.txt", "use --verbose here\n-x\n")
    result = await grep(tool, workspace, pattern="--verbose", output_mode="content")
    assert result.content == "flags.txt:1:use --verbose here"
    dash = await grep(tool, workspace, pattern="-x", output_mode="content", path="flags.txt")
    assert dash.content == "flags.txt:2:-x"


async def test_pattern_is_never_shell_interpreted(tool: GrepTool, workspace: Workspace) -> None:
    write(workspace.root, "shell.txt", "$(touch pwned) `x`\n")
    result = await grep(tool, workspace, pattern="$(touch pwned)", output_mode="content")
    assert result.content == "No matches found"  # regex `$` anchors; nothing ran either
    assert not (workspace.root / "pwned").exists()
    literal = await grep(tool, workspace, pattern=r"\$\(touch pwned\)", output_mode="content")
    assert literal.content == "shell.txt:1:$(touch pwned) `x`"


def test_rg_args_keep_pattern_and_path_as_operands() -> None:
    args = build_rg_args(GrepInput(pattern="-rf"), "-dir")
    assert args[-4:] == ["--regexp", "-rf", "--", "-dir"]


# -- cancellation ----------------------------------------------------------------


async def test_cancellation_kills_rg(
    tool: GrepTool, workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    fifo = workspace.root / "pipe"
    os.mkfifo(fifo)  # rg blocks reading it: a search that never ends on its own
    started: list[subprocess.Popen[bytes]] = []
    real_popen = subprocess.Popen

    def spy(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        proc = real_popen(*args, **kwargs)
        started.append(proc)
        return proc

    monkeypatch.setattr(ripgrep.subprocess, "Popen", spy)
    task = asyncio.create_task(grep(tool, workspace, pattern="x", path="pipe"))
    while not started:  # rg is spawned before the first await of the tool
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(started[0].wait, 10) != 0


async def test_crlf_and_stray_carriage_returns(tool: GrepTool, workspace: Workspace) -> None:
    (workspace.root / "dos.txt").write_bytes(b"one needle\r\ntwo\rneedle\r\n")
    result = await grep(tool, workspace, pattern="needle", output_mode="content", path="dos.txt")
    assert result.content == "dos.txt:1:one needle\ndos.txt:2:two\rneedle"
