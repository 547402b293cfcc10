"""An image the person attaches, made fit for the Messages API: kind, size, block.

The API takes PNG, JPEG, GIF and WebP, and checks the data: the media type must
be the one the bytes are (so it is read from the bytes, never from the file's
name), the base64 text at most 5 MB, and each edge at most 8000 px, or 2000 px
once a request holds more than 20 images. A conversation keeps sending every
image it was given, so it passes 20 images sooner than one prompt does: the
2000 px limit is the one that holds for every request, and it is the one used
here (the API scales anything past about 1568 px down anyway, so the model sees
no less). An image within both limits goes as its own bytes; one over them is
scaled down (and re-encoded smaller if it still does not fit) with Pillow,
imported only then: most screenshots never need it.

`fit_image()` raises `ImageProblem` with a sentence for the person when the
bytes are not an image of those kinds, cannot be decoded (the API would refuse
them, and a refused image fails every later request of the conversation), or
are too large to read at all. Every image that enters a conversation comes
through here: the person's (prompt), Read's files and notebooks' figures.
"""

from __future__ import annotations

import base64
import io
import struct
import zlib
from dataclasses import dataclass
from typing import Any

from agentcli.core.messages import ImageBlock

MAX_BASE64_CHARS = 5 * 1024 * 1024  # the API's per-image limit, on the base64 text
MAX_EDGE_PX = 2000  # the API's limit for requests of more than 20 images (module doc)
MAX_SOURCE_BYTES = 30 * 1024 * 1024  # a file or clipboard larger is not read at all
MAX_SOURCE_PIXELS = 8000 * 8000  # larger is refused before decoding (under Pillow's bomb warning)
KINDS = "PNG, JPEG, GIF or WebP"


class ImageProblem(Exception):
    """Why these bytes cannot be attached, in words for the person."""


