"""The pieces without a screen: registry, completers, history, attachments, pruning."""

from __future__ import annotations

import pytest

from agentcli.commands.attachments import attach
from agentcli.commands.registry import (
    Command,
    CommandRegistry,
    command,
    load_command_modules,
    parse_command_line,
)
from agentcli.frontends.tui.completers import at_token, file_completions, fuzzy_score
from agentcli.frontends.tui.history import PromptHistory, history_path
from agentcli.frontends.tui.widgets.tool_pane import summary_line, tool_label
from agentcli.tools.display import DiffDisplay, ReadDisplay
from tests.engine.scripted import ScriptedProvider
from tests.frontends.tui.helpers import make_app


async def _noop(ctx):
    return None


def test_registry_registers_looks_up_by_alias_and_lists_sorted():
    reg = CommandRegistry()
    reg.register(Command("zeta", "last", _noop))
    command("alpha", "first", aliases=("a1",), registry=reg)(_noop)
    reg.register(Command("hidden", "secret", _noop, hidden=True))
    assert [c.name for c in reg.all()] == ["alpha", "zeta"]
    assert reg.get("/A1").name == "alpha" and "alpha" in reg
    assert [c.name for c in reg.matching("ta")] == ["zeta"]
    reg.unregister("alpha")
    assert reg.get("a1") is None
    with pytest.raises(ValueError):
        reg.register(Command("two words", "bad", _noop))


def test_parse_command_line():
    assert parse_command_line("/model  opus ") == ("model", "opus")
    assert parse_command_line("hello") is None
    assert parse_command_line("/usr/bin/env is a path") is None


def test_load_command_modules_skips_missing_and_reports_broken(tmp_path, monkeypatch):
    (tmp_path / "broken_cmds_mod.py").write_text("raise RuntimeError('bad module')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    problems = load_command_modules(["no_such_module_xyz", "broken_cmds_mod"])
    assert len(problems) == 1 and "bad module" in problems[0]


def test_fuzzy_file_completion_prefers_the_file_name():
    files = ["docs/main.md", "src/app/main.py", "src/mainframe/other.py", "README.md"]
    assert fuzzy_score("zzz", "src/app.py") is None
    items = file_completions("see @main.py", len("see @main.py"), files)
    assert items[0].label == "src/app/main.py"
    assert at_token("a @sr", 5) == (2, "sr") and at_token("email@x", 7) is None


def test_history_is_append_only_and_skips_bad_lines(tmp_path):
    h = PromptHistory.load(tmp_path)
    h.add("one")
    h.add("one")
    h.add("two\nlines")
    path = history_path(tmp_path)
    with path.open("a") as fh:
        fh.write("not json\n")
    assert PromptHistory.load(tmp_path).entries == ["one", "two\nlines"]


def test_attach_reads_text_files_and_refuses_binary(tmp_path):
    (tmp_path / "a.txt").write_text("alpha\nbeta\n")
    (tmp_path / "b.bin").write_bytes(b"\0\1\2")
    blocks, notes = attach("look @a.txt and @b.bin and @missing", tmp_path)
    assert len(blocks) == 1 and "alpha\nbeta" in blocks[0]["text"]
    assert notes == ["Attached a.txt (2 lines)", "Not attached: b.bin is a binary file"]


def test_tool_labels_and_summaries():
    assert tool_label("Bash", "pytest -q", {}) == "Bash(pytest -q)"
    assert tool_label("Read", "", {"file_path": "src/app.py"}) == "Read(src/app.py)"
    read = ReadDisplay(path="a.py", lines=3)
    assert summary_line("done", read, "") == "Read 3 lines"
    diff = DiffDisplay(path="c.py", hunks=(), added=1, removed=2)
    assert summary_line("done", diff, "") == "Updated c.py with 1 addition and 2 removals"


async def test_conversation_releases_old_items_but_keeps_them_to_rebuild(tmp_path):
    app = make_app(ScriptedProvider(), tmp_path)
    async with app.run_test() as pilot:
        conv = app.conversation
        conv.max_widgets = 60
        for i in range(200):
            conv.add_user(f"message {i}")
            pane = conv.add_tool(f"t{i}", "Read", {"file_path": f"f{i}.py"}, "")
            pane.finish("done", {"content": "x"}, ReadDisplay(path=f"f{i}.py", lines=1))
            if i % 10 == 0:
                await pilot.pause()  # let mounts land, as events do in a real session
        await pilot.pause()
        assert conv.item_count() <= 60 + 1
        earlier, later = conv.hidden_count()
        assert earlier + conv.item_count() + conv.pruned == 400 + 1 and later == 0
        assert conv.pruned <= 1  # only the banner, which is not rebuilt
        assert conv.pane("t0") is None and conv.pane("t199") is not None
