"""The flags the Claude Agent SDK passes, added to agentcli's parser.

The SDK never passes `-p`: `--input-format stream-json` is what makes a run
headless. Each flag is accepted with its meaning; the few that cannot apply
(`--fallback-model`...) are accepted and said so on stderr (`notes()`), so a program written for Claude
Code starts instead of failing on its command line.

This module is imported on every start (cli/main.py), `agentcli --help` too: nothing
heavy here, and what only a run needs (json, tempfile, uuid) is imported where used.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

STREAM_JSON = "stream-json"
SETTING_SOURCES = ("user", "project", "local")


def add_sdk_flags(parser: argparse.ArgumentParser) -> None:
    sdk = parser.add_argument_group("driven by a program (the Claude Agent SDK; docs/sdk.md)")
    sdk.add_argument(
        "--input-format",
        choices=("text", STREAM_JSON),
        default="text",
        help="stream-json: user messages and control requests as JSON lines on stdin",
    )
    sdk.add_argument("--system-prompt", metavar="TEXT", help="instead of agentcli's system prompt")
    sdk.add_argument("--system-prompt-file", metavar="FILE", help="--system-prompt from a file")
    sdk.add_argument("--append-system-prompt", metavar="TEXT", help="added to the system prompt")
    sdk.add_argument(
        "--tools",
        type=_names,
        metavar="NAMES",
        help='the built-in tools offered: "Read,Grep", "" (none) or "default"',
    )
    sdk.add_argument(
        "--permission-prompt-tool",
        metavar="NAME",
        help="stdio: permission questions go to the SDK client (can_use_tool)",
    )
    sdk.add_argument(
        "--max-budget-usd", type=_dollars, metavar="USD", help="stop once the session has cost this"
    )
    sdk.add_argument("--fallback-model", metavar="MODEL", help="accepted; not used")
    sdk.add_argument("--session-id", type=_uuid, metavar="UUID", help="the new session's id")
    sdk.add_argument(
        "--fork-session",
        action="store_true",
        help="with --resume/--continue: go on in a new session",
    )
    sdk.add_argument(
        "--settings",
        metavar="FILE_OR_JSON",
        help="one more settings file (or JSON), above the others",
    )
    sdk.add_argument(
        "--setting-sources",
        type=_names,
        metavar="SOURCES",
        help="which settings files to read: user,project,local",
    )
    sdk.add_argument(
        "--include-partial-messages", action="store_true", help="stream_event lines as text streams"
    )
    sdk.add_argument(
        "--replay-user-messages",
        action="store_true",
        help="echo each user message with its uuid (the id rewind_files takes)",
    )
    sdk.add_argument(
        "--max-thinking-tokens",
        type=thinking_budget,
        metavar="N",
        help="a thinking budget in tokens (0: no thinking); adaptive models think as they need",
    )
    sdk.add_argument(
        "--thinking",
        choices=("adaptive", "disabled"),
        help="the SDK's thinking option: adaptive (as --effort high unless --effort is "
        "given) or disabled (as --max-thinking-tokens 0)",
    )
    sdk.add_argument("--thinking-display", metavar="DISPLAY", help="accepted; not used")
    sdk.add_argument(
        "--json-schema", metavar="SCHEMA", help="a JSON schema the final answer must match"
    )


def thinking_budget(text: str) -> int:
    """`--max-thinking-tokens`: a budget the Messages API takes for replies of the
    session's length (0, or from 1024 to below the reply's limit)."""
    from agentcli.core.reasoning import REPLY_MAX_TOKENS, budget_problem

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    problem = "must be 0 or more" if value < 0 else budget_problem(value, REPLY_MAX_TOKENS)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return value


def _names(text: str) -> list[str]:
    return [name.strip() for name in text.replace(" ", ",").split(",") if name.strip()]


def _dollars(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return value


def _uuid(text: str) -> str:
    import uuid

    try:
        return str(uuid.UUID(text))
    except ValueError:
        raise argparse.ArgumentTypeError("must be a UUID") from None


@contextmanager
def prepared(args: argparse.Namespace) -> Iterator[str | None]:
    """Check the flags and read what they name, for the length of the run; yields the
    problem (for stderr) when the command line cannot run."""
    found = problem(args) or read_system_prompt_file(args) or read_json_schema(args)
    if found is not None:
        yield found
        return
    thinking_as_asked(args)
    if not any(_is_json(value) for value in [*(args.mcp_config or []), args.settings or ""]):
        as_files(args, None)  # nothing to write: no folder made (nor tempfile imported)
        yield None
        return
    import tempfile

    with tempfile.TemporaryDirectory(prefix="agentcli-") as scratch:
        as_files(args, Path(scratch))
        yield None


def problem(args: argparse.Namespace) -> str | None:
    """What makes this command line impossible, in words for stderr; None when it is fine."""
    if args.input_format == STREAM_JSON and args.output_format != STREAM_JSON:
        return "--input-format stream-json needs --output-format stream-json"
    if args.session_id and (args.resume is not None or args.continue_session):
        return "--session-id names a new session: it cannot go with --resume or --continue"
    if args.system_prompt is not None and args.system_prompt_file:
        return "give --system-prompt or --system-prompt-file, not both"
    unknown = set(args.setting_sources or []) - set(SETTING_SOURCES)
    if unknown:
        return f"--setting-sources: {', '.join(sorted(unknown))} is not one of {','.join(SETTING_SOURCES)}"
    settings = args.settings
    if settings and not settings.lstrip().startswith("{") and not Path(settings).is_file():
        return f"--settings: no such file: {settings}"
    return None


def thinking_as_asked(args: argparse.Namespace) -> None:
    """The SDK's `thinking=` option (`--thinking`) as the session's ask: `disabled` is no
    thinking budget at all, `adaptive` the API's default level (`high`) where nothing
    names one; an explicit `--max-thinking-tokens` or `--effort` wins."""
    if args.thinking == "disabled" and args.max_thinking_tokens is None:
        args.max_thinking_tokens = 0
    elif args.thinking == "adaptive" and getattr(args, "effort", None) is None:
        args.effort = "high"


def read_system_prompt_file(args: argparse.Namespace) -> str | None:
    """`--system-prompt-file` read into `args.system_prompt`; the problem, if any."""
    if not args.system_prompt_file:
        return None
    try:
        args.system_prompt = Path(args.system_prompt_file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return f"--system-prompt-file: cannot read {args.system_prompt_file}: {exc}"
    return None


def read_json_schema(args: argparse.Namespace) -> str | None:
    """`--json-schema` parsed into `args.json_schema` (a dict); the problem, if any."""
    if args.json_schema is None:
        return None
    import json

    from jsonschema import Draft202012Validator, SchemaError

    try:
        schema = json.loads(args.json_schema)
        Draft202012Validator.check_schema(schema)
    except (json.JSONDecodeError, SchemaError) as exc:
        return f"--json-schema is not a JSON schema: {str(exc).splitlines()[0]}"
    if not isinstance(schema, dict) or schema.get("type", "object") != "object":
        return '--json-schema must describe an object ("type": "object")'
    args.json_schema = schema
    return None


def notes(args: argparse.Namespace) -> list[str]:
    """What the command line asks for that agentcli accepts but cannot do, for stderr."""
    found = []
    if args.fallback_model:
        found.append("--fallback-model is not used: agentcli retries the model it has")
    if args.thinking_display:
        found.append("--thinking-display is not used: thinking is shown as the model sends it")
    tool = args.permission_prompt_tool
    if tool and tool != "stdio":
        found.append(
            f"--permission-prompt-tool {tool}: only stdio is supported; questions are refused"
        )
    return found


def as_files(args: argparse.Namespace, folder: Path | None) -> None:
    """`--mcp-config` and `--settings` as files: the SDK passes JSON text, which is
    written to a file in `folder` (private to the run) for the loaders to read; None
    when no value is JSON text."""
    args.mcp_config = [
        _as_file(value, folder, f"mcp-config-{index}.json")
        for index, value in enumerate(args.mcp_config or [])
    ] or None
    if args.settings:
        args.settings = _as_file(args.settings, folder, "settings.json")


def _is_json(value: str) -> bool:
    return value.lstrip().startswith("{")


def _as_file(value: str, folder: Path | None, name: str) -> str:
    if not _is_json(value):
        return value
    assert folder is not None, "prepared() makes a folder when a value is JSON text"
    path = folder / name
    path.write_text(value, encoding="utf-8")
    path.chmod(0o600)
    return str(path)
