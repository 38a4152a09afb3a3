"""Reading the physical Netzwerk board from a camera (knows nothing of the rules).

Main entry points: :func:`vision.calibration.calibrate` and
:class:`vision.reader.BoardReader`; frames come from :mod:`vision.sources`;
:func:`vision.render.render` is a synthetic camera for tests and demos.
"""

from .errors import BadCorners, BadImage, CalibrationError, MarkersNotFound, SourceError, VisionError
from .layout import BoardLayout, PointState, SquareState

__all__ = [
    "BadCorners",
    "BadImage",
    "BoardLayout",
    "CalibrationError",
    "MarkersNotFound",
    "PointState",
    "SourceError",
    "SquareState",
    "VisionError",
]
