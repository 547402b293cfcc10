"""OpenTelemetry export of agentcli's sessions: metrics, events (logs) and spans.

Off unless `AGENTCLI_ENABLE_TELEMETRY=1` (or Claude Code's
`CLAUDE_CODE_ENABLE_TELEMETRY=1`) is set in the environment or in a user-level
settings file's `env` (switch.py says why only there). When it is off nothing
of OpenTelemetry is imported: start-up does not pay for it. When it is on,
runtime.py builds the SDK's providers from the standard `OTEL_*` variables
(exporters.py), recorder.py turns what the engine reports (engine/observer.py)
into metrics, events and spans, and everything is flushed before the process
exits. docs/telemetry.md lists what is exported; prompt text is exported only
when `OTEL_LOG_USER_PROMPTS=1` asks for it, file contents and tool outputs
never.
"""
