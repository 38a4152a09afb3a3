"""Battery sides (printed / blank): right where claimed, unknown where the camera cannot tell,
and never a change to the empty/battery reading or to readability."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import vision.reader as reader_module
from companion.cli import main
from companion.vision_bridge import robots_and_batteries_fields
from vision.battery_side import MAX_BLUR, measure, read_battery_sides, with_battery_sides
from vision.reader import BoardReader
from vision.reading import BoardReading, unreadable
from vision.render import render

from vision_kit import SETUP_SEED, random_layout

SETUP = dict(tilt=18.0, rotation=37.0, shadow=0.0, glare=0.0)


@pytest.fixture(scope="module")
def frames():
    """Frames of random layouts (14 batteries each) from the calibrated set-up, with their truth."""
    rng = np.random.default_rng(31)
    return [render(random_layout(rng), SETUP_SEED, **SETUP) for _ in range(4)]


def _claims(reading, frame, confidence=0.9):
    right = wrong = unknown = 0
    for i in frame.layout.batteries:
        side = reading.battery_side(i, confidence)
        if side == "unknown":
            unknown += 1
        elif side is not None:
            if (side == "printed") == frame.battery_printed[i]:
                right += 1
            else:
                wrong += 1
    return right, wrong, unknown


def test_claimed_sides_are_right(calibration, frames):
    reader = BoardReader(calibration, adapt=False)
    right = wrong = unknown = 0
    for frame in frames:
        reading = reader.read(frame.image)
        assert reading.readable, reading.reason
        r, w, u = _claims(reading, frame)
        right, wrong, unknown = right + r, wrong + w, unknown + u
        printed, blank = set(reading.printed_points()), set(reading.blank_points())
        assert not printed & blank
        assert printed | blank <= frame.layout.batteries          # sides only where a battery was read
        # a side probability only at battery points
        for i in range(49):
            if i not in frame.layout.batteries:
                assert math.isnan(reading.printed_probs[i]) and reading.battery_side(i) is None
    assert wrong == 0
    assert right >= 0.85 * (right + unknown)   # a clear view: nearly every side is claimed
    assert any(frames[0].battery_printed[i] for i in frames[0].layout.batteries)  # both sides occur


def test_start_frame_sides(calibration, start_frame):
    reading = BoardReader(calibration, adapt=False).read(start_frame.image)
    right, wrong, unknown = _claims(reading, start_frame)
    assert wrong == 0 and right >= 10


def test_heavy_blur_makes_sides_unknown_and_leaves_the_reading_alone(calibration, monkeypatch):
    frame = render(random_layout(np.random.default_rng(5)), SETUP_SEED, **SETUP, blur=2.5)
    reading = BoardReader(calibration, adapt=False).read(frame.image)
    read_as_battery = [i for i in range(49) if reading.point_probs[i][1] > 0.5]
    assert read_as_battery
    assert all(reading.battery_side(i) == "unknown" for i in read_as_battery)
    assert all(math.isnan(reading.printed_probs[i]) for i in range(49))
    assert all("blurred" in reading.side_unknown_why[i] for i in read_as_battery)
    assert reading.printed_points(0.5) == () and reading.blank_points(0.5) == ()
    _same_reading_without_sides(calibration, frame.image, reading, monkeypatch)


@pytest.mark.parametrize("conditions", [dict(light=0.3), dict(light=1.8)], ids=["dark", "overexposed"])
def test_dark_or_washed_out_discs_are_unknown(calibration, conditions, monkeypatch):
    frame = render(random_layout(np.random.default_rng(6)), SETUP_SEED, **SETUP, **conditions)
    reading = BoardReader(calibration, adapt=False).read(frame.image)
    right, wrong, unknown = _claims(reading, frame)
    assert wrong == 0
    assert unknown >= 0.8 * (right + unknown)
    _same_reading_without_sides(calibration, frame.image, reading, monkeypatch)


def test_glare_never_gives_a_wrong_side(calibration, monkeypatch):
    # the renderer mirrors the lamp in the board's varnish, not on the matte discs: the sides stay
    # measurable there, so the check is that no claim is wrong and the reading is unchanged
    frame = render(random_layout(np.random.default_rng(7)), SETUP_SEED, **SETUP | dict(glare=0.8))
    reading = BoardReader(calibration, adapt=False).read(frame.image)
    assert _claims(reading, frame)[1] == 0
    _same_reading_without_sides(calibration, frame.image, reading, monkeypatch)


def _same_reading_without_sides(calibration, image, reading, monkeypatch):
    """The reading of a reader without the side hook is the same in everything but the sides."""
    with monkeypatch.context() as m:
        m.setattr(reader_module, "with_battery_sides", lambda r, im, cal: r)
        plain = BoardReader(calibration, adapt=False).read(image)
    assert plain.readable == reading.readable and plain.reason == reading.reason
    assert plain.layout == reading.layout
    np.testing.assert_array_equal(plain.point_probs, reading.point_probs)
    np.testing.assert_array_equal(plain.square_probs, reading.square_probs)
    assert plain.low_confidence_points == reading.low_confidence_points
    assert all(math.isnan(v) for v in plain.printed_probs)


def test_sides_never_change_the_reading(calibration, frames, monkeypatch):
    for frame in frames[:2]:
        reading = BoardReader(calibration, adapt=False).read(frame.image)
        _same_reading_without_sides(calibration, frame.image, reading, monkeypatch)


def test_hook_is_safe_on_any_reading(calibration, frames):
    frame = frames[0]
    # an unreadable reading with uniform probabilities: no battery, so no side
    r = with_battery_sides(unreadable("test"), frame.image, calibration)
    assert all(math.isnan(v) for v in r.printed_probs) and r.sides_json() == {}
    # batteries claimed on a black frame: nothing to see, so every side is unknown (no error)
    pp = np.tile([0.0, 1.0], (49, 1))
    black = np.zeros_like(frame.image)
    r = with_battery_sides(unreadable("test", point_probs=pp), black, calibration)
    assert all(r.battery_side(i) == "unknown" for i in range(49))
    sides = read_battery_sides(black, calibration.H, pp)
    assert all(w for w in sides.why)
    assert measure(frame.image, calibration.H, []) == []


def test_boardreading_defaults_stay_compatible():
    sp, pp = np.full((36, 3), 1 / 3), np.tile([0.0, 1.0], (49, 1))
    r = BoardReading(None, sp, pp, (1.0,) * 36, (1.0,) * 49, True)   # the old positional form
    assert r.printed_points() == () and r.blank_points() == ()
    assert all(r.battery_side(i) == "unknown" for i in range(49))
    assert set(r.to_json()["battery_sides"]["A1"]) == {"side", "p_printed", "why"}
    probs = np.full(49, np.nan)
    probs[[0, 1, 2]] = [0.97, 0.02, 0.6]
    r = BoardReading(None, sp, pp, (1.0,) * 36, (1.0,) * 49, True, printed_probs=probs)
    assert r.printed_points() == (0,) and r.blank_points() == (1,)
    assert r.printed_points(0.99) == () and r.blank_points(0.5) == (1,)
    assert [r.battery_side(i) for i in range(4)] == ["printed", "blank", "unknown", "unknown"]
    assert r.sides_json()["A1"] == {"side": "printed", "p_printed": 0.97}


def test_cli_read_json_reports_sides_and_plain_output_is_unchanged(tmp_path, capsys, calibration, frames):
    cal = tmp_path / "cal.json"
    calibration.save(cal)
    frame = frames[1]
    img = tmp_path / "frame.png"
    import cv2

    cv2.imwrite(str(img), frame.image)
    assert main(["vision", "read", "--image", str(img), "--calibration", str(cal)]) == 0
    assert capsys.readouterr().out.strip() == robots_and_batteries_fields(frame.layout)
    assert main(["vision", "read", "--image", str(img), "--calibration", str(cal), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    sides = data["battery_sides"]
    names = {f"{'ABCDEFG'[i % 7]}{i // 7 + 1}": i for i in frame.layout.batteries}
    assert set(sides) == set(names)
    for name, entry in sides.items():
        assert entry["side"] in ("printed", "blank", "unknown")
        if entry["side"] != "unknown":
            assert (entry["side"] == "printed") == frame.battery_printed[names[name]]
            assert 0.0 <= entry["p_printed"] <= 1.0
    ov = tmp_path / "ov.png"
    assert main(["vision", "overlay", "--image", str(img), "--calibration", str(cal), "--out", str(ov)]) == 0
    assert "battery sides:" in capsys.readouterr().out
    assert ov.stat().st_size > 0


def test_blur_limit_is_in_squares():
    # the limit is a geometric size (a fraction of the 0.14-square disc), not a colour
    assert 0.01 < MAX_BLUR < 0.05
