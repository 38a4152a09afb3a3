"""Turn inference (issue 2): ``explain(before, after, rules)`` finds a legal
turn from ``before`` to ``after`` when one exists (hidden chains included),
and otherwise gives a diagnosis. Checked by hand-worked cases and by
property tests driven by the naive oracle.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

import naive
from referees import board
from situations import game_situations, rules_for
from companion.rules.position import Position


def explain_ok(before, after, options=()):
    """explain() must find a turn; the engine and the naive oracle must both
    accept it and reach ``after``."""
    from companion.rules.engine import apply_turn
    from companion.rules.explain import explain

    ex = explain(before, after, rules_for(options))
    assert ex.turn is not None, f"no turn found for {before} -> {after}: {ex.diagnosis}"
    assert apply_turn(before, ex.turn, rules_for(options)) == after
    assert naive.apply(before, str(ex.turn), options) == after, str(ex.turn)
    return ex


def explain_fails(before, after, options=()):
    from companion.rules.explain import explain

    ex = explain(before, after, rules_for(options))
    assert ex.turn is None, f"{before} -> {after} explained as {ex.turn}"
    assert isinstance(ex.diagnosis, str) and ex.diagnosis.strip()
    return ex


# ------------------------------------------------------------ hand-worked ----

def test_explain_simple_turn():
    before = Position.start()
    after = naive.apply(before, "c1-c3 C2-C1")
    ex = explain_ok(before, after)
    assert str(ex.turn) == "c1-c3 C2-C1"


def test_explain_hidden_robot_chain():
    """Section 2.1 moves in sequence: the board shows c1 emptied and c3
    filled, but c1 (1 battery) cannot jump c2 to c3 (cost 3); the only
    explanation is c2-c3 then c1-c2 (hidden chain)."""
    before = board("c1 c2 f1", "a6 b6", "C1 C3 G1", "w")
    after = naive.apply(before, "c2-c3 c1-c2")
    ex = explain_ok(before, after)
    assert str(ex.turn).split()[:2] == ["c2-c3", "c1-c2"]


def test_explain_hidden_battery_chain():
    """Section 2.2 moves in sequence: D3 seems to jump to C2, which is no
    battery move; it is C3-C2 then D3-C3."""
    before = board("c3 f1", "a6 b6", "C3 D3 G1", "w", keep_empty="C2 C1 B3")
    after = naive.apply(before, "f1-e1 C3-C2 D3-C3")
    ex = explain_ok(before, after)
    assert str(ex.turn).split()[1:] == ["C3-C2", "D3-C3"]


def test_explain_needs_a_robot_move():
    """Section 2: at least one robot move: an unchanged board is no turn."""
    before = Position.start()
    explain_fails(before, before.with_side(before.to_move.other))


def test_explain_diagnoses_wrong_colour():
    """A Black robot moved during White's turn."""
    before = Position.start()
    after = Position.from_string("BBBBB1/5B/6/6/2W3/WW1WWW 7/xxxxxxx/7/7/7/xxxxxxx/7 b")
    explain_fails(before, after)


def test_explain_diagnoses_backward_and_diagonal():
    before = board("c3 f1", "a6 b6", "C3 D3 C4 D4 G1", "w")
    backward = Position(frozenset(naive_squares("c2 f1")), before.black, before.batteries, before.to_move.other)
    explain_fails(before, backward)
    diagonal = Position(frozenset(naive_squares("d4 f1")), before.black, before.batteries, before.to_move.other)
    explain_fails(before, diagonal)


def test_explain_diagnoses_energy():
    """Section 2.1: c2 -> c5 needs 3 energy, only 2 batteries touch c2."""
    before = board("c2 f1", "a6 b6", "C2 D2", "w")
    after = Position(frozenset(naive_squares("c5 f1")), before.black, before.batteries, before.to_move.other)
    ex = explain_fails(before, after)
    assert "c2" in ex.diagnosis


