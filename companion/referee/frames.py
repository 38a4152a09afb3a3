"""The frame archive of ``netzwerk run --save-frames``: the camera frame of every
confirm press, kept so that ``netzwerk audit`` can referee the game again.

Layout (one folder per game; ``netzwerk audit DIR/game-000007`` replays it)::

    frames/
      game-000007/
        .netzwerk-game.json          game id, rules options, start position, start time
        00000-start.jpg              the calibration / start-position frame
        00001-ply0001-try1.jpg       the frame of each confirm press, in press order:
        00002-ply0001-try2.jpg         ply the press was for, attempt at that ply
        00003-ply0002-try1.jpg

The leading sequence number makes name order press order (also across an undo
or a restart: :meth:`FrameArchive.resume_game` continues the numbering). The
metadata file is hidden, so the folder holds nothing but photos for the audit,
which takes its rule options from it.

Size cap: after each frame the archive is kept under ``cap_mib`` MiB by
deleting whole games, oldest first; if the current game alone is still too big,
its oldest press frames go, never its start frame.

Errors (a full disk, an unwritable folder, a bad frame) raise
:class:`FrameArchiveError` with a clear message; the game loop should log it
and go on: losing a frame must never stop a game.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable

import numpy as np

from fileio.paths import FileRefused, read_text

from .audit import GAME_META, META_MAX_BYTES, PRESS_NAME
from ..rules.position import START_STRING

FORMAT = "netzwerk-frames"
VERSION = 1
MIB = 1024 * 1024
START_NAME = "00000-start"
_PRESS = PRESS_NAME
_START = re.compile(r"^0+-start\.(jpg|jpeg|png)$")


class FrameArchiveError(Exception):
    """A frame that could not be kept (the message says why)."""


@dataclass(frozen=True)
class SavedFrame:
    """Where a frame went, and what the size cap deleted to make room."""

    path: Path
    dropped: tuple[Path, ...] = ()


def game_folder_name(game_id: int | str) -> str:
    """``game-000007`` for a journal id (zero-padded so that name order is id order)."""
    if isinstance(game_id, bool):
        raise FrameArchiveError(f"bad game id {game_id!r}")
    if isinstance(game_id, int):
        if game_id < 0:
            raise FrameArchiveError(f"bad game id {game_id!r}: must not be negative")
        return f"game-{game_id:06d}"
    text = str(game_id).strip()
    safe = re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-")
    if not safe:
        raise FrameArchiveError(f"bad game id {game_id!r}: needs letters or digits")
    return f"game-{safe}"


class FrameArchive:
    """Keeps the frames of the games in ``directory`` under ``cap_mib`` MiB (None: no cap).

    ``quality``: JPEG quality of the kept frames (``suffix`` ".jpg"), or ``suffix``
    ".png" for lossless frames (about ten times bigger).
    """

    def __init__(self, directory: str | Path, cap_mib: float | None = 512, *, quality: int = 92,
                 suffix: str = ".jpg") -> None:
        if cap_mib is not None and not cap_mib > 0:
            raise FrameArchiveError(f"size cap {cap_mib!r} MiB: must be positive (or None for no cap)")
        if suffix not in (".jpg", ".png"):
            raise FrameArchiveError(f"frame format {suffix!r}: expected '.jpg' or '.png'")
        if not 1 <= int(quality) <= 100:
            raise FrameArchiveError(f"JPEG quality {quality!r}: expected 1..100")
        self.directory = Path(directory)
        self.cap_bytes = None if cap_mib is None else int(cap_mib * MIB)
        self.quality = int(quality)
        self.suffix = suffix
        self.current: Path | None = None  # the current game's folder
        self._seq = 0
        self._total: int | None = None  # bytes of all game folders (scanned lazily)

    @classmethod
    def from_config(cls, frames_config) -> "FrameArchive | None":
        """From ``Config.frames`` (``companion.config.FramesConfig``); None if ``save_frames`` is off."""
        if not frames_config.save_frames:
            return None
        return cls(frames_config.dir, frames_config.max_mib)

    # -- games -----------------------------------------------------------------
    def start_game(self, game_id: int | str, start_frame: np.ndarray, *, rules: Iterable[str] = (),
                   start_position: str = START_STRING) -> SavedFrame:
        """Begin a game's folder with its start / calibration frame.

        A folder of that name already there (the frames of another journal's game with
        this id, or anything else) is renamed ``game-000007-before-TIMESTAMP`` and kept:
        the archive never deletes what it did not write itself.
        """
        folder = self.directory / game_folder_name(game_id)
        data = self._encode(start_frame)
        try:
            if os.path.lexists(folder):
                set_aside(folder)
                self._total = None
            folder.mkdir(parents=True, exist_ok=True)
            meta = {
                "format": FORMAT,
                "version": VERSION,
                "game_id": game_id,
                "rules": list(rules),
                "start": start_position,
                "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            }
            self._write(folder / GAME_META, json.dumps(meta, indent=1).encode())
        except OSError as exc:
            raise FrameArchiveError(f"cannot create the frames folder {str(folder)!r}: {exc.strerror or exc}") from None
        self.current = folder
        self._seq = 0
        return self._keep(folder / f"{START_NAME}{self.suffix}", data)

    def resume_game(self, game_id: int | str) -> Path | None:
        """After a restart: continue the game's folder (numbering after its last frame).

        None if the game has no start frame here (its frames cannot be audited;
        the caller may :meth:`start_game` anew with the current frame)."""
        folder = self.directory / game_folder_name(game_id)
        if start_frame_of(folder) is None:
            return None
        seqs = [int(m.group(1)) for p in folder.iterdir() if (m := _PRESS.match(p.name))]
        self.current = folder
        self._seq = max(seqs, default=0)
        return folder

    def save_press(self, frame: np.ndarray, ply: int, attempt: int = 1) -> SavedFrame:
        """Keep the frame of a confirm press: ``ply`` the turn it was for (1 = first), ``attempt`` 1, 2, ..."""
        if self.current is None:
            raise FrameArchiveError("no game started: call start_game (or resume_game) first")
        if not (isinstance(ply, int) and ply >= 1 and isinstance(attempt, int) and attempt >= 1):
            raise FrameArchiveError(f"bad ply/attempt {ply!r}/{attempt!r}: both count from 1")
        data = self._encode(frame)
        self._seq += 1
        name = f"{self._seq:05d}-ply{ply:04d}-try{attempt}{self.suffix}"
        return self._keep(self.current / name, data)

    # -- queries ---------------------------------------------------------------
    def games(self) -> list[Path]:
        """The game folders, oldest first (by start time, then name)."""
        if not self.directory.is_dir():
            return []
        folders = [p for p in self.directory.iterdir() if p.is_dir() and p.name.startswith("game-")]
        return sorted(folders, key=lambda p: (_started_at(p), p.name))

    def total_bytes(self) -> int:
        return sum(_folder_bytes(g) for g in self.games())

    # -- internals -------------------------------------------------------------
    def _encode(self, frame: np.ndarray) -> bytes:
        import cv2

        if not isinstance(frame, np.ndarray) or frame.size == 0:
            raise FrameArchiveError(f"a frame must be a non-empty numpy image, not {type(frame).__name__}")
        if frame.dtype != np.uint8 or frame.ndim not in (2, 3) or (frame.ndim == 3 and frame.shape[2] not in (1, 3, 4)):
            raise FrameArchiveError(f"a frame must be an 8-bit grey or BGR image, got {frame.dtype} {frame.shape}")
        params = [cv2.IMWRITE_JPEG_QUALITY, self.quality] if self.suffix == ".jpg" else [cv2.IMWRITE_PNG_COMPRESSION, 3]
        ok, buf = cv2.imencode(self.suffix, frame, params)
        if not ok:  # pragma: no cover - cv2 encodes every valid uint8 image
            raise FrameArchiveError("the frame could not be encoded")
        return buf.tobytes()

    def _write(self, path: Path, data: bytes) -> None:
        tmp = path.with_name(f".tmp-{path.name}")
        tmp.write_bytes(data)
        os.replace(tmp, path)

    def _keep(self, path: Path, data: bytes) -> SavedFrame:
        try:
            self._write(path, data)
        except OSError as exc:
            raise FrameArchiveError(f"cannot keep frame {str(path)!r}: {exc.strerror or exc}") from None
        if self._total is None:
            self._total = self.total_bytes()
        else:
            self._total += len(data)
        return SavedFrame(path, self._enforce_cap())

    def _enforce_cap(self) -> tuple[Path, ...]:
        if self.cap_bytes is None or self._total is None or self._total <= self.cap_bytes:
            return ()
        total = self.total_bytes()  # exact, before deleting anything
        dropped: list[Path] = []
        for game in self.games():
            if total <= self.cap_bytes:
                break
            if self.current is not None and game.resolve() == self.current.resolve():
                continue
            total -= drop_own_frames(game)
            dropped.append(game)
        if total > self.cap_bytes and self.current is not None:
            presses = sorted(
                (p for p in self.current.iterdir() if _PRESS.match(p.name)),
                key=lambda p: int(_PRESS.match(p.name).group(1)),  # type: ignore[union-attr]
            )
            for p in presses[:-1]:  # the newest frame (just saved) stays
                if total <= self.cap_bytes:
                    break
                try:
                    size = p.stat().st_size
                    p.unlink()
                except OSError:
                    continue
                total -= size
                dropped.append(p)
        self._total = total
        return tuple(dropped)


def set_aside(folder: Path) -> Path:
    """Rename ``folder`` to ``NAME-before-TIMESTAMP`` (a free name); returns the new path."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    target = folder.with_name(f"{folder.name}-before-{stamp}")
    n = 1
    while os.path.lexists(target):
        n += 1
        target = folder.with_name(f"{folder.name}-before-{stamp}-{n}")
    os.rename(folder, target)
    return target


