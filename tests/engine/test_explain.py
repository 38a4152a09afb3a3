"""explain(): turn inference with hidden chains, and diagnoses a player understands."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.rules.engine import apply_turn, battery_phase_layouts, random_turn, robot_phase_outcomes, status
from companion.rules.masks import layered
from companion.rules.explain import explain
from companion.rules.position import Placement, Position
from companion.rules.options import OPTIONS, Rules

START = Position.start()


def P(s: str) -> Position:
    return Position.from_string(s)


def test_explains_a_plain_turn():
    after = apply_turn(START, "c1-c2 d1-d3 C2-C3 E2-E1")
    ex = explain(START, after)
    assert ex.legal and ex.diagnosis is None
    assert apply_turn(START, ex.turn) == after


def test_hidden_robot_chain():
    """c2 moves on to c3 and c1 follows into c2: the diff (c1 gone, c3 new) is a
    jump c1-c3 costing 3, which the two batteries at c1 cannot pay; the chain can."""
    before = P("BBBBBB/6/6/6/2W3/WWW1WW 7/xxxxxxx/7/7/7/xxxxxxx/7 w")
    after = apply_turn(before, "c2-c3 c1-c2")
    assert before.white - after.white == {2} and after.white - before.white == {14}
    ex = explain(before, after)
    assert ex.legal, ex.diagnosis
    assert str(ex.turn) == "c2-c3 c1-c2"


def test_hidden_battery_chain():
    """D2 moves up to D3, then C2 slides right into the vacated D2: only C2 looks moved."""
    before = START
    after = apply_turn(before, "a1-a2 D2-D3 C2-D2")
    ex = explain(before, after)
    assert ex.legal, ex.diagnosis
    assert apply_turn(before, ex.turn) == after


def test_shortest_turn_is_preferred():
    after = apply_turn(START, "c1-c3")
    assert str(explain(START, after).turn) == "c1-c3"


def test_energy_diagnosis_names_robot_and_batteries():
    after = P("BBBBBB/6/2W3/6/6/WW1WWW 7/xxxxxxx/7/7/7/xxxxxxx/7 b")
    ex = explain(START, after)
    assert not ex.legal
    assert ex.diagnosis == "robot c1\u2192c4 needs 3 energy but only 2 batteries touch c1 (C2, D2)"
    assert ex.squares == (2,)


def test_shared_energy_diagnosis():
    """Two robots share battery D2: 2 + 2 = 4 points needed, only 3 batteries touch c1 and d1."""
    after = P("BBBBBB/6/6/2WW2/6/WW2WW 7/xxxxxxx/7/7/7/xxxxxxx/7 b")
    ex = explain(START, after)
    assert not ex.legal
    assert "need 4 energy together but only 3 batteries" in ex.diagnosis
    assert "(C2, D2, E2)" in ex.diagnosis


def test_enemy_robot_moved():
    after = P("BBBB1B/4B1/6/6/2W3/WW1WWW 7/xxxxxxx/7/7/7/xxxxxxx/7 b")
    ex = explain(START, after)
    assert "Black robot e6 moved to e5 during White's turn" in ex.diagnosis


def test_battery_not_controlled():
    """White moves a robot, then Black's battery C6 down to C5: 0 White vs 2 Black robots around C6."""
    robots = apply_turn(START, "a1-a2")
    board = Placement(robots.white, robots.black, (START.batteries - {37}) | {30})
    ex = explain(START, board)
    assert not ex.legal
    assert ex.diagnosis == (
        "battery C6 moved but White does not control it (0 White vs 2 Black robots around it)"
    )
    assert ex.points == (37,)


def test_line_used_twice_diagnosis():
    """A2-B2 and D2-E2 both run along horizontal line 2: one move per energy line."""
    before = P("BBBBBB/6/6/6/6/WWWWWW xx5/xxxxxxx/7/7/7/x1xx1xx/7 w")
    # batteries on line 2: A2, C2, D2, F2, G2 (+ B2, E2 empty); White moves A2-B2 and D2-E2 along line 2
    after = Position(
        frozenset(before.white - {0}) | {6},
        before.black,
        (before.batteries - {7, 10}) | {8, 11},
        before.to_move.other,
    )
    ex = explain(before, after)
    assert not ex.legal
    assert "energy line 2 carried two battery moves" in ex.diagnosis


def test_battery_count_diagnosis():
    board = Placement(START.white, START.black, START.batteries - {7})
    ex = explain(START, board)
    assert ex.diagnosis == "13 batteries on the board: one is missing or misread"


def test_no_robot_moved():
    after = Position(START.white, START.black, START.batteries, START.to_move.other)
    ex = explain(START, after)
    assert not ex.legal and "no White robot moved" in ex.diagnosis


def test_backward_and_diagonal_diagnosis():
    before = P("BBBBBB/6/6/2W3/6/WW1WWW 7/xxxxxxx/7/7/2xx3/xx2xxx/7 w")
    back = Position(before.white - {14} | {8}, before.black, before.batteries, before.to_move.other)
    assert "moved backward" in explain(before, back).diagnosis
    diag = Position(before.white - {14} | {21}, before.black, before.batteries, before.to_move.other)
    assert "diagonally" in explain(before, diag).diagnosis