def test_explain_diagnoses_uncontrolled_battery():
    """Section 2.2: a battery moved that the mover does not control."""
    before = board("c3 f1", "a6 b6", "C3 D5 G1", "w", keep_empty="D6 D4")
    after = naive.apply(before, "f1-e1")
    moved = Position(after.white, after.black, (after.batteries - naive_points("D5")) | naive_points("D6"), after.to_move)
    ex = explain_fails(before, moved)
    assert "D5" in ex.diagnosis or "D6" in ex.diagnosis


def test_explain_diagnoses_line_used_twice():
    """Section 2.2: two battery moves along horizontal line 3."""
    before = board("a3 d3 f1", "a6 b6", "B3 E3 G1", "w", keep_empty="A3 F3 C3")
    after = naive.apply(before, "f1-e1 B3-A3 E3-F3", ["no-line-limit"])
    explain_fails(before, after)
    explain_ok(before, after, ["no-line-limit"])


def test_explain_respects_must_capture():
    """R-7: under must-capture a quiet turn is not an explanation when a
    capture was available."""
    before = board("c2 f1", "c3 a6", "C2 D2 G1", "w")
    after = naive.apply(before, "f1-e1")
    explain_ok(before, after)
    explain_fails(before, after, ["must-capture"])


def naive_squares(names: str):
    from companion.rules.geometry import parse_square

    return {parse_square(n) for n in names.split()}


def naive_points(names: str):
    from companion.rules.geometry import parse_point

    return frozenset(parse_point(n) for n in names.split())


# ------------------------------------------------------------- properties ----

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(game_situations())
def test_explain_finds_a_turn_for_every_legal_turn(situation):
    """Property (issue 2): for random legal turns from random reachable
    positions, explain(before, apply(before, turn)) finds a turn whose
    application gives the same after-position; the engine and the naive
    oracle agree on apply."""
    from companion.rules.engine import apply_turn

    before, turn, options, _ = situation
    after = apply_turn(before, turn, rules_for(options))
    assert after == naive.apply(before, turn, options), turn
    explain_ok(before, after, options)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(game_situations(), st.integers(0, 2**32 - 1))
def test_explain_perturbed_after_positions(situation, seed2):
    """Property (issue 2): move one piece of a legal after-position (a robot
    to another empty square, a robot off the board, or a battery to another
    empty point). explain() finds a turn iff the naive oracle says a legal
    turn reaches it; otherwise it gives a diagnosis."""
    from companion.rules.explain import explain

    before, turn, options, _ = situation
    after = naive.apply(before, turn, options)
    rng = random.Random(seed2)
    white, black, bats = set(after.white), set(after.black), set(after.batteries)
    kind = rng.choice(["robot", "robot", "remove", "battery"])
    if kind in ("robot", "remove"):
        robots = white if (rng.random() < 0.5 and white) or not black else black
        src = rng.choice(sorted(robots))
        robots.discard(src)
        if kind == "robot":
            robots.add(rng.choice([s for s in range(36) if s not in white and s not in black and s != src]))
    else:
        src = rng.choice(sorted(bats))
        bats.discard(src)
        bats.add(rng.choice([p for p in range(49) if p not in bats and p != src]))
    bad = Position(frozenset(white), frozenset(black), frozenset(bats), after.to_move)
    assume(bad != after)
    ex = explain(before, bad, rules_for(options))
    event(f"perturbation: {kind}, {'explained' if ex.turn is not None else 'rejected'}")
    if ex.turn is not None:
        assert naive.apply(before, str(ex.turn), options) == bad, str(ex.turn)
    else:
        assert isinstance(ex.diagnosis, str) and ex.diagnosis.strip()
        assert not naive.reachable(before, bad, options), (
            f"explain found no turn but one exists: {naive.witness_turn(before, (bad.white, bad.black), bad.batteries, options)}"
        )
