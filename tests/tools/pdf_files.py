"""Small PDFs written byte by byte for the PDF tests: pages of text, blank pages, and the
hostile kinds (a broken cross-reference table, an encrypted file, a page tree that
claims a billion pages, a page the size of a field, a content stream that inflates
to gigabytes)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Deflated:
    """A content stream given already compressed (FlateDecode)."""

    body: bytes


def _escape(text: str) -> bytes:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").encode("latin-1")


def page_content(lines: Sequence[str]) -> bytes:
    """A content stream drawing `lines` in Helvetica, top down."""
    out = [b"BT /F1 11 Tf 14 TL 50 750 Td"]
    for line in lines:
        out.append(b"(" + _escape(line) + b") Tj T*")
    out.append(b"ET")
    return b"\n".join(out)


def build_pdf(
    pages: Sequence[bytes | Deflated],
    *,
    media_box: str = "0 0 612 792",
    count: int | None = None,
    trailer_extra: str = "",
    extra_objects: Sequence[bytes] = (),
    break_xref: bool = False,
) -> bytes:
    """A PDF with one page per content stream in `pages`. `count` overrides the page
    tree's /Count; `break_xref` writes wrong offsets in the cross-reference table."""
    objects: list[bytes] = []
    n = len(pages)
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(n))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(
        f"<< /Type /Pages /Kids [{kids}] /Count {count if count is not None else n} >>".encode()
    )
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for i, content in enumerate(pages):
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [{media_box}] "
            f"/Resources << /Font << /F1 3 0 R >> >> /Contents {5 + 2 * i} 0 R >>".encode()
        )
        if isinstance(content, Deflated):
            body = content.body
            objects.append(
                f"<< /Length {len(body)} /Filter /FlateDecode >>\nstream\n".encode()
                + body
                + b"\nendstream"
            )
        else:
            objects.append(
                f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream"
            )
    objects += list(extra_objects)
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref_at = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        shown = (offset * 7 + 13) if break_xref else offset
        out += f"{shown:010d} 00000 n \n".encode()
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R {trailer_extra} >>\n"
        f"startxref\n{xref_at + (5 if break_xref else 0)}\n%%EOF\n"
    ).encode()
    return bytes(out)


def text_pdf(texts: Sequence[Sequence[str]], **options: object) -> bytes:
    """One page per entry of `texts`, each drawing its lines."""
    return build_pdf([page_content(lines) for lines in texts], **options)  # type: ignore[arg-type]


def encrypted_pdf() -> bytes:
    """A PDF whose standard security handler wants a password nobody gave."""
    encrypt = (
        b"<< /Filter /Standard /V 1 /R 2 /O <" + b"11" * 32 + b"> /U <" + b"22" * 32 + b"> /P -4 >>"
    )
    body = text_pdf([["secret"]], extra_objects=[encrypt])
    # The trailer names the dictionary (object 6) and the file's id.
    return body.replace(
        b"/Root 1 0 R ",
        b"/Root 1 0 R /Encrypt 6 0 R /ID [<0123456789abcdef0123456789abcdef> "
        b"<0123456789abcdef0123456789abcdef>] ",
    )


def bomb_content(size: int) -> bytes:
    """A zlib stream that inflates to about `size` spaces, in some size/200 bytes.

    Written directly as one fixed-Huffman deflate block (a space, then matches of 258
    bytes at distance 1), since compressing gigabytes takes zlib many seconds."""
    groups = max(1, (size - 259) // (258 * 8))
    matches = 1 + 8 * groups

    def packed(bits: str) -> bytes:  # deflate puts each byte's first bit lowest
        bits += "0" * (-len(bits) % 8)
        return int(bits[::-1], 2).to_bytes(len(bits) // 8, "little")

    match = "11000101" + "00000"
    # A space and one match fill 3 bytes; then every 8 matches are the same 13 bytes.
    deflated = packed("110" + "01010000" + match) + packed(match * 8) * groups
    deflated += packed("0000000")
    total = 1 + 258 * matches
    # Adler-32 of `total` spaces, worked out rather than run over gigabytes.
    low = (1 + total * 32) % 65521
    high = (total + 32 * total * (total + 1) // 2) % 65521
    checksum = (high << 16) | low
    return b"\x78\x01" + deflated + checksum.to_bytes(4, "big")


def bomb_pdf(size: int) -> bytes:
    """One page whose content stream inflates to `size` bytes."""
    return build_pdf([Deflated(bomb_content(size))])
