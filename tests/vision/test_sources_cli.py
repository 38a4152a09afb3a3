"""Frame sources, the stability monitor, the marker sheet, the renderer and the CLI."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.rules.position import Position
from companion.vision_bridge import START_LAYOUT, layout_from_position, robots_and_batteries_fields
from vision.errors import SourceError, VisionError
from vision.layout import BoardLayout
from vision.markers import detect_markers, marker_sheet, write_marker_sheet
from vision.render import render
from vision.sources import FolderSource, FrameSource, OpenCVSource, PiCamera2Source, SyntheticSource
from vision.stability import StabilityMonitor

from vision_kit import SETUP_SEED, START

SETUP = dict(tilt=18.0, rotation=37.0, shadow=0.0, glare=0.0)
START_STRING = "BBBBBB/6/6/6/6/WWWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 w"


# -- bridge ---------------------------------------------------------------------

def test_bridge_start_layout():
    assert START_LAYOUT == START
    assert layout_from_position(Position.start()) == START
    assert robots_and_batteries_fields(START) == "BBBBBB/6/6/6/6/WWWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7"
    pos = Position.from_string("B3B1/6/2W3/6/1B4/WWW3 x6/xxxxxxx/7/7/7/xxxxxx1/7 b")
    fields = robots_and_batteries_fields(layout_from_position(pos))
    assert Position.from_string(fields + " b") == pos


# -- renderer ---------------------------------------------------------------------

def test_render_is_deterministic_and_checks_arguments():
    a = render(START, 5, size=(320, 240), noise=3.0)
    b = render(START, 5, size=(320, 240), noise=3.0)
    c = render(START, 5, size=(320, 240), noise=3.0, frame=1)
    assert a.image.shape == (240, 320, 3) and a.image.dtype == np.uint8
    assert np.array_equal(a.image, b.image)
    assert not np.array_equal(a.image, c.image)          # sensor noise differs per frame
    assert np.abs(a.image.astype(int) - c.image.astype(int)).mean() < 6  # ... but nothing moved
    with pytest.raises(TypeError, match="unknown degradation"):
        render(START, 5, sharpness=3)


# -- sources -------------------------------------------------------------------------

def test_folder_source(tmp_path):
    img = render(START, 3, size=(320, 240)).image
    cv2.imwrite(str(tmp_path / "b.png"), img)
    cv2.imwrite(str(tmp_path / "a.jpg"), img[:, ::-1])
    (tmp_path / "notes.txt").write_text("not an image")
    with FolderSource(tmp_path) as src:
        assert isinstance(src, FrameSource)
        first, second = src.read(), src.read()
        assert first.shape == (240, 320, 3) and second.shape == (240, 320, 3)
        assert np.abs(second.astype(int) - img.astype(int)).mean() < 1  # b.png after a.jpg
        assert src.read() is None
    (tmp_path / "c.png").write_bytes(b"garbage")
    with FolderSource(tmp_path) as src:
        src.read(), src.read()
        with pytest.raises(SourceError, match="c.png"):
            src.read()
    cv2.imwrite(str(tmp_path / "d.png"), np.zeros((240, 320, 3), np.uint8))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(SourceError, match="no images"):
        FolderSource(empty)
    with pytest.raises(SourceError, match="does not exist"):
        FolderSource(tmp_path / "nothere")


def test_folder_source_refuses_black_frames(tmp_path):
    cv2.imwrite(str(tmp_path / "a.png"), np.zeros((240, 320, 3), np.uint8))
    with FolderSource(tmp_path) as src, pytest.raises(SourceError, match="black"):
        src.read()


def test_synthetic_source_follows_the_layout():
    current = {"layout": START}
    with SyntheticSource(lambda: current["layout"], seed=2, size=(320, 240)) as src:
        a = src.read()
        current["layout"] = BoardLayout.from_sets(white=[14], black=[], batteries=list(range(14)))
        b = src.read()
        assert a.shape == b.shape == (240, 320, 3)
        assert np.abs(a.astype(int) - b.astype(int)).mean() > 2
    with pytest.raises(SourceError, match="closed"):
        src.read()
    with SyntheticSource(lambda: "start", size=(320, 240)) as bad, pytest.raises(SourceError, match="BoardLayout"):
        bad.read()


def test_opencv_source_on_a_video_file(tmp_path):
    path = tmp_path / "game.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5, (320, 240))
    assert writer.isOpened()
    frames = [render(START, 3, size=(320, 240), frame=k).image for k in range(3)]
    for f in frames:
        writer.write(f)
    writer.release()
    with OpenCVSource(str(path)) as src:
        got = [src.read() for _ in range(4)]
    assert all(g is not None and g.shape == (240, 320, 3) for g in got[:3])
    assert got[3] is None  # end of the video: "no frame", not garbage
    with pytest.raises(SourceError, match="does not exist"):
        OpenCVSource(str(tmp_path / "nothere.avi"))
    (tmp_path / "bad.avi").write_bytes(b"not a video at all")
    with pytest.raises(SourceError, match="cannot open"):
        OpenCVSource(str(tmp_path / "bad.avi"))


def test_picamera2_missing_is_a_clear_error():
    try:
        import picamera2  # noqa: F401
    except ImportError:
        with pytest.raises(SourceError, match="picamera2 is not installed"):
            PiCamera2Source()
    else:  # pragma: no cover - only on a Pi
        pytest.skip("picamera2 present")


# -- stability ---------------------------------------------------------------------------

def test_stability_monitor(calibration):
    still = render(START, SETUP_SEED, frame=1, **SETUP).image
    still2 = render(START, SETUP_SEED, frame=2, **SETUP).image
    hand = render(START, SETUP_SEED, frame=3, hand=True, **SETUP).image
    mon = StabilityMonitor(still_seconds=1.0, calibration=calibration)
    s = mon.update(still, now=0.0)
    assert not s.stable and s.reason
    assert not mon.update(still2, now=0.5).stable
    assert mon.update(still, now=1.1).stable
    s = mon.update(hand, now=1.2)
    assert not s.stable and "motion" in s.reason
    s = mon.update(still, now=1.3)
    assert not s.stable  # the hand went away just now
    assert not mon.update(still2, now=2.0).stable
    assert not mon.update(still, now=2.4).stable
    assert mon.update(still2, now=3.1).stable
    assert not mon.update(None, now=2.5).stable
    with pytest.raises(ValueError):
        StabilityMonitor(still_seconds=-1)


# -- markers --------------------------------------------------------------------------------

def test_marker_sheet_png_and_pdf(tmp_path):
    sheet = marker_sheet(dpi=100)
    found = detect_markers(sheet)
    assert sorted(found) == [0, 1, 2, 3]
    png = write_marker_sheet(tmp_path / "m.png", dpi=100)
    assert cv2.imread(str(png)) is not None
    pdf = write_marker_sheet(tmp_path / "m.pdf", dpi=100)
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF") and b"/Image" in data
    with pytest.raises(VisionError, match=r"\.png or \.pdf"):
        write_marker_sheet(tmp_path / "m.svg")


# -- CLI ----------------------------------------------------------------------------------------

def test_cli_round_trip(tmp_path, capsys):
    start, cal = tmp_path / "start.png", tmp_path / "cal.json"
    # the render command writes a picture whose corners it reports
    assert main(["vision", "render", START_STRING, "--out", str(start), "--seed", "77", "--markers"]) == 0
    assert "field corners A1 G1 G7 A7" in capsys.readouterr().out
    assert cv2.imread(str(start)).shape == (960, 1280, 3)
    # calibrate and read frames of one (mild) synthetic set-up
    mild = dict(SETUP, uneven=0.1, noise=2.0)
    cv2.imwrite(str(start), render(START, SETUP_SEED, **mild).image)
    assert main(["vision", "calibrate", "--reader", "classic", "--image", str(start), "--out", str(cal)]) == 0
    capsys.readouterr()
    pos = Position.from_string("BBBBB1/5B/6/2W3/6/WW1WWW 7/xxxxxxx/7/7/7/xxxxxxx/7 b")
    img = tmp_path / "pos.png"
    cv2.imwrite(str(img), render(layout_from_position(pos), SETUP_SEED, frame=4, **mild).image)
    code = main(["vision", "read", "--image", str(img), "--calibration", str(cal)])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert out.out.strip() == "BBBBB1/5B/6/2W3/6/WW1WWW 7/xxxxxxx/7/7/7/xxxxxxx/7"
    assert main(["vision", "read", "--image", str(img), "--calibration", str(cal), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["readable"] and data["squares"]["c3"]["white"] > 0.98 and data["points"]["A2"]["battery"] > 0.98
    assert data["position_fields"] == "BBBBB1/5B/6/2W3/6/WW1WWW 7/xxxxxxx/7/7/7/xxxxxxx/7"
    ov = tmp_path / "ov.png"
    assert main(["vision", "overlay", "--image", str(img), "--calibration", str(cal), "--out", str(ov)]) == 0
    assert cv2.imread(str(ov)).shape == (960, 1280, 3)
    # manual corners, as reported by the render command
    nomark = tmp_path / "nomark.png"
    main(["vision", "render", START_STRING, "--out", str(nomark), "--seed", "78"])
    corners = capsys.readouterr().out.split("A7: ")[1].strip()
    assert main(["vision", "calibrate", "--reader", "classic", "--image", str(nomark), "--corners", corners, "--out", str(tmp_path / "c2.json")]) == 0
    assert "calibrated from the field corners given" in capsys.readouterr().out


def test_cli_bad_input(tmp_path, capsys):
    assert main(["vision", "render", "BBBBBB/6 7 w", "--out", str(tmp_path / "x.png")]) == 2
    assert "robots field" in capsys.readouterr().err
    assert main(["vision", "read", "--image", str(tmp_path / "none.png"), "--calibration", "c.json"]) == 2
    assert "does not exist" in capsys.readouterr().err
    (tmp_path / "cal.json").write_text("{}")
    img = tmp_path / "img.png"
    cv2.imwrite(str(img), np.full((960, 1280, 3), 90, np.uint8))
    assert main(["vision", "read", "--image", str(img), "--calibration", str(tmp_path / "cal.json")]) == 2
    assert "not a valid vision calibration" in capsys.readouterr().err
    assert main(["vision", "calibrate", "--reader", "classic", "--image", str(img), "--out", str(tmp_path / "c.json")]) == 2
    assert "grey" in capsys.readouterr().err
    assert main(["vision", "calibrate", "--reader", "classic", "--image", str(img), "--corners", "1,2 3,4", "--out", str(tmp_path / "c.json")]) == 2
    assert "four" in capsys.readouterr().err
    assert main(["vision", "markers", "--out", str(tmp_path / "m.txt")]) == 2
    assert main(["vision", "read", "--image", str(img), "--calibration", "c.json", "--min-confidence", "5"]) == 2
    assert "between 0 and 1" in capsys.readouterr().err


def test_cli_unreadable_board_exits_1(tmp_path, capsys, calibration):
    cal = calibration.save(tmp_path / "cal.json")
    img = tmp_path / "hand.png"
    cv2.imwrite(str(img), render(START, SETUP_SEED, frame=9, hand=True, **SETUP).image)
    assert main(["vision", "read", "--image", str(img), "--calibration", str(cal)]) == 1
    assert "not readable" in capsys.readouterr().err
    assert main(["vision", "read", "--image", str(img), "--calibration", str(cal), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["readable"] is False and data["reason"] and data["position_fields"] is None


def test_overlay_draws_the_grid_where_a_nudged_camera_now_sees_the_board(tmp_path, capsys, monkeypatch):
    """The reader finds a nudged board again by its markers; the overlay must draw that board,
    not the calibration file's stale position."""
    import vision.overlay as overlay
    from vision.calibration import Calibration

    start, cal = tmp_path / "start.png", tmp_path / "cal.json"
    cv2.imwrite(str(start), render(START, SETUP_SEED, tilt=18.0, rotation=37.0, shadow=0.0, glare=0.0).image)
    assert main(["vision", "calibrate", "--reader", "classic", "--image", str(start), "--out", str(cal)]) == 0
    nudged = tmp_path / "nudged.png"
    frame = render(START, SETUP_SEED, frame=9, tilt=18.0, rotation=37.0, shadow=0.0, glare=0.0).image
    cv2.imwrite(str(nudged), np.roll(frame, (14, -18), axis=(0, 1)))
    drawn = []
    real = overlay.draw_overlay
    monkeypatch.setattr(overlay, "draw_overlay", lambda image, calibration, reading=None: (
        drawn.append(calibration), real(image, calibration, reading))[1])
    assert main(["vision", "overlay", "--image", str(nudged), "--calibration", str(cal), "--out", str(tmp_path / "ov.png")]) == 0
    moved = drawn[0].corners_px - Calibration.load(cal).corners_px
    assert np.allclose(moved.mean(axis=0), (-18, 14), atol=1.5)


def test_the_overlay_title_wraps_a_long_reason_instead_of_cutting_it():
    import cv2
    from vision.overlay import _wrap
    reason = ("NOT READABLE: a reflection on the board that was not there at calibration (strongest at d4): "
              "White robots and the bare board look alike around it; dim or move the lamp, or calibrate again")
    lines = _wrap(reason, 1000, 0.7, 2, 3)
    assert 1 < len(lines) <= 3
    assert " ".join(lines) == reason
    assert all(cv2.getTextSize(s, cv2.FONT_HERSHEY_SIMPLEX, 0.7, 2)[0][0] <= 1000 for s in lines)
    cut = _wrap(reason * 3, 600, 0.7, 2, 3)
    assert len(cut) == 3 and cut[-1].endswith(" ...")
    assert _wrap("readable", 600, 0.7, 2, 3) == ["readable"]
