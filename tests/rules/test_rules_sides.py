"""Printed and blank sides (R-23): the batteries turned blank against the energy the moves used.

Hand-worked cases, sentence by sentence from R-23: the right set, a missing turn, an extra
turn, a battery drawn on and then moved (judged where it started), a stack (only its top is
seen), already blank, unknown sides.
"""

from __future__ import annotations

import pytest

from companion.rules.errors import IllegalTurn
from companion.rules.geometry import parse_point
from companion.rules.moves import Turn
from companion.rules.options import Rules
from companion.rules.position import Position
from companion.rules.sides import BLANK, PRINTED, check_sides, left_blank, paying_batteries, turn_back_message

START = Position.start()
STACKING = Rules.from_names(["stacking"])
# R-22's position: B6 a stack of two, D2 a stack of three (C2 a single battery, C1 and D1 empty)
STACKS = Position.from_string("BBBBBB/6/6/6/6/WWWWWW 7/xyxxxx1/7/7/7/xxxzx2/7 w")


def pts(*names: str) -> tuple[int, ...]:
    return tuple(parse_point(n) for n in names)


def sides(pos: Position, blank: tuple[str, ...] = (), unknown: tuple[str, ...] = (), moved: dict[str, str] | None = None
          ) -> dict[int, str]:
    """Every battery of ``pos`` printed, except ``blank`` and ``unknown`` (left out); ``moved``: from -> to."""
    where = {p: p for p in pos.batteries}
    for a, b in (moved or {}).items():
        del where[parse_point(a)]
        where[parse_point(b)] = parse_point(b)
    out = {p: PRINTED for p in where}
    for n in blank:
        out[parse_point(n)] = BLANK
    for n in unknown:
        out.pop(parse_point(n), None)
    return out


ALL_PRINTED = sides(START)


def check(turn: str, blank: tuple[str, ...], *, before: dict | None = None, unknown: tuple[str, ...] = (),
          moved: dict[str, str] | None = None, pos: Position = START, rules: Rules = Rules()):
    return check_sides(pos, Turn.parse(turn), sides(pos) if before is None else before,
                       sides(pos, blank, unknown, moved), rules)


def test_the_right_set_says_nothing_and_is_left_to_turn_back() -> None:
    c = check("c1-c3", ("C2", "D2"))  # two squares: 2 energy, from c1's corners C2 and D2
    assert c.note is None and c.turned == pts("C2", "D2") and c.left_blank == pts("C2", "D2")
    # two robots, each with its own
    c = check("a1-a2 f1-f2", ("A2", "G2"))
    assert c.note is None
    # the same two robots, the batteries between them shared another way
    assert check("b1-b2 c1-c2", ("B2", "C2")).note is None
    assert check("b1-b2 c1-c2", ("C2", "D2")).note is None


def test_a_missing_turn() -> None:
    c = check("c1-c3", ("C2",))
    assert c.note == ("c1→c3 used 2 energy but only 1 battery beside c1 was turned (C2): "
                      "turn each battery you draw on to its blank side")
    assert c.squares == (14,) and c.points == pts("C2")  # the robot now on c3 (square 14), the one turned
    c = check("c1-c2", ())
    assert c.note == "c1→c2 used 1 energy but no battery beside c1 was turned: turn each battery you draw on to its blank side"


def test_an_extra_turn() -> None:
    c = check("c1-c3", ("C2", "D2", "F6"))
    assert c.note == "F6 is turned but no moved robot stands beside it"
    assert c.points == pts("F6")
    # beside the robot, but more than it used
    c = check("c1-c2", ("C2", "D2"))
    assert c.note == "C2 and D2 are turned but the robot beside them (c1→c2) used only 1 energy"
    assert set(c.points) == set(pts("C2", "D2"))
    # both at once: a stray one and a missing one
    c = check("c1-c3", ("C2", "G2"))
    assert c.note is not None and c.note.startswith("G2 is turned but no moved robot stands beside it; c1→c3 used 2")


def test_a_battery_drawn_on_and_then_moved_is_judged_where_it_started() -> None:
    # c1-c2 draws on C2 (or D2, C1, D1: only C2 and D2 hold batteries); C2 then moves to C3
    c = check("c1-c2 C2-C3", ("C3",), moved={"C2": "C3"})
    assert c.note is None and c.turned == pts("C2") and c.left_blank == pts("C3")
    # turned, then moved, but it stood beside no moved robot: named where it started, and where it is
    c = check("c1-c2 G2-G3", ("C2", "G3"), moved={"G2": "G3"})
    assert c.note == "G2 (now on G3) is turned but no moved robot stands beside it"
    assert c.points == pts("G3")
    # a battery that moved onto a point where another one had been turned: judged by where it started
    c = check("c1-c2 C2-C3", ("D2",), moved={"C2": "C3"})
    assert c.note is None  # D2 paid; C2 moved and shows its printed side: not drawn on


