"""``netzwerk audit`` through ``companion.cli.main``: output, record, calibration choices, exit 2."""

from __future__ import annotations

import json
import shutil

import cv2
import numpy as np
import pytest
from audit_scenario import corners_text

from companion.referee.audit import list_images
from companion.cli import main
from companion.record import parse_record
from companion.referee.referee import ACCEPTED


# these photos show the classic look our renderer first drew: its own reader (the default is any set's)
def run(capsys, *argv):
    args = [str(a) for a in argv]
    if not {"--reader", "--calibration", "--help"} & set(args):
        args += ["--reader", "classic"]
    code = main(["audit", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_one_object_per_photo_then_the_record(default_game, capsys, tmp_path):
    record = tmp_path / "game.txt"
    code, out, err = run(capsys, default_game.folder, "--json", "--record", record)
    assert code == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    photos = list_images(default_game.folder)
    assert [o["image"] for o in lines[:-1]] == [p.name for p in photos]
    for o in lines[:-1]:
        assert {"image", "verdict", "turn", "reason", "position", "status"} <= set(o)
    assert lines[0]["verdict"] == "start" and lines[0]["position"].startswith("BBBBBB/6/6/6/6/WWWWWW")
    for o, shot in zip(lines[1:-1], default_game.shots):
        if o["verdict"] == ACCEPTED:
            assert o["position"] == shot.after.to_string() and o["turn"] and o["reason"] is None
        else:
            assert o["turn"] is None and o["reason"]
    last = lines[-1]
    assert "image" not in last
    assert last["result"] in ("white wins", "black wins")
    assert parse_record(last["record"]) == parse_record(record.read_text())
    assert parse_record(record.read_text()).result == last["result"]


def test_readable_lines(default_game, capsys):
    code, out, _ = run(capsys, default_game.folder)
    assert code == 0
    lines = out.splitlines()
    n = len(list_images(default_game.folder))
    assert len(lines) == n + 1
    assert lines[0].startswith("IMG_1.jpg: start position")
    assert any(": accepted 1. w: " in line for line in lines)
    assert any(": rejected: " in line for line in lines)
    assert any(": unreadable: " in line and "hand" in line for line in lines)
    assert lines[-1].startswith("result: ")


def test_rule_options(capture_game, capsys):
    code, out, _ = run(capsys, capture_game.folder, "--json", "--option", "must-capture")
    assert code == 0
    objs = [json.loads(line) for line in out.splitlines()]
    assert any(o["verdict"] == "rejected" and "must-capture" in o["reason"] for o in objs[:-1])
    assert objs[-1]["rules"] == ["must-capture"]
    # without the option the capture left out is a legal turn: it is accepted, and the game goes elsewhere
    code, out, _ = run(capsys, capture_game.folder, "--json")
    plain = [json.loads(line) for line in out.splitlines()]
    assert not any(o["verdict"] == "rejected" and "must-capture" in (o["reason"] or "") for o in plain[:-1])
    assert plain[-1]["turns"] != objs[-1]["turns"]


def test_corners_and_calibration_file(corners_game, capsys, tmp_path):
    """A board without markers: --corners; then the calibration saved from it via --calibration."""
    # without markers the board's grid is found in the first photo (the classic set's robot colours
    # tell White's side here; a set whose colours do not would need --white-side)
    code, out, err = run(capsys, corners_game.folder, "--json")
    assert code == 0, err
    objs = [json.loads(line) for line in out.splitlines()]
    assert "grid" in objs[0]["reason"] or "grid" in json.dumps(objs[0])
    assert [o["verdict"] for o in objs[1:-1]] == [s.expect for s in corners_game.shots]
    code, out, err = run(capsys, corners_game.folder, "--json", "--corners", corners_text(corners_game.corners))
    assert code == 0, err
    objs = [json.loads(line) for line in out.splitlines()]
    assert [o["verdict"] for o in objs[1:-1]] == [s.expect for s in corners_game.shots]
    # the same game with a calibration file made from its first photo
    from vision.calibration import calibrate

    from companion.referee.audit import load_image, start_layout

    first = list_images(corners_game.folder)[0]
    cal = calibrate(load_image(first), start_layout(), corners=corners_game.corners)
    cal_path = cal.save(tmp_path / "cal.json")
    code, out2, err = run(capsys, corners_game.folder, "--json", "--calibration", cal_path)
    assert code == 0, err
    assert [json.loads(line)["verdict"] for line in out2.splitlines()[1:-1]] == [o["verdict"] for o in objs[1:-1]]


# -- exit 2 -------------------------------------------------------------------------------


def test_missing_and_empty_folder(capsys, tmp_path):
    code, out, err = run(capsys, tmp_path / "nope")
    assert code == 2 and "does not exist" in err and out == ""
    code, _, err = run(capsys, tmp_path)
    assert code == 2 and "holds no photos" in err
    f = tmp_path / "file.jpg"
    f.write_bytes(b"x")
    code, _, err = run(capsys, f)
    assert code == 2 and "is not a folder" in err


def test_files_that_are_not_images(default_game, capsys, tmp_path):
    folder = tmp_path / "mixed"
    shutil.copytree(default_game.folder, folder)
    (folder / "notes.txt").write_text("turn 3 was disputed")
    code, out, err = run(capsys, folder)
    assert code == 2 and "notes.txt" in err and "not images" in err and out == ""
    (folder / "notes.txt").unlink()
    (folder / "IMG_99.jpg").write_text("not a jpeg at all")
    code, out, err = run(capsys, folder)
    assert code == 2 and "IMG_99.jpg is not an image" in err and out == ""
    (folder / "IMG_99.jpg").unlink()
    (folder / ".DS_Store").write_bytes(b"\0\0")  # hidden files are skipped
    (folder / "sub").mkdir()  # and sub-folders
    code, _, err = run(capsys, folder)
    assert code == 0, err


def test_first_photo_not_the_start_position(default_game, capsys, tmp_path):
    folder = tmp_path / "late"
    folder.mkdir()
    photos = list_images(default_game.folder)
    for p in photos[1:5]:  # the first photo is after White's first turn
        shutil.copy(p, folder / p.name)
    code, out, err = run(capsys, folder)
    assert code == 2 and "does not show the start position" in err and out == ""
    # also with a calibration file: the first photo is checked
    from vision.calibration import calibrate

    from companion.referee.audit import load_image, start_layout

    cal = calibrate(load_image(photos[0]), start_layout())
    cal_path = cal.save(tmp_path / "cal.json")
    code, out, err = run(capsys, folder, "--calibration", cal_path)
    assert code == 2 and "does not show the start position" in err


def test_broken_calibration_file(default_game, capsys, tmp_path):
    bad = tmp_path / "cal.json"
    bad.write_text("{ this is not json")
    code, out, err = run(capsys, default_game.folder, "--calibration", bad)
    assert code == 2 and "broken calibration" in err and "not JSON" in err and out == ""
    bad.write_text(json.dumps({"format": "something else"}))
    code, _, err = run(capsys, default_game.folder, "--calibration", bad)
    assert code == 2 and "broken calibration" in err
    code, _, err = run(capsys, default_game.folder, "--calibration", tmp_path / "missing.json")
    assert code == 2 and "does not exist" in err


def test_calibration_from_another_setup(default_game, corners_game, capsys, tmp_path):
    from vision.calibration import calibrate

    from companion.referee.audit import load_image, start_layout

    first = list_images(corners_game.folder)[0]
    cal = calibrate(load_image(first), start_layout(), corners=corners_game.corners)
    path = cal.save(tmp_path / "other.json")
    code, out, err = run(capsys, default_game.folder, "--calibration", path)
    assert code == 2 and "first photo IMG_1.jpg" in err and out == ""


@pytest.mark.parametrize("argv, message", [
    (["--option", "no-such-rule"], "unknown rule option"),
    (["--corners", "1,2 3,4"], "--corners"),
    (["--corners", "1,2 3,4 5,6 7,8", "--calibration", "x.json"], "not both"),
    (["--record", "/no/such/folder/game.txt"], "does not exist"),
])
def test_bad_options(default_game, capsys, argv, message):
    code, out, err = run(capsys, default_game.folder, *argv)
    assert code == 2 and message in err and out == ""


def test_a_photo_of_another_size_is_unreadable_not_an_error(default_game, capsys, tmp_path):
    folder = tmp_path / "sizes"
    folder.mkdir()
    photos = list_images(default_game.folder)
    shutil.copy(photos[0], folder / "a1.jpg")
    small = cv2.resize(cv2.imread(str(photos[1])), (500, 300))  # another aspect: cannot be scaled to fit
    cv2.imwrite(str(folder / "a2.jpg"), small)
    cv2.imwrite(str(folder / "a3.png"), np.zeros((600, 800, 3), np.uint8))  # a black frame
    shutil.copy(photos[1], folder / "a4.jpg")
    code, out, err = run(capsys, folder, "--json")
    assert code == 0, err
    objs = [json.loads(line) for line in out.splitlines()]
    assert [o["verdict"] for o in objs[:-1]] == ["start", "unreadable", "unreadable", "accepted"]
    assert "500x300" in objs[1]["reason"] and "black" in objs[2]["reason"]


def test_name_order_counts_digit_runs_as_numbers(tmp_path):
    for name in ("IMG_10.jpg", "IMG_9.jpg", "IMG_1.jpg", "img_2.png"):
        (tmp_path / name).write_bytes(b"\xff\xd8\xff\xe0" if name.endswith("jpg") else b"\x89PNG\r\n\x1a\n")
    assert [p.name for p in list_images(tmp_path)] == ["IMG_1.jpg", "img_2.png", "IMG_9.jpg", "IMG_10.jpg"]


def test_help(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["audit", "--help"])
    assert exc.value.code == 0
    assert "--calibration" in capsys.readouterr().out


def test_first_player(default_game, capsys):
    """--first black: the photos of a game White began are then Black's turn first -> illegal."""
    code, out, err = run(capsys, default_game.folder, "--json", "--first", "black")
    assert code == 0, err
    objs = [json.loads(line) for line in out.splitlines()]
    assert objs[0]["position"].endswith(" b")
    assert objs[1]["verdict"] == "rejected" and "during Black's turn" in objs[1]["reason"]
    assert parse_record(objs[-1]["record"]).start.endswith(" b")


def test_big_phone_photos_are_read_at_a_camera_size(corners_game, capsys, tmp_path):
    """Photos over 1640 px are scaled down (corners given in the big photo's pixels scale along)."""
    from companion.referee.audit import MAX_SIDE, fit, working_size

    assert working_size(4032, 3024) == (MAX_SIDE, 1230) and working_size(800, 600) == (800, 600)
    assert fit(np.zeros((300, 400, 3), np.uint8), (800, 600)).shape == (600, 800, 3)
    assert fit(np.zeros((300, 300, 3), np.uint8), (800, 600)).shape == (300, 300, 3)  # other aspect: left alone
    big = tmp_path / "big"
    big.mkdir()
    for p in list_images(corners_game.folder):
        img = cv2.imread(str(p))
        cv2.imwrite(str(big / p.name), cv2.resize(img, (2000, 1500), interpolation=cv2.INTER_CUBIC))
    corners = np.asarray(corners_game.corners) * 2.5
    code, out, err = run(capsys, big, "--json", "--corners", corners_text(corners))
    assert code == 0, err
    objs = [json.loads(line) for line in out.splitlines()]
    assert [o["verdict"] for o in objs[1:-1]] == [s.expect for s in corners_game.shots]
