"""Inside the sandbox, what a Read deny rule or the always-protected list covers reads nothing.

The rules judge the command line; these commands read the protected files by
ways no parser follows (a program's own `open()`, a name put together at run
time, a search, an archive, a link, a rename) and still get nothing,
because the sandbox masks those files when each command starts: a file
reads as nothing ("Permission denied"), a folder as empty and read-only.

Covered: `Read(...)` deny rules of the settings (project and user) and of
`--disallowedTools` (all reach the policy's deny list, which the sandbox
follows), and the always-protected `.env*` files in the writable folders.
Every command runs in bypassPermissions mode, as a hostile model's would
with auto-allow: the rules are not what stops them.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from agentcli.config.rules import Rule, parse_tool_list
from agentcli.core.abort import AbortSignal
from agentcli.permissions.policy import PermissionPolicy
from agentcli.permissions.types import PermissionMode
from agentcli.sandbox import survey
from agentcli.tools.base import ToolContext, ToolError
from agentcli.tools.bash import BashInput, BashTool
from tests.permissions.sandbox_scene import (
    PY,
    SECRET,
    Scene,
    run_allowed,
)

PROTECTED = {
    ".env": "the always-protected list: secrets",
    "app/.env.local": "the always-protected list, in a subfolder",
    "private/key": "Read(./private/**), a folder",
    "config/db.secret": "Read(**/*.secret), a glob at any depth",
    "deep/a/b/c/api.secret": "the same glob, deeper",
    "notes/diary.txt": "Read(notes/diary.txt), one file (from --disallowedTools)",
}


@pytest.fixture
def secrets(scene: Scene) -> Scene:
    for name in PROTECTED:
        path = scene.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{SECRET} in {name}\n")
    (scene.root / "app/readme.txt").write_text("readable\n")
    (scene.home / "vault").mkdir()
    (scene.home / "vault/pw.txt").write_text(f"{SECRET} in the vault\n")
    scene.deny("Read(./private/**)", "Read(**/*.secret)")
    scene.deny("Read(~/vault/**)", base=scene.home)  # the person's own settings
    scene.policy.deny.append(Rule.parse("Read(notes/diary.txt)", "command line", scene.root))
    return scene


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


async def run_program(scene: Scene, script: str) -> str:
    """A program the model wrote (a file the rules cannot see into), then ran with Bash."""
    (scene.root / "attack.sh").write_text(script + "\n")
    return await run_allowed(scene, "bash attack.sh")


@dataclass(frozen=True)
class Read:
    id: str
    script: Callable[[Scene], str]


READS = [
    Read("python-open", lambda s: _python_reads([*PROTECTED, f"{s.home}/vault/pw.txt"])),
    Read(
        "name-built-at-run-time",
        lambda s: "\n".join(f'cat "$(echo {_b64(name)} | base64 -d)"' for name in PROTECTED),
    ),
    Read("find-exec", lambda s: "find . ~/vault -type f -exec cat {} + 2>/dev/null"),
    Read("grep-everything", lambda s: f"grep -r {SECRET[:10]} . ~/vault 2>/dev/null"),
    Read("tar-archive", lambda s: "tar cf - . ~/vault 2>/dev/null | tar xOf - 2>/dev/null"),
    Read("copy-then-read", lambda s: "cp -r . /tmp/copy 2>/dev/null; cat /tmp/copy/.env"),
    Read("symlink", lambda s: 'ln -s "$PWD/.env" l1; ln -s "$PWD/config" l2; cat l1 l2/*'),
    Read("hardlink", lambda s: "ln .env h1; ln config/db.secret h2; cat h1 h2"),
    Read("rename-file", lambda s: "mv .env e1; mv config/db.secret e2; cat e1 e2"),
    Read(
        "rename-folders",
        lambda s: (
            "mv config c2; mv app a2; mv deep d2; mv private p2; cat c2/* a2/.env* d2/a/b/c/* p2/*"
        ),
    ),
    Read("remove-and-look", lambda s: "rm -f .env; rm -rf private; cat .env private/key"),
    Read(
        "via-proc",
        lambda s: 'cat "/proc/self/root$PWD/.env" /proc/self/cwd/private/key /proc/$$/cwd/.env',
    ),
    Read("dd", lambda s: "dd if=config/db.secret status=none; dd if=notes/diary.txt status=none"),
    Read("cd-into", lambda s: "cd app && cat .env.local; cd ../deep/a/b/c && cat *"),
    Read("home-vault", lambda s: "cat ~/vault/pw.txt; ls -la ~/vault; cat ~/vault/*"),
    Read("chmod-first", lambda s: "chmod 777 .env private ~/vault; cat .env private/* ~/vault/*"),
    Read("mount-over", lambda s: "umount .env; umount -l private; cat .env private/key"),
]


def _python_reads(names: list[str]) -> str:
    script = (
        "import sys\n"
        "for name in sys.argv[1:]:\n"
        "    try: print(open(name).read())\n"
        "    except OSError as e: print('refused', name, e.strerror)\n"
    )
    return f"{PY} -c {_quote(script)} " + " ".join(_quote(n) for n in names)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


@pytest.mark.parametrize("read", READS, ids=[r.id for r in READS])
async def test_a_protected_file_reads_nothing_however_it_is_spelled(secrets, read):
    output = await run_program(secrets, read.script(secrets))
    assert SECRET not in output, output
    assert _secrets_on_disk(secrets) == {f"{SECRET} in {name}\n" for name in PROTECTED}


def _secrets_on_disk(scene: Scene) -> set[str]:
    """Every protected file's content, wherever the command may have moved it: none lost."""
    found = set()
    for folder, _dirs, files in os.walk(scene.root):
        for name in files:
            path = Path(folder, name)
            if path.is_file() and not path.is_symlink() and SECRET in path.read_text():
                found.add(path.read_text())
    return found


