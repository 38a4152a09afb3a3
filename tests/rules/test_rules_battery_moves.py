"""Hand-worked battery-phase tests (docs/rules.md, section 2.2, R-3, R-4, R-11,
R-13, ``no-line-limit``), against the engine and the naive oracle.

Each turn starts with a harmless robot move far from the tested batteries:
White's spare f1 (battery G1) plays ``f1-e1``; Black's spare f6 (battery G6)
plays ``f6-e6``. Spare batteries are parked where no robot touches them (so
nobody controls them) and away from the points a test needs empty.
"""

from __future__ import annotations

import pytest

import naive
from referees import Illegal, board
from companion.rules.geometry import parse_point

WR = "f1-e1"  # White's harmless robot move
BR = "f6-e6"  # Black's harmless robot move


def pos_with(white: str, black: str, bats: str, side: str = "w", keep_empty: str = ""):
    return board(f"{white} f1", f"{black} f6 a6", f"{bats} G1 G6", side, keep_empty=keep_empty)


def legal(ref, pos, turn, options=()):
    return ref.apply(pos, turn, options)


def illegal(ref, pos, turn, options=()):
    assert naive.status(pos, options).result == "ongoing", str(pos)
    with pytest.raises(Illegal):
        ref.apply(pos, turn, options)


def pts(names: str) -> frozenset[int]:
    return frozenset(parse_point(n) for n in names.split())


def test_next_empty_point_passing_consecutive_batteries(ref):
    """Section 2.2: a battery moves to the next empty point along a line,
    passing any number of consecutive batteries. C3 (White c3 controls it)
    with C4, C5 occupied: up lands on C6; down lands on C2."""
    pos = pos_with("c3", "", "C3 C4 C5", keep_empty="C6 C7 C2 C1")
    after = legal(ref, pos, f"{WR} C3-C6")
    assert pts("C4 C5 C6") <= after.batteries and parse_point("C3") not in after.batteries
    legal(ref, pos, f"{WR} C3-C2")


@pytest.mark.parametrize("dest", ["C4", "C5", "C7", "C1"])
def test_R13_destination_must_be_exactly_the_first_empty_point(ref, dest):
    """Section 2.2 / R-13: not onto an occupied point (C4, C5), not past the
    first empty point (C7 passes the empty C6, C1 passes the empty C2): an
    illegal turn, not a parse error."""
    pos = pos_with("c3", "", "C3 C4 C5", keep_empty="C6 C7 C2 C1")
    illegal(ref, pos, f"{WR} C3-{dest}")


def test_no_move_when_full_to_the_edge(ref):
    """Section 2.2: a battery cannot move in a direction where every point up
    to the edge is occupied (B3 left: A3 then the edge)."""
    pos = pos_with("a3", "", "A3 B3", keep_empty="C3 B4 B2")
    illegal(ref, pos, f"{WR} B3-A3")
    legal(ref, pos, f"{WR} B3-C3")


def test_battery_moves_along_a_line_only(ref):
    """Section 2.2: up, down, left or right, never diagonally."""
    pos = pos_with("c3", "", "C3", keep_empty="D4 B2 C4")
    from companion.rules.errors import NotationError

    with pytest.raises((Illegal, NotationError)):
        ref.apply(pos, f"{WR} C3-D4")
    legal(ref, pos, f"{WR} C3-C4")


# --------------------------------------------------------------- control ----

def test_control_example_player_a_controls(ref):
    """German control example 1 ('Spieler A kontrolliert den Energiestein'):
    2 White robots (c3, d3) against 1 Black (c4) around D4: White controls
    it, Black does not."""
    w = pos_with("c3 d3", "c4", "D4", "w", keep_empty="D5")
    after = legal(ref, w, f"{WR} D4-D5")
    assert parse_point("D5") in after.batteries
    b = pos_with("c3 d3", "c4", "D4", "b", keep_empty="D5")
    legal(ref, b, BR)
    illegal(ref, b, f"{BR} D4-D5")


def test_control_example_both_control(ref):
    """German control example 2 / English example 3 ('both players control
    the battery'): 1 against 1 around D4, each may move it on their own turn;
    White moving D4 away leaves Black c4 (whose only battery it was) without
    energy."""
    w = pos_with("c3", "c4", "D4", "w", keep_empty="D5 E4")
    after = legal(ref, w, f"{WR} D4-E4")
    b = pos_with("c3", "c4", "D4", "b", keep_empty="D5 E4")
    legal(ref, b, f"{BR} D4-D5")
    legal(ref, b, "c4-b4")
    assert after.to_move.value == "b"
    illegal(ref, after, "c4-b4")


def test_R3_nobody_controls_zero_against_zero(ref):
    """R-3: 0 against 0 is control by nobody."""
    pos = pos_with("c3", "", "D5", keep_empty="D6 D4")
    illegal(ref, pos, f"{WR} D5-D6")
    bpos = pos_with("c3", "", "D5", "b", keep_empty="D6 D4")
    illegal(ref, bpos, f"{BR} D5-D6")


def test_outnumbered_player_does_not_control(ref):
    """Section 2.2: at least as many robots as the opponent: 1 against 2 is
    not control."""
    pos = pos_with("c3", "c4 d4", "D4", keep_empty="D3")
    illegal(ref, pos, f"{WR} D4-D3")


def test_control_judged_after_the_robot_phase(ref):
    """Section 2.2: control is judged with the robots as they stand after the
    robot phase. c2-c3 brings a robot next to D4 (then White controls it);
    c3-b3 takes White's only robot away from D4."""
    gain = pos_with("c2", "", "C2 D4", keep_empty="D5")
    illegal(ref, gain, f"{WR} D4-D5")
    legal(ref, gain, "c2-c3 D4-D5")
    lose = pos_with("c3", "", "C3 D4", keep_empty="D5")
    legal(ref, lose, f"{WR} D4-D5")
    illegal(ref, lose, "c3-b3 D4-D5")


