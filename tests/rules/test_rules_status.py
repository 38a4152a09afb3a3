"""Winning and game status (docs/rules.md, section 3, R-1, R-5, R-6, R-15, R-16,
R-18), against the engine and the naive oracle.

``status`` is judged on a position whose side to move is the player about to
move; the player who just moved is the other one.
"""

from __future__ import annotations

import math

import pytest

import naive
from referees import Illegal, board
from companion.rules.geometry import BLACK, WHITE
from companion.rules.position import Position

# Black, not winning and able to move (b6 touches B6 C6)
B_IDLE = "a6 b6 c6 d6 e6 f6"
B_IDLE_BATS = "B6 C6"


def white_files(n_target: int, n_other: int) -> str:
    """White robots: n_target on rank 6 (files a, b, ...), the rest on rank 2."""
    files = "abcdef"
    return " ".join([f"{files[i]}6" for i in range(n_target)] + [f"{files[i]}2" for i in range(n_other)])


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_target_row_needs_ceil_half(ref, n):
    """Section 3: with n robots, at least ceil(n/2) on the target row wins
    (5 or 6: 3; 3 or 4: 2; 1 or 2: 1); one fewer does not. White just moved
    (Black to move, able to move: its robots on rank 4 touch B4 C4)."""
    need = math.ceil(n / 2)
    assert need == {1: 1, 2: 1, 3: 2, 4: 2, 5: 3, 6: 3}[n]
    black = "a4 b4 c4 d4 e4 f4"
    win = board(white_files(need, n - need), black, "B4 C4", "b")
    assert ref.result(win) == "white wins"
    short = board(white_files(need - 1, n - need + 1), black, "B4 C4 A2 B2", "b")
    assert ref.result(short) == "ongoing"


def test_black_target_row_is_rank_1(ref):
    """Section 3: Black's target row is rank 1 (3 of 6 there wins)."""
    pos = board("a3 b3 c3 d3 e3 f3", "a1 b1 c1 d5 e5 f5", "A3 B3", "w")
    assert ref.result(pos) == "black wins"
    pos2 = board("a3 b3 c3 d3 e3 f3", "a1 b1 c5 d5 e5 f5", "A3 B3", "w")
    assert ref.result(pos2) == "ongoing"
    # Black robots on rank 6 (their start row) count for nothing
    pos3 = board("a3 b3 c3 d3 e3 f3", "a6 b6 c6 d5 e5 f5", "A3 B3", "w")
    assert ref.result(pos3) == "ongoing"


def test_capture_all_wins(ref):
    """Section 3: capturing all enemy robots wins; a player with no robots has
    lost, whoever is to move."""
    pos = board("c2", "", "C2 D2", "b")
    assert ref.result(pos) == "white wins"
    pos_w = board("c2", "", "C2 D2", "w")
    assert ref.result(pos_w) == "white wins"
    pos_b = board("", "c5", "C5 D5", "w")
    assert ref.result(pos_b) == "black wins"


def test_capture_all_by_applying_a_turn(ref):
    """Section 3: the capture of the last enemy robot ends the game."""
    pos = board("c2 a1", "c3", "C2 D2", "w")
    after = ref.apply(pos, "c2xc3")
    assert after.black == frozenset()
    assert ref.result(after) == "white wins"


def test_R5_victim_wins_by_being_captured(ref):
    """R-5 / rulebook hint: A (White) has 5 robots, 2 already on the target
    row; B (Black) captures one of the other three; now 2 of 4 are there and
    White wins, at the end of Black's turn."""
    pos = board("a6 b6 c2 d3 e2", "d4 a4 f4", "D4 E4 D5 E5 A5", "b")
    assert ref.result(pos) == "ongoing"
    after = ref.apply(pos, "d4xd3")
    assert len(after.white) == 4
    assert ref.result(after) == "white wins"


