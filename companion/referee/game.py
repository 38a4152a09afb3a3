"""The companion: the game loop that referees a physical game, from setup to the win.

One :class:`Companion` wires a frame source (``companion.cameras``), the vision
reader, the :class:`~companion.referee.referee.Referee` (every decision), the
:class:`~companion.referee.journal.Journal` and the GPIO :class:`~hardware.panel.Panel`.
``netzwerk run`` drives it with real time (:meth:`Companion.run`);
``netzwerk demo``, the tests and the benchmark drive the very same
:meth:`Companion.tick` on a panel with a ``ManualClock`` (virtual time: waiting
is advancing the clock), the synthetic camera and mock pins.

The loop is a state machine of the turn's phases (:mod:`companion.referee.phases`:
``setup`` -> ``check`` -> ``playing`` -> ``over``; a turn: ``idle`` -> ``waiting``
for a stable reading -> judged, or ``asking``; :meth:`Companion._enter` refuses
any other step). Each tick: the events in (:mod:`~companion.referee.inbox`: the
buttons, the web page's requests), then one frame (:mod:`~companion.referee.camera`),
known to the loop only as a :class:`~companion.referee.reading.TableReading` (made
by :func:`companion.vision_bridge.table_reading`), then the phase's step:

* ``setup``: calibrate from the frame (:mod:`~companion.referee.calibrator`); amber
  and the reason until it works.
* ``check``: the board must show an expected position (:mod:`~companion.referee.check`:
  the start of a new game, the journal's position after a restart, the position an
  undo went back to); then play goes on (a new game is opened in the journal).
  During a resume or undo check the player to move may still confirm a turn.
* ``playing``: a confirm press (of the side whose turn LED is lit) takes the next
  *stable* reading: one taken after the press whose fields have not changed for
  ``stable_seconds``. The referee judges it; the verdict's outcome is one call
  (:mod:`~companion.referee.outcomes`: accepted, journal first; rejected;
  unreadable, read again until ``confirm_timeout``; unchanged; the amber question:
  :mod:`~companion.referee.question`). Between presses: live watching
  (:mod:`~companion.referee.watch`) and the batteries to turn back (R-23,
  :mod:`~companion.referee.blank`).
* ``over``: the win pattern; a new game waits for the start position.

The loop holds the state (the phase, the referee, the game, the pending press, the
latest reading) and steps it; the parts show and write, each given its inputs: the
buttons' effects (:mod:`~companion.referee.buttons`), the journal's side records and
the frames (:mod:`~companion.referee.records`), resuming after a restart
(:mod:`~companion.referee.resume`), systemd (:mod:`~companion.referee.systemd`), the
web page (:mod:`~companion.referee.onlooker`). A bumped camera or a moved lamp is
calibrated again from the last accepted board during ``check`` and ``playing``
(:class:`~companion.referee.calibrator.Calibrator`).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable

from ..cameras import Frame, FrameSource
from ..rules.geometry import BLACK, WHITE, Color
from ..rules.options import Rules
from ..rules.position import Placement, Position
from ..vision_bridge import default_calibrate, default_reader, method_of
from .blank import BlankBatteries
from .buttons import Buttons
from .calibrator import Calibrator
from .camera import CameraWatch
from .check import BoardCheck, CheckSignal
from .inbox import Inbox
from .journal import Journal, JournalError
from .log import LogEntry
from .onlooker import Onlooker
from .outcomes import Outcomes
from .phases import (ASKING, CHECK, IDLE, NEW_GAME, OVER, PLAYING, RESUME, SETUP, START, UNDO, WAITING, Pending,
                     check_step)
from .question import Asking, Question
from .reading import Seen, TableReading
from .recalibration import MOVED, UNSURE, frame_trouble
from .records import GameRecords
from .referee import ACCEPTED, GAME_OVER, QUESTION, REJECTED, UNCHANGED, UNREADABLE, Referee, Verdict
from .resume import open_game
from .systemd import ServiceNotes
from .timings import LoopTimings
from .view import GameView, Spectator
from .watch import LiveWatch

__all__ = ["CHECK", "MOVED", "NEW_GAME", "OVER", "PLAYING", "RESUME", "SETUP", "START", "UNDO", "UNSURE",
           "Companion", "LogEntry", "LoopTimings", "frame_trouble"]


class Companion:
    """The game loop. See the module docstring.

    ``panel``: a :class:`hardware.panel.Panel` (its clock is the loop's clock:
    a ``ManualClock`` makes time virtual). ``source``: a frame source.
    ``calibration``: a ready calibration (else calibrated at setup, from
    ``corners`` if given, else the markers, else the board's grid with White's
    start row towards the image edge ``white_side``; saved to
    ``calibration_path`` if given, as is every recalibration).
    ``calibrate``/``make_reader``: the vision functions (tests inject fakes).
    ``frames``: a :class:`companion.referee.frames.FrameArchive` keeping the start frame
    of each game and the frame of every judged confirm press (``--save-frames``). ``on_log``: called with every :class:`LogEntry`.
    ``sides``: R-23, the battery sides (see the module docstring).
    ``spectator``: an onlooker (the web page, :mod:`companion.referee.view`) given a view of the
    game after every log line and the latest frame; it never blocks the loop.
    """

    def __init__(
        self,
        panel: Any,
        source: FrameSource,
        journal: Journal,
        *,
        rules: Rules = Rules(),
        starting_side: Color = WHITE,
        timings: LoopTimings = LoopTimings(),
        calibration: Any = None,
        corners: Any = None,
        white_side: str | None = None,
        calibration_path: str | Path | None = None,
        calibrate: Callable[..., Any] = default_calibrate,
        make_reader: Callable[[Any], Any] = default_reader,
        notifier: Any = None,
        live_watch: bool = False,
        frames: Any = None,
        on_log: Callable[[LogEntry], Any] | None = None,
        hints: bool = True,
        sides: bool = True,
        spectator: Spectator | None = None,
    ) -> None:
        self.panel = panel
        self.source = source
        self.journal = journal
        self.rules = rules
        self.starting_side = starting_side
        self.timings = timings
        self.service = ServiceNotes(notifier, timings.watchdog_seconds)  # what systemd is told (systemd.py)
        self.live_watch = live_watch
        self.frames = frames
        self.records = GameRecords(journal, frames, self._log)
        self.on_log = on_log
        self.sides_enabled = sides
        self.blank = BlankBatteries(panel, self._log)  # the batteries to turn back (blank.py)
        self.clock = panel.clock
        self.manual = bool(getattr(self.clock, "manual", False))

        self.referee = Referee(rules, Position.start(starting_side), sides=sides)
        self.game_id: int | None = None
        self.phase = SETUP  # the state machine's phase (phases.py); changed only by _enter
        self.check = BoardCheck(START, Placement.of(self.referee.position))
        self.calibrator = Calibrator(panel, timings, self._log, self._status, calibration=calibration,
                                     corners=corners, white_side=white_side,
                                     calibration_path=Path(calibration_path) if calibration_path else None,
                                     calibrate=calibrate, make_reader=make_reader)
        self.log: list[LogEntry] = []
        self.seen: Seen | None = None  # the latest reading, and since when the board looks like this
        self.pending: Pending | None = None  # a confirm press waiting for its reading (the waiting step)
        self.stopped = False
        self.started = False
        self.frames_read = 0
        self.inbox = Inbox()
        self.signal = CheckSignal(panel, self._log, self._status)
        self.camera = CameraWatch(source, panel, self._log, self._status)
        self.watch = LiveWatch(panel, self._log, live_watch)
        self.asking = Asking(panel, self.records, self._log, self._status, timings.question_seconds)
        self.outcomes = Outcomes(panel, journal, self.records, self._log, self._status)
        self.buttons = Buttons(panel, journal, self._log, timings, hints)
        self.verdict_times: list[float] = []  # seconds from a confirm's handling to its verdict on the LEDs
        self.onlooker = Onlooker(spectator, self._log)
        if spectator is not None:
            spectator.take_requests(self.request)
        self.inbox.listen(panel)

    # ================================================================ the state machine (phases.py)
    def _enter(self, phase: str) -> None:
        """Step the state machine to ``phase`` (phases.NEXT says which steps exist)."""
        check_step(self.phase, phase)
        self.phase = phase

    @property
    def question(self) -> Question | None:
        """The open amber question (question.py), if any."""
        return self.asking.question

    @property
    def step(self) -> str:
        """The turn's step: idle, waiting (a confirm press waits for its reading) or asking (a question)."""
        return ASKING if self.question is not None else WAITING if self.pending is not None else IDLE

    def _in_game(self) -> bool:
        """Is there a game to play on (not waiting for the start of a new one, not over)?"""
        if self.game_id is None or self.phase in (SETUP, OVER):
            return False
        return not (self.phase == CHECK and self.check.for_new_game)

    # ================================================================ lifetime
    def start(self) -> None:
        """Resume the open game of the journal, or get ready for a new one; tell systemd we are up."""
        if self.started:
            return
        self.started = True
        resumed = open_game(self.journal, self.sides_enabled, self._log)
        if resumed is not None:
            self.rules = resumed.rules
            self.referee = resumed.referee
            self.game_id = resumed.game_id
            self.records.event(self.game_id, "resumed", {"ply": resumed.turns})
            self._log("info", f"resuming game {resumed.game_id} after {resumed.turns} turn(s), "
                              f"{resumed.referee.position.to_move.label} to move")
            self.check = BoardCheck(RESUME, Placement.of(resumed.referee.position))
            self.records.resume_frames(resumed.game_id)
            self.calibrator.load_saved()
        else:
            self.check = BoardCheck(START, Placement.of(self.referee.position))
        self._enter(CHECK if self.reader is not None else SETUP)
        st = self.referee.status
        if self.game_id is not None and st.over and st.winner is not None:
            # Killed between the winning turn's commit and closing the game: close it now.
            self.records.finish(self.game_id, st.result, st.reason)
            self._enter(OVER)
            self.panel.show_win(st.winner.name.lower())
            self._log("win", f"{st.result}: {st.reason}")
        self.service.ready(self.status_text())  # the camera and the panel are up: both were handed in open
        self._enter_phase_signals()
        self._publish()

    def stop(self) -> None:
        self.stopped = True
        self.inbox.put(("stop",))

    def close(self) -> None:
        """Stop: tell systemd, switch the panel's LEDs off (the pins stay the caller's to close)."""
        self.service.stopping()
        try:
            self.panel.clear_win()
        except Exception:
            pass

    def request(self, event: tuple) -> bool:
        """A request from outside the loop (the web page's controls), taken like a button press
        (:meth:`companion.referee.inbox.Inbox.request`: thread-safe, never blocking; False for an
        event it does not take)."""
        return self.inbox.request(event)

    def run(self) -> None:
        """Referee until :meth:`stop` (real time).

        Raises :class:`CameraError` when the camera has delivered no usable frame for
        ``camera_giveup`` seconds: under systemd (``Restart=on-failure``) the service is
        restarted, the camera opened again and the game resumed from the journal.
        """
        self.start()
        while not self.stopped:
            self.tick()
            self.camera.give_up_after(self.timings.camera_giveup)

    def run_for(self, seconds: float) -> None:
        """Tick for ``seconds`` of the loop's clock (the demo and tests on a ManualClock)."""
        self.start()
        end = self.clock.now() + seconds
        while self.clock.now() < end - 1e-9 and not self.stopped:
            self.tick()

    # ================================================================ the tick
    def tick(self) -> None:
        """One turn of the loop: watchdog, button events, one frame, then wait ``poll_interval``."""
        if not self.started:
            self.start()
        t0 = self.clock.now()
        self.service.watchdog(self.clock.now())
        self._drain()
        if self.stopped:
            return
        frame = self._grab()
        if frame is not None:
            self._observe(frame)
        if self.onlooker.stale(self._view_key()):
            self._publish()  # a change no log line told (a phase entered after its line)
        self._idle(max(0.0, self.timings.poll_interval - (self.clock.now() - t0)))

    def _idle(self, seconds: float) -> None:
        if self.manual:
            self.clock.advance(seconds)  # type: ignore[attr-defined]
            return
        self.inbox.wait(seconds)

    def _drain(self) -> None:
        while (event := self.inbox.take()) is not None:
            self._handle(event)

    # ================================================================ events in: buttons and requests (inbox.py)
    def _handle(self, event: tuple) -> None:
        kind = event[0]
        if kind == "stop":
            self.stopped = True
        elif kind == "confirm":
            self._on_confirm(event[1])
        elif kind == "undo":
            self._on_undo()
        elif kind == "hint":
            self._on_hint()
        elif kind == "control":
            self._on_control()
        elif kind == "new_game":
            self._on_new_game(*event[1:])

    def _on_confirm(self, side: str) -> None:
        if not self._in_game():
            return
        if side != self.referee.position.to_move.name.lower():  # the panel checks too; never trust a stale event
            return
        if self.question is not None:
            self._chosen()
            return
        if self.pending is None:
            self.pending = Pending(side, self.clock.now())
            self.blank.points = ()  # pointed at until the next confirm
            self.panel.clear_pointer()
            self._status(f"{side} confirmed: reading the board")

    def _on_undo(self) -> None:
        reopen = self.phase == OVER and self.game_id is not None and bool(self.referee.history)
        if not reopen and (not self._in_game() or not self.referee.history):
            self.buttons.nothing_to_undo()
            return
        record = self.buttons.undo(self.game_id)
        if record is None:
            return
        last = self.referee.undo()
        self.pending = None
        self.asking.drop()
        self.blank.points = ()
        assert last is not None
        self.buttons.undone(record, self.game_id, reopen)
        self._begin_check(UNDO, self.referee.position)

    def _on_hint(self) -> None:
        if not self._in_game() or self.step != IDLE:
            return
        self.buttons.hint(self.referee.position, self.rules)

    def _on_control(self) -> None:
        if not self._in_game() or self.question is not None:
            return
        self.buttons.control(self.referee.position, self.rules)

    def _on_new_game(self, options: Any = None, starting_side: str | None = None) -> None:
        if options is not None or starting_side is not None:  # the page's new game: its options and who begins
            rules = Rules.from_names(options or ())
            if rules.camera_refusal():
                self._log("new-game", f"no new game: {rules.camera_refusal()}")
                return
            self.rules = rules
            self.starting_side = BLACK if starting_side == "black" else WHITE
        if self.phase == SETUP:
            self.check = BoardCheck(NEW_GAME, Placement.of(Position.start(self.starting_side)))
            return
        self.pending = None
        self.asking.drop()
        self.blank.points = ()
        self.panel.clear_win()
        self._log("new-game", "new game: set up the start position")
        self._begin_check(NEW_GAME, Position.start(self.starting_side))

    # ================================================================ a frame in (camera.py)
    def _grab(self) -> Frame | None:
        frame = self.camera.grab()
        if frame is None:
            self._no_frame()
        return frame

    def _usable(self) -> None:
        if self.camera.usable():  # usable frames again after a failure: the phase's signals again
            self.signal.reset()
            self._enter_phase_signals()

    def _no_frame(self) -> None:
        """No usable frame (said by the camera watch): a press waiting past its timeout is over."""
        if self.pending is not None and self.clock.now() - self.pending.at >= self.timings.confirm_timeout:
            self._give_up(f"no frame from the camera ({self.camera.message})", None)

    def _observe(self, frame: Frame) -> None:
        if self.reader is None:
            self._usable()
            self.onlooker.frame_seen(frame.image, None, None)
            self._try_setup(frame)
            return
        read = self.camera.read(frame, self.reader)
        if read is None:
            self._no_frame()
            return
        seen, reading = read
        self._usable()
        self.onlooker.frame_seen(frame.image, getattr(self.reader, "calibration", None), seen)
        self.frames_read += 1
        if self._recalibration_due(frame, reading) and self._recalibrate(frame):
            return
        self.seen = Seen.after(self.seen, frame, reading)
        stable = self.seen.stable(self.timings.stable_seconds)
        if self.question is not None:
            if self.asking.follow(self.seen.signature, stable, self._ply()):
                self.watch.restart(self.referee.position, self.rules)
        elif self.pending is not None:
            self._judge_pending(stable)
        elif self.phase == CHECK and stable:
            self._check_board()
        elif self.phase == PLAYING and stable:
            if self.blank.points:
                self.blank.follow(self.seen.reading)
            self.watch.see(self.seen.board, self.referee.position, self.rules)

    # ================================================================ the camera's calibration
    @property
    def reader(self) -> Any:
        """The vision reader of the current calibration (None before setup)."""
        return self.calibrator.reader

    @property
    def recalibrations(self) -> int:
        return self.calibrator.recalibrations

    def _try_setup(self, frame: Frame) -> None:
        what = "the start position" if self.check.for_new_game else "the position of the journal"
        if not self.calibrator.try_setup(frame, self.check.expected, what):
            return
        if self.phase == SETUP:
            self._enter(CHECK)
        self.seen = None
        self.signal.reset()
        self._enter_phase_signals()

    def _recalibration_target(self) -> tuple[Placement, str]:
        """The board a recalibration expects, and its name for the log."""
        if self.phase == CHECK:
            name = "the start position" if self.check.for_new_game else "the last accepted board"
            return self.check.expected, name
        return Placement.of(self.referee.position), "the last accepted board"

    def _recalibration_due(self, frame: Frame, reading: TableReading) -> bool:
        if self.phase not in (CHECK, PLAYING):
            self.calibrator.reset_trouble()
            return False
        target, _ = self._recalibration_target()
        return self.calibrator.due(frame, reading, target, self.referee.min_field_prob, self.step == IDLE)

    def _recalibrate(self, frame: Frame) -> bool:
        """Calibrate again from ``frame``, expecting the last accepted board. True if it worked."""
        target, name = self._recalibration_target()
        cal = self.calibrator.recalibrate(frame, target, name)
        if cal is None:
            return False
        self.records.recalibrated(self.game_id, self._ply(), method_of(cal))
        self.calibrator.reset_trouble()
        self.seen = None
        self.signal.reset()
        self.watch.forget()
        if self.phase == PLAYING:
            self.panel.clear_status()
            self.panel.clear_pointer()
        self._enter_phase_signals()
        return True

    # ================================================================ check
    def _begin_check(self, purpose: str, expected: Position) -> None:
        self.check = BoardCheck(purpose, Placement.of(expected))
        self._enter(CHECK if self.reader is not None else SETUP)
        self.signal.reset()
        self._enter_phase_signals()

    def _enter_phase_signals(self) -> None:
        if self.phase == OVER:
            return
        if self.phase in (CHECK, PLAYING) and self.game_id is not None and self.check.purpose in (RESUME, UNDO) \
                or self.phase == PLAYING:
            self.panel.show_turn(self.referee.position.to_move.name.lower())
        else:
            self.panel.show_turn(None)
        if self.phase == SETUP:
            self.panel.signal_unreadable()
        self._status(self.status_text())

    def _check_board(self) -> None:
        seen = self.seen
        assert seen is not None
        mismatch = self.check.look(seen.board, seen.reading, self.referee.min_field_prob)
        if mismatch is None:
            self._board_matches()
        else:
            self.signal.show(mismatch.key, mismatch.text, mismatch.squares, mismatch.points)

    def _board_matches(self) -> None:
        purpose = self.check.purpose
        if purpose in (START, NEW_GAME):
            start = Position.start(self.starting_side)
            try:
                game_id = self.journal.new_game(self.rules.names(), start.to_string())
            except JournalError as exc:
                # A full disk or a journal that became unwritable: no game without a journal;
                # amber, and the next frame of the start position tries again.
                self.signal.show(("journal", str(exc)),
                                 f"a new game cannot be written to the journal ({exc}); the game begins once it can")
                return
        self.panel.clear_status()
        self.panel.clear_pointer()
        self.signal.reset()
        if purpose in (START, NEW_GAME):
            self.referee = Referee(self.rules, start, sides=self.sides_enabled)
            self.game_id = game_id
            self._log("new-game", f"game {self.game_id} begins ({self.rules.name}); {start.to_move.label} to move")
            self.records.start_frames(self.game_id, self.seen.frame.image if self.seen is not None else None,
                                      self.rules.names(), start.to_string())
        elif purpose == RESUME:
            self._log("check", "the board matches the journal: play on")
        else:
            self._log("check", "the board is back as it was: play on")
        if self.seen is not None:
            self.referee.see_sides(self.seen.reading)  # the sides the next turn is compared with
        self._enter(PLAYING)
        self._enter_phase_signals()
        self.watch.restart(self.referee.position, self.rules)

    # ================================================================ playing: judging a press
    def _judge_pending(self, stable: bool) -> None:
        pending = self.pending
        seen = self.seen
        assert pending is not None and seen is not None
        now = self.clock.now()
        timed_out = now - pending.at >= self.timings.confirm_timeout
        after_press = seen.frame.at >= pending.at
        if not after_press:
            return
        if not stable:
            reason = None if seen.reading.readable else seen.reading.reason
            if timed_out:  # never judge a board that would not keep still
                self._give_up(reason or f"the board did not keep still for {self.timings.stable_seconds:g} s "
                                           f"within {self.timings.confirm_timeout:g} s", None)
                return
            # A hand over the board or pieces still moving: say so once it lasts, keep reading.
            if now - pending.at >= self.timings.stable_seconds and reason is not None:
                self.outcomes.reading_again(reason, None, pending.shown, self._ply(), self.game_id)
            return
        t0 = time.perf_counter()
        verdict = self.referee.judge(seen.reading)
        if verdict.kind == UNREADABLE and not timed_out:
            self.outcomes.reading_again(verdict.reason or "the board cannot be read", verdict, pending.shown,
                                        self._ply(), self.game_id)
            return
        self.pending = None
        self.records.save_press(self._ply(), seen.frame.image)
        if verdict.kind == ACCEPTED:
            self._accepted(verdict, seen.frame)
        elif verdict.kind == QUESTION:
            self.asking.ask(verdict, seen.frame, seen.signature, self.game_id, self._ply())
        elif verdict.kind == REJECTED:
            self.outcomes.rejected(verdict, self.referee.position, self._ply(), self.game_id)
        elif verdict.kind == UNREADABLE:
            self.outcomes.unreadable(verdict.reason or "the board cannot be read", verdict, self._ply(), self.game_id)
        elif verdict.kind == UNCHANGED:
            self.outcomes.unchanged()
        elif verdict.kind == GAME_OVER:  # pragma: no cover - the panel takes no confirm after a win
            self._log("info", verdict.reason or "the game is over")
        self.verdict_times.append(time.perf_counter() - t0)

    def _chosen(self) -> None:
        """A confirm press during a question: the candidate shown is the turn."""
        t0 = time.perf_counter()
        question = self.asking.take()
        record = question.record(self._ply())
        if self._accepted(question.shown, question.frame):
            self.asking.chosen(record, self.game_id)
        self.verdict_times.append(time.perf_counter() - t0)

    def _give_up(self, reason: str, verdict: Verdict | None) -> None:
        """The press's time is up and no readable board came: it is over (unreadable), press again."""
        self.pending = None
        self.outcomes.unreadable(reason, verdict, self._ply(), self.game_id)

    def _accepted(self, verdict: Verdict, frame: Frame) -> bool:
        """Journal first, then the panel; False when the journal could not take the turn."""
        before = self.referee.position
        assert verdict.turn is not None and self.game_id is not None
        ply = self.outcomes.record_turn(self.game_id, before, verdict)
        if ply is None:
            return False
        self.referee.accept(verdict)
        self.outcomes.accepted(verdict, before, ply, self.game_id, frame, self.reader, self.blank)
        st = verdict.status
        if st is not None and st.over and st.winner is not None:
            self.records.finish(self.game_id, st.result, st.reason)
            self._enter(OVER)
            self.outcomes.won(self.game_id, st.winner.name.lower(), st.result, st.reason)
            return True
        self.panel.show_turn(self.referee.position.to_move.name.lower())
        if self.phase == CHECK:  # a turn confirmed during a resume/undo check settles it
            self._enter(PLAYING)
        self.blank.show(verdict.turn_back, self.referee.position.to_move)
        self.watch.restart(self.referee.position, self.rules)
        self._status(self.status_text())
        return True

    # ================================================================ helpers
    def _ply(self) -> int:
        return len(self.referee.history) + 1

    def _log(self, kind: str, text: str, **kw: Any) -> None:
        entry = LogEntry(self.clock.now(), kind, text, **kw)
        self.log.append(entry)
        if self.on_log is not None:
            self.on_log(entry)
        self._publish()

    # ================================================================ what the loop shows of itself
    @property
    def turn_back(self) -> tuple[int, ...]:
        """R-23: the blank batteries the player to move should turn back (blank.py)."""
        return self.blank.points

    def view(self) -> GameView:
        """The game as the referee holds it now."""
        return self.onlooker.view(self.referee, self.rules, game_id=self.game_id, phase=self.phase, step=self.step,
                                  starting_side=self.starting_side, log=self.log, blank=self.turn_back,
                                  status=self.status_text())

    def _view_key(self) -> tuple:
        return (self.phase, self.step, self.game_id, len(self.referee.history), len(self.log), self.turn_back)

    def _publish(self) -> None:
        if self.started:
            self.onlooker.publish(self._view_key(), self.view)

    def _status(self, text: str) -> None:
        self.service.status(text)

    def status_text(self) -> str:
        pos = self.referee.position
        if self.phase == SETUP:
            return "waiting for the board to calibrate the camera"
        if self.phase == CHECK:
            return f"checking the board ({self.check.purpose})"
        if self.phase == OVER:
            return f"game {self.game_id} over: {self.referee.status.result}"
        return f"game {self.game_id}, turn {self._ply()}: {pos.to_move.label} to move"
