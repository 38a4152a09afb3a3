"""A confirm press, from the button to its verdict: the ``waiting`` and ``asking`` steps of a turn.

A press of the player to move starts the ``waiting`` step (:class:`Pending`): the press waits
for a stable reading taken after it. Each reading the loop takes while a press waits gives one
:class:`PressStep` (:func:`press_step`):

* ``wait``: the reading was taken before the press, or the board does not keep still yet
  (nothing to say, or nothing new);
* ``again``: unreadable, before ``confirm_timeout``: amber with the reason, said once per reason
  (:attr:`Pending.shown`), and the board is read again;
* ``give-up``: ``confirm_timeout`` passed and no stable board came: unreadable, press again;
* ``judged``: the referee's verdict on the stable reading (an unreadable verdict only at the
  timeout: before it the board is read again).

The referee is asked only about a stable reading taken after the press: a board that would not
keep still is never judged. :class:`Presses` steps the press and shows each step
(:mod:`~companion.referee.outcomes`); a verdict that asks starts the ``asking`` step
(:mod:`~companion.referee.question`), where a press takes the candidate shown. An accepted turn
is the loop's to take (it steps the phase): :class:`Presses` hands it over.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from ..cameras import Frame
from .blank import BlankBatteries
from .outcomes import Outcomes
from .question import Asking
from .reading import Seen, TableReading
from .records import GameRecords
from .referee import ACCEPTED, QUESTION, UNREADABLE, Referee, Verdict
from .timings import LoopTimings

WAIT = "wait"
AGAIN = "again"
GIVE_UP = "give-up"
JUDGED = "judged"


@dataclass
class Pending:
    """The ``waiting`` step: a confirm press of ``side`` at clock time ``at`` waits for a stable reading."""

    side: str
    at: float
    shown: set[str] = field(default_factory=set)  # reasons of unreadable boards said already (each once)


@dataclass(frozen=True)
class PressStep:
    """What one reading does to a waiting press: ``kind`` is :data:`WAIT`, :data:`AGAIN`,
    :data:`GIVE_UP` or :data:`JUDGED`; ``reason``: why the board cannot be judged (again, give-up);
    ``verdict``: the referee's (judged; again when the referee found the board unreadable)."""

    kind: str
    reason: str | None = None
    verdict: Verdict | None = None


def press_step(pending: Pending, seen: Seen, stable: bool, now: float, timings: LoopTimings,
               judge: Callable[[TableReading], Verdict]) -> PressStep:
    """The step of ``pending`` on the latest reading ``seen`` (``stable``: kept still for
    ``stable_seconds``) at clock time ``now``; ``judge``: the referee's judgement of a reading."""
    timed_out = now - pending.at >= timings.confirm_timeout
    if seen.frame.at < pending.at:  # a reading from before the press
        return PressStep(WAIT)
    if not stable:
        reason = None if seen.reading.readable else seen.reading.reason
        if timed_out:  # never judge a board that would not keep still
            return PressStep(GIVE_UP, reason or f"the board did not keep still for {timings.stable_seconds:g} s "
                                                f"within {timings.confirm_timeout:g} s")
        # A hand over the board or pieces still moving: say so once it lasts, keep reading.
        if now - pending.at >= timings.stable_seconds and reason is not None:
            return PressStep(AGAIN, reason)
        return PressStep(WAIT)
    verdict = judge(seen.reading)
    if verdict.kind == UNREADABLE and not timed_out:
        return PressStep(AGAIN, verdict.reason or "the board cannot be read", verdict)
    return PressStep(JUDGED, verdict=verdict)


class Presses:
    """The confirm presses of one game loop: the press waiting for its reading (:attr:`pending`),
    the open question (``asking``), the verdicts' outcomes (``outcomes``, ``records``: the judged
    frames), the batteries to turn back (``blank``: pointed at until the next press).

    ``take(verdict, frame)``: the loop takes an accepted turn (journal first; False when the
    journal could not take it); ``clock``: the loop's clock; ``status(text)``: the systemd status
    line. ``verdict_times``: seconds from a press's reading (or the question's answer) to the end of
    its verdict's whole outcome: the LEDs, the journal, the press frame saved and, for an accepted
    turn, the bare board learned (``benchmarks/referee.py`` times the LEDs alone)."""

    def __init__(self, panel: Any, timings: LoopTimings, asking: Asking, outcomes: Outcomes, records: GameRecords,
                 blank: BlankBatteries, take: Callable[[Verdict, Frame], bool], status: Callable[[str], None]) -> None:
        self.panel = panel
        self.clock = panel.clock
        self.timings = timings
        self.asking = asking
        self.outcomes = outcomes
        self.records = records
        self.blank = blank
        self.take = take
        self.status = status
        self.pending: Pending | None = None
        self.verdict_times: list[float] = []

    def press(self, side: str, ply: int, game_id: int | None) -> None:
        """A confirm press of the player to move (``side``): it takes the question's candidate shown,
        or begins waiting for a reading (a press while one waits changes nothing)."""
        if self.asking.question is not None:
            self._chosen(ply, game_id)
        elif self.pending is None:
            self.pending = Pending(side, self.clock.now())
            self.blank.points = ()  # pointed at until the next confirm
            self.panel.clear_pointer()
            self.status(f"{side} confirmed: reading the board")

    def _chosen(self, ply: int, game_id: int | None) -> None:
        """A confirm press during a question: the candidate shown is the turn."""
        t0 = time.perf_counter()
        question = self.asking.take()
        record = question.record(ply)
        if self.take(question.shown, question.frame):
            self.asking.chosen(record, game_id)
        self.verdict_times.append(time.perf_counter() - t0)

    def reading(self, seen: Seen, stable: bool, referee: Referee, ply: int, game_id: int | None) -> None:
        """The latest reading while a press waits (``referee``: the game's, ``ply``: the turn's)."""
        pending = self.pending
        assert pending is not None
        t0 = time.perf_counter()
        step = press_step(pending, seen, stable, self.clock.now(), self.timings, referee.judge)
        if step.kind == AGAIN:
            assert step.reason is not None
            self.outcomes.reading_again(step.reason, step.verdict, pending.shown, ply, game_id)
        elif step.kind == GIVE_UP:
            assert step.reason is not None
            self.give_up(step.reason, ply, game_id)
        elif step.kind == JUDGED:
            verdict = step.verdict
            assert verdict is not None
            self.pending = None
            self.records.save_press(ply, seen.frame.image)
            if verdict.kind == ACCEPTED:
                self.take(verdict, seen.frame)
            elif verdict.kind == QUESTION:
                self.asking.ask(verdict, seen.frame, seen.signature, game_id, ply)
            else:  # rejected, unreadable at the timeout, unchanged: the turn stays
                self.outcomes.not_taken(verdict, referee.position, ply, game_id)
            self.verdict_times.append(time.perf_counter() - t0)

    def no_frame(self, message: str | None, ply: int, game_id: int | None) -> None:
        """No usable frame (``message``: the camera's failure): a press waiting past its timeout is over."""
        if self.pending is not None and self.clock.now() - self.pending.at >= self.timings.confirm_timeout:
            self.give_up(f"no frame from the camera ({message})", ply, game_id)

    def give_up(self, reason: str, ply: int, game_id: int | None) -> None:
        """The press's time is up and no readable board came: it is over (unreadable), press again."""
        self.pending = None
        self.outcomes.unreadable(reason, None, ply, game_id)

    def drop(self) -> None:
        """An undo or a new game: the waiting press, the question and the batteries to turn back go."""
        self.pending = None
        self.asking.drop()
        self.blank.points = ()
