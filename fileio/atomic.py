"""Write a file whole or not at all.

The data goes to a temporary file in the same folder, is flushed to the disk,
and replaces the target in one rename; the folder is synced so that the rename
survives a power cut. A full disk or any other failure leaves the old file as
it was and removes the temporary file (the only file this module creates).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

StrPath = str | os.PathLike[str]


def atomic_write_bytes(path: StrPath, data: bytes, mode: int = 0o644) -> Path:
    """Replace ``path`` by ``data`` in one step. Raises :class:`OSError` (the old file untouched).

    The new file gets the old one's permissions, or ``mode`` when there was none.
    """
    target = Path(path)
    try:
        mode = os.stat(target).st_mode & 0o7777
    except OSError:
        pass
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _sync_folder(target.parent)
    return target


def atomic_write_text(path: StrPath, text: str, mode: int = 0o644) -> Path:
    """:func:`atomic_write_bytes` of ``text`` as UTF-8."""
    return atomic_write_bytes(path, text.encode("utf-8"), mode)


def _sync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
