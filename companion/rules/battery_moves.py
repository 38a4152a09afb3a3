"""Battery moves (docs/rules.md, section 2.2): along which line, to which point, how many a line.

The one home of these rules:

* a battery moves along one energy line to the **next empty point**
  (:func:`next_empty`), passing any batteries in a row; R-13: a destination
  other than exactly that point is an illegal turn;
* **one battery move per energy line per turn** (German rulebook): the
  profile's ``closed_lines`` and ``line_used`` hooks
  (:class:`.variants.base.Variant`), dropped under ``no-line-limit`` (the
  English translation, :mod:`.variants.no_line_limit`);
* :func:`battery_steps`, the generator of single battery moves, behind apply's
  outcome sets, explain's search, random turns and the hints' Python search.

Who may move a battery (control, R-3, R-11) is :mod:`.control`'s; each
battery moving at most once a turn (R-4) is the callers' ``movable`` mask.
The hints' compiled core compiles those hooks as they stand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from .geometry import Point
from .masks import bits, grid_ray

if TYPE_CHECKING:
    from .options import Rules

#: Energy lines: 0..6 are the vertical lines A..G, 7..13 the horizontal lines 1..7.
LINE_NAMES: tuple[str, ...] = tuple("ABCDEFG") + tuple("1234567")

#: BATTERY_RAYS[pt] -> ((line, ray), ...) for up, down, left, right.
BATTERY_RAYS: tuple[tuple[tuple[int, tuple[int, ...]], ...], ...] = tuple(
    tuple(
        (line, ray)
        for line, ray in (
            (pt % 7, grid_ray(pt, 7, 0, 1)),
            (pt % 7, grid_ray(pt, 7, 0, -1)),
            (7 + pt // 7, grid_ray(pt, 7, -1, 0)),
            (7 + pt // 7, grid_ray(pt, 7, 1, 0)),
        )
        if ray
    )
    for pt in range(49)
)


def line_of_battery_move(src: Point, dst: Point) -> int | None:
    """The energy line a battery move uses, or None if src and dst share no line."""
    if src % 7 == dst % 7:
        return src % 7
    if src // 7 == dst // 7:
        return 7 + src // 7
    return None


def line_label(line: int) -> str:
    return LINE_NAMES[line]


def next_empty(ray: tuple[int, ...], batteries: int) -> int | None:
    """The first empty point along ``ray`` (where a battery moving that way
    stops), or None when every point up to the edge is occupied."""
    for q in ray:
        if not batteries >> q & 1:
            return q
    return None


def battery_steps(bats: int, movable: int, used: int, rules: Rules) -> Iterator[tuple[int, int, int]]:
    """Every legal next battery move as (from, to, line): a ``movable``
    battery along a line still open this turn (not in the profile's
    ``closed_lines``) to where the profile's ``battery_steps`` hook lets it
    go: the next empty point (:class:`.variants.base.Variant`), or also
    onto an adjacent stack under ``stacking`` (R-20, :mod:`.variants.stacking`)."""
    return rules.battery_steps(bats, movable, rules.closed_lines(used))
