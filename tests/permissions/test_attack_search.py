"""Attacks on the search tools (class 6) and on tool input (class 9).

Class 6: Grep and Glob must honour Read's rules.
With `Read(./private/**)` and `Read(*.pem)` denied and `Read(./docs/**)` asked
about, no search may print what those files hold or list their names, nor the
content of `.env` files (which Read asks about), nor reach outside the project
without the question Read would ask. Each case asserts the permission
decision for the call; the end-to-end cases run the call through the real
engine (scripted model, headless approver) and assert that no secret came out.

Every secret in the fixture contains SECRET_, so "nothing leaked" is one check.

Class 9: whatever the model puts in a tool input, the call ends in an error
result, the run goes on, and nothing is written.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from agentcli.config.rules import Rule, parse_tool_list
from agentcli.engine.events import ToolCallFinished
from agentcli.permissions.policy import PermissionPolicy
from agentcli.permissions.question_models import PermissionAnswer, PermissionRequest
from agentcli.permissions.types import PermissionMode
from agentcli.tools.base import Tool, Workspace
from agentcli.tools.glob import GlobTool
from agentcli.tools.grep import GrepTool
from agentcli.tools.read import ReadTool
from agentcli.tools.registry import builtin_tools
from agentcli.tools.search_scope import SearchScope, rg_error_note, visible_errors
from tests.engine.harness import Answerer, make_engine, of_type, refuse, run_turn
from tests.engine.scripted import Response, ScriptedProvider, text, tool_use

DENY = ("Read(./private/**)", "Read(*.pem)")
ASK = ("Read(./docs/**)",)
SECRET = "SECRET_"


def write(path: Path, content: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)


@pytest.fixture
def project(tmp_path: Path, isolated_home: Path) -> Path:
    root = tmp_path / "project"
    write(root / "src/app.py", "needle in app\n")
    write(root / "src/notes.md", "needle in notes\n")
    write(root / "private/key.txt", "needle SECRET_KEY\n")
    write(root / "private/deep/inner.py", "needle SECRET_DEEP\n")
    write(root / ".env", "needle SECRET_DOTENV\n")
    write(root / "config/.env.local", "needle SECRET_ENVLOCAL\n")
    write(root / "keys/server.pem", "needle SECRET_PEM\n")
    write(root / "docs/guide.md", "needle SECRET_ASKED_DOC\n")
    write(tmp_path / "outside/o.txt", "needle SECRET_OUTSIDE\n")
    write(isolated_home / ".ssh/id_rsa", "needle SECRET_SSH\n")
    (root / "link_private").symlink_to(root / "private")
    (root / "link_out").symlink_to(tmp_path / "outside")
    (root / "src/key_link.txt").symlink_to(root / "private/key.txt")
    return root


def policy_for(
    root: Path,
    mode: PermissionMode = PermissionMode.DEFAULT,
    *,
    allow: tuple[str, ...] = (),
    deny: tuple[str, ...] = DENY,
    ask: tuple[str, ...] = ASK,
) -> PermissionPolicy:
    return PermissionPolicy(
        Workspace(root=root),
        mode,
        allow=parse_tool_list(list(allow), "test", root),
        ask=parse_tool_list(list(ask), "test", root),
        deny=parse_tool_list(list(deny), "test", root),
    )


def decide(root: Path, tool: Tool, **fields: Any) -> str:
    inp = tool.input_model.model_validate(fields)
    return policy_for(root).decide(tool, inp).behavior


async def search(
    root: Path,
    tool_name: str,
    mode: PermissionMode = PermissionMode.DEFAULT,
    *,
    allow: tuple[str, ...] = (),
    deny: tuple[str, ...] = DENY,
    ask: tuple[str, ...] = ASK,
    approver: Answerer = refuse,
    **fields: Any,
) -> ToolCallFinished:
    """One call through the real engine (by default headless: "ask" means refused)."""
    provider = ScriptedProvider(Response([tool_use(tool_name, fields)]), Response([text("ok")]))
    engine = make_engine(
        provider,
        [GrepTool(), GlobTool(), ReadTool()],
        root,
        mode=mode,
        allow=list(allow),
        deny=list(deny),
        ask=list(ask),
    )
    events = await run_turn(engine, "search", approver)
    assert provider.invalid == []
    (finished,) = of_type(events, ToolCallFinished)
    return finished


def output(finished: ToolCallFinished) -> str:
    content = finished.result["content"]
    return content if isinstance(content, str) else str(content)


def assert_nothing_leaked(finished: ToolCallFinished, *, names_only: bool = False) -> str:
    """No secret content; no denied or outside name (nor, for contents, an asked one)."""
    shown = output(finished)
    assert SECRET not in shown, shown
    names = ["key.txt", "inner.py", "server.pem", "o.txt", "id_rsa"]
    for name in names if names_only else [*names, "guide.md"]:
        assert name not in shown, shown
    return shown


# -- 6a. Where a search runs: judged where it actually searches -----------------------


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"pattern": "needle"}, "allow"),
        ({"pattern": "needle", "path": "src"}, "allow"),
        ({"pattern": "needle", "path": "private"}, "deny"),
        ({"pattern": "needle", "path": "private/key.txt"}, "deny"),
        ({"pattern": "needle", "path": "./src/../private"}, "deny"),
        ({"pattern": "needle", "path": "link_private"}, "deny"),  # a symlink to a denied folder
        ({"pattern": "needle", "path": "src/key_link.txt"}, "deny"),  # a symlink to a denied file
        ({"pattern": "needle", "path": "keys/server.pem"}, "deny"),
        ({"pattern": "needle", "path": "docs"}, "ask"),  # an ask rule
        ({"pattern": "needle", "path": ".env"}, "ask"),  # Read asks about .env files
        ({"pattern": "needle", "path": "config/.env.local"}, "ask"),
        ({"pattern": "needle", "path": "link_out"}, "ask"),  # a symlink out of the project
        ({"pattern": "needle", "path": "../outside"}, "ask"),
        ({"pattern": "needle", "path": "~"}, "ask"),
        ({"pattern": "needle", "path": "~/.ssh"}, "ask"),
        ({"pattern": "needle", "path": "/"}, "ask"),
    ],
)
def test_grep_is_judged_at_its_path(project, fields, expected):
    assert decide(project, GrepTool(), **fields) == expected


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"pattern": "**/*"}, "allow"),
        ({"pattern": "*.py", "path": "src"}, "allow"),
        ({"pattern": "*", "path": "private"}, "deny"),
        ({"pattern": "*", "path": "link_private"}, "deny"),
        ({"pattern": "*", "path": "link_out"}, "ask"),
        ({"pattern": "*", "path": "~"}, "ask"),
        ({"pattern": "*", "path": "/etc"}, "ask"),
        ({"pattern": "../*"}, "ask"),
        ({"pattern": "../outside/*"}, "ask"),
        ({"pattern": "../../*"}, "ask"),
        ({"pattern": "./../outside/*"}, "ask"),
        ({"pattern": "src/../../outside/*"}, "ask"),
        ({"pattern": "../*", "path": "src"}, "allow"),  # src/.. is the project root
        ({"pattern": "../../*", "path": "src"}, "ask"),
        ({"pattern": "/etc/*"}, "ask"),  # an absolute pattern searches there
        ({"pattern": "/etc/**/*.conf"}, "ask"),
    ],
)
def test_glob_is_judged_where_pattern_and_path_search(project, fields, expected):
    assert decide(project, GlobTool(), **fields) == expected


def test_glob_absolute_patterns_are_judged_at_their_folder(project, tmp_path):
    assert decide(project, GlobTool(), pattern=f"{tmp_path}/outside/*") == "ask"
    assert decide(project, GlobTool(), pattern=f"{project}/private/*") == "deny"
    assert decide(project, GlobTool(), pattern=f"{project}/link_private/*") == "deny"
    assert decide(project, GlobTool(), pattern=f"{project}/src/*.py") == "allow"


# -- 6b. Grep over the project never prints what Read may not read --------------------


@pytest.mark.parametrize("mode", ["files_with_matches", "content", "count"])
async def test_grep_over_the_root_withholds_denied_asked_and_secret_files(project, mode):
    finished = await search(project, "Grep", pattern="needle", output_mode=mode)

    shown = assert_nothing_leaked(finished)
    assert not finished.is_error
    assert "src/app.py" in shown and ".env" not in shown


async def test_grep_content_with_context_lines_withholds_them(project):
    finished = await search(project, "Grep", pattern="needle", output_mode="content", **{"-C": 3})

    shown = assert_nothing_leaked(finished)
    assert "src/app.py:1:needle in app" in shown


async def test_grep_without_line_numbers_withholds_too(project):
    finished = await search(
        project, "Grep", pattern="needle", output_mode="content", **{"-n": False, "-A": 1}
    )

    shown = assert_nothing_leaked(finished)
    assert "src/app.py:needle in app" in shown


@pytest.mark.parametrize(
    "extra",
    [
        {"glob": "private/**"},
        {"glob": "**/*.pem"},
        {"glob": "{private,keys}/**"},
        {"glob": ".env*"},
        {"glob": "../outside/*"},
        {"glob": "link_private/*"},
        {"type": "py"},
        {"multiline": True},
        {"-i": True},
    ],
)
async def test_grep_filters_and_flags_cannot_reach_withheld_files(project, extra):
    finished = await search(project, "Grep", pattern="needle", output_mode="content", **extra)

    assert_nothing_leaked(finished)


async def test_grep_for_the_secret_itself_finds_nothing(project):
    finished = await search(project, "Grep", pattern="SECRET_[A-Z]+", output_mode="content")

    assert output(finished).startswith("No matches found")


async def test_grep_does_not_follow_symlinks_out_of_the_search(project):
    finished = await search(project, "Grep", pattern="needle", path="src")

    assert_nothing_leaked(finished)


@pytest.mark.parametrize("mode", ["files_with_matches", "content", "count"])
async def test_a_symlinked_path_is_judged_where_its_files_really_are(project, mode):
    # Only the one file is denied, so searching its folder through a link is allowed;
    # rg's glob for the rule cannot see through the link: the filter must.
    (project / "alias").symlink_to(project / "private")

    finished = await search(
        project,
        "Grep",
        pattern="needle",
        path="alias",
        output_mode=mode,
        deny=("Read(./private/key.txt)",),
    )

    assert not finished.is_error
    assert "SECRET_KEY" not in output(finished)
    assert not any(line.startswith("alias/key.txt") for line in output(finished).splitlines())
    assert any(line.startswith("alias/deep/inner.py") for line in output(finished).splitlines())


async def test_grep_path_refused_in_headless_runs_prints_nothing(project):
    for path in ("private", "link_private", "link_out", "../outside", "~/.ssh", ".env"):
        finished = await search(project, "Grep", pattern="needle", path=path)
        assert finished.is_error
        assert_nothing_leaked(finished)


async def test_a_denied_file_whose_name_holds_a_newline_stays_hidden(project):
    write(project / "private/odd\nname.txt", "needle SECRET_NEWLINE\n")
    write(project / "src/line\nbreak.txt", "needle SECRET_NEWLINE_NAME\n")

    for mode in ("files_with_matches", "content", "count"):
        finished = await search(project, "Grep", pattern="needle", output_mode=mode)
        assert_nothing_leaked(finished)


@pytest.mark.parametrize("numbers", [True, False])
async def test_a_path_with_colons_and_dashes_is_judged_as_itself(project, numbers):
    # A class in the rule keeps it out of rg's globs: the filter alone must read the path.
    write(project / "odd:1-name.txt", "needle SECRET_ODD\nmore\n")
    write(project / "ok:2-name.txt", "needle visible\nmore\n")

    finished = await search(
        project,
        "Grep",
        pattern="needle",
        output_mode="content",
        deny=("Read(./odd:[1]-name.txt)",),
        **{"-n": numbers, "-A": 1},
    )

    shown = output(finished)
    assert "SECRET_ODD" not in shown
    expected = "ok:2-name.txt:1:needle visible" if numbers else "ok:2-name.txt:needle visible"
    assert expected in shown.splitlines()


async def test_paging_counts_only_what_is_shown(project):
    # .env and config/.env.local sort before src/: withheld lines must not use up the page.
    first = await search(
        project, "Grep", pattern="needle", output_mode="content", head_limit=1, **{"-n": False}
    )
    second = await search(
        project,
        "Grep",
        pattern="needle",
        output_mode="content",
        head_limit=1,
        offset=1,
        **{"-n": False},
    )

    assert output(first).splitlines()[0] == "src/app.py:needle in app"
    assert output(second).splitlines()[0] == "src/notes.md:needle in notes"


# -- 6c. Glob never lists a denied name ------------------------------------------------


@pytest.mark.parametrize(
    "fields",
    [
        {"pattern": "**/*"},
        {"pattern": "*"},
        {"pattern": "**/key.txt"},
        {"pattern": "private/*"},
        {"pattern": "private/**"},
        {"pattern": "**/*.pem"},
        {"pattern": "link_private/*"},  # a symlinked folder is not entered
        {"pattern": "link_out/*"},
        {"pattern": "**/../../*"},  # ".." inside a glob matches nothing it walks
        {"pattern": "{src,../outside}/*"},
        {"pattern": "~/.ssh/*"},  # "~" is a folder name here, not the home folder
        {"pattern": "/private/*"},  # anchored to the search folder
        {"pattern": "*", "path": "src"},
    ],
)
async def test_glob_lists_no_denied_or_outside_name(project, fields):
    finished = await search(project, "Glob", **fields)

    assert not finished.is_error
    assert_nothing_leaked(finished, names_only=True)
    assert not any(line.startswith("private/") for line in output(finished).splitlines())


async def test_glob_lists_names_read_only_asks_about(project):
    # Names are not contents: .env and docs/ (an ask rule) are listed, never read.
    finished = await search(project, "Glob", pattern="**/*")

    shown = output(finished).splitlines()
    assert ".env" in shown and "config/.env.local" in shown and "docs/guide.md" in shown
    assert "src/app.py" in shown


async def test_glob_outside_is_refused_in_headless_runs(project, tmp_path):
    for fields in (
        {"pattern": "../outside/*"},
        {"pattern": f"{tmp_path}/outside/*"},
        {"pattern": "*", "path": "link_out"},
        {"pattern": "*", "path": "~/.ssh"},
    ):
        finished = await search(project, "Glob", **fields)
        assert finished.is_error, fields
        assert_nothing_leaked(finished)


# -- 6d. Rules that open up, rules that close --------------------------------------------


async def test_an_exact_allow_rule_lets_grep_show_that_env_file(project):
    finished = await search(
        project, "Grep", pattern="needle", output_mode="content", allow=("Read(./.env)",)
    )

    shown = output(finished)
    assert "SECRET_DOTENV" in shown
    assert "SECRET_ENVLOCAL" not in shown and "SECRET_KEY" not in shown


async def test_bypass_mode_shows_env_files_but_deny_rules_still_hold(project):
    finished = await search(
        project, "Grep", PermissionMode.BYPASS, pattern="needle", output_mode="content"
    )

    shown = output(finished)
    assert "SECRET_DOTENV" in shown and "SECRET_ASKED_DOC" in shown  # no asking in bypass
    assert "SECRET_KEY" not in shown and "SECRET_DEEP" not in shown and "SECRET_PEM" not in shown


async def test_a_grep_deny_rule_keeps_grep_out_but_not_read(project):
    finished = await search(
        project, "Grep", pattern="needle", output_mode="content", deny=("Grep(./src/**)",), ask=()
    )

    assert "src/app.py" not in output(finished)


def test_a_session_answer_counts_from_the_next_call(project):
    policy = policy_for(project)
    env = str(project / ".env")
    assert policy.search_filter("Grep").hides(env, env)

    policy.add_session_rule(Rule("Read", "//" + env.lstrip("/"), base=project))

    assert not policy.search_filter("Grep").hides(env, env)


async def yes(request: PermissionRequest) -> PermissionAnswer:
    return PermissionAnswer(allow=True)


@pytest.mark.parametrize(
    ("path", "secret"), [("docs", "SECRET_ASKED_DOC"), (".env", "SECRET_DOTENV")]
)
async def test_a_search_the_person_allowed_shows_what_they_were_asked_about(project, path, secret):
    finished = await search(
        project, "Grep", pattern="needle", path=path, output_mode="content", approver=yes
    )

    assert secret in output(finished)


async def test_an_allowed_search_still_hides_what_the_question_was_not_about(
    project, isolated_home
):
    write(isolated_home / "notes.txt", "needle in home\n")
    write(project / "docs/.env", "needle SECRET_DOCS_ENV\n")

    outside = await search(
        project, "Grep", pattern="needle", path="~", output_mode="content", approver=yes
    )
    docs = await search(
        project, "Grep", pattern="needle", path="docs", output_mode="content", approver=yes
    )

    assert "needle in home" in output(outside) and "SECRET_SSH" not in output(outside)
    assert "SECRET_ASKED_DOC" in output(docs) and "SECRET_DOCS_ENV" not in output(docs)


async def test_grep_over_home_hides_ssh_even_when_home_is_allowed(project, isolated_home):
    write(isolated_home / "notes.txt", "needle in home\n")
    finished = await search(
        project, "Grep", pattern="needle", path="~", output_mode="content", allow=("Grep(~/**)",)
    )

    shown = output(finished)
    assert "needle in home" in shown
    assert "SECRET_SSH" not in shown


# -- 6e. What the result says about withheld files ------------------------------------


async def test_the_result_names_the_rule_that_kept_files_out(project):
    finished = await search(project, "Grep", pattern="needle")

    assert "Read(./private/**)" in output(finished)
    assert "Read(*.pem)" in output(finished)


async def test_the_note_never_depends_on_what_withheld_files_hold(project):
    # A note that appeared only when a withheld file matched would let a model read
    # a denied file one regular expression at a time.
    hit = await search(project, "Grep", pattern="SECRET_KEY")
    miss = await search(project, "Grep", pattern="no-such-text-anywhere")

    assert output(hit) == output(miss)


async def test_no_note_for_a_search_the_rules_do_not_reach(project):
    finished = await search(
        project, "Grep", pattern="needle", path="src", deny=("Read(./private/**)",)
    )

    assert "Read(" not in output(finished)


def test_rg_errors_about_withheld_paths_are_not_shown(project):
    scope = SearchScope(project, project, policy_for(project).search_filter("Grep"))

    hidden = rg_error_note(
        visible_errors("rg: ./private/key.txt: Permission denied\n", scope.shows)
    )
    shown = rg_error_note(visible_errors("rg: ./src/app.py: Permission denied\n", scope.shows))

    assert "key.txt" not in hidden and "could not be searched" in hidden
    assert "src/app.py: Permission denied" in shown


# -- 6f. The filter agrees with Read's own decision ---------------------------------------


@pytest.mark.parametrize(
    "rel",
    [
        "src/app.py",
        "private/key.txt",
        "private/deep/inner.py",
        ".env",
        "config/.env.local",
        "keys/server.pem",
        "docs/guide.md",
        "src/key_link.txt",
        "link_private/key.txt",
    ],
)
def test_search_filter_agrees_with_read(project, rel):
    policy = policy_for(project)
    path = project / rel
    read = policy.decide(ReadTool(), ReadTool.input_model(file_path=str(path))).behavior
    real = os.path.realpath(path)

    assert policy.search_filter("Grep").hides(str(path), real) == (read != "allow")


# -- 9. Input meant to break the run: an error result, and nothing happens on disk -------------
# In bypassPermissions mode, so no permission question stands between the input and the tool.

PWNED = "pwned"


@pytest.mark.parametrize(
    ("tool_name", "inp"),
    [
        ("Write", {"file_path": "pwned\x00.txt", "content": "x"}),
        ("Write", {"file_path": "pwned\ud800", "content": "x"}),
        ("Write", {"file_path": "pwned.txt", "content": "half a pair: \udc00"}),
        ("Write", {"file_path": "pwned/" + "d" * 5000, "content": "x"}),
        ("Write", ["pwned.txt", "x"]),
        ("Write", "pwned.txt"),
        ("Edit", {"file_path": "pwned\x00", "old_string": "", "new_string": "x"}),
        ("Edit", {"file_path": "pwned", "old_string": "", "new_string": "\ud800"}),
        ("Bash", {"command": "touch pwned\x00"}),
        ("Bash", {"command": "touch pwned # \ud800"}),
        ("Bash", {"command": "touch pwned # " + "x" * 200_000}),
        ("Bash", {"command": "touch pwned", "timeout": 10**30}),
        ("Bash", {"command": ["touch", "pwned"]}),
        ("Bash", {"command": "touch pwned", "extra": True}),
        ("Glob", {"pattern": "*\x00", "path": "."}),
        ("Grep", {"pattern": "needle", "path": "\x00"}),
        ("Grep", {"pattern": "needle", "glob": "\ud800"}),
        ("Read", {"file_path": "src/app.py\x00../../private/key.txt"}),
        ("Read", {"file_path": {"nested": {"deeper": ["src/app.py"]}}}),
        ("Read", {"file_path": "src/app.py", "offset": -1}),
    ],
)
async def test_input_that_would_break_the_run_is_an_error_result(project, tool_name, inp):
    provider = ScriptedProvider(Response([tool_use(tool_name, inp)]), Response([text("ok")]))
    engine = make_engine(provider, list(builtin_tools()), project, mode=PermissionMode.BYPASS)

    events = await run_turn(engine, "go")

    assert provider.invalid == []
    (finished,) = of_type(events, ToolCallFinished)
    assert finished.is_error
    assert SECRET not in output(finished)
    assert not any(PWNED in path.name for path in project.rglob("*"))
