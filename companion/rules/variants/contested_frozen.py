"""Option ``contested-frozen`` (German variant 1, English variation 2): contested batteries are frozen.

R-11: the mover may move a battery only with at least one robot around it
and strictly more robots there than the opponent (the normal rule, R-3, is
at least as many).
"""

from __future__ import annotations

from ..control import controlled_mask, controls
from ..geometry import Point
from .base import Variant


class ContestedFrozen(Variant):
    name = "contested-frozen"
    help = "a battery controlled by both players can be moved by neither (R-11)"
    jit_flag = 2

    @staticmethod
    def may_move(own: int, enemy: int, pt: Point) -> bool:
        """R-11: strictly more own robots around ``pt`` than enemy ones."""
        return controls(own, enemy, pt, strict=True)

    @staticmethod
    def movable(own: int, enemy: int, batteries: int) -> int:
        return controlled_mask(own, enemy, batteries, strict=True)

    @staticmethod
    def control_shortfall(own_count: int, enemy_count: int) -> str | None:
        """R-11: a battery the mover controls as much as the opponent is frozen."""
        return "contested-frozen needs strictly more" if own_count >= 1 and own_count == enemy_count else None
