"""An attached image made fit for the API: the kind from the bytes, the size from the
header, the bytes kept when within the limits and scaled down only when over them."""

from __future__ import annotations

import base64
import io
import os

import pytest
from PIL import Image

from agentcli.core.images import (
    MAX_BASE64_CHARS,
    MAX_EDGE_PX,
    MAX_SOURCE_BYTES,
    ImageProblem,
    fit_image,
    image_size,
    sniff_image,
)
from tests.fakeapi.images import check_images


def encoded(fmt: str, size: tuple[int, int], mode: str = "RGB", **save: object) -> bytes:
    image = Image.new(mode, size, (200, 30, 90) if mode == "RGB" else None)
    out = io.BytesIO()
    image.save(out, format=fmt, **save)
    return out.getvalue()


def noise(size: tuple[int, int]) -> bytes:
    """A PNG that does not compress: random pixels."""
    image = Image.frombytes("RGB", size, os.urandom(size[0] * size[1] * 3))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def accepted_by_the_api(block: dict) -> str | None:
    return check_images([{"role": "user", "content": [block]}])


@pytest.mark.parametrize(
    ("fmt", "media_type", "save"),
    [
        ("PNG", "image/png", {}),
        ("JPEG", "image/jpeg", {}),
        ("JPEG", "image/jpeg", {"progressive": True}),
        ("GIF", "image/gif", {}),
        ("WEBP", "image/webp", {"lossless": True}),
        ("WEBP", "image/webp", {"quality": 80}),
    ],
)
def test_the_kind_and_size_come_from_the_bytes_of_each_format(fmt, media_type, save):
    data = encoded(fmt, (321, 123), **save)
    assert sniff_image(data[:16]) == media_type
    assert image_size(data, media_type) == (321, 123)
    fitted = fit_image(data)
    assert (fitted.media_type, fitted.data, fitted.resized_from) == (media_type, data, None)
    assert accepted_by_the_api(fitted.block()) is None


def test_webp_with_alpha_has_its_size_read_from_the_extended_header():
    data = encoded("WEBP", (300, 77), mode="RGBA", quality=80)
    assert image_size(data, "image/webp") == (300, 77)


def test_a_jpeg_named_png_is_sent_as_the_jpeg_it_is(tmp_path):
    data = encoded("JPEG", (40, 30))
    block = fit_image(data).block()
    assert block["source"]["media_type"] == "image/jpeg"
    assert base64.b64decode(block["source"]["data"]) == data


def test_an_image_within_the_limits_goes_as_its_own_bytes():
    data = encoded("PNG", (MAX_EDGE_PX, 900))
    assert fit_image(data).data == data


def test_an_edge_over_the_limit_is_scaled_down_keeping_its_shape():
    data = encoded("PNG", (4000, 1000))
    fitted = fit_image(data)
    assert (fitted.width, fitted.height, fitted.resized_from) == (2000, 500, (4000, 1000))
    with Image.open(io.BytesIO(fitted.data)) as image:
        assert (image.format, image.size) == ("PNG", (2000, 500))
    # More than 20 images in a request: the API's own check of the 2000 px limit.
    many = [{"role": "user", "content": [fitted.block() for _ in range(21)]}]
    assert check_images(many) is None
    assert check_images([{"role": "user", "content": [fit_image(data).block()] * 21}]) is None


def test_an_image_over_five_megabytes_of_base64_is_made_smaller_until_it_fits():
    data = noise((1900, 1000))  # within the edge limit, but ~5.7 MB that cannot compress
    assert len(base64.b64encode(data)) > MAX_BASE64_CHARS
    fitted = fit_image(data)
    assert len(fitted.block()["source"]["data"]) <= MAX_BASE64_CHARS
    assert fitted.resized_from == (1900, 1000)
    assert accepted_by_the_api(fitted.block()) is None


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"just some text, not an image", "not a PNG, JPEG, GIF or WebP"),
        (b"\x89PNG\r\n\x1a\n" + b"\0" * 4, "header could not be read"),
        (b"\xff\xd8\xff\xe0" + b"\0" * 40, "header could not be read"),
    ],
)
def test_what_is_not_an_image_says_why(data, words):
    with pytest.raises(ImageProblem, match=words):
        fit_image(data)


def test_a_broken_image_that_needs_scaling_says_it_could_not_be_decoded():
    header = encoded("PNG", (5000, 5000))[:33]  # the header of a big image, no pixels
    with pytest.raises(ImageProblem, match="could not be decoded"):
        fit_image(header + b"\0" * 100)


def test_a_source_too_large_is_refused_before_anything_is_decoded():
    with pytest.raises(ImageProblem, match="more than the 30 MB"):
        fit_image(b"\x89PNG\r\n\x1a\n" + b"\0" * MAX_SOURCE_BYTES)


def test_a_decompression_bomb_is_refused_by_its_header():
    data = encoded("PNG", (1, 1))
    bomb = data[:16] + (20000).to_bytes(4, "big") + (20000).to_bytes(4, "big") + data[24:]
    with pytest.raises(ImageProblem, match="too large to be scaled down"):
        fit_image(bomb)
