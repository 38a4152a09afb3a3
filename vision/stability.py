"""Is the board still? Motion and hands between frames.

A reading is worth offering only when nothing moved for a while: a hand over
the board, a piece in mid-air or a blurred frame all show up as change
between consecutive frames, or as an unreadable (occluded) reading.
:class:`StabilityMonitor` reports "stable" only after the board has been still
for ``still_seconds``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import cv2
import numpy as np

from .features import rectify

THUMB = 64


def thumbnail(image: np.ndarray, H_board_to_img: np.ndarray | None = None) -> np.ndarray:
    """A small blurred grey picture of the board (or the whole frame without a homography)."""
    if H_board_to_img is not None:
        image = rectify(image, H_board_to_img)
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    small = cv2.resize(gray, (THUMB, THUMB), interpolation=cv2.INTER_AREA).astype(np.float32)
    return cv2.GaussianBlur(small, (3, 3), 0)


def motion_score(a: np.ndarray, b: np.ndarray) -> float:
    """How much changed between two thumbnails: the share of cells that changed clearly."""
    diff = np.abs(a - b)
    # a cell "changed" when it moved by more than a few grey levels beyond the typical noise
    noise = float(np.median(diff))
    return float(np.mean(diff > max(6.0, 4.0 * noise)))


@dataclass(frozen=True)
class StabilityStatus:
    stable: bool
    reason: str | None        # why not stable
    still_for: float          # seconds without motion so far
    motion: float             # last motion score (share of the board that changed)


class StabilityMonitor:
    """Feed every frame (and, if you have it, its reading); ask whether the board is still.

    ``still_seconds``: how long the board must be still before it is "stable".
    ``motion_threshold``: share of the board that may change between frames (noise, flicker).
    ``calibration``: when given, only the board area is watched.
    """

    def __init__(self, still_seconds: float = 1.0, motion_threshold: float = 0.01, calibration=None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if still_seconds < 0:
            raise ValueError(f"still_seconds must be >= 0, not {still_seconds}")
        self.still_seconds = float(still_seconds)
        self.motion_threshold = float(motion_threshold)
        self._H = None if calibration is None else calibration.H
        self._clock = clock
        self._prev: np.ndarray | None = None
        self._still_since: float | None = None
        self.status = StabilityStatus(False, "no frame yet", 0.0, 0.0)

    def reset(self) -> None:
        self._prev = None
        self._still_since = None
        self.status = StabilityStatus(False, "no frame yet", 0.0, 0.0)

    def update(self, image: np.ndarray | None, reading=None, now: float | None = None) -> StabilityStatus:
        now = self._clock() if now is None else now
        if image is None:
            self._still_since = None
            self.status = StabilityStatus(False, "no frame from the camera", 0.0, 0.0)
            return self.status
        thumb = thumbnail(image, self._H)
        motion = 0.0 if self._prev is None else motion_score(self._prev, thumb)
        first = self._prev is None
        self._prev = thumb
        reason = None
        if first:
            reason = "just started watching"
        elif motion > self.motion_threshold:
            reason = f"motion over the board ({motion:.0%} of it changed)"
        elif reading is not None and not reading.readable and reading.occluded_fraction > 0.02:
            reason = f"something over the board: {reading.reason}"
        if reason is not None:
            self._still_since = None if not first else now
            if not first:
                self.status = StabilityStatus(False, reason, 0.0, motion)
                return self.status
        if self._still_since is None:
            self._still_since = now
        still = now - self._still_since
        if still + 1e-9 < self.still_seconds:
            why = reason or f"waiting for the board to stay still ({still:.1f} of {self.still_seconds:.1f} s)"
            self.status = StabilityStatus(False, why, still, motion)
        else:
            self.status = StabilityStatus(True, None, still, motion)
        return self.status
