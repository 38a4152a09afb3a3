"""Hand-worked robot-phase tests (docs/rules.md, section 2.1, R-2, R-12, R-13, R-14,
and the options that change the robot phase: R-7/R-8, R-9, R-10, R-12).

Every test runs against the engine and the naive oracle (fixture ``ref``).
Positions are built with ``board(white, black, batteries)``: spare batteries
are parked where they touch no robot. Unless a test says otherwise, White has
a spare robot f1 with the battery G1 (so White always has *some* legal move
and an illegal verdict is about the tested move), and Black has a6 and b6.
"""

from __future__ import annotations

import pytest

import naive
from referees import Illegal, board
from companion.rules.errors import NotationError

W_SPARE = "f1"
W_SPARE_BAT = "G1"
B_DEFAULT = "a6 b6"


def wboard(white: str, bats: str, black: str = B_DEFAULT, **kw):
    """White to move, plus the spare White robot f1 with battery G1."""
    return board(f"{white} {W_SPARE}", black, f"{bats} {W_SPARE_BAT}", "w", **kw)


def legal(ref, pos, turn, options=()):
    return ref.apply(pos, turn, options)


def illegal(ref, pos, turn, options=()):
    # the position itself must be playable, so the verdict is about the turn (not R-6)
    assert naive.status(pos, options).result == "ongoing", str(pos)
    with pytest.raises(Illegal):
        ref.apply(pos, turn, options)


def sq(*names):
    from companion.rules.geometry import parse_square

    return frozenset(parse_square(n) for n in names)


# ---------------------------------------------------------------- costs ----
# The five cost examples of the German rulebook pictures (section 2.1).
# A cost is tested as "legal with exactly that many batteries on the corners
# of the start square, illegal with one fewer".

COST_CASES = [
    # (name, white robots besides the mover, black robots, turn, cost)
    ("move 1 = 1", "", B_DEFAULT, "c2-c3", 1),
    ("move 2 = 2", "", B_DEFAULT, "c2-c4", 2),
    ("capture adjacent = 2", "", "c3 a6", "c2xc3", 2),
    ("jump own to the square behind = 3", "c3", B_DEFAULT, "c2-c4", 3),
    ("jump own and capture behind = 4", "c3", "c4 a6", "c2xc4", 4),
]
C2_CORNERS = ["C2", "D2", "C3", "D3"]


@pytest.mark.parametrize("name,others,black,turn,cost", COST_CASES, ids=[c[0] for c in COST_CASES])
def test_rulebook_cost_examples(ref, name, others, black, turn, cost):
    """Section 2.1 cost = N + own robots jumped + 1 for a capture; the
    rulebook examples 1, 2, 2, 3, 4."""
    enough = wboard(f"c2 {others}", " ".join(C2_CORNERS[:cost]), black)
    after = legal(ref, enough, turn)
    assert sq("c2") & after.white == frozenset()
    short = wboard(f"c2 {others}", " ".join(C2_CORNERS[: cost - 1]), black)
    illegal(ref, short, turn)


def test_R24_jumping_the_adjacent_own_robot_costs_3_not_the_english_2(ref):
    """R-24: the English translation's "jump over own robot on next space = 2 batteries" is a
    misprint; the German pictures (and the English text's own next example) give 3."""
    from companion.rules.robot_moves import move_cost

    assert move_cost(2, 1, False) == 3 and move_cost(2, 1, True) == 4
    two = wboard("c2 c3", "C2 D2")
    illegal(ref, two, "c2-c4")
    if ref.name == "engine":
        from companion.rules.engine import apply_turn
        from companion.rules.errors import IllegalTurn

        with pytest.raises(IllegalTurn, match="needs 3 energy"):
            apply_turn(two, "c2-c4")
    assert legal(ref, wboard("c2 c3", "C2 D2 C3"), "c2-c4")


