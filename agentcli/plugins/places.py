"""Where a session's command files, agent files and skills come from.

The settings layers a session reads (`--setting-sources`, the SDK's
`setting_sources`) decide it as they do for settings files: without `user`,
the person's folders (`$AGENTCLI_HOME/commands`, `agents`, `skills`) are not
read; without `project`, the project's (`.agentcli/` and `.claude/`) are not.
The plugins of the session add their own folders, their names namespaced by
the plugin (`plugin:command`). Each loader (commands/command_files.py,
agents/definitions.py, skills/loader.py) reads its folders through this.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from agentcli.plugins.manifest import Plugin


@dataclass(frozen=True)
class Places:
    user: bool = True  # the person's own folders
    project: bool = True  # the project's folders
    plugins: tuple[Plugin, ...] = ()

    @classmethod
    def of(cls, sources: Collection[str] | None, plugins: tuple[Plugin, ...] = ()) -> Places:
        """For the settings layers `sources` (None: all of them)."""
        if sources is None:
            return cls(plugins=plugins)
        return cls(user="user" in sources, project="project" in sources, plugins=plugins)


EVERYWHERE = Places()
