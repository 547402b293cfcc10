"""The image on the system clipboard, for Ctrl+V in the prompt.

A terminal passes text pastes to the app, never images, so the app asks the
system itself, with the tool each desktop has: `wl-paste` under Wayland,
`xclip` under X11, `pngpaste` or `osascript` on macOS. The first that is
installed and whose display is there is asked which types the clipboard
holds, then for the image's bytes. The answer is one of: the bytes, "no image
on the clipboard", or why the clipboard cannot be read (no such tool, no
display, a tool that failed or hung). Output is bounded (MAX_SOURCE_BYTES)
and each command has a time limit.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from agentcli.core.child_process import run_child
from agentcli.core.images import MAX_SOURCE_BYTES

TIMEOUT_S = 5.0
IMAGE_TYPES = ("image/png", "image/jpeg", "image/webp", "image/gif")


@dataclass(frozen=True)
class ClipboardImage:
    data: bytes | None  # None: see `problem`
    problem: str = ""


class _Failed(Exception):
    """The command ran and failed (as the tools do when the clipboard is empty)."""


class _Unreadable(_Failed):
    """The command could not start, hung, or said too much."""


async def read_clipboard_image(environ: Mapping[str, str] | None = None) -> ClipboardImage:
    env = dict(os.environ if environ is None else environ)
    path = env.get("PATH")
    try:
        if sys.platform == "darwin":
            return await _macos(path)
        if env.get("WAYLAND_DISPLAY") and shutil.which("wl-paste", path=path):
            return await _with_types(
                ["wl-paste", "--list-types"], lambda t: ["wl-paste", "--no-newline", "--type", t]
            )
        if env.get("DISPLAY") and shutil.which("xclip", path=path):
            return await _with_types(
                ["xclip", "-selection", "clipboard", "-t", "TARGETS", "-o"],
                lambda t: ["xclip", "-selection", "clipboard", "-t", t, "-o"],
            )
    except _Failed as failed:
        return ClipboardImage(None, f"The clipboard could not be read: {failed}")
    if not env.get("WAYLAND_DISPLAY") and not env.get("DISPLAY"):
        why = "there is no graphical display here (no WAYLAND_DISPLAY or DISPLAY)"
    else:
        why = "it needs wl-paste (Wayland) or xclip (X11), and neither is installed"
    return ClipboardImage(None, f"The clipboard cannot be read: {why}.")


NO_IMAGE = ClipboardImage(None, "No image on the clipboard.")


async def _with_types(list_types: list[str], read: Callable[[str], list[str]]) -> ClipboardImage:
    try:
        listed = (await _run(list_types)).decode("utf-8", "replace").split()
    except _Unreadable:
        raise
    except _Failed as failed:  # both say so (and fail) when the clipboard is empty
        return ClipboardImage(None, f"No image on the clipboard ({failed}).")
    kind = next((t for t in IMAGE_TYPES if t in listed), None)
    if kind is None:
        return NO_IMAGE
    return ClipboardImage(await _run(read(kind)))


_OSASCRIPT_DATA = re.compile(r"«data PNGf([0-9A-Fa-f]+)»")


async def _macos(path: str | None) -> ClipboardImage:
    if shutil.which("pngpaste", path=path):
        try:
            return ClipboardImage(await _run(["pngpaste", "-"]))
        except _Failed:
            return NO_IMAGE  # pngpaste fails when the clipboard holds no image
    if shutil.which("osascript", path=path):
        try:
            out = await _run(["osascript", "-e", "the clipboard as «class PNGf»"])
        except _Failed:
            return NO_IMAGE  # it fails when the clipboard cannot be made a PNG
        found = _OSASCRIPT_DATA.search(out.decode("utf-8", "replace"))
        return ClipboardImage(bytes.fromhex(found.group(1))) if found else NO_IMAGE
    return ClipboardImage(None, "The clipboard cannot be read: osascript is not on PATH.")


async def _run(argv: list[str]) -> bytes:
    """The command's standard output; _Failed when it fails, hangs or says too much."""
    try:
        done = await run_child(
            argv,
            stdin=None,
            cwd=None,
            env=None,
            timeout_s=TIMEOUT_S,
            limit=MAX_SOURCE_BYTES,
            stop_at_limit=True,
        )
    except OSError as exc:
        raise _Unreadable(f"{argv[0]}: {exc.strerror or exc}") from exc
    if done.timed_out:
        raise _Unreadable(f"{argv[0]} did not answer within {TIMEOUT_S:g} s")
    if done.cut:
        raise _Unreadable(f"the image is more than {MAX_SOURCE_BYTES // 1024 // 1024} MB")
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise _Failed(f"{argv[0]} failed" + (f": {detail[-1]}" if detail else ""))
    return done.stdout
