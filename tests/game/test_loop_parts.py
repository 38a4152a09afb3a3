"""The game loop's parts on their own (the loop's tests drive them together): the inbox, the camera
watch, the notes to systemd, the latest reading, a verdict's outcomes, the question walk, the
batteries to turn back, the check's signal, the onlooker and the buttons."""

from __future__ import annotations

import numpy as np
import pytest

from fake_readings import reading_of
from companion.cameras import CameraError, Frame
from companion.referee.blank import BlankBatteries
from companion.referee.buttons import Buttons
from companion.referee.calibrator import Calibrator
from companion.referee.camera import CameraWatch
from companion.referee.check import CheckSignal
from companion.referee.inbox import Inbox
from companion.referee.journal import Journal
from companion.referee.log import gist
from companion.referee.onlooker import Onlooker
from companion.referee.outcomes import Outcomes
from companion.referee.check import BoardCheck
from companion.referee.phases import CHECK, OVER, PLAYING, SETUP, UNDO
from companion.referee.phases import START as START_CHECK
from companion.referee.press import AGAIN, GIVE_UP, JUDGED, WAIT, Pending, Presses, PressStep, press_step
from companion.referee.sight import CALIBRATED, NO_FRAME, NOT_YET, READ, Look, Sight
from companion.referee.status import show_phase, status_text, turn_light
from companion.referee.question import Asking
from companion.referee.reading import Seen, TableReading
from companion.referee.records import GameRecords
from companion.referee.referee import ACCEPTED, QUESTION, REJECTED, UNREADABLE, Referee, Verdict
from companion.referee.systemd import ServiceNotes
from companion.referee.timings import LoopTimings
from companion.referee.view import GameView
from companion.rules.engine import apply_turn
from companion.rules.geometry import WHITE, parse_point, parse_square
from companion.rules.moves import Turn
from companion.rules.options import Rules
from companion.rules.position import Placement, Position
from hardware.mockpins import MockPanelFactory
from hardware.panel import Panel
from hardware.timing import ManualClock
from vision.reading import unreadable

START = Position.start()


