"""`agentcli mcp add|add-json|list|get|remove|reset-project-choices|serve`, as `claude mcp`
has them (`serve`: agentcli as an MCP server, frontends/mcp_server/).

    agentcli mcp add [-s SCOPE] [-t stdio|http|sse] [-e KEY=VALUE]... [-H "Name: value"]...
                     NAME COMMAND_OR_URL [ARGS...]
    agentcli mcp add-json [-s SCOPE] NAME JSON
    agentcli mcp list | get NAME | remove [-s SCOPE] NAME | reset-project-choices
    agentcli mcp serve [--permission-mode MODE] [--allowedTools RULE...] [--http [--port N]]

Options come before the name; everything after it belongs to the server
(`agentcli mcp add db -- npx -y db-mcp --port 5432`). The scope (local by
default) picks the file (mcp/config/scopes.py). A server you add to the
project scope is approved for you here (you just wrote it); teammates are
asked. Exit status 0 on success, 1 with a message on stderr otherwise (usage
mistakes included). Everything shown from a file goes through
`visible_controls`, so a name or command cannot drive the terminal.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
from pathlib import Path
from typing import Any, NoReturn

from agentcli.config.json_store import JsonStoreError
from agentcli.config.trust import is_trusted
from agentcli.core.terminal_text import visible_controls
from agentcli.frontends.output_streams import say
from agentcli.mcp.config.approval import approve_project_servers, reset_project_choices
from agentcli.mcp.config.listing import ListedServer, Listing, list_servers
from agentcli.mcp.config.names import server_name_problem
from agentcli.mcp.config.scopes import (
    SCOPES,
    ScopeError,
    WritableScope,
    add_server,
    remove_server,
    scopes_holding,
)
from agentcli.mcp.config.specs import (
    SDK_SERVER,
    TRANSPORTS,
    HttpServer,
    SdkServer,
    ServerSpec,
    SpecError,
    SseServer,
    StdioServer,
    parse_spec,
)

_NAME = re.compile(r"[A-Za-z0-9_-]+")
TRUST_NOTE = (
    "This folder is not trusted: its .mcp.json and local servers are not used until you "
    "trust it (agentcli asks on start; agentcli -p trusts the folder it runs in)."
)


class UsageError(Exception):
    """A command line argparse cannot parse: shown with the usage, exit status 1."""


class InputError(Exception):
    """A command line that parses but cannot be carried out as given."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.format_usage().rstrip()}\n{self.prog}: error: {message}")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="agentcli mcp", description="Configure MCP servers.")
    actions = parser.add_subparsers(dest="action", required=True, metavar="COMMAND")
    add = actions.add_parser("add", help="add a server: NAME COMMAND [ARGS...] or NAME URL")
    _scope_option(add)
    add.add_argument("-t", "--transport", choices=TRANSPORTS, default="stdio")
    add.add_argument("-e", "--env", action="append", default=[], metavar="KEY=VALUE")
    add.add_argument("-H", "--header", action="append", default=[], metavar='"Name: value"')
    add.add_argument("name")
    add.add_argument("target", metavar="COMMAND_OR_URL")
    add.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS")
    add_json = actions.add_parser("add-json", help="add a server from its JSON entry")
    _scope_option(add_json)
    add_json.add_argument("name")
    add_json.add_argument("json", metavar="JSON")
    actions.add_parser("list", help="list the configured servers")
    get = actions.add_parser("get", help="show one server")
    get.add_argument("name")
    remove = actions.add_parser("remove", help="remove a server")
    remove.add_argument("-s", "--scope", choices=SCOPES, default=None)
    remove.add_argument("name")
    actions.add_parser(
        "reset-project-choices", help="forget your answers about this project's .mcp.json"
    )
    serve = actions.add_parser("serve", help="serve agentcli's tools and an agent over MCP")
    serve.add_argument(
        "--permission-mode",
        choices=["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"],
        default=None,
    )
    serve.add_argument("--allowedTools", dest="allowed_tools", nargs="+", metavar="RULE")
    serve.add_argument("--disallowedTools", dest="disallowed_tools", nargs="+", metavar="RULE")
    serve.add_argument("--model", default=None)
    serve.add_argument("--http", action="store_true", help="streamable HTTP on 127.0.0.1")
    serve.add_argument("--port", type=int, default=0, help="with --http (default: a free one)")
    return parser


