"""The suite's tiers: which tests start processes, drive a pty or compare snapshots.

`make test` runs every test on every core; `make test-fast` (the edit-test loop)
leaves out the tests marked here. A test gets its marks from where it lives (a
folder or file below) or from a fixture it uses, so a new test in a process-
driven file is marked without anyone remembering to.

The marks stay honest by a check, not by care: while a test that is not marked
`subprocess` or `pty` runs, starting a process (subprocess, fork, exec, spawn,
pty) fails it and names the command. The check counts what the test's own
thread starts; in a run without the process tiers (the fast tier) it counts
every thread, since no earlier test can have left a process-starting thread
behind there.

What a mark means:
- `pty`: the real agentcli binary in a pseudo-terminal.
- `snapshot`: a rendered Textual screen compared with a stored SVG.
- `subprocess`: starts a process: the agentcli binary, bash, git, an MCP server.
- `slow`: in process, but seconds of its own (measured; listed by file).
"""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).resolve().parents[1]

# fnmatch patterns ("*" crosses folders) on a test's path relative to tests/, or, with
# "::", on that path and its name ("tools/test_x.py::test_runs_*": the tests of a file
# that is otherwise in process).
BY_PATH: dict[str, tuple[str, ...]] = {
    "pty": (
        "frontends/tui/test_pty*.py",
        "frontends/tui/test_textual_private.py",
        "integration/test_headless_input_cli.py",
        "integration/test_headless_terminal.py",
    ),
    "subprocess": (
        # Folders whose tests run the binary, a server or a command. The Textual app
        # lists the project's files with ripgrep as it starts, so its tests are here.
        "frontends/tui/*",
        "frontends/sdk/*",
        "frontends/acp/*",
        "integration/*",
        "integrations/*",  # Harbor's venv runs the adapter, which runs agentcli
        "litellm/*",
        "mcp/*",
        "hooks/*",
        # Files: Bash, Grep and Glob run programs; the sandbox runs bubblewrap.
        "agents/test_headless_agents.py",
        "agents/test_subagent_questions.py",
        "agents/test_subagent_turns.py",
        "config/test_sandbox_settings.py",
        "permissions/test_attack_git_history.py",
        "permissions/test_attack_sandbox.py",
        "permissions/test_attack_sandbox_masks.py",
        "permissions/test_attack_sandbox_nested.py",
        "permissions/test_attack_sandbox_places.py",
        "permissions/test_attack_search.py",
        "permissions/test_search_filter.py",
        "providers/test_httpx_lean.py",
        "session/test_concurrent.py",
        "session/test_kill.py",
        "session/test_lock.py",
        "test_sandbox_support.py",
        "tools/test_bash.py",
        "context/test_compaction_files.py",
        "tools/test_bash_credentials.py",
        "tools/test_bash_sandbox.py",
        "tools/test_background_tasks.py",
        "tools/test_glob.py",
        "tools/test_grep.py",
        "tools/test_read_pdf*.py",  # the PDF child process
        "web/test_web_fetch_ui.py",
        "web/test_web_headless.py",
        "frontends/driver/test_over_http.py",
        "test_models_built_lazily.py",
        "tools/test_lazy_tools.py",
        # The tests of a file that is otherwise in process.
        "agents/test_subagent_checkpoints.py::test_rewind_to_the_prompt_undoes_*",
        "config/test_credentials.py::test_the_binary_takes_its_key_*",
        "engine/test_bad_tool_input.py::test_no_tool_input_breaks_the_turn",
        "engine/test_composition.py::test_one_call_gives_a_front_end_the_whole_session",
        "engine/test_loop_adversarial.py::test_pre_tool_use_refusing_one_of_two_*",
        "engine/test_loop_adversarial.py::test_abort_while_a_pre_tool_use_hook_runs_*",
        "engine/test_loop_adversarial.py::test_abort_while_the_stop_hook_runs_*",
        "engine/test_loop_adversarial.py::test_a_hook_stop_from_an_aborted_turn_*",
        "permissions/test_attack_arithmetic.py::test_a_command_file_line_*_runs_in_headless_mode",
        "permissions/test_attack_hard_links.py::test_a_search_does_not_show_*",
        "permissions/test_attack_sandbox_auto_allow.py::test_end_to_end_*",
        "permissions/test_attack_shell.py::test_end_to_end_*",
        "permissions/test_attack_shell.py::test_the_parser_is_not_loaded_before_*",
        "permissions/test_attack_trust.py::test_7_the_same_clone_trusted_runs_its_hooks_*",
        "permissions/test_attack_trust.py::test_7_the_start_up_git_snapshot_*",
        "permissions/test_attack_trust.py::test_8_a_bash_call_leaves_only_private_files*",
        "permissions/test_attack_trust.py::test_8_the_shells_directory_report_is_private",
        "permissions/test_mcp_server_names.py::test_the_issues_bypass_*",
        "permissions/test_mcp_server_names.py::test_mcp_add_refuses_the_name_*",
        "session/test_rewind_links.py::test_the_command_line_rewind_*",
        "test_compile_cache.py::test_a_second_agentcli_process_*",
        "test_compile_cache.py::test_on_every_supported_python_*",
        "test_compile_cache.py::test_outside_the_supported_range_*",
        "test_compile_cache.py::test_the_switch_*",
        "test_fakeapi.py::test_cli_*",
        "tools/test_ask_user_question.py::test_a_pretooluse_hook_*",
    ),
    "slow": (
        # Hypothesis searches: seconds a test, a fifth of the fast tier in three tests.
        "tools/test_edit_properties.py",
    ),
}

