"""The companion: the game loop that referees a physical game, from setup to the win.

One :class:`Companion` wires a frame source (``companion.cameras``), the vision
reader, the :class:`~companion.referee.referee.Referee` (every decision), the
:class:`~companion.referee.journal.Journal` and the GPIO :class:`~hardware.panel.Panel`.
``netzwerk run`` drives it with real time (:meth:`Companion.run`);
``netzwerk demo``, the tests and the benchmark drive the very same
:meth:`Companion.tick` on a panel with a ``ManualClock`` (virtual time: waiting
is advancing the clock), the synthetic camera and mock pins.

Phases:

* ``setup``: no calibration yet; the loop calibrates from the frames
  (:class:`~companion.referee.calibrator.Calibrator`); amber and the reason until it works.
* ``check``: the board must show an expected position
  (:class:`~companion.referee.check.BoardCheck`: the start of a new game, the
  journal's position after a restart, the position an undo went back to).
  Amber and the pointer at the first differing field until it does; then
  play goes on (a new game is opened in the journal). During a resume or
  undo check the player to move may still confirm a turn.
* ``playing``: a confirm press (of the side whose turn LED is lit: the panel
  ignores the other) takes the next *stable* reading: one taken after the
  press whose fields have not changed for ``stable_seconds``. The referee
  judges it: accepted (journal committed first, then green, the turn passes,
  maybe the win), rejected (red, buzzer, the pointer at the pieces, the turn
  stays), unreadable (amber, the reason, the pointer at unsure fields; the
  board is read again until ``confirm_timeout``), unchanged (amber: nothing
  moved), question (two to four legal turns fit a doubtful reading: amber,
  the candidates shown in turn, a confirm press takes the one shown; see
  :mod:`companion.referee.question`).

* ``over``: the win pattern; new game (both confirms held, or the new-game
  button) waits for the start position, then starts the next game.

The phases and the turn's steps are the state machine of
:mod:`companion.referee.phases` (:meth:`Companion._enter` refuses any other
step). The loop knows a frame only as a
:class:`~companion.referee.reading.TableReading` (made by
:func:`companion.vision_bridge.table_reading`). What the loop hands off, each
in its own module: the camera's calibration (:mod:`~companion.referee.calibrator`),
the board check (:mod:`~companion.referee.check`), the journal's side records
and the frames (:mod:`~companion.referee.records`), resuming after a restart
(:mod:`~companion.referee.resume`), the amber question
(:mod:`~companion.referee.question`), live watching
(:mod:`~companion.referee.watch`).

Recalibration (``check`` and ``playing``): a bumped camera or a moved lamp
must not end the game: when the readings stay unreadable for a reason of the
whole frame while the picture keeps still, the loop calibrates again from
the last accepted board (:class:`~companion.referee.calibrator.Calibrator`).

Battery sides (R-23, option ``sides``, on by default): after an accepted turn
the batteries the camera sees on their blank side are pointed at and named
for the next player ("turn C3 back to its printed side") until the camera
sees them printed side up or the next confirm press; a note on the accepted
turn (logged as ``note``, journalled as a ``sides`` event) says when the
batteries turned blank cannot be the energy the moves used. Silent where the
camera cannot tell a side.

Live watching (option): during the robot phase every stable reading updates
the energy gauge (energy still available to the player to move) and warns
(amber blink, pointer) when a robot stands where no legal robot phase can have
brought it.
"""

from __future__ import annotations

import queue
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from hardware.pointer import PointerTarget, move_steps, targets_at

from ..cameras import CameraError, Frame, FrameSource
from ..rules.control import movable_batteries
from ..rules.masks import mask_of
from ..rules.errors import NotationError
from ..rules.geometry import BLACK, WHITE, Color, point_name
from ..rules.moves import Turn
from .journal import Journal, JournalError
from ..rules.position import Placement, Position
from .calibrator import Calibrator, gist
from .check import BoardCheck
from .log import LogEntry
from .records import GameRecords
from .resume import open_game
from .phases import ASKING, CHECK, IDLE, NEW_GAME, OVER, PLAYING, RESUME, SETUP, START, UNDO, WAITING, check_step
from .question import Question
from .recalibration import MOVED, UNSURE, frame_trouble
from .reading import TableReading
from .referee import ACCEPTED, GAME_OVER, QUESTION, REJECTED, UNCHANGED, UNREADABLE, Referee, Verdict
from .timings import LoopTimings
from .view import RECENT, GameView, Spectator, last_verdict
from .watch import LiveWatch
from ..rules.sides import PRINTED, turn_back_message
from ..rules.options import Rules
from ..vision_bridge import default_calibrate, default_reader, method_of, table_reading, teach_bare