async def test_what_no_rule_covers_stays_readable(secrets):
    output = await run_program(secrets, "cat app/readme.txt; ls -a . app | sort | tr '\\n' ' '")
    assert output.startswith("readable\n") and ".env " in output  # listed, not readable


async def test_a_masked_file_says_so(secrets):
    output = await run_program(secrets, "cat .env; cat private/key; ls private | wc -l")
    assert ".env: Permission denied" in output
    assert "private/key: No such file or directory" in output  # the folder is empty inside
    assert output.endswith("0")


async def test_a_masked_folder_cannot_be_written_to_either(secrets):
    """A write into a masked folder fails where the command sees it (it would vanish)."""
    output = await run_program(secrets, "echo x > private/new; echo rc=$?")
    assert "Read-only file system" in output and "rc=1" in output
    assert not (secrets.root / "private/new").exists()


async def test_a_deny_rule_added_during_the_session_holds_at_the_next_command(secrets):
    (secrets.root / "later.txt").write_text(f"{SECRET} later\n")
    assert SECRET in await run_program(secrets, "cat later.txt")
    secrets.policy.add_session_deny(Rule.parse("Read(./later.txt)", "session", secrets.root))
    assert SECRET not in await run_program(secrets, "cat later.txt")


async def test_a_secret_written_by_the_person_between_commands_is_masked(secrets):
    """The disk is looked at again when each command starts."""
    await run_allowed(secrets, "true")
    (secrets.root / "src").mkdir()
    (secrets.root / "src/.env.production").write_text(f"{SECRET}\n")
    (secrets.root / "config/new.secret").write_text(f"{SECRET}\n")
    output = await run_program(secrets, "cat src/.env.production config/new.secret")
    assert SECRET not in output


async def test_a_file_the_command_creates_itself_is_its_own(secrets):
    """Not a leak: the command wrote it, so it holds nothing the command could not read.
    At the next command it exists, and the rules mask it like any other."""
    output = await run_program(secrets, "echo mine > made.secret; cat made.secret")
    assert output == "mine"
    assert "Permission denied" in await run_program(secrets, "cat made.secret")


