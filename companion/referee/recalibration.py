"""When the loop calibrates the camera again mid-game: the kinds of whole-frame trouble a new
calibration may cure, and whether the picture keeps still (see :mod:`companion.referee.game`)."""

from __future__ import annotations

import numpy as np

from .reading import TableReading

MOVED = "moved"    # the board is not where the calibration put it (camera or board bumped)
UNSURE = "unsure"  # the board is in place, but fields stay unsure (e.g. the lamp was moved)
MOTION_CELL = 6.0     # grey levels: a thumbnail cell changed by more than this moved
MOTION_SHARE = 0.01   # share of changed cells above which the picture is not still
MAX_BACKOFF = 8       # recalibrations that did not bring a readable board stretch the delay up to this factor


def frame_trouble(reading: TableReading) -> str | None:
    """Why a reading is unreadable for a reason of the whole frame that a new calibration may cure:
    :data:`MOVED` (the board is not where the calibration put it), :data:`UNSURE` (the board in
    place, no hand, but fields unsure), or None (readable, a hand or an object over the board, a
    blank frame: nothing a calibration cures)."""
    if reading.readable or not reading.located:
        return None  # readable, or the board was not located at all (black or blank frame)
    if reading.moved:
        return MOVED
    if reading.covered:
        return None  # a hand: it goes away by itself
    return UNSURE


def thumbnail(image: np.ndarray) -> np.ndarray:
    import cv2

    img = np.asarray(image)
    gray = img if img.ndim == 2 else cv2.cvtColor(img[..., :3], cv2.COLOR_BGR2GRAY)
    return cv2.resize(gray, (32, 24), interpolation=cv2.INTER_AREA).astype(np.float32)


def picture_moved(a: np.ndarray, b: np.ndarray) -> bool:
    """Did the picture change between two thumbnails (a hand, a piece moved, the camera shaking)?"""
    return float(np.mean(np.abs(a - b) > MOTION_CELL)) > MOTION_SHARE