class Log:
    """The loop's log as the parts get it: ``log(kind, text, **where)``."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, str, dict]] = []

    def __call__(self, kind: str, text: str, **where) -> None:
        self.lines.append((kind, text, where))

    def kinds(self) -> list[str]:
        return [kind for kind, _, _ in self.lines]


@pytest.fixture
def panel():
    p = Panel(None, MockPanelFactory(), clock=ManualClock())
    yield p
    p.close()


@pytest.fixture
def journal(tmp_path):
    with Journal(tmp_path / "journal.sqlite") as j:
        yield j


def pointer(panel: Panel) -> list[str]:
    return [t.name for t in panel.state().pointer_targets]


def frame(at: float) -> Frame:
    return Frame(np.zeros((1, 1, 3), np.uint8), at, 0)


# -- the inbox ---------------------------------------------------------------------------------


def test_inbox_takes_valid_requests_only_and_keeps_the_order() -> None:
    inbox = Inbox()
    for bad in [(), ("stop",), ("hint",), ("confirm",), ("confirm", "red"), ("new_game", ("stacking",)),
                ("confirm", "white", "x"), ("new_game", ("nope",), "white"), ("new_game", "stacking", "white"),
                ("new_game", (1,), "white"), ("new_game", ("stacking",), "purple"),
                ("new_game", ["stacking", None], "white"),
                ("new_game", ["stacking"], "black")]:  # stacking: not refereed from the camera yet
        assert inbox.request(bad) is False
    assert inbox.take() is None
    assert inbox.request(["confirm", "black"]) and inbox.request(("undo",))
    assert inbox.request(("new_game", ["must-capture"], "black")) and inbox.request(("new_game",))
    inbox.put(("stop",))
    assert [inbox.take() for _ in range(6)] == [("confirm", "black"), ("undo",),
                                                ("new_game", ["must-capture"], "black"), ("new_game",), ("stop",), None]


def test_inbox_wait_ends_with_an_event_and_keeps_it() -> None:
    inbox = Inbox()
    inbox.wait(0)  # nothing there: returns at once
    inbox.put(("hint",))
    inbox.put(("control",))
    inbox.wait(5.0)  # returns at once: an event is there
    assert inbox.take() == ("hint",) and inbox.take() == ("control",) and inbox.take() is None


# -- the camera watch --------------------------------------------------------------------------


class Source:
    def __init__(self, clock) -> None:  # noqa: ANN001
        self.clock = clock
        self.failure: Exception | None = None

    def grab(self) -> Frame:
        if self.failure is not None:
            raise self.failure
        return frame(self.clock.now())


def test_camera_watch_says_a_failure_once_and_when_frames_come_back(panel) -> None:
    log, status = Log(), []
    source = Source(panel.clock)
    camera = CameraWatch(source, panel, log, status.append)
    assert camera.grab() is not None and not camera.usable() and log.lines == []
    source.failure = CameraError("5 bad frames")
    assert camera.grab() is None
    source.failure = CameraError("6 bad frames")  # the same failure, other numbers
    panel.clock.advance(1.0)
    assert camera.grab() is None
    source.failure = RuntimeError("cable")
    assert camera.grab() is None
    assert log.lines == [("camera", "5 bad frames", {}), ("camera", "camera failed: RuntimeError: cable", {})]
    assert camera.failures == 3 and camera.message == "camera failed: RuntimeError: cable"
    assert status == ["5 bad frames", "camera failed: RuntimeError: cable"]
    assert panel.state().status == "unreadable"
    source.failure = None
    assert camera.grab() is not None
    assert camera.usable() and not camera.usable()
    assert log.lines[-1] == ("camera", "the camera delivers frames again", {})


def test_camera_watch_gives_up_after_a_run_of_failures(panel) -> None:
    source = Source(panel.clock)
    camera = CameraWatch(source, panel, Log(), lambda text: None)
    camera.give_up_after(10.0)  # never failed
    source.failure = CameraError("no frame")
    camera.grab()
    panel.clock.advance(9.9)
    camera.failed("the frame cannot be read: 7 x 7")
    camera.give_up_after(10.0)  # the run began 9.9 s ago
    panel.clock.advance(0.1)
    with pytest.raises(CameraError, match=r"no usable frame for 10 s \(last: the frame cannot be read: 7 x 7\)"):
        camera.give_up_after(10.0)
    source.failure = None
    camera.grab()  # a frame grabbed but not read (the reader may refuse it) does not end the run
    with pytest.raises(CameraError):
        camera.give_up_after(10.0)
    camera.usable()  # a frame read ends it
    camera.give_up_after(10.0)


class VisionReader:
    def __init__(self, failure: Exception | None = None) -> None:
        self.failure = failure

    def read(self, image):  # noqa: ANN001, ANN201
        if self.failure is not None:
            raise self.failure
        return unreadable("the frame is black")


def test_camera_watch_reads_a_frame_or_says_the_refusal_once(panel) -> None:
    log = Log()
    camera = CameraWatch(Source(panel.clock), panel, log, lambda text: None)
    seen, reading = camera.read(frame(0.0), VisionReader())
    assert isinstance(reading, TableReading) and not reading.readable and reading.reason == "the frame is black"
    assert camera.read(frame(0.1), VisionReader(ValueError("frame of 7 x 7"))) is None
    assert camera.read(frame(0.2), VisionReader(ValueError("frame of 8 x 8"))) is None
    assert log.lines == [("camera", "the frame cannot be read: frame of 7 x 7", {})]
    assert camera.failures == 2 and panel.state().status == "unreadable"


class Calibrate:
    """The vision's calibration as the loop calls it: refuses until ``works``, then a named calibration."""

    def __init__(self) -> None:
        self.works = False
        self.expected: list = []

    def __call__(self, image, expected, corners=None, white_side=None, colours=None):  # noqa: ANN001, ANN204
        self.expected.append(expected)
        if not self.works:
            raise ValueError("no board in the picture")
        return "calibration"


def sight(panel, source, reader, log, back: list) -> tuple[Sight, Calibrate]:  # noqa: ANN001
    calibrate = Calibrate()
    calibrator = Calibrator(panel, LoopTimings(calibration_retry=0.0), log, lambda text: None, calibration=None,
                            corners=None, white_side=None, calibration_path=None, calibrate=calibrate,
                            make_reader=lambda cal: reader)
    camera = CameraWatch(source, panel, log, lambda text: None)
    return Sight(camera, calibrator, Onlooker(None, log), GameRecords(None, None, log), lambda: back.append(1)), \
        calibrate


