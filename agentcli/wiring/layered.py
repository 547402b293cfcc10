"""A settings key the merge (config/settings.py) does not carry, read from its layers.

The highest layer that sets the key wins, as for every scalar. A project file in a
folder not trusted is passed over: its keys other than the harmless few are withheld
until the folder is trusted (config/untrusted.py lists them for the trust question),
so a cloned repository cannot set the session's effort or run a status-line command.
"""

from __future__ import annotations

from typing import Any

from agentcli.config.settings import Settings, Sourced


def layered(settings: Settings, key: str) -> Sourced | None:
    """The value of the settings files' `key` and the layer it came from, or None."""
    found: Sourced | None = None
    for layer in settings.layers:
        if layer.data is None or layer.untrusted:
            continue
        value: Any = getattr(layer.data, key, None)
        if value is not None:
            found = Sourced(value, layer.name)
    return found
