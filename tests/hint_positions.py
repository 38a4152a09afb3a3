"""Positions for the hint tests: every rule set, and open positions reached by random play."""

from __future__ import annotations

import random
from typing import Callable

from companion.rules.engine import apply_turn, random_turn, status
from companion.rules.geometry import BLACK, WHITE
from companion.rules.moves import Turn
from companion.rules.position import Position
from companion.rules.options import OPTIONS, ORIGINAL, Rules

#: the options the hints' compiled core knows (companion/hints/fastcore.py, COMPILED_FLAGS): all of them
COMPILED_OPTIONS = tuple(OPTIONS)
RULE_SETS = [ORIGINAL] + [Rules.from_names([o]) for o in COMPILED_OPTIONS] + [Rules.from_names(COMPILED_OPTIONS)]
"""The original rules, each option alone, and all options together (``stack-unsplit`` with ``stacking``)."""


def _quick_turn(pos: Position, rules: Rules, rng: random.Random) -> Turn:
    return random_turn(pos, rng, rules)


def random_positions(rules: Rules, count: int, seed: int, *, max_turns: int = 16,
                     choose: Callable[[Position, Rules, random.Random], Turn] = _quick_turn) -> list[Position]:
    """``count`` open positions, each after up to ``max_turns - 1`` turns of ``choose``
    (default: the engine's quick random turns) from the start, either side beginning."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count:
        pos = Position.start(rng.choice([WHITE, BLACK]))
        for _ in range(rng.randrange(0, max_turns)):
            nxt = apply_turn(pos, choose(pos, rules, rng), rules)
            if status(nxt, rules).over:
                break
            pos = nxt
        out.append(pos)
    return out
