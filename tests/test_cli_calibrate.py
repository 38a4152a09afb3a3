"""``netzwerk vision calibrate``: --white-side, --position, --colours-from, and an --out that never
overwrites the photo or a file that is not a calibration.

Pictures come from the synthetic camera with the corner markers on the table
(``vision.render.render(..., markers=True)``), so that the method is the
markers' whatever the state of the marker-less grid finder.
"""

from __future__ import annotations

import json

import cv2
import pytest

from companion.cli import main
from companion.rules.position import Position
from companion.vision_bridge import layout_from_position

START = Position.start()
MIDGAME = Position.from_string("BBBBB1/5B/6/2W3/6/WW1WWW 7/xxxxxxx/7/7/7/xxxxxxx/7 b")
WHITE_ONLY = Position.from_string("6/6/2W3/6/6/WW1WWW 7/xxxxxxx/7/7/7/xxxxxxx/7 b")
SEED = 5


# these photos show the classic look our renderer first drew: its own reader (the default is any set's)
def calibrate(capsys, *argv):
    args = [str(a) for a in argv]
    if "--reader" not in args:
        args += ["--reader", "classic"]
    code = main(["vision", "calibrate", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    from vision.render import render

    folder = tmp_path_factory.mktemp("photos")
    out = {}
    for name, pos in (("start", START), ("midgame", MIDGAME), ("white_only", WHITE_ONLY)):
        path = folder / f"{name}.png"
        cv2.imwrite(str(path), render(layout_from_position(pos), SEED, markers=True).image)
        out[name] = path
    return out


# -- the options -------------------------------------------------------------------------------


def test_start_position_from_the_markers(photos, capsys, tmp_path):
    from vision.calibration import WHITE_SIDES, Calibration

    cal = tmp_path / "cal.json"
    code, out, err = calibrate(capsys, "--image", photos["start"], "--out", cal)
    assert code == 0, err
    assert out.startswith("calibrated from the corner markers (marker side ") and f"wrote {cal}" in out
    assert Calibration.load(cal).method == "markers"
    code, out, err = calibrate(capsys, "--image", photos["start"], "--out", cal, "--json")  # a calibration: rewritten
    assert code == 0, err
    data = json.loads(out)
    assert data["method"] == "markers" and data["white_side"] in WHITE_SIDES
    assert data["position"] == START.to_string() and data["colours_from"] is None
    # with markers the white side is not needed, and said to be unused
    code, out, err = calibrate(capsys, "--image", photos["start"], "--out", cal, "--white-side", "top")
    assert code == 0, err
    assert "(--white-side not used: the markers fix the orientation)" in out


def test_another_known_position(photos, capsys, tmp_path):
    cal = tmp_path / "mid.json"
    code, out, err = calibrate(capsys, "--image", photos["midgame"], "--position", MIDGAME.to_string(), "--out", cal,
                               "--json")
    assert code == 0, err
    assert json.loads(out)["position"] == MIDGAME.to_string()


def test_a_photo_of_another_position_is_refused(photos, capsys, tmp_path):
    code, out, err = calibrate(capsys, "--image", photos["midgame"], "--out", tmp_path / "start.json")
    assert code == 2 and err.startswith("netzwerk vision: ") and "expected layout at" in err
    assert not (tmp_path / "start.json").exists()


def test_colours_from_an_earlier_calibration(photos, capsys, tmp_path):
    from vision.calibration import Calibration

    old = tmp_path / "old.json"
    assert calibrate(capsys, "--image", photos["start"], "--out", old)[0] == 0
    one = ["--image", photos["white_only"], "--position", WHITE_ONLY.to_string()]
    code, out, err = calibrate(capsys, *one, "--out", tmp_path / "new.json")
    assert code == 2 and "at least one White robot and one Black robot" in err
    # the companion's reader learns both colours from the frame itself: it cannot take them from
    # an earlier calibration (the any-set reader, vision.anyset, can), and says so
    code, out, err = calibrate(capsys, *one, "--out", tmp_path / "new.json", "--colours-from", old)
    assert code == 2 and "at least one White robot and one Black robot" in err
    assert not (tmp_path / "new.json").exists()
    assert Calibration.load(old).colours is not None
    # with both colours on the board they are learned from it, and the option is said to be unused
    code, out, err = calibrate(capsys, "--image", photos["start"], "--out", tmp_path / "again.json",
                               "--colours-from", old)
    assert code == 0, err
    assert "(--colours-from not used: both robot colours are on the board" in out


# -- hostile input -----------------------------------------------------------------------------


def test_bad_white_side(photos, capsys, tmp_path):
    with pytest.raises(SystemExit) as exc:
        main(["vision", "calibrate", "--reader", "classic", "--image", str(photos["start"]), "--out", str(tmp_path / "c.json"),
              "--white-side", "north"])
    assert exc.value.code == 2
    assert "--white-side: invalid choice: 'north'" in capsys.readouterr().err


@pytest.mark.parametrize(("position", "token"), [
    ("BBBBBB/6/6/6/6/WWWWWX 7/xxxxxxx/7/7/7/xxxxxxx/7 w", "'X'"),
    ("BBBBBB/6/6/6/6/WWWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 x", "'x'"),
    ("BBBBBB/6/6/6/6/WWWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7", "3"),
])
def test_bad_position(photos, capsys, tmp_path, position, token):
    code, out, err = calibrate(capsys, "--image", photos["start"], "--out", tmp_path / "c.json",
                               "--position", position)
    assert code == 2 and out == "" and token in err and err.count("\n") == 1
    assert not (tmp_path / "c.json").exists()


def test_out_is_never_the_image_nor_a_foreign_file(photos, capsys, tmp_path):
    image = tmp_path / "photo.png"
    image.write_bytes(photos["start"].read_bytes())
    before = image.read_bytes()
    for out in (image, tmp_path / "." / "photo.png", tmp_path / "sub" / ".." / "photo.png"):
        (tmp_path / "sub").mkdir(exist_ok=True)
        code, _, err = calibrate(capsys, "--image", image, "--out", out)
        assert code == 2 and "is an input of this command" in err
        assert image.read_bytes() == before
    notes = tmp_path / "notes.json"
    notes.write_text('{"my": "notes"}')
    code, _, err = calibrate(capsys, "--image", image, "--out", notes)
    assert code == 2 and "exists and is not a calibration file" in err
    assert notes.read_text() == '{"my": "notes"}'
    other = tmp_path / "other.png"
    other.write_bytes(before)
    code, _, err = calibrate(capsys, "--image", image, "--out", other)
    assert code == 2 and "not a calibration file" in err and other.read_bytes() == before
    code, _, err = calibrate(capsys, "--image", image, "--out", tmp_path)
    assert code == 2 and "is a folder" in err


def test_missing_image_and_bad_colours_file(photos, capsys, tmp_path):
    code, out, err = calibrate(capsys, "--image", tmp_path / "none.png", "--out", tmp_path / "c.json")
    assert code == 2 and "does not exist" in err and out == ""
    bad = tmp_path / "bad.json"
    bad.write_text("not json")
    code, _, err = calibrate(capsys, "--image", photos["start"], "--out", tmp_path / "c.json", "--colours-from", bad)
    assert code == 2 and err.startswith("netzwerk vision: --colours-from: ") and "not JSON" in err
    code, _, err = calibrate(capsys, "--image", photos["start"], "--out", tmp_path / "c.json",
                             "--colours-from", tmp_path / "missing.json")
    assert code == 2 and "does not exist" in err
    assert not (tmp_path / "c.json").exists()


def test_a_pipe_is_neither_read_nor_written(photos, capsys, tmp_path):
    """A FIFO as --out or --colours-from is refused at once (reading one would block)."""
    import os

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code, out, err = calibrate(capsys, "--image", photos["start"], "--out", fifo)
    assert code == 2 and "not a regular file" in err
    code, out, err = calibrate(capsys, "--image", photos["start"], "--out", tmp_path / "c.json", "--colours-from", fifo)
    assert code == 2 and "not a regular file" in err