def test_sight_calibrates_at_setup_then_reads_and_says_when_frames_come_back(panel) -> None:
    log, back = Log(), []
    source, reader = Source(panel.clock), VisionReader()
    eyes, calibrate = sight(panel, source, reader, log, back)
    check, referee = BoardCheck(START_CHECK, Placement.of(START)), Referee(Rules(), START)
    assert eyes.look(SETUP, check, referee, None, True).kind == NOT_YET
    assert calibrate.expected == [Placement.of(START)] and "no board in the picture" in log.lines[-1][1]
    calibrate.works = True
    assert eyes.look(SETUP, check, referee, None, True).kind == CALIBRATED and eyes.reader is reader
    look = eyes.look(CHECK, check, referee, None, True)
    assert look.kind == READ and look.reading.reason == "the frame is black" and eyes.frames_read == 1
    source.failure = CameraError("unplugged")
    assert eyes.look(CHECK, check, referee, None, True) == Look(NO_FRAME)
    source.failure = None
    reader.failure = ValueError("frame of 7 x 7")
    assert eyes.look(CHECK, check, referee, None, True).kind == NO_FRAME and back == []  # grabbed, not usable
    reader.failure = None
    assert eyes.look(CHECK, check, referee, None, True).kind == READ and back == [1] and eyes.frames_read == 2
    assert log.lines[-1] == ("camera", "the camera delivers frames again", {})


def test_gist_blots_out_numbers() -> None:
    assert gist("5 bad frames in 1.5 s") == gist("12 bad frames in 3 s") == "# bad frames in # s"
    assert gist(None) is None


# -- the notes to systemd ----------------------------------------------------------------------


class Notifier:
    def __init__(self, interval: float | None) -> None:
        self.interval = interval
        self.sent: list[str] = []

    def watchdog_interval(self) -> float | None:
        return self.interval

    def ready(self, status: str) -> None:
        self.sent.append(f"READY {status}")

    def status(self, text: str) -> None:
        self.sent.append(f"STATUS {text}")

    def watchdog(self) -> None:
        self.sent.append("WATCHDOG")

    def stopping(self, text: str) -> None:
        self.sent.append(f"STOPPING {text}")


@pytest.mark.parametrize("seconds, interval", [(0.0, 2.0), (2.0, 30.0)])
def test_service_notes_tell_the_watchdog_when_due_once_ready(seconds: float, interval: float) -> None:
    notifier = Notifier(interval)
    notes = ServiceNotes(notifier, seconds)
    notes.watchdog(0.0)  # not ready yet: no interval known
    notes.ready("waiting")
    for now in (0.0, 1.0, 1.9, 2.0, 3.5, 4.0):
        notes.watchdog(now)
    notes.status("playing")
    notes.stopping()
    assert notifier.sent == ["READY waiting", "WATCHDOG", "WATCHDOG", "WATCHDOG", "STATUS playing",
                             "STOPPING stopping"]


def test_service_notes_without_a_notifier_or_a_watchdog_tell_nothing() -> None:
    notes = ServiceNotes(None, 1.0)
    notes.ready("x"), notes.status("y"), notes.watchdog(5.0), notes.stopping()
    notifier = Notifier(None)
    notes = ServiceNotes(notifier, 0.0)
    notes.ready("x")
    notes.watchdog(100.0)
    assert notifier.sent == ["READY x"]


# -- the latest reading and the waiting press ----------------------------------------------------


def test_seen_keeps_since_when_the_board_looks_alike() -> None:
    start, moved = Placement.of(START), Placement.of(apply_turn(START, "c1-c3"))
    seen = Seen.after(None, frame(1.0), reading_of(start, layout=start))
    assert seen.since == 1.0 and seen.board == start and not seen.stable(0.5)
    seen = Seen.after(seen, frame(1.3), reading_of(start, layout=start))
    assert seen.since == 1.0 and not seen.stable(0.5)
    seen = Seen.after(seen, frame(1.5), reading_of(start, layout=start))
    assert seen.frame.at == 1.5 and seen.stable(0.5)
    seen = Seen.after(seen, frame(1.6), reading_of(moved, layout=moved))
    assert seen.since == 1.6 and seen.board == moved and not seen.stable(0.5)


