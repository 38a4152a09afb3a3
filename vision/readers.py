"""The two board readers behind one door: which one calibrates, and which one reads a calibration.

* ``"any"`` (:mod:`vision.anyset`): assumes nothing about the set's look but the
  geometry (a field classifier trained on many random designs compares each
  field with the last board it knows). For any real set: the 1984 board,
  home-made boards, chess or go pieces.
* ``"classic"`` (:mod:`vision.calibration`, :mod:`vision.reader`): a pixel model
  of the one look our renderer first drew (wooden board, ivory and black
  robots); on other sets it refuses most start set-ups and reads almost no
  frame.

A calibration file says which reader made it (its ``format``), so reading,
overlays, ``audit`` and a resumed ``run`` take the right reader from the file;
only a new calibration needs to be told (``--reader`` / ``[calibration] reader``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from . import calibration as classic_calibration
from .anyset import calibration as any_calibration
from .errors import CalibrationError
from .layout import BoardLayout

READERS = ("any", "classic")
DEFAULT_READER = "any"
#: The ``format`` marker of each reader's calibration file.
FORMATS = {"classic": classic_calibration.FORMAT, "any": any_calibration.FORMAT}


def check_reader(name: object) -> str:
    """The reader's name, or :class:`CalibrationError` naming the choices."""
    if name not in READERS:
        raise CalibrationError(f"unknown reader {name!r}: choose one of {', '.join(READERS)}")
    return str(name)


def calibrate(image: np.ndarray, expected: BoardLayout, *, reader: str = DEFAULT_READER, corners=None,
              white_side: str | None = None, colours: Any = None):
    """Calibrate with the named reader (see the module docstring); the arguments are the readers' own."""
    module = any_calibration if check_reader(reader) == "any" else classic_calibration
    if module is any_calibration and colours is not None and not isinstance(colours, any_calibration.ColourModel):
        colours = None          # the classic reader's looks do not carry over to this reader
    return module.calibrate(image, expected, corners=corners, white_side=white_side, colours=colours)


def calibration_from_json(data: object, source: str = "calibration"):
    """A calibration of either reader, by its ``format`` marker."""
    if isinstance(data, dict) and data.get("format") == any_calibration.FORMAT:
        return any_calibration.Calibration.from_json(data, source)
    return classic_calibration.Calibration.from_json(data, source)


def load_calibration(path: str | Path):
    """Read a calibration file written by either reader (:class:`CalibrationError` naming what is wrong)."""
    return calibration_from_json(classic_calibration.read_calibration_file(path),
                                 source=f"calibration file {str(path)!r}")


def reader_of(calibration: Any) -> str:
    """Which reader made ``calibration`` ("any" or "classic")."""
    return "any" if isinstance(calibration, any_calibration.Calibration) else "classic"


def board_reader(calibration: Any, **options):
    """The board reader for ``calibration`` (the reader that made it)."""
    if reader_of(calibration) == "any":
        from .anyset.reader import BoardReader
    else:
        from .reader import BoardReader
    return BoardReader(calibration, **options)
