"""Battery stacks (options ``stacking`` and ``stack-unsplit``), sentence by sentence from R-19..R-22.

Hand-worked positions; the counts of R-22 are the rulings' own.
"""

from __future__ import annotations

import pytest

from companion.rules.engine import apply_turn, battery_phase_layouts, robot_phase_outcomes, status
from companion.rules.errors import IllegalTurn, NotationError
from companion.rules.explain import explain
from companion.rules.masks import layered, points_of, stacks_of
from companion.rules.options import Rules
from companion.rules.position import Placement, Position
from companion.rules.robot_moves import strength
from companion.rules.geometry import parse_point, parse_square

STACKING = Rules.from_names(["stacking"])
UNSPLIT = Rules.from_names(["stack-unsplit"])
ORIGINAL = Rules()

# R-22's position: B6 a stack of two, D2 a stack of three
P1 = "BBBBBB/6/6/6/6/WWWWWW 7/xyxxxx1/7/7/7/xxxzx2/7 w"
# single batteries A2..F2, A6..G6 and one on C3
P2 = "BBBBBB/6/6/6/6/WWWWWW 7/xxxxxxx/7/7/2x4/xxxxxx1/7 w"


def pos(text: str) -> Position:
    return Position.from_string(text)


def after(text: str, turn: str, rules: Rules = STACKING) -> Position:
    return apply_turn(pos(text), turn, rules)


def illegal(text: str, turn: str, rules: Rules = STACKING) -> str:
    with pytest.raises(IllegalTurn) as exc:
        apply_turn(pos(text), turn, rules)
    return exc.value.reason


# ----------------------------------------------------------------


def test_R19_y_and_z_are_stacks_of_two_and_three_counted_one_by_one():
    p = pos(P1)
    assert p.height(parse_point("B6")) == 2 and p.height(parse_point("D2")) == 3
    assert p.height(parse_point("A2")) == 1 and p.height(parse_point("G2")) == 0
    assert len(p.batteries) == 11  # 11 points hold 14 batteries
    assert p.to_string() == P1  # canonical output keeps the letters
    with pytest.raises(NotationError, match="15 batteries"):
        pos("BBBBBB/6/6/6/6/WWWWWW 7/xyxxxx1/7/7/7/xxxzxx1/7 w")
    with pytest.raises(NotationError, match="bad character 'w'"):
        pos("BBBBBB/6/6/6/6/WWWWWW 7/xyxxxw1/7/7/7/xxxzx2/7 w")


@pytest.mark.parametrize("rules", [ORIGINAL, Rules.from_names(["must-capture", "no-line-limit"])])
def test_R19_without_stacking_a_rules_operation_refuses_a_stack(rules):
    p = pos(P1)
    for op in (
        lambda: apply_turn(p, "a1-a2", rules),
        lambda: status(p, rules),
        lambda: robot_phase_outcomes(p, rules),
        lambda: battery_phase_layouts(p, rules),
        lambda: explain(p, Placement.from_string(P1), rules),
        lambda: explain(pos(P2), Placement.from_string(P1), rules),  # after, too
    ):
        with pytest.raises(NotationError, match=r"stack on D2 \(3 batteries\), B6 \(2 batteries\): stacks need the option stacking \(R-19\)"):
            op()


def test_R19_a_point_holds_at_most_three():
    assert "D2 holds three batteries: nothing can be put on it" in illegal(P1, "a1-a2 C2-D2")
    assert "D2 holds three batteries" in illegal(P1, "a1-a2 E2-D2")


def test_stack_unsplit_implies_stacking():
    assert UNSPLIT.options == {"stacking", "stack-unsplit"}
    assert UNSPLIT.name == "original+stacking+stack-unsplit"


# ----------------------------------------------------------------


