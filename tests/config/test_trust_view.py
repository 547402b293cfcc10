"""`agentcli config` and /status say when a folder is not trusted, and what that withholds."""

from __future__ import annotations

import json

from agentcli.cli.main import config_command
from agentcli.commands.settings_report import settings_files_lines
from agentcli.config.settings import load_settings
from agentcli.config.trust import remember


def _cloned(project):
    (project / ".agentcli").mkdir()
    settings = {"env": {"X": "1"}, "permissions": {"deny": ["Bash(rm:*)"]}}
    (project / ".agentcli" / "settings.json").write_text(json.dumps(settings))


def test_config_shows_an_untrusted_folder_as_the_app_would(tmp_path, monkeypatch, capsys):
    _cloned(tmp_path)
    monkeypatch.chdir(tmp_path)
    config_command([])
    shown = capsys.readouterr().out
    assert "[loaded, folder not trusted]" in shown
    assert "This folder is not trusted" in shown and "env: X=1" in shown
    assert "agentcli -p trusts it" in shown
    assert "Bash(rm:*)  (project)" in shown and "X = " not in shown

    remember(tmp_path, True)
    config_command([])
    trusted = capsys.readouterr().out
    assert "not trusted" not in trusted and 'X = "1"  (project)' in trusted


def test_status_marks_the_files_of_an_untrusted_folder(tmp_path):
    _cloned(tmp_path)
    lines = settings_files_lines(load_settings(tmp_path, trusted=False))
    project, local = (
        next(x for x in lines if x.startswith(f"  - {n} `")) for n in ("project", "local")
    )
    assert "loaded (folder not trusted: only its deny and ask rules apply; /trust to review)" in (
        project
    )
    assert local.endswith("not found")
