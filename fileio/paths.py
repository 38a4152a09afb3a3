"""Is this a regular file I may read? May I write there without overwriting an input?

Every check raises :class:`FileRefused` with a message naming the file and what is
wrong with it; callers turn it into their own error (the CLI: one line, exit 2).
A FIFO, a device or a socket is refused before it is opened (opening a FIFO for
reading blocks until a writer comes), and :func:`read_bytes` opens without
blocking and checks the opened file again, so that a path swapped in between
cannot hang the program either.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Iterable

StrPath = str | os.PathLike[str]


class FileRefused(Exception):
    """A file that cannot be used as asked; the message names it and why."""


def _show(path: StrPath) -> str:
    """A file name for a message: quoted, bytes that are not UTF-8 shown as \\xNN."""
    return repr(os.fsencode(path).decode("utf-8", "backslashreplace")).replace("\\\\x", "\\x")


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def readable_file(path: StrPath, what: str = "file") -> Path:
    """``path`` as a :class:`Path` if it names an existing regular file (symbolic links followed)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise FileRefused(f"{what} {_show(path)} does not exist") from None
    except NotADirectoryError:
        raise FileRefused(f"{what} {_show(path)} does not exist (a part of its path is not a folder)") from None
    except OSError as exc:
        raise FileRefused(f"{what} {_show(path)} cannot be read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise FileRefused(f"{what} {_show(path)} is {_kind(st.st_mode)}, not a regular file")
    return Path(path)


def read_bytes(path: StrPath, what: str = "file", max_bytes: int | None = None, *, head: int | None = None) -> bytes:
    """The content of a regular file (``head``: only its first bytes); never blocks on a FIFO.

    ``max_bytes``: refuse a larger file.
    """
    readable_file(path, what)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise FileRefused(f"{what} {_show(path)} cannot be read: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise FileRefused(f"{what} {_show(path)} is {_kind(st.st_mode)}, not a regular file")
        if max_bytes is not None and st.st_size > max_bytes:
            raise FileRefused(f"{what} {_show(path)} is too large ({st.st_size} bytes, at most {max_bytes})")
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=True) as fh:
            fd = -1
            try:
                return fh.read() if head is None else fh.read(head)
            except OSError as exc:
                raise FileRefused(f"{what} {_show(path)} cannot be read: {exc.strerror or exc}") from None
    finally:
        if fd >= 0:
            os.close(fd)


def read_text(path: StrPath, what: str = "file", max_bytes: int | None = None) -> str:
    """The content of a regular file as UTF-8 text (a file that is not UTF-8 is refused, naming the line)."""
    data = read_bytes(path, what, max_bytes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise FileRefused(f"{what} {_show(path)} is not UTF-8 text (line {line})") from None


def _same(a: Path, b: Path) -> bool:
    try:
        if a.exists() and b.exists():
            return a.samefile(b)
        return a.resolve() == b.resolve()
    except (OSError, RuntimeError):
        return False


def writable_output(path: StrPath, what: str = "output", inputs: Iterable[StrPath] = (),
                    suffixes: Iterable[str] | None = None) -> Path:
    """``path`` as a :class:`Path` if a file may be written there without losing anything.

    Refused: the same file as one of ``inputs`` (also through another name or a link),
    an existing folder, an existing file that is not a regular file (a FIFO would hang
    the write, a device would be written over), a missing folder to write into, and
    (with ``suffixes``, lower-case with the dot) a name that does not end in one of them.
    An existing regular file that is not an input may be replaced.
    """
    p = Path(path)
    for src in inputs:
        if src is not None and _same(p, Path(src)):
            raise FileRefused(f"{what} {_show(path)} is an input of this command ({_show(src)}): "
                              "it is not overwritten; give another file name")
    try:
        st = os.stat(p)
    except (FileNotFoundError, NotADirectoryError):
        st = None
    except OSError as exc:
        raise FileRefused(f"{what} {_show(path)} cannot be written: {exc.strerror or exc}") from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        if stat.S_ISDIR(st.st_mode):
            raise FileRefused(f"{what} {_show(path)} is a folder: give a file name")
        raise FileRefused(f"{what} {_show(path)} is {_kind(st.st_mode)}, not a regular file: give a file name")
    if suffixes is not None:
        allowed = tuple(suffixes)
        if p.suffix.lower() not in allowed:
            raise FileRefused(f"{what} {_show(path)}: the name must end in {', '.join(allowed)}")
    parent = p.parent
    if not parent.is_dir():
        raise FileRefused(f"{what} {_show(path)}: the folder {_show(parent)} does not exist")
    return p
