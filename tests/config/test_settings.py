"""Settings: merge order, provenance, and every kind of bad file."""

from __future__ import annotations

import json
import os
import stat
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


def _layer(settings, name):
    return next(layer for layer in settings.layers if layer.name == name)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"model": "x",\n  "theme": }', "line 2, column 12"),
        ("[1, 2]", "expected a JSON object"),
    ],
)
def test_a_file_that_is_not_a_json_object_is_skipped_while_others_load(files, content, expected):
    project, user, _shared, local = files
    _write(user, {"model": "from-user"})
    _write(local, content)
    settings = load_settings(project)
    (problem,) = settings.problems
    assert str(local) in problem and expected in problem and "skipped" in problem
    assert settings.model.value == "from-user"
    assert [_layer(settings, n).status for n in ("user", "project", "local")] == [
        "loaded",
        "not found",
        "skipped",
    ]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ({"modle": "x"}, "unknown key 'modle' (line 1, column 2)"),
        ({"model": 3}, "model (line 1, column 2): Input should be a valid string"),
        ({"permissions": {"allow": 3}}, "permissions.allow (line 1, column 18): Input should be"),
        ({"permissions": {"defaultMode": "yolo"}}, "permissions.defaultMode"),
        ({"permissions": {"allow": ["Bash(oops"]}}, "not a permission rule"),
        ({"permissions": {"alow": []}}, "unknown key 'permissions.alow'"),
        ({"env": {"A": 1}}, "env.A (line 1, column 10): Input should be a valid string"),
        ({"hooks": {"PreToolUs": []}}, "unknown hook event 'PreToolUs'"),
        ({"hooks": {"Stop": [{"hooks": [{"command": "x", "timeout": -1}]}]}}, "timeout"),
        ({"hooks": {"Stop": [{"matcher": "(", "hooks": []}]}}, "not a valid regular expression"),
    ],
)
def test_a_bad_key_is_reported_and_ignored_while_the_rest_of_its_file_applies(
    files, content, expected
):
    project, user, _shared, local = files
    _write(user, {"model": "from-user"})
    _write(local, {**content, "theme": "from-local"})
    settings = load_settings(project)
    (problem,) = settings.problems
    assert problem.startswith(f"{local}: ") and expected in problem and "ignored" in problem
    assert (settings.model.value, settings.theme.value) == ("from-user", "from-local")
    assert _layer(settings, "local").status == "loaded"


def test_a_typo_leaves_the_rest_of_the_file_in_force(files):
    project, _, shared, _ = files
    guard = {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}
    _write(
        shared,
        {
            "permissions": {"deny": ["Bash(rm:*)"], "ask": "Bash(git push:*)", "allow": ["Bash"]},
            "hooks": {"PreToolUse": [guard]},
            "typo": True,
        },
    )
    settings = load_settings(project)
    assert settings.problems == [f"{shared}: unknown key 'typo' (line 1, column 194); ignored"]
    assert settings.uncertain == []
    assert [str(r) for r in settings.rules("deny")] == ["Bash(rm:*)"]
    assert [str(r) for r in settings.rules("ask")] == ["Bash(git push:*)"]
    assert [str(r) for r in settings.rules("allow")] == ["Bash"]
    assert [h.command for h in settings.hooks.PreToolUse[0].hooks] == ["./guard.sh"]


@pytest.mark.parametrize(
    ("lower", "skipped", "expected"),
    [
        ("acceptEdits", "default", "default"),  # the unreadable block asked for more care
        ("default", "plan", "plan"),
        ("default", "bypassPermissions", "default"),  # looser: not taken from such a block
        (None, "acceptEdits", None),
    ],
)
def test_permissions_with_unreadable_deny_rules_keep_their_mode_only_when_stricter(
    files, lower, skipped, expected
):
    project, user, _, local = files
    if lower:
        _write(user, {"permissions": {"defaultMode": lower}})
    _write(local, {"permissions": {"deny": [3], "defaultMode": skipped}})
    settings = load_settings(project)
    assert (settings.default_mode.value if settings.default_mode else None) == expected


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("allow", "Bash(npm test:*)"),
        ("ask", "Bash(git push:*)"),
        ("deny", "Bash(rm:*)"),
    ],
)
def test_a_single_rule_string_is_a_one_rule_list(files, key, value):
    project, _, shared, _ = files
    _write(shared, {"permissions": {key: value}})
    settings = load_settings(project)
    assert settings.problems == [] and settings.uncertain == []
    assert [(str(r), source) for r, source in getattr(settings, key)] == [(value, "project")]