def test_cost_jump_two_own_robots_sideways(ref):
    """Section 2.1: every own robot passed over costs +1, also sideways and
    when not adjacent: a1 over b1 (c1 empty) to d1 costs 3 + 1 = 4."""
    pos = board("a1 b1 e1", B_DEFAULT, "A1 B1 A2 B2")
    after = legal(ref, pos, "a1-d1")
    assert after.white == sq("b1", "d1", "e1")
    pos3 = board("a1 b1 e1", B_DEFAULT, "A1 B1 A2")
    illegal(ref, pos3, "a1-d1")
    # two own robots jumped: a1 over b1 and c1 to d1 = 3 + 2 = 5 > 4, never legal
    pos5 = board("a1 b1 c1", B_DEFAULT, "A1 B1 A2 B2")
    illegal(ref, pos5, "a1-d1")


# ---------------------------------------------------------- directions ----

def test_forward_and_sideways_are_legal(ref):
    """Section 2.1: forward (towards rank 6 for White) and sideways."""
    pos = wboard("c2", "C2 D2 C3 D3")
    assert legal(ref, pos, "c2-c3").white == sq("c3", "f1")
    assert legal(ref, pos, "c2-a2").white == sq("a2", "f1")
    assert legal(ref, pos, "c2-e2").white == sq("e2", "f1")


def test_black_moves_towards_rank_1(ref):
    """Section 1: Black's forward is towards rank 1."""
    pos = board("a1 b1", "c5 f6", "C5 D5 C6 D6 G6", "b")
    assert legal(ref, pos, "c5-c4").black == sq("c4", "f6")
    illegal(ref, pos, "c5-c6")


def test_backward_is_illegal(ref):
    pos = wboard("c3", "C3 D3 C4 D4")
    illegal(ref, pos, "c3-c2")


@pytest.mark.parametrize("turn", ["c3-d4", "c3-b4", "c3-d2"])
def test_diagonal_is_illegal(ref, turn):
    """Section 2.1: never diagonal. Interpretation: whether the parser or the
    referee rejects a diagonal move is not specified (section 5 does not list
    it among parse errors, R-13 does not list it among illegal turns), so
    either rejection is accepted."""
    pos = wboard("c3", "C3 D3 C4 D4")
    with pytest.raises((Illegal, NotationError)):
        ref.apply(pos, turn)


def test_no_move_onto_own_robot(ref):
    """Section 2.1: a robot lands on an empty square or an enemy robot."""
    pos = wboard("c2 c3", "C2 D2 C3 D3")
    illegal(ref, pos, "c2-c3")
    illegal(ref, pos, "c2xc3")


def test_cannot_pass_enemy_robot(ref):
    """Section 2.1: never pass over an enemy robot (default profile)."""
    pos = wboard("c2", "C2 D2 C3 D3", black="c3 a6")
    illegal(ref, pos, "c2-c4")


def test_capture_ends_the_move(ref):
    """German rulebook: a capturing robot may not move on in the same turn."""
    pos = wboard("c2", "C2 D2 C3 D3", black="c3 a6")
    assert legal(ref, pos, "c2xc3").black == sq("a6")
    illegal(ref, pos, "c2xc3 c3-c4")


def test_robot_off_board_or_missing(ref):
    pos = wboard("a2", "A2 B2 A3 B3")
    illegal(ref, pos, "c2-c3")  # no robot on c2
    illegal(ref, pos, "a6-a5")  # Black's robot during White's turn


def test_target_row_robot_moves_sideways_and_can_be_captured(ref):
    """Section 2.1: a robot on its target row may still move sideways (it
    cannot move forward: off the board), and can be captured - here by a
    White 'guard' left on White's start row."""
    pos = board("c6 a1 d1", "b1 f5 a4 e4", "C6 D6 C7 G5", "w")
    after = legal(ref, pos, "c6-d6")
    assert after.white == sq("d6", "a1", "d1")
    illegal(ref, pos, "c6-c5")
    # Black b1 stands on Black's target row (1 of 4: not yet a win); White a1
    # (batteries A1 B1), left behind as a guard, captures it sideways
    pos2 = board("a1 d1", "b1 f5 a4 e4", "A1 B1 G5", "w")
    after2 = legal(ref, pos2, "a1xb1")
    assert after2.black == sq("f5", "a4", "e4")


