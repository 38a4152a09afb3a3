"""The board as bitmasks: bit ``s`` for square ``s``, bit ``p`` for point ``p``.

The rules work on masks internally so that move generation stays fast; the
tables here are the geometry of :mod:`.geometry` (docs/rules.md, section 1)
in that form.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from .geometry import AROUND, BLACK, CORNERS, WHITE

#: CORNER_MASK[sq]: the four corner points of a square, where its robot draws energy (section 2.1).
CORNER_MASK: tuple[int, ...] = tuple(sum(1 << p for p in CORNERS[s]) for s in range(36))
#: AROUND_MASK[pt]: the squares around a point, which decide its control (section 2.2).
AROUND_MASK: tuple[int, ...] = tuple(sum(1 << s for s in AROUND[p]) for p in range(49))
#: TARGET_RANK_MASK[color]: the squares of a colour's target row (section 3).
TARGET_RANK_MASK = {WHITE: sum(1 << (30 + f) for f in range(6)), BLACK: sum(1 << f for f in range(6))}


def grid_ray(index: int, width: int, dx: int, dy: int) -> tuple[int, ...]:
    """The cells from ``index`` (exclusive) to the edge of a ``width`` x ``width`` grid, stepping (dx, dy)."""
    x, y = index % width + dx, index // width + dy
    out = []
    while 0 <= x < width and 0 <= y < width:
        out.append(y * width + x)
        x, y = x + dx, y + dy
    return tuple(out)


def mask_of(items: Iterable[int]) -> int:
    m = 0
    for i in items:
        m |= 1 << i
    return m


def bits(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


# --------------------------------------------------------------------------
# batteries with heights (stacks, R-19): the layers of a point in one int

#: a point's second battery is bit ``LAYER + p``, its third ``2 * LAYER + p``
LAYER = 64
POINTS = (1 << 49) - 1


def spread(points: int) -> int:
    """Every layer of the points in ``points`` (a mask of points)."""
    return points | points << LAYER | points << (2 * LAYER)


#: CORNER_LAYERS[sq]: every layer of a square's four corner points
CORNER_LAYERS: tuple[int, ...] = tuple(spread(m) for m in CORNER_MASK)


def layered(batteries: Iterable[int], stacks: Iterable[tuple[int, int]] = ()) -> int:
    """The batteries as one int: bit p for a battery on p, and for a stack
    also bit ``LAYER + p`` (two) and ``2 * LAYER + p`` (three).  Without
    stacks this is the plain mask of points, so every rule that counts
    bits counts batteries one by one."""
    m = mask_of(batteries)
    for p, h in stacks:
        if h >= 2:
            m |= 1 << (LAYER + p)
        if h >= 3:
            m |= 1 << (2 * LAYER + p)
    return m


def points_of(layers: int) -> int:
    """The points holding at least one battery."""
    return layers & POINTS


def stacks_of(layers: int) -> frozenset[tuple[int, int]]:
    """The stacks of ``layers`` as (point, height)."""
    two = layers >> LAYER & POINTS
    three = layers >> (2 * LAYER) & POINTS
    return frozenset((p, 3 if three >> p & 1 else 2) for p in bits(two))


def height(layers: int, p: int) -> int:
    return (layers >> p & 1) + (layers >> (LAYER + p) & 1) + (layers >> (2 * LAYER + p) & 1)
