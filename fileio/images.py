"""Pictures read and written by bytes.

``cv2.imread`` and ``cv2.imwrite`` crash the process (a segmentation fault) on a
file name that is not UTF-8, and ``imread`` blocks on a FIFO; so the file is read
with :func:`fileio.paths.read_bytes` and decoded with ``cv2.imdecode``, and a
picture is encoded with ``cv2.imencode`` and written with
:func:`fileio.atomic.atomic_write_bytes`. A picture whose header announces more
than ``max_pixels`` is refused before it is decoded (a small PNG may decode to
gigabytes).
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

from .atomic import atomic_write_bytes
from .paths import FileRefused, StrPath, _show, read_bytes

#: The largest picture decoded by default: 50 megapixels (a 12-megapixel photo is 4032x3024).
MAX_PIXELS = 50_000_000
#: The endings :func:`write_image` accepts, with the encoder each names.
WRITABLE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")

class NotAnImage(FileRefused):
    """Bytes that do not decode to a picture."""


class ImageTooLarge(FileRefused):
    """A picture of more pixels than the caller decodes."""


_JPEG_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def header_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG, JPEG, BMP or GIF header, or None when it cannot be told."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24 and data[12:16] == b"IHDR":
        w, h = struct.unpack(">II", data[16:24])
        return w, h
    if data[:2] == b"BM" and len(data) >= 26:
        w, h = struct.unpack("<ii", data[18:26])
        return abs(w), abs(h)
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        w, h = struct.unpack("<HH", data[6:10])
        return w, h
    if data[:2] == b"\xff\xd8":
        return _jpeg_size(data)
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    i = 2
    n = len(data)
    while i + 4 <= n:
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # no length
            i += 2
            continue
        (length,) = struct.unpack(">H", data[i + 2:i + 4])
        if marker in _JPEG_SOF:
            if i + 9 > n:
                return None
            h, w = struct.unpack(">HH", data[i + 5:i + 9])
            return w, h
        if marker == 0xDA:  # start of scan before any frame header
            return None
        i += 2 + length
    return None


def decode_image(data: bytes, name: str = "image", max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """Encoded picture bytes as a BGR uint8 array, or :class:`FileRefused` naming ``name``."""
    import cv2

    size = header_size(data)
    if size is not None and size[0] * size[1] > max_pixels:
        raise ImageTooLarge(f"{name} is {size[0]}x{size[1]} pixels, more than the {max_pixels:,} this program "
                          "decodes: scale it down")
    image = None
    if data:
        try:
            image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
        except cv2.error:
            image = None
    if image is None:
        raise NotAnImage(f"{name} cannot be decoded (not an image, or damaged)")
    if image.shape[0] * image.shape[1] > max_pixels:
        raise ImageTooLarge(f"{name} is {image.shape[1]}x{image.shape[0]} pixels, more than the {max_pixels:,} "
                          "this program decodes: scale it down")
    return image


def read_image(path: StrPath, what: str = "image", max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """The picture in a regular file as a BGR uint8 array, or :class:`FileRefused`."""
    data = read_bytes(path, what)
    return decode_image(data, f"{what} {_show(path)}", max_pixels)


def encode_image(image: np.ndarray, suffix: str) -> bytes:
    """``image`` encoded as ``suffix`` names (".png", ".jpg", ...), or :class:`FileRefused`."""
    import cv2

    suffix = suffix.lower()
    if suffix not in WRITABLE_SUFFIXES:
        raise FileRefused(f"cannot write a picture as {suffix or 'a name without an ending'!r}: "
                          f"the name must end in one of {', '.join(WRITABLE_SUFFIXES)}")
    try:
        ok, buf = cv2.imencode(suffix, image)
    except cv2.error as exc:
        raise FileRefused(f"cannot encode the picture as {suffix}: {exc}") from None
    if not ok:
        raise FileRefused(f"cannot encode the picture as {suffix}")
    return buf.tobytes()


def write_image(path: StrPath, image: np.ndarray, what: str = "output") -> Path:
    """Encode ``image`` by ``path``'s ending and write it atomically; :class:`FileRefused` if it cannot be."""
    data = encode_image(image, Path(path).suffix)
    try:
        return atomic_write_bytes(path, data)
    except OSError as exc:
        raise FileRefused(f"cannot write {what} {_show(path)}: {exc.strerror or exc}") from None
