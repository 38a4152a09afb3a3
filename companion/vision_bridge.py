"""Between the rules world (:mod:`companion.rules.position`) and the camera world (:mod:`vision`).

``vision`` knows nothing of the game; this module translates a position into
the layout the camera should see (for calibration from the start position and
for the synthetic camera), a camera layout back into the robots and
batteries fields of a position string, the camera's reading into the
referee's typed :class:`~companion.referee.reading.TableReading`
(:func:`table_reading`, the one adapter between the two), and holds the game
loop's default calibration and board reader (``vision.readers``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Protocol, Sequence

import numpy as np

from vision.layout import BoardLayout, PointState, SquareState

from .referee.reading import TableReading, sides_from_probs
from .rules.position import Placement, Position, format_batteries, format_robots


class CameraReading(Protocol):
    """What the adapter takes of a camera reading (``vision.reading.BoardReading``)."""

    layout: BoardLayout | None
    readable: bool
    reason: str | None
    square_probs: Any  # (36, 3): empty, white, black
    point_probs: Any  # (49, 2): empty, battery
    square_confidence: Sequence[float]
    point_confidence: Sequence[float]
    low_confidence_squares: Sequence[int]
    low_confidence_points: Sequence[int]
    occluded_fraction: float
    alignment: float
    printed_probs: Any  # (49,): P(printed side up), NaN where the camera cannot tell
    doubts: Mapping[str, str]  # field name -> why the camera is unsure of it (the causes it can give)


@dataclass(frozen=True)
class ReaderLimits:
    """The camera's own limits: alignment under ``min_alignment`` means the board moved; an
    occluded share over ``occluded_board`` means a hand or an object over the board."""

    min_alignment: float = 0.4
    occluded_board: float = 0.02


@functools.lru_cache(maxsize=1)
def reader_limits() -> ReaderLimits:
    """The board readers' limits (``vision.reader``; the any-set reader uses the same)."""
    try:
        from vision.reader import MIN_ALIGNMENT, OCCLUDED_BOARD
    except ImportError:  # pragma: no cover - vision is part of the distribution
        return ReaderLimits()
    return ReaderLimits(float(MIN_ALIGNMENT), float(OCCLUDED_BOARD))


def table_reading(reading: CameraReading, limits: ReaderLimits | None = None) -> TableReading:
    """The referee's reading of a camera reading: the one place that reads vision's fields.

    Raises ValueError with a plain message for something that is not a camera reading
    (missing fields, probabilities of the wrong shape)."""
    lim = limits if limits is not None else reader_limits()
    try:
        layout = reading.layout
        readable = bool(reading.readable)
        sp, pp = reading.square_probs, reading.point_probs
        placement = None
        if readable and layout is not None:
            placement = Placement(frozenset(layout.white), frozenset(layout.black), frozenset(layout.batteries))
        alignment = float(reading.alignment)
        occluded = float(reading.occluded_fraction)
        return TableReading(
            readable=readable,
            reason=reading.reason,
            placement=placement,
            square_probs=None if sp is None else np.asarray(sp, float),
            point_probs=None if pp is None else np.asarray(pp, float),
            unsure_squares=tuple(int(s) for s in reading.low_confidence_squares),
            unsure_points=tuple(int(p) for p in reading.low_confidence_points),
            square_confidence=tuple(float(v) for v in reading.square_confidence),
            point_confidence=tuple(float(v) for v in reading.point_confidence),
            alignment=alignment,
            occluded_fraction=occluded,
            moved=alignment < lim.min_alignment,
            covered=occluded > lim.occluded_board,
            sides=sides_from_probs(reading.printed_probs),
            doubts=tuple((str(k), str(v)) for k, v in dict(reading.doubts).items()),
        )
    except (AttributeError, TypeError) as exc:
        raise ValueError(f"not a camera reading ({type(reading).__name__}): {exc}") from None


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


def load_calibration(path: Any) -> Any:
    """A saved calibration of either reader (``vision.readers.load_calibration``)."""
    from vision.readers import load_calibration as load

    return load(path)


def calibration_of(reader: Any) -> Any:
    """The calibration a board reader reads with (None for a reader that does not say)."""
    return getattr(reader, "calibration", None)


def colours_of(calibration: Any) -> Any:
    """The robot colours a calibration learned (None for a fake or no calibration)."""
    return getattr(calibration, "colours", None)


def method_of(calibration: Any) -> str | None:
    """How a calibration located the board ("markers", "corners", "grid"), or None."""
    method = getattr(calibration, "method", None)
    return method if isinstance(method, str) else None


def teach_bare(reader: Any, image: np.ndarray, position: Position) -> None:
    """Let a board reader learn the bare board from a frame known to show ``position``
    (``learn_bare`` of the readers; a reader without it learns nothing)."""
    learn = getattr(reader, "learn_bare", None)
    if learn is not None:
        learn(image, layout_from_position(position))
