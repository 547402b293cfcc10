"""Issue 22: "always allow" suggestions for Bash stay narrow.

For `python3 build.py --fast` the suggestion was `Bash(python3:*)`: any Python
program. A program that runs the code it is given gets its exact command; a
subcommand keeps its prefix (`git diff:*`), as Claude Code suggests.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcli.config.rules import parse_tool_list
from agentcli.permissions.policy import PermissionPolicy
from agentcli.permissions.suggestions import suggest_rules
from agentcli.tools.base import Workspace
from agentcli.tools.bash import BashInput, BashTool


def _suggested(root: Path, command: str) -> list[str]:
    policy = PermissionPolicy(Workspace(root=root))
    return [str(r) for r in suggest_rules(BashTool(), BashInput(command=command), policy)]


EXACT = [
    "python3 build.py --fast",
    "python -m pytest -q",
    "python3.12 tools/gen.py",
    "node server.js",
    "ruby -e 'puts 1'",
    "perl -pi -e s/a/b/ x.txt",
    "awk '{print $1}' data.txt",
    "bash build.sh",
    "npx prettier --check .",
    "npx jest",
    "uvx ruff check",
    "uv run pytest",
    "npm exec eslint",
    "pnpm dlx create-x",
    "go run main.go",
    "bun run script.ts",
    "docker run --rm alpine",
    "kubectl exec pod -- ls",
    "bundle exec rspec",
    "sudo apt install jq",
    "find . -name '*.tmp' -delete",
    "rm -rf build",
    "mkdir -p out/logs",
]


@pytest.mark.parametrize("command", EXACT)
def test_a_program_that_runs_any_code_gets_its_exact_command(tmp_path: Path, command: str):
    (rule,) = _suggested(tmp_path, command)
    assert rule == f"Bash({command})"


PREFIX = [
    ("git commit -m wip", "Bash(git commit:*)"),
    ("git push origin main", "Bash(git push:*)"),
    ("npm test -- --watch", "Bash(npm test:*)"),
    ("npm run build", "Bash(npm run:*)"),
    ("cargo build --release", "Bash(cargo build:*)"),
    ("go test ./...", "Bash(go test:*)"),
    ("docker build -t x .", "Bash(docker build:*)"),
    ("make lint", "Bash(make lint:*)"),
    ("timeout 60 cargo test", "Bash(cargo test:*)"),  # through a wrapper that adds nothing
    ("cat ../elsewhere.txt", "Bash(cat:*)"),  # read-only, asked only for where it reads
]


@pytest.mark.parametrize(("command", "expected"), PREFIX)
def test_a_subcommand_keeps_its_prefix(tmp_path: Path, command: str, expected: str):
    (tmp_path / "project").mkdir()
    assert _suggested(tmp_path / "project", command) == [expected]


@pytest.mark.parametrize("command", [*EXACT, *(c for c, _ in PREFIX)])
def test_never_a_rule_for_a_whole_interpreter_or_shell(tmp_path: Path, command: str):
    forbidden = {
        f"Bash({name}:*)"
        for name in (
            "python3",
            "python",
            "node",
            "bash",
            "sh",
            "npx",
            "uv run",
            "sudo",
            "env",
            "xargs",
            "timeout",
            "find",
            "perl",
            "awk",
        )
    }
    (tmp_path / "project").mkdir()
    assert not forbidden & set(_suggested(tmp_path / "project", command))


@pytest.mark.parametrize(
    "command", ["python3 build.py --fast", "git commit -m wip", "rm -rf build"]
)
def test_the_suggested_rule_allows_the_command_it_was_made_for(tmp_path: Path, command: str):
    (rule,) = _suggested(tmp_path, command)
    policy = PermissionPolicy(
        Workspace(root=tmp_path), allow=parse_tool_list([rule], "test", tmp_path)
    )
    assert policy.decide(BashTool(), BashInput(command=command)).behavior == "allow"


def test_the_exact_rule_does_not_allow_another_program_of_the_interpreter(tmp_path: Path):
    (rule,) = _suggested(tmp_path, "python3 build.py --fast")
    policy = PermissionPolicy(
        Workspace(root=tmp_path), allow=parse_tool_list([rule], "test", tmp_path)
    )
    other = BashInput(command="python3 -c 'import os; os.remove(\"x\")'")
    assert policy.decide(BashTool(), other).behavior == "ask"


def test_no_exact_rule_for_a_word_not_known_before_it_runs(tmp_path: Path):
    assert _suggested(tmp_path, "python3 $(ls *.py)") == []