def test_already_blank_and_still_blank_says_nothing() -> None:
    before = sides(START, ("C2", "D2"))  # the last player's, not turned back
    assert check("c1-c3", ("C2", "D2"), before=before).note is None
    assert check("c1-c3", ("C2", "D2"), before=before).turned == ()
    # one still blank pays for the second point
    assert check("c1-c3", ("C2", "D2"), before=sides(START, ("D2",))).note is None
    # turned back to printed and not drawn on again: then the energy is missing
    assert check("c1-c3", ("C2",), before=sides(START, ("D2",))).note is not None


def test_unknown_sides_are_silent() -> None:
    assert check("c1-c3", (), unknown=("C2", "D2")).note is None  # nothing seen after the turn
    assert check("c1-c3", ("C2",), unknown=("D2",)).note is None  # D2 may have paid
    assert check("c1-c3", ("C2", "D2", "F6"), before=sides(START, unknown=("F6",))).note is None  # F6 not seen before
    assert check("c1-c2", ("C2", "D2"), before={}).note is None  # nothing seen before: nothing went printed to blank
    assert check_sides(START, Turn.parse("c1-c3"), {}, {}).note is None  # a camera that tells no side
    # a side seen printed after the turn still says it was not drawn on
    assert check("c1-c3", ("C2",), unknown=("F6",)).note is not None


def test_in_a_stack_only_the_top_is_judged() -> None:
    # c1's corners: C2 (one battery) and D2 (a stack of three): 4 energy
    c = check("c1-c3", ("D2",), pos=STACKS, rules=STACKING)
    assert c.note is None  # the top of D2 paid one, a battery under it may have paid the other
    assert check("c1-c3", (), pos=STACKS, rules=STACKING).note is None  # the two under the top, unseen
    c = check("c1-c4", (), pos=STACKS, rules=STACKING)  # 3 energy: only the two unseen ones may have given it
    assert c.note == ("c1→c4 used 3 energy but no battery beside c1 was turned (2 more unseen or already blank): "
                      "turn each battery you draw on to its blank side")
    assert check("c1-c4", ("C2",), pos=STACKS, rules=STACKING).note is None
    # the top of a stack that leaves it is seen where it goes; the one it uncovers was never seen
    c = check("c1-c3 D2-E2", ("C2", "E2"), pos=STACKS, rules=STACKING)  # a stacking step: E2 holds two, D2 two
    assert c.note is None and c.turned == pts("C2", "D2") and c.left_blank == pts("C2", "E2")
    # the same with D2's top not turned: E2's top (D2's old top) shows printed, C2 and an unseen one paid
    assert check("c1-c3 D2-E2", ("C2",), pos=STACKS, rules=STACKING).note is None
    # E2's own battery is now under the one that came: covered, it is not judged
    c = check("c1-c3 D2-E2", ("C2", "D2", "E2"), pos=STACKS, rules=STACKING)
    assert c.note is None and c.turned == pts("C2", "D2")


def test_under_controlled_energy_a_battery_beside_but_not_drawable_is_named_so() -> None:
    # c1's corners hold C2 (Black's: b1 b2 c2 against c1) and D2 (White's: c1 against c2); R-10
    pos = Position.from_string("BBB3/6/6/6/1BB3/1BW1WW 7/xxxxxxx/7/7/7/xxxxxxx/7 w")
    ce = Rules.from_names(["controlled-energy"])
    assert check("c1-d1", ("D2",), pos=pos, rules=ce).note is None
    c = check("c1-d1", ("C2", "D2"), pos=pos, rules=ce)
    assert c.note == ("C2 is turned but is not one of the batteries that the mover controls (R-10): "
                      "no moved robot may draw on it")
    assert c.points == pts("C2")
    # without the option C2 may pay as well as D2: one of them too many
    assert check("c1-d1", ("C2", "D2"), pos=pos).note == "C2 and D2 are turned but the robot beside them (c1→d1) used only 1 energy"


def test_an_illegal_turn_is_refused() -> None:
    with pytest.raises(IllegalTurn):
        check_sides(START, Turn.parse("c1-c5"), ALL_PRINTED, ALL_PRINTED)


def test_paying_batteries_and_the_words() -> None:
    assert sorted(paying_batteries(START, Turn.parse("c1-c3"))) == sorted(pts("C2", "D2"))
    pay = paying_batteries(START, Turn.parse("a1-a2 b1-b3"))
    assert len(pay) == 3 and set(pay) <= set(pts("A2", "B2", "C2"))
    assert paying_batteries(STACKS, Turn.parse("c1-c4"), STACKING).count(parse_point("D2")) >= 2
    assert left_blank({1: BLANK, 2: PRINTED, 0: BLANK}) == (0, 1)
    assert turn_back_message(pts("C3")) == "turn C3 back to its printed side"
    assert turn_back_message(pts("D4", "C3")) == "turn C3 and D4 back to their printed sides"
