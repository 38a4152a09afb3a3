"""Arena scoring, the Wilson interval, and the draw rules."""

from __future__ import annotations

import random

import pytest

from companion.rules.engine import status
from companion.rules.geometry import BLACK, WHITE
from companion.hints.arena import (
    ArenaResult,
    GameResult,
    make_player,
    openings,
    play_game,
    run_arena,
    wilson_interval,
)
from companion.rules.position import Position
from companion.rules.options import ORIGINAL


def test_wilson_known_values() -> None:
    lo, hi = wilson_interval(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    lo, hi = wilson_interval(100, 100)
    assert lo == pytest.approx(0.9630, abs=1e-4) and hi == 1.0
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson_interval(190, 200)
    assert lo == pytest.approx(0.9102, abs=1e-3) and hi == pytest.approx(0.9726, abs=1e-3)


def test_wilson_contains_the_estimate_and_narrows() -> None:
    for n in (1, 7, 50, 400):
        for k in range(0, n + 1, max(1, n // 7)):
            lo, hi = wilson_interval(k, n)
            assert 0.0 <= lo <= k / n <= hi <= 1.0
    assert (lambda a, b: a[1] - a[0] > b[1] - b[0])(wilson_interval(30, 40), wilson_interval(300, 400))
    assert wilson_interval(0, 0) == (0.0, 1.0)


def _g(i: int, first_white: bool, winner) -> GameResult:
    return GameResult(i, first_white, winner, 10, "", "")


def test_scoring_counts_colours_and_draws() -> None:
    games = (
        _g(0, True, WHITE),  # first engine won as White
        _g(1, False, WHITE),  # first engine lost as Black
        _g(2, True, None),  # draw
        _g(3, False, BLACK),  # first engine won as Black
    )
    r = ArenaResult("a", "b", games)
    assert (r.wins, r.draws, r.losses) == (2, 1, 1)
    assert r.score == 2.5 and r.fraction == pytest.approx(0.625)
    assert r.interval == wilson_interval(2.5, 4)
    assert "2.5/4 = 62.5%" in r.summary() and "95% CI" in r.summary()


def test_move_cap_is_a_draw() -> None:
    p = make_player("random")
    winner, turns, reason = play_game(p, p, Position.start(), ORIGINAL, random.Random(1), max_turns=2)
    assert winner is None and turns == 2 and "move cap" in reason


def test_repetition_is_a_draw() -> None:
    class Shuffle:
        """Moves one robot sideways and back, to force a repetition."""

        name = "shuffle"

        def choose(self, pos, rules, rng):
            from companion.rules.moves import Turn

            row = 0 if pos.to_move is WHITE else 30
            robots = pos.robots(pos.to_move)
            for src in robots:
                for dst in (src + 1, src - 1):
                    if src // 6 == dst // 6 == row // 6 and 0 <= dst < 36 and dst not in pos.white | pos.black:
                        return Turn.parse(f"{'abcdef'[src % 6]}{src // 6 + 1}-{'abcdef'[dst % 6]}{dst // 6 + 1}")
            raise AssertionError("no shuffle")

    pos = Position.from_string("BBBBB1/6/6/6/6/WWWWW1 7/xxxxxxx/7/7/7/xxxxxxx/7 w")
    winner, turns, reason = play_game(Shuffle(), Shuffle(), pos, ORIGINAL, random.Random(1), max_turns=50)
    assert winner is None and "repeated" in reason and turns < 50


def test_openings_are_open_and_distinct() -> None:
    book = openings(6, seed=3)
    assert book[0] == Position.start()
    assert len(set(book)) == len(book) == 6
    assert all(not status(p).over for p in book)


def test_run_arena_alternates_colours_and_is_complete() -> None:
    r = run_arena("greedy", "random", 4, seed=2, max_turns=20)
    assert r.n == 4
    assert [g.first_is_white for g in r.games] == [True, False, True, False]
    assert r.games[0].opening == r.games[1].opening  # each opening with both colour assignments
    assert r.wins + r.draws + r.losses == 4


def test_unknown_engine_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown engine"):
        make_player("alphazero")


@pytest.mark.parametrize("option", ["stacking", "stack-unsplit"])
def test_players_under_stacking_make_stacks_and_every_turn_is_legal(option):
    """Under ``stacking`` the search plays positions holding stacks, the random
    player makes stacking steps (R-20), and every turn either chooses is legal
    by the engine (play_game applies each one)."""
    import random

    from companion.hints.arena import make_player, play_game
    from companion.rules.engine import apply_turn
    from companion.rules.options import Rules
    from companion.rules.position import Position

    rules = Rules.from_names([option])
    rng = random.Random(4)
    randomly = make_player("random", 1.0, None)
    stacked = Position.start()
    for _ in range(200):
        stacked = apply_turn(Position.start(), randomly.choose(Position.start(), rules, rng), rules)
        if stacked.stacks:
            break
    assert stacked.stacks, "the random player never made a stack"
    record: list[str] = []
    play_game(make_player("search", 60.0, 150), randomly, stacked, rules, rng, max_turns=6, record=record)
    pos = stacked
    for turn in record:
        pos = apply_turn(pos, turn, rules)
    assert len(record) >= 2
