"""The Claude Agent SDK's front end: `agentcli --input-format stream-json`.

The SDK (`claude-agent-sdk`) spawns a CLI and talks to it in JSON lines: user
messages and control requests on stdin, messages and control responses on
stdout, with requests of our own (`can_use_tool`, `hook_callback`) that it
answers. With this front end an SDK program runs on agentcli unchanged
(docs/sdk.md). Like `-p` and the TUI it is a consumer of the engine's events:
no loop and no permission logic of its own.

- flags.py: the SDK's command-line flags, and what each one means here;
- wire.py: stdin lines in, JSON lines out;
- channel.py: our own control requests and their responses;
- control.py: the client's control requests (interrupt, set_permission_mode...);
- permissions.py: a permission question put to the client (`can_use_tool`);
- hooks.py: the client's Python hooks, as callback hooks beside shell commands;
- session.py: the driver: one conversation, a turn per user message.
"""
