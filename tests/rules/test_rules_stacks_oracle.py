"""Battery stacks (R-19..R-22) against the naive oracle, which reads them from the rulings too.

``naive.py`` hands out the batteries of a stack one by one (``stacking``) or
gives each point whole to one robot (``stack-unsplit``) by brute force, and
enumerates stacking steps and ordinary moves straight from R-20; here it must
find R-22's counts and the engine's very outcome sets, and agree with the
engine on random turns and mutated turns in positions holding stacks.
"""

from __future__ import annotations

import random

import pytest

import naive
from test_rules_differential import mutate

from companion.rules.engine import apply_turn, battery_phase_layouts, random_turn, robot_phase_outcomes, status
from companion.rules.errors import IllegalTurn, NotationError
from companion.rules.geometry import BLACK, WHITE, parse_point
from companion.rules.masks import bits, points_of, stacks_of
from companion.rules.options import Rules
from companion.rules.position import Position

P1 = "BBBBBB/6/6/6/6/WWWWWW 7/xyxxxx1/7/7/7/xxxzx2/7"


def heights_of(layers: int) -> frozenset[tuple[int, int]]:
    """The engine's layered batteries as the oracle's (point, height) placement."""
    high = dict(stacks_of(layers))
    return frozenset((p, high.get(p, 1)) for p in bits(points_of(layers)))


@pytest.mark.parametrize(
    "side, option, robots, batteries",
    [
        ("w", "stacking", 1096, 1917),
        ("w", "stack-unsplit", 696, 1917),
        ("b", "stacking", 2237, 9288),
        ("b", "stack-unsplit", 1922, 9288),
    ],
)
def test_R22_counts_and_sets_by_the_oracle(side: str, option: str, robots: int, batteries: int) -> None:
    pos = Position.from_string(f"{P1} {side}")
    rules = Rules.from_names([option])
    found = naive.robot_outcomes(pos, [option])
    assert len(found) == robots and found == set(robot_phase_outcomes(pos, rules))
    placed = naive.stacked_battery_outcomes(pos, [option])
    assert len(placed) == batteries and placed == {heights_of(m) for m in battery_phase_layouts(pos, rules)}


def test_R22_the_start_under_stacking_by_the_oracle() -> None:
    assert len(naive.stacked_battery_outcomes(Position.start(), ["stacking"])) == 25515


def test_the_oracle_refuses_a_stack_without_stacking() -> None:
    with pytest.raises(ValueError, match="R-19"):
        naive.apply(Position.from_string(f"{P1} w"), "a1-a2")


def test_the_oracle_on_R21_and_R20_by_hand() -> None:
    """The rulings' own cases: D2's stack of three split between c1 and d1 (R-21), a stacking step
    onto C2 and the battery that joined it staying on top (R-20), nothing onto a stack of three
    and never over a stack."""
    pos = Position.from_string(f"{P1} w")
    assert naive.apply(pos, "c1-c4 d1-d3", ["stacking"])
    with pytest.raises(naive.NaiveIllegal, match="energy"):
        naive.apply(pos, "c1-c4 d1-d3", ["stack-unsplit"])
    assert naive.apply(pos, "c1-c3 d1-d2", ["stack-unsplit"])
    after = naive.apply(pos, "a1-a2 B2-C2", ["stacking"])
    assert dict(after.stacks) == {point("B6"): 2, point("C2"): 2, point("D2"): 3} and point("B2") not in after.batteries
    with pytest.raises(naive.NaiveIllegal, match="R-4, R-20"):
        naive.apply(pos, "a1-a2 B2-C2 C2-C3", ["stacking"])  # the battery on top of C2 just moved
    for turn in ("a1-a2 C2-D2", "a1-a2 C2-E2"):  # onto the stack of three, over it
        with pytest.raises(naive.NaiveIllegal, match="R-13, R-20"):
            naive.apply(pos, turn, ["stacking"])


def point(name: str) -> int:
    return parse_point(name)


PROFILES = [
    ("stacking",),
    ("stack-unsplit",),
    ("stacking", "no-line-limit", "contested-frozen", "jump-enemies"),
    ("stack-unsplit", "strength-capture", "controlled-energy"),
    ("stack-unsplit", "must-capture"),
]


@pytest.mark.parametrize("options", PROFILES, ids=["+".join(o) for o in PROFILES])
def test_random_and_mutated_turns_with_stacks_agree_with_the_oracle(options: tuple[str, ...]) -> None:
    """Self-play under the profile (the engine's random turns, many battery moves, so stacks
    appear): every turn is legal by the oracle with the same position after it; on positions
    holding stacks, turns mutated one move at a time are accepted by the engine exactly when the
    oracle accepts them, and now and then the robot-phase outcomes are the oracle's."""
    rules = Rules.from_names(options)
    rng = random.Random(sum(map(ord, "+".join(options))))
    stacked = legal = illegal = outcome_checks = 0
    for _game in range(2):
        pos = Position.start(rng.choice([WHITE, BLACK]))
        for _ in range(20):
            if status(pos, rules).over:
                break
            turn = random_turn(pos, rng, rules, battery_stop=0.2)
            nxt = apply_turn(pos, turn, rules)
            assert naive.apply(pos, str(turn), options) == nxt, (pos.to_string(), str(turn))
            if pos.stacks:
                stacked += 1
                for _m in range(4):
                    bad = mutate(str(turn), rng)
                    try:
                        expected = naive.apply(pos, bad, options)
                    except naive.NaiveIllegal:
                        expected = None
                    except ValueError:  # a malformed token the oracle's parser refuses
                        continue
                    try:
                        got = apply_turn(pos, bad, rules)
                    except (IllegalTurn, NotationError):
                        got = None
                    assert got == expected, (pos.to_string(), bad, options)
                    legal += expected is not None
                    illegal += expected is None
                if stacked % 5 == 1:
                    assert naive.robot_outcomes(pos, options) == set(robot_phase_outcomes(pos, rules))
                    outcome_checks += 1
            pos = nxt
    assert stacked >= 8 and illegal >= 10 and legal >= 3 and outcome_checks >= 2, (stacked, legal, illegal)
