"""Between the rules world (:mod:`companion.rules.position`) and the camera world (:mod:`vision`).

``vision`` knows nothing of the game; this module translates a position into
the layout the camera should see (for calibration from the start position and
for the synthetic camera), and a camera layout back into the robots and
batteries fields of a position string.
"""

from __future__ import annotations

from vision.layout import BoardLayout, PointState, SquareState

from .rules.position import Position, format_batteries, format_robots


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
