"""The bare-board reference: what the calibration frame showed where the start position has no piece."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vision.calibration import Calibration, calibrate
from vision.errors import CalibrationError
from vision.features import PPU, features, rectify
from vision.layout import BoardLayout
from vision.reader import BoardReader
from vision.reference import EmptyReference
from vision.render import render

from vision_kit import START, assert_no_confident_misread, random_layout, wrong_fields


def _px(x: float, y: float) -> tuple[int, int]:
    """Top-view pixel (row, col) of board point (x, y)."""
    return int((6.5 - y) * PPU), int((x + 0.5) * PPU)


def test_reference_covers_the_bare_board_of_the_start_position(calibration):
    ref = calibration.reference
    assert ref is not None
    assert ref.valid[_px(2.5, 2.5)] and ref.valid[_px(3.5, 3.7)]      # c3, d4: bare at the start
    assert not ref.valid[_px(0.5, 0.5)] and not ref.valid[_px(4.5, 5.5)]  # a1, e6: robots
    assert not ref.valid[_px(3.0, 1.0)]                                  # D2: a start battery
    assert not ref.valid[_px(-0.4, 3.0)]                                 # beyond the field


def test_a_robot_changes_its_square_and_nothing_else_changes(calibration):
    layout = BoardLayout.from_sets(white=list(range(6)) + [14], black=range(30, 36),
                                   batteries=list(range(7, 14)) + list(range(35, 42)))
    frame = render(layout, 9001, frame=3, tilt=18.0, rotation=37.0, shadow=0.0, glare=0.0)
    F = features(rectify(frame.image, calibration.H))
    ab = calibration.reference.as_before(F)
    known = np.isfinite(ab)
    assert known.sum() > 5000
    r, c = _px(2.5, 2.5)                   # c3, where the new robot stands
    robot = ab[r - 3:r + 4, c - 3:c + 4]
    far = ab[_px(3.5, 3.5)[0] - 3:_px(3.5, 3.5)[0] + 4, _px(3.5, 3.5)[1] - 3:_px(3.5, 3.5)[1] + 4]  # d4: still bare
    assert np.median(robot) < np.median(ab[known]) - 10
    assert np.median(far) > np.median(ab[known]) - 2


def test_reference_survives_a_change_of_light(calibration):
    """Gain and colour temperature changed since calibration: the smooth light surface takes them out."""
    rng = np.random.default_rng(77)
    reader = BoardReader(calibration, adapt=False)
    for k in range(2):
        truth = random_layout(rng)
        frame = render(truth, 9001, frame=20 + k, tilt=18.0, rotation=37.0, shadow=0.0, glare=0.0, light=1.3, color_temp=0.5)
        reading = reader.read(frame.image)
        assert wrong_fields(reading, truth) == ([], [])
        assert_no_confident_misread(reading, truth)


@pytest.mark.parametrize("seed, frames", [(3100088, (0, 1)), (3100104, (2,)), (3100144, (0,))])
def test_white_robots_in_static_glare_or_shadow_are_never_confidently_missed(seed, frames):
    """Set-ups (development seeds) where the reader without the reference read a White robot
    under a glare spot or a lamp arm's shadow as empty with more than 98% confidence."""
    start = render(START, seed)
    cal = calibrate(start.image, START)
    reader = BoardReader(cal, adapt=False)
    rng = np.random.default_rng(seed)
    layouts = [random_layout(rng) for _ in range(max(frames) + 1)]
    for k in frames:
        reading = reader.read(render(layouts[k], seed, frame=k + 1).image)
        assert_no_confident_misread(reading, layouts[k])


def test_blur_since_calibration_does_not_make_bare_squares_doubtful(calibration):
    """A blurrier frame changes the lines' edges: the change is counted off the lines."""
    layout = BoardLayout.from_sets(white=range(6), black=range(30, 36), batteries=list(range(7, 14)) + list(range(35, 42)))
    frame = render(layout, 9001, frame=5, tilt=18.0, rotation=37.0, shadow=0.0, glare=0.0, blur=2.0)
    reading = BoardReader(calibration, adapt=False).read(frame.image)
    middle = [i for i in range(6, 30)]       # ranks 2-5: all bare, all with a reference
    assert not set(middle) & set(reading.low_confidence_squares)
    assert wrong_fields(reading, layout) == ([], [])


