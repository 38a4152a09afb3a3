"""The hint engine: always a legal turn, wins when it can, pure, every rule option."""

from __future__ import annotations

import random
import zlib

import pytest

from companion.rules.engine import apply_turn, status
from companion.rules.geometry import WHITE
from companion.hints import GameOver, GreedyPlayer, RandomPlayer, SearchPlayer, hint
from companion.hints.board import Board, winner_of
from companion.hints.reason import reason_for
from companion.hints.search import SearchLimits, Searcher
from companion.hints.turngen import robot_outcomes, winning_robot_phase
from companion.rules.moves import Turn
from companion.rules.position import Position
from companion.rules.options import ORIGINAL, Rules
from hint_positions import COMPILED_OPTIONS

from hint_positions import RULE_SETS
from hint_positions import random_positions as _random_positions

TINY = 0.02

# White to move; c5-c6 puts a third robot on rank 6 (5 robots: 3 needed).
TARGET_WIN = "WW4/2W3/6/6/4BB/WW4 7/7/2x4/4x2/7/xxxxx2/xxxxxxx w"
# White to move; c3xc4 captures Black's last robot (it costs 2: C3 and D3 touch c3).
CAPTURE_WIN = "6/6/2B3/2W3/6/6 xxxxxxx/7/2x4/7/2xx3/7/xxxx3 w"
# White to move; e4-e5 gives White a share of F6, Black's only battery: moving it away starves f6.
STARVE_WIN = "5B/6/4W1/6/6/6 7/5x1/7/4x2/7/xxxxx2/xxxxxxx w"
# As STARVE_WIN, but Black has a second robot with energy, so starving f6 does not end the game.
STARVE_ONE = "5B/6/4W1/B5/6/6 7/5x1/7/4x2/x6/xxxxx2/xxxxxx1 w"



def random_positions(rules: Rules, count: int, seed: int) -> list[Position]:
    """Open positions reached by random play (the random baseline player's turns)."""
    player = RandomPlayer()
    return _random_positions(rules, count, seed, choose=player.choose)


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: r.name)
def test_hint_is_legal_from_random_positions(rules: Rules) -> None:
    for pos in random_positions(rules, 4, seed=zlib.crc32(rules.name.encode()) % 1000):  # the same positions every run
        h = hint(pos, rules, budget=TINY)
        after = apply_turn(pos, h.turn, rules)  # raises if illegal
        assert after.to_move is pos.to_move.other
        assert not h.fallback, "the search's own turn, not the random fallback"
        assert h.reason
        assert 0.0 <= h.expected <= 1.0


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: r.name)
def test_baselines_are_legal_under_every_option(rules: Rules) -> None:
    rng = random.Random(3)
    for pos in random_positions(rules, 3, seed=11):
        for player in (RandomPlayer(), GreedyPlayer()):
            apply_turn(pos, player.choose(pos, rules, rng), rules)


def test_hint_finds_the_target_row_win() -> None:
    pos = Position.from_string(TARGET_WIN)
    assert not status(pos).over
    h = hint(pos, budget=TINY)
    after = apply_turn(pos, h.turn)
    assert status(after).winner is WHITE
    assert h.outcome == "win"
    assert h.reason.startswith("wins now")


def test_hint_takes_the_capture_that_wins() -> None:
    pos = Position.from_string(CAPTURE_WIN)
    h = hint(pos, budget=TINY)
    assert [str(m) for m in h.turn.robot_moves] == ["c3xc4"]
    assert status(apply_turn(pos, h.turn)).winner is WHITE
    assert h.value_text() == "+inf"


def test_hint_starves_the_last_robot() -> None:
    pos = Position.from_string(STARVE_WIN)
    h = hint(pos, budget=TINY)
    after = apply_turn(pos, h.turn)
    st = status(after)
    assert st.winner is WHITE and "R-18" in st.reason
    assert h.turn.battery_moves, "the win needs a battery move"


def test_reason_names_a_starved_robot() -> None:
    pos = Position.from_string(STARVE_ONE)
    turn = Turn.parse("e4-e5 F6-F5")
    after = apply_turn(pos, turn)
    assert not status(after).over
    assert reason_for(pos, turn, after, ORIGINAL, 0.0) == "cuts Black's robot f6 off from energy"


def test_reason_names_a_capture() -> None:
    pos = Position.from_string("6/B5/2B3/2W3/6/6 xxxxxxx/7/x1x4/7/2xx3/7/xxx4 w")
    turn = Turn.parse("c3xc4")
    after = apply_turn(pos, turn)
    assert not status(after).over
    assert reason_for(pos, turn, after, ORIGINAL, 0.0).startswith("captures c4")


def test_hint_is_pure() -> None:
    pos = Position.start()
    text = pos.to_string()
    h1 = hint(pos, budget=TINY)
    assert pos.to_string() == text
    apply_turn(pos, h1.turn)


def test_hint_refuses_a_decided_position() -> None:
    pos = Position.from_string("WWW3/6/6/6/6/BBB3 7/xxxxxxx/7/7/7/xxxxxxx/7 b")
    assert status(pos).over
    with pytest.raises(GameOver):
        hint(pos, budget=TINY)


def test_must_capture_hint_captures() -> None:
    rules = Rules.from_names(["must-capture"])
    pos = Position.from_string("6/B5/2B3/2W3/6/6 xxxxxxx/7/x1x4/7/2xx3/7/xxx4 w")
    h = hint(pos, rules, budget=TINY)
    assert any(m.capture for m in h.turn.robot_moves)
    for o in robot_outcomes(Board.of(pos), rules)[0]:
        assert o.enemy != Board.of(pos).enemy


def test_robot_outcomes_match_the_engine_count() -> None:
    outs, complete = robot_outcomes(Board.of(Position.start()), ORIGINAL)
    assert complete and len(outs) == 2524
    pos = Position.start()
    for o in outs[:200]:
        turn = Turn(tuple(__import__("companion.rules.moves", fromlist=["RobotMove"]).RobotMove(s.src, s.dst, s.capture) for s in o.steps))
        apply_turn(pos, turn)


def test_winning_robot_phase_only_when_it_wins() -> None:
    assert winning_robot_phase(Board.of(Position.start()), ORIGINAL) is None
    w = winning_robot_phase(Board.of(Position.from_string(TARGET_WIN)), ORIGINAL)
    assert w is not None


def test_search_sees_the_opponents_win_coming() -> None:
    """Black's e2 and f2 each reach rank 1 next turn (2 robots: 1 needed) on
    batteries White cannot win control of, and White has no win itself: every
    White turn loses, and a depth-2 search must say so."""
    pos = Position.from_string("6/6/6/6/4BB/WW4 xxxxxxx/xxx4/7/7/4x1x/xx5/7 w")
    assert not status(pos).over
    searcher = Searcher(ORIGINAL, SearchLimits())
    best, value = searcher.search(Board.of(pos), 2.0)
    assert searcher.stats.depth >= 2
    # Black wins next turn whatever White does here: the value says so.
    assert value <= -1e6


def test_winner_of_matches_status() -> None:
    for rules in (ORIGINAL, Rules.from_names(COMPILED_OPTIONS)):
        for pos in random_positions(rules, 6, seed=5):
            w = winner_of(Board.of(pos), rules)
            assert w == status(pos, rules).winner


def test_search_player_plays_a_legal_game_fragment() -> None:
    rng = random.Random(2)
    pos = Position.start()
    player = SearchPlayer(TINY)
    for _ in range(4):
        if status(pos).over:
            break
        pos = apply_turn(pos, player.choose(pos, ORIGINAL, rng))
    assert player.last_stats is not None
