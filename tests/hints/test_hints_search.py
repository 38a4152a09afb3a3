"""Search internals: the evaluation caches, replaying a turn on another board,
beam-grown robot phases, killer replies, the node budget."""

from __future__ import annotations

import random

import pytest

from companion.rules.engine import apply_turn, robot_phase_outcomes, status
from companion.rules.geometry import BLACK, WHITE
from companion.hints import evaluate as ev
from companion.hints.board import Board
from companion.hints.search import SearchLimits, Searcher, value_after
from companion.hints.turngen import grown_robot_phases, make_turn, replay, robot_outcomes
from companion.rules.position import Position
from companion.rules.options import ORIGINAL, Rules
from hint_positions import COMPILED_OPTIONS

from hint_positions import RULE_SETS, random_positions




def _random_masks(rng: random.Random):
    sq = rng.sample(range(36), rng.randrange(2, 13))
    k = rng.randrange(1, len(sq))
    own = sum(1 << x for x in sq[:k])
    enemy = sum(1 << x for x in sq[k:])
    bats = sum(1 << x for x in rng.sample(range(49), 14))
    return own, enemy, bats


@pytest.mark.parametrize("rules", [ORIGINAL, Rules.from_names(["jump-enemies"]), Rules.from_names(["strength-capture"]), Rules.from_names(COMPILED_OPTIONS)], ids=lambda r: r.name)
def test_cached_evaluation_equals_the_uncached_one(rules: Rules) -> None:
    """The caches key on the batteries touching a side's robots: a placement that
    differs elsewhere must give the same score, and every score equals a fresh one."""
    rng = random.Random(7)
    for _ in range(1500):
        own, enemy, bats = _random_masks(rng)
        color = rng.choice([WHITE, BLACK])
        assert ev.side_score(own, enemy, bats, color, rules) == ev._side_score(own, enemy, bats, color, rules)
        assert ev.capture_threats(own, enemy, bats, color, rules) == ev._capture_threats(own, enemy, bats, color, rules)


def test_replay_accepts_exactly_the_legal_turns() -> None:
    """A turn replayed on the board it was generated for gives the engine's result;
    on another board, replay accepts it exactly when apply_turn does."""
    rng = random.Random(5)
    for rules in RULE_SETS:
        positions = random_positions(rules, 3, seed=17)
        for pos, other in zip(positions, positions[1:] + positions[:1]):
            board = Board.of(pos)
            outs, _ = robot_outcomes(board, rules, max_moves=2, max_states=1500)
            for o in rng.sample(outs, min(3, len(outs))):
                turn = make_turn(o.steps)
                r = replay(board, rules, o.steps, ())
                assert r is not None and (r[0], r[1]) == (o.own, o.enemy)
                after = apply_turn(pos, turn, rules)
                assert Board.of(after).swapped() == Board(r[0], r[1], r[2], pos.to_move)
                if other.to_move is pos.to_move and not status(other, rules).over:
                    legal = True
                    try:
                        apply_turn(other, turn, rules)
                    except Exception:
                        legal = False
                    assert (replay(Board.of(other), rules, o.steps, ()) is not None) == legal


def test_replay_checks_battery_moves() -> None:
    pos = Position.start()
    board = Board.of(pos)
    steps = robot_outcomes(board, ORIGINAL, max_moves=1)[0][0].steps
    (own, enemy, bats) = replay(board, ORIGINAL, steps, ())
    # B2 -> B3 is legal for White (robots on rank 1 control row-2 points); B6 -> B5 is Black's battery
    b2, b3, b6, b5 = 8, 15, 36, 29
    ok = replay(board, ORIGINAL, steps, ((b2, b3),))
    assert ok is not None and ok[2] == (bats & ~(1 << b2)) | (1 << b3)
    assert replay(board, ORIGINAL, steps, ((b6, b5),)) is None
    assert replay(board, ORIGINAL, steps, ((b2, b3), (b3, 22))) is None  # each battery once


def test_grown_phases_are_legal_outcomes_with_many_robots() -> None:
    board = Board.of(Position.start())
    grown = grown_robot_phases(board, ORIGINAL, lambda own, enemy: value_after(own, enemy, board.bats, WHITE, ORIGINAL), beam=2)
    exact = robot_phase_outcomes(Position.start())
    assert max(len(steps) for _, steps in grown.values()) == 6  # all six robots forward
    for (own, enemy), (_, steps) in grown.items():
        white = frozenset(i for i in range(36) if own >> i & 1)
        black = frozenset(i for i in range(36) if enemy >> i & 1)
        assert (white, black) in exact
        apply_turn(Position.start(), make_turn(steps))


@pytest.mark.parametrize("rules", [ORIGINAL, Rules.from_names(["must-capture"]), Rules.from_names(COMPILED_OPTIONS)], ids=lambda r: r.name)
def test_search_variants_give_legal_turns(rules: Rules) -> None:
    for limits in (SearchLimits(killers=2, inner_beam=3, inner_moves=1), SearchLimits(reply_plies=1, killers=1)):
        for pos in random_positions(rules, 2, seed=23):
            s = Searcher(rules, limits)
            best, _ = s.search(Board.of(pos), 5.0, nodes=2500)
            apply_turn(pos, make_turn(best.robots.steps, best.battery.moves), rules)


def test_node_budget_makes_the_search_repeatable() -> None:
    pos = Position.from_string("6/BBBB1B/6/3WW1/W1WW1W/6 7/xxxxxxx/7/7/3xxx1/1xxx2x/7 b")
    runs = []
    for _ in range(2):
        s = Searcher(ORIGINAL)
        best, value = s.search(Board.of(pos), 60.0, nodes=6000)
        runs.append((str(make_turn(best.robots.steps, best.battery.moves)), value, s.stats.depth, s.stats.nodes))
        assert s.stats.nodes < 6000 + 5000  # stops at the first expansion past the limit
    assert runs[0] == runs[1]