def test_round_trip_and_older_files_without_a_reference(tmp_path, calibration, start_frame):
    path = calibration.save(tmp_path / "cal.json")
    again = Calibration.load(path)
    assert again.reference == calibration.reference
    data = json.loads(path.read_text())
    assert set(data["reference"]) == {"size", "image_png", "valid_bits"}
    # a file written before the reference existed still loads and reads
    del data["reference"]
    (tmp_path / "old.json").write_text(json.dumps(data))
    old = Calibration.load(tmp_path / "old.json")
    assert old.reference is None
    reading = BoardReader(old, adapt=False).read(start_frame.image)
    assert reading.readable and reading.layout == START


@pytest.mark.parametrize("damage, match", [
    (lambda r: r.update(image_png="not base64 !!"), "base64"),
    (lambda r: r.update(size=99), "px"),
    (lambda r: r.pop("valid_bits"), "valid_bits"),
    (lambda r: r.update(image_png="aGVsbG8="), "unreadable"),
])
def test_damaged_reference_is_named(tmp_path, calibration, damage, match):
    data = calibration.to_json()
    damage(data["reference"])
    (tmp_path / "bad.json").write_text(json.dumps(data))
    with pytest.raises(CalibrationError, match=match):
        Calibration.load(tmp_path / "bad.json")


def test_too_little_bare_board_gives_no_reference():
    rect = np.zeros((7 * PPU, 7 * PPU, 3), np.uint8)
    everywhere = np.array([[x + 0.5, y + 0.5] for x in range(6) for y in range(6)])
    assert EmptyReference.build(rect, everywhere, np.zeros((0, 2))) is None


def test_learning_the_bare_board_of_vacated_start_squares(calibration):
    """After a turn the caller has established, vacated start squares join the reference."""
    reader = BoardReader(calibration, adapt=False)
    share_before = reader._ref_share.copy()
    moved = BoardLayout.from_sets(white=[1, 2, 3, 4, 5, 6], black=range(30, 36),
                                  batteries=list(range(7, 14)) + list(range(35, 42)))  # a1 -> a2
    frame = render(moved, 9001, frame=30, tilt=18.0, rotation=37.0, shadow=0.0, glare=0.0)
    assert reader.learn_bare(frame.image, moved) == 1   # a1
    assert reader._ref_share[0] > share_before[0] + 0.1
    assert reader.calibration.reference.valid.sum() > calibration.reference.valid.sum()
    assert reader.learn_bare(frame.image, moved) == 0   # nothing new the second time
    # a robot put back on a1 now shows as a change there, and is read
    back = render(START, 9001, frame=31, tilt=18.0, rotation=37.0, shadow=0.0, glare=0.0)
    reading = reader.read(back.image)
    assert wrong_fields(reading, START) == ([], [])
    assert reading.readable


def test_learning_refuses_what_it_cannot_trust(calibration):
    reader = BoardReader(calibration, adapt=False)
    moved = BoardLayout.from_sets(white=[1, 2, 3, 4, 5, 6], black=range(30, 36),
                                  batteries=list(range(7, 14)) + list(range(35, 42)))
    # the frame still shows the robot on a1: the caller's layout says bare, the reading disagrees
    frame = render(START, 9001, frame=32, tilt=18.0, rotation=37.0, shadow=0.0, glare=0.0)
    assert reader.learn_bare(frame.image, moved) == 0
    hand = render(moved, 9001, frame=33, tilt=18.0, rotation=37.0, shadow=0.0, glare=0.0, hand=True)
    reader.learn_bare(hand.image, moved)
    assert reader._ref_share[0] == 0 or reader.read(frame.image).square_probs[0].argmax() == 1
    old = BoardReader(Calibration(calibration.image_size, calibration.homography, calibration.method,
                                  calibration.marker_side, calibration.appearance, None))
    assert old.learn_bare(frame.image, moved) == 0
