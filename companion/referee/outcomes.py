"""What a verdict on a confirm press does at the table: the panel, the journal and the log.

The referee decides (:class:`~companion.referee.referee.Verdict`); the game loop decides which
phase follows; an :class:`Outcomes` shows and writes the verdict:

* accepted: the turn is written to the journal (committed and synced) *before* the green light;
  a journal that refuses it lights amber and the turn is not taken (:meth:`Outcomes.record_turn`).
  Then green, the R-23 note on the batteries turned (journalled with the batteries left blank, an
  event ``sides``), and for a winning turn the win pattern; once all that is out, the camera
  learns the bare board the turn left (:meth:`Outcomes.learn_bare`).
* rejected: red, the buzzer, the pointer at the pieces the diagnosis names; journalled.
* unreadable: amber, the pointer at the unsure fields; journalled. While the press waits for a
  readable board each reason is said once (:meth:`Outcomes.reading_again`); at the timeout the
  press is over (:meth:`Outcomes.unreadable`).
* unchanged: amber; nothing is recorded.

After the panel, the log line comes first (the web page's view of the verdict is built from it),
then what may wait on the disk: a rejection's journal record, the note's event.
:meth:`Outcomes.not_taken` shows any verdict that takes no turn.
"""

from __future__ import annotations

from typing import Any, Callable

from hardware.pointer import targets_at

from ..cameras import Frame
from ..rules.errors import NotationError
from ..rules.geometry import point_name
from ..rules.position import Position
from ..vision_bridge import teach_bare
from .blank import BlankBatteries
from .journal import Journal, JournalError
from .records import GameRecords
from .referee import GAME_OVER, REJECTED, UNCHANGED, UNREADABLE, Verdict


