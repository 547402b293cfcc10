"""argv -> options -> TUI or headless run.

This module is imported on every start, so it imports nothing heavy:
`agentcli --version` and `--help` must answer in a few tens of milliseconds.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import TextIO

EXIT_USAGE = 2  # as argparse exits for a bad command line
NO_PROMPT = (
    "-p needs a prompt, as an argument (agentcli -p 'explain this project') "
    "or on stdin (cat notes.txt | agentcli -p)"
)
# dontAsk (refuse whatever would be asked) is for runs that cannot ask: -p, the SDK's.
PERMISSION_MODES = ("default", "acceptEdits", "plan", "bypassPermissions", "dontAsk")
OUTPUT_FORMATS = ("text", "json", "stream-json")


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's own, told the terminal's width as `shutil.get_terminal_size()` finds it
    (COLUMNS, else stdout's terminal, else 80) without importing shutil: argparse makes a
    formatter for every flag it is given, and shutil brings its archive modules along."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        if width is None:
            width = _terminal_columns() - 2
        super().__init__(prog, indent_increment, max_help_position, width)


def _terminal_columns() -> int:
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


def build_parser() -> argparse.ArgumentParser:
    from agentcli import __version__

    parser = argparse.ArgumentParser(
        prog="agentcli",
        formatter_class=_HelpFormatter,
        description="A coding agent in your terminal. Run it in a project folder.",
        epilog="Headless: agentcli -p 'explain this project' --output-format json",
    )
    parser.add_argument("prompt", nargs="?", help="the first message (interactive mode)")
    parser.add_argument("-v", "--version", action="version", version=f"agentcli {__version__}")
    parser.add_argument(
        "-p",
        "--print",
        dest="print_mode",
        action="store_true",
        help=(
            "headless: answer the prompt (argument or stdin) and exit. Trusts the folder: "
            "its .agentcli/ settings (hooks, env, mode, allow rules) apply without asking"
        ),
    )
    parser.add_argument("--output-format", choices=OUTPUT_FORMATS, default="text")
    parser.add_argument("--max-turns", type=_positive_int, default=None, metavar="N")
    parser.add_argument("--model", help="the model to use (default: settings or AGENTCLI_MODEL)")
    parser.add_argument(
        "--effort",
        type=_effort,
        metavar="LEVEL",
        help="how hard the model thinks: low, medium, high, xhigh or max "
        "(default: the effortLevel setting, else the model's own)",
    )
    parser.add_argument("--permission-mode", choices=PERMISSION_MODES, default=None)
    parser.add_argument(
        "--allowedTools",
        "--allowed-tools",
        dest="allowed_tools",
        nargs="+",
        action="extend",
        metavar="RULE",
        help='tools or rules to allow, e.g. "Read,Bash(git diff:*)"',
    )
    parser.add_argument(
        "--disallowedTools",
        "--disallowed-tools",
        dest="disallowed_tools",
        nargs="+",
        action="extend",
        metavar="RULE",
        help="tools or rules to deny",
    )
    parser.add_argument(
        "--add-dir", dest="add_dirs", nargs="+", action="extend", metavar="DIR", default=[]
    )
    parser.add_argument(
        "--sandbox",
        action="store_true",
        help="run each Bash command under bubblewrap: only the project and --add-dir folders "
        "writable, credential folders hidden, no network; Bash calls then run without asking "
        "(settings: sandbox.enabled, sandbox.network, sandbox.autoAllowBashIfSandboxed)",
    )
    parser.add_argument(
        "--mcp-config",
        dest="mcp_config",
        nargs="+",
        action="extend",
        metavar="FILE",
        help='MCP servers to add, from JSON files ({"mcpServers": {...}}, as .mcp.json)',
    )
    parser.add_argument(
        "--strict-mcp-config",
        action="store_true",
        help="use only the MCP servers of --mcp-config, none from the settings or .mcp.json",
    )
    parser.add_argument(
        "--plugin-dir",
        dest="plugin_dirs",
        action="append",
        metavar="DIR",
        help="load the plugin in DIR (.claude-plugin/plugin.json) for this session; repeatable",
    )
    parser.add_argument(
        "-c",
        "--continue",
        dest="continue_session",
        action="store_true",
        help="continue the latest conversation in this folder",
    )
    parser.add_argument(
        "-r",
        "--resume",
        nargs="?",
        const="",
        default=None,
        metavar="ID",
        help="resume a conversation: by session ID, or pick one from a list",
    )
    parser.add_argument(
        "--rewind-to",
        dest="rewind_to",
        metavar="PROMPT_ID",
        help="with --resume ID: restore the files the agent changed since that prompt, then "
        "exit; `--rewind-to list` shows the session's prompts and their ids",
    )
    parser.add_argument(
        "--verbose", action="store_true", help="headless: print informational notices too"
    )
    from agentcli.frontends.sdk.flags import add_sdk_flags

    add_sdk_flags(parser)
    parser.add_argument(
        "--acp",
        action="store_true",
        help="serve the Agent Client Protocol on stdin/stdout, for editors such as Zed "
        "(trusts the folders it is given, as -p does)",
    )
    return parser


def _parsed(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace | int:
    """The parsed arguments, their text decoded (cli/command_line_text.py); EXIT_USAGE, said
    on stderr, for a value that must be text and is not."""
    from agentcli.cli.command_line_text import Undecodable, decoded_args

    try:
        return decoded_args(parser.parse_args(argv))
    except Undecodable as problem:
        from agentcli.frontends.headless.output import report

        report(f"error: {problem}")
        return EXIT_USAGE


def _stdin_prompt() -> str | None:
    """The prompt piped to `agentcli -p`; None when stdin is closed or a terminal (a
    person typing would not know that -p waits for the end of input)."""
    from agentcli.cli.command_line_text import read_prompt

    stdin = sys.stdin
    if stdin is None or _is_terminal(stdin):
        return None
    try:
        return read_prompt(stdin.buffer)
    except (OSError, ValueError, AttributeError):  # closed under us, or no byte stream
        return None


def _stdin_state() -> str:
    stdin = sys.stdin
    if stdin is None:
        return "stdin is closed"
    return "stdin is a terminal" if _is_terminal(stdin) else "stdin was empty"


def _is_terminal(stream: TextIO | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (OSError, ValueError):
        return False


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _effort(text: str) -> str:
    from agentcli.core.reasoning import EFFORT_LEVELS, parse_effort

    level = parse_effort(text)
    if level is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not one of {', '.join(EFFORT_LEVELS)}")
    return level


def config_command(argv: list[str]) -> int:
    """`agentcli config [--model M] [--permission-mode X] [--allowedTools ...] ...`.

    Accepts the session flags, so a person can see what a command line would
    add to their settings files.
    """
    from agentcli.config.show import render_settings
    from agentcli.wiring.bootstrap import Options, settings_for

    args = _parsed(build_parser(), argv)
    if isinstance(args, int):
        return args
    settings = settings_for(Options.from_args(args))
    print(render_settings(settings))
    return 1 if settings.problems else 0


def run(argv: list[str]) -> int:
    if argv[:1] == ["config"]:  # `agentcli config [flags]`: the merged settings and their sources
        return config_command(argv[1:])
    if argv[:1] == ["mcp"]:  # `agentcli mcp add|add-json|list|get|remove`: MCP server files
        from agentcli.cli.mcp_command import main as mcp_main

        return mcp_main(argv[1:])
    if argv[:1] == ["export"]:  # `agentcli export --format atif SESSION`: for other tools
        from agentcli.cli.export_command import main as export_main

        return export_main(argv[1:])
    parser = build_parser()
    args = _parsed(parser, argv)
    if isinstance(args, int):
        return args
    if args.print_mode or args.acp or args.input_format == "stream-json":
        from agentcli.providers import tls

        # The certificates load on another core while the rest starts (the app starts
        # this after its first frame, which it must not delay: frontends/tui/startup.py).
        tls.prepare()
    if args.acp:
        if args.print_mode or args.prompt is not None:
            parser.error("--acp takes its prompts from the client; drop -p and the prompt")
        from agentcli.frontends.acp.main import main as acp_main

        return acp_main(args)
    if args.rewind_to is not None:  # restore code from a session's checkpoints, then exit
        from agentcli.cli.rewind_command import main as rewind_main

        return rewind_main(args)
    if args.input_format == "stream-json":  # driven by a program: the Agent SDK's protocol
        from agentcli.frontends.sdk.session import main as sdk_main

        return sdk_main(args)
    if args.permission_mode == "dontAsk":
        if not args.print_mode:
            parser.error("--permission-mode dontAsk is for runs that cannot ask (-p)")
        args.permission_mode = "default"  # -p asks nobody: what is not allowed is refused
    if args.print_mode:
        from agentcli.frontends.headless.output import report

        prompt = args.prompt if args.prompt is not None else _stdin_prompt()
        if not prompt or not prompt.strip():
            given = "the one given is blank" if args.prompt is not None else _stdin_state()
            report(f"error: {NO_PROMPT}; {given}")
            return EXIT_USAGE
        from agentcli.frontends.headless.run import main as headless_main
        from agentcli.frontends.sdk.flags import notes, prepared

        with prepared(args) as problem:  # the SDK's flags mean the same with -p
            if problem:
                report(f"error: {problem}")
                return 1
            for note in notes(args):
                report(f"note: {note}")
            return headless_main(args, prompt)
    from agentcli.frontends.tui.app_terminal import app_terminal_problem

    problem = app_terminal_problem()
    if problem is not None:  # said at once, instead of drawing where nobody sees
        from agentcli.frontends.headless.output import report

        report(f"error: {problem}")
        if _is_terminal(sys.stdout) and not _is_terminal(sys.stderr):
            print(f"agentcli: error: {problem}")  # stderr goes elsewhere: the person is here
        return 1
    from agentcli.frontends.tui.launch import main as tui_main

    return tui_main(args)
