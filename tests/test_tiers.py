"""The tiers of the suite (tests/support/tiers.py): where marks come from, and the check
that a test starting a process carries a process mark."""

from __future__ import annotations

import subprocess
import threading

import pytest

from tests.support import tiers


def test_a_folder_a_file_a_test_name_and_a_fixture_each_give_their_mark():
    assert tiers.marks_for("integration/test_headless_cli.py", "test_x", []) == {"subprocess"}
    # The app's tests start ripgrep, so a pty test there is a process test too.
    assert tiers.marks_for("frontends/tui/test_pty_rewind.py", "test_x", []) == {
        "pty",
        "subprocess",
    }
    shell = "permissions/test_attack_shell.py"
    assert tiers.marks_for(shell, "test_end_to_end_nothing_happens[rm x]", []) == {"subprocess"}
    assert tiers.marks_for(shell, "test_the_parser_says_ask[rm x]", []) == set()
    assert tiers.marks_for("web/test_x.py", "test_y", ["snap_compare"]) == {"snapshot"}
    assert tiers.marks_for("tools/test_edit_properties.py", "test_y", []) == {"slow"}
    assert tiers.marks_for("tools/test_read.py", "test_reads", ["tmp_path"]) == set()


def test_a_name_pattern_does_not_reach_another_file():
    assert tiers.marks_for("permissions/test_attack_shell2.py", "test_end_to_end_x", []) == set()


def test_every_mark_the_tiers_give_is_registered(pytestconfig):
    registered = {line.split(":")[0] for line in pytestconfig.getini("markers")}
    given = set(tiers.BY_PATH) | set(tiers.BY_FIXTURE.values())
    assert given <= registered
    assert set(tiers.PROCESS_MARKS) <= registered


@pytest.mark.subprocess
def test_the_check_names_the_command_the_tests_thread_starts():
    guard = tiers.ProcessGuard()
    guard.install()
    guard.watch()
    subprocess.run(["true", "--from-the-test"], check=True)
    assert guard.stop() == ["true --from-the-test"]
    subprocess.run(["true", "--after"], check=True)  # no longer watching
    assert guard.started == ["true --from-the-test"]


@pytest.mark.subprocess
def test_another_threads_process_counts_only_where_every_thread_is_watched():
    def start() -> None:
        subprocess.run(["true", "--from-a-thread"], check=True)

    for every_thread, expected in ((False, []), (True, ["true --from-a-thread"])):
        guard = tiers.ProcessGuard(every_thread=every_thread)
        guard.install()
        guard.watch()
        thread = threading.Thread(target=start)
        thread.start()
        thread.join()
        assert guard.stop() == expected
