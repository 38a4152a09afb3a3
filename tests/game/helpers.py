"""A fast fake table for the game-loop tests: the camera "sees" a board kept in memory (or in a file).

The fake camera encodes the board into a tiny image; the fake reader decodes it
into a real ``vision.reading.BoardReading`` (one-hot probabilities), so that the
companion, the referee, the journal and the panel run exactly as with the
real camera, only without rendering and image analysis. A hand over the board,
black frames, a camera that raises or stalls are modes of the table. The table's
``sides`` (point -> "printed" or "blank") are the batteries' sides the camera
tells (R-23); a point left out is a side it cannot tell. The table's ``unsure``
(a square ``s`` or a point ``("p", p)`` -> the state the camera nearly took
for it instead) makes the camera doubt those fields: 0.5 for the true state,
0.45 for the other, a reading of low confidence there.
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from companion.cameras import CameraError, Frame
from companion.rules.engine import apply_turn
from companion.referee.game import Companion, LoopTimings
from companion.referee.journal import Journal
from companion.rules.position import Placement, Position
from hardware.mockpins import MockPanelFactory
from hardware.panel import Panel
from hardware.timing import ManualClock
from vision.layout import BoardLayout
from vision.reading import BoardReading, unreadable

TIMINGS = LoopTimings(stable_seconds=0.3, confirm_timeout=2.0, camera_timeout=0.5, poll_interval=0.1,
                      calibration_retry=0.2, hint_budget=0.05)
HAND = 1
BLACK_FRAME = 2


SIDE_CODES = {"printed": 1, "blank": 2}


def encode(board: Placement, flags: int = 0, sides: dict[int, str] | None = None,
           unsure: dict | None = None) -> np.ndarray:
    img = np.full((1, 86, 3), 50, np.uint8)
    for s in range(36):
        img[0, s, 0] = 1 if s in board.white else 2 if s in board.black else 0
    for p in range(49):
        img[0, 36 + p, 0] = 1 if p in board.batteries else 0
        img[0, 36 + p, 1] = SIDE_CODES.get((sides or {}).get(p, ""), 0) if p in board.batteries else 0
    img[0, :85, 2] = 0
    for key, other in (unsure or {}).items():  # channel 2: 1 + the state the camera nearly read
        img[0, 36 + key[1] if isinstance(key, tuple) else key, 2] = 1 + other
    img[0, 85, 0] = flags
    if flags == BLACK_FRAME:
        img[:] = 0
    return img


def decode(img: np.ndarray) -> tuple[Placement | None, int]:
    if not img.any():
        return None, BLACK_FRAME
    v = img[0, :, 0]
    white = frozenset(s for s in range(36) if v[s] == 1)
    black = frozenset(s for s in range(36) if v[s] == 2)
    bats = frozenset(p for p in range(49) if v[36 + p] == 1)
    return Placement(white, black, bats), int(v[85])


class FakeReader:
    def __init__(self) -> None:
        self.reads = 0

    def read(self, image: np.ndarray) -> BoardReading:
        self.reads += 1
        board, flags = decode(image)
        if board is None:
            return unreadable("the frame is black (lens covered or camera failing)")
        if flags == HAND:
            return unreadable("something covers the board: a hand or an object over the board?",
                              occluded_fraction=0.2)
        sp = np.zeros((36, 3))
        pp = np.zeros((49, 2))
        for s in range(36):
            sp[s, 1 if s in board.white else 2 if s in board.black else 0] = 1.0
        for p in range(49):
            pp[p, 1 if p in board.batteries else 0] = 1.0
        layout = BoardLayout.from_sets(board.white, board.black, board.batteries)
        code = image[0, 36:85, 1]
        printed = np.where(code == 1, 0.99, np.where(code == 2, 0.01, np.nan))
        doubt = image[0, :85, 2]
        if doubt.any():
            for i in np.flatnonzero(doubt):
                probs = sp[i] if i < 36 else pp[i - 36]
                true, other = int(probs.argmax()), int(doubt[i]) - 1
                probs[:] = 0.05 / max(1, len(probs) - 2)
                probs[true], probs[other] = 0.5, 0.45
            low_s = tuple(int(i) for i in np.flatnonzero(doubt[:36]))
            low_p = tuple(int(i) for i in np.flatnonzero(doubt[36:85]))
            return BoardReading(None, sp, pp, tuple(sp.max(axis=1)), tuple(pp.max(axis=1)), False,
                                reason="low confidence", low_confidence_squares=low_s, low_confidence_points=low_p,
                                printed_probs=printed)
        return BoardReading(layout, sp, pp, (1.0,) * 36, (1.0,) * 49, True, printed_probs=printed)


def fake_calibrate(image: np.ndarray, expected: Placement, corners=None, white_side=None, colours=None) -> str:
    board, flags = decode(image)
    if board is None or flags:
        raise ValueError("the frame does not show the board clearly")
    if board != expected:
        raise ValueError("the board does not show the expected position")
    return "fake-calibration"


@dataclass
class Table:
    """The physical table: the board, a hand, and the camera's health."""

    board: Placement
    hand: bool = False
    mode: str = "ok"  # ok | raise | black | stall
    sides: dict = None  # type: ignore[assignment]  # point -> "printed" | "blank" (R-23); None: none told
    unsure: dict = None  # type: ignore[assignment]  # square or ("p", point) -> the state nearly read instead