def test_a_pending_press_starts_with_nothing_said() -> None:
    a, b = Pending("white", 1.0), Pending("white", 1.0)
    a.shown.add("a hand")
    assert b.shown == set()


class Judge:
    """The referee's judgement as the waiting press sees it: a fixed verdict, the readings it was asked about."""

    def __init__(self, verdict: Verdict) -> None:
        self.verdict = verdict
        self.asked: list = []

    def __call__(self, reading):  # noqa: ANN001, ANN204
        self.asked.append(reading)
        return self.verdict


TIMES = LoopTimings(stable_seconds=0.5, confirm_timeout=10.0)
MOVED = Placement.of(apply_turn(START, "c1-c3"))


def seen_at(at: float, since: float, reading=None) -> Seen:  # noqa: ANN001
    reading = reading if reading is not None else reading_of(MOVED, layout=MOVED)
    return Seen(frame(at), reading, reading.signature, since, reading.placement)


def test_a_press_waits_for_a_stable_reading_taken_after_it() -> None:
    judge = Judge(Verdict(ACCEPTED, apply_turn(START, "c1-c3"), turn=Turn.parse("c1-c3")))
    pending = Pending("white", 5.0)
    assert press_step(pending, seen_at(4.9, 3.0), True, 5.0, TIMES, judge).kind == WAIT  # taken before the press
    assert press_step(pending, seen_at(5.1, 5.0), False, 5.1, TIMES, judge).kind == WAIT  # still moving
    assert judge.asked == []
    step = press_step(pending, seen_at(5.5, 5.0), True, 5.5, TIMES, judge)
    assert step == PressStep(JUDGED, verdict=judge.verdict) and len(judge.asked) == 1


def test_an_unreadable_board_is_read_again_until_the_timeout() -> None:
    hand = unreadable_reading("a hand over the board")
    pending = Pending("white", 5.0)
    judge = Judge(Verdict(UNREADABLE, START, reason="unsure at c3"))
    assert press_step(pending, seen_at(5.2, 5.2, hand), False, 5.2, TIMES, judge).kind == WAIT  # said once it lasts
    assert press_step(pending, seen_at(5.6, 5.6, hand), False, 5.6, TIMES, judge) == PressStep(AGAIN, "a hand over the board")
    assert press_step(pending, seen_at(6.0, 5.0), True, 6.0, TIMES, judge) == \
        PressStep(AGAIN, "unsure at c3", judge.verdict)
    assert press_step(pending, seen_at(15.0, 14.0), True, 15.0, TIMES, judge) == PressStep(JUDGED, verdict=judge.verdict)
    assert press_step(pending, seen_at(15.0, 14.9, hand), False, 15.0, TIMES, judge) == \
        PressStep(GIVE_UP, "a hand over the board")
    assert press_step(pending, seen_at(15.0, 14.9), False, 15.0, TIMES, judge) == \
        PressStep(GIVE_UP, "the board did not keep still for 0.5 s within 10 s")
    assert len(judge.asked) == 2  # only stable readings are judged


def unreadable_reading(reason: str) -> TableReading:
    return TableReading(False, reason, occluded_fraction=0.3, covered=True)


def presses(panel, journal, log, taken: list) -> Presses:  # noqa: ANN001
    records = GameRecords(journal, None, log)
    asking = Asking(panel, records, log, lambda text: None, seconds=3.0)
    out = Outcomes(panel, journal, records, log, lambda text: None)
    return Presses(panel, TIMES, asking, out, records, BlankBatteries(panel, log),
                   lambda verdict, frame: taken.append(verdict) or True, lambda text: None)


