"""The amber question: two or more legal turns fit a doubtful reading and a player picks one.

The referee's ``question`` verdict carries the candidates (accepted verdicts,
most likely first). The game loop shows them in turn on the panel, each for
``question_seconds``: amber, the pointer walking the candidate's moves (each
source blinking, then its destination) -- the fields in question are among
them, as the candidates differ there -- and the gauge lit to the candidate's
number of all. A confirm press of the player to move takes the candidate
shown; the journal records the choice (event ``chosen``). A different board
before the press (the players fixed the doubtful field) drops the question:
confirm again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from hardware.pointer import PointerTarget, move_steps

from ..cameras import Frame
from ..rules.geometry import point_name, square_name
from ..rules.moves import Turn
from .records import GameRecords
from .referee import QUESTION, Verdict


def turn_steps(turn: Turn) -> list[PointerTarget]:
    """Pointer steps showing a turn: each move's source blinking, then its destination steady."""
    return move_steps([(m.src, m.dst) for m in turn.robot_moves], [(m.src, m.dst) for m in turn.battery_moves])


@dataclass
class Question:
    """An open question of the game loop: what is shown, since when, and the board it is about."""

    verdict: Verdict  # kind QUESTION
    frame: Frame  # the frame judged (the chosen turn's frame)
    signature: tuple  # the reading judged: another stable board drops the question
    since: float  # clock time the shown candidate came up
    index: int = 0  # the candidate shown

    def __post_init__(self) -> None:
        if self.verdict.kind != QUESTION or len(self.verdict.candidates) < 2:
            raise ValueError("a question needs a question verdict with two or more candidates")

    @property
    def candidates(self) -> tuple[Verdict, ...]:
        return self.verdict.candidates

    @property
    def shown(self) -> Verdict:
        """The candidate the panel shows (the one a confirm press takes)."""
        return self.candidates[self.index]

    def due(self, now: float, seconds: float) -> bool:
        """Has the shown candidate been up for ``seconds``?"""
        return now - self.since >= seconds - 1e-9

    def next(self, now: float) -> Verdict:
        """Show the next candidate (after the last, the first again)."""
        self.index = (self.index + 1) % len(self.candidates)
        self.since = now
        return self.shown

    def fields(self) -> list[str]:
        """The names of the fields in question (where the candidates differ)."""
        return [square_name(s) for s in self.verdict.squares] + [point_name(p) for p in self.verdict.points]

    def record(self, ply: int) -> dict:
        """The journal's ``chosen`` event: the turn a player picked, of which, at which fields."""
        return {"ply": ply, "turn": str(self.shown.turn), "candidates": [str(c.turn) for c in self.candidates],
                "fields": self.fields()}


class Asking:
    """The open question of one game loop and its walk on the panel.

    ``panel``: the loop's panel (its clock is the loop's); ``records``: the journal's side records;
    ``log(kind, text, **where)`` and ``status(text)``: the loop's log and systemd status line;
    ``seconds``: how long each candidate is shown (``question_seconds`` of the timings)."""

    def __init__(self, panel: Any, records: GameRecords, log: Callable[..., None], status: Callable[[str], None],
                 seconds: float) -> None:
        self.panel = panel
        self.clock = panel.clock
        self.records = records
        self.log = log
        self.status = status
        self.seconds = seconds
        self.question: Question | None = None

    def ask(self, verdict: Verdict, frame: Frame, signature: tuple, game_id: int | None, ply: int) -> None:
        """Two or more legal turns fit the reading judged: show them in turn, a confirm press takes one."""
        self.question = Question(verdict, frame, signature, self.clock.now())
        self.panel.signal_unreadable()
        turns = " or ".join(str(c.turn) for c in verdict.candidates)
        self.log("question", f"unsure at {', '.join(self.question.fields())}: which turn was it, {turns}? "
                             "Each is shown in turn; confirm takes the one shown", ply=ply,
                 squares=verdict.squares, points=verdict.points)
        self.records.event(game_id, "question", {"ply": ply, "candidates": [str(c.turn) for c in verdict.candidates],
                                                  "fields": self.question.fields()})  # the page first
        self._show()

    def _show(self) -> None:
        question = self.question
        assert question is not None
        shown = question.shown
        assert shown.turn is not None
        n = len(question.candidates)
        self.panel.show_sequence(turn_steps(shown.turn))
        self.panel.show_gauge(question.index + 1, n)
        self.status(f"which turn? {question.index + 1} of {n}: {shown.turn} (confirm takes it)")

    def follow(self, signature: tuple, stable: bool, ply: int) -> bool:
        """A reading (``signature``) while asking: show the next candidate when it is time; drop the
        question when the board changed (True: dropped, the turn goes on as before the press)."""
        question = self.question
        assert question is not None
        if stable and signature != question.signature:
            self.drop()
            self.log("question", "the board changed: the question is dropped; confirm again", ply=ply)
            self.panel.clear_status()
            self.panel.clear_pointer()
            return True
        if question.due(self.clock.now(), self.seconds):
            question.next(self.clock.now())
            self._show()
        return False

    def take(self) -> Question:
        """A confirm press while asking: the question closes; its shown candidate is the turn."""
        question = self.question
        assert question is not None
        self.question = None
        self.panel.clear_gauge()  # it showed the candidate's number; the energy gauge comes back with the turn
        return question

    def chosen(self, record: dict, game_id: int | None) -> None:
        """The turn taken (``record``: :meth:`Question.record`) is accepted: journal and log the choice."""
        self.records.event(game_id, "chosen", record)
        self.log("chosen", f"a player chose {record['turn']} of {' or '.join(record['candidates'])}",
                 ply=record["ply"], turn=record["turn"])

    def drop(self) -> None:
        """Forget the question (an undo, a new game, another board)."""
        if self.question is not None:
            self.question = None
            self.panel.clear_gauge()