def test_control_after_a_capture(ref):
    """Section 2.2: a capture in the robot phase changes the count: White c3
    against Black d3, d4 around D4 (1 vs 2); after c3xd3, 1 vs 1."""
    pos = pos_with("c3", "d3 d4", "C3 D3 D4", keep_empty="C4 D5 E4")
    illegal(ref, pos, f"{WR} D4-E4")
    legal(ref, pos, "c3xd3 D4-E4")


def test_control_at_origin_not_destination(ref):
    """Section 2.2: control is judged at the battery's point before it moves;
    it may move into the opponent's area (and out of its own)."""
    pos = pos_with("d4", "e4 d5 e5", "E4", keep_empty="E5 E3")
    # around E4: d3 e3 d4 e4 -> White d4 vs Black e4: 1 vs 1, White may move it
    after = legal(ref, pos, f"{WR} E4-E5")
    assert parse_point("E5") in after.batteries


def test_contested_battery_moved_by_player_to_move(ref):
    """Section 2.2: a battery controlled by both players may be moved by the
    player whose turn it is (both sides, each on its turn)."""
    for side, robot in (("w", WR), ("b", BR)):
        pos = pos_with("c3", "d4", "D4", side, keep_empty="D3 D5")
        legal(ref, pos, f"{robot} D4-D3")


# ------------------------------------------------------ R-11 contested ----

def test_R11_contested_frozen(ref):
    """R-11 (variant 1): with contested-frozen the mover needs strictly more
    robots around the battery: 1 vs 1 freezes it for both; 2 vs 1 does not."""
    for side, robot in (("w", WR), ("b", BR)):
        pos = pos_with("c3", "d4", "D4", side, keep_empty="D3 D5")
        legal(ref, pos, f"{robot} D4-D5")
        illegal(ref, pos, f"{robot} D4-D5", ["contested-frozen"])
    two = pos_with("c3 d3", "d4", "D4", "w", keep_empty="D5")
    legal(ref, two, f"{WR} D4-D5", ["contested-frozen"])
    alone = pos_with("c3", "", "D4", "w", keep_empty="D5")
    legal(ref, alone, f"{WR} D4-D5", ["contested-frozen"])


# ---------------------------------------------------------------- R-4 ----

def test_R4_each_battery_moves_at_most_once(ref):
    """R-4: C3 -> C4 (line C) and then C4 -> B4 (line 4) is two moves of the
    same battery, illegal although the lines differ and White controls C4."""
    pos = pos_with("c3", "", "C3", keep_empty="C4 B4 C5")
    legal(ref, pos, f"{WR} C3-C4")
    illegal(ref, pos, f"{WR} C3-C4 C4-B4")
    illegal(ref, pos, f"{WR} C3-C4 C4-C5", ["no-line-limit"])


def test_R4_other_battery_may_enter_vacated_point(ref):
    """Section 2.2: battery moves happen one after another: D3 may move into
    the point C3 vacated earlier in the turn, and the 'next empty point' is
    judged at that moment (D3 left stops at C3, not B3)."""
    pos = pos_with("c3", "", "C3 D3", keep_empty="C2 B3 C1")
    after = legal(ref, pos, f"{WR} C3-C2 D3-C3")
    assert pts("C2 C3") <= after.batteries and parse_point("D3") not in after.batteries
    legal(ref, pos, f"{WR} D3-B3")
    illegal(ref, pos, f"{WR} C3-C2 D3-B3")


# ------------------------------------------------------------ line rule ----

def line_example():
    """German line example: A = B3 -> A3 and B = E3 -> F3 both along
    horizontal line 3; C = D4 -> D5 along vertical line D. White a3 controls
    B3, d3 controls E3 and D4."""
    return pos_with("a3 d3", "", "B3 E3 D4", keep_empty="A3 F3 D5 C3")


def test_one_battery_move_per_energy_line(ref):
    """Section 2.2 (German rulebook): only A or B, not both; C in any case."""
    pos = line_example()
    legal(ref, pos, f"{WR} B3-A3 D4-D5")
    legal(ref, pos, f"{WR} E3-F3 D4-D5")
    illegal(ref, pos, f"{WR} B3-A3 E3-F3")
    illegal(ref, pos, f"{WR} E3-F3 D4-D5 B3-A3")


def test_no_line_limit_drops_the_line_rule(ref):
    """Option no-line-limit (English translation): both A and B."""
    pos = line_example()
    after = legal(ref, pos, f"{WR} B3-A3 E3-F3 D4-D5", ["no-line-limit"])
    assert pts("A3 F3 D5") <= after.batteries


def test_line_used_is_the_line_moved_along(ref):
    """Section 2.2: a move along vertical line D uses line D only, also when
    it passes over a battery standing on horizontal line 3 (interpretation:
    crossing a line is not using it). D2 passes D3 to D4; B3 -> A3 uses line 3."""
    pos = pos_with("a3 c2", "", "D2 D3 B3", keep_empty="D4 A3 D1 C3")
    after = legal(ref, pos, f"{WR} D2-D4 B3-A3")
    assert pts("D3 D4 A3") <= after.batteries
    # a second vertical move on line D is refused
    illegal(ref, pos, f"{WR} D2-D4 D3-D2")


def test_battery_moves_require_a_robot_move_first(ref):
    """Section 2.2: the robot phase is mandatory (at least one robot move)."""
    from companion.rules.errors import NotationError

    pos = pos_with("c3", "", "C3", keep_empty="C4")
    with pytest.raises((Illegal, NotationError)):
        ref.apply(pos, "C3-C4")
