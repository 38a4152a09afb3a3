"""When several robots moved and one was set down where none can have got, the diagnosis points
at the square (what is certain) and names every robot that may have gone there; one robot only
when one alone fits (issue 23: ``netzwerk demo`` seed 1 named d2-c1 for a robot set down from b2)."""

from __future__ import annotations

from companion.referee.referee import REJECTED, Referee
from companion.rules.explain import explain
from companion.rules.geometry import parse_square
from companion.rules.options import ORIGINAL
from companion.rules.position import Placement, Position

START = Position.from_string("BBBBBB/6/6/6/6/WWWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 w")


def test_two_robots_left_and_one_stands_where_neither_can_have_got() -> None:
    before = Position.from_string("6/BBBBBB/6/6/WWWWWW/6 7/xxxxxxx/7/7/7/xxxxxxx/7 w")
    after = Placement.from_string("6/BBBBBB/6/1W4/W1W1WW/2W3 7/xxxxxxx/7/7/7/xxxxxxx/7")  # b2, d2 left; b3, c1 new
    ex = explain(before, after)
    assert ex.diagnosis == "the White robot on c1 cannot have got there: from b2 or from d2 it is a diagonal move"
    assert ex.squares == (parse_square("c1"),)  # the pointer shows the square, not a guessed robot


def test_each_candidate_with_its_own_reason() -> None:
    after = Placement.from_string("BBBBBB/6/6/1W4/2W3/2WWWW 7/xxxxxxx/7/7/7/xxxxxxx/7")  # a1, b1 left; b3, c2 new
    ex = explain(START, after)
    assert ex.diagnosis == ("the White robot on c2 cannot have got there: from a1 it is no straight line; "
                            "from b1 it is a diagonal move")
    assert ex.squares == (parse_square("c2"),)


def test_one_robot_alone_is_named() -> None:
    before = Position.from_string("BBBBBB/6/6/6/6/W5 7/xxxxxxx/7/7/7/xxxxxxx/7 w")
    after = Placement.from_string("BBBBBB/6/6/6/1W4/6 7/xxxxxxx/7/7/7/xxxxxxx/7")  # the only robot: a1 to b2
    ex = explain(before, after)
    assert ex.diagnosis.startswith("robot a1\u2192b2 moved diagonally")
    assert ex.squares == (parse_square("a1"), parse_square("b2"))


def test_the_referees_verdict_points_at_the_square() -> None:
    before = Position.from_string("6/BBBBBB/6/6/WWWWWW/6 7/xxxxxxx/7/7/7/xxxxxxx/7 w")
    after = Placement.from_string("6/BBBBBB/6/1W4/W1W1WW/2W3 7/xxxxxxx/7/7/7/xxxxxxx/7")
    verdict = Referee(ORIGINAL, before).judge_board(after)
    assert verdict.kind == REJECTED and verdict.squares == (parse_square("c1"),)
    assert "from b2 or from d2" in verdict.reason


def test_two_new_robots_only_one_vacated_square_reaches() -> None:
    # issue 23, `netzwerk demo` seed 1 ply 10 mirrored: d2-e2 b1-c1 d1-d2 played with the last robot
    # set down on c2: b1, d1, d2 left; c1, c2, e2 new. c2 and e2 are reached only from d2, so one of
    # them is wrong -- which one is not knowable: both squares are shown, no robot is blamed.
    before = Position.from_string("BBBBBB/6/6/6/3W2/1W1W2 7/xxxxxxx/7/7/7/xxxxxxx/7 w")
    after = Placement.from_string("BBBBBB/6/6/6/2W1W1/2W3 7/xxxxxxx/7/7/7/xxxxxxx/7")
    ex = explain(before, after)
    assert ex.diagnosis == ("the White robots on c2 and e2 cannot both have got there: "
                            "only the robot from d2 reaches either of them by a legal move")
    assert ex.squares == (parse_square("c2"), parse_square("e2"))
    verdict = Referee(ORIGINAL, before).judge_board(after)
    assert verdict.kind == REJECTED and verdict.squares == (parse_square("c2"), parse_square("e2"))