def test_R5_both_meet_target_row_player_who_moved_wins(ref):
    """R-5 / R-15: if both players meet the target-row condition at once, the
    player who just moved wins."""
    white = "a6 b6 c6 a3 b3 c3"
    black = "d1 e1 f1 d4 e4 f4"
    bats = "A3 B3 D4 E4"
    assert ref.result(board(white, black, bats, "b")) == "white wins"  # White just moved
    assert ref.result(board(white, black, bats, "w")) == "black wins"  # Black just moved


def test_R5_both_meet_after_a_turn(ref):
    """R-5 applied to a played turn: White moves its third robot to rank 6
    (c5-c6) and captures d4 (d3xd4), which completes Black's condition too
    (2 of 4 on rank 1). Both meet it: White, who just moved, wins."""
    pos = board("a6 b6 c5 d3 a2 b2", "d1 e1 d4 e4 f4", "C5 D3 E3", "w")
    assert ref.result(pos) == "ongoing"
    after = ref.apply(pos, "c5-c6 d3xd4")
    assert naive.meets_target_row(after.black, BLACK)
    assert naive.meets_target_row(after.white, WHITE)
    assert ref.result(after) == "white wins"
    # without the third robot on rank 6 the capture hands Black the win
    after2 = ref.apply(pos, "d3xd4")
    assert ref.result(after2) == "black wins"


def test_R6_no_turn_in_a_finished_game(ref):
    """R-6: a position where the player to move has already won or lost is
    terminal: no further turn is accepted."""
    won = board("a6 b6 c6 a2 b2 c2", "d5 e5 f5", "A2 B2 D5 E5", "b")  # White has 3 of 6 on rank 6
    assert ref.result(won) == "white wins"
    with pytest.raises(Illegal):
        ref.apply(won, "d5-d4")
    lost = board("c2", "", "C2 D2", "w")
    with pytest.raises(Illegal):
        ref.apply(lost, "c2-c3")


def test_R15_zero_robots_never_meet_target_row(ref):
    """R-15: a player with 0 robots never meets the target-row rule (0 >=
    ceil(0/2) would be vacuous): Black just captured White's last robot, Black wins."""
    pos = board("", "c4 d4", "C4 D4", "w")
    assert ref.result(pos) == "black wins"


def test_R15_target_row_before_no_legal_move(ref):
    """R-15: only if nobody has won on the board is the no-legal-move rule
    applied. White just captured a Black robot; Black (to move) has no
    energy at all, but the capture completed Black's target row (2 of 4 on
    rank 1): Black wins, not White."""
    pos = board("a3 c2 d3", "b3 b1 c1 f4 e5", "A3 A4", "w")
    # a3 (A3 A4) captures b3 sideways (cost 2). Black had 2 of 5 on rank 1.
    assert ref.result(pos) == "ongoing"
    after = ref.apply(pos, "a3xb3")
    assert len(after.black) == 4
    assert naive.robot_phase(after, frozenset()) == {}  # Black cannot move at all
    assert ref.result(after) == "black wins"


def test_R18_no_energy_loses(ref):
    """R-18: a player who, at the start of their turn, cannot make any legal
    robot move (no energy) has lost: the player who just moved wins."""
    pos = board("a2 b2 c2", "a5 b5 c5", "A2 B2", "b")  # no battery touches a Black robot
    assert ref.result(pos) == "white wins"
    pos_w = board("a2 b2 c2", "a5 b5 c5", "A5 B5", "w")
    assert ref.result(pos_w) == "black wins"


def test_R18_every_move_blocked_loses(ref):
    """R-18: energy, but every move blocked. Black a2 (1 battery: A2): forward
    a1 is a White robot (capture costs 2), right b2 is a White robot (capture
    costs 2), left is the edge."""
    pos = board("a1 b2 c3", "a2", "A2", "b")
    assert ref.result(pos) == "white wins"
    # with 2 batteries Black can capture: ongoing
    pos2 = board("a1 b2 c3", "a2", "A2 B3", "b")
    assert ref.result(pos2) == "ongoing"


