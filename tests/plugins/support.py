"""A plugin folder for the tests: one of each part Claude Code's plugins bring.

`make_plugin(folder)` writes `.claude-plugin/plugin.json` (name `kit`), a command
(`commands/hello.md`), an agent (`agents/helper.md`), a skill
(`skills/tidy/SKILL.md`), a hook (`hooks/hooks.json`: a PostToolUse command that
runs a script of the plugin's through `${CLAUDE_PLUGIN_ROOT}`) and an MCP server
(`.mcp.json`: the test server tests/mcp/server.py, started from the plugin's
folder with `${CLAUDE_PLUGIN_ROOT}`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def make_plugin(folder: Path, name: str = "kit", **manifest: Any) -> Path:
    (folder / ".claude-plugin").mkdir(parents=True, exist_ok=True)
    (folder / ".claude-plugin" / "plugin.json").write_text(
        json.dumps({"name": name, "version": "1.2.0", "description": "A test kit", **manifest})
    )
    write(
        folder / "commands" / "hello.md",
        "---\ndescription: Say hello\n---\nSay hello to $ARGUMENTS\n",
    )
    write(
        folder / "agents" / "helper.md",
        "---\nname: helper\ndescription: Helps out\ntools: Read\n---\nYou are the kit's helper.\n",
    )
    write(
        folder / "skills" / "tidy" / "SKILL.md",
        "---\nname: tidy\ndescription: Tidy the imports\n---\nSort the imports.\n",
    )
    write(folder / "scripts" / "mark.sh", '#!/bin/sh\necho hooked >> "$1"\n')
    hooks = {
        "description": "marks each write",
        "hooks": {
            "PostToolUse": [
                {
                    "matcher": "Write",
                    "hooks": [
                        {
                            "type": "command",
                            "command": "sh ${CLAUDE_PLUGIN_ROOT}/scripts/mark.sh hook-ran.txt",
                        }
                    ],
                }
            ]
        },
    }
    write(folder / "hooks" / "hooks.json", json.dumps(hooks))
    server = {
        "command": sys.executable,
        "args": ["-m", "tests.mcp.server"],
        "env": {"PYTHONPATH": str(REPO), "KIT_ROOT": "${CLAUDE_PLUGIN_ROOT}"},
    }
    write(folder / ".mcp.json", json.dumps({"mcpServers": {"echo": server}}))
    return folder


def make_marketplace(folder: Path, plugins: dict[str, str], name: str = "local-market") -> Path:
    """A marketplace folder listing `plugins` (name -> source)."""
    entries = [{"name": plugin, "source": source} for plugin, source in plugins.items()]
    write(
        folder / ".claude-plugin" / "marketplace.json",
        json.dumps({"name": name, "owner": {"name": "Tests"}, "plugins": entries}),
    )
    return folder


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def write_settings(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
