"""agentcli's own credentials: read by the provider, kept from every process it starts.

A command the model runs, a hook, a `!command` the person types: none of them
needs the API key agentcli talks to the model with, and any of them could
print it into the conversation or send it elsewhere. So:

- `CREDENTIAL_VARIABLES` lists every variable agentcli reads for its own
  credentials (a new provider adds its names here, and reads them with
  `credential()`); the variables the settings' providers read their keys
  from (`apiKeyEnv`) join them once the settings are read;
- `keep_credentials_private()`, called once when the binary starts, takes
  them out of `os.environ` (so no child, whoever starts it, inherits them)
  and makes the process non-dumpable (so a child running as the same user
  cannot read them back from /proc/<agentcli>/environ or its memory);
  `keep_private(names)` does the same for the providers' variables once the
  settings name them (building an engine: it leaves the rest alone, so a
  program embedding agentcli keeps its own environment);
- `child_env()` is the environment for a child: without them, plus the
  settings' `env`, where `${NAME}` takes NAME from agentcli's own
  environment. A setting that names a credential is the one way to pass it
  on: `"env": {"ANTHROPIC_API_KEY": "${ANTHROPIC_API_KEY}"}`.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Mapping

CREDENTIAL_VARIABLES: tuple[str, ...] = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")

_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_PR_SET_DUMPABLE = 4
# Taken out of os.environ at start; the provider still finds them here.
_kept: dict[str, str] = {}


def credential(name: str) -> str | None:
    """A credential's value, whether or not it was already taken out of os.environ."""
    return _kept.get(name) or os.environ.get(name)


def keep_credentials_private(more: Iterable[str] = ()) -> None:
    """Move the credentials out of os.environ and make this process non-dumpable.
    `more`: variables the settings name as holding a key (a provider's `apiKeyEnv`)."""
    keep_private((*CREDENTIAL_VARIABLES, *more))


def keep_private(names: Iterable[str]) -> None:
    """Move just these variables out of os.environ (into `credential()`'s reach), and
    make this process non-dumpable once it holds any."""
    for name in names:
        value = os.environ.pop(name, None)
        if value:
            _kept[name] = value
    if _kept and sys.platform == "linux":
        _set_non_dumpable()


def _set_non_dumpable() -> None:
    """/proc/self/environ and /proc/self/mem become readable by root only (not by children)."""
    import ctypes

    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):  # no libc prctl: nothing more we can do here
        pass


def child_env(settings_env: Mapping[str, str]) -> dict[str, str]:
    """The environment for a process agentcli starts: no credentials unless settings name them."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in CREDENTIAL_VARIABLES and key not in _kept
    }
    env.update({key: expand(value) for key, value in settings_env.items()})
    return env


def expand(value: str) -> str:
    """`${NAME}` references replaced by agentcli's own variables (empty when unset)."""
    if "${" not in value:
        return value
    return _REFERENCE.sub(lambda match: _own_variable(match.group(1)), value)


def _own_variable(name: str) -> str:
    if name in CREDENTIAL_VARIABLES or name in _kept:
        return credential(name) or ""
    return os.environ.get(name, "")