def _scope_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-s", "--scope", choices=SCOPES, default="local")


def main(argv: list[str]) -> int:
    """Run `agentcli mcp ARGV` for the project in the current folder; the exit status."""
    project = Path.cwd().resolve()
    try:
        args = build_parser().parse_args(argv)
        return _run(args, project)
    except UsageError as exc:
        say(str(exc))
    except (InputError, ScopeError, OSError, JsonStoreError) as exc:
        say(f"agentcli mcp: {exc}")
    return 1


def _run(args: argparse.Namespace, project: Path) -> int:
    match args.action:
        case "add":
            return _add(project, args.scope, args.name, _entry_from_flags(args))
        case "add-json":
            return _add(project, args.scope, args.name, _entry_from_json(args.json))
        case "list":
            return _list(list_servers(project, trusted=is_trusted(project)))
        case "get":
            return _get(list_servers(project, trusted=is_trusted(project)), args.name)
        case "remove":
            return _remove(project, args.scope, args.name)
        case "serve":
            from agentcli.frontends.mcp_server.main import serve

            return serve(args)
        case _:
            reset_project_choices(project)
            print(f"Forgot your answers about the MCP servers of {_shown(str(project))}.")
            return 0


# -- add ------------------------------------------------------------------------


def _entry_from_flags(args: argparse.Namespace) -> dict[str, Any]:
    if args.transport == "stdio":
        if args.header:
            raise InputError("-H/--header is for http and sse servers")
        env = dict(_pair(text, "=", "-e/--env", "KEY=VALUE") for text in args.env)
        return {"type": "stdio", "command": args.target, "args": args.args, "env": env}
    if args.env:
        raise InputError("-e/--env is for stdio servers")
    if args.args:
        raise InputError(
            f"unexpected arguments after the url: {shlex.join(args.args)} "
            "(options go before the name)"
        )
    entry: dict[str, Any] = {"type": args.transport, "url": args.target}
    if args.header:
        entry["headers"] = dict(_pair(h, ":", "-H/--header", '"Name: value"') for h in args.header)
    return entry


def _pair(text: str, separator: str, flag: str, shape: str) -> tuple[str, str]:
    key, found, value = text.partition(separator)
    if not found or not key.strip():
        raise InputError(f"{flag} expects {shape}, got {text!r}")
    return key.strip(), value.strip() if separator == ":" else value


def _entry_from_json(text: str) -> dict[str, Any]:
    try:
        entry = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"the JSON is not valid: {exc.msg} (column {exc.colno})") from exc
    if not isinstance(entry, dict):
        raise InputError('the JSON must be one server entry, like {"command": "..."}')
    return entry


def _add(project: Path, scope: WritableScope, name: str, entry: dict[str, Any]) -> int:
    if not _NAME.fullmatch(name):
        raise InputError(
            f"invalid server name {name!r}: use letters, digits, hyphens and underscores"
        )
    problem = server_name_problem(name)  # what a session would refuse to start
    if problem is not None:
        raise InputError(f"invalid server name {name!r}: {problem}")
    try:  # refuse what a session could not use, before touching a file
        parse_spec(entry)
    except SpecError as exc:
        raise InputError(f"server {name!r}: {exc}") from exc
    path = add_server(project, scope, name, entry)
    print(f"Added MCP server {name} to the {scope} scope ({_shown(str(path))}).")
    if scope == "project":
        _approve_own(project, name)
    if scope != "user" and not is_trusted(project):
        print(TRUST_NOTE)
    return 0


