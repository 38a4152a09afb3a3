"""Option ``strength-capture`` (German variant 2): only a victim no stronger than the attacker.

R-9: a square's strength is the number of batteries on its four corner points
(all of them: used, unused, controlled or not; :func:`..robot_moves.strength`).
The attacker's strength is taken on the square it starts its move from, the
victim's on its own square; the capture is allowed iff victim <= attacker.
It restricts captures only.
"""

from __future__ import annotations

from ..robot_moves import strength
from .base import Variant


class StrengthCapture(Variant):
    name = "strength-capture"
    help = "capture only an enemy whose strength is not greater than the attacker's (R-9)"
    jit_flag = 4

    @staticmethod
    def may_capture(batteries: int, src: int, victim: int) -> bool:
        """R-9: the victim's strength on its square is at most the attacker's on ``src``."""
        return strength(batteries, victim) <= strength(batteries, src)