def _own_file(name: str) -> bool:
    """A file the archive writes into a game's folder: the start frame, a press frame, the metadata,
    or one of its temporary files."""
    if name == GAME_META or _START.match(name) or _PRESS.match(name):
        return True
    return name.startswith(".tmp-") and (name[5:] == GAME_META or bool(_START.match(name[5:]) or _PRESS.match(name[5:])))


def drop_own_frames(folder: Path) -> int:
    """Delete the files the archive wrote into a game's folder (the size cap), and the folder
    if nothing else is left in it; whatever else lies there stays. Returns the bytes freed."""
    freed = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        if not _own_file(entry.name):
            continue
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
            size = entry.stat(follow_symlinks=False).st_size
            os.unlink(entry.path)
        except OSError:
            continue
        freed += size
    try:
        folder.rmdir()  # only when empty
    except OSError:
        pass
    return freed


def start_frame_of(folder: Path) -> Path | None:
    if not folder.is_dir():
        return None
    return next((p for p in folder.iterdir() if _START.match(p.name)), None)


def _folder_bytes(folder: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(folder):
        for f in files:
            try:
                total += os.stat(os.path.join(root, f)).st_size
            except OSError:
                pass
    return total


def _started_at(folder: Path) -> str:
    try:
        meta = json.loads(read_text(folder / GAME_META, "metadata", max_bytes=META_MAX_BYTES))
        value = meta.get("started_at")
        if isinstance(value, str):
            return value
    except (FileRefused, ValueError, RecursionError, AttributeError):
        pass
    try:
        return datetime.fromtimestamp(folder.stat().st_mtime, tz=timezone.utc).isoformat(timespec="seconds")
    except OSError:
        return ""