class TableCamera:
    name = "table"

    def __init__(self, table: Table, clock) -> None:  # noqa: ANN001
        self.table = table
        self.clock = clock
        self.count = 0

    def grab(self) -> Frame:
        t = self.table
        if t.mode == "raise":
            raise CameraError("camera table: unplugged (simulated)")
        if t.mode == "stall":
            time.sleep(5)
        self.count += 1
        flags = BLACK_FRAME if t.mode == "black" else HAND if t.hand else 0
        return Frame(encode(t.board, flags, t.sides, t.unsure), self.clock.now(), self.count)

    def close(self) -> None:
        pass


class FileTableCamera(TableCamera):
    """The table kept in a file (the crash test: the board outlives the companion process)."""

    def __init__(self, path: Path, clock) -> None:  # noqa: ANN001
        self.path = Path(path)
        super().__init__(Table(read_table(self.path)), clock)

    def grab(self) -> Frame:
        self.table.board = read_table(self.path)
        return super().grab()


def read_table(path: Path) -> Placement:
    return Placement.from_string(Path(path).read_text())


def write_table(path: Path, board: Placement) -> None:
    tmp = Path(str(path) + ".tmp")
    tmp.write_text(board.fields())
    os.replace(tmp, path)


def make(tmp_path: Path, board: Placement | Position | None = None, *, source=None, journal: Journal | None = None,
         clock: ManualClock | None = None, **kw):
    """A companion on mock pins, a ManualClock and the fake table; returns (companion, table)."""
    clock = clock or ManualClock()
    panel = Panel(None, MockPanelFactory(), clock=clock)
    table = Table(Placement.of(board if board is not None else Position.start()))
    src = source if source is not None else TableCamera(table, clock)
    jr = journal if journal is not None else Journal(tmp_path / "journal.sqlite")
    kw.setdefault("timings", TIMINGS)
    kw.setdefault("make_reader", lambda cal: FakeReader())
    kw.setdefault("calibrate", fake_calibrate)
    comp = Companion(panel, src, jr, **kw)
    return comp, table


def press(companion: Companion, name: str, hold: float = 0.1) -> None:
    panel = companion.panel
    pin = panel.button_pin(name)
    pin.drive_low()
    panel.clock.advance(hold)
    pin.drive_high()
    panel.clock.advance(0.05)


def hold_both_confirms(companion: Companion) -> None:
    panel = companion.panel
    a, b = panel.button_pin("confirm_white"), panel.button_pin("confirm_black")
    a.drive_low()
    b.drive_low()
    panel.clock.advance(2.2)
    a.drive_high()
    b.drive_high()
    panel.clock.advance(0.05)


def side(companion: Companion) -> str:
    return companion.referee.position.to_move.name.lower()


def play(companion: Companion, table: Table, turn, settle: float = 0.5) -> None:
    """Make ``turn`` on the table, wait, press the mover's confirm button, let the loop judge."""
    pos = companion.referee.position
    table.board = Placement.of(apply_turn(pos, turn, companion.rules))
    companion.run_for(settle)
    press(companion, f"confirm_{side(companion)}")
    companion.run_for(0.4)


def ready(companion: Companion, seconds: float = 3.0) -> None:
    companion.run_for(seconds)


def close(companion: Companion) -> None:
    companion.close()
    companion.panel.close()
    companion.journal.close()


def rng(seed: int = 0) -> random.Random:
    return random.Random(seed)