def test_presses_take_an_accepted_verdict_and_show_the_others(panel, journal) -> None:
    log, taken = Log(), []
    game = journal.new_game([], START.to_string())
    p = presses(panel, journal, log, taken)
    p.blank.points = (parse_point("C2"),)
    p.press("white", 1, game)
    first = p.pending
    assert first is not None and p.blank.points == ()
    panel.clock.advance(1.0)
    p.press("white", 1, game)
    assert p.pending is first  # a second press while one waits changes nothing
    referee = Referee(Rules(), START)
    p.reading(seen_at(first.at + 1.0, first.at), True, referee, 1, game)
    assert p.pending is None and [str(v.turn) for v in taken] == ["c1-c3"] and len(p.verdict_times) == 1
    p.press("white", 1, game)
    p.reading(seen_at(p.pending.at + 1.0, p.pending.at, reading_of(Placement.of(START), layout=Placement.of(START))),
              True, referee, 1, game)
    assert p.pending is None and log.kinds()[-1] == "unchanged" and len(taken) == 1


def test_a_press_without_frames_is_given_up_at_its_timeout(panel, journal) -> None:
    log = Log()
    game = journal.new_game([], START.to_string())
    p = presses(panel, journal, log, [])
    p.press("white", 1, game)
    p.no_frame("unplugged", 1, game)
    assert p.pending is not None and log.lines == []
    panel.clock.advance(TIMES.confirm_timeout)
    p.no_frame("unplugged", 1, game)
    assert p.pending is None
    assert log.lines == [("unreadable", "no frame from the camera (unplugged); press confirm again",
                          {"ply": 1, "squares": (), "points": ()})]
    p.press("white", 1, game)
    p.drop()
    assert p.pending is None


# -- the status line and the turn LED of a phase ----------------------------------------------------


def test_the_status_line_and_the_turn_light_of_each_phase(panel) -> None:
    referee = Referee(Rules(), START)
    start, undo = BoardCheck(START_CHECK, Placement.of(START)), BoardCheck(UNDO, Placement.of(START))
    assert status_text(SETUP, start, None, referee) == "waiting for the board to calibrate the camera"
    assert status_text(CHECK, undo, 3, referee) == "checking the board (undo)"
    assert status_text(PLAYING, start, 3, referee) == "game 3, turn 1: White to move"
    assert not turn_light(CHECK, start, 3) and turn_light(CHECK, undo, 3) and not turn_light(CHECK, undo, None)
    assert turn_light(PLAYING, start, 3) and not turn_light(SETUP, start, None)
    said: list[str] = []
    show_phase(panel, said.append, PLAYING, start, 3, referee)
    assert panel.state().turn == "white" and said == ["game 3, turn 1: White to move"]
    show_phase(panel, said.append, SETUP, start, None, referee)
    assert panel.state().turn is None and panel.state().status == "unreadable"
    show_phase(panel, said.append, OVER, start, 3, referee)  # the win pattern stays
    assert len(said) == 2


# -- a verdict's outcomes ----------------------------------------------------------------------


def outcomes(panel, journal, log) -> Outcomes:
    return Outcomes(panel, journal, GameRecords(journal, None, log), log, lambda text: None)


def test_an_unreadable_reason_is_said_once_while_the_press_waits(panel, journal) -> None:
    log = Log()
    game = journal.new_game([], START.to_string())
    out = outcomes(panel, journal, log)
    shown: set[str] = set()
    doubt = Verdict(UNREADABLE, START, reason="unsure at c3", squares=(parse_square("c3"),))
    out.reading_again("a hand over the board", None, shown, 1, game)
    out.reading_again("a hand over the board", None, shown, 1, game)
    assert pointer(panel) == []
    out.reading_again("unsure at c3", doubt, shown, 1, game)
    assert pointer(panel) == ["c3"] and panel.state().status == "unreadable"
    out.unreadable("unsure at c3", doubt, 1, game)
    assert [text for _, text, _ in log.lines] == ["a hand over the board (reading again)", "unsure at c3 (reading again)",
                                                  "unsure at c3; press confirm again"]
    assert [r.diagnosis for r in journal.game(game).rejections] == ["a hand over the board", "unsure at c3", "unsure at c3"]


def test_a_rejection_is_journalled_with_the_board_after(panel, journal) -> None:
    log = Log()
    game = journal.new_game([], START.to_string())
    after = Placement.of(apply_turn(START, "c1-c2"))
    verdict = Verdict(REJECTED, START, reason="robot c1 moved diagonally", board=after,
                      squares=(parse_square("c1"), parse_square("d2")))
    outcomes(panel, journal, log).rejected(verdict, START, 1, game)
    assert panel.state().status == "illegal" and pointer(panel) == ["c1", "d2"]
    rejection = journal.game(game).rejections[0]
    assert rejection.verdict == REJECTED and rejection.after == apply_turn(START, "c1-c2").to_string()
    assert log.lines == [("rejected", "robot c1 moved diagonally",
                          {"ply": 1, "squares": verdict.squares, "points": ()})]