def test_R18_judged_with_the_games_options(ref):
    """R-18 / R-15 'with the game's options': Black a2 (A2 B3: strength and
    energy 2) can capture a1 or b2 by default, but under strength-capture
    both White robots are stronger (a1: A1 B1 A2 = 3; b2: C2 B3 C3 = 3) and
    Black has no legal move (forward and right blocked, left the edge)."""
    pos = board("a1 b2 d3", "a2", "A1 B1 A2 B3 C2 C3", "b")
    assert ref.result(pos) == "ongoing"
    assert ref.result(pos, ["strength-capture"]) == "white wins"
    assert ref.result(pos, ["jump-enemies"]) == "ongoing"
    assert ref.result(pos, ["strength-capture", "jump-enemies"]) == "white wins"


def test_R18_controlled_energy(ref):
    """R-18 with controlled-energy: Black c4's batteries C4, D4 are both
    White-controlled (2 White robots against 1 around each), so Black cannot
    move under that option, though it can by default."""
    pos = board("b3 c3 d3 b4 d4 a1", "c4", "C4 D4", "b")
    assert ref.result(pos) == "ongoing"
    assert ref.result(pos, ["controlled-energy"]) == "white wins"


def test_R1_either_side_may_start():
    """R-1: who starts is configurable, default White."""
    assert Position.start().to_move is WHITE
    assert Position.start(BLACK).to_move is BLACK
    assert str(Position.start(BLACK)).endswith(" b")


def test_R1_black_may_start(ref):
    pos = Position.start(BLACK)
    after = ref.apply(pos, "a6-a5 B6-B7")
    assert after.to_move is WHITE
    assert ref.result(pos) == "ongoing"


def test_start_position_is_ongoing(ref):
    assert ref.result(Position.start()) == "ongoing"


def test_R16_outcomes_do_not_ask_whether_the_game_is_over(ref):
    """R-16: outcome sets are pure move generation, counted even when the
    game is over (here White has already won, Black to move)."""
    won = board("a6 b6 c6 a2 b2 c2", "d5 e5 f5", "A2 B2 D5 E5", "b")
    assert ref.result(won) == "white wins"
    robots = ref.robot_outcomes(won)
    assert robots == naive.robot_outcomes(won)
    assert len(robots) > 0
    batteries = ref.battery_outcomes(won)
    assert won.batteries in batteries and len(batteries) > 1


# ------------------------------------------------- random synthetic boards ----

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from referees import EngineReferee  # noqa: E402


@st.composite
def synthetic_positions(draw):
    """Any valid position (not necessarily reachable): 0-6 robots a side
    anywhere, 14 batteries anywhere, either side to move."""
    squares = draw(st.lists(st.integers(0, 35), unique=True, max_size=12))
    n_white = draw(st.integers(0, min(6, len(squares))))
    white = frozenset(squares[:n_white])
    black = frozenset(squares[n_white:n_white + 6])
    bats = frozenset(draw(st.lists(st.integers(0, 48), unique=True, min_size=14, max_size=14)))
    side = draw(st.sampled_from([WHITE, BLACK]))
    return Position(white, black, bats, side)


@settings(max_examples=150, deadline=None)
@given(synthetic_positions(), st.sampled_from([(), *[(o,) for o in naive.OPTIONS]]))
def test_status_and_robot_outcomes_agree_with_naive_on_any_board(pos, options):
    """Section 3, R-5, R-15, R-18 (and R-16 robot outcomes) on arbitrary
    valid boards: the engine's status and robot-phase outcomes equal the
    naive oracle's."""
    eng = EngineReferee()
    assert eng.result(pos, options) == naive.status(pos, options).result, str(pos)
    assert eng.robot_outcomes(pos, options) == naive.robot_outcomes(pos, options), str(pos)
