"""The parts of a settings file that only protect, for when nothing else of it may apply.

Two files apply in part: a project file in a folder not trusted (config/untrusted.py
`protective_parts`), and a file whose deny or ask rules could not all be read
(config/settings.py): its permissions block then gives only what protects, since what it
allowed (allow rules, folders, a looser mode) might have been meant to come with a deny
rule nobody can read. What protects: deny and ask rules, a mode that asks for more care
than the one that applies without it, turning the sandbox on, and hooks (a PreToolUse
hook may refuse a call; never those of a folder not trusted, which are commands it would
run).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agentcli.config.hooks import HooksConfig
from agentcli.config.settings_schema import Mode


@dataclass
class Salvage:
    deny: list[str] = field(default_factory=list)
    ask: list[str] = field(default_factory=list)
    mode: Mode | None = None
    hooks: HooksConfig | None = None
    sandbox: bool = False  # `"sandbox": {"enabled": true}`