def test_R20_a_stacking_step_onto_one_battery_and_the_ordinary_move_past_it():
    # C2-C3 onto the occupied C3 is a stacking step; C2-C4 past the single battery on C3 an ordinary move
    assert after(P2, "a1-a2 C2-C3").height(parse_point("C3")) == 2
    p = after(P2, "a1-a2 C2-C4")
    assert p.height(parse_point("C3")) == 1 and p.height(parse_point("C4")) == 1
    # without stacking C2-C3 is no move at all
    assert "next empty point, which is C4 (R-13)" in illegal(P2, "a1-a2 C2-C3", ORIGINAL)


def test_R20_a_stacking_step_onto_a_stack_of_two_and_one_point_only():
    p = after(P1, "a1-a2 C2-B2")  # B2 single -> two
    assert p.height(parse_point("B2")) == 2 and p.height(parse_point("C2")) == 0
    p2 = after(P2, "a1-a2 B2-C2 D2-C2", Rules.from_names(["stacking", "no-line-limit"]))
    assert p2.height(parse_point("C2")) == 3  # another battery may still join while it holds fewer than three
    assert "next empty point, which is G2, or by a stacking step onto B2" in illegal(P2, "a1-a2 A2-C2")


def test_R20_the_ordinary_move_never_passes_a_stack():
    reason = illegal(P1, "a1-a2 C2-F2")
    assert "stack on D2 (3 batteries) is in the way" in reason and "R-20" in reason
    # over single batteries it still goes (E2 -> F2 is the next empty point)
    assert after(P1, "a1-a2 E2-F2").height(parse_point("F2")) == 1
    # Black: A6 right over the stack B6 is closed; C6 right over singles D6 E6 F6 to G6
    b = pos(P1.replace(" w", " b"))
    assert "stack on B6" in illegal(b.to_string(), "a6-a5 A6-G6")
    assert apply_turn(b, "a6-a5 C6-G6", STACKING).height(parse_point("G6")) == 1


def test_R20_only_the_top_moves_and_the_uncovered_battery_has_not_moved():
    p = after(P1, "a1-a2 D2-D3 D2-E2")  # the top of D2 up to D3, the one uncovered onto E2
    assert p.height(parse_point("D2")) == 1 and p.height(parse_point("D3")) == 1 and p.height(parse_point("E2")) == 2
    # one move per line still applies to it
    assert "energy line 2 carried two" in illegal(P1, "a1-a2 E2-F2 D2-E2")


def test_R20_R4_a_battery_that_moved_lies_on_top_and_nothing_leaves_that_stack():
    reason = illegal(P1, "a1-a2 C2-B2 B2-B3")
    assert "has already moved" in reason and "nothing leaves that stack" in reason


def test_R20_control_is_judged_at_the_point_the_battery_leaves():
    black = P2.replace(" w", " b")
    assert "Black does not control it" in illegal(black, "a6-a5 C2-C3")
    # White controls C2 (b1, c1 around it) and may step onto C3, which no White robot touches after a1-a2
    assert after(P2, "a1-a2 C2-C3").height(parse_point("C3")) == 2


def test_R20_a_stacking_step_uses_its_energy_line():
    assert "energy line 2 carried two" in illegal(P2, "a1-a2 B2-C2 D2-C2")
    assert after(P2, "a1-a2 B2-C2 D2-C2", Rules.from_names(["stacking", "no-line-limit"])).height(parse_point("C2")) == 3


# ----------------------------------------------------------------


def test_R21_each_battery_of_a_stack_gives_one_point():
    # c1 touches C2 (1) and D2 (3): four points, enough for c1-c5
    assert after(P1, "c1-c5").robots(pos(P1).to_move) >= {parse_square("c5")}
    assert "robot c1→c6" in illegal("BB1BBB/6/6/6/6/WWWWWW 7/xyxxxx1/7/7/7/xxxzx2/7 w", "c1-c6")  # 5 > 4


def test_R21_shared_under_stacking_one_robot_under_stack_unsplit():
    # c1 (C2 + D2) and d1 (D2 + E2) share the stack D2 of three
    assert after(P1, "c1-c4 d1-d3")  # 3 + 2 = 5 = C2 + D2 (3) + E2: D2 split 2/1
    reason = illegal(P1, "c1-c4 d1-d3", UNSPLIT)
    assert "stack-unsplit" in reason and "D2 (3)" in reason and "R-21" in reason
    assert after(P1, "c1-c3 d1-d2", UNSPLIT)  # c1 takes D2 whole, d1 takes E2
    assert "need 6 energy together but only 5 batteries" in illegal(P1, "c1-c4 d1-d4")