# ----------------------------------------------------------------- energy ----

def test_energy_only_from_the_start_square(ref):
    """Section 2.1: a robot draws only from the four corners of its start
    square; batteries next to the destination or further away do not help."""
    pos = wboard("c2", "C4 D4 C5 D5")  # corners of c3/c4, not of c2
    illegal(ref, pos, "c2-c3")


def test_one_battery_one_point_one_robot(ref):
    """German example: the battery in the centre supplies robot A or B (or C
    or D), not two of them. b2 and c2 share the corner C3 (their only battery)."""
    pos = wboard("b2 c2", "C3")
    legal(ref, pos, "b2-b3")
    legal(ref, pos, "c2-c3")
    illegal(ref, pos, "b2-b3 c2-c3")


def test_sharing_four_batteries_between_two_robots(ref):
    """German example with stones A and B: A (c2) touches four batteries,
    B (d2) two of them. A moves 4 -> B cannot move; B moves 2 -> A at most 2;
    B uses 1 -> A still has 3."""
    pos = wboard("c2 d2", "C2 D2 C3 D3")
    legal(ref, pos, "c2-c6")
    illegal(ref, pos, "c2-c6 d2-d3")
    illegal(ref, pos, "d2-d3 c2-c6")
    legal(ref, pos, "d2-d4 c2-c4")
    illegal(ref, pos, "d2-d4 c2-c5")
    legal(ref, pos, "d2-d3 c2-c5")


def test_energy_is_a_matching_not_a_sum(ref):
    """Section 2.1 (bipartite matching): b2 and d2 each need 2, c2 needs 1;
    there are 5 batteries around them, but b2 can only use B2 B3 C2 C3 and the
    assignment must be distinct. B2+B3 to b2, C2 to c2, E2+E3 to d2 works."""
    pos = wboard("b2 c2 d2", "B2 B3 C2 E2 E3")
    legal(ref, pos, "b2-b4 c2-c3 d2-d4")
    # Three batteries for three robots needing 1 each, but b2 and c2 both
    # depend on C2 alone: the sum is enough, the matching is not.
    pos2 = wboard("b2 c2 d2", "C2 E2 E3")
    legal(ref, pos2, "b2-b3 d2-d3")
    legal(ref, pos2, "c2-c3 d2-d4")
    illegal(ref, pos2, "b2-b3 c2-c3 d2-d3")


def test_energy_ignores_control_by_default(ref):
    """German rulebook: energy may be used whether or not the player controls
    the battery. C3 is controlled by Black (b3, c3 against White c2) and is
    c2's only battery."""
    pos = wboard("c2", "C3", black="b3 c3 a6")
    legal(ref, pos, "c2-d2")


# ------------------------------------------------------- moves in sequence ----

def test_move_into_square_vacated_earlier(ref):
    """Section 2.1: the moves of a turn happen one after another."""
    pos = wboard("b2 c2", "B2 C3 D3")
    after = legal(ref, pos, "c2-c3 b2-c2")
    assert after.white == sq("c3", "c2", "f1")
    illegal(ref, pos, "b2-c2 c2-c3")


def test_jump_robot_that_moved_earlier(ref):
    """Section 2.1 / R-14: c3 moves to c4 (1, from C4), then c2 runs over
    the empty c3 and the moved robot on c4 to c5: 3 + 1 = 4 (C2 D2 C3 D3)."""
    pos = wboard("c2 c3", "C2 D2 C3 D3 C4")
    after = legal(ref, pos, "c3-c4 c2-c5")
    assert after.white == sq("c4", "c5", "f1")


