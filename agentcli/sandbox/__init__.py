"""The OS sandbox for Bash commands: bubblewrap on Linux.

Permission rules decide whether a command runs; the sandbox limits what a
command that runs can do, whatever the rules missed: write only in the
project and added folders, read no credentials, reach no network (unless
`sandbox.network` allows it), start nothing outside itself. See
docs/permissions.md, "The sandbox".
"""

from agentcli.sandbox.bubblewrap import (
    Launch,
    LaunchRefused,
    Prepared,
    Sandbox,
    unavailable_message,
)

__all__ = ["Launch", "LaunchRefused", "Prepared", "Sandbox", "unavailable_message"]
