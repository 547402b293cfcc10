"""Secrets in variables: what a command may expand without asking.

The environment holds credentials (API keys, tokens, passwords). A
read-only command runs without asking and its output goes to the model, so
it may only expand variables from a short list of harmless ones (or unset
ones, or ones the line itself set); any command, even one a rule allows,
asks when it expands a variable whose name looks like a credential
(`git diff $ANTHROPIC_API_KEY` prints the key in an error message).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from agentcli.permissions.shell.text import short
from agentcli.permissions.shell.words import Word

# Environment variables a read-only command may print: none of them is a secret.
SAFE_ENV = frozenset(
    {
        "HOME", "USER", "LOGNAME", "PWD", "OLDPWD", "PATH", "SHELL", "LANG", "LANGUAGE",
        "TERM", "TMPDIR", "TZ", "EDITOR", "VISUAL", "PAGER", "HOSTNAME", "COLUMNS", "LINES",
        "NODE_ENV", "CI", "VIRTUAL_ENV", "CONDA_DEFAULT_ENV", "GOPATH", "GOROOT", "JAVA_HOME",
        "CARGO_HOME", "RUSTUP_HOME", "PYTHONPATH", "NVM_DIR", "SHLVL", "DISPLAY",
    }
)  # fmt: skip
CREDENTIAL = re.compile(
    r"KEY|TOKEN|SECRET|PASS|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|CERT|^ANTHROPIC_|^AWS_|"
    r"^AZURE_|^GCP_|^GOOGLE_|^GITHUB_|^GH_|^GITLAB_|^NPM_|^OPENAI_|^DATABASE_URL|DSN",
    re.IGNORECASE,
)
# Variables set in front of a command (`NODE_ENV=test npm test`) that change nothing worth asking about.
HARMLESS_PREFIX = frozenset(
    {"NODE_ENV", "CI", "NO_COLOR", "FORCE_COLOR", "TERM", "LANG", "LC_ALL", "TZ",
     "RUST_BACKTRACE", "RUST_LOG", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "DEBUG"}
)  # fmt: skip


def secret_problem(
    words: Iterable[Word], env: Mapping[str, str], *, rule_allowed: bool
) -> str | None:
    """Why expanding these words could leak a secret, or None."""
    for word in words:
        if word.variable_unknown and not rule_allowed:
            return f"`{short(word.text)}` has a value that is not known before it runs"
        for name in word.variables:
            if CREDENTIAL.search(name):
                return f"it expands ${name}, which may hold a credential"
            harmless = name in SAFE_ENV or name.startswith("LC_") or name not in env
            if not rule_allowed and not harmless:
                return f"it prints ${name} from the environment, which may hold a secret"
    return None