class Outcomes:
    """The verdicts' signals and records of one game loop, for the game ``game_id`` given to each call.

    ``panel``: the loop's panel; ``journal``: where accepted turns go; ``records``: the journal's
    side records (rejections, events, the end of a game); ``log(kind, text, **where)`` and
    ``status(text)``: the loop's log and systemd status line."""

    def __init__(self, panel: Any, journal: Journal, records: GameRecords, log: Callable[..., None],
                 status: Callable[[str], None]) -> None:
        self.panel = panel
        self.journal = journal
        self.records = records
        self.log = log
        self.status = status

    # ================================================================ accepted
    def record_turn(self, game_id: int, before: Position, verdict: Verdict) -> int | None:
        """Write the accepted turn to the journal (committed and synced); its ply, or None when the
        journal could not take it (amber, said in the log: the turn is not taken)."""
        try:
            record = self.journal.record_turn(game_id, before.to_string(), verdict.position.to_string(),
                                              str(verdict.turn), confidences=verdict.confidences or None)
        except JournalError as exc:
            # Never light "accepted" for a turn that is not on disk.
            self.panel.signal_unreadable()
            self.log("unreadable", f"the turn {verdict.turn} could not be written to the journal ({exc}); "
                                   "press confirm again")
            return None
        return record.ply

    def accepted(self, verdict: Verdict, before: Position, ply: int, game_id: int, blank: BlankBatteries) -> None:
        """The turn ``ply`` is in the journal and taken by the referee: green, the batteries left
        blank (``blank``) and the R-23 note."""
        self.panel.clear_pointer()
        self.panel.signal_accepted()
        blank.points = tuple(verdict.turn_back)  # on the accepted turn's view already (the page's board)
        # The log lines (the web page's view) right after the LEDs; the journal's note, which may
        # wait on the disk, after them (the camera learns the bare board once all is out: learn_bare).
        self.log("accepted", f"{before.to_move.label}: {verdict.turn}", ply=ply, turn=str(verdict.turn))
        if verdict.note:
            self.log("note", f"{before.to_move.label}'s turn {ply}: {verdict.note} (R-23)", ply=ply,
                     squares=verdict.note_squares, points=verdict.note_points)
        if verdict.note or verdict.turn_back:  # R-23 into the journal (the game record exports it)
            self.records.event(game_id, "sides", {"ply": ply, "note": verdict.note,
                                                  "points": [point_name(p) for p in verdict.note_points],
                                                  "turn_back": [point_name(p) for p in verdict.turn_back]})

    def learn_bare(self, reader: Any, frame: Frame, position: Position) -> None:
        """Let the camera learn the bare board of squares an accepted turn (its ``frame``, the
        ``position`` it made) left empty.

        The calibration frame shows the bare board only off the start ranks;
        each accepted frame shows more of it (:func:`companion.vision_bridge.teach_bare`).
        The classic reader reads the frame again for it (the any-set reader takes the look of the
        read the turn was judged on): the loop asks once the verdict is out (the LEDs, the log,
        the web page). Information only: a failure is logged, never stops the game.
        """
        try:
            teach_bare(reader, frame.image, position)
        except Exception as exc:  # the turn is accepted and journaled either way
            self.log("camera", f"the bare board was not learned from this frame ({exc})")

    def won(self, game_id: int, winner: str, result: str, reason: str) -> None:
        """The accepted turn won the game (closed in the journal already): the win pattern."""
        self.panel.clear_gauge()
        self.panel.show_win(winner)
        self.log("win", f"{result}: {reason}")
        self.status(f"game {game_id}: {result}")

    # ================================================================ rejected, unreadable, unchanged
    def rejected(self, verdict: Verdict, position: Position, ply: int, game_id: int | None) -> None:
        """An illegal turn (``position``: the referee's, before it): red, buzzer, the pointer; journalled."""
        reason = verdict.reason or "illegal turn"
        self.panel.signal_illegal()
        targets = targets_at(verdict.squares, verdict.points, blink=False)
        if targets:
            self.panel.show_sequence(targets)
        else:
            self.panel.clear_pointer()
        after = None
        if verdict.board is not None:
            try:
                b = verdict.board
                after = Position(b.white, b.black, b.batteries, position.to_move.other).to_string()
            except NotationError:
                after = None
        self.log("rejected", reason, ply=ply, squares=verdict.squares, points=verdict.points)
        self.records.rejection(game_id, REJECTED, reason, after)  # after the log line: the page first

    def reading_again(self, reason: str, verdict: Verdict | None, shown: set[str], ply: int,
                      game_id: int | None) -> None:
        """Unreadable while the press still waits: amber and the pointer, once per reason (``shown``:
        the reasons this press said already), journalled; the board is read again."""
        squares = verdict.squares if verdict is not None else ()
        points = verdict.points if verdict is not None else ()
        if reason in shown:
            return
        shown.add(reason)
        self.panel.signal_unreadable()
        if squares or points:
            self.panel.show_sequence(targets_at(squares, points, blink=True))
        else:
            self.panel.clear_pointer()
        self.log("unreadable", f"{reason} (reading again)", ply=ply, squares=squares, points=points)
        self.records.rejection(game_id, UNREADABLE, reason, None)

    def unreadable(self, reason: str, verdict: Verdict | None, ply: int, game_id: int | None) -> None:
        """Unreadable at the press's timeout: amber and the pointer, journalled; press again."""
        squares = verdict.squares if verdict is not None else ()
        points = verdict.points if verdict is not None else ()
        self.panel.signal_unreadable()
        if squares or points:
            self.panel.show_sequence(targets_at(squares, points, blink=True))
        self.log("unreadable", f"{reason}; press confirm again", ply=ply, squares=squares, points=points)
        self.records.rejection(game_id, UNREADABLE, reason, None)

    def unchanged(self) -> None:
        """Nothing moved since the last accepted turn: amber, nothing recorded."""
        self.panel.signal_unreadable()
        self.log("unchanged", "nothing moved since the last accepted turn: make your turn, then confirm")

    def not_taken(self, verdict: Verdict, position: Position, ply: int, game_id: int | None) -> None:
        """A verdict on a press that takes no turn (``position``: the referee's): rejected, unreadable
        at the press's timeout, unchanged, or the game is over."""
        if verdict.kind == REJECTED:
            self.rejected(verdict, position, ply, game_id)
        elif verdict.kind == UNREADABLE:
            self.unreadable(verdict.reason or "the board cannot be read", verdict, ply, game_id)
        elif verdict.kind == UNCHANGED:
            self.unchanged()
        elif verdict.kind == GAME_OVER:  # pragma: no cover - the panel takes no confirm after a win
            self.log("info", verdict.reason or "the game is over")
        else:
            raise ValueError(f"a verdict of kind {verdict.kind!r} takes a turn or asks: not shown here")
