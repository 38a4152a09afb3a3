"""The camera's calibration in the game loop: at setup, when the camera is saved, and again mid-game.

Setup: no calibration yet; every ``calibration_retry`` seconds the loop tries
to calibrate from the frame, expecting the start position (or the position of
the game being resumed); amber and the reason until it works.

Recalibration (``check`` and ``playing``): a bumped camera or a moved lamp
must not end the game. When the readings stay unreadable for a reason of the
whole frame -- the board is not where the calibration put it (alignment below
the camera's limit: ``TableReading.moved``), or no confident reading although every field
the camera is sure of shows the expected board -- for ``recalibrate_after``
seconds, while the picture keeps still (no hand, no motion) and no confirm
press is pending, the loop calibrates again from that frame, expecting the
*last accepted* position (during a check: the position the check expects),
with the old calibration's robot colours and orientation. Calibration refuses
a frame whose fields do not hold that position (the players moved pieces
since): the refusal is logged, the old reader kept, and it is tried again
after the same delay. A recalibration never judges a turn: the next confirm
press is judged as always, against the last accepted position. The kinds of
whole-frame trouble and the stillness of the picture: :mod:`companion.referee.recalibration`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..cameras import Frame
from ..rules.position import Placement
from ..vision_bridge import calibration_of, colours_of, load_calibration, white_side_of
from .log import gist
from .reading import TableReading
from .recalibration import MAX_BACKOFF, UNSURE, frame_trouble, picture_moved, thumbnail
from .timings import LoopTimings


class Calibrator:
    """The calibration and the reader made from it; calibrates at setup and again mid-game.

    ``calibrate``/``make_reader``: the vision functions (tests swap in fakes).
    ``log(kind, text)`` and ``status(text)``: the loop's log and systemd status line.
    """

    def __init__(self, panel: Any, timings: LoopTimings, log: Callable[[str, str], None],
                 status: Callable[[str], None], *, calibration: Any, corners: Any, white_side: str | None,
                 calibration_path: Path | None, calibrate: Callable[..., Any],
                 make_reader: Callable[[Any], Any]) -> None:
        self.panel = panel
        self.clock = panel.clock
        self.timings = timings
        self._log = log
        self._status = status
        self.corners = corners
        self.white_side = white_side
        self.calibration_path = calibration_path
        self.calibrate = calibrate
        self.make_reader = make_reader
        self.calibration = calibration
        self.reader = make_reader(calibration) if calibration is not None else None
        self._last_calibration_try = -1e18
        self._last_setup_error: str | None = None
        self._trouble_since: float | None = None   # first frame of the current run of unreadable frames
        self._trouble_reason: str | None = None
        self._still_since: float | None = None     # the picture has not changed since
        self._prev_thumb: np.ndarray | None = None
        self._last_recalibration_try = -1e18
        self._last_recalibration_error: str | None = None
        self._recalibrated_unread = 0               # recalibrations since the last readable board
        self.recalibrations = 0
        self.recalibration_failures = 0

    # ================================================================ setup
    def load_saved(self) -> None:
        """Resuming mid-game: the board no longer shows the start position to learn from, so the
        calibration saved when this setup was calibrated is used (if there is one)."""
        if self.reader is not None or self.calibration_path is None or not self.calibration_path.exists():
            return
        try:
            self.calibration = load_calibration(self.calibration_path)
            self.reader = self.make_reader(self.calibration)
            self._log("setup", f"calibration loaded from {self.calibration_path}")
        except Exception as exc:
            self._log("setup", f"saved calibration not usable ({exc}): calibrating from the board")

    def try_setup(self, frame: Frame, expected: Placement, what: str) -> bool:
        """Calibrate from ``frame`` expecting ``expected`` (named ``what`` in the log), at most every
        ``calibration_retry`` seconds. True when the camera is calibrated."""
        now = self.clock.now()
        if now - self._last_calibration_try < self.timings.calibration_retry:
            return False
        self._last_calibration_try = now
        try:
            cal = self.calibrate(frame.image, expected, self.corners, white_side=self.white_side)
        except Exception as exc:
            why = str(exc) or type(exc).__name__
            if why != self._last_setup_error:
                self._last_setup_error = why
                self._log("setup", f"waiting for {what} to calibrate the camera: {why}")
                self.panel.signal_unreadable()
            return False
        self.calibration = cal
        self.reader = self.make_reader(cal)
        self._save(cal, "setup", "calibration not saved")
        self._log("setup", "camera calibrated from the board")
        return True

    def _save(self, cal: Any, kind: str, failed: str) -> None:
        if self.calibration_path is None:
            return
        try:
            self.calibration_path.parent.mkdir(parents=True, exist_ok=True)
            cal.save(self.calibration_path)
        except Exception as exc:
            self._log(kind, f"{failed} ({exc})")

    # ================================================================ recalibration
    def reset_trouble(self) -> None:
        self._trouble_since = None
        self._trouble_reason = None
        self._prev_thumb = None
        self._still_since = None
        self._last_recalibration_error = None

    def due(self, frame: Frame, reading: TableReading, target: Placement, min_field_prob: float,
            idle: bool) -> bool:
        """Follow the run of unreadable frames; True when it is time to calibrate again.

        ``target``: the board a recalibration would expect; ``idle``: no press is being judged
        and no question asked (never change the camera under them). The caller resets the
        trouble (:meth:`reset_trouble`) outside a check or play."""
        delay = self.timings.recalibrate_after
        if delay <= 0:
            self.reset_trouble()
            return False
        if reading.readable:
            self._recalibrated_unread = 0
        kind = frame_trouble(reading)
        if kind == UNSURE:
            if not reading.shows(target, 0.0):
                kind = None  # a field the camera is sure of shows another board: the players moved pieces
            elif reading.unsure and reading.shows(target, min_field_prob):
                kind = None  # unsure, but the referee can settle it with the rules
        if kind is None:
            self.reset_trouble()
            return False
        now = frame.at
        if self._trouble_since is None:
            self._trouble_since = now
        self._trouble_reason = reading.reason or kind
        thumb = thumbnail(frame.image)
        if self._prev_thumb is None or picture_moved(self._prev_thumb, thumb):
            self._still_since = now
        self._prev_thumb = thumb
        if not idle:
            return False
        wait = delay * min(MAX_BACKOFF, 2 ** self._recalibrated_unread)
        if now - self._trouble_since < wait - 1e-9:
            return False
        assert self._still_since is not None
        if now - self._still_since < self.timings.stable_seconds - 1e-9:
            return False  # a hand or the camera still moving
        return self.clock.now() - self._last_recalibration_try >= delay - 1e-9

    def mend(self, frame: Frame, reading: TableReading, target: Placement, name: str, min_field_prob: float,
             idle: bool) -> Any:
        """Follow the run of unreadable frames (:meth:`due`) and, when it is time, calibrate again from
        ``frame`` expecting ``target`` (:meth:`recalibrate`). The new calibration, or None."""
        if not self.due(frame, reading, target, min_field_prob, idle):
            return None
        return self.recalibrate(frame, target, name)

    def recalibrate(self, frame: Frame, target: Placement, name: str) -> Any:
        """Calibrate again from ``frame``, expecting ``target`` (named ``name`` in the log).
        The new calibration (a new run of trouble begins), or None if it did not work (the old
        reader is kept)."""
        self._last_recalibration_try = self.clock.now()
        old = calibration_of(self.reader) or self.calibration
        colours = colours_of(old)
        side = white_side_of(old) or self.white_side
        lasted = frame.at - (self._trouble_since if self._trouble_since is not None else frame.at)
        if self._last_recalibration_error is None:
            self._log("camera", f"the board has been unreadable for {lasted:.0f} s ({self._trouble_reason}): "
                                f"calibrating the camera again from {name}")
        try:
            cal = self.calibrate(frame.image, target, self.corners, white_side=side, colours=colours)
            reader = self.make_reader(cal)
        except Exception as exc:
            self.recalibration_failures += 1
            why = str(exc) or type(exc).__name__
            if gist(why) != gist(self._last_recalibration_error):
                self._log("camera", f"the camera could not be recalibrated from {name}: {why}; trying again every "
                                    f"{self.timings.recalibrate_after:g} s (pieces moved since? put them back as "
                                    "they were)")
                self.panel.signal_unreadable()
                self._status(f"camera not recalibrated: {why}")
            self._last_recalibration_error = why
            return None
        self.calibration = cal
        self.reader = reader
        self.recalibrations += 1
        self._recalibrated_unread += 1
        self._save(cal, "camera", "the new calibration was not saved")
        self._log("camera", f"camera recalibrated from {name}")
        self.reset_trouble()
        return cal