def test_an_accepted_turn_is_not_taken_when_the_journal_refuses_it(panel, journal) -> None:
    log = Log()
    game = journal.new_game([], START.to_string())
    journal.finish_game(game, "white wins", "test")  # a closed game takes no turn
    after = apply_turn(START, "c1-c3")
    verdict = Verdict(ACCEPTED, after, turn=Turn.parse("c1-c3"))
    assert outcomes(panel, journal, log).record_turn(game, START, verdict) is None
    assert panel.state().status == "unreadable" and log.kinds() == ["unreadable"]
    assert "could not be written to the journal" in log.lines[0][1]


class Reader:
    """A camera reader whose learning of the bare board fails."""

    def learn_bare(self, image, layout) -> None:  # noqa: ANN001
        raise OSError("no room")


def test_an_accepted_turn_goes_green_with_its_blank_batteries_and_note(panel, journal) -> None:
    log = Log()
    game = journal.new_game([], START.to_string())
    after = apply_turn(START, "c1-c3")
    c2 = parse_point("C2")
    verdict = Verdict(ACCEPTED, after, turn=Turn.parse("c1-c3"), turn_back=(c2,),
                      note="c1-c3 used 2 energy", note_points=(c2,))
    out = outcomes(panel, journal, log)
    ply = out.record_turn(game, START, verdict)
    assert ply == 1
    blank = BlankBatteries(panel, log)
    out.accepted(verdict, START, ply, game, blank)
    assert panel.state().status == "accepted" and blank.points == (c2,)
    assert log.kinds() == ["accepted", "note"] and log.lines[0][1] == "White: c1-c3"
    assert [(e.kind, e.detail) for e in journal.game(game).events] == \
        [("sides", {"ply": 1, "note": "c1-c3 used 2 energy", "points": ["C2"], "turn_back": ["C2"]})]
    out.learn_bare(Reader(), frame(0.0), after)
    assert log.lines[-1] == ("camera", "the bare board was not learned from this frame (no room)", {})
    assert panel.state().status == "accepted"


class SlowSide:
    """The journal's side records and the camera's learning, noting what the log (the web page) had by then."""

    def __init__(self, journal: Journal, log: Log) -> None:
        self.journal, self.log = journal, log
        self.seen: list[tuple[str, list[str]]] = []

    def __getattr__(self, name: str):  # noqa: ANN204 - the journal's other methods as they are
        return getattr(self.journal, name)

    def record_rejection(self, *a, **kw):  # noqa: ANN002, ANN003, ANN201
        self.seen.append(("rejection", self.log.kinds()))
        return self.journal.record_rejection(*a, **kw)

    def record_event(self, *a, **kw):  # noqa: ANN002, ANN003, ANN201
        self.seen.append(("event", self.log.kinds()))
        return self.journal.record_event(*a, **kw)

    def learn_bare(self, image, layout) -> None:  # noqa: ANN001 - the camera reader's hook
        self.seen.append(("learn", self.log.kinds()))


