"""What the referee and the game loop know of one camera frame: a :class:`TableReading`.

The camera's own reading (``vision.reading.BoardReading`` of either reader) is
turned into a ``TableReading`` in one place, the adapter
:func:`companion.vision_bridge.table_reading`; from there on the loop and the
referee use only this typed, frozen value: the board seen with confidence
(``placement``), the most likely board (``guess``), the per-field
probabilities, the fields the camera is unsure of, whether the board is where
the calibration put it (``moved``) or covered by a hand (``covered``) -- the
camera's limits for both are applied by the adapter -- and the batteries'
sides the camera tells (R-23).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..cameras import Frame
from ..rules.geometry import point_name, square_name
from ..rules.position import Placement
from ..rules.sides import BLANK, PRINTED
from .boards import point_state, square_state

N_SQUARES = 36
N_POINTS = 49
#: P(printed) at which a battery's side counts as told (as ``vision.reading.BoardReading.battery_side``)
SIDE_CONFIDENCE = 0.9


@dataclass(frozen=True)
class TableReading:
    """One frame as the referee sees it.

    ``square_probs``: (36, 3) in the order empty, White, Black; ``point_probs``:
    (49, 2) in the order empty, battery; both None when the board was not
    located at all. ``placement``: the board read with confidence (None unless
    ``readable``). ``moved``: the board is not where the calibration put it
    (alignment under the camera's limit); ``covered``: a hand or an object over
    the board (occluded share over the camera's limit). ``sides``: per point
    ``printed``, ``blank`` or None (cannot tell); empty when the camera tells no
    side at all.
    """

    readable: bool
    reason: str | None = None
    placement: Placement | None = None
    square_probs: np.ndarray | None = field(default=None, compare=False)
    point_probs: np.ndarray | None = field(default=None, compare=False)
    unsure_squares: tuple[int, ...] = ()
    unsure_points: tuple[int, ...] = ()
    square_confidence: tuple[float, ...] = ()
    point_confidence: tuple[float, ...] = ()
    alignment: float = 1.0
    occluded_fraction: float = 0.0
    moved: bool = False
    covered: bool = False
    sides: tuple[str | None, ...] = ()
    doubts: tuple[tuple[str, str], ...] = ()     # (field name, why the camera is unsure of it), where it says

    def __post_init__(self) -> None:
        for name, probs, shape in (("square_probs", self.square_probs, (N_SQUARES, 3)),
                                   ("point_probs", self.point_probs, (N_POINTS, 2))):
            if probs is None:
                continue
            arr = np.array(probs, dtype=float)
            if arr.shape != shape or not np.isfinite(arr).all():
                raise ValueError(f"a reading's {name} must be {shape[0]}x{shape[1]} finite probabilities, "
                                 f"got shape {arr.shape}")
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)
        if self.sides and len(self.sides) != N_POINTS:
            raise ValueError(f"a reading's sides must name {N_POINTS} points, got {len(self.sides)}")

    # -- the board ------------------------------------------------------------------------------
    @property
    def located(self) -> bool:
        """Was the board found at all (probabilities that are not uniform)?"""
        if self.square_probs is None or self.point_probs is None:
            return False
        return not (np.allclose(self.square_probs, 1 / 3) and np.allclose(self.point_probs, 1 / 2))

    @property
    def unsure(self) -> bool:
        """Are some fields read without confidence?"""
        return bool(self.unsure_squares or self.unsure_points)

    @property
    def only_unsure(self) -> bool:
        """Is low confidence at some fields the reading's only problem (no hand, board in place)?"""
        return not self.covered and not self.moved

    @property
    def guess(self) -> Placement | None:
        """The most likely board (also of an unsure reading), or None when the board was not found."""
        if self.square_probs is None or self.point_probs is None:
            return None
        sq = self.square_probs.argmax(axis=1)
        pt = self.point_probs.argmax(axis=1)
        return Placement(frozenset(int(i) for i in np.flatnonzero(sq == 1)),
                         frozenset(int(i) for i in np.flatnonzero(sq == 2)),
                         frozenset(int(i) for i in np.flatnonzero(pt == 1)))

    def shows(self, expected: Placement, min_prob: float) -> bool:
        """Does an unsure reading (low confidence its only problem) fit ``expected``? Every sure field
        must read as expected, every unsure one must give the expected state at least ``min_prob``."""
        if self.square_probs is None or self.point_probs is None:
            return False
        sp, pp = self.square_probs, self.point_probs
        low_s, low_p = set(self.unsure_squares), set(self.unsure_points)
        for s in range(N_SQUARES):
            k = square_state(expected, s)
            if (sp[s].argmax() != k) and not (s in low_s and sp[s][k] >= min_prob):
                return False
        for p in range(N_POINTS):
            k = point_state(expected, p)
            if (pp[p].argmax() != k) and not (p in low_p and pp[p][k] >= min_prob):
                return False
        return True

    @property
    def signature(self) -> tuple:
        """What must stay the same from frame to frame for the board to count as still."""
        if self.square_probs is None or self.point_probs is None:
            return ("none", self.reason)
        return (self.square_probs.argmax(axis=1).tobytes(), self.point_probs.argmax(axis=1).tobytes(),
                self.readable, self.unsure_squares, self.unsure_points)

    # -- for the journal and the sides ---------------------------------------------------------------
    def confidences(self) -> dict:
        """The least confident square and point and the unsure fields (kept with an accepted turn)."""
        out: dict = {}
        if self.square_confidence:
            out["min_square"] = round(float(min(self.square_confidence)), 4)
        if self.point_confidence:
            out["min_point"] = round(float(min(self.point_confidence)), 4)
        low = [square_name(s) for s in self.unsure_squares] + [point_name(p) for p in self.unsure_points]
        if low:
            out["unsure"] = low
        return out

    def sides_of(self, batteries: frozenset[int] | set[int]) -> dict[int, str]:
        """R-23: the side each battery of ``batteries`` shows where the camera tells it; a point left
        out is unknown. A reading without sides gives nothing."""
        if not self.sides:
            return {}
        return {p: side for p in sorted(batteries) if (side := self.sides[p]) is not None}


def sides_from_probs(printed_probs: object) -> tuple[str | None, ...]:
    """Per point ``printed``/``blank``/None from P(printed side up) (NaN: cannot tell), told at
    :data:`SIDE_CONFIDENCE`; () for anything that is not 49 numbers (a reader without sides)."""
    if printed_probs is None:
        return ()
    try:
        values = [float(v) for v in printed_probs]  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        return ()
    if len(values) != N_POINTS:
        return ()
    out: list[str | None] = []
    for v in values:
        if math.isnan(v):
            out.append(None)
        elif v >= SIDE_CONFIDENCE:
            out.append(PRINTED)
        elif 1.0 - v >= SIDE_CONFIDENCE:
            out.append(BLANK)
        else:
            out.append(None)
    return tuple(out)



@dataclass(frozen=True)
class Seen:
    """The game loop's latest reading, and since when the board has looked like this."""

    frame: Frame
    reading: TableReading
    signature: tuple  # the reading's signature (:attr:`TableReading.signature`)
    since: float  # clock time of the first of the consecutive frames with this signature
    board: Placement | None  # the board read in that first frame

    @classmethod
    def after(cls, previous: "Seen | None", frame: Frame, reading: TableReading) -> "Seen":
        """The reading of ``frame``, following ``previous`` (None: the first since a calibration)."""
        sig = reading.signature
        if previous is not None and previous.signature == sig:
            return cls(frame, reading, sig, previous.since, previous.board)
        return cls(frame, reading, sig, frame.at, reading.placement)

    def stable(self, seconds: float) -> bool:
        """Has the board looked like this for ``seconds`` (by the frames' clock)?"""
        return self.frame.at - self.since >= seconds - 1e-9
