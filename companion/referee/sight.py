"""What the camera shows the game loop each tick: one frame, read with the current calibration.

Before the setup the frame is used to calibrate the camera (:mod:`~companion.referee.calibrator`,
expecting the board the check waits for). After it the vision reader reads the frame into a
:class:`~companion.referee.reading.TableReading`; a frame the camera does not deliver, or the
reader refuses, is a failure of the camera (:mod:`~companion.referee.camera`: said once). During
``check`` and ``playing`` a run of unreadable frames may calibrate the camera again (a bumped
camera, a moved lamp), expecting the last accepted board; the journal notes it. Every frame
goes to the onlooker (the web page's set-up view).

The loop gets a :class:`Look` and steps its state: no frame (a waiting press may time out),
nothing yet (setup goes on), a new calibration (the readings begin afresh), or a reading.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ..cameras import Frame
from ..vision_bridge import method_of
from .calibrator import Calibrator
from .camera import CameraWatch
from .check import BoardCheck
from .onlooker import Onlooker
from .phases import CHECK, PLAYING
from .reading import TableReading
from .records import GameRecords
from .referee import Referee

NO_FRAME = "no-frame"  # the camera delivered no usable frame (camera.py said why)
NOT_YET = "not-yet"  # setup: the frame did not calibrate the camera (calibrator.py said why)
CALIBRATED = "calibrated"  # setup: the camera is calibrated from the frame
RECALIBRATED = "recalibrated"  # check or play: the camera is calibrated again from the frame
READ = "read"  # the frame is read


@dataclass(frozen=True)
class Look:
    """One tick's frame as the loop gets it: ``kind`` (:data:`NO_FRAME`, :data:`NOT_YET`,
    :data:`CALIBRATED`, :data:`RECALIBRATED` or :data:`READ`), the frame and its reading (read)."""

    kind: str
    frame: Frame | None = None
    reading: TableReading | None = None


class Sight:
    """The loop's camera (``camera``), its calibration (``calibrator``) and the frames' onlooker.

    ``records``: where a recalibration is noted; ``back()``: called when usable frames come again
    after a failure (the loop shows its phase's signals again)."""

    def __init__(self, camera: CameraWatch, calibrator: Calibrator, onlooker: Onlooker, records: GameRecords,
                 back: Callable[[], None]) -> None:
        self.camera = camera
        self.calibrator = calibrator
        self.onlooker = onlooker
        self.records = records
        self.back = back
        self.frames_read = 0

    @property
    def reader(self) -> Any:
        """The vision reader of the current calibration (None before setup)."""
        return self.calibrator.reader

    def look(self, phase: str, check: BoardCheck, referee: Referee, game_id: int | None, idle: bool) -> Look:
        """Grab and read one frame in ``phase`` (``check``: the loop's board check; ``referee``: the
        last accepted board; ``idle``: no press judged and no question asked, the camera may change)."""
        frame = self.camera.grab()
        if frame is None:
            return Look(NO_FRAME)
        reader = self.reader
        if reader is None:
            self._usable()
            self.onlooker.frame_seen(frame.image, None, None)
            calibrated = self.calibrator.try_setup(frame, check.expected, check.setup_name)
            return Look(CALIBRATED if calibrated else NOT_YET, frame)
        read = self.camera.read(frame, reader)
        if read is None:
            return Look(NO_FRAME, frame)
        seen, reading = read
        self._usable()
        self.onlooker.frame_seen(frame.image, getattr(reader, "calibration", None), seen)
        self.frames_read += 1
        if self._recalibrated(frame, reading, phase, check, referee, game_id, idle):
            return Look(RECALIBRATED, frame, reading)
        return Look(READ, frame, reading)

    def _usable(self) -> None:
        if self.camera.usable():
            self.back()

    def _recalibrated(self, frame: Frame, reading: TableReading, phase: str, check: BoardCheck, referee: Referee,
                      game_id: int | None, idle: bool) -> bool:
        """Was the camera calibrated again from ``frame`` (a run of unreadable frames in check or play)?"""
        if phase not in (CHECK, PLAYING):
            self.calibrator.reset_trouble()
            return False
        target, name = check.recalibration_target(phase == CHECK, referee.position)
        cal = self.calibrator.mend(frame, reading, target, name, referee.min_field_prob, idle)
        if cal is None:
            return False
        self.records.recalibrated(game_id, len(referee.history) + 1, method_of(cal))
        return True
