"""Resuming after a restart: the journal's open game, replayed by a referee.

A game whose record cannot be read or replayed is never guessed at: it stays
in the journal as it is (every other game too) and a new game starts from the
start position."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..rules.options import Rules
from ..rules.position import Position
from .journal import Journal, JournalError
from .referee import Referee


@dataclass(frozen=True)
class Resumed:
    """The open game of the journal, its rules and a referee at its position."""

    game_id: int
    rules: Rules
    referee: Referee
    turns: int  # turns in force


def open_game(journal: Journal, sides: bool, log: Callable[[str, str], None]) -> Resumed | None:
    """The journal's open game replayed (``sides``: R-23 for its referee), or None: no open game,
    or one that cannot be read or replayed (said in ``log(kind, text)``)."""
    try:
        game = journal.open_game()
    except JournalError as exc:  # the open game's record is damaged: it stays as it is, the others too
        log("info", f"the open game of the journal cannot be read ({exc}); it stays as it is, "
                    "a new game starts from the start position")
        return None
    if game is None:
        return None
    try:
        rules = Rules.from_names(game.rules)
        referee = Referee(rules, Position.from_string(game.start_position), sides=sides)
        referee.replay([t.turn for t in game.turns])
    except Exception as exc:  # a journal the engine cannot replay: never guess, start afresh
        log("info", f"game {game.id} of the journal cannot be replayed ({exc}); it stays as it is, "
                    "a new game starts from the start position")
        return None
    return Resumed(game.id, rules, referee, len(game.turns))
