"""What the undo, hint and control buttons show and write.

The game loop decides when a press counts (a game to play on; no confirm press waiting for a
hint; no question open for control) and which phase follows (an undo goes back to the check:
the board must be put back). What the press does at the table is here:

* undo: the last accepted turn is marked undone in the journal first (a journal that refuses it:
  amber, nothing is taken back), then the log says which turn to put back; with nothing to take
  back, the wrong-player blink.
* hint: the hints engine's turn for the player to move on the pointer (each move's source
  blinking, then its destination), changing nothing.
* control: the batteries the player to move controls, on the pointer.
"""

from __future__ import annotations

from typing import Any, Callable

from hardware.pointer import targets_at

from ..rules.control import movable_batteries
from ..rules.masks import mask_of
from ..rules.options import Rules
from ..rules.position import Position
from .journal import Journal, JournalError, TurnRecord
from .question import turn_steps
from .timings import LoopTimings


class Buttons:
    """The undo, hint and control buttons of one game loop.

    ``panel``: the loop's panel; ``journal``: where an undo is written; ``log(kind, text, **where)``:
    the loop's log; ``timings``: the hint's budget; ``hints``: off, the hint button says so."""

    def __init__(self, panel: Any, journal: Journal, log: Callable[..., None], timings: LoopTimings,
                 hints: bool) -> None:
        self.panel = panel
        self.journal = journal
        self.log = log
        self.timings = timings
        self.hints = hints

    # ================================================================ undo
    def nothing_to_undo(self) -> None:
        self.log("undo", "nothing to take back")
        self.panel.blink_wrong_player()

    def undo(self, game_id: int | None) -> TurnRecord | None:
        """Mark the last accepted turn of ``game_id`` undone in the journal; None when the journal
        refused (said in the log, amber: nothing may be taken back)."""
        try:
            return self.journal.undo_last_turn(game_id)
        except JournalError as exc:
            self.log("undo", f"the undo could not be written to the journal ({exc}); nothing was taken back")
            self.panel.signal_unreadable()
            return None

    def undone(self, record: TurnRecord, game_id: int | None, reopened: bool) -> None:
        """The turn ``record`` is taken back (``reopened``: it was the win, the game goes on)."""
        if reopened:  # the winning turn was confirmed by mistake: taking it back is not a turn, the game goes on
            self.panel.clear_win()
            self.log("undo", f"game {game_id} reopened: the win is taken back")
        self.log("undo", f"turn {record.ply} ({record.turn}) taken back: put the board back as it was",
                 ply=record.ply, turn=record.turn)

    # ================================================================ hint
    def hint(self, position: Position, rules: Rules) -> None:
        """Show the hints engine's turn for the player to move; the game goes on whatever it says."""
        if not self.hints:
            self.log("hint", "hints are off")
            return
        try:
            from ..hints.players import hint
        except ImportError:
            self.log("hint", "no hint engine installed")
            return
        try:
            h = hint(position, rules, budget=self.timings.hint_budget, nodes=self.timings.hint_nodes)
        except Exception as exc:  # the game is over, or the engine failed: the game goes on
            self.log("hint", f"no hint: {exc}")
            return
        self.panel.show_sequence(turn_steps(h.turn))
        self.log("hint", f"{position.to_move.label} could play {h.turn} ({h.reason})", turn=str(h.turn))

    # ================================================================ control
    def control(self, position: Position, rules: Rules) -> None:
        """Show the batteries the player to move controls (the wrong-player blink when none)."""
        mover = position.to_move
        own, enemy = mask_of(position.robots(mover)), mask_of(position.robots(mover.other))
        mask = movable_batteries(own, enemy, mask_of(position.batteries), rules)
        points = tuple(p for p in range(49) if mask >> p & 1)
        if not points:
            self.panel.blink_wrong_player()
            self.log("control", f"{mover.label} controls no battery")
            return
        self.panel.show_sequence(targets_at(points=points))
        self.log("control", f"{mover.label} controls {len(points)} batteries", points=points)