def test_a_verdict_reaches_the_log_and_the_page_before_the_disk_and_the_camera(panel, journal) -> None:
    """The page's view of a verdict is built from its log line: the line follows the LEDs at once; a journal
    record (which may wait on the disk) and the camera's learning of the bare board come after it."""
    log = Log()
    game = journal.new_game([], START.to_string())
    side = SlowSide(journal, log)
    out = Outcomes(panel, journal, GameRecords(side, None, log), log, lambda text: None)
    rejected = Verdict(REJECTED, START, reason="robot c1 moved diagonally", squares=(parse_square("c1"),))
    out.rejected(rejected, START, 1, game)
    out.reading_again("a hand over the board", None, set(), 1, game)
    out.unreadable("unsure at c3", None, 1, game)
    c2 = parse_point("C2")
    accepted = Verdict(ACCEPTED, apply_turn(START, "c1-c3"), turn=Turn.parse("c1-c3"), turn_back=(c2,),
                       note="c1-c3 used 2 energy", note_points=(c2,))
    out.accepted(accepted, START, out.record_turn(game, START, accepted), game, BlankBatteries(panel, log))
    out.learn_bare(side, frame(0.0), accepted.position)   # the loop's call once the verdict is out
    assert side.seen == [("rejection", ["rejected"]), ("rejection", ["rejected", "unreadable"]),
                         ("rejection", ["rejected", "unreadable", "unreadable"]),
                         ("event", ["rejected", "unreadable", "unreadable", "accepted", "note"]),
                         ("learn", ["rejected", "unreadable", "unreadable", "accepted", "note"])]
    log.lines.clear()
    side.seen.clear()
    Asking(panel, GameRecords(side, None, log), log, lambda text: None, seconds=3.0).ask(
        question_verdict(), frame(0.0), ("sig",), game, 2)
    assert side.seen == [("event", ["question"])]


# -- the question walk -------------------------------------------------------------------------


def question_verdict() -> Verdict:
    one, two = (Verdict(ACCEPTED, apply_turn(START, t), turn=Turn.parse(t), board=Placement.of(apply_turn(START, t)))
                for t in ("c1-c3", "b1-b2 c1-c3"))
    return Verdict(QUESTION, START, reason="which turn?", candidates=(one, two),
                   squares=(parse_square("b1"), parse_square("b2")))


def test_asking_walks_the_candidates_and_a_press_takes_the_one_shown(panel, journal) -> None:
    log, status = Log(), []
    game = journal.new_game([], START.to_string())
    asking = Asking(panel, GameRecords(journal, None, log), log, status.append, seconds=3.0)
    asking.ask(question_verdict(), frame(0.0), ("sig",), game, 1)
    assert panel.state().gauge == (1, 2) and status[-1] == "which turn? 1 of 2: c1-c3 (confirm takes it)"
    assert not asking.follow(("sig",), True, 1)
    panel.clock.advance(3.0)
    assert not asking.follow(("sig",), True, 1)
    assert panel.state().gauge == (2, 2) and asking.question.shown.turn == Turn.parse("b1-b2 c1-c3")
    question = asking.take()
    assert asking.question is None and panel.state().gauge is None
    asking.chosen(question.record(1), game)
    assert log.lines[-1][1] == "a player chose b1-b2 c1-c3 of c1-c3 or b1-b2 c1-c3"
    assert [e.kind for e in journal.game(game).events] == ["question", "chosen"]


def test_asking_drops_the_question_on_another_stable_board(panel, journal) -> None:
    log = Log()
    asking = Asking(panel, GameRecords(journal, None, log), log, lambda text: None, seconds=3.0)
    asking.ask(question_verdict(), frame(0.0), ("sig",), None, 1)
    assert not asking.follow(("other",), False, 1)  # not stable yet: still asking
    assert asking.follow(("other",), True, 1)
    assert asking.question is None and pointer(panel) == [] and panel.state().gauge is None
    assert log.lines[-1][1] == "the board changed: the question is dropped; confirm again"
    asking.drop()  # nothing to drop: no change
    assert asking.question is None


# -- the batteries to turn back, the check's signal ----------------------------------------------


def test_blank_batteries_are_pointed_at_until_seen_printed(panel) -> None:
    log = Log()
    blank = BlankBatteries(panel, log)
    c2, d2 = parse_point("C2"), parse_point("D2")
    blank.show((), WHITE)
    assert log.lines == [] and blank.points == ()
    blank.show((c2, d2), WHITE)
    assert pointer(panel) == ["C2", "D2"] and log.lines[0][:2] == ("sides", "White: turn C2 and D2 back to their printed sides")
    board = Placement.of(START)
    blank.follow(reading_of(board))  # the camera tells no side: nothing changes
    assert blank.points == (c2, d2)
    blank.follow(reading_of(board, blank=(d2,), printed=(c2,)))
    assert blank.points == (d2,) and pointer(panel) == ["D2"]
    blank.follow(reading_of(board, printed=(c2, d2)))
    assert blank.points == () and pointer(panel) == []


