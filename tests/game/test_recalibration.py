"""Recalibration mid-game: a bumped camera or a moved lamp does not end the game.

The fake table of ``helpers`` with a camera *pose* and a *lamp*: the fake
calibration remembers both; its reader reports "the board is not where the
calibration expects it" (alignment below ``vision.reader.MIN_ALIGNMENT``) while
the camera's pose differs from the calibration's, and unsure fields while the
lamp differs. The fake calibration refuses a frame whose board is not the
expected one, as the real one refuses fields that do not hold the expected
layout.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from companion.rules.engine import apply_turn, random_turn
from companion.referee.game import CHECK, MOVED, PLAYING, UNSURE, LoopTimings, frame_trouble
from companion.vision_bridge import table_reading
from companion.rules.position import Placement, Position
from hardware.timing import ManualClock
from vision.reading import unreadable

from .helpers import TIMINGS, FakeReader, Table, TableCamera, close, decode, make, play, press, ready, side

POSE = (0, 85, 1)  # the pixel of the fake frame that holds the camera's pose
LAMP = (0, 84, 1)  # and the lamp's
BLACK_SQUARES = tuple(range(30, 36))


@dataclass
class FakeCal:
    pose: int
    lamp: int
    colours: str

    def save(self, path) -> Path:
        Path(path).write_text(json.dumps({"pose": self.pose, "lamp": self.lamp, "colours": self.colours}))
        return Path(path)


class RigCamera(TableCamera):
    """The table camera on a rig that can be bumped, under a lamp that can be moved, shaking or not."""

    def __init__(self, table: Table, clock) -> None:  # noqa: ANN001
        super().__init__(table, clock)
        self.pose = 0
        self.lamp = 0
        self.shaking = False

    def grab(self):
        frame = super().grab()
        frame.image[POSE] = self.pose
        frame.image[LAMP] = self.lamp
        if self.shaking:  # the picture changes from frame to frame (a hand waving, the camera swinging)
            frame.image[0, :, 2] = 220 if self.count % 2 else 0
        return frame


class RigReader(FakeReader):
    def __init__(self, cal: FakeCal) -> None:
        super().__init__()
        self.cal = cal

    def read(self, image):
        if int(image[POSE]) != self.cal.pose:
            sp = np.tile([0.5, 0.3, 0.2], (36, 1))  # what misaligned patches give: something, nothing sure
            pp = np.tile([0.6, 0.4], (49, 1))
            return unreadable("the board is not where the calibration expects it (its fields match 12%): camera "
                              "or board moved", square_probs=sp, point_probs=pp, alignment=0.12)
        reading = super().read(image)
        if int(image[LAMP]) != self.cal.lamp and reading.readable:
            # the moved lamp: a glare over Black's start row, read as unsure with little for a Black robot
            sp = np.array(reading.square_probs)
            for s in BLACK_SQUARES:
                sp[s] = [0.5, 0.45, 0.05]
            return replace(reading, layout=None, readable=False, square_probs=sp, reason="low confidence at a6 ...",
                           low_confidence_squares=BLACK_SQUARES)
        return reading


class Calibrator:
    """The fake calibration: records every call; refuses a frame that does not show the expected board."""

    def __init__(self, clock) -> None:  # noqa: ANN001
        self.clock = clock
        self.calls: list[dict] = []

    def __call__(self, image, expected, corners=None, white_side=None, colours=None) -> FakeCal:
        self.calls.append({"at": self.clock.now(), "expected": expected, "corners": corners,
                           "white_side": white_side, "colours": colours})
        board, flags = decode(image)
        if board is None or flags:
            raise ValueError("the frame does not show the board clearly")
        if board != expected:
            raise ValueError("the board does not hold the expected layout")
        return FakeCal(int(image[POSE]), int(image[LAMP]), colours or f"colours-{len(self.calls)}")


def rig(tmp_path, timings: LoopTimings = TIMINGS, **kw):
    """A companion on the rig, a game open, White to move: (companion, camera, calibrator)."""
    clock = ManualClock()
    cam = RigCamera(Table(Placement.of(Position.start())), clock)
    calibrator = Calibrator(clock)
    kw.setdefault("make_reader", RigReader)
    comp, _ = make(tmp_path, source=cam, clock=clock, calibrate=calibrator, timings=timings, **kw)
    ready(comp)
    assert comp.phase == PLAYING and len(calibrator.calls) == 1
    return comp, cam, calibrator


def texts(comp, kind: str | None = None) -> list[str]:
    return [e.text for e in comp.log if kind is None or e.kind == kind]


def turns(comp) -> list[str]:
    return [t.turn for t in comp.journal.game(comp.game_id).turns]


# -- the rule ------------------------------------------------------------------------------------


def test_frame_trouble_kinds():
    board = Placement.of(Position.start())
    cal = FakeCal(0, 0, "c")
    reader = RigReader(cal)
    cam_img = RigCamera(Table(board), ManualClock()).grab().image
    assert frame_trouble(table_reading(reader.read(cam_img))) is None  # readable
    moved = cam_img.copy()
    moved[POSE] = 1
    assert frame_trouble(table_reading(reader.read(moved))) == MOVED
    lamp = cam_img.copy()
    lamp[LAMP] = 1
    assert frame_trouble(table_reading(reader.read(lamp))) == UNSURE
    # no field located: not the calibration's fault
    assert frame_trouble(table_reading(unreadable("the frame is black"))) is None
    hand = unreadable("something covers the board", square_probs=np.tile([0.5, 0.3, 0.2], (36, 1)),
                      point_probs=np.tile([0.6, 0.4], (49, 1)), occluded_fraction=0.2)
    assert frame_trouble(table_reading(hand)) is None


# -- a bumped camera -----------------------------------------------------------------------------


def test_a_bumped_camera_is_recalibrated_from_the_last_accepted_board(tmp_path):
    saved = tmp_path / "state" / "calibration.json"
    comp, cam, cal = rig(tmp_path, white_side="bottom", calibration_path=saved, corners=None)
    try:
        assert cal.calls[0]["white_side"] == "bottom" and cal.calls[0]["colours"] is None
        r = random.Random(3)
        play(comp, cam.table, random_turn(comp.referee.position, r))
        assert comp.panel.state().status == "accepted"
        accepted = comp.referee.position
        cam.pose = 1  # someone bumps the camera
        comp.run_for(4.0)
        assert len(cal.calls) == 1, "not before recalibrate_after seconds"
        comp.run_for(1.6)
        assert len(cal.calls) == 2
        call = cal.calls[1]
        assert call["expected"] == Placement.of(accepted)
        assert call["colours"] == "colours-1", "the old calibration's robot colours"
        assert call["white_side"] == "bottom"
        assert "camera recalibrated from the last accepted board" in texts(comp, "camera")
        assert any("unreadable for 5 s" in t and "not where the calibration expects it" in t
                   for t in texts(comp, "camera"))
        assert comp.reader.cal.pose == 1 and comp.recalibrations == 1
        assert json.loads(saved.read_text())["pose"] == 1
        assert comp.referee.position == accepted and len(turns(comp)) == 1, "a recalibration is never a turn"
        events = comp.journal.game(comp.game_id).events
        assert [e.kind for e in events] == ["recalibrated"] and events[0].detail == {"ply": 2, "method": None}
        comp.run_for(6.0)
        assert len(cal.calls) == 2, "the new reader reads: no more recalibrations"
        play(comp, cam.table, random_turn(comp.referee.position, r))  # the game goes on
        assert comp.panel.state().status == "accepted" and len(turns(comp)) == 2
    finally:
        close(comp)


def test_a_failing_recalibration_is_retried_and_accepts_no_turn(tmp_path):
    comp, cam, cal = rig(tmp_path)
    try:
        start = comp.referee.position
        turn = random_turn(start, random.Random(5))
        cam.table.board = Placement.of(apply_turn(start, turn))  # White moves ...
        cam.pose = 2  # ... and knocks the camera
        comp.run_for(12.0)
        tries = cal.calls[1:]
        assert len(tries) == 2, "tried after 5 s and again 5 s later"
        assert tries[1]["at"] - tries[0]["at"] >= comp.timings.recalibrate_after - 1e-9
        assert all(c["expected"] == Placement.of(start) for c in tries)
        failed = [t for t in texts(comp, "camera") if "could not be recalibrated" in t]
        assert len(failed) == 1 and "does not hold the expected layout" in failed[0] and "put them back" in failed[0]
        assert comp.panel.state().status == "unreadable"
        assert comp.reader.cal.pose == 0, "the old reader is kept"
        # White confirms: the board cannot be read, the press times out; nothing is accepted
        press(comp, "confirm_white")
        comp.run_for(comp.timings.confirm_timeout + 0.5)
        assert comp.pending is None and "press confirm again" in comp.log[-1].text
        assert comp.referee.position == start and turns(comp) == []
        # White puts the robot back: the recalibration works, then the turn is made and confirmed again
        cam.table.board = Placement.of(start)
        comp.run_for(6.0)
        assert "camera recalibrated from the last accepted board" in texts(comp, "camera")
        assert comp.reader.cal.pose == 2 and turns(comp) == []
        play(comp, cam.table, turn)
        assert comp.panel.state().status == "accepted" and turns(comp) == [str(turn)]
    finally:
        close(comp)


def test_no_recalibration_while_a_press_is_judged(tmp_path):
    """A press pending over an unreadable board is judged (unreadable) by the old reader, never by one
    calibrated in the meantime -- even with a calibration that would take any board."""
    timings = replace(TIMINGS, recalibrate_after=1.0, confirm_timeout=6.0)
    comp, cam, cal = rig(tmp_path, timings=timings)
    lenient = []

    def anything(image, expected, corners=None, white_side=None, colours=None):
        lenient.append(comp.clock.now())
        return FakeCal(int(image[POSE]), int(image[LAMP]), "c")

    comp.calibrator.calibrate = anything
    try:
        start = comp.referee.position
        turn = random_turn(start, random.Random(8))
        cam.table.board = Placement.of(apply_turn(start, turn))
        cam.pose = 1
        press(comp, "confirm_white")
        pressed = comp.clock.now()
        comp.run_for(5.0)
        assert lenient == [] and comp.pending is not None
        comp.run_for(2.0)
        assert comp.pending is None and turns(comp) == []
        assert lenient and lenient[0] >= pressed + timings.confirm_timeout - 0.2
        assert comp.referee.position == start
    finally:
        close(comp)


def test_a_shaking_picture_or_a_hand_is_not_recalibrated(tmp_path):
    comp, cam, cal = rig(tmp_path)
    try:
        cam.pose = 1
        cam.shaking = True
        comp.run_for(10.0)
        assert len(cal.calls) == 1, "the picture never kept still"
        cam.shaking = False
        comp.run_for(0.6)
        assert len(cal.calls) == 2 and comp.reader.cal.pose == 1
        cam.table.hand = True  # a hand over the board (in place): no frame trouble at all
        comp.run_for(10.0)
        assert len(cal.calls) == 2
    finally:
        close(comp)


def test_recalibrate_after_zero_never_recalibrates(tmp_path):
    comp, cam, cal = rig(tmp_path, timings=replace(TIMINGS, recalibrate_after=0.0))
    try:
        cam.pose = 1
        comp.run_for(15.0)
        assert len(cal.calls) == 1 and comp.recalibrations == 0
    finally:
        close(comp)


# -- a moved lamp --------------------------------------------------------------------------------


def test_a_moved_lamp_is_recalibrated_when_the_sure_fields_show_the_last_board(tmp_path):
    comp, cam, cal = rig(tmp_path)
    try:
        cam.lamp = 1
        comp.run_for(5.8)
        assert len(cal.calls) == 2 and comp.reader.cal.lamp == 1
        play(comp, cam.table, random_turn(comp.referee.position, random.Random(2)))
        assert comp.panel.state().status == "accepted"
    finally:
        close(comp)


class GlareReader(RigReader):
    """Under the moved lamp every field reads as before, but the frame is refused as a whole."""

    def read(self, image):
        reading = super().read(image)
        if reading.low_confidence_squares and int(image[POSE]) == self.cal.pose:
            sp = np.array(reading.square_probs)
            for s in BLACK_SQUARES:
                sp[s] = [0.0, 0.0, 1.0]
            return replace(reading, square_probs=sp, low_confidence_squares=(),
                           reason="a reflection on the board that was not there at calibration: calibrate again")
        return reading


def test_a_frame_refused_as_a_whole_over_the_last_board_is_recalibrated(tmp_path):
    comp, cam, cal = rig(tmp_path, make_reader=GlareReader)
    try:
        cam.lamp = 1
        comp.run_for(5.8)
        assert len(cal.calls) == 2 and comp.reader.cal.lamp == 1
        assert any("a reflection on the board" in t for t in texts(comp, "camera"))
    finally:
        close(comp)


def test_unsure_fields_over_a_board_the_players_changed_are_not_recalibrated(tmp_path):
    comp, cam, cal = rig(tmp_path)
    try:
        pos = comp.referee.position
        white_only = next(t for t in (random_turn(pos, random.Random(k)) for k in range(50)) if t.robot_moves)
        cam.table.board = Placement.of(apply_turn(pos, white_only))  # a sure field differs: White moved
        cam.lamp = 1
        comp.run_for(12.0)
        assert len(cal.calls) == 1 and turns(comp) == []
    finally:
        close(comp)


# -- during a check ------------------------------------------------------------------------------


def test_recalibration_during_the_check_after_an_undo(tmp_path):
    comp, cam, cal = rig(tmp_path)
    try:
        r = random.Random(4)
        play(comp, cam.table, random_turn(comp.referee.position, r))
        before = comp.journal.game(comp.game_id).turns[0].before
        press(comp, "undo", hold=2.2)
        comp.run_for(0.3)
        assert comp.phase == CHECK
        cam.table.board = Placement.from_string(before)  # the board is put back, and the camera knocked
        cam.pose = 3
        comp.run_for(6.0)
        assert cal.calls[-1]["expected"] == Placement.from_string(before)
        assert "camera recalibrated from the last accepted board" in texts(comp, "camera")
        comp.run_for(0.5)
        assert comp.phase == PLAYING and side(comp) == "white"
    finally:
        close(comp)