def test_R21_whole_points_assignable_against_every_assignment():
    """The one home of R-21 under ``stack-unsplit`` (its search, also compiled by the hints' core)
    against the plain reading: try every way of giving each point whole to one robot touching it,
    or to none; the robots need their costs."""
    import itertools
    import random

    from companion.rules.variants.stacking import whole_points_assignable

    rng = random.Random(19)
    answers = {True: 0, False: 0}
    for _ in range(4000):
        n, u = rng.randrange(0, 5), rng.randrange(0, 7)
        heights = [rng.choice([1, 1, 2, 3]) for _ in range(u)]
        touch = [rng.randrange(0, 1 << n) if n else 0 for _ in range(u)]
        costs = [rng.randrange(0, 6) for _ in range(n)]
        choices = [[None, *(i for i in range(n) if touch[k] >> i & 1)] for k in range(u)]
        want = False
        for pick in itertools.product(*choices):
            got = [0] * n
            for k, i in enumerate(pick):
                if i is not None:
                    got[i] += heights[k]
            if all(g >= c for g, c in zip(got, costs)):
                want = True
                break
        assert whole_points_assignable(heights, touch, costs, u, n) is want, (heights, touch, costs)
        answers[want] += 1
    assert min(answers.values()) > 1000


def test_R21_strength_counts_every_battery_of_a_stack():
    bats = layered(pos(P1).batteries, pos(P1).stacks)
    assert strength(bats, parse_square("c1")) == 4  # C2 and the three on D2
    assert strength(bats, parse_square("a5")) == 3  # A6 and the two on B6


# ----------------------------------------------------------------


def test_R22_outcomes_with_heights_from_the_start():
    start = Position.start()
    assert len(robot_phase_outcomes(start, STACKING)) == 2524
    assert len(battery_phase_layouts(start, STACKING)) == 25515


def test_R22_a_stack_of_two_and_a_single_battery_are_different_outcomes():
    outs = battery_phase_layouts(pos(P2), STACKING)
    c3 = parse_point("C3")
    with_stack = {m for m in outs if dict(stacks_of(m)).get(c3) == 2}
    assert with_stack and all(points_of(m) >> c3 & 1 for m in with_stack)
    assert len({points_of(m) for m in outs}) < len(outs)


@pytest.mark.parametrize(
    "side, rules, robots, batteries",
    [
        ("w", STACKING, 1096, 1917),
        ("w", UNSPLIT, 696, 1917),
        ("b", STACKING, 2237, 9288),
        ("b", UNSPLIT, 1922, 9288),
    ],
)
def test_R22_counts_with_stacks(side, rules, robots, batteries):
    p = pos(P1.replace(" w", f" {side}"))
    assert len(robot_phase_outcomes(p, rules)) == robots
    assert len(battery_phase_layouts(p, rules)) == batteries


def test_R22_counts_with_stacks_and_no_line_limit():
    assert len(battery_phase_layouts(pos(P1), Rules.from_names(["stacking", "no-line-limit"]))) == 40705


# ---------------------------------------------------------------- explain


def test_explain_finds_a_hidden_chain_through_a_stacking_step():
    # C2 steps onto C3, then B2 moves into the emptied C2: the camera sees B2 empty and C3 doubled
    board = Placement.from_string("BBBBBB/6/6/6/6/1WWWWW 7/xxxxxxx/7/7/2y4/x1xxxx1/7")
    board = Placement(board.white | {parse_square("a2")}, board.black, board.batteries, board.stacks)
    ex = explain(pos(P2), board, STACKING)
    assert ex.legal, ex.diagnosis
    assert str(ex.turn) == "a1-a2 C2-C3 B2-C2"


