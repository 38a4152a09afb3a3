"""Between the rules world (:mod:`companion.rules.position`) and the camera world (:mod:`vision`).

``vision`` knows nothing of the game; this module translates a position into
the layout the camera should see (for calibration from the start position and
for the synthetic camera), a camera layout back into the robots and
batteries fields of a position string, and holds the game loop's default
calibration and board reader (``vision.readers``).
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

from vision.layout import BoardLayout, PointState, SquareState

from .rules.position import Placement, Position, format_batteries, format_robots


def layout_from_position(pos: Position) -> BoardLayout:
    """The layout a camera sees for ``pos`` (the side to move is invisible)."""
    return BoardLayout.from_sets(white=pos.white, black=pos.black, batteries=pos.batteries)


START_LAYOUT: BoardLayout = layout_from_position(Position.start())


def robots_and_batteries_fields(layout: BoardLayout) -> str:
    """The first two fields of a position string, e.g. ``BBBBBB/6/6/6/6/WWWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7``.

    Works for any layout the camera reports, also one that no legal position has
    (e.g. 13 batteries): the fields are just what was seen.
    """
    white = frozenset(i for i, s in enumerate(layout.squares) if s is SquareState.WHITE)
    black = frozenset(i for i, s in enumerate(layout.squares) if s is SquareState.BLACK)
    batteries = frozenset(i for i, p in enumerate(layout.points) if p is PointState.BATTERY)
    return f"{format_robots(white, black)} {format_batteries(batteries)}"


def layout_of(board: Placement | Position) -> BoardLayout:
    """The ``vision`` layout of a board."""
    b = Placement.of(board)
    return BoardLayout.from_sets(b.white, b.black, b.batteries)


def white_side_of(calibration: Any) -> str | None:
    """The image edge White's start row faces under a calibration (None for a fake or no calibration)."""
    try:
        from vision.calibration import white_side_of

        return white_side_of(np.asarray(calibration.H, np.float64))
    except Exception:
        return None


def default_calibrate(image: np.ndarray, expected: Placement, corners: Any = None, white_side: str | None = None,
                      colours: Any = None, *, reader: str = "classic") -> Any:
    """Calibrate from a frame showing ``expected`` (``vision.readers.calibrate``, with the board
    reader named by ``reader``): ``corners`` (A1 G1 G7 A7 in pixels) or the markers win; without
    them the grid is found in the frame and ``white_side`` names the image edge White's start row
    faces. ``colours``: the robot colours of an earlier calibration (for a position that lacks one
    colour)."""
    from vision.readers import calibrate

    return calibrate(image, layout_of(expected), reader=reader, corners=corners, white_side=white_side,
                     colours=colours)


def calibrator(reader: str) -> Callable[..., Any]:
    """:func:`default_calibrate` with the board reader ``reader`` ("any" or "classic")."""
    return functools.partial(default_calibrate, reader=reader)


def default_reader(calibration: Any) -> Any:
    """The board reader of the reader that made ``calibration`` (vision.readers.board_reader)."""
    from vision.readers import board_reader

    return board_reader(calibration)
