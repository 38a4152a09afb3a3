"""Option ``no-line-limit`` (the English translation): any number of battery moves per energy line.

The German rulebook allows one battery move per energy line per turn; the
English translation omits the rule, and this option follows it.
"""

from __future__ import annotations

from .base import Variant


class NoLineLimit(Variant):
    name = "no-line-limit"
    help = "drop the one-battery-move-per-energy-line rule"
    jit_flag = 16

    @staticmethod
    def closed_lines(used: int) -> int:
        """No line is ever closed."""
        return 0

    @staticmethod
    def line_used(used: int, line: int) -> int:
        """Nothing is counted."""
        return used
