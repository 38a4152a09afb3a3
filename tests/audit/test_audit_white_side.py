"""``netzwerk audit --white-side``: a board without markers, the messages that say what to give.

The camera's calibration is replaced by fakes here (the orientation logic is
``vision``'s; what is checked is what the audit passes on and says)."""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np
import pytest

import vision.calibration
from companion.referee.audit import AuditError, audit_folder, calibrate_from, calibration_note
from companion.cli import main
from vision.errors import CalibrationError, MarkersNotFound


# these photos show the classic look our renderer first drew: its own reader (the default is any set's)
def run(capsys, *argv):
    args = [str(a) for a in argv]
    if not {"--reader", "--calibration", "--help"} & set(args):
        args += ["--reader", "classic"]
    code = main(["audit", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def folder(tmp_path):
    """A folder with one photo of a plain table (no markers)."""
    f = tmp_path / "photos"
    f.mkdir()
    rng = np.random.default_rng(1)
    cv2.imwrite(str(f / "IMG_1.png"), rng.integers(60, 200, (240, 320, 3), dtype=np.uint8))
    return f


@pytest.fixture
def calls(monkeypatch):
    """The vision calibration, faked: records its arguments, then refuses like the real one without a white side."""
    seen: list[dict] = []

    def fake(image, expected, corners=None, white_side=None, colours=None):
        seen.append({"corners": corners, "white_side": white_side})
        if white_side is None:
            raise CalibrationError("the board looks the same turned round (which colour is White is not written on "
                                   "the pieces): say which image edge White's start row faces with --white-side "
                                   "bottom|top|left|right")
        raise CalibrationError("the board does not hold the start layout at a1, b1")

    monkeypatch.setattr(vision.calibration, "calibrate", fake)
    return seen


def test_without_markers_the_message_names_white_side_first(folder, calls, capsys):
    code, out, err = run(capsys, folder)
    assert code == 2 and out == ""
    assert err.startswith("netzwerk audit: first photo IMG_1.png: the board's corner markers were not found")
    assert "--white-side bottom|top|left|right" in err and "--corners" in err and "--calibration" in err
    hint = err.split("; without corner markers")[1]
    assert hint.index("--white-side") < hint.index("--corners") < hint.index("--calibration")
    assert calls == [{"corners": None, "white_side": None}]


def test_the_white_side_reaches_the_calibration(folder, calls, capsys):
    code, out, err = run(capsys, folder, "--white-side", "left")
    assert code == 2 and calls[-1] == {"corners": None, "white_side": "left"}
    assert "(no corner markers; the board's grid, White's start row towards the left)" in err
    assert "does not hold the start layout" in err and "must show the start position" in err


def test_markers_that_do_not_fit_say_what_to_give(monkeypatch):
    def fake(image, expected, corners=None, white_side=None, colours=None):
        raise MarkersNotFound("the corner markers do not fit one board")

    monkeypatch.setattr(vision.calibration, "calibrate", fake)
    with pytest.raises(AuditError) as exc:
        calibrate_from(np.zeros((120, 160, 3), np.uint8), "IMG_1.jpg")
    msg = str(exc.value)
    assert "markers were not found" in msg and msg.index("--white-side") < msg.index("--corners")


def test_bad_white_side_options_exit_2(folder, capsys, tmp_path):
    with pytest.raises(SystemExit) as exc:
        run(capsys, folder, "--white-side", "north")
    assert exc.value.code == 2 and "invalid choice: 'north'" in capsys.readouterr().err
    code, out, err = run(capsys, folder, "--white-side", "top", "--calibration", tmp_path / "cal.json")
    assert code == 2 and "either --calibration or --white-side" in err and err.count("\n") == 1


def test_the_start_line_says_how_the_setup_was_calibrated(folder, monkeypatch):
    grid = SimpleNamespace(method="grid", H=np.eye(3))  # board row 1 towards smaller y: the image's top
    assert calibration_note(grid) == "calibrated from the board's grid found in the photo, White's start row towards the top"
    assert calibration_note(SimpleNamespace(method="corners")) == "calibrated from the field corners given"
    assert calibration_note(SimpleNamespace(method="markers")) == "calibrated from the corner markers"

    class FakeAudit:
        def __init__(self, cal, rules, start=None, sides=True) -> None:
            self.referee = SimpleNamespace(position=start, status=None)
            self.ply = 0

        def see_start(self, image) -> None:
            pass

    import companion.referee.audit as audit

    monkeypatch.setattr(vision.calibration, "calibrate", lambda *a, **k: grid)
    monkeypatch.setattr(audit, "Audit", FakeAudit)
    first = next(iter(audit_folder(folder, white_side="top")))
    assert first.line().startswith("IMG_1.png: start position (calibrated from the board's grid")