def test_R2_each_robot_moves_at_most_once(ref):
    """R-2: one straight line per robot per turn, even with energy to spare."""
    pos = wboard("c2", "C2 D2 C3 D3")
    legal(ref, pos, "c2-c4")
    illegal(ref, pos, "c2-c3 c3-c4")
    illegal(ref, pos, "c2-c3 c3-d3")


def test_R14_moved_robot_cannot_move_from_another_start_square(ref):
    """R-14: c2 moves to c3; b2 moves into the vacated c2; the robot now on c2
    has moved and cannot move again, although c2 was another robot's start square."""
    pos = wboard("b2 c2", "B2 B3 C2 D2 C3 D3")
    legal(ref, pos, "c2-c3 b2-c2")
    illegal(ref, pos, "c2-c3 b2-c2 c2-d2")


def test_R14_energy_from_own_start_square(ref):
    """R-14: a robot always draws energy at the square it started its own move
    from. b2 has no battery of its own (its corners B2 B3 C2 C3 are empty);
    after c2 leaves, the robot entering c2 still cannot use D2/D3."""
    pos = wboard("b2 c2", "D2 D3")
    legal(ref, pos, "c2-c3")
    illegal(ref, pos, "c2-c3 b2-c2")


# --------------------------------------------------------------- R-13 ----

def test_R13_dash_onto_enemy_is_illegal(ref):
    """R-13: '-' onto an enemy robot is an illegal turn (not a parse error)."""
    pos = wboard("c2", "C2 D2", black="c3 a6")
    illegal(ref, pos, "c2-c3")
    legal(ref, pos, "c2xc3")


def test_R13_x_onto_empty_or_own_is_illegal(ref):
    pos = wboard("c2 d2", "C2 D2 C3 D3")
    illegal(ref, pos, "c2xc3")
    illegal(ref, pos, "c2xd2")


def test_R13_zero_length_move_is_illegal(ref):
    pos = wboard("c3", "C3 D3 C4 D4")
    illegal(ref, pos, "c3-c3")


# ------------------------------------------------- R-12 jump-enemies ----

def test_R12_jump_enemies(ref):
    """R-12: with jump-enemies, passing an enemy costs +1 and it stays on the
    board: c2 over Black c3 to c4 = 2 + 1 = 3."""
    pos3 = wboard("c2", "C2 D2 C3", black="c3 a6")
    illegal(ref, pos3, "c2-c4")
    after = legal(ref, pos3, "c2-c4", ["jump-enemies"])
    assert after.black == sq("c3", "a6") and sq("c4") <= after.white
    pos2 = wboard("c2", "C2 D2", black="c3 a6")
    illegal(ref, pos2, "c2-c4", ["jump-enemies"])


def test_R12_jump_enemy_then_capture(ref):
    """R-12: the move may end by capturing: over Black c3, capture Black c4 =
    2 + 1 + 1 = 4; with 3 batteries it is illegal."""
    pos = wboard("c2", "C2 D2 C3 D3", black="c3 c4 a6")
    after = legal(ref, pos, "c2xc4", ["jump-enemies"])
    assert after.black == sq("c3", "a6")
    illegal(ref, pos, "c2xc4")
    pos3 = wboard("c2", "C2 D2 C3", black="c3 c4 a6")
    illegal(ref, pos3, "c2xc4", ["jump-enemies"])


def test_R12_mixed_jump_costs_both(ref):
    """R-12: own and enemy robots mixed in one jump each cost +1: a1 over
    White b1 and Black c1 to d1 = 3 + 2 = 5, more than any square can supply;
    over Black b1 alone to c1 = 2 + 1 = 3."""
    pos = board("a1 b1", "c1 a6 b6 c6", "A1 B1 A2 B2")
    illegal(ref, pos, "a1-d1", ["jump-enemies"])
    pos2 = board("a1 d1", "b1 a6 b6 c6", "A1 B1 A2")
    after = legal(ref, pos2, "a1-c1", ["jump-enemies"])
    assert after.white == sq("c1", "d1") and after.black == sq("b1", "a6", "b6", "c6")