def test_a_single_folder_string_is_a_one_folder_list(files):
    project, _, shared, _ = files
    _write(shared, {"permissions": {"additionalDirectories": "../lib"}})
    settings = load_settings(project)
    assert settings.additional_dirs == [((project / "../lib").resolve(), "project")]


def test_a_utf8_bom_is_accepted(files):
    project, _, shared, _ = files
    shared.parent.mkdir(parents=True)
    shared.write_bytes(b"\xef\xbb\xbf" + b'{"model": "m",\n "permissions": {"deny": ["Read"]}}')
    settings = load_settings(project)
    assert settings.problems == [] and settings.model.value == "m"
    assert read_json_object(shared) == {"model": "m", "permissions": {"deny": ["Read"]}}


def test_a_bom_does_not_shift_the_column_of_an_error(files):
    project, _, shared, _ = files
    shared.parent.mkdir(parents=True)
    shared.write_bytes(b"\xef\xbb\xbf" + b'{"thme": "x"}')
    (problem,) = load_settings(project).problems
    assert "unknown key 'thme' (line 1, column 2)" in problem


def test_validation_errors_name_the_line_and_column_of_the_key(files):
    project, _, shared, _ = files
    text = '{\n  "deny": 1,\n  "permissions": {\n    "deny": ["Read"],\n    "alow": []\n  }\n}'
    _write(shared, text)
    deny, alow = load_settings(project).problems
    assert "unknown key 'deny' (line 2, column 3)" in deny
    assert "unknown key 'permissions.alow' (line 5, column 5)" in alow


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ('{"permissions": {"deny": ["Bash(rm:*)"],}}', "invalid JSON at line 1, column 41"),
        (b'{"permissions": {"deny": ["\xff"]}}', "cannot read: not UTF-8 text"),
        ('["Bash(rm:*)"]', "expected a JSON object"),
        ({"permissions": ["deny", "Bash(rm:*)"]}, "permissions (line 1, column 2)"),
        ({"permissions": {"deny": "Bash(rm"}}, "not a permission rule"),
        ({"permissions": {"deny": [3]}}, "permissions.deny.0"),
        ({"permissions": {"ask": {"Bash": "rm"}}}, "permissions.ask"),
    ],
)
def test_a_file_whose_deny_or_ask_rules_cannot_be_read_makes_protection_uncertain(
    files, content, why
):
    project, user, shared, _ = files
    _write(user, {"permissions": {"deny": ["Read(./.env)"]}})
    if isinstance(content, bytes):
        shared.parent.mkdir(parents=True)
        shared.write_bytes(content)
    else:
        _write(shared, content)
    settings = load_settings(project)
    (uncertain,) = settings.uncertain
    assert uncertain == f"the deny and ask rules in {shared} could not be read"
    assert why in settings.problems[0]
    assert [layer.name for layer in settings.layers if layer.uncertain] == ["project"]
    assert [str(r) for r in settings.rules("deny")] == ["Read(./.env)"]  # the others still hold


def test_a_folder_where_a_settings_file_should_be_makes_protection_uncertain(files):
    project, _, _, local = files
    local.mkdir(parents=True)
    settings = load_settings(project)
    assert settings.uncertain and "cannot read: Is a directory" in _layer(settings, "local").problem