def test_must_capture_diagnosis():
    before = P("BBBBB1/6/6/6/2B3/WWWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 w")
    rules = Rules.from_names(["must-capture"])
    after = apply_turn(before, "a1-a2")
    ex = explain(before, after, rules)
    assert not ex.legal and "must-capture" in ex.diagnosis
    after2 = apply_turn(before, "c1xc2", rules)
    assert explain(before, after2, rules).legal


def test_game_over_is_terminal_r6():
    won = P("WWW3/BBB3/6/6/6/6 7/xxxxxxx/7/7/7/xxxxxxx/7 b")
    assert status(won).over
    ex = explain(won, won.with_side(won.to_move.other))
    assert not ex.legal and "R-6" in ex.diagnosis


def _self_play_pairs(rules: Rules, seed: int, plies: int):
    rng = random.Random(seed)
    pos = START
    for _ in range(plies):
        if status(pos, rules).over:
            break
        turn = random_turn(pos, rng, rules)
        after = apply_turn(pos, turn, rules)
        yield pos, after
        pos = after


@pytest.mark.parametrize("option", [None, *OPTIONS])
def test_explain_recovers_every_self_play_turn(option):
    rules = Rules.from_names([option] if option else [])
    for seed in range(3):
        for before, after in _self_play_pairs(rules, seed, 40):
            ex = explain(before, after, rules)
            assert ex.legal, (str(before), str(after), ex.diagnosis)
            assert apply_turn(before, ex.turn, rules) == after


def _perturb(p: Position, rng: random.Random) -> Position:
    w, b, bat = set(p.white), set(p.black), set(p.batteries)
    stacks = dict(p.stacks)
    if rng.random() < 0.5:
        col = w if (rng.random() < 0.5 and w) or not b else b
        s = rng.choice(sorted(col))
        col.remove(s)
        col.add(rng.choice([x for x in range(36) if x not in w | b and x != s]))
    else:
        s = rng.choice(sorted(bat))
        bat.remove(s)
        t = rng.choice([x for x in range(49) if x not in bat and x != s])
        bat.add(t)
        stacks = {t if q == s else q: h for q, h in stacks.items()}  # a stack moves whole
    return Position(frozenset(w), frozenset(b), frozenset(bat), p.to_move, frozenset(stacks.items()))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), plies=st.integers(1, 30), option=st.sampled_from([None, *OPTIONS]))
def test_perturbed_boards_agree_with_outcome_sets(seed, plies, option):
    """A single piece moved on a legal after-board: explain() is legal exactly when
    the board is in the outcome sets (R-16), and otherwise always says why."""
    rules = Rules.from_names([option] if option else [])
    rng = random.Random(seed)
    pairs = list(_self_play_pairs(rules, seed, plies))
    if not pairs:
        return
    before, after = pairs[-1]
    bad = _perturb(after, rng)
    ex = explain(before, bad, rules)
    robots_ok = (bad.white, bad.black) in robot_phase_outcomes(before, rules)
    moved_robots = Position(bad.white, bad.black, before.batteries, before.to_move, before.stacks)
    bats_ok = layered(bad.batteries, bad.stacks) in battery_phase_layouts(moved_robots, rules)  # heights too
    assert ex.legal == (robots_ok and bats_ok)
    if not ex.legal:
        assert ex.diagnosis


def test_without_a_diagnosis_explain_says_the_same_legality_and_turn_on_random_boards():
    """explain(diagnose=False) (the referee's readings beside the likeliest): the same verdict on
    legality and the same turn as with the diagnosis, on legal turns and on boards one piece off them;
    an illegal board gets one line naming the phase no legal move reaches (the counts' problems as
    ever)."""
    from companion.rules.geometry import WHITE

    rng = random.Random(7)
    pos = START
    seen_illegal = 0
    for _ in range(60):
        if status(pos).over:
            pos = START
        turn = random_turn(pos, rng)
        after = apply_turn(pos, turn)
        board = Placement.of(after)
        quick, full = explain(pos, board, diagnose=False), explain(pos, board)
        assert quick.legal and full.legal and quick.turn == full.turn
        # a robot of the mover set one square on (or back), a battery moved to a free point
        mover = board.robots(pos.to_move)
        src = rng.choice(sorted(mover))
        free = [s for s in range(36) if s not in board.white and s not in board.black]
        moved = set(mover) - {src} | {rng.choice(free)}
        white = pos.to_move is WHITE
        odd = Placement(moved if white else board.white, board.black if white else moved, board.batteries)
        quick, full = explain(pos, odd, diagnose=False), explain(pos, odd)
        assert quick.legal == full.legal
        if quick.legal:
            assert quick.turn == full.turn
        else:
            seen_illegal += 1
            assert full.diagnosis and quick.diagnosis
            assert len(quick.problems) == 1 or quick.problems == full.problems
        pos = after
    assert seen_illegal >= 20
    free_point = next(p for p in range(49) if p not in START.batteries)
    counts = Placement(START.white, START.black, START.batteries | {free_point})
    assert explain(START, counts, diagnose=False).problems == explain(START, counts).problems
    nowhere = Placement(START.white - {2} | {26}, START.black, START.batteries)       # c1 to c5: too far
    quick = explain(START, nowhere, diagnose=False)
    assert not quick.legal and quick.diagnosis == "no legal White robot phase reaches this board"