# ---------------------------------------------- R-9 strength-capture ----

def test_R9_stronger_or_equal_may_capture(ref):
    """R-9 / German variant 2 example: A (strength 4) may capture B (strength
    3), not the other way round. White c2 touches C2 D2 C3 D3 (4), Black c3
    touches C3 D3 C4 (3)."""
    bats = "C2 D2 C3 D3 C4"
    pos_w = board("c2 f1", "c3 a6", f"{bats} G1", "w")
    legal(ref, pos_w, "c2xc3", ["strength-capture"])
    pos_b = board("c2 f1", "c3 a6", f"{bats} G1", "b")
    legal(ref, pos_b, "c3xc2")  # default profile: any capture
    illegal(ref, pos_b, "c3xc2", ["strength-capture"])
    # equal strength (3 against 3) is allowed
    pos_eq = board("c2 f1", "c3 a6", "C2 C3 D3 C4 G1", "b")
    legal(ref, pos_eq, "c3xc2", ["strength-capture"])


def test_R9_attacker_strength_at_start_square(ref):
    """R-9: the attacker's strength is taken on its start square, not next to
    the victim. White c1 (C1 C2 D2 = 3) runs via c2 (C2 D2 C3 D3 = 4) to
    capture Black c3 (C3 D3 C4 D4 = 4): illegal; with D1 too (4): legal."""
    pos = wboard("c1", "C1 C2 D2 C3 D3 C4 D4", black="c3 a6")
    illegal(ref, pos, "c1xc3", ["strength-capture"])
    legal(ref, pos, "c1xc3")
    pos4 = wboard("c1", "C1 D1 C2 D2 C3 D3 C4 D4", black="c3 a6")
    legal(ref, pos4, "c1xc3", ["strength-capture"])


def test_R9_restricts_captures_only(ref):
    """R-9: a weak robot still moves normally (c2 strength 1, next to the
    strength-3 enemy d3)."""
    pos = wboard("c2", "C2 C4 D4 E4 E3", black="d3 a6")
    legal(ref, pos, "c2-c3", ["strength-capture"])
    legal(ref, pos, "c2-b2", ["strength-capture"])


def test_R9_strength_counts_batteries_used_this_turn(ref):
    """R-9: strength counts all batteries on the corners, used or not.
    White b2 (B2 C3) moves 2 and so must spend the shared C3; White c2 (C3 D2
    D3: strength 3) then captures Black c3 (C3 D3 C4: strength 3) with D2 +
    D3. Counting only unspent batteries would make c2 weaker (2) than c3."""
    pos = wboard("b2 c2", "B2 C3 D2 D3 C4 D4", black="c3 a6")
    # with D4 too, c3 has strength 4 > 3: not allowed
    illegal(ref, pos, "c2xc3", ["strength-capture"])
    pos2 = wboard("b2 c2", "B2 C3 D2 D3 C4", black="c3 a6")
    legal(ref, pos2, "c2xc3", ["strength-capture"])
    legal(ref, pos2, "b2-b4 c2xc3", ["strength-capture"])


# --------------------------------------------- R-10 controlled-energy ----

def test_R10_controlled_energy(ref):
    """R-10: with controlled-energy a robot draws only from batteries its
    player controls. C3 (c2's only battery) is Black's (b3, c3 vs c2)."""
    pos = wboard("c2", "C3", black="b3 c3 a6")
    legal(ref, pos, "c2-d2")
    illegal(ref, pos, "c2-d2", ["controlled-energy"])


