"""Option ``jump-enemies`` (German variant 5): robots may jump enemy robots too.

R-12: each enemy robot passed over costs +1 (:func:`..robot_moves.move_cost`
counts every robot jumped) and stays on the board; own and enemy robots may
be mixed in one jump, and the move may still end by capturing an enemy
robot (+1).
"""

from __future__ import annotations

from .base import Variant


class JumpEnemies(Variant):
    name = "jump-enemies"
    help = "robots may also jump over enemy robots, +1 energy each, no capture (R-12)"
    jit_flag = 8

    @staticmethod
    def passable(own: int, enemy: int) -> int:
        """R-12: a move may pass over own and enemy robots alike."""
        return own | enemy
