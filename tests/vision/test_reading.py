"""Render -> calibrate -> read round trips, orientation, manual corners, bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vision.calibration import Calibration, calibrate, parse_corners
from vision.errors import BadCorners, BadImage, CalibrationError, MarkersNotFound, VisionError
from vision.layout import BoardLayout, PointState, SquareState
from vision.reader import BoardReader
from vision.render import render

from vision_kit import SETUP_SEED, START, assert_no_confident_misread, random_layout, wrong_fields

SETUP = dict(tilt=18.0, rotation=37.0, shadow=0.0, glare=0.0)


def test_calibration_finds_the_corners(start_frame, calibration):
    assert calibration.method == "markers"
    assert calibration.image_size == (1280, 960)
    err = np.linalg.norm(calibration.corners_px - start_frame.corners_px, axis=1)
    assert err.max() < 2.5, err
    assert calibration.marker_side == pytest.approx(start_frame.conditions.marker_size, rel=0.03)


def test_start_frame_reads_back(start_frame, calibration):
    reading = BoardReader(calibration).read(start_frame.image)
    assert reading.readable, reading.reason
    assert reading.layout == START
    assert reading.square_probs.shape == (36, 3) and reading.point_probs.shape == (49, 2)
    assert np.allclose(reading.square_probs.sum(axis=1), 1) and np.allclose(reading.point_probs.sum(axis=1), 1)
    assert min(reading.square_confidence) >= 0.98


def test_random_layouts_read_correctly(calibration):
    rng = np.random.default_rng(4)
    reader = BoardReader(calibration)
    for k in range(4):
        truth = random_layout(rng)
        frame = render(truth, SETUP_SEED, frame=k + 1, **SETUP)
        reading = reader.read(frame.image)
        assert_no_confident_misread(reading, truth)
        assert wrong_fields(reading, truth) == ([], []), f"layout {k}: {reading.reason}"


@pytest.mark.parametrize("seed,rotation,tilt", [(31, 180.0, 22.0), (32, 270.0, 10.0)])
def test_any_rotation(seed, rotation, tilt):
    frame = render(START, seed, rotation=rotation, tilt=tilt, glare=0.0)
    cal = calibrate(frame.image, START)
    # which side is rank 1 is part of the calibration: corner A1 is found where it is
    assert np.linalg.norm(cal.corners_px - frame.corners_px, axis=1).max() < 2.5
    truth = BoardLayout.from_sets(white=[0, 14, 20], black=[35, 27, 9], batteries=list(range(7, 14)) + list(range(35, 42)))
    reading = BoardReader(cal).read(render(truth, seed, frame=3, rotation=rotation, tilt=tilt, glare=0.0).image)
    assert_no_confident_misread(reading, truth)
    assert reading.square_probs[14].argmax() == 1 and reading.square_probs[27].argmax() == 2


def test_manual_corners_without_markers():
    frame = render(START, 41, markers=False, tilt=15.0, rotation=100.0, glare=0.0)
    # without markers the grid is found in the frame (here the robots' colours tell White's side)
    found = calibrate(frame.image, START)
    assert found.method == "grid" and np.abs(found.corners_px - frame.corners_px).max() < 3.0
    # a person clicks a little off: still fine
    corners = frame.corners_px + np.array([[1.5, -1.0], [-1.0, 1.5], [1.0, 1.0], [-1.5, -1.5]])
    cal = calibrate(frame.image, START, corners=corners)
    assert cal.method == "corners" and cal.marker_side is None
    truth = BoardLayout.from_sets(white=[1, 2, 15], black=[33, 22], batteries=list(range(7, 14)) + list(range(35, 42)))
    reading = BoardReader(cal).read(render(truth, 41, markers=False, frame=2, tilt=15.0, rotation=100.0, glare=0.0).image)
    assert_no_confident_misread(reading, truth)
    assert wrong_fields(reading, truth) == ([], [])


def test_without_markers_the_runner_up_grids_are_tried_until_one_shows_the_layout(monkeypatch):
    """The grid that fits the lines best may be a pitch off (pieces along two edges hide the outer
    lines): the first grid, best first, under which the frame shows the layout is taken, and where
    none does the best grid's reason is given."""
    from dataclasses import replace

    import vision.gridfind as gridfind

    frame = render(START, 41, markers=False, tilt=15.0, rotation=100.0, glare=0.0)
    real = gridfind.find_grid(frame.image)
    off = real.H @ np.array([[1.0, 0, 0], [0, 1, 1], [0, 0, 1]])          # one pitch along the columns
    monkeypatch.setattr(gridfind, "find_grid", lambda image: replace(real, H=off, alternatives=(real.H,)))
    found = calibrate(frame.image, START)
    assert found.method == "grid" and np.abs(found.corners_px - frame.corners_px).max() < 3.0
    monkeypatch.setattr(gridfind, "find_grid", lambda image: replace(real, H=off, alternatives=()))
    with pytest.raises(CalibrationError):
        calibrate(frame.image, START)


