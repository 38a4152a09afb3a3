"""Earlier looks of every field: what each field looked like in the boards the reader was told before
the reference it holds now.

The reader's reference is the last board it was told; a field that looks just as it did there keeps
what it held (:mod:`vision.anyset.reader`). In a game a field often returns to a look it had a few
boards ago: a battery drawn on is turned to its blank side and turned back the next turn (R-23), a
square a robot leaves shows its empty board again, a battery goes back where it stood. The memory keeps,
per field, the last :data:`KEEP` looks that differ from each other (with what the field held then), so
that such a field is recognised too. Like the reference it is the caller's word (accepted boards), made
of this camera's frames; it lives as long as the reader and the board's place in the frame (a new
homography starts it again) and is not written to the calibration file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .fieldnet import REF_EMPTY, REF_OCCUPIED
from .patches import PATCH

KEEP = 3             # looks kept per field (a battery's printed and blank side, the field empty)
NONE = -1            # an unused slot's state

# (looks a (n, 3, P, P), looks b (n, 3, P, P)) -> (n,): how far each field's two looks differ
Difference = Callable[[np.ndarray, np.ndarray], np.ndarray]


@dataclass
class FieldMemory:
    """The earlier looks of ``n`` fields: slot 0 the newest."""

    looks: np.ndarray     # (KEEP, n, 3, P, P) float32, normalised log colour
    state: np.ndarray     # (KEEP, n) int8: REF_EMPTY / REF_OCCUPIED, NONE where the slot is unused
    colour: np.ndarray    # (KEEP, n) int8: the robot's colour (squares; COLOUR_UNKNOWN elsewhere)

    @classmethod
    def new(cls, n: int) -> "FieldMemory":
        return cls(np.zeros((KEEP, n, 3, PATCH, PATCH), np.float32), np.full((KEEP, n), NONE, np.int8),
                   np.zeros((KEEP, n), np.int8))

    def remember(self, looks: np.ndarray, state: np.ndarray, colour: np.ndarray, take: np.ndarray,
                 difference: Difference, limit: float) -> None:
        """Keep the looks of the fields ``take`` (bool (n,)) with what they held (``state``, ``colour``);
        fields of unknown content are skipped. A look that differs from the field's newest kept one by
        at most ``limit`` with the same content replaces it (the light follows); any other goes in
        front and the oldest is dropped."""
        state = np.asarray(state)
        take = np.asarray(take, bool) & ((state == REF_EMPTY) | (state == REF_OCCUPIED))
        if not take.any():
            return
        rows = np.flatnonzero(take)
        x = np.asarray(looks, np.float32)[rows]
        near = difference(x, self.looks[0, rows]) <= limit
        same = near & (self.state[0, rows] == state[rows]) & (self.colour[0, rows] == colour[rows])
        shift = rows[~same]
        self.looks[1:, shift] = self.looks[:-1, shift]
        self.state[1:, shift] = self.state[:-1, shift]
        self.colour[1:, shift] = self.colour[:-1, shift]
        self.looks[0, rows] = x
        self.state[0, rows] = state[rows]
        self.colour[0, rows] = np.asarray(colour)[rows]

    def distances(self, looks: np.ndarray, difference: Difference, among: np.ndarray | None = None) -> np.ndarray:
        """(KEEP, n): how far the looks now (n, 3, P, P) lie from each kept look of their field
        (``difference``); infinite where a slot is unused or the field is not ``among`` ((n,) bool; None:
        every field)."""
        used = self.state != NONE
        if among is not None:
            used = used & np.asarray(among, bool)[None, :]
        out = np.full(used.shape, np.inf)
        for k in range(KEEP):
            rows = np.flatnonzero(used[k])
            if len(rows):
                out[k, rows] = difference(looks[rows], self.looks[k, rows])
        return out

    def matching(self, looks: np.ndarray, difference: Difference, limit: float) -> tuple[np.ndarray, np.ndarray]:
        """Which kept looks the looks now match: ((KEEP, n) bool matched, (KEEP, n) state of each)."""
        return self.distances(looks, difference) <= limit, self.state
