"""Move hints: turn generation, evaluation, search and baseline players.

``hint(position, rules, budget=1.0)`` is the entry point; ``PLAYERS`` names
the arena's engines (``random``, ``greedy``, ``search``).
"""

from .players import DEFAULT_BUDGET, GameOver, GreedyPlayer, Hint, RandomPlayer, SearchPlayer, expected_score, hint

__all__ = [
    "DEFAULT_BUDGET",
    "GameOver",
    "GreedyPlayer",
    "Hint",
    "RandomPlayer",
    "SearchPlayer",
    "expected_score",
    "hint",
]