def test_a_broken_allow_list_is_dropped_without_uncertainty(files):
    project, _, shared, _ = files
    _write(shared, {"permissions": {"allow": ["Bash(oops"], "deny": ["Bash(rm:*)"]}})
    settings = load_settings(project)
    assert settings.problems and settings.uncertain == []
    assert [str(r) for r in settings.rules("deny")] == ["Bash(rm:*)"]


def test_an_unreadable_disallowed_tools_flag_makes_protection_uncertain(files):
    project, *_ = files
    settings = load_settings(project, CliSettings(disallowed_tools=["Bash(rm"]))
    assert settings.uncertain == ["the --disallowedTools rules could not be read"]
    assert "not a permission rule" in settings.problems[0]
    bad_allow = load_settings(project, CliSettings(allowed_tools=["Bash(rm"]))
    assert bad_allow.problems and bad_allow.uncertain == []


def test_layers_say_what_was_ignored_and_why_they_were_skipped(files):
    project, user, shared, _ = files
    _write(user, {"thme": "x"})
    _write(shared, "{oops")
    settings = load_settings(project)
    user_layer, project_layer, local_layer = (
        _layer(settings, n) for n in ("user", "project", "local")
    )
    assert user_layer.status == "loaded" and user_layer.problem is None
    assert user_layer.notices == ["unknown key 'thme' (line 1, column 2)"]
    assert project_layer.problem.startswith("invalid JSON at line 1, column 2")
    assert str(shared) not in project_layer.problem  # the layer knows its own path
    assert (local_layer.status, local_layer.problem) == ("not found", None)


def test_config_output_names_sources_and_problems(files):
    project, user, shared, local = files
    _write(user, {"model": "u"})
    _write(shared, {"permissions": {"deny": ["Bash(curl:*)"]}})
    _write(local, "{oops")
    text = render_settings(load_settings(project))
    assert 'model = "u"  (user)' in text
    assert "Bash(curl:*)  (project)" in text
    assert "settings.local.json" in text and "[skipped]" in text
    assert "Protection uncertain" in text and "every tool call asks" in text


def test_config_output_names_the_ignored_key_and_what_the_file_still_gives(files):
    project, _, shared, _ = files
    _write(shared, {"permissions": {"deny": "Bash(rm:*)", "defaultMode": "plan"}, "x": 1})
    text = render_settings(load_settings(project))
    assert "Bash(rm:*)  (project)" in text
    assert 'permissions.defaultMode = "plan"  (project)' in text
    assert f"! {shared}: unknown key 'x' (line 1, column 64); ignored" in text
    assert "gives permissions.defaultMode, permissions.deny (1)" in text
    assert "Protection uncertain" not in text


def test_json_store_keeps_other_keys_and_creates_folders(tmp_path):
    path = tmp_path / "a" / "b" / "settings.json"
    update_json_object(path, lambda d: d.update(theme="light"))
    update_json_object(path, lambda d: d.update(model="m"))
    assert read_json_object(path) == {"theme": "light", "model": "m"}
    assert [p.name for p in path.parent.iterdir()] == ["settings.json"]  # no temp files left


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o600])
def test_json_store_keeps_the_mode_of_an_existing_file(tmp_path, mode):
    """A project's settings file shared at 0644 stays 0644 (and a stricter one stricter)."""
    path = tmp_path / "settings.json"
    path.write_text('{"theme": "dark"}')
    path.chmod(mode)
    update_json_object(path, lambda d: d.update(model="m"))
    assert stat.S_IMODE(path.stat().st_mode) == mode
    assert read_json_object(path) == {"theme": "dark", "model": "m"}


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


def test_json_store_accepts_a_bom_and_writes_without_one(tmp_path):
    path = tmp_path / "settings.json"
    path.write_bytes(b'\xef\xbb\xbf{"theme": "dark"}')
    update_json_object(path, lambda d: d.update(model="m"))
    assert path.read_bytes().startswith(b"{")
    assert read_json_object(path) == {"theme": "dark", "model": "m"}
