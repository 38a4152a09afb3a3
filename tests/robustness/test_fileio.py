"""The file helpers every command reads and writes through (fileio): regular files only,
never an input overwritten, whole writes, pictures by bytes and within a size."""

from __future__ import annotations

import os
import struct
import threading
from pathlib import Path

import cv2
import numpy as np
import pytest

from fileio.atomic import atomic_write_bytes
from fileio.images import ImageTooLarge, NotAnImage, decode_image, header_size, read_image, write_image
from fileio.paths import FileRefused, read_bytes, read_text, readable_file, writable_output

BAD_NAME = os.fsdecode(b"photo-\xff\xfe.png")  # not UTF-8: OpenCV's own file functions crash on it


def _png(w: int = 40, h: int = 30) -> bytes:
    return cv2.imencode(".png", np.full((h, w, 3), 90, np.uint8))[1].tobytes()


def _with_timeout(fn, seconds: float = 10.0):
    """Run ``fn`` on a thread; fail (instead of hanging the suite) if it does not return in time."""
    box: dict = {}

    def work() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            box["error"] = exc

    t = threading.Thread(target=work, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), "blocked"
    if "error" in box:
        raise box["error"]
    return box.get("value")


# -- reading ---------------------------------------------------------------------------------


def test_readable_file_names_what_is_wrong(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("x")
    assert readable_file(tmp_path / "f.txt") == tmp_path / "f.txt"
    with pytest.raises(FileRefused, match=r"config file '.*nothere' does not exist"):
        readable_file(tmp_path / "nothere", "config file")
    with pytest.raises(FileRefused, match="is a folder, not a regular file"):
        readable_file(tmp_path)
    with pytest.raises(FileRefused, match="does not exist"):
        readable_file(tmp_path / "f.txt" / "below")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs")
def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for fn in (lambda: read_bytes(fifo, "journal"), lambda: read_text(fifo), lambda: read_image(fifo)):
        with pytest.raises(FileRefused, match=r"is a pipe \(FIFO\), not a regular file"):
            _with_timeout(fn)


def test_read_bytes_head_and_size_limit(tmp_path: Path) -> None:
    f = tmp_path / "data"
    f.write_bytes(b"0123456789")
    assert read_bytes(f) == b"0123456789"
    assert read_bytes(f, head=4) == b"0123"
    with pytest.raises(FileRefused, match=r"too large \(10 bytes, at most 5\)"):
        read_bytes(f, max_bytes=5)


def test_read_text_refuses_bytes_that_are_not_utf8_naming_the_line(tmp_path: Path) -> None:
    f = tmp_path / "t.toml"
    f.write_bytes(b"a = 1\nb = '\xff'\n")
    with pytest.raises(FileRefused, match=r"not UTF-8 text \(line 2\)"):
        read_text(f)


# -- writing ---------------------------------------------------------------------------------


def test_writable_output_never_an_input(tmp_path: Path) -> None:
    src = tmp_path / "journal.sqlite"
    src.write_bytes(b"precious")
    (tmp_path / "link").symlink_to(src)
    os.link(src, tmp_path / "hard")
    for name in ("journal.sqlite", "link", "hard", "./journal.sqlite"):
        with pytest.raises(FileRefused, match="is an input of this command"):
            writable_output(tmp_path / name, "--out", inputs=[src])
    assert src.read_bytes() == b"precious"
    assert writable_output(tmp_path / "other.txt", inputs=[src]) == tmp_path / "other.txt"


def test_writable_output_refuses_folders_missing_folders_pipes_and_wrong_endings(tmp_path: Path) -> None:
    with pytest.raises(FileRefused, match="is a folder: give a file name"):
        writable_output(tmp_path, "--png", suffixes=(".png",))
    with pytest.raises(FileRefused, match=r"the folder '.*nodir' does not exist"):
        writable_output(tmp_path / "nodir" / "x.png", "--png", suffixes=(".png",))
    with pytest.raises(FileRefused, match="the name must end in .png"):
        writable_output(tmp_path / "x.txt", "--png", suffixes=(".png",))
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "p.png")
        with pytest.raises(FileRefused, match=r"is a pipe \(FIFO\)"):
            writable_output(tmp_path / "p.png", "--png", suffixes=(".png",))


def test_atomic_write_leaves_the_old_file_on_a_full_disk(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "calibration.json"
    target.write_text("old, whole")

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError, match="No space left"):
        atomic_write_bytes(target, b"new" * 1000)
    assert target.read_text() == "old, whole"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["calibration.json"]  # no temporary file left


def test_atomic_write_replaces_and_keeps_the_permissions(tmp_path: Path) -> None:
    target = tmp_path / "record.txt"
    target.write_text("old")
    target.chmod(0o600)
    atomic_write_bytes(target, b"new")
    assert target.read_bytes() == b"new" and (target.stat().st_mode & 0o777) == 0o600


# -- pictures --------------------------------------------------------------------------------


def test_pictures_with_names_that_are_not_utf8_are_read_and_written(tmp_path: Path) -> None:
    path = tmp_path / BAD_NAME
    write_image(path, np.full((30, 40, 3), 200, np.uint8))
    image = read_image(path)
    assert image.shape == (30, 40, 3) and int(image[0, 0, 0]) == 200


def test_header_size_of_png_and_jpeg() -> None:
    assert header_size(_png(40, 30)) == (40, 30)
    jpg = cv2.imencode(".jpg", np.zeros((17, 23, 3), np.uint8))[1].tobytes()
    assert header_size(jpg) == (23, 17)
    assert header_size(b"not a picture") is None


def test_a_picture_too_large_is_refused_before_it_is_decoded() -> None:
    data = bytearray(_png(40, 30))
    data[16:24] = struct.pack(">II", 20000, 20000)  # the header claims 400 megapixels
    with pytest.raises(ImageTooLarge, match="20000x20000 pixels, more than"):
        decode_image(bytes(data), "frame.png")
    with pytest.raises(ImageTooLarge):
        decode_image(_png(40, 30), "frame.png", max_pixels=1000)
    assert decode_image(_png(40, 30), "frame.png", max_pixels=1200).shape == (30, 40, 3)


def test_bytes_that_are_no_picture_are_refused() -> None:
    for data in (b"", b"\x89PNG\r\n\x1a\n" + b"\x00" * 40, b"hello"):
        with pytest.raises(NotAnImage, match="cannot be decoded"):
            decode_image(data, "x.png")


def test_write_image_refuses_an_unknown_ending(tmp_path: Path) -> None:
    with pytest.raises(FileRefused, match="must end in one of .png"):
        write_image(tmp_path / "x.gif2", np.zeros((4, 4, 3), np.uint8))
    assert list(tmp_path.iterdir()) == []