def sniff_image(head: bytes) -> str | None:
    """The media type the magic bytes announce, if one the API takes."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def image_size(data: bytes, media_type: str) -> tuple[int, int] | None:
    """(width, height) from the header, without decoding; None when it cannot be read."""
    try:
        if media_type == "image/png" and data[12:16] == b"IHDR":
            width, height = struct.unpack(">II", data[16:24])
            return width, height
        if media_type == "image/gif":
            width, height = struct.unpack("<HH", data[6:10])
            return width, height
        if media_type == "image/webp":
            return _webp_size(data)
        if media_type == "image/jpeg":
            return _jpeg_size(data)
    except struct.error:
        return None
    return None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8 " and data[23:26] == b"\x9d\x01\x2a":
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L" and data[20:21] == b"\x2f":
        bits = int.from_bytes(data[21:25], "little")
        return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
    if chunk == b"VP8X":
        return 1 + int.from_bytes(data[24:27], "little"), 1 + int.from_bytes(data[27:30], "little")
    return None


# Start-of-frame markers (not DHT C4, JPG C8, DAC CC, which share the range).
_JPEG_FRAMES = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    at = 2
    while at + 4 <= len(data):
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # no length
            at += 2
            continue
        (length,) = struct.unpack(">H", data[at + 2 : at + 4])
        if marker in _JPEG_FRAMES:
            height, width = struct.unpack(">HH", data[at + 5 : at + 9])
            return width, height
        at += 2 + length
    return None


@dataclass(frozen=True)
class FittedImage:
    """An image as it goes to the model: its bytes (the source's own, or scaled)."""

    media_type: str
    data: bytes
    width: int
    height: int
    resized_from: tuple[int, int] | None = None  # the source's size when scaled

    def block(self) -> ImageBlock:
        return {
            "type": "image",
            "source": {
                "type": "base64",
                "media_type": self.media_type,
                "data": base64.b64encode(self.data).decode("ascii"),
            },
        }

    def describe(self) -> str:
        """`1280×720, 340 KB` (and what it was scaled from)."""
        size = f"{self.width}×{self.height}, {_kilobytes(len(self.data))}"
        if self.resized_from is not None:
            size += f", scaled down from {self.resized_from[0]}×{self.resized_from[1]}"
        return size


def _kilobytes(count: int) -> str:
    return (
        f"{count / 1024 / 1024:.1f} MB" if count >= 1024 * 1024 else f"{max(1, count // 1024)} KB"
    )


def base64_chars(count: int) -> int:
    return 4 * ((count + 2) // 3)


def fit_image(data: bytes) -> FittedImage:
    """The image as the API takes it (see the module's docstring), or ImageProblem."""
    if len(data) > MAX_SOURCE_BYTES:
        raise ImageProblem(
            f"it is {_kilobytes(len(data))}, more than the "
            f"{MAX_SOURCE_BYTES // 1024 // 1024} MB an attached image may be"
        )
    media_type = sniff_image(data[:16])
    if media_type is None:
        raise ImageProblem(f"it is not a {KINDS} image")
    size = image_size(data, media_type)
    if size is None or min(size) < 1:
        raise ImageProblem(f"its {media_type.split('/')[1].upper()} header could not be read")
    width, height = size
    if width * height > MAX_SOURCE_PIXELS:
        raise ImageProblem(f"it is {width}×{height} pixels, too large to be scaled down")
    if max(size) <= MAX_EDGE_PX and base64_chars(len(data)) <= MAX_BASE64_CHARS:
        for candidate in _as_is_then_repaired(data, media_type):
            if _decodes(candidate):
                return FittedImage(media_type, candidate, width, height)
        raise ImageProblem(f"it could not be decoded ({_decode_problem(data)})")
    return _scaled(data, media_type, size)


def _as_is_then_repaired(data: bytes, media_type: str) -> list[bytes]:
    """The bytes, then (a PNG) the bytes without ancillary chunks whose checksum is
    wrong: libpng-based decoders pass over those, Pillow refuses them, and the MCP
    reference server's own sample image has one."""
    if media_type != "image/png":
        return [data]
    repaired = _png_without_bad_ancillary_chunks(data)
    return [data] if repaired is None else [data, repaired]


def _png_without_bad_ancillary_chunks(data: bytes) -> bytes | None:
    """The PNG with its bad ancillary chunks left out; None when it has none (or its
    chunks cannot be walked)."""
    kept = [data[:8]]
    dropped = False
    pos = 8
    while pos + 12 <= len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        end = pos + 12 + length
        if end > len(data):
            return None
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : end - 4]
        (crc,) = struct.unpack(">I", data[end - 4 : end])
        if zlib.crc32(kind + body) & 0xFFFFFFFF != crc and kind[:1].islower():
            dropped = True
        else:
            kept.append(data[pos:end])
        pos = end
        if kind == b"IEND":
            break
    return b"".join(kept) if dropped else None


def _decodes(data: bytes) -> bool:
    """Whether the pixels decode. The API refuses an image it cannot decode, and a
    refused image stays in the conversation and fails every request after it."""
    return _decode_problem(data) is None


def _decode_problem(data: bytes) -> str | None:
    try:
        from PIL import Image
    except ImportError:  # an install without Pillow: the header was all that could be read
        return None
    try:
        with Image.open(io.BytesIO(data)) as opened:
            opened.load()  # an animation: its first frame
    except Exception as exc:  # Pillow raises many kinds for a broken file
        return str(exc) or type(exc).__name__
    return None


def _decoded(data: bytes, media_type: str) -> Any:
    """The first frame as RGB(A), of the bytes or their repair; ImageProblem if neither."""
    from PIL import Image

    for candidate in _as_is_then_repaired(data, media_type):
        try:
            with Image.open(io.BytesIO(candidate)) as opened:
                opened.seek(0)
                return opened.convert("RGBA" if _has_alpha(opened) else "RGB")
        except Exception:  # Pillow raises many kinds for a broken file
            continue
    raise ImageProblem(f"it could not be decoded ({_decode_problem(data)})")


def _scaled(data: bytes, media_type: str, size: tuple[int, int]) -> FittedImage:
    """Scaled to MAX_EDGE_PX, in its own format, then as JPEG of falling quality and smaller sizes until
    the base64 text fits."""
    try:
        from PIL import Image
    except ImportError as exc:  # an install without it: say what is missing
        raise ImageProblem(
            "it is over the API's limits and Pillow, which scales it down, is not installed"
        ) from exc
    image = _decoded(data, media_type)
    edge = MAX_EDGE_PX
    while edge >= 64:
        scaled = _fit_edge(image, edge, Image.Resampling.LANCZOS)
        own = "PNG" if media_type in ("image/png", "image/gif") else media_type.split("/")[1]
        for fmt, quality in ((own.upper(), 90), ("JPEG", 85), ("JPEG", 60), ("JPEG", 40)):
            out = _encode(scaled, fmt, quality)
            if base64_chars(len(out)) <= MAX_BASE64_CHARS:
                return FittedImage(
                    "image/" + fmt.lower(), out, scaled.width, scaled.height, resized_from=size
                )
        edge //= 2
    raise ImageProblem("it could not be made small enough for the API")  # pragma: no cover


def _has_alpha(image: Any) -> bool:
    return image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info


def _fit_edge(image: Any, edge: int, method: Any) -> Any:
    if max(image.size) <= edge:
        return image
    ratio = edge / max(image.size)
    return image.resize(
        (max(1, round(image.width * ratio)), max(1, round(image.height * ratio))), method
    )


def _encode(image: Any, fmt: str, quality: int) -> bytes:
    if fmt == "JPEG" and image.mode != "RGB":  # JPEG has no alpha: over white
        from PIL import Image

        flat = Image.new("RGB", image.size, (255, 255, 255))
        flat.paste(image, mask=image.getchannel("A") if "A" in image.mode else None)
        image = flat
    out = io.BytesIO()
    image.save(out, format=fmt, quality=quality, optimize=True)
    return out.getvalue()