def test_bad_corners(start_frame):
    with pytest.raises(BadCorners, match="four"):
        parse_corners("1,2 3,4")
    with pytest.raises(BadCorners, match="G1"):
        parse_corners("1,2 3;4 5,6 7,8".replace(";", "x"))
    c = start_frame.corners_px
    with pytest.raises(BadCorners, match="convex"):
        calibrate(start_frame.image, START, corners=c[[0, 2, 1, 3]])
    with pytest.raises(BadCorners, match="outside"):
        calibrate(start_frame.image, START, corners=c + 5000)


def test_wrong_layout_is_refused(start_frame):
    other = BoardLayout.from_sets(white=range(30, 36), black=range(6), batteries=list(range(7, 14)) + list(range(35, 42)))
    with pytest.raises(CalibrationError, match="look darker"):
        calibrate(start_frame.image, other)


def test_hand_makes_the_frame_unreadable(calibration):
    frame = render(START, SETUP_SEED, hand=True, frame=7, **SETUP)
    reading = BoardReader(calibration).read(frame.image)
    assert not reading.readable and reading.layout is None
    assert "hand" in reading.reason or "low confidence" in reading.reason
    assert_no_confident_misread(reading, START)


def test_a_hand_hiding_many_lines_leaves_no_field_trusted(calibration):
    """Its skin, its shadow and what it holds may pass for anything near it: no field is confident."""
    rng = np.random.default_rng(12)
    hands = 0
    for k in range(3):
        truth = random_layout(rng)
        reading = BoardReader(calibration, adapt=False).read(render(truth, SETUP_SEED, hand=True, frame=60 + k, **SETUP).image)
        assert not reading.readable
        if "energy lines hidden" in reading.reason and int(reading.reason.split("hidden at ")[1].split()[0]) >= 8:
            assert len(reading.low_confidence_squares) == 36
            hands += 1
        assert_no_confident_misread(reading, truth)
    assert hands >= 2


def test_black_and_grey_frames(calibration):
    reader = BoardReader(calibration)
    for image, word in ((np.zeros((960, 1280, 3), np.uint8), "black"), (np.full((960, 1280, 3), 128, np.uint8), "grey")):
        reading = reader.read(image)
        assert not reading.readable and word in reading.reason
        assert not reading.low_confidence_squares == ()
        with pytest.raises(BadImage, match=word):
            calibrate(image, START)


def test_wrong_image_size_and_type(calibration, start_frame):
    reader = BoardReader(calibration)
    with pytest.raises(BadImage, match="640x480 but the calibration was made for 1280x960"):
        reader.read(np.zeros((480, 640, 3), np.uint8))
    with pytest.raises(BadImage, match="uint8"):
        reader.read(start_frame.image.astype(np.float32))
    with pytest.raises(BadImage, match="numpy image"):
        reader.read("frame.png")


def test_board_moved_or_foreign_setup():
    # a calibration made by corners for one setup, used on another camera setup
    a = render(START, 51, markers=False, glare=0.0)
    b = render(START, 52, markers=False, glare=0.0)
    cal = calibrate(a.image, START, corners=a.corners_px)
    reading = BoardReader(cal).read(b.image)
    assert not reading.readable
    assert "not where the calibration expects it" in reading.reason


