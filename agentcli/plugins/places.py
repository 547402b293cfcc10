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
    plugin_problems: tuple[str, ...] = ()  # the plugins that could not load, and why

    @classmethod
    def of(
        cls,
        sources: Collection[str] | None,
        plugins: tuple[Plugin, ...] = (),
        plugin_problems: tuple[str, ...] = (),
    ) -> Places:
        """For the settings layers `sources` (None: all of them)."""
        if sources is None:
            return cls(plugins=plugins, plugin_problems=plugin_problems)
        return cls(
            "user" in sources, "project" in sources, plugins, plugin_problems=plugin_problems
        )


EVERYWHERE = Places()
