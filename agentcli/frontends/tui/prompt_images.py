"""Images attached to the prompt: `[Image #1]` in the text, the image kept here.

A terminal hands a dragged-in file to the app as a paste of its path, in one
of a few shapes: plain (`/tmp/shot.png`), quoted (`'/tmp/my shot.png'`), with
backslash-escaped spaces (`/tmp/my\\ shot.png`), as a `file://` URL (spaces as
`%20`), several of them separated by spaces or lines. `pasted_paths()` reads
those shapes, and only when the whole paste is such paths of existing files
(absolute, `~/`, or `file://`: what drag-and-drop gives), so a pasted sentence
or snippet is never taken for one. Each image among them becomes a token in
the prompt and an attachment here; any other file stays as the text pasted.

Tokens are numbered per prompt, from 1; the numbers go on rising while the
prompt is being written, so a deleted token's number is never given to
another image. When the prompt is sent, the images whose token is still in
the text go with it (`take()`), before the text, in the order of their
tokens; the text keeps its tokens, so the model, the transcript and a resumed
session read `[Image #1]` where the person put it. A deleted token's image
does not go.

Bounds: each image is made fit for the API when attached (core/images.py: at
most 5 MB of base64, 2000 px an edge), and a prompt holds at most
MAX_IMAGES images and MAX_TOTAL_BASE64 of them in all (the API refuses a
request over 32 MB; the transcript records each image as sent).
"""

from __future__ import annotations

import base64
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from agentcli.core.images import (
    MAX_SOURCE_BYTES,
    FittedImage,
    ImageProblem,
    base64_chars,
    fit_image,
    sniff_image,
)
from agentcli.core.messages import Block, ImageBlock, Message, is_image, text_of

MAX_IMAGES = 20
MAX_TOTAL_BASE64 = 20 * 1024 * 1024
MAX_PASTE_CHARS = 8192  # a longer paste is text, never paths
MAX_PATHS = 50

TOKEN = re.compile(r"\[Image #(\d+)\]")


def token(number: int) -> str:
    return f"[Image #{number}]"


def pasted_paths(text: str) -> list[Path] | None:
    """The files a paste names, when it is nothing but paths of existing files."""
    text = text.strip()
    if not text or len(text) > MAX_PASTE_CHARS:
        return None
    try:
        words = shlex.split(text)
    except ValueError:  # an unbalanced quote: maybe one path with a quote in its name
        words = [text]
    if not words or len(words) > MAX_PATHS:
        return None
    paths = [_as_path(word) for word in words]
    if all(p is not None and _is_file(p) for p in paths):
        return [p for p in paths if p is not None]
    single = _as_path(text)  # one path with unescaped spaces
    if single is not None and _is_file(single):
        return [single]
    return None


def _as_path(word: str) -> Path | None:
    if word.startswith("file://"):
        url = urlparse(word)
        if url.netloc not in ("", "localhost"):
            return None
        return Path(unquote(url.path))
    if word.startswith("~/"):
        return Path(word).expanduser()
    if word.startswith("/"):
        return Path(word)
    return None


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:  # a name too long, a loop of links
        return False


def is_image_file(path: Path) -> bool:
    """Whether the file's first bytes are those of an image the API takes."""
    try:
        with path.open("rb") as handle:
            return sniff_image(handle.read(16)) is not None
    except OSError:
        return False


IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp"})


def looks_like_image(path: Path) -> bool:
    """An image by its bytes, or a file named as one (which is told why it is not)."""
    return path.suffix.lower() in IMAGE_SUFFIXES or is_image_file(path)


def read_image_file(path: Path) -> FittedImage:
    """The file's image, fit for the API; ImageProblem (in words) when it cannot be."""
    try:
        with path.open("rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > MAX_SOURCE_BYTES:
                raise ImageProblem(
                    f"it is {size / 1024 / 1024:.1f} MB, more than the "
                    f"{MAX_SOURCE_BYTES // 1024 // 1024} MB an attached image may be"
                )
            data = handle.read(MAX_SOURCE_BYTES + 1)
    except OSError as exc:
        raise ImageProblem(f"it could not be read: {exc.strerror or exc}") from exc
    return fit_image(data)


@dataclass(frozen=True)
class Attached:
    number: int
    name: str  # where it came from, for notes: the file's name, "clipboard"
    image: FittedImage


class PromptImages:
    """The images of the prompt being written, by token number."""

    def __init__(self) -> None:
        self._images: dict[int, Attached] = {}
        self._next = 1

    def __len__(self) -> int:
        return len(self._images)

    def add(self, name: str, image: FittedImage) -> str:
        """The token for a new image; ImageProblem when the prompt has no room for it."""
        if len(self._images) >= MAX_IMAGES:
            raise ImageProblem(f"a prompt holds at most {MAX_IMAGES} images")
        used = sum(base64_chars(len(a.image.data)) for a in self._images.values())
        if used + base64_chars(len(image.data)) > MAX_TOTAL_BASE64:
            raise ImageProblem(
                f"the prompt's images would pass {MAX_TOTAL_BASE64 // 1024 // 1024} MB in all"
            )
        number = self._next
        self._next += 1
        self._images[number] = Attached(number, name, image)
        return token(number)

    def take(self, text: str) -> list[Block]:
        """The image blocks of the tokens in `text`, in their order; the prompt's images
        are forgotten (the next prompt numbers from 1 again)."""
        blocks: list[Block] = []
        seen: set[int] = set()
        for match in TOKEN.finditer(text):
            number = int(match.group(1))
            attached = self._images.get(number)
            if attached is not None and number not in seen:
                seen.add(number)
                blocks.append(attached.image.block())
        self.clear()
        return blocks

    def clear(self) -> None:
        self._images.clear()
        self._next = 1

    def restore(self, message: Message) -> None:
        """A sent prompt's images back as this prompt's (a rewind puts it back in the
        input): the message's image blocks, matched to its tokens in order."""
        self.clear()
        content = message.get("content")
        blocks = [b for b in content if is_image(b)] if isinstance(content, list) else []
        numbers = list(dict.fromkeys(int(m.group(1)) for m in TOKEN.finditer(text_of(message))))
        for number, block in zip(numbers, blocks, strict=False):
            image = _from_block(block)
            if image is not None:
                self._images[number] = Attached(number, "rewound prompt", image)
        self._next = max(self._images, default=0) + 1


def _from_block(block: ImageBlock) -> FittedImage | None:
    source = block["source"]
    if source["type"] != "base64":
        return None
    try:
        data = base64.b64decode(source["data"], validate=True)
    except ValueError:
        return None
    return FittedImage(source["media_type"], data, 0, 0)


@dataclass(frozen=True)
class PromptWithImages:
    """A prompt sent with its images: the turn puts them before its text."""

    text: str
    images: list[Block]