def test_the_check_signal_shows_once_per_key(panel) -> None:
    log, status = Log(), []
    signal = CheckSignal(panel, log, status.append)
    c3 = parse_square("c3")
    signal.show(("check", 1), "c3 differs", (c3,))
    signal.show(("check", 1), "c3 differs", (c3,))
    assert pointer(panel) == ["c3"] and panel.state().status == "unreadable" and len(log.lines) == 1
    signal.show(("journal", "full"), "the journal is full")
    assert pointer(panel) == [] and status == ["c3 differs", "the journal is full"]
    signal.reset()
    signal.show(("journal", "full"), "the journal is full")
    assert len(log.lines) == 3 and log.kinds() == ["check"] * 3


# -- the onlooker ------------------------------------------------------------------------------


class Spectator:
    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.views: list[GameView] = []
        self.frames = 0

    def take_requests(self, request) -> None:  # noqa: ANN001
        pass

    def game_changed(self, view: GameView) -> None:
        if self.fail:
            raise ValueError("bad view")
        self.views.append(view)

    def frame_seen(self, image, calibration, reading) -> None:  # noqa: ANN001
        if self.fail:
            raise ValueError("bad frame")
        self.frames += 1


def view_of(onlooker: Onlooker, referee: Referee) -> GameView:
    return onlooker.view(referee, Rules(), game_id=3, phase="playing", step="idle", starting_side=WHITE, log=[],
                         blank=(), status="playing")


def test_the_onlooker_gets_numbered_views_and_is_stale_after_a_change() -> None:
    spectator = Spectator()
    onlooker = Onlooker(spectator, Log())
    referee = Referee(Rules(), START)
    assert onlooker.stale(("a",))
    onlooker.publish(("a",), lambda: view_of(onlooker, referee))
    assert not onlooker.stale(("a",)) and onlooker.stale(("b",))
    referee.accept(referee.judge(reading_of(Placement.of(apply_turn(START, "c1-c3")))))
    onlooker.publish(("b",), lambda: view_of(onlooker, referee))
    onlooker.frame_seen(None, None, None)
    assert [v.seq for v in spectator.views] == [1, 2] and spectator.frames == 1
    assert spectator.views[1].turns == ("c1-c3",) and spectator.views[1].start == START.to_string()


def test_an_onlookers_fault_is_said_once_and_nobody_builds_views_for_no_onlooker() -> None:
    log = Log()
    onlooker = Onlooker(Spectator(fail=True), log)
    onlooker.publish(("a",), lambda: view_of(onlooker, Referee(Rules(), START)))
    onlooker.frame_seen(None, None, None)
    assert log.lines == [("info", "the onlooker (web page) failed: ValueError: bad view; the game goes on", {})]
    nobody = Onlooker(None, log)

    def never() -> GameView:
        raise AssertionError("no view is built without an onlooker")

    nobody.publish(("a",), never)
    nobody.frame_seen(None, None, None)
    assert not nobody.stale(("b",))


# -- the buttons -------------------------------------------------------------------------------


def test_undo_writes_the_journal_first(panel, journal) -> None:
    log = Log()
    buttons = Buttons(panel, journal, log, LoopTimings(), hints=True)
    game = journal.new_game([], START.to_string())
    assert buttons.undo(game) is None  # nothing to take back: the journal refuses
    assert panel.state().status == "unreadable" and "nothing was taken back" in log.lines[-1][1]
    journal.record_turn(game, START.to_string(), apply_turn(START, "c1-c3").to_string(), "c1-c3")
    record = buttons.undo(game)
    assert record is not None and record.ply == 1 and journal.game(game).turns == ()
    buttons.undone(record, game, reopened=True)
    assert [text for _, text, _ in log.lines[-2:]] == [
        f"game {game} reopened: the win is taken back", "turn 1 (c1-c3) taken back: put the board back as it was"]


def test_control_shows_the_batteries_of_the_player_to_move(panel, journal) -> None:
    log = Log()
    buttons = Buttons(panel, journal, log, LoopTimings(), hints=False)
    buttons.control(START, Rules())
    assert log.lines[-1][0] == "control" and len(pointer(panel)) == len(log.lines[-1][2]["points"]) > 0
    buttons.hint(START, Rules())
    assert log.lines[-1][:2] == ("hint", "hints are off")