# A test that uses one of these fixtures gets the mark.
BY_FIXTURE: dict[str, str] = {
    "snap_compare": "snapshot",
}

PROCESS_MARKS = ("subprocess", "pty")
PROCESS_EVENTS = frozenset(
    {
        "subprocess.Popen",
        "os.posix_spawn",
        "os.fork",
        "os.forkpty",
        "os.exec",
        "os.system",
        "os.spawn",
    }
)


def _matches(pattern: str, relative: str, name: str) -> bool:
    return (
        fnmatch(f"{relative}::{name}", pattern) if "::" in pattern else fnmatch(relative, pattern)
    )


def marks_for(relative: str, name: str, fixtures: list[str]) -> set[str]:
    """The tier marks of test `name` in `relative` (a path under tests/) using `fixtures`."""
    marks = {
        mark
        for mark, patterns in BY_PATH.items()
        if any(_matches(pattern, relative, name) for pattern in patterns)
    }
    marks.update(mark for fixture, mark in BY_FIXTURE.items() if fixture in fixtures)
    return marks


def mark_tiers(items: list[pytest.Item]) -> None:
    """Add the tier marks to every collected test (before `-m` selects)."""
    for item in items:
        try:
            relative = item.path.resolve().relative_to(TESTS).as_posix()
        except ValueError:
            continue
        name = item.nodeid.partition("::")[2]
        fixtures = list(getattr(item, "fixturenames", ()))
        for mark in sorted(marks_for(relative, name, fixtures)):
            item.add_marker(mark)


# The order tests are handed out in: the costliest tiers first. xdist's worksteal gives
# each worker a run of the collection and lets an idle one take the back of another's
# queue, so a long test that comes last keeps one core busy while the other waits; first,
# it overlaps the many short ones. Within a tier the collection's order (files together).
FIRST_TO_LAST = ("pty", "subprocess", "snapshot", "slow")


def slowest_tiers_first(items: list[pytest.Item]) -> None:
    """Reorder `items` in place: the tiers of FIRST_TO_LAST in that order, the rest last."""

    def rank(item: pytest.Item) -> int:
        for position, mark in enumerate(FIRST_TO_LAST):
            if item.get_closest_marker(mark):
                return position
        return len(FIRST_TO_LAST)

    items.sort(key=rank)  # stable: the collection's order within a tier


def _describe(event: str, args: tuple[Any, ...]) -> str:
    """A short name for what was started: the command line where the event carries one."""
    if event in ("subprocess.Popen", "os.posix_spawn", "os.exec", "os.spawn") and len(args) > 1:
        argv = args[1]
        if isinstance(argv, (list, tuple)):
            return " ".join(str(part) for part in argv)[:120]
        return str(argv)[:120]
    if event == "os.system" and args:
        return str(args[0])[:120]
    return event


@dataclass
class ProcessGuard:
    """Notes the processes started while an unmarked test runs (an audit hook)."""

    every_thread: bool = False
    _watching: bool = False
    _thread: int | None = None
    started: list[str] = field(default_factory=list)

    def install(self) -> None:
        sys.addaudithook(self._audit)

    def _audit(self, event: str, args: tuple[Any, ...]) -> None:
        if not self._watching or event not in PROCESS_EVENTS:
            return
        if self.every_thread or threading.get_ident() == self._thread:
            self.started.append(_describe(event, args))

    def watch(self) -> None:
        self.started = []
        self._thread = threading.get_ident()
        self._watching = True

    def stop(self) -> list[str]:
        self._watching = False
        return self.started


def may_start_processes(item: pytest.Item) -> bool:
    return any(item.get_closest_marker(mark) for mark in PROCESS_MARKS)


def unmarked_message(item: pytest.Item, started: list[str]) -> str:
    shown = "; ".join(dict.fromkeys(started))
    return (
        f"{item.nodeid} starts a process ({shown}) but is not marked `subprocess` or `pty`: "
        "list its file or fixture in tests/support/tiers.py (or mark it), "
        "so `make test-fast` stays free of processes"
    )