def _approve_own(project: Path, name: str) -> None:
    try:
        approve_project_servers(project, [name])
    except (OSError, JsonStoreError) as exc:
        say(
            f"agentcli mcp: could not remember your approval ({_shown(str(exc))}): "
            "agentcli will ask about it on start"
        )


# -- remove ---------------------------------------------------------------------


def _remove(project: Path, scope: WritableScope | None, name: str) -> int:
    if scope is None:
        holding = scopes_holding(project, name)
        if not holding:
            raise ScopeError(f"no MCP server named {_shown(name)!r} in any scope")
        if len(holding) > 1:
            raise ScopeError(
                f"{_shown(name)!r} is in several scopes ({', '.join(holding)}): "
                "say which with --scope"
            )
        scope = holding[0]
    path = remove_server(project, scope, name)
    print(f"Removed MCP server {_shown(name)} from the {scope} scope ({_shown(str(path))}).")
    return 0


# -- list and get -----------------------------------------------------------------


def _list(listing: Listing) -> int:
    if not listing.servers and not listing.problems:
        print("No MCP servers configured. Add one with: agentcli mcp add NAME -- COMMAND [ARGS...]")
    for server in listing.servers:
        print(f"{_shown(server.name)}: {_target(server.spec)}  [{_where(server)}]")
    return _footer(listing)


def _get(listing: Listing, name: str) -> int:
    found = [server for server in reversed(listing.servers) if server.name == name]
    if not found:
        problems = [p for p in listing.problems if f"MCP server {name!r}:" in p]
        reason = f": {_shown(problems[0])}" if problems else ""
        raise ScopeError(f"no usable MCP server named {_shown(name)!r}{reason}")
    for index, server in enumerate(found):
        if index:
            print()
        print(f"{_shown(server.name)}:")
        print(f"  Scope: {server.scope} ({_shown(str(server.source))})")
        print(f"  Status: {server.status}")
        for label, value in _details(server.spec):
            print(f"  {label}: {value}")
    return _footer(listing, only=name)


def _footer(listing: Listing, only: str | None = None) -> int:
    """Notes and problems after a list; the exit status (1 when there are problems)."""
    problems = listing.problems
    if only is not None:
        problems = [p for p in problems if f"MCP server {only!r}:" in p]
    if not listing.trusted and any(s.scope != "user" for s in listing.servers):
        print(f"\n{TRUST_NOTE}")
    if problems:
        say("\nProblems:")
        for problem in problems:
            say(f"  ! {_shown(problem)}")
        return 1
    return 0


def _where(server: ListedServer) -> str:
    return f"{server.scope}, {server.status}"


def _target(spec: ServerSpec) -> str:
    match spec:
        case StdioServer():
            return _shown(shlex.join([spec.command, *spec.args]))
        case HttpServer() | SseServer():
            return f"{_shown(spec.url)} ({spec.type})"
        case SdkServer():
            return SDK_SERVER


def _details(spec: ServerSpec) -> list[tuple[str, str]]:
    match spec:
        case StdioServer():
            rows = [("Type", "stdio"), ("Command", _shown(spec.command))]
            rows.append(("Args", _shown(shlex.join(spec.args)) if spec.args else "(none)"))
            rows += [(f"Env {_shown(k)}", _shown(v)) for k, v in spec.env.items()]
        case HttpServer() | SseServer():
            rows = [("Type", spec.type), ("URL", _shown(spec.url))]
            rows += [(f"Header {_shown(k)}", _shown(v)) for k, v in spec.headers.items()]
        case SdkServer():
            rows = [("Type", "sdk"), ("Runs", SDK_SERVER)]
    return rows


def _shown(text: str) -> str:
    """One line, every control character shown rather than obeyed."""
    return visible_controls(text.replace("\n", "\\n").replace("\t", "\\t"))
