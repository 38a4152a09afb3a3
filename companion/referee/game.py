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
* ``playing``: a confirm press (of the side whose turn LED is lit) waits for the next
  *stable* reading: one taken after the press whose fields have not changed for
  ``stable_seconds`` (:mod:`~companion.referee.press`). The referee judges it; the
  verdict's outcome is one call (:mod:`~companion.referee.outcomes`: accepted, journal
  first; rejected; unreadable, read again until ``confirm_timeout``; unchanged; the amber
  question: :mod:`~companion.referee.question`). Between presses: live watching
  (:mod:`~companion.referee.watch`) and the batteries to turn back (R-23,
  :mod:`~companion.referee.blank`).
* ``over``: the win pattern; a new game waits for the start position.

The loop holds the state (the phase, the referee, the game, the pending press, the
latest reading) and steps it; the parts show and write, each given its inputs: the
buttons' effects (:mod:`~companion.referee.buttons`), the journal's side records and
the frames (:mod:`~companion.referee.records`), resuming after a restart
(:mod:`~companion.referee.resume`), the status line and the turn LED of a phase
(:mod:`~companion.referee.status`), systemd (:mod:`~companion.referee.systemd`), the
web page (:mod:`~companion.referee.onlooker`). A bumped camera or a moved lamp is
calibrated again from the last accepted board during ``check`` and ``playing``
(:class:`~companion.referee.calibrator.Calibrator`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from ..cameras import Frame, FrameSource
from ..rules.geometry import BLACK, WHITE, Color
from ..rules.errors import NotationError
from ..rules.options import Rules, new_game_choice
from ..rules.position import Placement, Position
from ..vision_bridge import default_calibrate, default_reader
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
from .phases import ASKING, CHECK, IDLE, NEW_GAME, OVER, PLAYING, RESUME, SETUP, START, UNDO, WAITING, check_step
from .press import Pending, Presses
from .question import Asking, Question
from .reading import Seen
from .recalibration import MOVED, UNSURE, frame_trouble
from .records import GameRecords
from .referee import Referee, Verdict
from .resume import open_game
from .sight import CALIBRATED, NO_FRAME, READ, RECALIBRATED, Sight
from .status import show_phase, status_text
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

    def __init__(self, panel: Any, source: FrameSource, journal: Journal, *, rules: Rules = Rules(),
                 starting_side: Color = WHITE, timings: LoopTimings = LoopTimings(), calibration: Any = None,
                 corners: Any = None, white_side: str | None = None, calibration_path: str | Path | None = None,
                 calibrate: Callable[..., Any] = default_calibrate,
                 make_reader: Callable[[Any], Any] = default_reader, notifier: Any = None, live_watch: bool = False,
                 frames: Any = None, on_log: Callable[[LogEntry], Any] | None = None, hints: bool = True,
                 sides: bool = True, spectator: Spectator | None = None) -> None:
        self.panel = panel
        self.source = source
        self.journal = journal
        self.rules = rules
        self.starting_side = starting_side
        self.timings = timings
        self.live_watch = live_watch
        self.frames = frames
        self.on_log = on_log
        self.sides_enabled = sides
        self.clock = panel.clock
        self.manual = bool(getattr(self.clock, "manual", False))

        # the state the loop steps
        self.referee = Referee(rules, Position.start(starting_side), sides=sides)
        self.game_id: int | None = None
        self.phase = SETUP  # the state machine's phase (phases.py); changed only by _enter
        self.check = BoardCheck(START, Placement.of(self.referee.position))
        self.seen: Seen | None = None  # the latest reading, and since when the board looks like this
        self.log: list[LogEntry] = []
        self.stopped = False
        self.started = False

        # the parts it hands off to, each with its inputs (log and status: the loop's log and systemd line)
        log, status = self._log, self._status
        self.service = ServiceNotes(notifier, timings.watchdog_seconds)  # what systemd is told (systemd.py)
        self.records = GameRecords(journal, frames, log)
        self.blank = BlankBatteries(panel, log)  # the batteries to turn back (blank.py)
        self.calibrator = Calibrator(panel, timings, log, status, calibration=calibration, corners=corners,
                                     white_side=white_side,
                                     calibration_path=Path(calibration_path) if calibration_path else None,
                                     calibrate=calibrate, make_reader=make_reader)
        self.inbox = Inbox()
        self.signal = CheckSignal(panel, log, status)
        self.camera = CameraWatch(source, panel, log, status)
        self.watch = LiveWatch(panel, log, live_watch)
        self.asking = Asking(panel, self.records, log, status, timings.question_seconds)
        self.outcomes = Outcomes(panel, journal, self.records, log, status)
        self.presses = Presses(panel, timings, self.asking, self.outcomes, self.records, self.blank, self._accepted,
                               status)
        self.buttons = Buttons(panel, journal, log, timings, hints)
        self.onlooker = Onlooker(spectator, log)
        self.sight = Sight(self.camera, self.calibrator, self.onlooker, self.records, self._frames_back)
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
    def pending(self) -> Pending | None:
        """A confirm press waiting for its reading (press.py), if any."""
        return self.presses.pending

    @property
    def verdict_times(self) -> list[float]:
        """Seconds from each confirm press's handling to its verdict on the LEDs."""
        return self.presses.verdict_times

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
            self.rules, self.referee, self.game_id = resumed.rules, resumed.referee, resumed.game_id
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
        while (event := self.inbox.take()) is not None:
            self._handle(event)
        if self.stopped:
            return
        self._frame()
        if self.onlooker.stale(self._view_key()):
            self._publish()  # a change no log line told (a phase entered after its line)
        wait = max(0.0, self.timings.poll_interval - (self.clock.now() - t0))
        if self.manual:
            self.clock.advance(wait)  # type: ignore[attr-defined]
        else:
            self.inbox.wait(wait)

    # ================================================================ events in: buttons and requests (inbox.py)
    def _handle(self, event: tuple) -> None:
        kind, args = event[0], event[1:]
        if kind == "stop":
            self.stopped = True
        elif kind == "confirm":
            self._on_confirm(*args)
        elif kind == "undo":
            self._on_undo()
        elif kind == "hint" and self._in_game() and self.step == IDLE:
            self.buttons.hint(self.referee.position, self.rules)
        elif kind == "control" and self._in_game() and self.question is None:
            self.buttons.control(self.referee.position, self.rules)
        elif kind == "new_game":
            self._on_new_game(*args)

    def _on_confirm(self, side: str) -> None:
        # the panel checks the side too; never trust a stale event
        if self._in_game() and side == self.referee.position.to_move.name.lower():
            self.presses.press(side, self._ply(), self.game_id)

    def _on_undo(self) -> None:
        reopen = self.phase == OVER and self.game_id is not None and bool(self.referee.history)
        if not reopen and (not self._in_game() or not self.referee.history):
            self.buttons.nothing_to_undo()
            return
        record = self.buttons.undo(self.game_id)
        if record is None:
            return
        self.referee.undo()
        self.presses.drop()
        self.buttons.undone(record, self.game_id, reopen)
        self._begin_check(UNDO, self.referee.position)

    def _on_new_game(self, options: Any = None, starting_side: str | None = None) -> None:
        if options is not None or starting_side is not None:  # the page's new game: its options and who begins
            try:
                names, side = new_game_choice(() if options is None else options,
                                              "white" if starting_side is None else starting_side)
            except NotationError as exc:  # the inbox refuses these already: an event put by hand
                self._log("new-game", f"no new game: {exc}")
                return
            self.rules = Rules.from_names(names)
            self.starting_side = BLACK if side == "black" else WHITE
        if self.phase == SETUP:
            self.check = BoardCheck(NEW_GAME, Placement.of(Position.start(self.starting_side)))
            return
        self.presses.drop()
        self.panel.clear_win()
        self._log("new-game", "new game: set up the start position")
        self._begin_check(NEW_GAME, Position.start(self.starting_side))

    # ================================================================ a frame in (sight.py)
    @property
    def reader(self) -> Any:
        """The vision reader of the current calibration (None before setup)."""
        return self.calibrator.reader

    @property
    def recalibrations(self) -> int:
        return self.calibrator.recalibrations

    @property
    def frames_read(self) -> int:
        return self.sight.frames_read

    def _frame(self) -> None:
        look = self.sight.look(self.phase, self.check, self.referee, self.game_id, self.step == IDLE)
        if look.kind == NO_FRAME:
            self.presses.no_frame(self.camera.message, self._ply(), self.game_id)
        elif look.kind in (CALIBRATED, RECALIBRATED):
            self._calibrated(look.kind == RECALIBRATED)
        elif look.kind == READ:
            assert look.frame is not None and look.reading is not None
            self._seen(Seen.after(self.seen, look.frame, look.reading))


    def _frames_back(self) -> None:
        """Usable frames again after a camera failure: the phase's signals again."""
        self.signal.reset()
        self._enter_phase_signals()

    def _calibrated(self, again: bool) -> None:
        """A new calibration (``again``: mid-game): the readings begin afresh."""
        if again:
            self.watch.forget()
            if self.phase == PLAYING:
                self.panel.clear_status()
                self.panel.clear_pointer()
        elif self.phase == SETUP:
            self._enter(CHECK)
        self.seen = None
        self.signal.reset()
        self._enter_phase_signals()

    def _seen(self, seen: Seen) -> None:
        """The latest reading: the step of the turn, else of the phase."""
        self.seen = seen
        stable = seen.stable(self.timings.stable_seconds)
        if self.question is not None:
            if self.asking.follow(seen.signature, stable, self._ply()):
                self.watch.restart(self.referee.position, self.rules)
        elif self.pending is not None:
            self.presses.reading(seen, stable, self.referee, self._ply(), self.game_id)
        elif self.phase == CHECK and stable:
            self._check_board()
        elif self.phase == PLAYING and stable:
            if self.blank.points:
                self.blank.follow(seen.reading)
            self.watch.see(seen.board, self.referee.position, self.rules)

    # ================================================================ check (check.py)
    def _begin_check(self, purpose: str, expected: Position) -> None:
        self.check = BoardCheck(purpose, Placement.of(expected))
        self._enter(CHECK if self.reader is not None else SETUP)
        self.signal.reset()
        self._enter_phase_signals()

    def _check_board(self) -> None:
        seen = self.seen
        assert seen is not None
        mismatch = self.check.look(seen.board, seen.reading, self.referee.min_field_prob)
        if mismatch is None:
            self._board_matches(seen)
        else:
            self.signal.show(mismatch.key, mismatch.text, mismatch.squares, mismatch.points)

    def _board_matches(self, seen: Seen) -> None:
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
            self.records.start_frames(self.game_id, seen.frame.image, self.rules.names(), start.to_string())
        else:
            self._log("check", "the board matches the journal: play on" if purpose == RESUME
                      else "the board is back as it was: play on")
        self.referee.see_sides(seen.reading)  # the sides the next turn is compared with
        self._enter(PLAYING)
        self._enter_phase_signals()
        self.watch.restart(self.referee.position, self.rules)

    # ================================================================ playing: a turn taken
    def _accepted(self, verdict: Verdict, frame: Frame) -> bool:
        """An accepted verdict (a press judged, or a question's candidate chosen: press.py) is the
        turn: journal first, then the panel; False when the journal could not take the turn."""
        before = self.referee.position
        assert verdict.turn is not None and self.game_id is not None
        ply = self.outcomes.record_turn(self.game_id, before, verdict)
        if ply is None:
            return False
        self.referee.accept(verdict)
        self.outcomes.accepted(verdict, before, ply, self.game_id, self.blank)
        st = verdict.status
        if st is not None and st.over and st.winner is not None:
            self.records.finish(self.game_id, st.result, st.reason)
            self._enter(OVER)
            self.outcomes.won(self.game_id, st.winner.name.lower(), st.result, st.reason)
        else:
            self.panel.show_turn(self.referee.position.to_move.name.lower())
            if self.phase == CHECK:  # a turn confirmed during a resume/undo check settles it
                self._enter(PLAYING)
            self.blank.show(verdict.turn_back, self.referee.position.to_move)
            self.watch.restart(self.referee.position, self.rules)
            self._status(self.status_text())
        self.outcomes.learn_bare(self.reader, frame, verdict.position)  # after the verdict is out
        return True

    # ================================================================ what the loop shows of itself
    def _ply(self) -> int:
        return len(self.referee.history) + 1

    def _log(self, kind: str, text: str, **kw: Any) -> None:
        entry = LogEntry(self.clock.now(), kind, text, **kw)
        self.log.append(entry)
        if self.on_log is not None:
            self.on_log(entry)
        self._publish()

    def _status(self, text: str) -> None:
        self.service.status(text)

    def status_text(self) -> str:
        """The status line (status.py): systemd's and the web page's."""
        return status_text(self.phase, self.check, self.game_id, self.referee)

    def _enter_phase_signals(self) -> None:
        show_phase(self.panel, self._status, self.phase, self.check, self.game_id, self.referee)

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
