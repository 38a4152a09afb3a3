"""Option ``controlled-energy`` (the 13x13 abstract rendition): energy only from controlled batteries.

R-10: a robot draws only from batteries its player controls by the normal
rule of section 2.2 (R-3, so a battery both players control counts for
both), judged on the position at the start of the turn.
"""

from __future__ import annotations

from ..control import controlled_mask
from .base import Variant


class ControlledEnergy(Variant):
    name = "controlled-energy"
    help = "a robot draws energy only from batteries its player controls (R-10)"
    jit_flag = 32

    @staticmethod
    def drawable(own: int, enemy: int, batteries: int) -> int:
        """R-10: the batteries the side with robots ``own`` controls at the start of the turn."""
        return controlled_mask(own, enemy, batteries)

    energy_restriction = " that the mover controls (R-10)"
