"""Hints under battery stacks stay legal by an independent referee (issue 21).

The referee is the naive oracle of the rules test-suite (``tests/rules/naive.py``),
written from the rulings without the engine's code: every candidate turn the
compiled core generates at the root, the compiled search's own choice (before
``hint`` checks it with the engine) and greedy's turn, on positions holding
stacks under ``stacking`` and ``stack-unsplit``, are legal by it and give the
position the engine gives.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rules"))

import naive  # noqa: E402

from companion.hints.board import Board  # noqa: E402
from companion.hints.players import GreedyPlayer, make_searcher  # noqa: E402
from companion.hints.search import SearchLimits  # noqa: E402
from companion.hints.turngen import make_turn  # noqa: E402
from companion.rules.engine import apply_turn, random_turn, status  # noqa: E402
from companion.rules.geometry import BLACK, WHITE  # noqa: E402
from companion.rules.options import Rules  # noqa: E402
from companion.rules.position import Position  # noqa: E402

fc = pytest.importorskip("companion.hints.fastcore", reason="numba is not installed")
from companion.hints.fastsearch import FastSearcher, fast_candidates  # noqa: E402


def stacked_positions(rules: Rules, count: int, seed: int) -> list[Position]:
    """Open positions holding stacks, from self-play with many battery moves."""
    import random

    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count:
        pos = Position.start(rng.choice([WHITE, BLACK]))
        for _ in range(rng.randrange(3, 16)):
            nxt = apply_turn(pos, random_turn(pos, rng, rules, battery_stop=0.2), rules)
            if status(nxt, rules).over:
                break
            pos = nxt
        if pos.stacks:
            out.append(pos)
    return out


def legal_by_the_oracle(pos: Position, turn: str, rules: Rules) -> None:
    try:
        by_oracle = naive.apply(pos, turn, rules.options)
    except naive.NaiveIllegal as exc:
        raise AssertionError(f"{turn} in {pos.to_string()} ({rules.name}) is illegal by the oracle: {exc}") from None
    assert by_oracle == apply_turn(pos, turn, rules), (pos.to_string(), turn)


@pytest.mark.parametrize("options", [("stacking",), ("stack-unsplit",), ("stack-unsplit", "must-capture", "strength-capture")],
                         ids=lambda o: "+".join(o))
def test_hints_under_stacks_are_legal_by_the_oracle(options: tuple[str, ...]) -> None:
    import random

    rules = Rules.from_names(options)
    searcher = make_searcher(rules, SearchLimits(max_depth=3), jit=True)
    assert isinstance(searcher, FastSearcher)
    judged = 0
    for pos in stacked_positions(rules, 10, seed=len(rules.name)):
        board = Board.of(pos)
        for c in fast_candidates(board, rules, root=True, limits=SearchLimits()):
            legal_by_the_oracle(pos, str(make_turn(c.robots.steps, c.battery.moves)), rules)
            judged += 1
        best, _ = searcher.search(board, 600.0, nodes=3000)
        legal_by_the_oracle(pos, str(make_turn(best.robots.steps, best.battery.moves)), rules)
        legal_by_the_oracle(pos, str(GreedyPlayer(jit=True).choose(pos, rules, random.Random(1))), rules)
    assert judged >= 80