@pytest.mark.parametrize("seed, other", [(9001, 10001), (51, 2051), (3000002, 3001002)])
def test_a_calibration_from_another_setup_with_markers_is_refused_not_read(seed, other):
    """The markers are found again anywhere in the frame, but a board far from where the
    calibration put it is another camera set-up (its light, bare board and appearance are
    not this one's): refused with the reason, never read with a foreign calibration."""
    cal = calibrate(render(START, seed).image, START)
    rng = np.random.default_rng(seed)
    for k in range(3):
        reading = BoardReader(cal).read(render(random_layout(rng), other, frame=k + 1).image)
        assert not reading.readable
        assert "calibrat" in reading.reason
        assert len(reading.low_confidence_squares) == 36 and len(reading.low_confidence_points) == 49


def test_save_load_round_trip(tmp_path, calibration):
    path = calibration.save(tmp_path / "cal.json")
    again = Calibration.load(path)
    assert again == calibration


@pytest.mark.parametrize(
    "content,match",
    [
        ("{not json", "corrupt"),
        (json.dumps({"format": "something-else"}), "format"),
        (json.dumps({"format": "netzwerk-vision-calibration", "version": 99}), "version"),
        (json.dumps({"format": "netzwerk-vision-calibration", "version": 1, "image_size": [1280, 960]}), "missing"),
    ],
)
def test_corrupt_calibration_files(tmp_path, content, match):
    p = tmp_path / "cal.json"
    p.write_text(content)
    with pytest.raises(CalibrationError, match=match):
        Calibration.load(p)


def test_damaged_calibration_values(tmp_path, calibration):
    data = calibration.to_json()
    data["homography"] = [[0, 0, 0], [0, 0, 0], [0, 0, 0]]
    p = tmp_path / "cal.json"
    p.write_text(json.dumps(data))
    with pytest.raises(CalibrationError, match="homography"):
        Calibration.load(p)
    with pytest.raises(CalibrationError, match="does not exist"):
        Calibration.load(tmp_path / "nothere.json")


def test_adapts_to_slow_light_change(calibration):
    reader = BoardReader(calibration, adapt=True, adapt_every=1)
    truth = BoardLayout.from_sets(white=[3, 8], black=[29], batteries=list(range(7, 14)) + list(range(35, 42)))
    before = np.array(reader.calibration.appearance.means)
    for k, light in enumerate((0.9, 0.8, 0.7)):
        reading = reader.read(render(truth, SETUP_SEED, frame=20 + k, light=light, **SETUP).image)
        assert_no_confident_misread(reading, truth)
    after = np.array(reader.calibration.appearance.means)
    assert not np.allclose(before, after)


def test_reader_needs_a_calibration():
    with pytest.raises(VisionError, match="Calibration"):
        BoardReader("cal.json")


def test_layout_type():
    lay = BoardLayout.from_sets(white=[0], black=[35], batteries=[0, 48])
    assert lay.squares[0] is SquareState.WHITE and lay.points[48] is PointState.BATTERY
    assert lay.white == {0} and lay.black == {35} and lay.batteries == {0, 48}
    assert lay.differences(START)[:2] == ["b1", "c1"]
    with pytest.raises(ValueError):
        BoardLayout((SquareState.EMPTY,) * 35, (PointState.EMPTY,) * 49)
    with pytest.raises(ValueError):
        BoardLayout.from_sets(white=[1], black=[1])


def test_camera_nudged_markers_found_again(calibration):
    """The markers are not searched on every frame, but again when the board is no longer where it was."""
    truth = BoardLayout.from_sets(white=[2, 7], black=[33], batteries=list(range(7, 14)) + list(range(35, 42)))
    image = render(truth, SETUP_SEED, frame=30, **SETUP).image
    nudged = np.roll(image, (14, -18), axis=(0, 1))
    reader = BoardReader(calibration)
    reading = reader.read(nudged)
    assert_no_confident_misread(reading, truth)
    assert reading.alignment > 0.6
    moved = reader.calibration.corners_px - calibration.corners_px
    assert np.allclose(moved.mean(axis=0), (-18, 14), atol=1.5)