def test_explain_a_battery_leaving_a_stack():
    ex = explain(pos(P1), Placement.from_string("BBBBBB/6/6/6/W5/1WWWWW 7/xyxxxx1/7/7/3x3/xxxyx2/7"), STACKING)
    assert ex.legal and str(ex.turn) == "a1-a2 D2-D3"


def test_explain_diagnoses_a_move_over_a_stack():
    ex = explain(pos(P1), Placement.from_string("BBBBBB/6/6/6/W5/1WWWWW 7/xyxxxx1/7/7/7/xx1zxx1/7"), STACKING)
    assert not ex.legal
    assert "stack on D2 (3 batteries) is in the way" in ex.diagnosis


def test_explain_names_a_full_stack_a_battery_was_put_on():
    """R-19: C2's battery put on D2's stack of three: D2 still reads three, C2 is empty, 13 batteries."""
    board = Placement.from_string("BBBBBB/6/6/6/W5/1WWWWW 7/xyxxxx1/7/7/7/xx1zx2/7")
    for rules in (STACKING, UNSPLIT):
        ex = explain(pos(P1), board, rules)
        assert not ex.legal
        assert ex.diagnosis == ("D2 holds three batteries: nothing can be put on it (R-19); the battery that left C2 "
                                "is not on the board (13 batteries)")
        assert set(ex.points) == {parse_point("C2"), parse_point("D2")}
    # a battery gone from beside no full stack (B6 is a stack of two): only the count is said
    ex = explain(pos(P1), Placement.from_string("BBBBBB/6/6/6/W5/1WWWWW 7/xyx1xx1/7/7/7/xxxzx2/7"), STACKING)
    assert ex.diagnosis == "13 batteries on the board: one is missing or misread"
    # gone from beside D2, but D2 changed too: no stacking step onto it explains that
    ex = explain(pos(P1), Placement.from_string("BBBBBB/6/6/6/W5/1WWWWW 7/xyxxxx1/7/7/7/xx1yx1x/7"), STACKING)
    assert "holds three" not in ex.diagnosis


def test_explain_stack_unsplit_names_the_stack():
    board = Placement.of(after(P1, "c1-c4 d1-d3"))
    ex = explain(pos(P1), board, UNSPLIT)
    assert not ex.legal and "D2 (3)" in ex.diagnosis and "stack-unsplit" in ex.diagnosis
    assert explain(pos(P1), board, STACKING).legal


@pytest.mark.parametrize("rules", [STACKING, UNSPLIT, Rules.from_names(["stacking", "no-line-limit", "contested-frozen"])])
def test_explain_finds_every_random_turn_under_stacking(rules):
    """Self-play under stacking: explain finds a legal turn between every pair of
    boards, and that turn played on the board before gives the board after
    (stacks and heights included)."""
    import random

    from companion.rules.engine import random_turn

    rng = random.Random(19)
    seen_stacks = 0
    for _game in range(4):
        p = Position.start()
        for _ in range(24):
            if status(p, rules).over:
                break
            nxt = apply_turn(p, random_turn(p, rng, rules, battery_stop=0.2), rules)
            ex = explain(p, Placement.of(nxt), rules)
            assert ex.legal, (p.to_string(), nxt.to_string(), ex.diagnosis)
            assert apply_turn(p, ex.turn, rules) == nxt
            # the same board with one point's batteries (a whole stack) set elsewhere: explained or diagnosed
            src = rng.choice(sorted(nxt.batteries))
            dst = rng.choice([q for q in range(49) if q not in nxt.batteries])
            stacks = frozenset((dst if q == src else q, h) for q, h in nxt.stacks)
            bad = Placement(nxt.white, nxt.black, (nxt.batteries - {src}) | {dst}, stacks)
            ex = explain(p, bad, rules)
            if ex.legal:
                assert Placement.of(apply_turn(p, ex.turn, rules)) == bad
            else:
                assert ex.diagnosis
            seen_stacks += bool(nxt.stacks)
            p = nxt
    assert seen_stacks > 0
