"""vision.readers: one door to both board readers; the CLI's --reader, files that name their reader."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from companion.cli import main
from vision.errors import CalibrationError
from vision.readers import board_reader, calibrate, load_calibration, reader_of
from vision.render import render

from vision_kit import START, random_layout

DESIGN = 5_000_005          # a development design (training uses 3,000,000+, the benchmark 9,000,000+)
SEED = 77
START_STRING = "BBBBBB/6/6/6/6/WWWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 w"


@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    d = tmp_path_factory.mktemp("photos")
    start = render(START, SEED, design=DESIGN, markers=False, printed=[True] * 49)
    cv2.imwrite(str(d / "start.png"), start.image)
    truth = random_layout(np.random.default_rng(5))
    cv2.imwrite(str(d / "later.png"), render(truth, SEED, design=DESIGN, markers=False, frame=1).image)
    return d, start, truth


def side(start) -> str:
    from vision.calibration import white_side_of

    return white_side_of(start.homography)


def run(capsys, *argv):
    code = main([*map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_any_reader_calibrates_from_the_command_line_and_its_file_names_it(photos, tmp_path, capsys):
    d, start, _ = photos
    cal = tmp_path / "cal.json"
    code, out, err = run(capsys, "vision", "calibrate", "--image", d / "start.png", "--reader", "any",
                         "--white-side", side(start), "--out", cal, "--json")
    assert code == 0, err
    assert json.loads(out)["reader"] == "any"
    assert json.loads(out)["robot_height"] == load_calibration(cal).robot_height     # what calibration measured
    assert json.loads(cal.read_text())["format"] == "netzwerk-vision-anyset-calibration"
    loaded = load_calibration(cal)
    assert reader_of(loaded) == "any"
    code, out, err = run(capsys, "vision", "read", "--image", d / "start.png", "--calibration", cal)
    assert code == 0 and out.strip() == START_STRING.rsplit(" ", 1)[0]
    # the file says which reader reads it: no option needed to read or draw
    code, out, err = run(capsys, "vision", "overlay", "--image", d / "later.png", "--calibration", cal,
                         "--out", tmp_path / "ov.png")
    assert code == 0 and (tmp_path / "ov.png").exists()
    # an existing calibration of either reader may be replaced, anything else not
    code, _, err = run(capsys, "vision", "calibrate", "--image", d / "start.png", "--reader", "classic",
                       "--white-side", side(start), "--out", cal)
    assert code in (0, 2) and "not overwritten" not in err
    (tmp_path / "notes.json").write_text("{}")
    code, _, err = run(capsys, "vision", "calibrate", "--image", d / "start.png", "--reader", "any",
                       "--white-side", side(start), "--out", tmp_path / "notes.json")
    assert code == 2 and "not overwritten" in err and (tmp_path / "notes.json").read_text() == "{}"
    code, out, err = run(capsys, "vision", "calibrate", "--image", d / "start.png", "--reader", "any",
                       "--white-side", side(start), "--out", cal)
    assert code == 0, err
    # the robots' height as calibration measured it (or that it could not), and what it means
    height = load_calibration(cal).robot_height
    line = next(row for row in out.splitlines() if row.startswith("robots: "))
    assert (f"{height:.2f} of a square tall" in line) if height is not None else ("could not be measured" in line)
    assert "doubtful" in line


def test_a_later_frame_is_read_right_or_refused_never_wrong(photos, tmp_path, capsys):
    from companion.vision_bridge import robots_and_batteries_fields

    d, start, truth = photos
    cal = tmp_path / "cal.json"
    assert run(capsys, "vision", "calibrate", "--image", d / "start.png", "--reader", "any",
               "--white-side", side(start), "--out", cal)[0] == 0
    code, out, err = run(capsys, "vision", "read", "--image", d / "later.png", "--calibration", cal)
    if code == 0:
        assert out.strip() == robots_and_batteries_fields(truth)
    else:
        assert code == 1 and "not readable" in err


def test_the_white_side_decides_the_start_positions_two_orientations(photos):
    _, start, _ = photos
    opposite = {"bottom": "top", "top": "bottom", "left": "right", "right": "left"}
    a = calibrate(start.image, START, reader="any", white_side=side(start))
    b = calibrate(start.image, START, reader="any", white_side=opposite[side(start)])
    assert np.abs(a.corners_px - start.corners_px).max() < 4.0
    assert np.abs(a.corners_px - np.roll(b.corners_px, 2, axis=0)).max() < 1.0
    with pytest.raises(CalibrationError, match="--white-side"):
        calibrate(start.image, START, reader="any")


def test_both_readers_behind_one_door(photos, tmp_path):
    from vision.anyset.reader import BoardReader as AnyReader
    from vision.reader import BoardReader as ClassicReader

    classic = render(START, 3, markers=True, printed=[True] * 49)
    cal = calibrate(classic.image, START, reader="classic")
    assert reader_of(cal) == "classic" and isinstance(board_reader(cal), ClassicReader)
    path = cal.save(tmp_path / "classic.json")
    assert reader_of(load_calibration(path)) == "classic"
    anycal = calibrate(classic.image, START, reader="any")
    assert isinstance(board_reader(anycal), AnyReader)
    with pytest.raises(CalibrationError, match="unknown reader 'best'"):
        calibrate(classic.image, START, reader="best")
    (tmp_path / "other.json").write_text(json.dumps({"format": "something else"}))
    with pytest.raises(CalibrationError, match="format"):
        load_calibration(tmp_path / "other.json")


def test_audit_and_run_take_the_reader(photos, tmp_path, capsys):
    d, start, _ = photos
    folder = tmp_path / "game"
    folder.mkdir()
    (folder / "IMG_001.png").write_bytes((d / "start.png").read_bytes())
    code, out, err = run(capsys, "audit", folder, "--reader", "any", "--white-side", side(start), "--json")
    assert code == 0, err
    code, out, err = run(capsys, "audit", folder, "--reader", "any", "--calibration", tmp_path / "x.json")
    assert code == 2 and "--reader" in err and "Traceback" not in err
    with pytest.raises(SystemExit) as exc:
        main(["run", "--reader", "best"])
    assert exc.value.code == 2 and "invalid choice: 'best'" in capsys.readouterr().err
