"""Referee a recorded game from a folder of photos (``netzwerk audit``, issue 10).

The folder holds one photo per confirm press, in name order: the first shows
the start position (docs/rules.md, section 1) and calibrates the camera setup (the
corner markers, four corner pixels, or the board's grid found in the photo with
the image edge White's start row faces) unless a calibration file is given;
every later photo is the board at a confirm press and gets one verdict from
:class:`companion.referee.referee.Referee` -- the same object, making the same
decisions, as ``netzwerk run``: the rules as a prior on unsure fields, amber
(``unreadable``) rather than a guess, a diagnosis for an illegal board.

After a ``rejected`` or ``unreadable`` photo the next one is judged against
the same last accepted position; after a win, later photos are ``unchanged``
or ``game-over`` and nothing is accepted.

Bad input (a missing or empty folder, a file that is not an image, a first
photo that does not show the start position, a broken calibration file)
raises :class:`AuditError` with a message naming what was wrong.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np

from ..rules.engine import GameStatus, status
from ..rules.geometry import WHITE, Color, point_name
from ..rules.position import Placement, Position
from ..record import GameText, SidesNote, clean_note, format_record
from .boards import differing_fields
from .reading import TableReading
from .referee import ACCEPTED, GAME_OVER, REJECTED, UNCHANGED, UNREADABLE, Referee, Verdict
from ..rules.options import Rules

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")
#: Photos larger than this (longer side, pixels) are scaled down before reading:
#: a phone's 12-megapixel photo reads best, and fastest, at camera-like sizes.
MAX_SIDE = 1640
#: The referee's ``min_field_prob`` for photos: a state of an unsure field is tried
#: down to this probability. ``netzwerk run`` can look again when unsure; a photo
#: is the only look the audit gets, so it tries more readings of an unsure field
#: (still only a reading that a legal turn explains, and only when exactly one does).
AUDIT_MIN_FIELD_PROB = 0.02
#: Written by :class:`companion.referee.frames.FrameArchive` into each game's folder (hidden: not a photo).
GAME_META = ".netzwerk-game.json"
#: Such a metadata file is a few hundred bytes; a larger one is not the archive's.
META_MAX_BYTES = 64 * 1024
#: A press frame's name in such a folder: sequence, the ply the press was for, the attempt.
PRESS_NAME = re.compile(r"^(\d+)-ply(\d+)-try(\d+)\.(jpg|jpeg|png)$")
START = "start"  # the verdict kind of the first photo

_MAGIC = {
    ".png": (b"\x89PNG\r\n\x1a\n",),
    ".jpg": (b"\xff\xd8\xff",),
    ".jpeg": (b"\xff\xd8\xff",),
}


class AuditError(Exception):
    """Input the audit cannot work with (the CLI exits 2 with this message)."""


# --------------------------------------------------------------------------
# the folder


def _natural_key(name: str) -> tuple:
    """Name order with digit runs compared as numbers (IMG_9 before IMG_10)."""
    parts = re.split(r"(\d+)", name.lower())
    return (tuple((0, int(p), p) if p.isdigit() else (1, 0, p) for p in parts if p != ""), name)


def list_images(folder: str | Path) -> list[Path]:
    """The photos of ``folder`` in name order.

    Hidden files (``.name``) and sub-folders are skipped; any other file that is
    not a ``.jpg``/``.jpeg``/``.png`` image (by name and by its first bytes) is an
    :class:`AuditError`, as is a missing or empty folder.
    """
    path = Path(folder)
    if not path.exists():
        raise AuditError(f"folder {str(path)!r} does not exist")
    if not path.is_dir():
        raise AuditError(f"{str(path)!r} is not a folder: give the folder that holds the photos")
    try:
        entries = [p for p in path.iterdir() if not p.name.startswith(".")]
    except OSError as exc:
        raise AuditError(f"cannot list folder {str(path)!r}: {exc.strerror or exc}") from None
    files = [p for p in entries if p.is_file()]
    not_images = sorted((p.name for p in files if p.suffix.lower() not in IMAGE_SUFFIXES), key=_natural_key)
    if not_images:
        shown = ", ".join(not_images[:5]) + (f" and {len(not_images) - 5} more" if len(not_images) > 5 else "")
        raise AuditError(
            f"folder {str(path)!r} holds files that are not images ({shown}): "
            f"only {', '.join(IMAGE_SUFFIXES)} photos may be in it"
        )
    images = sorted(files, key=lambda p: _natural_key(p.name))
    if not images:
        games = sorted((p.name for p in entries if p.is_dir() and (p / GAME_META).is_file()), key=_natural_key)
        if games:
            raise AuditError(
                f"folder {str(path)!r} holds the frames of {len(games)} game(s), not photos: audit one game, "
                f"e.g. {str(path / games[-1])!r}"
            )
        raise AuditError(
            f"folder {str(path)!r} holds no photos ({', '.join(IMAGE_SUFFIXES)}): "
            "the first must show the start position, then one per confirm press"
        )
    for p in images:
        _check_magic(p)
    return images


def _check_magic(path: Path) -> None:
    try:
        with path.open("rb") as fh:
            head = fh.read(8)
    except OSError as exc:
        raise AuditError(f"cannot read {path.name}: {exc.strerror or exc}") from None
    magics = _MAGIC[path.suffix.lower()]
    if not any(head.startswith(m) for m in magics):
        kind = "PNG" if path.suffix.lower() == ".png" else "JPEG"
        raise AuditError(f"{path.name} is not an image: its content is not {kind} although its name says so")


def load_image(path: Path) -> np.ndarray:
    """The photo as a BGR uint8 array, or :class:`AuditError`."""
    from fileio.images import NotAnImage, decode_image
    from fileio.paths import FileRefused, read_bytes

    name = os.fsdecode(path.name)
    try:
        data = read_bytes(path, "photo")
    except FileRefused as exc:
        raise AuditError(str(exc)) from None
    try:
        return decode_image(data, name)
    except NotAnImage:
        raise AuditError(f"{name} is not an image that can be decoded (damaged or truncated file?)") from None
    except FileRefused as exc:
        raise AuditError(str(exc)) from None


def read_game_meta(folder: str | Path) -> dict | None:
    """The metadata :class:`companion.referee.frames.FrameArchive` left in a game's folder, if any."""
    from fileio.paths import FileRefused, read_text

    meta = Path(folder) / GAME_META
    if not meta.is_file():
        return None
    try:
        data = json.loads(read_text(meta, "metadata", max_bytes=META_MAX_BYTES))
    except (FileRefused, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


# --------------------------------------------------------------------------
# results


@dataclass(frozen=True)
class ImageVerdict:
    """The verdict on one photo. ``kind`` is ``start`` for the first photo."""

    image: str
    kind: str
    verdict: Verdict | None  # None for the start photo
    ply: int | None = None  # the ply number of an accepted turn
    note: str | None = None  # for the start photo: how the setup was calibrated
    start: Position | None = None  # the start photo: the position it shows
    undone: tuple[str, ...] = ()  # turns taken back (undo in `netzwerk run`) before this photo, last first

    def line(self) -> str:
        if self.verdict is None:
            return f"{self.image}: start position ({self.note})"
        v = self.verdict
        pre = f"{self.image}: "
        if self.undone:
            pre += f"(undo: {', '.join(self.undone)} taken back) "
        if v.kind == ACCEPTED:
            side = "w" if v.position.to_move.value == "b" else "b"
            over = f" -- {v.status.result}: {v.status.reason}" if v.status is not None and v.status.over else ""
            note = f" -- note: {v.note} (R-23)" if v.note else ""
            return f"{pre}accepted {self.ply}. {side}: {v.turn}{over}{note}"
        if v.kind == UNCHANGED:
            return f"{pre}unchanged"
        if v.kind == GAME_OVER:
            return f"{pre}game over: {v.reason}"
        return f"{pre}{v.kind}: {v.reason}"

    def to_json(self) -> dict:
        if self.verdict is None:
            start = self.start if self.start is not None else Position.start()
            return {
                "image": self.image,
                "verdict": START,
                "turn": None,
                "reason": self.note,
                "position": start.to_string(),
                "status": status(start).result,
                "ply": None,
                "squares": [],
                "points": [],
                "undone": [],
            }
        return {"image": self.image, **self.verdict.to_json(), "ply": self.ply, "undone": list(self.undone)}


@dataclass
class AuditResult:
    """The audit so far: every photo's verdict, the accepted turns, the outcome."""

    folder: Path
    rules: Rules
    verdicts: list[ImageVerdict] = field(default_factory=list)
    turns: list[str] = field(default_factory=list)
    final: Position = field(default_factory=Position.start)
    status: GameStatus | None = None
    date: str = "?"
    start: Position = field(default_factory=Position.start)

    def counts(self) -> dict[str, int]:
        out = {k: 0 for k in (ACCEPTED, REJECTED, UNREADABLE, UNCHANGED, GAME_OVER)}
        for v in self.verdicts:
            if v.verdict is not None:
                out[v.kind] += 1
        return out

    @property
    def result(self) -> str:
        return self.status.result if self.status is not None and self.status.over else "*"

    def record(self) -> GameText:
        st = self.status
        return GameText(
            turns=tuple(self.turns),
            start=self.start.to_string(),
            rules=tuple(self.rules.names()),
            result=self.result,
            termination=st.reason if st is not None and st.over else "not finished",
            event=f"Netzwerk audit of {self.folder.name or str(self.folder)}",
            date=self.date,
            extra=(("Photos", str(len(self.verdicts))),),
            sides=self.sides_notes(),
        )

    def sides_notes(self) -> tuple[SidesNote, ...]:
        """R-23 on the turns in force: each accepted photo's note and batteries left blank (a turn
        accepted again after an undo replaces what the turns from its ply on said)."""
        notes: dict[int, SidesNote] = {}
        for item in self.verdicts:
            v = item.verdict
            if v is None or v.kind != ACCEPTED or item.ply is None:
                continue
            for ply in [p for p in notes if p >= item.ply]:
                del notes[ply]
            note = clean_note(v.note)
            back = tuple(point_name(p) for p in v.turn_back)
            if note is not None or back:
                notes[item.ply] = SidesNote(item.ply, note, back)
        return tuple(n for p, n in sorted(notes.items()) if p <= len(self.turns))

    def record_text(self) -> str:
        return format_record(self.record())

    def summary_json(self) -> dict:
        st = self.status
        return {
            "record": self.record_text(),
            "result": self.result,
            "termination": st.reason if st is not None else None,
            "turns": list(self.turns),
            "position": self.final.to_string(),
            "rules": self.rules.names(),
            "photos": len(self.verdicts),
            "counts": self.counts(),
        }

    def summary_line(self) -> str:
        c = self.counts()
        st = self.status
        res = f"{st.result} ({st.reason})" if st is not None and st.over else "not finished (no win yet)"
        parts = ", ".join(f"{n} {k}" for k, n in c.items() if n)
        return f"result: {res}; {len(self.turns)} turns; {len(self.verdicts)} photos: {parts or 'start only'}"


# --------------------------------------------------------------------------
# the audit


def start_layout():
    from vision.layout import BoardLayout

    p = Position.start()
    return BoardLayout.from_sets(p.white, p.black, p.batteries)


def load_calibration(path: str | Path):
    """A calibration file, or :class:`AuditError` (missing, corrupt, not a calibration)."""
    from vision.errors import VisionError
    from vision.readers import load_calibration as load

    try:
        return load(path)
    except VisionError as exc:
        raise AuditError(f"broken calibration: {exc}") from None


#: What to give when the first photo cannot be calibrated without help (no corner markers).
MARKERLESS_HINT = (
    "without corner markers give --white-side bottom|top|left|right (the image edge White's start row "
    "faces: the board's grid is then found in the photo), or the field corners with "
    "--corners \"x,y x,y x,y x,y\" (A1 G1 G7 A7), or a --calibration file"
)


def _markers_seen(image: np.ndarray) -> bool | None:
    """Does the photo show any corner marker (None: cannot tell)?"""
    try:
        from vision.markers import detect_markers

        return bool(detect_markers(image))
    except Exception:
        return None


def calibrate_from(image: np.ndarray, name: str, corners=None, white_side: str | None = None,
                   reader: str = "classic"):
    """Calibrate from the first photo, which must show the start position.

    ``corners`` (A1 G1 G7 A7 in pixels) or the corner markers locate the board; without
    either the board's grid is found in the photo and ``white_side`` (bottom, top, left,
    right) names the image edge White's start row faces (the start position looks alike
    turned round). ``reader``: the board reader (vision.readers: "any" or "classic")."""
    from vision.readers import calibrate
    from vision.errors import BadCorners, BadImage, CalibrationError, MarkersNotFound, VisionError

    markerless = corners is None and _markers_seen(image) is False
    try:
        return calibrate(image, start_layout(), reader=reader, corners=corners, white_side=white_side)
    except MarkersNotFound as exc:
        raise AuditError(f"first photo {name}: the board's corner markers were not found ({exc}); "
                         f"{MARKERLESS_HINT}") from None
    except BadCorners as exc:
        raise AuditError(f"--corners: {exc}") from None
    except (BadImage, CalibrationError) as exc:
        if markerless and white_side is None:
            raise AuditError(f"first photo {name}: the board's corner markers were not found, and calibrating "
                             f"from the board's grid failed: {exc}; {MARKERLESS_HINT}") from None
        if markerless:
            raise AuditError(f"first photo {name} (no corner markers; the board's grid, White's start row towards "
                             f"the {white_side}): {exc}; the first photo must show the start position, the whole "
                             "board in view") from None
        raise AuditError(f"first photo {name} does not show the start position: {exc}") from None
    except VisionError as exc:
        raise AuditError(f"first photo {name}: {exc}") from None


def calibration_note(cal, white_side: str | None = None) -> str:
    """How the first photo calibrated the setup, for the start verdict."""
    method = getattr(cal, "method", None)
    if method == "corners":
        return "calibrated from the field corners given"
    if method == "grid":
        side = white_side
        try:
            from vision.calibration import white_side_of

            side = white_side_of(cal.H)
        except Exception:
            pass
        return f"calibrated from the board's grid found in the photo, White's start row towards the {side}"
    return "calibrated from the corner markers"


def working_size(width: int, height: int) -> tuple[int, int]:
    """The size photos of ``width`` x ``height`` are read at (scaled down beyond :data:`MAX_SIDE`)."""
    side = max(width, height)
    if side <= MAX_SIDE:
        return (width, height)
    k = MAX_SIDE / side
    return (max(1, round(width * k)), max(1, round(height * k)))


def fit(image: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """``image`` scaled to ``size`` (width, height) if it has the same shape of frame (aspect within 1%).

    A photo of another aspect is left as it is (the reader then says it does not fit the calibration)."""
    import cv2

    h, w = image.shape[:2]
    if (w, h) == tuple(size):
        return image
    if abs((w / h) / (size[0] / size[1]) - 1) > 0.01:
        return image
    interp = cv2.INTER_AREA if w > size[0] else cv2.INTER_LINEAR
    return cv2.resize(image, tuple(size), interpolation=interp)


class Audit:
    """Feeds photos to one :class:`Referee`, one confirm press per photo.

    Photos are scaled to the calibration's image size when they have its aspect
    (a phone's full-size photos against a calibration made at a smaller size)."""

    def __init__(self, calibration, rules: Rules = Rules(), *, referee: Referee | None = None,
                 start: Position | None = None, sides: bool = True) -> None:
        from vision.readers import board_reader

        self.size = tuple(calibration.image_size)
        self.rules = rules
        self.referee = referee if referee is not None else Referee(
            rules, start or Position.start(), min_field_prob=AUDIT_MIN_FIELD_PROB, sides=sides)
        self.reader = board_reader(calibration)
        self.ply = len(self.referee.history)

    def _read(self, image: np.ndarray) -> TableReading:
        """The photo as the referee sees it (scaled to the calibration's size, through the adapter)."""
        from ..vision_bridge import table_reading

        return table_reading(self.reader.read(fit(image, self.size)))

    def check_start(self, image: np.ndarray, name: str) -> None:
        """The first photo must read as the start position (with a given calibration)."""
        from vision.errors import VisionError

        try:
            reading = self._read(image)
        except VisionError as exc:
            raise AuditError(f"first photo {name} cannot be read with this calibration: {exc}") from None
        if reading.placement is None:
            raise AuditError(f"first photo {name} does not show the start position clearly: {reading.reason}")
        wrong = differing_fields(reading.placement, Placement.of(Position.start()))
        if wrong:
            raise AuditError(
                f"first photo {name} does not show the start position (differs at "
                f"{', '.join(wrong[:10])}{' ...' if len(wrong) > 10 else ''}): the first photo must show the "
                "start position; or the calibration is from another setup"
            )
        self.referee.see_sides(reading)

    def see_start(self, image: np.ndarray) -> None:
        """R-23: the battery sides of the start photo (the first turn is compared with them)."""
        from vision.errors import VisionError

        try:
            reading = self._read(image)
        except VisionError:
            return
        if reading.placement == Placement.of(Position.start()):
            self.referee.see_sides(reading)

    def undo_to(self, ply: int) -> list[str]:
        """Take back accepted turns until the next press is for ``ply`` (an undo in ``netzwerk run``)."""
        undone = []
        while self.referee.history and len(self.referee.history) >= ply:
            last = self.referee.undo()
            assert last is not None
            self.ply -= 1
            undone.append(f"{self.ply + 1}. {last.before.to_move.value}: {last.turn}")
        return undone

    def judge(self, image: np.ndarray) -> Verdict:
        """One confirm press: read the photo, judge it, play it if accepted."""
        from vision.errors import VisionError

        try:
            reading = self._read(image)
        except VisionError as exc:
            return Verdict(UNREADABLE, self.referee.position, reason=str(exc), status=self.referee.status)
        verdict = self.referee.judge(reading).unasked()  # a folder of photos has nobody to ask
        if verdict.kind == ACCEPTED:
            self.referee.accept(verdict)
            self.ply += 1
        return verdict


def audit_folder(
    folder: str | Path,
    *,
    rules: Rules | None = None,
    calibration: str | Path | None = None,
    corners=None,
    white_side: str | None = None,
    first: Color | None = None,
    result: AuditResult | None = None,
    reader: str = "classic",
    sides: bool = True,
) -> Iterator[ImageVerdict]:
    """Referee the photos of ``folder``, yielding one :class:`ImageVerdict` per photo.

    ``rules``: None takes the options a :class:`~companion.referee.frames.FrameArchive`
    recorded for the game (original rules if none); ``first``: who moves first
    (R-1), None for the archive's record of it, else White. In a folder the
    archive wrote, a press frame whose name gives a ply the audit has already
    accepted follows an undo: the turns from that ply on are taken back first
    (``ImageVerdict.undone``). ``calibration``: a
    calibration file; else the first photo calibrates (``corners``: the field
    corners A1 G1 G7 A7 in pixels, else the markers, else the board's grid
    with White's start row towards the image edge ``white_side``; ``reader``: the board
    reader of that calibration, "any" or "classic"; a calibration file names its own). ``sides``:
    R-23, the batteries' printed and blank sides (a note on an accepted turn whose newly blank
    batteries cannot be its energy; the batteries left blank named). Pass an
    :class:`AuditResult` as ``result`` to receive the record and the outcome.
    Raises :class:`AuditError` for bad input (before the first verdict where it can).
    """
    images = list_images(folder)
    meta = read_game_meta(folder)
    if rules is None:
        names = meta.get("rules") if meta else None
        try:
            rules = Rules.from_names(names) if isinstance(names, list) else Rules()
        except ValueError:
            rules = Rules()
    if first is None:
        first = WHITE
        try:
            if meta and isinstance(meta.get("start"), str):
                recorded = Position.from_string(meta["start"])
                if recorded.placement_key() == Position.start().placement_key():
                    first = recorded.to_move
        except ValueError:
            pass
    start_pos = Position.start(first)
    cal = load_calibration(calibration) if calibration is not None else None
    first_photo = images[0]
    image = load_image(first_photo)
    if cal is None:
        h, w = image.shape[:2]
        size = working_size(w, h)
        if size != (w, h):
            image = fit(image, size)
            if corners is not None:
                corners = np.asarray(corners, np.float64) * (size[0] / w)
        cal = calibrate_from(image, first_photo.name, corners, white_side, reader)
        note = calibration_note(cal, white_side)
        audit = Audit(cal, rules, start=start_pos, sides=sides)
        audit.see_start(image)
    else:
        audit = Audit(cal, rules, start=start_pos, sides=sides)
        audit.check_start(image, first_photo.name)
        note = f"calibration file {Path(calibration).name}"
    res = result if result is not None else AuditResult(Path(folder), rules)
    res.folder, res.rules, res.start = Path(folder), rules, start_pos
    res.date = _meta_date(meta) or _photo_date(first_photo)
    res.final = audit.referee.position
    res.status = audit.referee.status
    start = ImageVerdict(first_photo.name, START, None, note=note, start=start_pos)
    res.verdicts.append(start)
    yield start
    for path in images[1:]:
        undone: list[str] = []
        m = PRESS_NAME.match(path.name) if meta is not None else None
        if m:
            undone = audit.undo_to(int(m.group(2)))
            del res.turns[audit.ply:]
        verdict = audit.judge(load_image(path))
        ply = None
        if verdict.kind == ACCEPTED:
            ply = audit.ply
            res.turns.append(str(verdict.turn))
        res.final = audit.referee.position
        res.status = audit.referee.status
        item = ImageVerdict(path.name, verdict.kind, verdict, ply=ply, undone=tuple(undone))
        res.verdicts.append(item)
        yield item


def _meta_date(meta: dict | None) -> str | None:
    """The day the game began, as the frame archive recorded it."""
    started = meta.get("started_at") if meta else None
    if not isinstance(started, str):
        return None
    try:
        return datetime.fromisoformat(started).astimezone(timezone.utc).date().isoformat()
    except ValueError:
        return None


def _photo_date(path: Path) -> str:
    """The day the first photo was taken, from its file time (UTC)."""
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, tz=timezone.utc).date().isoformat()
    except (OSError, ValueError, OverflowError):
        return "?"


def run_audit(folder: str | Path, **kw) -> AuditResult:
    """The whole audit at once (tests, the benchmark)."""
    res = AuditResult(Path(folder), kw.get("rules") or Rules())
    for _ in audit_folder(folder, result=res, **kw):
        pass
    return res


def parse_corners(text: str) -> np.ndarray:
    """``"x,y x,y x,y x,y"`` (A1 G1 G7 A7 in pixels) -> (4, 2), or :class:`AuditError`."""
    from vision.calibration import parse_corners as _parse
    from vision.errors import VisionError

    try:
        return _parse(text)
    except VisionError as exc:
        raise AuditError(f"--corners: {exc}") from None


__all__: Sequence[str] = (
    "AuditError",
    "Audit",
    "AuditResult",
    "ImageVerdict",
    "audit_folder",
    "run_audit",
    "list_images",
    "load_image",
    "IMAGE_SUFFIXES",
    "GAME_META",
)
