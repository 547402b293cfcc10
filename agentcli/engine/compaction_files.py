"""Files changed on disk since the agent read them: what a shell command changed.

A compaction carries the names of the files the agent changed (carry_over.py),
and the file tools name theirs in their calls; a Bash command does not (`sed -i`,
a formatter, a code generator, `git checkout`). So when the summarised
conversation ran a shell command, the compactor asks the disk: every file the
session read, or wrote, is recorded with its modification time and size as the
agent last saw it (`Workspace.read_files`, tools/fileio.py), and a file whose
stat now differs, or that is gone, changed since. Only stat is called, on our
own records (no command's output is parsed), for the most recent MAX_CHECKED
files, off the event loop and within CHECK_TIME_S (past that the compaction
goes on without them).

Not covered: a file the session never read or wrote (a new file a command made,
one it changed unseen), and who changed it (the person's own editor counts as
well, if a command also ran).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable, Mapping

from agentcli.core.messages import Message, is_tool_use
from agentcli.tools.base import FileSnapshot

SHELL_TOOLS = frozenset({"Bash"})
MAX_CHECKED = 500
CHECK_TIME_S = 2.0


def ran_shell(messages: Iterable[Message]) -> bool:
    """Whether any of the messages calls a shell tool."""
    for message in messages:
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and is_tool_use(block) and block.get("name") in SHELL_TOOLS:
                return True
    return False


def changed_since_seen(seen: Mapping[str, FileSnapshot]) -> list[str]:
    """The paths, of the most recent MAX_CHECKED in `seen`, whose file now has another
    modification time or size, or is gone; in the order they were seen."""
    changed = []
    for path, snapshot in list(seen.items())[-MAX_CHECKED:]:
        try:
            st = os.stat(path)
        except OSError:
            changed.append(path)  # removed (or no longer readable)
            continue
        if (st.st_mtime_ns, st.st_size) != (snapshot.mtime_ns, snapshot.size):
            changed.append(path)
    return changed


async def shell_changed_files(
    messages: list[Message], seen: Mapping[str, FileSnapshot]
) -> list[str]:
    """The files changed on disk since the agent saw them, if the messages ran a shell
    command (none otherwise, or if the disk does not answer within CHECK_TIME_S)."""
    if not seen or not ran_shell(messages):
        return []
    records = dict(seen)  # the tools may add to theirs meanwhile
    try:
        return await asyncio.wait_for(asyncio.to_thread(changed_since_seen, records), CHECK_TIME_S)
    except TimeoutError:
        return []
