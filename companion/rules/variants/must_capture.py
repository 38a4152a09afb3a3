"""Option ``must-capture`` (German variant 4, English variation 1): capturing is compulsory.

R-7: under ``must-capture`` a turn in which a capture is available must
capture at least once.  R-8: a capture is *available* when some legal robot
phase of this turn -- any order of moves, energy met, the other options
respected -- contains a capture, including one that an earlier move of the
same turn makes possible.  Finding an available capture is the engine's
(:func:`companion.rules.engine.capture_available`); this class says what the
option does with it.
"""

from __future__ import annotations

from typing import Callable, TypeVar

from .base import Variant

T = TypeVar("T")


class MustCapture(Variant):
    name = "must-capture"
    help = "if any capture is possible in the robot phase, the player must capture (R-7, R-8)"
    jit_flag = 1

    @staticmethod
    def keep_capturing(items: list[T], captures: Callable[[T], bool], more: Callable[[], list[T]] | None = None) -> list[T]:
        """R-7: when some of the robot phases ``items`` capture (by ``captures``),
        only those; when none does, the capturing ones ``more`` finds beyond
        ``items`` (a caller that listed only some phases), else ``items``."""
        capturing = [i for i in items if captures(i)]
        if capturing:
            return capturing
        if more is not None:
            found = more()
            if found:
                return found
        return items

    @staticmethod
    def capture_owed(available: Callable[[], T]) -> T | None:
        """R-7, R-8: a robot phase that captured nothing owes the capture
        ``available`` finds, if there is one."""
        return available()
