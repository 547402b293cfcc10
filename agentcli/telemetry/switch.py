"""Whether telemetry is on, and the variables that configure it.

The variables come from the process environment and from the `env` of the
user-level settings files (`~/.claude/settings.json`, agentcli's own
`settings.json`), as Claude Code users set them; the environment wins. A
project's settings files do not take part: a cloned repository could
otherwise switch telemetry on and send the session's metadata to an endpoint
of its choosing. Nothing here imports OpenTelemetry.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

ENABLE_VARIABLES = ("AGENTCLI_ENABLE_TELEMETRY", "CLAUDE_CODE_ENABLE_TELEMETRY")
# The settings layers whose `env` may configure telemetry (config/settings.py names them).
USER_LAYERS = frozenset({"claude user", "user"})
_TRUE = frozenset({"1", "true", "yes", "on"})


def telemetry_variables(
    user_settings_env: Mapping[str, str], environ: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The variables telemetry reads: the user settings' `env`, under the process's."""
    env = os.environ if environ is None else environ
    return {**user_settings_env, **env}


def is_on(variables: Mapping[str, str]) -> bool:
    """Either switch set to a true value ("1", "true", "yes", "on")."""
    return any(variables.get(name, "").strip().lower() in _TRUE for name in ENABLE_VARIABLES)


def flag(variables: Mapping[str, str], *names: str, default: bool = False) -> bool:
    """A yes/no variable, the first of `names` that is set."""
    for name in names:
        value = variables.get(name)
        if value is not None and value.strip():
            return value.strip().lower() in _TRUE
    return default
