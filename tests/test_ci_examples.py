"""The CI examples in docs/examples parse, and run `agentcli -p` with flags it takes.

They cannot run here (no GitHub or GitLab runner); this keeps them from
rotting when a flag is renamed."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
import yaml

from agentcli.cli.main import build_parser

EXAMPLES = Path(__file__).parent.parent / "docs" / "examples"


def agentcli_commands(workflow: object) -> list[list[str]]:
    """Every `agentcli -p ...` command line in the workflow's shell steps, as words."""
    found: list[list[str]] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
        elif isinstance(node, str) and node.lstrip().startswith("agentcli -p "):
            words = shlex.split(node.replace("\\\n", " "))
            found.append(words[1 : words.index(">")] if ">" in words else words[1:])
        elif isinstance(node, str):
            for line in node.replace("\\\n", " ").splitlines():
                if line.lstrip().startswith("agentcli -p "):
                    walk(line)

    walk(workflow)
    return found


@pytest.mark.parametrize("name", ["github-actions-review.yml", "gitlab-ci-review.yml"])
def test_the_example_runs_agentcli_headless_with_flags_it_takes(name):
    workflow = yaml.safe_load((EXAMPLES / name).read_text())
    (command,) = agentcli_commands(workflow)
    options = build_parser().parse_args(command)
    assert options.print_mode  # -p: headless
    assert options.setting_sources == ["user"]  # a pull request's settings do not apply
    assert options.permission_mode == "dontAsk"
    assert options.max_turns and options.max_budget_usd
    assert "Bash(git diff:*)" in options.allowed_tools
    assert options.output_format == "json"
