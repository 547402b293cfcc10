"""The command line and stdin as text the model's API can take.

argv and stdin are bytes. Python decodes argv (and, under a UTF-8 locale,
stdin) with `surrogateescape`: a byte that is not UTF-8 becomes a lone
surrogate (0xE9 -> U+DCE9), which is not text. JSON writes it as an escape a
strict server refuses, so a prompt of `caf\\xe9` would fail as a bad request,
retried, on every turn. Each value is made text here, once, before anything
is built from it:

- prose (the prompt, from argv or stdin; `--system-prompt`,
  `--append-system-prompt`): a byte that is not UTF-8 becomes U+FFFD, as
  Claude Code (Node) decodes it; the rest of the text goes through unchanged;
- paths (`--add-dir`, `--system-prompt-file`, a `--mcp-config` or
  `--settings` file): kept as they are, since a file name may be any bytes
  and the file system takes the same bytes back;
- every other value (`--model`, rules, tool names, ids, JSON text): refused
  with the flag and the byte named (`Undecodable`), before any request. A
  name with U+FFFD in it could never match the model, tool or rule it meant.

`AGENTCLI_MODEL` is held to the same rule as `--model`.

This module is imported on every start (cli/main.py): nothing heavy here.
"""

from __future__ import annotations

import os
from argparse import Namespace
from collections.abc import Mapping
from typing import BinaryIO

PROSE = frozenset({"prompt", "system_prompt", "append_system_prompt"})
PATHS = frozenset({"add_dirs", "system_prompt_file"})
FILE_OR_JSON = frozenset({"mcp_config", "settings"})  # JSON text starts with `{`
FLAG_NAMES = {  # where the flag is not `--` + the dest with dashes
    "allowed_tools": "--allowedTools",
    "disallowed_tools": "--disallowedTools",
    "resume": "--resume",
}


class Undecodable(ValueError):
    """A value that must be text holds bytes that are not UTF-8; the message says which."""


def as_text(value: str) -> str:
    """`value` with each byte that was not UTF-8 as U+FFFD."""
    if not has_raw_bytes(value):
        return value
    return os.fsencode(value).decode("utf-8", errors="replace")


def has_raw_bytes(value: str) -> bool:
    """True when `value` holds a byte Python could not decode (a lone surrogate)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def decoded_args(args: Namespace, environ: Mapping[str, str] = os.environ) -> Namespace:
    """`args` with its prose as text; raises Undecodable for a value that must be text."""
    for dest, value in vars(args).items():
        values = value if isinstance(value, list) else [value]
        if not any(isinstance(item, str) and has_raw_bytes(item) for item in values):
            continue
        kept_as_bytes = dest in PATHS or (
            dest in FILE_OR_JSON and not any(_is_json_text(item) for item in values)
        )
        if dest in PROSE:
            setattr(args, dest, as_text(value) if isinstance(value, str) else value)
        elif not kept_as_bytes:
            raw = next(item for item in values if isinstance(item, str) and has_raw_bytes(item))
            raise Undecodable(_refusal(FLAG_NAMES.get(dest, "--" + dest.replace("_", "-")), raw))
    model = environ.get("AGENTCLI_MODEL")
    if model is not None and has_raw_bytes(model):
        raise Undecodable(_refusal("AGENTCLI_MODEL", model))
    return args


def read_prompt(stream: BinaryIO) -> str:
    """All of stdin as text, bytes that are not UTF-8 as U+FFFD (the prompt's rule)."""
    return stream.read().decode("utf-8", errors="replace")


def _is_json_text(value: object) -> bool:
    return isinstance(value, str) and value.lstrip().startswith("{")


def _refusal(flag: str, value: str) -> str:
    raw = os.fsencode(value)
    shown = raw.decode("utf-8", errors="backslashreplace")
    return (
        f"{flag} is not valid UTF-8 (byte 0x{_first_bad_byte(raw):02x} in '{shown}'); "
        "it must be text: check the terminal's or the script's encoding"
    )


def _first_bad_byte(raw: bytes) -> int:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return raw[error.start]
    return 0
