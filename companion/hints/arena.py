"""The arena: engines play each other, and the score gets a 95% confidence interval.

Games alternate colours (game 0: the first engine plays White, game 1:
Black, ...) and cycle through a fixed set of openings: the start position
and positions reached by two random turns from it (seeded, so every run
with the same seed plays the same openings; each opening is played once
with each colour assignment).  A game ends by the rules (section 3, R-15,
R-18), or as a draw at the move cap or at the third repetition of a
position (the draw rule for endless games).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Callable

from ..rules.engine import apply_turn, status
from ..rules.geometry import BLACK, WHITE, Color
from ..rules.position import Position
from ..rules.options import ORIGINAL, Rules
from .players import DEFAULT_BUDGET, GreedyPlayer, Player, RandomPlayer, SearchPlayer

ENGINES = ("random", "greedy", "search")
DEFAULT_MAX_TURNS = 200
"""Move cap: a game still open after this many turns (both sides together) is a draw."""
REPETITIONS = 3
"""The same position (side to move included) for the third time: a draw."""
Z95 = 1.959963984540054


def make_player(name: str, budget: float = DEFAULT_BUDGET, nodes: int | None = None) -> Player:
    if name == "random":
        return RandomPlayer()
    if name == "greedy":
        return GreedyPlayer()
    if name == "search":
        return SearchPlayer(budget, nodes=nodes)
    raise ValueError(f"unknown engine {name!r}: expected one of {', '.join(ENGINES)}")


def wilson_interval(score: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion ``score`` (draws count half) over ``n`` games."""
    if n <= 0:
        return 0.0, 1.0
    p = min(max(score / n, 0.0), 1.0)
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    lo = 0.0 if p == 0.0 else max(0.0, centre - half)  # exact ends: no rounding past the estimate
    hi = 1.0 if p == 1.0 else min(1.0, centre + half)
    return lo, hi


@dataclass(frozen=True)
class GameResult:
    index: int
    first_is_white: bool
    winner: Color | None  # None: a draw
    turns: int
    reason: str
    opening: str
    turns_played: tuple[str, ...] = ()  # the game's turns in order (turn strings)

    @property
    def first_score(self) -> float:
        """The first engine's points in this game: 1 win, 1/2 draw, 0 loss."""
        if self.winner is None:
            return 0.5
        first_color = WHITE if self.first_is_white else BLACK
        return 1.0 if self.winner is first_color else 0.0


@dataclass(frozen=True)
class ArenaResult:
    first: str
    second: str
    games: tuple[GameResult, ...]

    @property
    def n(self) -> int:
        return len(self.games)

    @property
    def wins(self) -> int:
        return sum(1 for g in self.games if g.first_score == 1.0)

    @property
    def draws(self) -> int:
        return sum(1 for g in self.games if g.winner is None)

    @property
    def losses(self) -> int:
        return sum(1 for g in self.games if g.first_score == 0.0)

    @property
    def score(self) -> float:
        return sum(g.first_score for g in self.games)

    @property
    def fraction(self) -> float:
        return self.score / self.n if self.n else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.score, self.n)

    def summary(self) -> str:
        lo, hi = self.interval
        return (
            f"{self.first} vs {self.second}: {self.score:g}/{self.n} = {100 * self.fraction:.1f}% "
            f"(+{self.wins} ={self.draws} -{self.losses}), 95% CI [{100 * lo:.1f}%, {100 * hi:.1f}%]"
        )


def openings(count: int, seed: int, rules: Rules = ORIGINAL, plies: int = 2) -> list[Position]:
    """The start position and ``count - 1`` positions after ``plies`` random turns (seeded, all open)."""
    out = [Position.start()]
    rng = random.Random(seed)
    player = RandomPlayer()
    attempts = 0
    while len(out) < count and attempts < count * 20:
        attempts += 1
        pos = Position.start()
        for _ in range(plies):
            pos = apply_turn(pos, player.choose(pos, rules, rng), rules)
            if status(pos, rules).over:
                break
        if not status(pos, rules).over and pos not in out:
            out.append(pos)
    return out


def play_game(
    white: Player,
    black: Player,
    start: Position,
    rules: Rules,
    rng: random.Random,
    *,
    max_turns: int = DEFAULT_MAX_TURNS,
    record: list[str] | None = None,
) -> tuple[Color | None, int, str]:
    """Play one game; returns (winner or None for a draw, turns played, reason).

    ``record``, if given, receives the turn strings in order.
    """
    pos = start
    seen: dict[Position, int] = {pos: 1}
    turns = 0
    while True:
        st = status(pos, rules)
        if st.over:
            return st.winner, turns, st.reason
        if turns >= max_turns:
            return None, turns, f"move cap of {max_turns} turns reached"
        player = white if pos.to_move is WHITE else black
        turn = player.choose(pos, rules, rng)
        pos = apply_turn(pos, turn, rules)
        if record is not None:
            record.append(str(turn))
        turns += 1
        seen[pos] = seen.get(pos, 0) + 1
        if seen[pos] >= REPETITIONS:
            return None, turns, f"position repeated {REPETITIONS} times"


def _play_indexed(args) -> GameResult:
    first, second, index, opening, rules, budget, seed, max_turns, nodes = args
    first_is_white = index % 2 == 0
    a, b = make_player(first, budget, nodes), make_player(second, budget, nodes)
    white, black = (a, b) if first_is_white else (b, a)
    rng = random.Random(seed * 1_000_003 + index)
    record: list[str] = []
    winner, turns, reason = play_game(white, black, opening, rules, rng, max_turns=max_turns, record=record)
    return GameResult(index, first_is_white, winner, turns, reason, opening.to_string(), tuple(record))


def run_arena(
    first: str,
    second: str,
    games: int,
    *,
    rules: Rules = ORIGINAL,
    budget: float = DEFAULT_BUDGET,
    seed: int = 1,
    max_turns: int = DEFAULT_MAX_TURNS,
    jobs: int = 1,
    nodes: int | None = None,
    progress: Callable[[GameResult], None] | None = None,
) -> ArenaResult:
    """Play ``games`` games of ``first`` against ``second`` (colours alternating).

    ``nodes`` caps the search engine's board evaluations per turn on top of
    ``budget`` (a load-independent budget for experiments).
    """
    for name in (first, second):
        make_player(name, budget)
    book = openings(max(1, (games + 1) // 2), seed, rules)
    tasks = [(first, second, i, book[(i // 2) % len(book)], rules, budget, seed, max_turns, nodes) for i in range(games)]
    results: list[GameResult] = []
    if jobs > 1 and games > 1:
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            for r in pool.imap_unordered(_play_indexed, tasks):
                results.append(r)
                if progress:
                    progress(r)
    else:
        for t in tasks:
            r = _play_indexed(t)
            results.append(r)
            if progress:
                progress(r)
    results.sort(key=lambda r: r.index)
    return ArenaResult(first, second, tuple(results))
