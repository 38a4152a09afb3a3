"""Reading the physical Netzwerk board from a camera (knows nothing of the rules).

Main entry points: :func:`vision.calibration.calibrate` and
:class:`vision.reader.BoardReader`; frames come from :mod:`vision.sources`;
:func:`vision.render.render` is a synthetic camera for tests and demos.
"""

import os as _os

# The per-frame matrix products are small (10 x 21 by 21 x 28k): a multi-threaded BLAS spends
# more time waking threads than computing (5.8 ms vs 16 ms per read on 2 cores). Only a
# default: an explicit setting in the environment wins, and it must come before numpy loads.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    _os.environ.setdefault(_var, "1")

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
