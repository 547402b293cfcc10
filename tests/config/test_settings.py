"""Settings: merge order, provenance, and every kind of bad file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agentcli.config.json_store import JsonStoreError, read_json_object, update_json_object
from agentcli.config.settings import CliSettings, load_settings
from agentcli.config.show import render_settings


def _write(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))


@pytest.fixture
def files(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    user = Path(os.environ["AGENTCLI_HOME"]) / "settings.json"
    return (
        project,
        user,
        project / ".agentcli/settings.json",
        project / ".agentcli/settings.local.json",
    )


def test_merge_order_lists_add_up_scalars_override(files):
    project, user, shared, local = files
    _write(
        user,
        {
            "model": "u",
            "theme": "dark",
            "permissions": {"allow": ["Read"]},
            "env": {"A": "1", "B": "1"},
        },
    )
    _write(
        shared,
        {"model": "p", "permissions": {"allow": ["Bash(npm test:*)"], "deny": ["Bash(rm:*)"]}},
    )
    _write(local, {"model": "l", "env": {"B": "2"}, "permissions": {"defaultMode": "acceptEdits"}})
    settings = load_settings(project, CliSettings(allowed_tools=["Edit"], permission_mode="plan"))
    assert settings.problems == []
    assert (settings.model.value, settings.model.source) == ("l", "local")
    assert (settings.theme.value, settings.theme.source) == ("dark", "user")
    assert (settings.default_mode.value, settings.default_mode.source) == ("plan", "command line")
    assert [str(r) for r in settings.rules("allow")] == ["Read", "Bash(npm test:*)", "Edit"]
    assert [s for _, s in settings.allow] == ["user", "project", "command line"]
    assert settings.env_values() == {"A": "1", "B": "2"}
    assert settings.env["B"].source == "local"


def test_relative_rules_and_folders_are_taken_from_the_project(files):
    project, _, shared, _ = files
    _write(
        shared, {"permissions": {"allow": ["Edit(./src/**)"], "additionalDirectories": ["../lib"]}}
    )
    settings = load_settings(project)
    assert settings.rules("allow")[0].base == project.resolve()
    assert settings.additional_dirs == [((project / "../lib").resolve(), "project")]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"model": "x",\n  "theme": }', "line 2, column 12"),
        ("[1, 2]", "expected a JSON object"),
        ({"modle": "x"}, "unknown key 'modle'"),
        ({"model": 3}, "model: Input should be a valid string"),
        ({"permissions": {"allow": "Read"}}, "permissions.allow: Input should be a valid list"),
        ({"permissions": {"defaultMode": "yolo"}}, "permissions.defaultMode"),
        ({"permissions": {"allow": ["Bash(oops"]}}, "not a permission rule"),
        ({"permissions": {"alow": []}}, "unknown key 'permissions.alow'"),
        ({"env": {"A": 1}}, "env.A: Input should be a valid string"),
        ({"hooks": {"PreToolUs": []}}, "unknown key 'hooks.PreToolUs'"),
        ({"hooks": {"Stop": [{"hooks": [{"command": "x", "timeout": -1}]}]}}, "timeout"),
        ({"hooks": {"Stop": [{"matcher": "(", "hooks": []}]}}, "not a valid regular expression"),
    ],
)
def test_a_bad_file_is_reported_and_skipped_while_others_load(files, content, expected):
    project, user, _shared, local = files
    _write(user, {"model": "from-user"})
    _write(local, content)
    settings = load_settings(project)
    (problem,) = settings.problems
    assert str(local) in problem and expected in problem and "skipped" in problem
    assert settings.model.value == "from-user"
    assert [layer.status for layer in settings.layers] == ["loaded", "not found", "skipped"]


def test_deny_rules_of_a_skipped_file_still_hold(files):
    project, _, shared, _ = files
    _write(shared, {"permissions": {"deny": ["Bash(rm:*)"]}, "typo": True})
    settings = load_settings(project)
    assert settings.problems and [str(r) for r in settings.rules("deny")] == ["Bash(rm:*)"]


def test_config_output_names_sources_and_problems(files):
    project, user, shared, local = files
    _write(user, {"model": "u"})
    _write(shared, {"permissions": {"deny": ["Bash(curl:*)"]}})
    _write(local, "{oops")
    text = render_settings(load_settings(project))
    assert 'model = "u"  (user)' in text
    assert "Bash(curl:*)  (project)" in text
    assert "settings.local.json" in text and "[skipped]" in text


def test_json_store_keeps_other_keys_and_creates_folders(tmp_path):
    path = tmp_path / "a" / "b" / "settings.json"
    update_json_object(path, lambda d: d.update(theme="light"))
    update_json_object(path, lambda d: d.update(model="m"))
    assert read_json_object(path) == {"theme": "light", "model": "m"}
    assert [p.name for p in path.parent.iterdir()] == ["settings.json"]  # no temp files left


def test_json_store_refuses_to_overwrite_a_broken_file(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text('{"theme": "dark",')
    with pytest.raises(JsonStoreError, match="line 1"):
        update_json_object(path, lambda d: d.update(theme="light"))
    assert path.read_text() == '{"theme": "dark",'


def test_json_store_a_failing_mutation_changes_nothing(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text('{"theme": "dark"}')

    def boom(data):
        data["theme"] = "x"
        raise RuntimeError("no")

    with pytest.raises(RuntimeError):
        update_json_object(path, boom)
    assert json.loads(path.read_text()) == {"theme": "dark"}
