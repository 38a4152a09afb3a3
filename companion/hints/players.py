"""Players: ``random`` and ``greedy`` baselines and the ``search`` engine, plus :func:`hint`.

Every player's ``choose`` returns a turn that :func:`companion.rules.engine.apply_turn`
accepted on the given position (checked before returning); none of them
changes anything (positions are immutable).
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from typing import Protocol

from ..rules.masks import POINTS
from ..rules.control import movable_batteries
from ..rules.engine import apply_turn, random_battery_moves, random_turn, status
from ..rules.errors import IllegalTurn
from ..rules.moves import Turn
from ..rules.position import Position
from ..rules.options import ORIGINAL, Rules
from .board import WIN, Board
from .reason import reason_for
from . import jit as _jit
from .search import Candidate, SearchLimits, Searcher, SearchStats, candidates
from .turngen import make_turn, robot_outcomes

DEFAULT_BUDGET = 1.0
"""Seconds per hint (the issue's default budget on a Pi)."""


class GameOver(Exception):
    """The position is decided (R-6): there is no turn to hint."""


class Player(Protocol):
    name: str

    def choose(self, pos: Position, rules: Rules, rng: random.Random) -> Turn: ...


def _verified(pos: Position, turn: Turn, rules: Rules) -> bool:
    try:
        apply_turn(pos, turn, rules)
    except IllegalTurn:
        return False
    return True


def _fallback(pos: Position, rules: Rules, rng: random.Random) -> Turn:
    """A legal turn by the engine's random walk (only used if generation ever disagreed with the rules)."""
    for _ in range(50):
        t = random_turn(pos, rng, rules)
        if _verified(pos, t, rules):
            return t
    raise IllegalTurn(f"no legal turn found for {pos.to_move.label}")  # pragma: no cover


def _check_open(pos: Position, rules: Rules) -> None:
    st = status(pos, rules)
    if st.over:
        raise GameOver(f"the game is over: {st.result} ({st.reason})")


class RandomPlayer:
    """Uniform over robot-phase outcomes (R-16), then a random walk of battery moves.

    Each distinct robot placement is equally likely (``random_turn``'s walk
    strongly favours short phases); the battery phase adds each further move
    with probability 1/2, uniform over the battery moves then legal.
    """

    name = "random"

    def choose(self, pos: Position, rules: Rules, rng: random.Random) -> Turn:
        _check_open(pos, rules)
        board = Board.of(pos)
        outcomes, _ = robot_outcomes(board, rules, max_states=60000)
        if outcomes:
            o = outcomes[rng.randrange(len(outcomes))]
            movable = movable_batteries(o.own, o.enemy, board.bats & POINTS, rules)
            moves = [(m.src, m.dst) for m in random_battery_moves(board.bats, movable, rules, rng, stop=0.5)]
            turn = make_turn(o.steps, tuple(moves))
            if _verified(pos, turn, rules):
                return turn
        return _fallback(pos, rules, rng)


def _first_legal(pos: Position, rules: Rules, cands: list[Candidate], rng: random.Random) -> tuple[Turn, Candidate | None]:
    for c in cands:
        turn = make_turn(c.robots.steps, c.battery.moves)
        if _verified(pos, turn, rules):
            return turn, c
    return _fallback(pos, rules, rng), None


def _try_compiled(jit: bool | None) -> bool:
    """Whether to use the compiled core: it is available and ``jit`` is True (insist) or None
    (once ``netzwerk run``'s background warm-up is done; never False)."""
    return (jit is True or (jit is None and not _jit.warming())) and _jit.available()


def make_searcher(rules: Rules, limits: SearchLimits | None = None, jit: bool | None = None):
    """The searcher to use: the compiled core's (:class:`~.fastsearch.FastSearcher`) when it is
    available and ``jit`` is not False, else the Python :class:`~.search.Searcher`.  Both
    search the same tree; ``jit=True`` insists on the compiled one.  While ``netzwerk run``'s
    background warm-up is still compiling the core, the Python searcher is used (no stall)."""
    if _try_compiled(jit):
        from .fastsearch import FastSearcher

        try:
            return FastSearcher(rules, limits)  # loads (or compiles) the core once, before any search
        except Exception:
            if jit:
                raise
            return Searcher(rules, limits)
    if jit:
        raise RuntimeError(f"the compiled search is not available: {_jit.why_not()}")
    return Searcher(rules, limits)


def root_candidates(board: Board, rules: Rules, limits: SearchLimits, jit: bool | None = None) -> list[Candidate]:
    """:func:`.search.candidates` at the root, from the compiled core when available (same list)."""
    if _try_compiled(jit):
        from .fastsearch import fast_candidates

        try:
            return fast_candidates(board, rules, root=True, limits=limits)
        except Exception:
            if jit:
                raise
    return candidates(board, rules, root=True, limits=limits)


class GreedyPlayer:
    """One-turn lookahead: the candidate turn whose resulting board evaluates best.

    The candidates (and so the play) are the same with and without the
    compiled core; it only makes greedy faster."""

    name = "greedy"

    def __init__(self, limits: SearchLimits | None = None, jit: bool | None = None) -> None:
        self.limits = limits or SearchLimits()
        self.jit = jit

    def choose(self, pos: Position, rules: Rules, rng: random.Random) -> Turn:
        _check_open(pos, rules)
        cands = root_candidates(Board.of(pos), rules, self.limits, self.jit)
        best = [c for c in cands if c.value == cands[0].value] if cands else []
        rng.shuffle(best)
        return _first_legal(pos, rules, best + cands, rng)[0]


class SearchPlayer:
    """Iterative-deepening alpha-beta within ``budget`` seconds per turn."""

    name = "search"

    def __init__(
        self, budget: float = DEFAULT_BUDGET, limits: SearchLimits | None = None, nodes: int | None = None, jit: bool | None = None
    ) -> None:
        self.budget = budget
        self.limits = limits
        self.nodes = nodes
        self.jit = jit
        self.last_stats: SearchStats | None = None

    def choose(self, pos: Position, rules: Rules, rng: random.Random) -> Turn:
        return hint(pos, rules, budget=self.budget, limits=self.limits, rng=rng, nodes=self.nodes, jit=self.jit, _player=self).turn


@dataclass(frozen=True)
class Hint:
    turn: Turn
    value: float  # for the side to move; ±WIN means a forced win / loss was seen
    expected: float  # the value as an expected score in [0, 1]
    reason: str
    depth: int  # turns searched ahead
    nodes: int
    elapsed: float
    fallback: bool = False  # True if the search failed and a random legal turn was given instead

    @property
    def outcome(self) -> str | None:
        if self.value >= WIN:
            return "win"
        if self.value <= -WIN:
            return "loss"
        return None

    def value_text(self) -> str:
        if self.value >= WIN:
            return "+inf"
        if self.value <= -WIN:
            return "-inf"
        return f"{self.value:+.1f}"


def expected_score(value: float) -> float:
    """Map an evaluation to an expected score (logistic; ±WIN -> 1 / 0)."""
    if value >= WIN:
        return 1.0
    if value <= -WIN:
        return 0.0
    return 1.0 / (1.0 + math.exp(-value / 60.0))


def hint(
    pos: Position,
    rules: Rules = ORIGINAL,
    *,
    budget: float = DEFAULT_BUDGET,
    limits: SearchLimits | None = None,
    rng: random.Random | None = None,
    nodes: int | None = None,
    jit: bool | None = None,
    _player: SearchPlayer | None = None,
) -> Hint:
    """The search's best turn for the side to move, with its value and a one-line reason.

    A pure function of its arguments (up to the time budget): nothing is
    changed.  ``nodes`` optionally caps the board evaluations as well (a
    load-independent budget for experiments).  Raises :class:`GameOver` for a decided position (R-6); for any
    other legal position it returns a turn that ``apply_turn`` accepted.
    """
    _check_open(pos, rules)
    rng = rng or random.Random(0)
    board = Board.of(pos)
    searcher = make_searcher(rules, limits, jit)  # a fresh process loads the compiled core here, once
    t0 = time.perf_counter()
    try:
        try:
            best, value = searcher.search(board, budget, nodes)
        except Exception:
            if isinstance(searcher, Searcher):
                raise
            searcher = Searcher(rules, limits)  # the compiled core failed (e.g. numba's cache): the Python search
            best, value = searcher.search(board, budget, nodes)
        cands = [best]
    except Exception:  # pragma: no cover - a hint must not fail the referee: fall back, and say so
        cands, value = [], 0.0
    turn, chosen = _first_legal(pos, rules, cands, rng)
    fallback = chosen is None
    if fallback:  # pragma: no cover - only if the search's turn were ever refused by apply_turn
        value = 0.0
    after = apply_turn(pos, turn, rules)
    stats = searcher.stats
    if _player is not None:
        _player.last_stats = stats
    return Hint(
        turn=turn,
        value=value,
        expected=expected_score(value),
        reason=reason_for(pos, turn, after, rules, value) + (" (fallback: a random legal turn)" if fallback else ""),
        depth=stats.depth,
        nodes=stats.nodes,
        elapsed=time.perf_counter() - t0,
        fallback=fallback,
    )