def test_R10_contested_battery_counts_for_both(ref):
    """R-10: control by the normal rule, so a contested (1 against 1) battery
    supplies energy to both players."""
    pos = wboard("c2", "C3", black="c3 a6")
    legal(ref, pos, "c2-b2", ["controlled-energy"])
    posb = board("c2 f1", "c3 a6", "C3 G1 A6", "b")
    legal(ref, posb, "c3-d3", ["controlled-energy"])


def test_R10_control_judged_at_start_of_turn(ref):
    """R-10: control is judged on the position at the start of the turn.
    d3 captures c3 (energy E3 E4, White's); afterwards White would control C3
    (c2, c3 against b3), but at the start Black did (b3, c3 against c2), so
    c2 cannot draw from C3 this turn."""
    pos = wboard("c2 d3", "C3 E3 E4", black="b3 c3 a6")
    legal(ref, pos, "d3xc3", ["controlled-energy"])
    legal(ref, pos, "d3xc3 c2-d2")
    illegal(ref, pos, "d3xc3 c2-d2", ["controlled-energy"])


# ------------------------------------------- must-capture ----

def test_R7_must_capture_when_adjacent_capture_possible(ref):
    """R-7: with must-capture, a turn without a capture is illegal when a
    capture is available; by default capturing is voluntary."""
    pos = wboard("c2", "C2 D2", black="c3 a6")
    legal(ref, pos, "f1-e1")
    legal(ref, pos, "c2-b2")
    illegal(ref, pos, "f1-e1", ["must-capture"])
    illegal(ref, pos, "c2-b2", ["must-capture"])
    legal(ref, pos, "c2xc3", ["must-capture"])
    legal(ref, pos, "f1-e1 c2xc3", ["must-capture"])


def test_R8_capture_made_possible_by_an_earlier_move(ref):
    """R-8: 'available' includes a capture that an earlier move of the same
    turn makes possible. White c1 (C1 D1 C2 D2) cannot capture Black c4 over
    its own c3 (3 + 1 + 1 = 5); c3 (only D4) cannot capture (needs 2). After
    c3-d3 the capture c1xc4 costs 3 + 1 = 4."""
    pos = board("c1 c3", "c4 a6", "C1 D1 C2 D2 D4", "w")
    illegal(ref, pos, "c1xc4")
    legal(ref, pos, "c3-d3")
    illegal(ref, pos, "c3-d3", ["must-capture"])
    illegal(ref, pos, "c1-c2", ["must-capture"])
    after = legal(ref, pos, "c3-d3 c1xc4", ["must-capture"])
    assert after.black == sq("a6")
    legal(ref, pos, "c3-b3 c1xc4", ["must-capture"])


def test_R8_no_capture_available_without_energy(ref):
    """R-8: a capture needing more energy than available is not available."""
    pos = wboard("c2", "C2", black="c3 a6")
    legal(ref, pos, "c2-b2", ["must-capture"])


def test_R8_respects_other_options(ref):
    """R-8: 'other options respected': a capture forbidden by strength-capture
    is not available, so with both options a quiet move is legal. White c2
    (C2 D3 = 2) next to Black c3 (D3 C4 D4 = 3)."""
    pos = wboard("c2", "C2 D3 C4 D4", black="c3 a6")
    illegal(ref, pos, "c2-b2", ["must-capture"])
    legal(ref, pos, "c2-b2", ["must-capture", "strength-capture"])


def test_R8_capture_needs_the_right_robot_energy(ref):
    """R-8 with controlled-energy: the only capture would use a battery White
    does not control, so it is not available."""
    pos = wboard("c2", "C3 D3", black="b3 c3 d3 a6")
    # C3: c2 vs b3 c3 -> Black; D3: c2 vs c3 d3 -> Black (White has f1 only elsewhere)
    illegal(ref, pos, "f1-e1", ["must-capture"])
    legal(ref, pos, "f1-e1", ["must-capture", "controlled-energy"])
