"""The camera as the game loop sees it: a frame each turn of the loop, or a failure said once.

A frame source that raises (unplugged, a stall past ``camera_timeout``, a frame the reader
refuses) never takes the loop down: the failure is logged once (the same message with other
numbers is the same failure), amber shows, and the loop goes on asking. A frame counts as usable
once the reader has read it (:meth:`CameraWatch.read`; before the setup, once it is taken for the
calibration): when usable frames come back the log says so, once. A camera that delivers nothing
usable for ``camera_giveup`` seconds ends
:meth:`companion.referee.game.Companion.run` (:meth:`CameraWatch.give_up_after`), so that the
service is restarted and opens the camera again.
"""

from __future__ import annotations

from typing import Any, Callable

from ..cameras import CameraError, Frame, FrameSource
from ..vision_bridge import table_reading
from .log import gist
from .reading import TableReading


class CameraWatch:
    """The loop's frame source and its failures.

    ``panel``: the loop's panel (amber; its clock is the loop's); ``log(kind, text)`` and
    ``status(text)``: the loop's log and systemd status line."""

    def __init__(self, source: FrameSource, panel: Any, log: Callable[[str, str], None],
                 status: Callable[[str], None]) -> None:
        self.source = source
        self.panel = panel
        self.clock = panel.clock
        self.log = log
        self.status = status
        self.failures = 0
        self.message: str | None = None  # the latest failure
        self._said: str | None = None  # the failure last said in the log (None: frames come)
        self._since: float | None = None  # clock time of the first failure of the current run

    def grab(self) -> Frame | None:
        """The next frame, or None when the camera failed (:meth:`failed`)."""
        try:
            return self.source.grab()
        except CameraError as exc:
            self.failed(str(exc))
            return None
        except Exception as exc:  # a source must not take the loop down
            self.failed(f"camera failed: {type(exc).__name__}: {exc}")
            return None

    def read(self, frame: Frame, reader: Any) -> tuple[Any, TableReading] | None:
        """The vision reader's reading of ``frame`` and the referee's :class:`TableReading` of it, or
        None when the reader refuses the frame (a wrong size...): a failure as the camera's."""
        try:
            seen = reader.read(frame.image)
            return seen, table_reading(seen)
        except Exception as exc:  # a frame the reader refuses: report, keep going
            self.failed(f"the frame cannot be read: {exc}")
            return None

    def usable(self) -> bool:
        """A frame was used (read, or taken for the calibration): a run of failures is over. True,
        once, when a failure had been said (the log says frames come again)."""
        self._since = None
        if self._said is None:
            return False
        self.log("camera", "the camera delivers frames again")
        self._said = None
        return True

    def failed(self, message: str) -> None:
        """No usable frame (``message``: why): amber and the log, once per failure."""
        self.failures += 1
        self.message = message
        if self._since is None:
            self._since = self.clock.now()
        if gist(message) != gist(self._said):  # "5 bad frames", "6 bad frames": said once
            self._said = message
            self.log("camera", message)
            self.panel.signal_unreadable()
            self.status(message)

    def give_up_after(self, seconds: float) -> None:
        """Raise :class:`CameraError` when no usable frame has come for ``seconds``."""
        since = self._since
        if since is not None and self.clock.now() - since >= seconds:
            raise CameraError(f"no usable frame for {seconds:g} s (last: {self._said})")
