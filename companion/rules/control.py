"""Control of a battery (docs/rules.md, section 2.2): who may move it.

The one home of the control rule (R-3); its option ``contested-frozen``
(R-11) is :mod:`.variants.contested_frozen`, which asks :func:`controls`
strictly.  The engine's battery phase, explain, the game's control display and
the hints all ask :func:`controls` or :func:`movable_batteries`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .geometry import Point
from .masks import AROUND_MASK, bits

if TYPE_CHECKING:
    from .options import Rules


def control_counts(own: int, enemy: int, pt: Point) -> tuple[int, int]:
    """Own and enemy robots on the squares around point ``pt``."""
    a = AROUND_MASK[pt]
    return (own & a).bit_count(), (enemy & a).bit_count()


def controls(own: int, enemy: int, pt: Point, *, strict: bool = False) -> bool:
    """Does the player with robots ``own`` control point ``pt``?

    At least one own robot around it and at least as many as the opponent
    (R-3: 0 against 0 is control by nobody).  ``strict`` is R-11
    (contested-frozen): strictly more than the opponent.
    """
    o, e = control_counts(own, enemy, pt)
    return o >= 1 and (o > e if strict else o >= e)


def controlled_mask(own: int, enemy: int, batteries: int, *, strict: bool = False) -> int:
    """The batteries of ``batteries`` that the player with robots ``own`` controls."""
    m = 0
    for p in bits(batteries):
        if controls(own, enemy, p, strict=strict):
            m |= 1 << p
    return m


def may_move(own: int, enemy: int, pt: Point, rules: Rules) -> bool:
    """May the mover (robots ``own``, as they stand after the robot phase) move
    the battery on ``pt``?  If it controls it; strictly under
    ``contested-frozen`` (R-11, :mod:`.variants.contested_frozen`)."""
    return rules.may_move(own, enemy, pt)


def movable_batteries(own: int, enemy: int, batteries: int, rules: Rules) -> int:
    """The batteries the mover may move, robots as they stand after the robot
    phase: those it controls, strictly under ``contested-frozen`` (R-11)."""
    return rules.movable(own, enemy, batteries)
