"""Camera readings made by hand for the referee's tests (no rendering).

``reading_of(board)`` reads every field of ``board`` with confidence; ``unsure``
overrides the probabilities of some fields (a square ``s`` or a point ``("p", p)``),
and fields whose best state falls under ``threshold`` are reported low-confidence
as ``vision.reader.BoardReader`` does.  ``blank``/``printed``: battery points whose side the
camera tells (R-23); every other side is unknown (NaN), as from a reader that cannot tell.

``camera_reading_of`` gives the camera-side :class:`FakeReading` (the fields of
``vision.reading.BoardReading``); ``reading_of`` hands it through the companion's
one adapter (``companion.vision_bridge.table_reading``) to the typed reading the
referee takes, as the game loop does with every frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from companion.referee.reading import TableReading
from companion.vision_bridge import table_reading


@dataclass
class FakeReading:
    readable: bool
    reason: str | None
    square_probs: np.ndarray
    point_probs: np.ndarray
    low_confidence_squares: tuple[int, ...] = ()
    low_confidence_points: tuple[int, ...] = ()
    occluded_fraction: float = 0.0
    alignment: float = 1.0
    square_confidence: tuple[float, ...] = ()
    point_confidence: tuple[float, ...] = ()
    printed_probs: np.ndarray | None = None
    layout: Any = None  # the camera's layout of a readable board (the referee does not use it)
    doubts: dict = field(default_factory=dict)  # field name -> why the camera is unsure of it


def reading_of(board, unsure: dict | None = None, threshold: float = 0.9, **kw) -> TableReading:
    """The referee's reading of :func:`camera_reading_of` (same arguments)."""
    return table_reading(camera_reading_of(board, unsure, threshold, **kw))


def camera_reading_of(board, unsure: dict | None = None, threshold: float = 0.9, *, blank=(), printed=(),
                      reason: str | None = None, **kw) -> FakeReading:
    """A confident reading of ``board``; ``unsure`` maps a square (int) or point ('p', int) to probabilities;
    ``reason`` replaces the reader's "low confidence" of an unsure reading."""
    # a sure field at 0.9995: above the referee's NEAR_SURE (0.999), which tries a field read less surely
    # in its other states when a turn needs a doubtful field in its less likely one
    sp = np.full((36, 3), 0.00025)
    pp = np.full((49, 2), 0.0005)
    for s in range(36):
        sp[s, 1 if s in board.white else 2 if s in board.black else 0] = 0.9995
    for p in range(49):
        pp[p, 1 if p in board.batteries else 0] = 0.9995
    for key, probs in (unsure or {}).items():
        if isinstance(key, tuple):
            pp[key[1]] = probs
        else:
            sp[key] = probs
    low_s = tuple(int(i) for i in np.flatnonzero(sp.max(axis=1) < threshold))
    low_p = tuple(int(i) for i in np.flatnonzero(pp.max(axis=1) < threshold))
    readable = not (low_s or low_p)
    sides = np.full(49, np.nan)
    sides[list(printed)] = 0.99
    sides[list(blank)] = 0.01
    return FakeReading(readable, None if readable else reason or "low confidence", sp, pp, low_s, low_p,
                       square_confidence=tuple(sp.max(axis=1)), point_confidence=tuple(pp.max(axis=1)),
                       printed_probs=sides, **kw)