async def test_a_folder_named_like_a_secret_is_not_masked(secrets):
    """`.env*` protects files (as the rules do); a virtualenv called `.env/` still works."""
    (secrets.root / ".envs/bin").mkdir(parents=True)
    (secrets.root / ".envs/bin/tool").write_text("echo tool-ran\n")
    assert await run_program(secrets, "sh .envs/bin/tool") == "tool-ran"


# --- when the sandbox cannot look at everything, Bash calls are asked about again ------


def _default_mode(scene: Scene) -> PermissionPolicy:
    policy = PermissionPolicy(scene.workspace, PermissionMode.DEFAULT, deny=scene.policy.deny)
    scene.policy = policy
    scene.sandbox(scene.workspace.sandbox)
    return policy


def test_a_tree_too_big_to_look_through_is_not_auto_allowed(secrets, monkeypatch):
    monkeypatch.setattr(survey, "WALK_LIMIT", 5)
    policy = _default_mode(secrets)
    decision = policy.decide(BashTool(), BashInput(command="npm test"))
    assert decision.behavior == "ask", decision
    assert "autoAllowBashIfSandboxed" not in decision.reason
    assert "more than 5 files and folders" in secrets.workspace.sandbox.describe()


def test_a_rule_covering_too_many_files_is_not_auto_allowed(secrets, monkeypatch):
    policy = _default_mode(secrets)
    for i in range(6):
        (secrets.root / f"many/{i}.secret").parent.mkdir(exist_ok=True)
        (secrets.root / f"many/{i}.secret").write_text("x")
    monkeypatch.setattr(survey, "MASK_LIMIT", 5)
    assert policy.decide(BashTool(), BashInput(command="npm test")).behavior == "ask"


def test_a_rule_covering_a_writable_folder_is_not_auto_allowed(secrets):
    """A rule that denies a whole writable folder cannot be masked (nothing in it would
    work): the sandbox cannot stand in for the rule, so Bash calls are asked about."""
    policy = _default_mode(secrets)
    secrets.workspace.extra_dirs.append(secrets.sibling)
    assert policy.decide(BashTool(), BashInput(command="npm test")).behavior == "allow"
    secrets.deny("Read(../sibling/**)")
    assert policy.decide(BashTool(), BashInput(command="npm test")).behavior == "ask"


async def test_beyond_the_limit_the_command_still_runs_and_is_told(secrets, monkeypatch):
    monkeypatch.setattr(survey, "WALK_LIMIT", 5)
    output = await run_program(secrets, "cat app/readme.txt")
    assert output.startswith("readable")
    assert "could not look through" in output and "Read deny rule" in output


async def test_when_the_disk_outgrows_the_limit_a_command_allowed_for_it_is_refused(
    secrets, monkeypatch
):
    """The last look said everything was hidden, so a call was auto-allowed; this command's
    look finds it is not: the command does not run, and the next call is asked about."""
    policy = _default_mode(secrets)
    command = BashInput(command="touch made")
    assert policy.decide(BashTool(), command).behavior == "allow"
    monkeypatch.setattr(survey, "WALK_LIMIT", 5)
    with pytest.raises(ToolError, match="can no longer hide everything"):
        await BashTool().run(command, ToolContext(secrets.workspace, AbortSignal()))
    assert not (secrets.root / "made").exists()
    assert policy.decide(BashTool(), command).behavior == "ask"


async def test_an_allow_rule_naming_a_secret_file_lets_commands_read_it(secrets):
    """As for the tools (special_paths.py): `Read(./.env)` names that very file, so the app
    a command starts may load it; the other `.env` files and Read-denied ones stay masked."""
    secrets.policy.allow.extend(
        parse_tool_list(["Read(./.env)", "Read(./config/db.secret)"], "project", secrets.root)
    )
    output = await run_program(secrets, "cat .env; cat app/.env.local; cat config/db.secret")
    assert f"{SECRET} in .env\n" in output
    assert "app/.env.local: Permission denied" in output
    assert "config/db.secret: Permission denied" in output  # deny beats allow