__all__ = ["CHECK", "MOVED", "NEW_GAME", "OVER", "PLAYING", "RESUME", "SETUP", "START", "UNDO", "UNSURE",
           "Companion", "LogEntry", "LoopTimings", "frame_trouble"]


def turn_steps(turn: Turn) -> list[PointerTarget]:
    """Pointer steps showing a turn: each move's source blinking, then its destination steady."""
    return move_steps([(m.src, m.dst) for m in turn.robot_moves], [(m.src, m.dst) for m in turn.battery_moves])


# -- the reading of frames ---------------------------------------------------------------------


@dataclass
class _Seen:
    """The latest reading and how long the board has looked like this."""

    frame: Frame
    reading: TableReading
    signature: tuple
    since: float  # clock time of the first frame with this signature (consecutive frames)
    board: Placement | None


@dataclass
class _Pending:
    """A confirm press waiting for a stable reading."""

    side: str
    at: float
    shown: set = field(default_factory=set)  # interim reasons already signalled


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
        self.notifier = notifier
        self.live_watch = live_watch
        self.frames = frames
        self.records = GameRecords(journal, frames, self._log)
        self.on_log = on_log
        self.hints_enabled = hints
        self.sides_enabled = sides
        self.turn_back: tuple[int, ...] = ()  # blank batteries the player to move should turn back
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
        self.seen: _Seen | None = None
        self.pending: _Pending | None = None
        self.question: Question | None = None  # an open amber question (question.py)
        self.stopped = False
        self.started = False
        self.frames_read = 0
        self.camera_failures = 0
        self._events: queue.SimpleQueue = queue.SimpleQueue()
        self._backlog: deque = deque()
        self._last_signal: tuple | None = None
        self._last_camera_error: str | None = None
        self._failing_since: float | None = None
        self.watch = LiveWatch(panel, self._log, live_watch)
        self._watchdog_every: float | None = None
        self._last_watchdog = -1e18
        self.verdict_times: list[float] = []  # seconds from a confirm's handling to its verdict on the LEDs
        self.spectator = spectator
        self._views = 0
        self._published: tuple | None = None
        self._spectator_failed = False
        if spectator is not None:
            spectator.take_requests(self.request)

        panel.on_confirm(lambda side: self._events.put(("confirm", side)))
        panel.on_undo(lambda: self._events.put(("undo",)))
        panel.on_hint(lambda: self._events.put(("hint",)))
        panel.on_control(lambda: self._events.put(("control",)))
        panel.on_new_game(lambda: self._events.put(("new_game",)))

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
            self._journal_event("resumed", {"ply": resumed.turns})
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
            self._journal_finish(st.result, st.reason)
            self._enter(OVER)
            self.panel.show_win(st.winner.name.lower())
            self._log("win", f"{st.result}: {st.reason}")
        if self.notifier is not None:
            # READY once the camera and the panel are up (they are: both were handed in open).
            self._watchdog_every = self.timings.watchdog_seconds or self.notifier.watchdog_interval()
            self.notifier.ready(self.status_text())
        self._enter_phase_signals()
        self._publish()

    def stop(self) -> None:
        self.stopped = True
        self._events.put(("stop",))

    def close(self) -> None:
        """Stop: tell systemd, switch the panel's LEDs off (the pins stay the caller's to close)."""
        if self.notifier is not None:
            self.notifier.stopping("stopping")
        try:
            self.panel.clear_win()
        except Exception:
            pass

    def request(self, event: tuple) -> bool:
        """A request from outside the loop (the web page's controls), taken like a button press.

        Thread-safe and never blocking: the event is queued for the loop, which handles it between
        two frames. ``("confirm", side)``, ``("undo",)``, ``("new_game", options, starting_side)``
        (options: rule option names; starting_side: "white" or "black"). False for anything else.
        """
        if not event or event[0] not in ("confirm", "undo", "new_game"):
            return False
        if event[0] == "confirm" and (len(event) != 2 or event[1] not in ("white", "black")):
            return False
        if event[0] == "new_game" and len(event) not in (1, 3):
            return False
        self._events.put(tuple(event))
        return True

    def run(self) -> None:
        """Referee until :meth:`stop` (real time).

        Raises :class:`CameraError` when the camera has delivered no usable frame for
        ``camera_giveup`` seconds: under systemd (``Restart=on-failure``) the service is
        restarted, the camera opened again and the game resumed from the journal.
        """
        self.start()
        while not self.stopped:
            self.tick()
            since = self._failing_since
            if since is not None and self.clock.now() - since >= self.timings.camera_giveup:
                raise CameraError(f"no usable frame for {self.timings.camera_giveup:g} s "
                                  f"(last: {self._last_camera_error})")

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
        self._watchdog()
        self._drain()
        if self.stopped:
            return
        frame = self._grab()
        if frame is not None:
            self._observe(frame)
        if self.spectator is not None and self._view_key() != self._published:
            self._publish()  # a change no log line told (a phase entered after its line)
        self._idle(max(0.0, self.timings.poll_interval - (self.clock.now() - t0)))

    def _idle(self, seconds: float) -> None:
        if self.manual:
            self.clock.advance(seconds)  # type: ignore[attr-defined]
            return
        try:
            item = self._events.get(timeout=seconds) if seconds > 0 else self._events.get_nowait()
        except queue.Empty:
            return
        self._backlog.append(item)

    def _watchdog(self) -> None:
        if self.notifier is None or not self._watchdog_every:
            return
        now = self.clock.now()
        if now - self._last_watchdog >= self._watchdog_every:
            self._last_watchdog = now
            self.notifier.watchdog()

    def _drain(self) -> None:
        while True:
            if self._backlog:
                item = self._backlog.popleft()
            else:
                try:
                    item = self._events.get_nowait()
                except queue.Empty:
                    return
            self._handle(item)

    # ================================================================ buttons
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

    def _enter(self, phase: str) -> None:
        """Step the state machine to ``phase`` (phases.NEXT says which steps exist)."""
        check_step(self.phase, phase)
        self.phase = phase

    @property
    def step(self) -> str:
        """The turn's step: idle, waiting (a confirm press waits for its reading) or asking (a question)."""
        return ASKING if self.question is not None else WAITING if self.pending is not None else IDLE

    def _in_game(self) -> bool:
        """Is there a game to play on (not waiting for the start of a new one, not over)?"""
        if self.game_id is None or self.phase in (SETUP, OVER):
            return False
        return not (self.phase == CHECK and self.check.for_new_game)

    def _on_confirm(self, side: str) -> None:
        if not self._in_game():
            return
        if side != self.referee.position.to_move.name.lower():  # the panel checks too; never trust a stale event
            return
        if self.question is not None:
            self._chosen()
            return
        if self.pending is None:
            self.pending = _Pending(side, self.clock.now())
            self.turn_back = ()  # pointed at until the next confirm
            self.panel.clear_pointer()
            self._status(f"{side} confirmed: reading the board")

    def _on_undo(self) -> None:
        reopen = self.phase == OVER and self.game_id is not None and bool(self.referee.history)
        if not reopen and (not self._in_game() or not self.referee.history):
            self._log("undo", "nothing to take back")
            self.panel.blink_wrong_player()
            return
        try:
            record = self.journal.undo_last_turn(self.game_id)
        except JournalError as exc:
            self._log("undo", f"the undo could not be written to the journal ({exc}); nothing was taken back")
            self.panel.signal_unreadable()
            return
        last = self.referee.undo()
        self.pending = None
        self._drop_question()
        self.turn_back = ()
        assert last is not None
        if reopen:  # the winning turn was confirmed by mistake: taking it back is not a turn, the game goes on
            self.panel.clear_win()
            self._log("undo", f"game {self.game_id} reopened: the win is taken back")
        self._log("undo", f"turn {record.ply} ({record.turn}) taken back: put the board back as it was",
                  ply=record.ply, turn=record.turn)
        self._begin_check(UNDO, self.referee.position)

    def _on_hint(self) -> None:
        if not self._in_game() or self.step != IDLE:
            return
        if not self.hints_enabled:
            self._log("hint", "hints are off")
            return
        try:
            from ..hints.players import hint
        except ImportError:
            self._log("hint", "no hint engine installed")
            return
        try:
            h = hint(self.referee.position, self.rules, budget=self.timings.hint_budget, nodes=self.timings.hint_nodes)
        except Exception as exc:  # the game is over, or the engine failed: the game goes on
            self._log("hint", f"no hint: {exc}")
            return
        self.panel.show_sequence(turn_steps(h.turn))
        self._log("hint", f"{self.referee.position.to_move.label} could play {h.turn} ({h.reason})", turn=str(h.turn))

    def _on_control(self) -> None:
        if not self._in_game() or self.question is not None:
            return
        pos = self.referee.position
        own, enemy = mask_of(pos.robots(pos.to_move)), mask_of(pos.robots(pos.to_move.other))
        mask = movable_batteries(own, enemy, mask_of(pos.batteries), self.rules)
        points = tuple(p for p in range(49) if mask >> p & 1)
        if not points:
            self.panel.blink_wrong_player()
            self._log("control", f"{pos.to_move.label} controls no battery")
            return
        self.panel.show_sequence(targets_at(points=points))
        self._log("control", f"{pos.to_move.label} controls {len(points)} batteries", points=points)

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
        self._drop_question()
        self.turn_back = ()
        self.panel.clear_win()
        self._log("new-game", "new game: set up the start position")
        self._begin_check(NEW_GAME, Position.start(self.starting_side))

    # ================================================================ frames
    def _grab(self) -> Frame | None:
        try:
            frame = self.source.grab()
        except CameraError as exc:
            self._camera_failed(str(exc))
            return None
        except Exception as exc:  # a source must not take the loop down
            self._camera_failed(f"camera failed: {type(exc).__name__}: {exc}")
            return None
        self._failing_since = None
        if self._last_camera_error is not None:
            self._log("camera", "the camera delivers frames again")
            self._last_camera_error = None
            self._last_signal = None
            self._enter_phase_signals()
        return frame

    def _camera_failed(self, message: str) -> None:
        self.camera_failures += 1
        if self._failing_since is None:
            self._failing_since = self.clock.now()
        if gist(message) != gist(self._last_camera_error):  # "5 bad frames", "6 bad frames": said once
            self._last_camera_error = message
            self._log("camera", message)
            self.panel.signal_unreadable()
            self._status(message)
        if self.pending is not None and self.clock.now() - self.pending.at >= self.timings.confirm_timeout:
            self._final_unreadable(f"no frame from the camera ({message}); press confirm again", None)

    def _observe(self, frame: Frame) -> None:
        if self.reader is None:
            self._show_frame(frame.image, None, None)
            self._try_setup(frame)
            return
        try:
            seen = self.reader.read(frame.image)
            reading = table_reading(seen)
        except Exception as exc:  # a frame the reader refuses (wrong size...): report, keep going
            self._camera_failed(f"the frame cannot be read: {exc}")
            return
        self._show_frame(frame.image, getattr(self.reader, "calibration", None), seen)
        self.frames_read += 1
        if self._recalibration_due(frame, reading) and self._recalibrate(frame):
            return
        sig = reading.signature
        if self.seen is not None and self.seen.signature == sig:
            self.seen = _Seen(frame, reading, sig, self.seen.since, self.seen.board)
        else:
            self.seen = _Seen(frame, reading, sig, frame.at, reading.placement)
        stable = frame.at - self.seen.since >= self.timings.stable_seconds - 1e-9
        if self.question is not None:
            self._follow_question(stable)
        elif self.pending is not None:
            self._judge_pending(stable)
        elif self.phase == CHECK and stable:
            self._check_board()
        elif self.phase == PLAYING and stable:
            if self.turn_back:
                self._follow_turn_back()
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
        self._last_signal = None
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
        if self.game_id is not None:
            try:  # so that `netzwerk games show` tells why the readings changed here
                self.journal.record_event(self.game_id, "recalibrated", {"ply": self._ply(), "method": method_of(cal)})
            except JournalError as exc:
                self._log("info", f"recalibration not journalled: {exc}")
        self.calibrator.reset_trouble()
        self.seen = None
        self._last_signal = None
        self.watch.forget()
        if self.phase == PLAYING:
            self.panel.clear_status()
            self.panel.clear_pointer()
        self._enter_phase_signals()
        return True

    # ================================================================ checks
    def _begin_check(self, purpose: str, expected: Position) -> None:
        self.check = BoardCheck(purpose, Placement.of(expected))
        self._enter(CHECK if self.reader is not None else SETUP)
        self._last_signal = None
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
            self._signal(mismatch.key, "unreadable", mismatch.text, "check", mismatch.squares, mismatch.points)

    def _board_matches(self) -> None:
        purpose = self.check.purpose
        if purpose in (START, NEW_GAME):
            start = Position.start(self.starting_side)
            try:
                game_id = self.journal.new_game(self.rules.names(), start.to_string())
            except JournalError as exc:
                # A full disk or a journal that became unwritable: no game without a journal;
                # amber, and the next frame of the start position tries again.
                self._signal(("journal", str(exc)), "unreadable",
                             f"a new game cannot be written to the journal ({exc}); the game begins once it can",
                             "check")
                return
        self.panel.clear_status()
        self.panel.clear_pointer()
        self._last_signal = None
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

    # ================================================================ judging
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
                self._final_unreadable(reason or f"the board did not keep still for {self.timings.stable_seconds:g} s "
                                                 f"within {self.timings.confirm_timeout:g} s", None)
                return
            # A hand over the board or pieces still moving: say so once it lasts, keep reading.
            if now - pending.at >= self.timings.stable_seconds and reason is not None:
                self._interim_unreadable(reason)
            return
        t0 = time.perf_counter()
        verdict = self.referee.judge(seen.reading)
        if verdict.kind == UNREADABLE and not timed_out:
            self._interim_unreadable(verdict.reason or "the board cannot be read", verdict)
            return
        self.pending = None
        self.records.save_press(self._ply(), seen.frame.image)
        if verdict.kind == ACCEPTED:
            self._accepted(verdict, seen.frame)
        elif verdict.kind == QUESTION:
            self._ask(verdict, seen)
        elif verdict.kind == REJECTED:
            self._rejected(verdict)
        elif verdict.kind == UNREADABLE:
            self._final_unreadable(verdict.reason or "the board cannot be read", verdict)
        elif verdict.kind == UNCHANGED:
            self.panel.signal_unreadable()
            self._log("unchanged", "nothing moved since the last accepted turn: make your turn, then confirm")
        elif verdict.kind == GAME_OVER:  # pragma: no cover - the panel takes no confirm after a win
            self._log("info", verdict.reason or "the game is over")
        self.verdict_times.append(time.perf_counter() - t0)

    # ================================================================ the amber question
    def _ask(self, verdict: Verdict, seen: _Seen) -> None:
        """Two or more legal turns fit the reading: show them in turn, a confirm press takes one."""
        self.question = Question(verdict, seen.frame, seen.signature, self.clock.now())
        self.panel.signal_unreadable()
        turns = " or ".join(str(c.turn) for c in verdict.candidates)
        self._journal_event("question", {"ply": self._ply(), "candidates": [str(c.turn) for c in verdict.candidates],
                                         "fields": self.question.fields()})
        self._log("question", f"unsure at {', '.join(self.question.fields())}: which turn was it, {turns}? "
                              "Each is shown in turn; confirm takes the one shown", ply=self._ply(),
                  squares=verdict.squares, points=verdict.points)
        self._show_candidate()

    def _show_candidate(self) -> None:
        question = self.question
        assert question is not None
        shown = question.shown
        assert shown.turn is not None
        n = len(question.candidates)
        self.panel.show_sequence(turn_steps(shown.turn))
        self.panel.show_gauge(question.index + 1, n)
        self._status(f"which turn? {question.index + 1} of {n}: {shown.turn} (confirm takes it)")

    def _follow_question(self, stable: bool) -> None:
        """Show the next candidate when it is time; drop the question when the board changed."""
        question = self.question
        seen = self.seen
        assert question is not None and seen is not None
        if stable and seen.signature != question.signature:
            self._drop_question()
            self._log("question", "the board changed: the question is dropped; confirm again", ply=self._ply())
            self.panel.clear_status()
            self.panel.clear_pointer()
            self.watch.restart(self.referee.position, self.rules)
            return
        if question.due(self.clock.now(), self.timings.question_seconds):
            question.next(self.clock.now())
            self._show_candidate()

    def _chosen(self) -> None:
        """A confirm press during a question: the candidate shown is the turn."""
        question = self.question
        assert question is not None
        self.question = None
        t0 = time.perf_counter()
        self.panel.clear_gauge()  # it showed the candidate's number; the energy gauge comes back with the turn
        record = question.record(self._ply())
        if self._accepted(question.shown, question.frame):
            self._journal_event("chosen", record)
            self._log("chosen", f"a player chose {record['turn']} of {' or '.join(record['candidates'])}",
                      ply=record["ply"], turn=record["turn"])
        self.verdict_times.append(time.perf_counter() - t0)

    def _drop_question(self) -> None:
        if self.question is not None:
            self.question = None
            self.panel.clear_gauge()

    def _interim_unreadable(self, reason: str, verdict: Verdict | None = None) -> None:
        pending = self.pending
        assert pending is not None
        squares = verdict.squares if verdict is not None else ()
        points = verdict.points if verdict is not None else ()
        if reason in pending.shown:
            return
        pending.shown.add(reason)
        self.panel.signal_unreadable()
        if squares or points:
            self.panel.show_sequence(targets_at(squares, points, blink=True))
        else:
            self.panel.clear_pointer()
        self._journal_rejection(UNREADABLE, reason, None)
        self._log("unreadable", f"{reason} (reading again)", ply=self._ply(), squares=squares, points=points)

    def _final_unreadable(self, reason: str, verdict: Verdict | None) -> None:
        self.pending = None
        squares = verdict.squares if verdict is not None else ()
        points = verdict.points if verdict is not None else ()
        self.panel.signal_unreadable()
        if squares or points:
            self.panel.show_sequence(targets_at(squares, points, blink=True))
        self._journal_rejection(UNREADABLE, reason, None)
        self._log("unreadable", f"{reason}; press confirm again", ply=self._ply(), squares=squares, points=points)

    def _learn_bare(self, frame: Frame, position: Position) -> None:
        """Let the camera learn the bare board of squares this accepted turn left empty.

        The calibration frame shows the bare board only off the start ranks;
        each accepted frame shows more of it (:func:`companion.vision_bridge.teach_bare`).
        Information only: a failure is logged, never stops the game.
        """
        try:
            teach_bare(self.reader, frame.image, position)
        except Exception as exc:  # the turn is accepted and journaled either way
            self._log("camera", f"the bare board was not learned from this frame ({exc})")

    def _accepted(self, verdict: Verdict, frame: Frame) -> bool:
        """Journal first, then the panel; False when the journal could not take the turn."""
        before = self.referee.position
        assert verdict.turn is not None and self.game_id is not None
        try:
            record = self.journal.record_turn(self.game_id, before.to_string(), verdict.position.to_string(),
                                              str(verdict.turn), confidences=verdict.confidences or None)
        except JournalError as exc:
            # Never light "accepted" for a turn that is not on disk.
            self.panel.signal_unreadable()
            self._log("unreadable", f"the turn {verdict.turn} could not be written to the journal ({exc}); "
                                    "press confirm again")
            return False
        self.referee.accept(verdict)
        self.panel.clear_pointer()
        self.panel.signal_accepted()
        self._learn_bare(frame, verdict.position)
        st = verdict.status
        self.turn_back = tuple(verdict.turn_back)  # on the accepted turn's view already (the page's board)
        self._log("accepted", f"{before.to_move.label}: {verdict.turn}", ply=record.ply, turn=str(verdict.turn))
        if verdict.note:
            self._journal_event("sides", {"ply": record.ply, "note": verdict.note,
                                          "points": [point_name(p) for p in verdict.note_points]})
            self._log("note", f"{before.to_move.label}'s turn {record.ply}: {verdict.note} (R-23)", ply=record.ply,
                      squares=verdict.note_squares, points=verdict.note_points)
        if st is not None and st.over and st.winner is not None:
            self._journal_finish(st.result, st.reason)
            self._enter(OVER)
            self.panel.clear_gauge()
            self.panel.show_win(st.winner.name.lower())
            self._log("win", f"{st.result}: {st.reason}")
            self._status(f"game {self.game_id}: {st.result}")
            return True
        self.panel.show_turn(self.referee.position.to_move.name.lower())
        if self.phase == CHECK:  # a turn confirmed during a resume/undo check settles it
            self._enter(PLAYING)
        self._show_turn_back(verdict.turn_back)
        self.watch.restart(self.referee.position, self.rules)
        self._status(self.status_text())
        return True

    def _rejected(self, verdict: Verdict) -> None:
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
                after = Position(b.white, b.black, b.batteries, self.referee.position.to_move.other).to_string()
            except NotationError:
                after = None
        self._journal_rejection(REJECTED, reason, after)
        self._log("rejected", reason, ply=self._ply(), squares=verdict.squares, points=verdict.points)

    def _journal_event(self, kind: str, detail: Any = None) -> None:
        self.records.event(self.game_id, kind, detail)

    def _journal_finish(self, result: str, reason: str) -> None:
        self.records.finish(self.game_id, result, reason)

    def _journal_rejection(self, kind: str, reason: str, after: str | None) -> None:
        self.records.rejection(self.game_id, kind, reason, after)

    # ================================================================ battery sides
    def _show_turn_back(self, points: tuple[int, ...]) -> None:
        """Point at the blank batteries and name them for the player to move."""
        self.turn_back = tuple(points)
        if not points:
            return
        self.panel.show_sequence(targets_at(points=points))
        self._log("sides", f"{self.referee.position.to_move.label}: {turn_back_message(points)}", points=points)

    def _follow_turn_back(self) -> None:
        """Stop pointing at a battery once the camera sees it printed side up."""
        seen = self.seen
        assert seen is not None
        sides = seen.reading.sides_of(set(self.turn_back))
        left = tuple(p for p in self.turn_back if sides.get(p) != PRINTED)
        if left == self.turn_back:
            return
        self.turn_back = left
        if left:
            self.panel.show_sequence(targets_at(points=left))
        else:
            self.panel.clear_pointer()

    # ================================================================ helpers
    def _signal(self, key: tuple, kind: str, text: str, log_kind: str, squares=(), points=()) -> None:
        """Show a lasting signal (amber/pointer) and log it, once per distinct key."""
        if key == self._last_signal:
            return
        self._last_signal = key
        if kind == "unreadable":
            self.panel.signal_unreadable()
        if squares or points:
            self.panel.show_sequence(targets_at(tuple(squares), tuple(points), blink=True))
        else:
            self.panel.clear_pointer()
        self._log(log_kind, text, squares=tuple(squares), points=tuple(points))
        self._status(text)

    def _ply(self) -> int:
        return len(self.referee.history) + 1

    def _log(self, kind: str, text: str, **kw: Any) -> None:
        entry = LogEntry(self.clock.now(), kind, text, **kw)
        self.log.append(entry)
        if self.on_log is not None:
            self.on_log(entry)
        self._publish()

    # ================================================================ the onlooker (view.py)
    def view(self) -> GameView:
        """The game as the referee holds it now (cheap: strings and tuples the loop already has)."""
        ref = self.referee
        st = ref.status
        over = self.phase == OVER and st.over
        self._views += 1
        return GameView(
            seq=self._views, game_id=self.game_id, phase=self.phase, step=self.step,
            position=ref.position.to_string(),
            start=(ref.history[0].before if ref.history else ref.position).to_string(),
            turns=tuple(str(t.turn) for t in ref.history), options=tuple(self.rules.names()),
            starting_side=self.starting_side.name.lower(),
            result=st.result if over else None, reason=st.reason if over else None,
            last_verdict=last_verdict(self.log), blank=tuple(self.turn_back),
            status=self.status_text(), recent=tuple(self.log[-RECENT:]),
        )

    def _view_key(self) -> tuple:
        return (self.phase, self.step, self.game_id, len(self.referee.history), len(self.log), self.turn_back)

    def _publish(self) -> None:
        if self.spectator is None or not self.started:
            return
        self._published = self._view_key()
        try:
            self.spectator.game_changed(self.view())
        except Exception as exc:  # an onlooker's fault never stops the game
            self._spectator_trouble(exc)

    def _show_frame(self, image: Any, calibration: Any, reading: Any) -> None:
        if self.spectator is None:
            return
        try:
            self.spectator.frame_seen(image, calibration, reading)
        except Exception as exc:
            self._spectator_trouble(exc)

    def _spectator_trouble(self, exc: Exception) -> None:
        if not self._spectator_failed:  # said once; the game goes on
            self._spectator_failed = True
            self._log("info", f"the onlooker (web page) failed: {type(exc).__name__}: {exc}; the game goes on")

    def _status(self, text: str) -> None:
        if self.notifier is not None:
            self.notifier.status(text)

    def status_text(self) -> str:
        pos = self.referee.position
        if self.phase == SETUP:
            return "waiting for the board to calibrate the camera"
        if self.phase == CHECK:
            return f"checking the board ({self.check.purpose})"
        if self.phase == OVER:
            return f"game {self.game_id} over: {self.referee.status.result}"
        return f"game {self.game_id}, turn {self._ply()}: {pos.to_move.label} to move"
