"""Shell-command hooks run at points of a session (PreToolUse, Stop, ...), as Claude Code's."""
