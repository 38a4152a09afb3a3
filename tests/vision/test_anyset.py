"""The any-set reader (vision.anyset, experimental): geometry, calibration, honesty, files, bad input."""

from __future__ import annotations

import base64
import json
from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.anyset.calibration import Calibration, calibrate
from vision.anyset.patches import PatchCutter, camera_pose
from vision.anyset.reader import BoardReader
from vision.calibration import white_side_of
from vision.errors import BadImage, CalibrationError
from vision.render import _make_camera, render

from vision_kit import ANYSET_DESIGN as DESIGN, ANYSET_SEED as SEED, START, random_layout, wrong_fields

# the fixtures ``start`` and ``cal`` (the start frame of design DESIGN and its calibration): conftest.py


@pytest.mark.parametrize("tilt,azimuth", [(8, 0), (15, 70), (25, 200)])
def test_the_camera_is_recovered_from_the_board_plane(tilt, azimuth):
    cam = _make_camera((1280, 960), tilt, azimuth, 33, 12.0, np.array([3, 3, 0.0]), 1.1 * 1280)
    pose = camera_pose(cam.plane_homography(), (1280, 960))
    assert pose.focal_known
    assert np.allclose(pose.centre, cam.C, atol=0.05)


def test_patches_are_turned_so_that_standing_things_lean_up():
    cam = _make_camera((1280, 960), 20, 40, 10, 12.0, np.array([3, 3, 0.0]), 1.1 * 1280)
    cut = PatchCutter(cam.plane_homography(), (1280, 960))
    up = cut.square_axes[:, 1]
    lean = (np.array([[i % 6 + 0.5, i // 6 + 0.5] for i in range(36)]) - cam.C[:2])
    lean /= np.linalg.norm(lean, axis=1, keepdims=True)
    assert np.allclose(up, lean, atol=1e-6)
    assert np.all(cut.square_lean > 0)


def test_point_patches_can_be_cut_fine_for_the_nets_and_coarse_for_the_looks_as_before_tests(start):
    """For a points net trained on 48-px patches (--fine: a small battery is 8 px across, not 4) a
    point patch is cut at 48 px and, over the same span, at the squares' 24 px as before (the
    reader's "looks as before" limits were measured on those); the two agree (the fine one's 2x2
    average is about the coarse one). The shipped net takes 24 px: one cut serves both."""
    from vision.anyset.fieldnet import normalise
    from vision.anyset.patches import FINE_POINT_PATCH, PATCH, POINT_PATCH

    size = (start.image.shape[1], start.image.shape[0])
    plain = PatchCutter(start.homography, size)              # the shipped net's: both cuts the same
    assert POINT_PATCH == PATCH and np.array_equal(plain.points(start.image), plain.coarse_points(start.image))
    cutter = PatchCutter(start.homography, size, FINE_POINT_PATCH)
    fine, rough = cutter.points(start.image), cutter.coarse_points(start.image)
    assert fine.shape == (49, FINE_POINT_PATCH, FINE_POINT_PATCH, 3) and rough.shape == (49, PATCH, PATCH, 3)
    assert np.array_equal(rough, plain.points(start.image))
    level = np.zeros(3, np.float32)
    k = FINE_POINT_PATCH // PATCH
    averaged = normalise(fine, level)[0].reshape(49, 3, PATCH, k, PATCH, k).mean(axis=(3, 5))
    assert np.abs(averaged - normalise(rough, level)[0]).mean() < 0.05


def test_marker_less_calibration_finds_the_grid_and_learns_the_colours(start, cal):
    assert cal.method == "grid"
    assert np.abs(cal.corners_px - start.corners_px).max() < 4.0
    assert cal.colours.separation >= 2.5


def test_no_confident_misread_on_the_calibration_frame_and_game_frames(start, cal):
    reader = BoardReader(cal, adapt=False)
    reading = reader.read(start.image)
    ws, wp = wrong_fields(reading, START)
    assert set(ws) <= set(reading.low_confidence_squares) and set(wp) <= set(reading.low_confidence_points)


def test_white_side_is_needed_without_markers(start):
    with pytest.raises(CalibrationError, match="--white-side"):
        calibrate(start.image, START)


def test_a_board_turned_about_45_degrees_may_be_named_by_either_edge_its_white_row_faces(start):
    """White's start row 42 degrees from the image's bottom towards its right: a person may call that
    edge "bottom" or "right"; both give the same orientation, and "top" or "left" the half turn (the
    start position looks alike so: the other colour is White)."""
    from vision.calibration import _white_direction

    d = _white_direction(start.homography)
    now = np.degrees(np.arctan2(d[1], d[0]))            # image angle of White's direction (y down)
    turn = cv2.getRotationMatrix2D((640, 480), now - (90 - 42), 1.0)
    image = cv2.warpAffine(start.image, turn, (1280, 960), borderMode=cv2.BORDER_REPLICATE)
    truth = np.vstack([turn, [0, 0, 1]]) @ start.homography
    assert white_side_of(truth) == "bottom"
    found = {side: calibrate(image, START, white_side=side).H for side in ("bottom", "right", "top", "left")}
    corners = np.array([[0, 0], [6, 0], [6, 6], [0, 6]], np.float64).reshape(-1, 1, 2)

    def at(H):
        return cv2.perspectiveTransform(corners, np.asarray(H, np.float64)).reshape(-1, 2)

    for side in ("bottom", "right"):
        assert np.abs(at(found[side]) - at(truth)).max() < 3.0
    for side in ("top", "left"):
        assert np.abs(at(found[side]) - at(truth)[[2, 3, 0, 1]]).max() < 3.0


def test_calibration_tries_the_runner_up_grids_until_one_shows_the_start_layout(start, monkeypatch):
    """The grid that fits the lines best may be a pitch off (pieces along two edges hide the outer
    lines): calibration takes the first grid, best first, under which the frame shows the layout, and
    where none does it gives the best grid's reason."""
    import vision.anyset.calibration as anyset_calibration

    truth = start.homography / start.homography[2, 2]
    off = truth @ np.array([[1.0, 0, 1], [0, 1, 0], [0, 0, 1]])          # one pitch along the rows
    corners = np.array([[0, 0], [6, 0], [6, 6], [0, 6]], np.float64).reshape(-1, 1, 2)

    def at(H):
        return cv2.perspectiveTransform(corners, np.asarray(H, np.float64)).reshape(-1, 2)

    side = white_side_of(start.homography)
    monkeypatch.setattr(anyset_calibration, "_grids", lambda image: [off, truth])
    found = calibrate(start.image, START, white_side=side)
    assert np.abs(at(found.H) - at(truth)).max() < 1.0
    monkeypatch.setattr(anyset_calibration, "_grids", lambda image: [off])
    with pytest.raises(CalibrationError, match="start layout|covers the board"):
        calibrate(start.image, START, white_side=side)


@pytest.mark.parametrize("design", [9_100_047])
def test_a_start_frame_whose_best_fitting_grid_is_a_pitch_off_is_calibrated_right(design):
    frame = render(START, design * 16 + 1, design=design, markers=False, printed=[True] * 49)
    found = calibrate(frame.image, START, white_side=white_side_of(frame.homography))
    corners = np.array([[0, 0], [6, 0], [6, 6], [0, 6]], np.float64).reshape(-1, 1, 2)
    err = np.abs(cv2.perspectiveTransform(corners, np.asarray(found.H, np.float64))
                 - cv2.perspectiveTransform(corners, frame.homography)).max()
    assert err < 3.0


@pytest.mark.parametrize("design, camera", [(20_700_000, 4), (20_200_037, 1)])
def test_where_every_grid_found_at_half_resolution_is_refused_the_full_resolution_grids_are_tried(
        design, camera, monkeypatch):
    """vision/anyset/calibration.py: _grids. A print of finer lines in every square (a 3x3 lattice;
    an X with three lines along each edge) outranks the board's grid at half resolution: every grid
    found there is a pitch off and refused. The grids found at full resolution are tried next, and the
    board's leads there; without them the correct start set-up is refused."""
    import vision.gridfind as gridfind

    frame = render(START, design * 16 + camera, design=design, markers=False, printed=[True] * 49)
    side = white_side_of(frame.homography)
    found = calibrate(frame.image, START, white_side=side)
    corners = np.array([[0, 0], [6, 0], [6, 6], [0, 6]], np.float64).reshape(-1, 1, 2)
    err = np.abs(cv2.perspectiveTransform(corners, np.asarray(found.H, np.float64))
                 - cv2.perspectiveTransform(corners, frame.homography)).max()
    assert err < 3.0
    assert not gridfind.find_grid(frame.image).full_resolution           # found at half resolution, off
    assert gridfind.find_grid(frame.image, finer=True).full_resolution
    half_only = gridfind.find_grid

    def no_finer(image, finer=False):
        if finer:
            raise CalibrationError("not looked for")
        return half_only(image)

    monkeypatch.setattr(gridfind, "find_grid", no_finer)
    with pytest.raises(CalibrationError, match="start layout|covers the board"):
        calibrate(frame.image, START, white_side=side)


def test_learning_an_accepted_board_replaces_the_reference(start, cal):
    reader = BoardReader(cal)
    truth = random_layout(np.random.default_rng(3))
    image = render(truth, SEED, design=DESIGN, markers=False, frame=5).image
    assert reader.learn_bare(image, truth) == 85
    assert not np.array_equal(reader.calibration.reference.squares, cal.reference.squares)
    assert reader.learn_bare(np.zeros((10, 10, 3), np.uint8), START) == 0


def test_bad_frames(cal):
    reader = BoardReader(cal)
    reading = reader.read(np.zeros((960, 1280, 3), np.uint8))
    assert not reading.readable and "black" in reading.reason
    with pytest.raises(BadImage, match="640x480"):
        reader.read(np.zeros((480, 640, 3), np.uint8))


def test_calibration_file_round_trip_and_corruption(tmp_path, cal, monkeypatch):
    path = cal.save(tmp_path / "cal.json")
    assert Calibration.load(path) == cal
    data = json.loads(path.read_text())
    data["reference"]["points_png"] = "bm90IGEgcG5n"
    path.write_text(json.dumps(data))
    with pytest.raises(CalibrationError, match="reference"):
        Calibration.load(path)
    # a file of version 1 (one PNG of 24-px patches, before 27 November 2026) is still read: the point
    # patches are the squares' size; a version this program does not know is refused, named
    data = cal.to_json()
    ref = data["reference"]
    ref["patches_png"] = base64.b64encode(cv2.imencode(".png", np.concatenate(
        [cal.reference.squares.reshape(-1, 24, 3), cal.reference.points.reshape(-1, 24, 3)]))[1].tobytes()).decode()
    for key in ("squares_png", "points_png", "coarse_points_png", "point_patch"):
        del ref[key]
    data["version"] = 1
    path.write_text(json.dumps(data))
    assert Calibration.load(path) == cal
    data["version"] = 3
    path.write_text(json.dumps(data))
    with pytest.raises(CalibrationError, match="version 3, this program reads versions 1, 2; calibrate again"):
        Calibration.load(path)
    # a program whose points net takes finer patches cannot use a version 1 file's
    from vision.anyset import reference as reference_module
    data["version"] = 1
    path.write_text(json.dumps(data))
    monkeypatch.setattr(reference_module, "POINT_PATCH", 48)
    with pytest.raises(CalibrationError, match="earlier version of the program.*calibrate again"):
        Calibration.load(path)
    monkeypatch.undo()
    # a file from before the robots' height was measured: none (the reader assumes the tallest); a
    # height that is no number of squares is refused, named
    data = cal.to_json()
    del data["robot_height"]
    path.write_text(json.dumps(data))
    assert Calibration.load(path).robot_height is None
    for bad in ("tall", True, -0.1, 1e9, [0.2]):
        path.write_text(json.dumps({**data, "robot_height": bad}))
        with pytest.raises(CalibrationError, match="robot_height"):
            Calibration.load(path)
    path.write_text("{not json")
    with pytest.raises(CalibrationError, match="corrupt"):
        Calibration.load(path)


def test_robot_colours_survive_a_shadow_but_brightness_still_tells_ivory_from_black():
    from vision.anyset.colours import ColourModel, descriptors

    def patches(colours):
        # (n, 3, P, P) log colour: a robot of the given colour over the whole patch
        return np.stack([np.broadcast_to(np.asarray(c, np.float32)[:, None, None], (3, 24, 24)) for c in colours]).copy()

    rng = np.random.default_rng(3)
    teal, blue = np.array([-0.6, 0.3, 0.2]), np.array([-0.5, -0.1, 0.6])     # two hues of one lightness
    start = [teal + rng.normal(0, 0.03, 3) for _ in range(6)] + [blue + rng.normal(0, 0.03, 3) for _ in range(6)]
    lean = np.full(12, 0.3)
    model = ColourModel.fit(patches(start), lean, list(range(6)), list(range(6, 12)))
    shade = -0.5                                   # the same robots in a shadow that takes 40% of the light
    later = patches([teal + shade, blue + shade, teal, blue])
    llr = model.llr(descriptors(later, np.full(4, 0.3), model.height, model.radius))
    assert llr[0] > 3 and llr[2] > 3 and llr[1] < -3 and llr[3] < -3

    ivory, black = np.array([0.9, 0.9, 0.85]), np.array([-1.2, -1.2, -1.15])  # one hue, far apart in brightness
    start = [ivory + rng.normal(0, 0.03, 3) for _ in range(6)] + [black + rng.normal(0, 0.03, 3) for _ in range(6)]
    model = ColourModel.fit(patches(start), lean, list(range(6)), list(range(6, 12)))
    assert model.separation > 5
    llr = model.llr(descriptors(patches([ivory + shade, black - shade]), np.full(2, 0.3), model.height, model.radius))
    assert llr[0] > 3 and llr[1] < -3


def _start_robots_read(design: int, camera: int) -> tuple[float, bool]:
    """Calibrate the start frame of ``design`` under ``camera`` (the benchmark's camera seeds): the
    robot colours' separation, and whether the start frame read back holds every robot of its colour."""
    frame = render(START, design * 16 + camera, design=design, markers=False, printed=[True] * 49)
    cal = calibrate(frame.image, START, white_side=white_side_of(frame.homography))
    r = BoardReader(cal, adapt=False).read(frame.image)
    told = r.square_probs.argmax(axis=1)
    want = [("empty", "white", "black").index(v.value) for v in START.squares]
    return cal.colours.separation, bool(np.array_equal(told[[*range(6), *range(30, 36)]],
                                                       np.array(want)[[*range(6), *range(30, 36)]]))


def test_robot_colours_on_a_checkered_board_are_told_against_squares_of_their_own_look(monkeypatch):
    """Design 17,400,032 (lilac and pale pink stones on a checkered board): a robot's colour is taken
    where its patch differs most from the empty board, and a checkered board's nearest empty square
    has the other look. Against the nearest empty square of the robot's own look the two colours lie
    far enough apart; against the other look they could not be told (calibration refused)."""
    from vision.anyset import fields
    from vision.anyset.colours import MIN_SEPARATION

    separation, right = _start_robots_read(17_400_032, 1)
    assert separation >= MIN_SEPARATION and right
    monkeypatch.setattr(fields, "_same_look_backgrounds", lambda reference, told, background: background)
    with pytest.raises(CalibrationError, match="cannot be told apart"):
        _start_robots_read(17_400_032, 1)


def test_whether_the_board_alternates_is_decided_once_per_calibration_and_kept(cal):
    """The robot colours are learned against the empty board as the calibration decided it (a
    checkered board's squares of the robot's own look, or the nearest); a later board the referee
    accepts must not decide it again (design 17,600,000, a faintly checkered board, flipped to
    "alternates" mid-game and a Black robot was read where a White one stood), and a calibration
    file keeps the decision (an older file decides it again from its reference)."""
    from vision.anyset.fields import reference_alternates
    from vision.anyset.reference import Reference

    ref = cal.reference
    decided = reference_alternates(ref)
    flipped = replace(ref, alternates=not decided)
    later = flipped.updated(ref.squares, ref.points, ref.coarse_points, np.zeros(3, np.float32), START,
                            np.ones(36, bool), np.ones(49, bool))
    assert later.alternates is (not decided) and reference_alternates(later) is (not decided)
    data = flipped.to_json()
    assert Reference.from_json(data).alternates is (not decided)
    older = {k: v for k, v in data.items() if k != "alternates"}
    assert Reference.from_json(older).alternates is None
    assert reference_alternates(Reference.from_json(older)) is decided
    with pytest.raises(ValueError, match="alternates"):
        Reference.from_json({**data, "alternates": "yes"})


def test_wide_glossy_stones_are_told_by_their_shaded_rim():
    """Design 17,400,020 under its fourth camera: peach and pale green stones 0.8 of a square across
    under a bright lamp fill all three channels over most of any disc on them; the twentieth value of
    a disc at the robot's foot (its shaded rim, colours.QUANTILES) tells them apart."""
    from vision.anyset.colours import MIN_SEPARATION

    separation, right = _start_robots_read(17_400_020, 3)
    assert separation >= MIN_SEPARATION and right


def test_two_colours_that_differ_only_on_the_shaded_side_are_told_by_a_darker_value():
    """A bright piece under a strong light fills the camera's channels on its lit side: two colours
    that differ only in those channels look alike there (the median of the disc), and differ on
    the shaded side. The calibration then takes a darker value of the disc (colours.QUANTILES).
    A calibration file from before keeps the median."""
    from vision.anyset.colours import MIN_SEPARATION, ColourModel

    rng = np.random.default_rng(8)
    lit = np.array([1.1, 0.96, 0.5])                     # the same on both colours' lit sides
    shaded = {"turquoise": np.array([0.2, 0.5, -0.6]), "sky": np.array([0.5, 0.3, -0.6])}

    def robot(name: str) -> np.ndarray:
        x = np.broadcast_to(lit[:, None, None], (3, 24, 24)).copy()
        x[:, :, ::3] = shaded[name][:, None, None]         # a third of it in its own shade, all over
        return x + rng.normal(0, 0.02, (3, 24, 24))

    start = np.stack([robot("turquoise") for _ in range(6)] + [robot("sky") for _ in range(6)]).astype(np.float32)
    lean = np.full(12, 0.3)
    model = ColourModel.fit(start, lean, list(range(6)), list(range(6, 12)))
    assert model.quantile < 0.5 and model.separation >= MIN_SEPARATION
    later = np.stack([robot("sky"), robot("turquoise")]).astype(np.float32)
    llr = model.llr(model.describe(later, np.full(2, 0.3)))
    assert llr[0] < -3 and llr[1] > 3
    assert ColourModel.from_json(model.to_json()) == model
    older = {k: v for k, v in model.to_json().items() if k != "quantile"}   # a file from before: the median
    assert ColourModel.from_json(older).quantile == 0.5
    for bad in (1.5, -0.1, "0.2", True, None):
        with pytest.raises(ValueError):
            ColourModel.from_json({**model.to_json(), "quantile": bad})


def test_a_row_of_robots_under_the_lamps_fall_off_does_not_blur_two_close_colours():
    """Two pale colours of one lightness that differ in one channel (ice blue and pale pink cones),
    each player's six robots in a row from near the lamp to far from it: brighter and darker, each
    channel alike. The brightness is the colour model's shared shade term; the spread of each
    channel is what is left once each robot's brightness is taken out, so a later robot of either
    colour is told surely (it was not: the brightness counted twice, log-odds about 3.5)."""
    from vision.anyset.colours import ColourModel

    rng = np.random.default_rng(21)
    hue = {"ice": np.array([0.05, -0.11, -0.25]), "pink": np.array([0.03, -0.34, -0.23])}

    def robot(name: str, light: float) -> np.ndarray:
        x = np.broadcast_to((hue[name] + light)[:, None, None], (3, 24, 24))
        return x + rng.normal(0, 0.01, (3, 24, 24))

    fall_off = np.linspace(0.12, -0.12, 6)              # near the lamp to far from it
    start = np.stack([robot("ice", v) for v in fall_off] + [robot("pink", v) for v in fall_off]).astype(np.float32)
    lean = np.full(12, 0.3)
    model = ColourModel.fit(start, lean, list(range(6)), list(range(6, 12)))
    assert max(model.spread) < 0.07                     # the channels' own spread: the floor, not the fall-off
    later = np.stack([robot("ice", 0.05), robot("pink", -0.05), robot("ice", -0.1), robot("pink", 0.1)]).astype(np.float32)
    llr = model.llr(model.describe(later, np.full(4, 0.3)))
    assert (llr[[0, 2]] > 3.9).all() and (llr[[1, 3]] < -3.9).all(), llr


def test_examples_are_the_nearest_other_fields_known_empty_and_occupied():
    from vision.anyset.fieldnet import REF_EMPTY, REF_OCCUPIED, REF_UNKNOWN, example_fields, field_distances
    from vision.geometry import point_coords

    dist = field_distances(point_coords())
    state = np.full(49, REF_EMPTY)
    state[[7, 9, 40]] = REF_OCCUPIED
    state[1] = REF_UNKNOWN
    idx = example_fields(np.broadcast_to(state, (49, 49)), np.arange(49), dist)
    assert idx[0].tolist() == [8, 7]          # A1: B1 is unknown, B2 the nearest known empty; A2 holds one
    assert idx[7].tolist() == [0, 9]          # A2 is never its own example
    assert idx[48, 1] == 40
    none = example_fields(np.full((1, 49), REF_EMPTY), np.array([24]), dist)
    assert none[0, 1] == -1 and none[0, 0] in (17, 23, 25, 31)
    second = example_fields(np.broadcast_to(state, (1, 49)), np.array([0]), dist, rank=1)
    assert second[0, 1] == 9                   # the second nearest occupied


def test_calibration_names_a_start_battery_that_is_missing():
    from vision.layout import BoardLayout

    short = BoardLayout.from_sets(white=range(6), black=range(30, 36),
                                  batteries=[p for p in list(range(7, 14)) + list(range(35, 42)) if p != 9])
    # the development design as it looked when this test was written (flat batteries, fields without an
    # outline): the nets name a missing battery of most sets, not of all (docs/readme-vision.md)
    from dataclasses import replace

    from vision.designs import sample_design

    look = replace(sample_design(DESIGN), battery_shape="cylinder", field_outline=None)
    frame = render(short, SEED + 1, design=look, markers=False, printed=[True] * 49)
    with pytest.raises(CalibrationError, match=r"at C2 \(no battery seen at C2\): set the pieces up as expected, "
                                               "each battery on the middle of its point"):
        calibrate(frame.image, START, white_side=white_side_of(frame.homography))


def test_a_start_battery_the_nets_miss_far_off_its_point_is_named_and_the_advice_given_works():
    """Design 19,300,029 under its third camera (a fresh block's one refused set-up, 6 December): tiny
    batteries of the fields' colour, B2's set down at the edge of its printed disc, which both looks
    miss (the nets' blind spot). The refusal says what the camera sees and what to do; with the
    batteries on the middle of their points (the renderer's ``offset=0``) the same set-up is accepted."""
    from benchmarks.vision_anyset import camera_seed

    seed = camera_seed(19_300_029, 2)
    frame = render(START, seed, design=19_300_029, markers=False, printed=[True] * 49)
    with pytest.raises(CalibrationError, match=r"at B2 \(no battery seen at B2\): .*each battery on the middle of "
                                               "its point"):
        calibrate(frame.image, START, white_side=white_side_of(frame.homography))
    centred = render(START, seed, design=19_300_029, markers=False, printed=[True] * 49, offset=0.0)
    calibrate(centred.image, START, white_side=white_side_of(centred.homography))


def test_the_wrong_start_benchmark_changes_one_piece_and_finds_a_missing_robot_refused_by_name():
    """benchmarks/vision_anyset.py --only wrongstart: each kind of wrong start differs from the start
    in the one field it names (a robot or a battery left off, a robot set down on an empty middle
    square), chosen by the set-up's seed; calibrating a start with a robot left off, told it is the
    start, is refused and the message names the square."""
    from benchmarks.vision_anyset import WRONG_STARTS, wrong_start, wrong_start_setup

    for kind in WRONG_STARTS:
        layout, i, field = wrong_start(5_000_200, 0, kind)
        assert layout != START and (layout, i, field) == wrong_start(5_000_200, 0, kind)
        diff_s = [j for j in range(36) if layout.squares[j] != START.squares[j]]
        diff_p = [j for j in range(49) if layout.points[j] != START.points[j]]
        assert (diff_s, diff_p) == (([i], []) if field == "square" else ([], [i]))
        if kind == "robot extra":
            assert 6 <= i < 30 and START.squares[i].value == "empty"
        if kind == "battery extra":
            assert START.points[i].value == "empty" and layout.points[i].value == "battery"
    result = wrong_start_setup((5_000_200, 0, "robot missing"))
    assert result["refused"] and result["named"] and "no robot seen on" in result["why"]


@pytest.mark.parametrize("design, camera, kind, name", [
    (19_700_005, 1, "robot missing", "a1"),        # a corner square in a shadow band: the first look 0.98 empty
    (19_400_010, 0, "battery missing", "E2"),      # both looks lean against the battery, neither past e^-5
    (19_700_003, 0, "robot too many", "f2"),       # named on the board's grid; see below
    (19_400_003, 2, "battery too many", "E5"),     # the first look 3.1 for a battery, the fine look and the head sure
])
def test_a_start_piece_wrong_is_named_by_the_looks_together_with_the_set_s_own_other_fields(monkeypatch, design, camera,
                                                                                            kind, name):
    """vision/anyset/calibration.py: CAL_LEFT_OUT. A start set-up with one piece wrong (the wrong-start
    benchmark's set-up) that the first look alone, at CONTRADICTS, leaves short of naming: the set's own
    board, the frame's other fields as the start calls them with the field's own label left out
    (sethead.left_out), says a piece left off looks like this set's empty fields and a battery too many
    like its batteries; a robot too many the first look names at CONTRADICTS_SQUARE. Calibration refuses
    and names the field; without these rules it was accepted (a wrong reference). The robot too many is
    named on the board's own grid even so; there calibration went on to the runner-up grids, and one a
    pitch off showed the start to the first look alone and was accepted, a wrong calibration: the set's
    own other squares refuse it too. The correct start of the same set-up is accepted."""
    from benchmarks.vision_anyset import _corner_error, camera_seed, wrong_start
    from vision.anyset import calibration as calibration_module
    from vision.geometry import point_name, square_name

    layout, i, field = wrong_start(design, camera, kind.replace("too many", "extra"))
    assert (square_name(i) if field == "square" else point_name(i)) == name
    seed = camera_seed(design, camera)
    shot = render(layout, seed, design=design, markers=False, printed=[True] * 49)
    side = white_side_of(shot.homography)
    seen = {"robot missing": "no robot seen on", "battery missing": "no battery seen at",
            "robot too many": "a robot seen on", "battery too many": "a battery seen at"}[kind]
    monkeypatch.setattr(calibration_module, "CAL_LEFT_OUT", True)      # off by default (7 December)
    with pytest.raises(CalibrationError, match=rf"start layout at {name} \({seen} {name}\)"):
        calibrate(shot.image, START, white_side=side)
    monkeypatch.setattr(calibration_module, "CAL_LEFT_OUT", False)
    wrong = calibrate(shot.image, START, white_side=side)
    pitch = np.linalg.norm(shot.corners_px[0] - shot.corners_px[1]) / 6
    assert (_corner_error(wrong.H, shot.homography) > 0.5 * pitch) == (kind == "robot too many")
    monkeypatch.setattr(calibration_module, "CAL_LEFT_OUT", True)
    right = render(START, seed, design=design, markers=False, printed=[True] * 49)
    calibrate(right.image, START, white_side=white_side_of(right.homography))


def test_the_looks_together_are_off_by_default():
    """vision/anyset/calibration.py: CAL_LEFT_OUT is off unless NETZWERK_CAL_LEFT_OUT=1: on fresh blocks its
    rules refused correct start set-ups the other rules accept (the issue's bar is 99% of correct set-ups)."""
    import os

    from vision.anyset import calibration as calibration_module

    if "NETZWERK_CAL_LEFT_OUT" not in os.environ:
        assert calibration_module.CAL_LEFT_OUT is False


def test_a_covered_share_is_not_taken_for_a_piece_or_its_absence_by_the_calibration_s_looks_together(monkeypatch):
    """CAL_LEFT_OUT's rules weigh each look's log-odds of a piece against empty: a field the first look
    sees mostly covered (a lamp's reflection on a glossy board, which calibration tolerates on a field or
    two: COVERED_SPOT) is not named for it, with the fine look and the left-out head neutral; a piece
    clearly seen where the layout has none, or clearly missing, is."""
    from types import SimpleNamespace

    from vision.anyset import calibration as calibration_module

    monkeypatch.setattr(calibration_module, "left_out", lambda reference, lean, kind, rows: np.zeros(len(rows)))
    monkeypatch.setattr(calibration_module, "fine_look", lambda cutter, image, fl, states, todo, temperature:
                        np.zeros((len(todo), 2)))
    cutter = SimpleNamespace(square_lean=np.zeros(36), point_lean=np.zeros(49))
    squares = np.tile([0.998, 0.001, 0.001], (36, 1))
    squares[list(START.white) + list(START.black)] = [0.001, 0.998, 0.001]
    points = np.tile([0.999, 0.0005, 0.0005], (49, 1))
    points[list(START.batteries)] = [0.0005, 0.999, 0.0005]
    squares[14] = [0.01, 0.01, 0.98]           # c3 (empty at the start) under a reflection
    squares[0] = [0.01, 0.01, 0.98]            # a1 (a robot) under a reflection
    points[24] = [0.01, 0.01, 0.98]            # D4 (empty)
    points[8] = [0.01, 0.01, 0.98]             # B2 (a battery)
    fl = SimpleNamespace(squares=squares, points=points)
    assert calibration_module._squares_contradicted(fl, START, cutter, object()) == []
    assert calibration_module._points_contradicted(fl, START, cutter, np.zeros((4, 4, 3), np.uint8), object()) == []
    squares[15] = [1e-9, 0.999, 0.001]          # d3: a robot plainly there
    squares[1] = [0.999, 1e-9, 0.001]           # b1: plainly no robot
    points[25] = [1e-9, 0.999, 0.001]           # E4: a battery plainly there
    points[9] = [0.999, 1e-9, 0.001]            # C2: plainly none
    assert calibration_module._squares_contradicted(fl, START, cutter, object()) == [1, 15]
    assert calibration_module._points_contradicted(fl, START, cutter, np.zeros((4, 4, 3), np.uint8), object()) == [9, 25]


def test_the_left_out_head_answers_for_each_field_without_its_own_label():
    """sethead.left_out: each field's log-odds by a head fitted on the board's other fields; a field whose
    label is wrong (a battery point that looks like the empty ones) is not fitted to its label, so the
    head calls it empty; too few of a state left once the field is out: NaN."""
    from vision.anyset import sethead

    rng = np.random.default_rng(3)
    h = np.concatenate([rng.normal(1.0, 0.3, (14, 4)), rng.normal(-1.0, 0.3, (35, 4))])
    z = np.zeros(49)
    occupied = np.r_[np.ones(14, bool), np.zeros(35, bool)]
    h[0] = h[20]                                # told a battery, looks as the empty points
    state = np.where(occupied, 2, 1)

    class Board:
        point_state = state

    monkey = pytest.MonkeyPatch()
    monkey.setattr(sethead, "_known_board", lambda reference, kind: (None, None, reference.point_state, None))
    monkey.setattr(sethead, "board_samples", lambda reference, lean, kind: (h, z, occupied))
    monkey.setattr(sethead, "REF_UNKNOWN", 0)
    try:
        out = sethead.left_out(Board, None, "points", np.array([0, 1, 20]))
        assert out[0] < -1 and out[1] > 1 and out[2] < -1
        d = sethead.fit_shift(h, z, occupied)                    # its own label in: pulled towards "battery"
        assert out[0] < h[0] @ d[:-1] + d[-1]
        few = np.r_[np.ones(4, bool), np.zeros(45, bool)]
        monkey.setattr(sethead, "board_samples", lambda reference, lean, kind: (h, z, few))
        out = sethead.left_out(Board, None, "points", np.array([0, 10]))
        assert np.isnan(out[0]) and np.isfinite(out[1])
    finally:
        monkey.undo()


def test_the_refusal_says_what_the_camera_sees_at_each_field_named():
    from vision.anyset.calibration import _seen_instead

    assert _seen_instead(START, [0, 14], [8, 24]) == (
        "no robot seen on a1; a robot seen on c3; no battery seen at B2; a battery seen at D4")
    assert _seen_instead(START, [], list(range(7, 14))) == "no battery seen at A2, B2, C2, D2, E2, F2 ..."


def test_an_empty_start_point_a_tall_robot_leans_over_does_not_refuse_calibration_a_battery_beside_a_robot_is_named(
        monkeypatch):
    """vision/anyset/calibration.py: CAL_HIDDEN: design 17,300,044 camera 0 with the tallest robots under
    the most tilted camera (the hidden study's set-up): Black's robot on f6 leans over the empty corner
    point G7, its body over the point's middle, so the nets see something there and the correct set-up was
    refused ("does not hold the start layout at G7"). The robot's colour covers the point's middle in a
    region running on to the patch's edge: the frame cannot show G7, which is no evidence against the
    set-up, and it is accepted on the right grid. A battery of the White robots' colour set on F7 beside a
    robot (design 5,000,236 camera 1, a normal set) is still named."""
    from dataclasses import replace as _replace

    from benchmarks.vision_anyset import TALL, TALL_TILT, _corner_error, camera_seed
    from vision.anyset import calibration as calibration_module
    from vision.designs import sample_design
    from vision.layout import BoardLayout, PointState

    seed = camera_seed(17_300_044, 0)
    look = _replace(sample_design(17_300_044), **TALL)
    start = render(START, seed, design=look, markers=False, printed=[True] * 49, tilt=TALL_TILT)
    side = white_side_of(start.homography)
    monkeypatch.setattr(calibration_module, "CAL_HIDDEN", False)
    with pytest.raises(CalibrationError, match="does not hold the start layout at G7"):
        calibrate(start.image, START, white_side=side)
    monkeypatch.setattr(calibration_module, "CAL_HIDDEN", True)
    calibration = calibrate(start.image, START, white_side=side)
    assert _corner_error(calibration.H, start.homography) < 3.0

    points = list(START.points)
    points[47] = PointState.BATTERY                                      # F7
    extra = BoardLayout(tuple(START.squares), tuple(points))
    seed = camera_seed(5_000_236, 1)
    shot = render(extra, seed, design=5_000_236, markers=False, printed=[True] * 49)
    with pytest.raises(CalibrationError, match=r"F7 \(a battery seen at F7\): set the pieces up as expected, with"):
        calibrate(shot.image, START, white_side=white_side_of(shot.homography))


def test_a_start_battery_the_first_look_misses_but_the_fine_look_sees_does_not_refuse_calibration():
    """Design 17,200,019 under its third camera: the battery of A2 lies at the edge of the point's
    printed disc, and the first look puts it below e^-5 odds; the fine look (48 px, this frame's
    points as examples) sees it. A point is named only where both looks contradict the layout, so the
    correct start set-up is accepted, and a battery missing there is still named."""
    from vision.anyset.calibration import _points_contradicted
    from vision.anyset.fields import look_as
    from vision.layout import BoardLayout

    design = 17_200_019
    frame = render(START, design * 16 + 2, design=design, markers=False, printed=[True] * 49)
    size = (frame.image.shape[1], frame.image.shape[0])
    cutter = PatchCutter(frame.homography, size)
    fl, _ = look_as(cutter, frame.image, START, temperature=1.0)
    assert 7 in _points_contradicted(fl, START, None, None)            # the first look alone: A2 is empty
    assert 7 not in _points_contradicted(fl, START, cutter, frame.image)
    cal = calibrate(frame.image, START, white_side=white_side_of(frame.homography))
    assert cal.method == "grid"
    short = BoardLayout.from_sets(white=range(6), black=range(30, 36),
                                  batteries=[p for p in list(range(7, 14)) + list(range(35, 42)) if p != 10])
    frame = render(short, design * 16 + 2, design=design, markers=False, printed=[True] * 49)
    with pytest.raises(CalibrationError, match="D2"):
        calibrate(frame.image, START, white_side=white_side_of(frame.homography))


def test_game_frames_are_read_or_doubtful_never_wrong(cal):
    reader = BoardReader(cal, adapt=False)
    rng = np.random.default_rng(11)
    claimed = 0
    for f in range(6):
        truth = random_layout(rng)
        reading = reader.read(render(truth, SEED, design=DESIGN, markers=False, frame=f + 1).image)
        ws, wp = wrong_fields(reading, truth)
        assert set(ws) <= set(reading.low_confidence_squares) and set(wp) <= set(reading.low_confidence_points)
        claimed += reading.readable
    assert claimed >= 1


def test_a_robot_set_down_off_centre_is_found_by_what_differs_from_the_empty_board():
    from vision.anyset.colours import _disc_mask, descriptors
    from vision.anyset.patches import PATCH

    board = np.array([0.3, 0.2, 0.1], np.float32)
    robot = np.array([-1.0, -0.2, 0.5], np.float32)
    empty = np.broadcast_to(board[:, None, None], (3, PATCH, PATCH)).copy()
    now = empty.copy()
    now[:, _disc_mask(0.2, 0.14, 0.2)] = robot[:, None]        # a robot a fifth of a square up and right of centre
    x, bg = now[None], empty[None]
    centred = descriptors(x, np.zeros(1), 0.0, 0.12)[0]
    found = descriptors(x, np.zeros(1), 0.0, 0.12, background=bg)[0]
    assert np.allclose(centred, board) and np.allclose(found, robot)


def test_the_colour_disc_is_chosen_so_that_every_start_robot_is_told_right():
    """Pale robots close to the board's colour, tall dark ones, two of them set down low on their
    squares. A disc high above the centre sees the board on every pale robot (one steady colour)
    and on the two low dark ones, and dark on the other four: its medians lie far apart, but it
    tells two robots wrong. The fit must prefer a disc that tells all twelve."""
    from vision.anyset.colours import ColourModel, _disc_mask
    from vision.anyset.patches import PATCH

    rng = np.random.default_rng(5)
    board = np.array([0.1, 0.08, 0.0], np.float32)
    pale, dark = np.array([0.16, 0.0, -0.12], np.float32), np.array([-0.2, -0.65, -0.85], np.float32)
    x = np.empty((12, 3, PATCH, PATCH), np.float32)
    for i in range(12):
        x[i] = board[:, None, None]
        if i < 6:                                   # flat pale discs, each a little different
            where, colour = _disc_mask(0.0, 0.3), pale + rng.normal(0, 0.04, 3).astype(np.float32)
        elif i in (9, 10):                          # tall dark robots standing low on their squares
            where, colour = _disc_mask(-0.3, 0.3) | _disc_mask(0.0, 0.3), dark
        else:                                       # tall dark robots: their tops lean up in the patch
            where, colour = _disc_mask(0.0, 0.3) | _disc_mask(0.35, 0.3), dark
        x[i][:, where] = colour[:, None]
    lean = np.full(12, 1.0)
    model = ColourModel.fit(x, lean, list(range(6)), list(range(6, 12)))
    llr = model.llr(model.describe(x, lean))
    assert (llr[:6] > 3).all() and (llr[6:] < -3).all()



def test_the_plain_colour_model_takes_a_small_disc_at_the_centre_and_ignores_the_surroundings():
    """vision/anyset/colours.py: plain_model (the reader's LIKE_CORE). Pale robots with a dark battery
    beside each on one side of the patch, dark robots on bare board: the plain model's colours are the
    robots' own (the median of a small centred disc), so a pale robot with the battery on the other
    side, or with none, still reads pale."""
    from vision.anyset.colours import _disc_mask, descriptors, plain_model
    from vision.anyset.patches import PATCH

    board = np.array([0.3, 0.25, 0.2], np.float32)
    pale, dark = np.array([0.5, 0.45, 0.3], np.float32), np.array([-0.8, -0.5, -0.9], np.float32)
    x = np.empty((12, 3, PATCH, PATCH), np.float32)
    for i in range(12):
        x[i] = board[:, None, None]
        x[i][:, _disc_mask(0.0, 0.3)] = (pale if i < 6 else dark)[:, None]
        if i < 6:                                   # a dark battery at the pale robots' upper right
            x[i][:, _disc_mask(0.45, 0.12, 0.45)] = dark[:, None]
    lean = np.zeros(12)
    model = plain_model(x, lean, list(range(6)), list(range(6, 12)), 0.12)
    assert np.allclose(model.white, pale, atol=1e-5) and np.allclose(model.black, dark, atol=1e-5)
    later = x[:2].copy()
    later[0] = board[:, None, None]
    later[0][:, _disc_mask(0.0, 0.3)] = pale[:, None]
    later[0][:, _disc_mask(-0.4, 0.15, -0.35)] = dark[:, None]     # the battery at the lower left now
    later[1] = board[:, None, None]
    later[1][:, _disc_mask(0.0, 0.3)] = pale[:, None]                # no battery
    assert (model.llr(descriptors(later, np.zeros(2), 0.0, 0.12)) > 5).all()


def test_a_fine_patch_goes_into_the_net_split_into_its_pixel_phases():
    """The points net takes its 48-px patches as 2x2 pixel phases on the nets' 24-px grid (torch's
    pixel_unshuffle: channel c * 4 + i * 2 + j holds the pixels at rows i, i + 2, ... and columns
    j, j + 2, ...); a 24-px patch goes in as it is."""
    from vision.anyset.fieldnet import split_phases

    x = np.arange(2 * 3 * 48 * 48, dtype=np.float32).reshape(2, 3, 48, 48)
    y = split_phases(x)
    assert y.shape == (2, 12, 24, 24)
    for c in range(3):
        for i in range(2):
            for j in range(2):
                assert np.array_equal(y[:, c * 4 + i * 2 + j], x[:, c, i::2, j::2])
    small = x[:, :, :24, :24]
    assert np.array_equal(split_phases(small), small)


def test_the_shipped_split_nets_equal_the_whole_nets():
    """The reader computes the reference's share of the nets' first layer once per reference
    (``*.known.onnx``) and runs the rest per frame (``*.fast.onnx``): the same log-odds as the
    whole net (``*.onnx``) on the whole input."""
    from vision.anyset.fieldnet import N_CHANNELS, N_SCALARS, FieldNet
    from vision.anyset.patches import PATCH, POINT_PATCH

    net = FieldNet()
    rng = np.random.default_rng(11)
    s = rng.random((9, N_SCALARS)).astype(np.float32)
    for kind, size in (("squares", PATCH), ("points", POINT_PATCH)):
        x = rng.normal(0, 0.5, (9, N_CHANNELS, size, size)).astype(np.float32)
        whole = net._run(kind, x, s)
        split = net.with_known(kind, x[:, :3], net.known_part(kind, x[:, 3:]), s)
        assert whole.shape == split.shape and np.abs(whole - split).max() < 1e-4


def test_calibration_refuses_a_hand_over_the_start_position():
    """A hand over the board is something a person can fix: named, not learned as the set's look
    (a lamp's reflection covering a field or two is tolerated: it stays where it is all game)."""
    shot = render(START, SEED, design=DESIGN, markers=False, printed=[True] * 49, hand=True)
    with pytest.raises(CalibrationError, match="covers the board at"):
        calibrate(shot.image, START, white_side=white_side_of(shot.homography))


def test_only_the_unsure_fields_are_looked_at_again_mirrored_and_beside_other_examples():
    """A field the nets are sure of is looked at once; an unsure one again as its mirror image and
    beside the second nearest examples (plain and mirrored), the looks' log-odds averaged
    (vision/anyset/fields.py: _looked_again)."""
    from vision.anyset import fields

    if not fields.MIRROR:
        pytest.skip("mirroring switched off (NETZWERK_FIELD_MIRROR=0)")
    rng = np.random.default_rng(5)
    x = rng.normal(0, 1, (6, 3, 4, 4)).astype(np.float32)
    sure = np.array([8.0, -4.0, -4.0])
    unsure = np.array([0.5, 0.0, -3.0])
    first = np.stack([sure, unsure, sure, unsure, unsure, sure])
    again = {(0, True): [-2.0, 1.0, -3.0], (1, False): [1.0, 1.0, 0.0], (1, True): [0.0, 2.0, -1.0]}
    calls = []

    def view(way):
        def run(patches, rows, mirrored):
            calls.append((way, None if rows is None else rows.tolist(), mirrored))
            if rows is None:
                assert way == 0 and not mirrored and np.array_equal(patches, x)
                return first.copy()
            assert np.array_equal(patches, x[rows][..., ::-1] if mirrored else x[rows])
            return np.tile(again[way, mirrored], (len(rows), 1))
        return run

    z = fields._looked_again([view(0), view(1)], x)
    assert calls == [(0, None, False), (0, [1, 3, 4], True), (1, [1, 3, 4], False), (1, [1, 3, 4], True)]
    assert np.array_equal(z[[0, 2, 5]], first[[0, 2, 5]])
    assert np.allclose(z[[1, 3, 4]], (unsure + sum(np.array(v) for v in again.values())) / 4)
    calls.clear()
    z = fields._looked_again([view(0)], x)           # one way only: the mirror image alone
    assert calls == [(0, None, False), (0, [1, 3, 4], True)]
    assert np.allclose(z[[1, 3, 4]], (unsure + np.array(again[0, True])) / 2)


def test_the_second_examples_are_the_second_nearest_fields_of_each_kind(cal):
    """The second way of showing a field its known board gives it the second nearest field known
    empty and the second nearest known occupied (as training does half the time)."""
    from vision.anyset import fields

    if fields.RANKS != (0, 1):
        pytest.skip("second examples switched off (NETZWERK_FIELD_SECOND=0)")
    known_s, known_p = fields._parts_of(cal.reference, True)
    states = np.asarray(cal.reference.point_state)
    for p in range(49):
        for col, want in enumerate((0, 1)):
            others = [q for q in range(49) if q != p and states[q] == want]
            order = sorted(others, key=lambda q: (fields._POINT_DIST[p, q], q))
            assert known_p[0].examples[p, col] == order[0]
            assert known_p[1].examples[p, col] == order[1]
    assert not np.array_equal(known_s[0].c1, known_s[1].c1)


def _read_with(reader: BoardReader, fl):
    """The reading of the field look ``fl`` as the first stage gives it (each look in turn, each check
    making a field doubtful: what NETZWERK_VERDICT=0 reads): the checks' own behaviour, which the
    verdict then weighs as evidence (tests/vision/test_verdict.py tests the verdict's readings)."""
    import vision.anyset.reader as module

    saved = module.VERDICT
    module.VERDICT = False
    try:
        return reader._reading(fl, 1.0)
    finally:
        module.VERDICT = saved


def test_a_hand_covers_touching_fields_a_covered_field_apart_is_doubtful(start, cal):
    """Only touching covered fields (vision/anyset/reader.py: HAND_GROUP) make a hand over the board;
    a covered field or two apart from the others is a look the nets do not know: doubtful fields,
    named, for the referee to settle, not a hand the players are asked to take away."""
    from dataclasses import replace

    from vision.anyset.fields import look
    from vision.geometry import point_name, square_name

    reader = BoardReader(cal, adapt=False)
    fl = look(reader._cutter, start.image, cal.reference)

    def covering(squares=(), points=()):
        s, p = fl.squares.copy(), fl.points.copy()
        s[list(squares)] = (0.02, 0.02, 0.96)
        p[list(points)] = (0.02, 0.02, 0.96)
        return _read_with(reader, replace(fl, squares=s, points=p))

    apart = covering(squares=[17], points=[31])          # f3 and D5: they do not touch
    assert not apart.readable and apart.occluded_fraction == 0
    assert "covers" not in apart.reason and "f3" in apart.reason and "D5" in apart.reason
    assert set(apart.low_confidence_squares) == {17} and set(apart.low_confidence_points) == {31}
    two = covering(squares=[14, 15])                     # c3 and d3 touch, but two fields are no hand
    assert "covers" not in two.reason and two.occluded_fraction == 0
    hand = covering(squares=[14, 15], points=[17])        # c3, d3 and their shared corner D3
    assert not hand.readable and "covers the board at" in hand.reason
    assert hand.occluded_fraction == pytest.approx(3 / 85)
    assert all(n in hand.reason for n in (square_name(14), square_name(15), point_name(17)))
    # a hand the renderer draws covers touching fields: refused as one
    shot = render(START, SEED, design=DESIGN, markers=False, printed=[True] * 49, hand=True, frame=3)
    assert "covers the board" in (reader.read(shot.image).reason or "")


def test_a_robot_of_neither_colour_is_doubtful_not_the_nearer_colour(start, cal):
    """A robot whose colour lies farther than FAR_COLOUR spreads from both of the set's colours is of
    neither as far as the camera can tell (the disc caught something else: the board in a hard shadow
    looked like a pale robot darkened three times, and the heavy tails said White at 0.999): its colour
    is doubtful. A robot in a shade, nearer than that, keeps its colour."""
    from dataclasses import replace

    from vision.anyset.fields import look
    from vision.anyset.reader import FAR_COLOUR

    reader = BoardReader(cal, adapt=False)
    fl = look(reader._cutter, start.image, cal.reference)
    colours = cal.colours
    white = np.asarray(colours.white)

    def painted(colour):
        x = fl.x_squares.copy()
        x[2] = np.asarray(colour, np.float32)[:, None, None]       # c1, a White robot of the start
        return _read_with(reader, replace(fl, x_squares=x))

    def told(reading, s=2):
        return reading.square_probs[s, 1] / (reading.square_probs[s, 1] + reading.square_probs[s, 2])

    far = white + np.array([-1.3, -1.1, -1.0])                       # White darkened and tinted
    assert colours.fit_distance(far[None])[0] > FAR_COLOUR
    r = painted(far)
    assert 2 in r.low_confidence_squares and abs(told(r) - 0.5) < 1e-6
    assert "neither player's colour" in r.doubts["c1"]              # and says why
    assert told(r, 3) > 0.99                                        # d1 beside it is told as before
    shaded = white - 0.3                                             # the same robot in a light shade
    assert colours.fit_distance(shaded[None])[0] < FAR_COLOUR
    assert told(painted(shaded)) > 0.99


def test_a_robot_of_neither_colour_stays_doubtful_in_its_colour_whatever_the_verdict_says(start, cal, monkeypatch):
    """vision/anyset/reader.py: FAR_VETO. The verdict weighs "of neither colour" among the evidence, but a
    robot whose colour is of neither player keeps its colour doubtful even where the verdict is sure of it
    (fresh blocks showed such robots read in the wrong colour at 0.98-1.00), unless its look vouches for
    it (it looks as the reference's robot of that colour did); without the veto the verdict's word stands."""
    from dataclasses import replace

    from vision.anyset import reader as reader_module
    from vision.anyset.fields import look

    class SureWhite:
        def judge(self, squares, points):
            return np.tile([1e-6, 1 - 2e-6, 1e-6], (36, 1)), np.tile([1.0, 0.0], (49, 1))

    monkeypatch.setattr(reader_module, "shared_verdict", lambda: SureWhite())
    reader = BoardReader(cal, adapt=False)
    fl = look(reader._cutter, start.image, cal.reference)
    x = fl.x_squares.copy()
    x[2] = (np.asarray(cal.colours.white) + np.array([-1.3, -1.1, -1.0])).astype(np.float32)[:, None, None]  # c1
    painted = replace(fl, x_squares=x)
    r = reader._reading(painted, 1.0)
    assert reader.last_evidence.far[2] and reader.last_evidence.squares[2, list(reader_module.SQUARE_FEATURES)
                                                                            .index("s_known_colour")] == 0
    assert 2 in r.low_confidence_squares and abs(r.square_probs[2, 1] - r.square_probs[2, 2]) < 1e-9
    assert r.square_probs[2, 0] < 1e-5                               # a robot all the same
    assert "neither player's colour" in r.doubts["c1"]
    assert 3 not in r.low_confidence_squares                        # d1 beside it: the verdict's word
    # every field of neither colour (FAR_COLOUR below every distance): each start robot looks as the
    # reference's robot did, its look vouches for its colour; the empty squares (robots to this fake
    # verdict) have no colour their look vouches for
    monkeypatch.setattr(reader_module, "FAR_COLOUR", -1.0)
    r = reader._reading(fl, 1.0)
    robots = set(range(6)) | set(range(30, 36))
    assert reader.last_evidence.far.all()
    assert set(r.low_confidence_squares) == set(range(36)) - robots
    monkeypatch.setattr(reader_module, "FAR_COLOUR", 2.5)
    monkeypatch.setattr(reader_module, "FAR_VETO", False)
    monkeypatch.setattr(reader_module, "WEAK_VETO", False)          # its colour log-odds are weak too
    r = reader._reading(painted, 1.0)
    assert 2 not in r.low_confidence_squares and r.square_probs[2, 1] > 0.999



def test_a_robot_read_in_one_colour_that_looks_like_the_other_players_robots_stays_doubtful(start, cal, monkeypatch):
    """vision/anyset/reader.py: LIKE_VETO. The colour disc the calibration chose can take in a robot's
    surroundings (a dark battery set down beside a light robot read it Black at 0.998): a robot the
    verdict reads in one colour whose look is clearly nearer the other player's start robots (the
    likeness) and whose plain disc at the centre leans the other way too (LIKE_CORE) keeps its colour
    doubtful, named; a robot read in the colour its look is nearest is not touched, nor one whose plain
    disc keeps to the colour read; without the veto the verdict's word stands."""
    from dataclasses import replace

    from vision.anyset import reader as reader_module
    from vision.anyset.fields import look

    class SureWhite:
        def judge(self, squares, points):
            return np.tile([1e-6, 1 - 2e-6, 1e-6], (36, 1)), np.tile([1.0, 0.0], (49, 1))

    monkeypatch.setattr(reader_module, "shared_verdict", lambda: SureWhite())
    monkeypatch.setattr(reader_module, "WEAK_VETO", False)   # this verdict's colours go against the colour model too
    reader = BoardReader(cal, adapt=False)
    fl = look(reader._cutter, start.image, cal.reference)
    x = fl.x_squares.copy()
    x[2] = fl.x_squares[31]                     # c1 now looks just like Black's robot on b6
    painted = replace(fl, x_squares=x)
    r = reader._reading(painted, 1.0)
    ev = reader.last_evidence
    col = list(reader_module.SQUARE_FEATURES)
    d_white, d_black = ev.squares[2, col.index("s_d_white")], ev.squares[2, col.index("s_d_black")]
    assert d_black < reader_module.LIKE_AGAINST * d_white                  # the premise: nearer Black's
    assert ev.squares[2, col.index("s_known_colour")] == 0 and not ev.far[2]
    assert 2 in r.low_confidence_squares and abs(r.square_probs[2, 1] - r.square_probs[2, 2]) < 1e-9
    assert r.square_probs[2, 0] < 1e-5                               # a robot all the same
    assert "looks like the other player's robots" in r.doubts["c1"]
    for i in (0, 1, 3, 4, 5):                                       # White's other start robots: read as they look
        assert i not in r.low_confidence_squares
    # Black's start robots, read White by this verdict, look like Black's, but each looks as the
    # reference's robot on its square did: that look vouches for the colour, the veto leaves them
    for i in range(30, 36):
        assert ev.squares[i, col.index("s_known_colour")] == -1 and i not in r.low_confidence_squares
    # the plain disc at the square's centre (LIKE_CORE) still shows White's robot: the likeness and the
    # chosen disc may disagree for the light, the plain disc keeps to the colour read, no doubt
    from vision.anyset.colours import _disc_mask

    centre = _disc_mask(0.0, reader_module.CORE_RADIUS)
    x_core = x.copy()
    x_core[2][:, centre] = fl.x_squares[2][:, centre]
    r = reader._reading(replace(fl, x_squares=x_core), 1.0)
    ev = reader.last_evidence
    assert ev.squares[2, col.index("s_d_black")] < reader_module.LIKE_AGAINST * ev.squares[2, col.index("s_d_white")]
    assert reader._core_llr(replace(fl, x_squares=x_core))[2] > 0
    assert 2 not in r.low_confidence_squares and r.square_probs[2, 1] > 0.999
    monkeypatch.setattr(reader_module, "LIKE_CORE", False)          # the likeness alone: doubtful
    assert 2 in reader._reading(replace(fl, x_squares=x_core), 1.0).low_confidence_squares
    monkeypatch.setattr(reader_module, "LIKE_VETO", False)
    r = reader._reading(painted, 1.0)
    assert 2 not in r.low_confidence_squares and r.square_probs[2, 1] > 0.999



def test_a_robot_whose_colour_the_colour_model_gives_only_weakly_stays_doubtful_in_its_colour(start, cal,
                                                                                               monkeypatch):
    """vision/anyset/reader.py: WEAK_VETO. A verdict sure of a robot's colour where the colour model
    gives that colour less than WEAK_COLOUR log-odds (two close colours read wrong at 0.99 on 0.4) is
    overruled: the colour is doubtful, the robot stays a robot; where the colour model is sure, or the
    look vouches (the start robots), the verdict's word stands; without the veto too."""
    from dataclasses import replace

    from vision.anyset import reader as reader_module
    from vision.anyset.fields import look

    class SureWhite:
        def judge(self, squares, points):
            return np.tile([1e-6, 1 - 2e-6, 1e-6], (36, 1)), np.tile([1.0, 0.0], (49, 1))

    monkeypatch.setattr(reader_module, "shared_verdict", lambda: SureWhite())
    monkeypatch.setattr(reader_module, "LIKE_VETO", False)
    reader = BoardReader(cal, adapt=False)
    colours = cal.colours
    fl = look(reader._cutter, start.image, cal.reference)
    white, black = np.asarray(colours.white), np.asarray(colours.black)
    mixes = [white + f * (black - white) for f in np.linspace(0.0, 1.0, 201)]
    llr = colours.llr(np.array(mixes))
    weak = [m for m, v in zip(mixes, llr) if 0.5 < v < reader_module.WEAK_COLOUR]
    sure = [m for m, v in zip(mixes, llr) if v > reader_module.WEAK_COLOUR + 2]
    assert weak and sure                                             # the premise: both kinds exist

    def painted(colour):
        x = fl.x_squares.copy()
        x[2] = np.asarray(colour, np.float32)[:, None, None]                    # c1, a White start robot
        return replace(fl, x_squares=x)

    r = reader._reading(painted(weak[len(weak) // 2]), 1.0)
    col = list(reader_module.SQUARE_FEATURES)
    assert reader.last_evidence.squares[2, col.index("s_known_colour")] == 0 and not reader.last_evidence.far[2]
    assert 2 in r.low_confidence_squares and abs(r.square_probs[2, 1] - r.square_probs[2, 2]) < 1e-9
    assert r.square_probs[2, 0] < 1e-5 and "colour is unclear" in r.doubts["c1"]
    r = reader._reading(painted(sure[0]), 1.0)
    assert 2 not in r.low_confidence_squares
    # Black's start robots, read White by this verdict on colour log-odds far below: their looks vouch
    assert all(i not in r.low_confidence_squares for i in range(30, 36))
    monkeypatch.setattr(reader_module, "WEAK_VETO", False)
    assert 2 not in reader._reading(painted(weak[len(weak) // 2]), 1.0).low_confidence_squares



def test_a_weak_colour_that_the_look_and_the_plain_disc_both_clearly_give_is_read(start, cal, monkeypatch):
    """vision/anyset/reader.py: WEAK_LIKE. Where the colour model gives a robot's colour only weakly but
    its look is clearly nearer the reference's robots of that colour (the mirror of LIKE_VETO) and the
    plain disc at its centre leans the same way, two measures of the colour agree: the verdict's word
    stands. A look between the colours keeps the doubt; without WEAK_LIKE every weak colour is doubtful."""
    from dataclasses import replace

    from vision.anyset import reader as reader_module
    from vision.anyset.fields import look

    class SureWhite:
        def judge(self, squares, points):
            return np.tile([1e-6, 1 - 2e-6, 1e-6], (36, 1)), np.tile([1.0, 0.0], (49, 1))

    monkeypatch.setattr(reader_module, "shared_verdict", lambda: SureWhite())
    monkeypatch.setattr(reader_module, "LIKE_VETO", False)
    monkeypatch.setattr(reader_module, "WEAK_COLOUR", 1e9)          # every colour log-odds counts as weak
    reader = BoardReader(cal, adapt=False)
    fl = look(reader._cutter, start.image, cal.reference)
    col = list(reader_module.SQUARE_FEATURES)
    x = fl.x_squares.copy()
    x[14] = fl.x_squares[1]                   # c3, empty at the start, now shows White's robot from b1
    robot = replace(fl, x_squares=x)
    r = reader._reading(robot, 1.0)
    ev = reader.last_evidence
    assert ev.squares[14, col.index("s_known_colour")] == 0                 # the premise: no look vouches
    assert 0 < ev.squares[14, col.index("s_llr")] < reader_module.WEAK_COLOUR
    assert ev.squares[14, col.index("s_d_white")] < reader_module.LIKE_AGAINST * ev.squares[14, col.index("s_d_black")]
    assert reader._core_llr(robot)[14] > 0
    assert 14 not in r.low_confidence_squares and r.square_probs[14, 1] > 0.999
    # a look halfway between White's and Black's start robots: neither measure is clear, doubtful
    x_mid = fl.x_squares.copy()
    x_mid[14] = 0.5 * (fl.x_squares[1] + fl.x_squares[31])
    r = reader._reading(replace(fl, x_squares=x_mid), 1.0)
    assert 14 in r.low_confidence_squares and abs(r.square_probs[14, 1] - r.square_probs[14, 2]) < 1e-9
    monkeypatch.setattr(reader_module, "WEAK_LIKE", False)
    r = reader._reading(robot, 1.0)
    assert 14 in r.low_confidence_squares and abs(r.square_probs[14, 1] - r.square_probs[14, 2]) < 1e-9



def test_a_square_read_empty_on_a_board_of_a_robots_colour_is_doubtful_unless_its_look_vouches(start, cal,
                                                                                                monkeypatch):
    """vision/anyset/reader.py: BOARD_VETO. Where the frame's board has one player's robot colour (closer
    than calibration's MIN_SEPARATION), colour cannot tell such a robot from the bare board (a pale robot on
    a near-white board was read empty at 0.998): a square read empty is doubtful, named, unless it looks
    as in a board told with it empty; on a board of its own colour, or without the veto, the verdict's
    word stands."""
    from vision.anyset import reader as reader_module
    from vision.anyset.fields import look

    monkeypatch.setattr(reader_module, "shared_verdict", lambda: _SureEmptyVerdict())
    reader = BoardReader(cal, adapt=False)
    fl = look(reader._cutter, start.image, cal.reference)
    assert reader._reading(fl, 1.0).readable                       # the board's own colour: no doubt
    monkeypatch.setattr(reader_module, "_board_colour", lambda x, empty: np.asarray(cal.colours.white))
    r = reader._reading(fl, 1.0)
    ev = reader.last_evidence
    col = list(reader_module.SQUARE_FEATURES)
    assert ev.squares[0, col.index("sep_board")] < reader_module.MIN_SEPARATION
    robots = set(range(6)) | set(range(30, 36))
    # the start frame's empty squares look as the reference's did (vouched); its robots' squares do not
    # look as an empty square did: read empty by this verdict, they are doubtful
    assert set(r.low_confidence_squares) == robots, r.reason
    assert all(r.square_probs[i, 0] <= 0.5 for i in robots)
    assert "cannot tell such a robot from the bare board" in r.doubts["a1"]
    monkeypatch.setattr(reader_module, "BOARD_VETO", False)
    assert reader._reading(fl, 1.0).readable
    # a square whose look is clearly nearer the empty squares than the robots of the board's colour is left
    from vision.anyset.reader import LIKE_AGAINST, MIN_SEPARATION, _board_like_empty

    sp = np.tile([0.99, 0.005, 0.005], (4, 1))
    sp[3] = [0.01, 0.98, 0.01]                                      # a robot: never
    sep = np.full(4, MIN_SEPARATION - 0.1)
    flags = _board_like_empty(sp, sep, np.zeros(4), np.array([0.2, 0.5 * LIKE_AGAINST * 0.2, 0.2, 0.2]),
                              np.full(4, 0.2))
    assert flags.tolist() == [True, False, True, False]
    assert not _board_like_empty(sp, sep + 0.2, np.zeros(4), np.full(4, 0.2), np.full(4, 0.2)).any()
    assert not _board_like_empty(sp, sep, np.ones(4), np.full(4, 0.2), np.full(4, 0.2)).any()   # vouched
    assert not _board_like_empty(sp, np.full(4, np.nan), np.zeros(4), np.full(4, 0.2), np.full(4, 0.2)).any()


def test_a_square_read_empty_whose_centre_changed_far_more_than_the_others_is_doubtful(start, cal):
    """The classifier can be sure and wrong on a look it never trained on (a pale robot on a pale board
    read empty at 0.999): a square the reference showed empty, read empty again, whose centre changed
    far more than the frame's other such squares is doubtful, named, never claimed empty."""
    from dataclasses import replace

    from vision.anyset.fields import look
    from vision.anyset.reader import _CENTRE, CHANGED_MIN
    from vision.geometry import square_name

    reader = BoardReader(cal, adapt=False)
    fl = look(reader._cutter, start.image, cal.reference)
    assert _read_with(reader, fl).readable
    q = 14                                          # c3: empty in the start position
    assert cal.reference.square_state[q] == 0
    x = fl.x_squares.copy()
    x[q][:, _CENTRE] += 2 * CHANGED_MIN             # something there the classifier does not see
    squares = fl.squares.copy()
    squares[q] = (0.999, 0.001, 0.0)
    reading = _read_with(reader, replace(fl, x_squares=x, squares=squares))
    assert not reading.readable and square_name(q) in (reading.reason or "")
    assert reading.square_probs[q].max() < reader.min_confidence
    assert reading.doubts[square_name(q)].startswith("its middle changed as no empty square's did")
    # a change no larger than a shadow's is no doubt; nor is a change of the whole frame's light
    small = fl.x_squares.copy()
    small[q][:, _CENTRE] += CHANGED_MIN / 6
    assert _read_with(reader, replace(fl, x_squares=small, squares=squares)).readable
    # (the whole frame's light: every square's centre changed alike; the robots' colours are not this
    # check's business, and a patch shifted against its own background is no frame a camera makes)
    assert not (reader._unlike_reference_z(replace(fl, x_squares=fl.x_squares + 0.4, squares=squares)) > 1).any()
    # a square the classifier reads as taken is its business, not this check's
    taken = fl.squares.copy()
    taken[q] = (0.001, 0.999, 0.0)
    assert not (reader._unlike_reference_z(replace(fl, x_squares=x, squares=taken)) > 1).any()


def test_a_field_read_as_changed_whose_look_changed_less_than_a_content_does_is_doubtful(start, cal):
    """The nets can answer "something else" on a look that is all but the reference's (a tiny battery
    beside its point read empty at 0.999, its look a hair from the reference's that showed it): a
    field read as holding something else than the reference showed, whose look changed less than a
    change of content ever did, is doubtful, named, never claimed; changed by a content's worth, the
    nets' answer stands."""
    from dataclasses import replace

    from vision.anyset.fields import look
    from vision.anyset.reader import (_SAME_POINT_DISC, _SAME_SQUARE_DISC, CONTENT_POINT, CONTENT_SQUARE,
                                      SAME_POINT, SAME_SQUARE)
    from vision.geometry import point_name, square_name

    reader = BoardReader(cal, adapt=False)
    fl = look(reader._cutter, start.image, cal.reference)
    assert _read_with(reader, fl).readable
    q = int(np.flatnonzero(np.asarray(cal.reference.point_state) == 0)[0])
    b = int(np.flatnonzero(np.asarray(cal.reference.point_state) == 1)[0])
    s = int(np.flatnonzero(np.asarray(cal.reference.square_state) == 0)[0])
    points, squares = fl.points.copy(), fl.squares.copy()
    points[q] = (0.001, 0.999, 0.0)                 # a battery where the reference showed none
    points[b] = (0.999, 0.001, 0.0)                 # none where it showed one
    squares[s] = (0.001, 0.999, 0.0)                # a robot where it showed none

    def changed(point_amount: float, square_amount: float):
        xp, xs = fl.x_points.copy(), fl.x_squares.copy()
        for i in (q, b):
            xp[i][:, _SAME_POINT_DISC] += point_amount / 3      # summed over the channels
        xs[s][:, _SAME_SQUARE_DISC] += square_amount / 3
        return replace(fl, x_points=xp, x_squares=xs, points=points, squares=squares)

    # between "looks the same" and a change of content: the nets' word alone is not enough
    hasty = _read_with(reader, changed((SAME_POINT + CONTENT_POINT) / 2, (SAME_SQUARE + CONTENT_SQUARE) / 2))
    assert not hasty.readable
    assert all(n in (hasty.reason or "") for n in (point_name(q), point_name(b), square_name(s)))
    assert all(hasty.doubts[n].startswith("read as changed, but its look changed less than")
               for n in (point_name(q), point_name(b), square_name(s)))
    assert max(hasty.point_probs[q].max(), hasty.point_probs[b].max(), hasty.square_probs[s].max()) < 0.98
    # changed by a content's worth: the nets' answer stands
    # (the square's robot colour is the colour model's business: a patch made brighter is no robot)
    sure = _read_with(reader, changed(1.5 * CONTENT_POINT, 1.5 * CONTENT_SQUARE))
    assert sure.point_probs[q, 1] > 0.98 and sure.point_probs[b, 0] > 0.98
    assert 1 - sure.square_probs[s, 0] > 0.98


def test_a_robot_read_gone_whose_middle_mostly_did_not_change_is_doubtful(start, cal, monkeypatch):
    """vision/anyset/reader.py: ROBOT_MIDDLE. A battery set down at a corner of a square whose robot
    stands still changes the edge of the square's middle only; the largest local difference counts that
    as a change of content, and the nets once read such a robot gone at 1.000. A square read as holding
    something else than the reference showed, most of whose middle (the median of its local
    differences) did not change, is doubtful, named; with the whole middle changed (the robot gone) the
    nets' answer stands; with the rule off, the edge's change alone lets the nets' word through."""
    from dataclasses import replace

    import vision.anyset.reader as reader_module
    from vision.anyset.fields import look
    from vision.anyset.patches import SQUARE_SPAN
    from vision.anyset.reader import _SAME_SQUARE_DISC, CONTENT_SQUARE, SAME_SQUARE_RADIUS
    from vision.geometry import square_name

    reader = BoardReader(cal, adapt=False)
    fl = look(reader._cutter, start.image, cal.reference)
    assert _read_with(reader, fl).readable
    q = int(np.flatnonzero(np.asarray(cal.reference.square_state) == 1)[0])      # a start robot
    squares = fl.squares.copy()
    squares[q] = (0.999, 0.001, 0.0)                 # the nets: gone
    P = fl.x_squares.shape[-1]
    c = ((np.arange(P) + 0.5) / P - 0.5) * SQUARE_SPAN
    r = np.sqrt(c[None, :] ** 2 + c[:, None] ** 2)
    # a battery's worth just outside the disc, on one side (as a battery at the square's corner, seen
    # leaning in): the local differences' blur carries it into the disc's edge
    edge = (r > SAME_SQUARE_RADIUS) & (r <= SAME_SQUARE_RADIUS + 0.25) & (c[:, None] > 0.15)
    assert not (edge & _SAME_SQUARE_DISC).any() and edge.any()

    def changed(where):
        xs = fl.x_squares.copy()
        xs[q][:, where] += 3 * CONTENT_SQUARE      # summed over the channels: many times a content's worth
        return replace(fl, x_squares=xs, squares=squares)

    diffs = reader._differences(changed(edge))
    assert diffs.squares[q] >= CONTENT_SQUARE > diffs.square_middles[q]
    edge_only = _read_with(reader, changed(edge))
    assert not edge_only.readable and square_name(q) in (edge_only.reason or "")
    assert edge_only.doubts[square_name(q)].startswith("read as changed, but its look changed less than a robot")
    assert edge_only.square_probs[q].max() < reader.min_confidence
    # the whole middle changed: the robot is gone, as the nets say
    gone = _read_with(reader, changed(np.ones((P, P), bool)))
    assert gone.square_probs[q, 0] > reader.min_confidence and square_name(q) not in gone.doubts
    # without the rule the edge's change is a content's worth: the nets' answer stands, sure
    monkeypatch.setattr(reader_module, "ROBOT_MIDDLE", False)
    assert _read_with(reader, changed(edge)).square_probs[q, 0] > reader.min_confidence


def test_a_robot_can_hide_only_corner_points_behind_it_as_the_camera_sees_it():
    """Which corner points a robot could hide is geometry: behind it as the camera looks (where its
    top leans), more of them the taller it is, none when the camera looks straight down from high."""
    from vision.anyset.patches import hideable_corners
    from vision.geometry import point_coords, square_centers

    cam = _make_camera((1280, 960), 25, 40, 10, 12.0, np.array([3, 3, 0.0]), 1.1 * 1280)
    pose = camera_pose(cam.plane_homography(), (1280, 960))
    tall = hideable_corners(pose, 0.6, 0.4, 0.1)
    short = hideable_corners(pose, 0.1, 0.4, 0.1)
    assert tall.shape == (36, 49) and tall.any()
    assert not (short & ~tall).any() and short.sum() < tall.sum()
    sq, pt = square_centers(), point_coords()
    for s, i in zip(*np.nonzero(tall)):
        rel = pt[i] - sq[s]
        assert np.abs(rel).max() == 0.5                          # a corner of its square
        assert np.dot(rel, sq[s] - pose.centre[:2]) > 0          # on the far side from the camera
    from vision.anyset.patches import CameraPose

    high_above = CameraPose(np.array([3.0, 3.0, 40.0]), 4.0 * 1280, True)
    assert not hideable_corners(high_above, 0.6, 0.4, 0.1).any()


def _tilted_set(design: int, **robots):
    """Design ``design`` with its robots' size replaced (``robots``: robot_height, robot_radius), the
    camera tilted 25 degrees, calibrated on its start frame: (render arguments, seed, start frame,
    calibration, (36, 49) the corner points a robot of the largest size the reader assumes could hide)."""
    from dataclasses import replace

    from vision.anyset.patches import hideable_corners
    from vision.anyset.reader import HIDE_HEIGHT, HIDE_MARGIN, HIDE_RADIUS
    from vision.designs import sample_design

    view = dict(design=replace(sample_design(design), **robots), markers=False, printed=[True] * 49, tilt=25.0)
    seed = design * 16 + 2
    first = render(START, seed, **view)
    calibration = calibrate(first.image, START, white_side=white_side_of(first.homography))
    hide = hideable_corners(PatchCutter(calibration.H, calibration.image_size).pose, HIDE_HEIGHT, HIDE_RADIUS,
                            HIDE_MARGIN)
    return view, seed, first, calibration, hide


@pytest.fixture(scope="module")
def hidden_battery():
    """A set of the largest robots issue #20 names (0.6 of a square tall, 0.76 across), the camera
    tilted 25 degrees, calibrated on its start frame; a robot moved on beside a corner point it could
    hide, and a battery set down there that the renderer says is less than half in view (the robots'
    real shape and where they stand decide: the first such point). Gives the calibration, the start
    frame, the board with the robot moved, the point, a frame of that board with the battery, and the
    render's seed and arguments."""
    from types import SimpleNamespace

    from vision.layout import BoardLayout, PointState

    view, seed, first, calibration, hide = _tilted_set(5_000_413, robot_height=0.6, robot_radius=0.38)
    candidates = ((moved, int(i)) for moved, _, dst in _robots_moved_one_square(START)
                  for i in np.flatnonzero(hide[dst]) if moved.points[i] is PointState.EMPTY)
    for moved, i in candidates:
        points = list(moved.points)
        points[i] = PointState.BATTERY
        shot = render(BoardLayout(moved.squares, tuple(points)), seed, frame=2, **view)
        if shot.point_view[i] < 0.5:                 # the renderer: the robot hides the battery there
            return SimpleNamespace(calibration=calibration, start=first, moved=moved, point=i, shot=shot, seed=seed,
                                   view=view)
    raise AssertionError("no robot moved on hides a battery in this view")


def test_a_point_a_tall_robot_hides_is_doubtful_not_empty(hidden_battery):
    """Issue #20: a tall robot in a tilted view hides the field behind it; that field is doubtful,
    never guessed. A battery set down behind a robot of the largest size the issue names, the camera
    tilted 25 degrees: the renderer says less than half of it is in view, and the reader calls the
    point doubtful, by name, where the nets alone read it empty. A point beside a robot whose look is
    the one it had when it was told empty (the calibration frame's) stays sure."""
    from dataclasses import replace

    from vision.anyset.fields import look
    from vision.geometry import point_name, square_name

    calibration, i, shot = hidden_battery.calibration, hidden_battery.point, hidden_battery.shot
    reader = BoardReader(calibration, adapt=False)
    assert reader.read(hidden_battery.start.image).readable   # the start robots' corner points look as told
    reading = reader.read(shot.image)
    assert not reading.readable and point_name(i) in (reading.reason or "")
    assert reading.point_probs[i].max() < reader.min_confidence
    # and says why, naming the robot that may hide it (the one moved beside it)
    moved_to = [square_name(s) for s in range(36) if hidden_battery.moved.squares[s] != START.squares[s]
                and hidden_battery.moved.squares[s].value != "empty"]
    why = reading.doubts[point_name(i)]
    assert why.startswith("the robot on ") and "may hide it" in why
    assert any(name in why for name in moved_to), (why, moved_to)
    assert reading.to_json()["doubtful_why"][point_name(i)] == why
    # the nets alone, sure of "empty" there: still doubtful
    fl = look(reader._cutter, shot.image, calibration.reference)
    nets = fl.points.copy()
    nets[i] = (0.999, 0.001, 0.0)
    again = _read_with(reader, replace(fl, points=nets))
    assert i in again.low_confidence_points and again.point_probs[i].max() < reader.min_confidence


def test_a_point_the_hidden_check_flags_stays_doubtful_whatever_the_verdict_says(hidden_battery, monkeypatch):
    """vision/anyset/reader.py: HIDDEN_VETO. The verdict weighs the hidden check's flag among the
    evidence, but a point it flags stays doubtful even where the verdict is sure of "empty" (issue #20:
    a field a robot hides is reported doubtful, never guessed); without the veto the verdict's word
    stands."""
    from vision.anyset import reader as reader_module

    class SureEmpty:
        def judge(self, squares, points):
            sp = np.tile([1e-6, 1 - 2e-6, 1e-6], (36, 1))        # a robot everywhere: the hidden check's premise
            return sp, np.tile([1.0, 0.0], (49, 1))

    i = hidden_battery.point
    reader = BoardReader(hidden_battery.calibration, adapt=False)
    monkeypatch.setattr(reader_module, "shared_verdict", lambda: SureEmpty())
    reading = reader.read(hidden_battery.shot.image)
    assert reader.last_evidence.hidden[i]
    assert i in reading.low_confidence_points and reading.point_probs[i].max() <= 0.75
    monkeypatch.setattr(reader_module, "HIDDEN_VETO", False)
    reading = reader.read(hidden_battery.shot.image)
    assert i not in reading.low_confidence_points and reading.point_probs[i, 0] == 1.0


def test_vision_read_says_why_each_doubtful_field_is_doubtful(hidden_battery, tmp_path, capsys):
    """`netzwerk vision read` on a frame it cannot read names the doubtful fields and, one a line, why:
    here the point a tall robot hides, with the robot that may hide it (a user can then raise the
    camera); `--json` gives the same under "doubtful_why"."""
    from companion.cli import main
    from vision.geometry import point_name

    cal = hidden_battery.calibration.save(tmp_path / "cal.json")
    cv2.imwrite(str(tmp_path / "frame.png"), hidden_battery.shot.image)
    name = point_name(hidden_battery.point)
    code = main(["vision", "read", "--image", str(tmp_path / "frame.png"), "--calibration", str(cal)])
    err = capsys.readouterr().err
    assert code == 1 and "board not readable: low confidence at" in err
    line = next(x for x in err.splitlines() if x.strip().startswith(f"{name}:"))
    assert "the robot on " in line and "may hide it from the camera" in line
    code = main(["vision", "read", "--image", str(tmp_path / "frame.png"), "--calibration", str(cal), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and out["doubtful_why"][name] == line.split(": ", 1)[1]
    assert set(out["doubtful_why"]) <= set(out["low_confidence"])
    # the set-up picture writes them under its title (orange, a field a line)
    from dataclasses import replace

    from vision.overlay import draw_overlay

    reading = BoardReader(hidden_battery.calibration, adapt=False).read(hidden_battery.shot.image)
    quiet = replace(reading, square_doubt_why=(), point_doubt_why=())
    drawn = draw_overlay(hidden_battery.shot.image, hidden_battery.calibration, reading)
    plain = draw_overlay(hidden_battery.shot.image, hidden_battery.calibration, quiet)
    rows = np.flatnonzero(np.abs(drawn.astype(int) - plain).sum(axis=(1, 2)))
    assert rows.size and rows.max() < 60 + 28 * 3 + 22 * 6          # below the title, nowhere else


def test_a_point_covered_by_a_robot_that_stood_there_already_is_doubtful_once_the_set_showed_its_reach(
        hidden_battery, monkeypatch):
    """A battery set down behind a robot that stood beside its point already, hidden: the point looks
    as in the board told before (covered then too), so its look vouches for nothing. Once the game has
    shown how far this set's robots reach (a robot arrived beside an empty point and covered its
    middle), a point a robot stands that close to is doubtful whatever it looks like."""
    from dataclasses import replace

    import vision.anyset.reader as reader_module
    from vision.anyset.fields import look

    moved, i = hidden_battery.moved, hidden_battery.point
    reader = BoardReader(hidden_battery.calibration, adapt=False)
    assert reader._hiding_here()[2] == -np.inf       # nothing shown yet
    arrived = render(moved, hidden_battery.seed, frame=1, **hidden_battery.view)
    reader.learn_bare(arrived.image, moved)          # the robot arrived beside the empty point: confirmed
    assert reader._hiding_here()[2] > -np.inf        # ... and covered its middle: the set's reach
    reading = reader.read(hidden_battery.shot.image)
    assert i in reading.low_confidence_points and reading.point_probs[i].max() < reader.min_confidence
    # the point looking just as in the board told before (covered then too), the nets sure of "empty":
    # doubtful with what the game showed, vouched for without it
    fl = look(reader._cutter, arrived.image, reader.calibration.reference)
    nets = fl.points.copy()
    nets[i] = (0.999, 0.001, 0.0)
    same = replace(fl, points=nets)
    assert i in _read_with(reader, same).low_confidence_points
    monkeypatch.setattr(reader_module, "HIDE_REACH", False)
    assert _read_with(reader, same).point_probs[i, 0] > 0.98


def test_a_point_read_as_a_battery_as_close_to_a_robot_as_the_set_showed_it_covers_stays_doubtful(
        hidden_battery, monkeypatch):
    """vision/anyset/reader.py: HIDE_REACH_BATTERY. Once the game has shown how far this set's robots
    cover a point's middle, a point a robot read now stands that close to is doubtful under the verdict
    even where the looks read a battery there (what they take for one may be the robot's own body; issue
    #20: a field a robot hides is reported doubtful, never guessed). Before the game has shown the reach,
    and without the rule, the verdict's word stands."""
    import vision.anyset.reader as reader_module

    class SureBattery:
        def judge(self, squares, points):
            return np.tile([1e-6, 1 - 2e-6, 1e-6], (36, 1)), np.tile([0.0, 1.0], (49, 1))

    monkeypatch.setattr(reader_module, "shared_verdict", lambda: SureBattery())
    reader = BoardReader(hidden_battery.calibration, adapt=False)
    reading = reader.read(hidden_battery.shot.image)
    assert not reader._within_reach(np.ones(36, bool)).any()         # nothing shown yet
    assert reading.point_probs[reader.last_evidence.stage_points[:, 1] > 0.5, 1].min() == 1.0
    arrived = render(hidden_battery.moved, hidden_battery.seed, frame=1, **hidden_battery.view)
    reader.learn_bare(arrived.image, hidden_battery.moved)           # a robot arrived and covered a point's middle
    reading = reader.read(hidden_battery.shot.image)
    ev = reader.last_evidence
    flagged = reader._within_reach(ev.stage_squares[:, 0] < 0.5) & (ev.stage_points[:, 1] > 0.5)
    assert flagged[hidden_battery.point]
    # the robot covers the hidden point's middle (HIDE_REACH_SEEN keeps it doubtful)
    assert not reader._middle_in_view(reader._last[3], flagged, ev.board_colour)[hidden_battery.point]
    assert set(np.flatnonzero(flagged)) <= set(reading.low_confidence_points)
    assert reading.point_probs[flagged].max() <= 0.75
    monkeypatch.setattr(reader_module, "HIDE_REACH_BATTERY", False)
    assert (reader.read(hidden_battery.shot.image).point_probs[flagged, 1] == 1.0).all()


def test_a_point_beside_a_robot_is_sure_where_no_robot_colour_shows_within_a_batterys_reach(monkeypatch, first_stage):
    """The hidden-point rule assumes the largest robot the issue names; a flat, slim robot hides
    nothing. A battery of the start taken from a corner point of the square a short robot moved on to,
    the camera tilted 25 degrees: the geometry says the robot could hide the point and the start showed
    a battery there (no empty look vouches), yet no pixel within a battery's reach of the point has a
    robot's colour, so the point is read surely empty. Without that test (HIDE_CLEAR off) it is
    doubtful; with a robot's colour painted into the reach it is doubtful again."""
    from dataclasses import replace

    import vision.anyset.reader as reader_module
    from vision.anyset.fields import look
    from vision.anyset.patches import POINT_SPAN
    from vision.anyset.reader import HIDE_CLEAR_RADIUS
    from vision.geometry import point_name
    from vision.layout import BoardLayout, PointState

    monkeypatch.setattr(reader_module, "SET_HEIGHT", False)     # the largest robot assumed, not this set's own
    view, seed, first, calibration, hide = _tilted_set(5_000_400, robot_height=0.08, robot_radius=0.26)
    tried = 0
    for moved, src, dst in _robots_moved_one_square(START):
        for i in np.flatnonzero(hide[dst]):
            if moved.points[i] is not PointState.BATTERY:
                continue                                   # a battery of the start, taken now
            points = list(moved.points)
            points[i] = PointState.EMPTY
            board = BoardLayout(moved.squares, tuple(points))
            shot = render(board, seed, frame=3, **view)
            reader = BoardReader(calibration, adapt=False)
            monkeypatch.setattr(reader_module, "HIDE_CLEAR", False)
            before = reader.read(shot.image)
            monkeypatch.setattr(reader_module, "HIDE_CLEAR", True)
            if "may hide it" not in before.doubts.get(point_name(int(i)), ""):
                continue                                   # doubtful for another reason, or the nets unsure
            tried += 1
            after = reader.read(shot.image)
            assert int(i) not in after.low_confidence_points and after.point_probs[i, 0] > reader.min_confidence
            # a robot's colour within a battery's reach of the point: doubtful again, for the same reason
            fl = look(reader._cutter, shot.image, calibration.reference)
            xp = fl.x_points.copy()
            c = ((np.arange(xp.shape[-1]) + 0.5) / xp.shape[-1] - 0.5) * POINT_SPAN
            blob = (c[None, :] ** 2 + (c[:, None] - 0.7 * HIDE_CLEAR_RADIUS) ** 2) <= 0.09 ** 2   # half a battery's worth
            xp[i][:, blob] = np.array(calibration.colours.white, np.float32)[:, None]
            painted = _read_with(reader, replace(fl, x_points=xp))
            assert int(i) in painted.low_confidence_points
            assert "may hide it" in painted.doubts[point_name(int(i))]
            if tried == 2:
                return
    raise AssertionError(f"{tried} points the hidden-point rule alone made doubtful, not 2")


def test_calibration_measures_how_tall_the_robots_stand_and_a_flat_robot_hides_no_point(monkeypatch):
    """The hidden-point rule assumed the tallest robot a set may have; calibration now measures this
    set's (vision.anyset.stature: how far each start robot's silhouette reaches behind its footprint
    where things lean most). Flat pieces (0.05 of a square tall, 0.8 across, the camera tilted 25
    degrees) are measured as no taller than 0.25 (the measure's margin), no corner point is one they
    could hide, and on a board set up anew an empty point beside one of them is read surely empty
    where the rule with the tallest robot assumed (SET_HEIGHT off) calls it doubtful, "the robot ...
    may hide it". Robots 0.45 tall are measured as at least 0.3 (a cylinder whose silhouette reaches
    as far behind its footprint); tall robots keep their points doubtful
    (test_a_point_a_tall_robot_hides_is_doubtful_not_empty)."""
    import vision.anyset.reader as reader_module
    from vision.geometry import point_name

    view, seed, first, calibration, hide = _tilted_set(5_000_407, robot_height=0.05, robot_radius=0.4)
    assert calibration.robot_height is not None and calibration.robot_height <= 0.25
    assert Calibration.from_json(json.loads(json.dumps(calibration.to_json()))) == calibration
    assert not BoardReader(calibration, adapt=False)._hideable().any()
    rng = np.random.default_rng(7)
    boards = [random_layout(rng) for _ in range(4)]
    shot = render(boards[3], seed, frame=4, placement=4, **view)
    monkeypatch.setattr(reader_module, "SET_HEIGHT", False)
    assumed = BoardReader(calibration, adapt=False).read(shot.image)
    monkeypatch.setattr(reader_module, "SET_HEIGHT", True)
    measured = BoardReader(calibration, adapt=False).read(shot.image)
    flagged = [name for name, why in assumed.doubts.items() if "may hide it" in why]
    g6 = 41
    assert point_name(g6) == "G6" and flagged == ["G6"] and boards[3].points[g6].value == "empty"
    assert "G6" not in measured.doubts and measured.point_probs[g6, 0] >= 0.98
    tall = _tilted_set(5_000_402, robot_height=0.45, robot_radius=0.3)[3]
    assert tall.robot_height is not None and 0.3 <= tall.robot_height


def test_the_robots_height_is_no_measure_where_the_frame_shows_no_robot_or_the_board_leaves_the_picture(cal):
    """stature.robot_height gives None, never an error, where there is nothing to measure: a grey frame
    (no pixel of either robot colour), or a homography that sends part of a robot's cut to infinity."""
    from vision.anyset.patches import CameraPose
    from vision.anyset.stature import robot_height

    pose = CameraPose(np.array([3.0, -4.0, 9.0]), 1200.0, True)
    grey = np.full((960, 1280, 3), 128, np.uint8)
    level = np.log(np.full(3, 128.0 + 8.0, np.float32))
    assert robot_height(grey, cal.H, pose, START, cal.colours, level) is None
    horizon = np.array([[100.0, 0.0, 640.0], [0.0, 100.0, 480.0], [0.0, 1.0, -3.5]])   # y = 3.5 at infinity
    assert robot_height(grey, horizon, pose, START, cal.colours, level) is None
    from vision.anyset.stature import _cut

    right, up = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    assert _cut(grey, horizon, np.array([0.5, 3.5]), right, up) is None          # the cut crosses the horizon
    assert _cut(grey, horizon, np.array([0.5, 0.5]), right, up) is not None


def _robots_moved_one_square(layout):
    """``layout`` with one robot moved a square on (towards the other side), each robot that can, in
    square order: yields (layout, from, to)."""
    from vision.layout import BoardLayout, SquareState

    for src in range(36):
        dst = src + 6 if src < 30 else src - 6
        if layout.squares[src] is SquareState.EMPTY or layout.squares[dst] is not SquareState.EMPTY:
            continue
        squares = list(layout.squares)
        squares[dst], squares[src] = squares[src], SquareState.EMPTY
        yield BoardLayout(tuple(squares), layout.points), src, dst


def _moved_one_robot() -> tuple[object, int, int]:
    """The start position with one robot moved a square on: (layout, from, to)."""
    return next(_robots_moved_one_square(START))


def test_a_field_that_looks_as_in_the_reference_keeps_its_content(cal):
    """Nets that know nothing (even odds on every field): the fields that look just as they did in
    the reference keep what it showed, robots their colour; the two squares a robot left and reached
    stay doubtful, named, never claimed."""
    from dataclasses import replace

    from vision.anyset.fields import look
    from vision.anyset.reader import SAME_ODDS
    from vision.geometry import square_name

    layout, src, dst = _moved_one_robot()
    image = render(layout, SEED, design=DESIGN, markers=False, frame=3, printed=[True] * 49).image
    reader = BoardReader(cal, adapt=False)
    fl = look(reader._cutter, image, cal.reference)
    blind = replace(fl, squares=np.tile([0.5, 0.5, 0.0], (36, 1)), points=np.tile([0.5, 0.5, 0.0], (49, 1)))
    reading = _read_with(reader, blind)
    assert not reading.readable
    assert set(reading.low_confidence_squares) == {src, dst}, reading.reason
    assert square_name(src) in reading.reason and square_name(dst) in reading.reason
    _, same_p = reader._same_as_reference(fl)
    assert same_p.sum() >= 35                   # the camera's noise keeps a few points above the limit
    assert set(reading.low_confidence_points) == set(np.flatnonzero(~same_p).tolist())
    truth_s = [("empty", "white", "black").index(v.value) for v in layout.squares]
    truth_p = [("empty", "battery").index(v.value) for v in layout.points]
    sure = SAME_ODDS / (SAME_ODDS + 1)
    for q in range(36):
        if q not in (src, dst):
            assert reading.square_probs[q].argmax() == truth_s[q] and reading.square_probs[q].max() >= sure - 1e-3
    for i in np.flatnonzero(same_p):
        assert reading.point_probs[i].argmax() == truth_p[i] and reading.point_probs[i].max() >= sure - 1e-9


def test_a_field_that_changed_gets_no_help_from_the_reference(cal):
    """A square whose look changed (a robot arrived, left, or one of the other colour stands there)
    keeps the nets' and the colour model's word; so does every field where the frame's light moved."""
    from dataclasses import replace

    from vision.anyset.fields import look
    from vision.anyset.reference import COLOUR_BLACK, COLOUR_WHITE

    layout, src, dst = _moved_one_robot()
    image = render(layout, SEED, design=DESIGN, markers=False, frame=3, printed=[True] * 49).image
    reader = BoardReader(cal, adapt=False)
    fl = look(reader._cutter, image, cal.reference)
    same_s, same_p = reader._same_as_reference(fl)
    assert not same_s[src] and not same_s[dst]
    assert same_s.sum() == 34 and same_p.sum() >= 35
    # the whole frame's colour shifted in one channel more than the normalisation made up for: the
    # shift is taken off (colour_shift), the looks compare as before
    shifted = fl.x_squares.copy()
    shifted[:, 0] += 0.2
    assert (reader._same_as_reference(replace(fl, x_squares=shifted))[0] == same_s).all()
    # the light moved over a third of the board (a lamp's patch): those squares get no help
    lit = fl.x_squares.copy()
    lit[:12, 0] += 0.2
    assert not reader._same_as_reference(replace(fl, x_squares=lit))[0][:12].any()
    # a robot of the other colour where the reference knew one: its colour is the colour model's word
    q = next(q for q in range(36) if cal.reference.square_colour[q] == COLOUR_WHITE and same_s[q])
    assert cal.reference.square_colour[[p for p in range(36) if START.squares[p].value == "black"]].tolist() == [COLOUR_BLACK] * 6
    ref = cal.reference
    swapped = replace(cal, reference=replace(ref, square_colour=np.where(np.arange(36) == q, COLOUR_BLACK, ref.square_colour).astype(np.int8)))
    told = BoardReader(swapped, adapt=False)
    before = _read_with(reader, fl).square_probs[q]
    after = _read_with(told, fl).square_probs[q]
    assert after[2] > before[2]                 # the reference's word moves the colour, the look still decides
    assert after.argmax() == 1 or after.max() < reader.min_confidence


def test_a_noisy_camera_leaves_untouched_fields_looking_as_before(cal):
    """vision/anyset/reader.py: NOISE_FLOOR: the camera's noise, twice in every difference of two
    looks, is the frame's floor and is taken off: with noise of 0.08 log units on every pixel of the
    frame (a dark board: a few grey levels), the untouched fields still look as before, the squares a
    robot left and reached do not; without the floor no field would."""
    from dataclasses import replace

    from vision.anyset import reader as reader_module
    from vision.anyset.fields import look

    layout, src, dst = _moved_one_robot()
    image = render(layout, SEED, design=DESIGN, markers=False, frame=3, printed=[True] * 49).image
    reader = BoardReader(cal, adapt=False)
    fl = look(reader._cutter, image, cal.reference)
    rng = np.random.default_rng(5)
    noisy = replace(fl, x_squares=fl.x_squares + rng.normal(0, 0.08, fl.x_squares.shape).astype(np.float32),
                    x_points=fl.x_points + rng.normal(0, 0.08, fl.x_points.shape).astype(np.float32))
    same_s, same_p = reader._same_as_reference(noisy)
    assert not same_s[src] and not same_s[dst]
    assert same_s.sum() >= 30 and same_p.sum() >= 30
    d = reader._differences(noisy)
    assert d.floor_squares > 0.15 and d.floor_points > 0.15     # 3 channels of |N(0, 0.08)|: about 0.19
    old = reader_module.NOISE_FLOOR
    try:
        reader_module.NOISE_FLOOR = False
        assert not reader._same_as_reference(noisy)[0].any() and not reader._same_as_reference(noisy)[1].any()
    finally:
        reader_module.NOISE_FLOOR = old


def test_the_reference_keeps_the_robots_colours_in_its_file(tmp_path, cal):
    from vision.anyset.reference import COLOUR_UNKNOWN

    ref = cal.reference
    assert sorted(np.unique(ref.square_colour).tolist()) == [0, 1, 2]
    path = cal.save(tmp_path / "cal.json")
    data = json.loads(path.read_text())
    assert len(data["reference"]["square_colour"]) == 36
    del data["reference"]["square_colour"]      # a file written before the colours were kept
    path.write_text(json.dumps(data))
    old = Calibration.load(path)
    assert (old.reference.square_colour == COLOUR_UNKNOWN).all()
    data["reference"]["square_colour"] = [7] * 36
    path.write_text(json.dumps(data))
    with pytest.raises(CalibrationError, match="colours"):
        Calibration.load(path)


def test_the_benchmark_game_keeps_the_sides_of_the_batteries_left_standing():
    """In the benchmark's game a battery left standing keeps its side unless it is turned (a quarter
    of them a turn); one set down anew shows either side."""
    from benchmarks.vision_anyset import TURNED, game_sides
    from vision.layout import BoardLayout

    board = BoardLayout.from_sets(white=START.white, black=START.black,
                                  batteries=[p for p in START.batteries if p != 7] + [20])
    rng = np.random.default_rng(0)
    draws = np.array([game_sides(rng, START, [True] * 49, board) for _ in range(400)])
    stayed = [p for p in board.batteries if p != 20]
    assert abs((~draws[:, stayed]).mean() - TURNED) < 0.05
    assert abs(draws[:, 20].mean() - 0.5) < 0.1
    blank = game_sides(np.random.default_rng(1), START, [False] * 49, START)
    assert np.mean([blank[p] for p in START.batteries]) < 0.6    # blank ones stay blank, a few turned back


def test_an_accepted_frame_is_learned_without_a_second_look(cal, monkeypatch):
    """learn_bare on the frame just read takes the field look of that read (the same reference, the
    same frame): the same reference comes out as from a reader that looks again."""
    import vision.anyset.reader as reader_module

    layout, _, _ = _moved_one_robot()
    image = render(layout, SEED, design=DESIGN, markers=False, frame=4, printed=[True] * 49).image
    fresh = BoardReader(cal)
    assert fresh.learn_bare(image.copy(), layout) == 85
    calls = []
    for name in ("look", "look_with"):      # a read looks with its pixel checks beside the nets
        real = getattr(reader_module, name)
        monkeypatch.setattr(reader_module, name, lambda *a, real=real, **k: calls.append(1) or real(*a, **k))
    reader = BoardReader(cal)
    reader.read(image)
    assert reader.learn_bare(image, layout) == 85
    assert len(calls) == 1
    assert reader.calibration.reference == fresh.calibration.reference
    assert reader.calibration.colours == fresh.calibration.colours
    # another frame, or the same buffer filled with another frame, is looked at
    other = render(START, SEED, design=DESIGN, markers=False, frame=5, printed=[True] * 49).image
    reader.read(image)
    image[:] = other
    reader.learn_bare(image, START)
    assert len(calls) == 3


def test_a_field_that_looks_as_it_did_boards_ago_keeps_that_content(cal):
    """R-23: a battery turned to its blank side and back. The reference (the last board told) shows
    it blank, so its printed look now is no longer "as in the reference"; the memory of earlier looks
    still knows it: with nets that know nothing it reads as a battery, surely. A reader without that
    memory has no word for it; a board found elsewhere in the frame starts the memory anew."""
    from dataclasses import replace

    from vision.anyset.fields import look
    from vision.anyset.reader import SAME_ODDS

    battery = next(i for i in range(49) if START.points[i].value == "battery")
    sides = [True] * 49
    blank = [i != battery for i in range(49)]
    turned = render(START, SEED, design=DESIGN, markers=False, frame=3, printed=blank).image
    back = render(START, SEED, design=DESIGN, markers=False, frame=4, printed=sides).image
    reader = BoardReader(cal, adapt=False)
    reader.read(turned)
    assert reader.learn_bare(turned, START) == 85
    fl = look(reader._cutter, back, reader.calibration.reference)
    assert not reader._same_as_reference(fl)[1][battery]        # unlike the blank side the reference shows
    assert reader._known_looks(fl)[2][battery] == -1                # like the printed side two boards ago
    blind = replace(fl, squares=np.tile([0.5, 0.5, 0.0], (36, 1)), points=np.tile([0.5, 0.5, 0.0], (49, 1)))
    probs = _read_with(reader, blind).point_probs[battery]
    assert probs.argmax() == 1 and probs.max() >= SAME_ODDS / (SAME_ODDS + 1) - 1e-9
    fresh = BoardReader(replace(cal, reference=reader.calibration.reference), adapt=False)
    assert fresh._known_looks(fl)[2][battery] == 0
    reader._cutter = type(reader._cutter)(cal.H, cal.image_size)     # the board found again: another cutter
    assert reader._memory_here() is None and reader._known_looks(fl)[2][battery] == 0


def test_the_memory_of_earlier_looks_keeps_the_last_different_ones():
    from vision.anyset.fieldnet import REF_EMPTY, REF_OCCUPIED, REF_UNKNOWN
    from vision.anyset.memory import KEEP, NONE, FieldMemory
    from vision.anyset.patches import PATCH

    def difference(a, b):
        return np.abs(a - b).reshape(len(a), -1).max(axis=1)

    def looks(v):
        return np.full((2, 3, PATCH, PATCH), v, np.float32)

    m = FieldMemory.new(2)
    take = np.array([True, False])
    m.remember(looks(0.0), np.array([REF_EMPTY, REF_EMPTY]), np.zeros(2, np.int8), take, difference, 0.1)
    assert m.state[:, 0].tolist() == [REF_EMPTY] + [NONE] * (KEEP - 1) and (m.state[:, 1] == NONE).all()
    # the same content, a look within the limit: it replaces the newest (the light follows)
    m.remember(looks(0.05), np.array([REF_EMPTY, REF_EMPTY]), np.zeros(2, np.int8), take, difference, 0.1)
    assert m.state[1, 0] == NONE and m.looks[0, 0].max() == np.float32(0.05)
    # other looks go in front, the oldest is dropped; a field of unknown content is skipped
    for v in range(1, KEEP + 1):
        m.remember(looks(float(v)), np.array([REF_OCCUPIED, REF_UNKNOWN]), np.ones(2, np.int8), np.ones(2, bool), difference, 0.1)
    assert m.looks[:, 0, 0, 0, 0].tolist() == [float(v) for v in range(KEEP, 0, -1)]
    assert (m.state[:, 0] == REF_OCCUPIED).all() and (m.state[:, 1] == NONE).all()
    hit, state = m.matching(looks(2.02), difference, 0.1)
    assert hit[:, 0].tolist() == [v == 2 for v in range(KEEP, 0, -1)] and not hit[:, 1].any()


def test_calibration_looks_at_every_field_every_way(monkeypatch, first_stage):
    """Checking a frame against a layout (calibration) looks at every field every way (beside both
    pairs of examples, plain and mirrored), not only the unsure ones: one sure look can be wrong.
    Design 5,000,401 at a 25-degree tilt: beside its nearest examples (A1 empty, B2 a small dome set
    down off its point) the nets put a battery on the empty B1 at 1.0, beside the second nearest
    ones nobody does; the correct set-up must be accepted. (The fine look calibration takes at the start
    batteries looks every way too, beside this frame's nearest points alone.)"""
    from vision.anyset import fields

    shot = render(START, 80_006_416, design=5_000_401, markers=False, printed=[True] * 49, tilt=25.0)
    seen = []
    real = fields._looked_again

    def spy(views, x, below=fields.MIRROR_BELOW):
        seen.append((len(views), below))
        return real(views, x, below)

    monkeypatch.setattr(fields, "_looked_again", spy)
    cal = calibrate(shot.image, START, white_side=white_side_of(shot.homography))
    assert cal.reference is not None
    assert seen and all(below > 1 for _, below in seen)
    # every field beside both pairs of examples; the fine look at the start batteries beside this frame's own
    assert any(n == len(fields.RANKS) for n, _ in seen)
    assert all(n in (len(fields.RANKS), len(fields.OWN_FRAME_RANKS)) for n, _ in seen)
    seen.clear()
    BoardReader(cal, adapt=False).read(shot.image)
    assert seen and all(below == fields.MIRROR_BELOW for _, below in seen)


def test_a_still_field_keeps_the_nets_answer(start, cal, monkeypatch):
    """A field whose patch is as when the nets last answered (within camera noise: fields.STILL)
    keeps that answer: a still board costs no net; a field that changed is looked at afresh, and the
    reading is the one a fresh reader gives; a new reference starts the answers anew."""
    from vision.anyset import fields
    from vision.layout import BoardLayout

    looked = []
    real = fields._looked_again

    def spy(views, x, below=fields.MIRROR_BELOW, todo=None):
        looked.append(len(x) if todo is None else len(todo))
        return real(views, x, below, todo)

    monkeypatch.setattr(fields, "_looked_again", spy)
    reader = BoardReader(cal, adapt=False)
    first = reader.read(start.image)
    assert looked == [36, 49]
    looked.clear()
    again = reader.read(start.image.copy())
    assert looked == [] and np.array_equal(again.square_probs, first.square_probs)
    moved = BoardLayout.from_sets(white=[1, 2, 3, 4, 5, 8], black=range(30, 36),
                                  batteries=list(range(7, 14)) + list(range(35, 42)))   # a1 to c2
    shot = render(moved, SEED, design=DESIGN, markers=False, printed=[True] * 49, frame=0)
    looked.clear()
    kept = reader.read(shot.image)
    assert 0 < sum(looked) < 85
    fresh = BoardReader(cal, adapt=False).read(shot.image)
    assert kept.readable == fresh.readable and kept.layout == fresh.layout == moved
    assert np.abs(kept.square_probs - fresh.square_probs).max() < 1e-3     # kept: answered on a patch
    assert np.abs(kept.point_probs - fresh.point_probs).max() < 1e-3       # as good as the same
    assert reader.learn_bare(shot.image, moved) > 0
    looked.clear()
    reader.read(shot.image)
    assert looked == [36, 49]                     # a new reference: every field afresh


def test_the_frames_own_sure_fields_are_examples_for_a_field_left_unknown(cal):
    """vision/anyset/fields.py: own_frame_look: a field whose content is hidden from it (REF_UNKNOWN)
    is told by the same frame's fields whose content is given, as calibration tells a field by the
    frame's other fields: batteries and robots of a game frame read occupied, empty fields empty."""
    from vision.anyset.fieldnet import REF_EMPTY, REF_OCCUPIED, REF_UNKNOWN
    from vision.anyset.fields import look, own_frame_look

    board = random_layout(np.random.default_rng(11))
    shot = render(board, SEED, design=DESIGN, markers=False, frame=7)
    cutter = PatchCutter(cal.H, cal.image_size)
    fl = look(cutter, shot.image, cal.reference)
    ss = np.array([REF_EMPTY if s.value == "empty" else REF_OCCUPIED for s in board.squares])
    ps = np.array([REF_EMPTY if p.value == "empty" else REF_OCCUPIED for p in board.points])
    todo_s = np.array(sorted(board.white | board.black)[:2] + [q for q in range(36) if board.squares[q].value == "empty"][:2])
    todo_p = np.array(sorted(board.batteries)[:3] + [p for p in range(49) if board.points[p].value == "empty"][:3])
    ss[todo_s] = REF_UNKNOWN
    ps[todo_p] = REF_UNKNOWN
    second_s, second_p = own_frame_look(cutter, fl, ss, ps, todo_s, todo_p)
    assert second_s.shape == (4, 2) and second_p.shape == (6, 2)
    zs, zp = second_s[:, 0], second_p[:, 0]
    sure = np.log(0.98 / 0.02)
    assert np.all(zs[:2] > sure) and np.all(zs[2:] < -sure), zs
    assert np.all(zp[:3] > sure) and np.all(zp[3:] < -sure), zp
    assert np.all(second_s[:, 1] < 0.02) and np.all(second_p[:, 1] < 0.02)      # nothing covers them
    none_s, none_p = own_frame_look(cutter, fl, ss, ps, np.empty(0, np.int64), np.empty(0, np.int64))
    assert none_s.shape == (0, 2) and none_p.shape == (0, 2)


def test_an_unsure_field_takes_the_own_frame_opinion_only_where_it_agrees_and_is_surer(cal, monkeypatch):
    """vision/anyset/reader.py: _own_frame_opinion: the second opinion (the frame's own sure fields
    as examples) is asked about the unsure fields only -- unsure by the log-odds or by the share
    the classifier gives "covered" -- not about a covered one, a square the change check made
    doubtful or a point at a corner of a square that may hold a robot (a tall robot may hide it),
    and is shown the sure fields as examples and no unsure one. It replaces the first
    opinion (log-odds and covered) where it leans the same way and is surer -- towards "empty" only
    when very sure (OWN_FRAME_EMPTY); one leaning the other way, a less sure one or one calling the
    field covered changes nothing."""
    from vision.anyset import reader as reader_module
    from vision.anyset.fieldnet import REF_EMPTY, REF_OCCUPIED, REF_UNKNOWN

    reader = BoardReader(cal, adapt=False)
    ze = np.full(36, 8.0)                     # log-odds of empty: sure empty squares ...
    ze[[0, 1]] = -8.0                         # ... two sure robots
    ze[[2, 3, 4, 5, 6, 7, 8]] = [1.5, -1.5, 2.0, 0.5, -0.5, 2.5, 0.2]  # unsure
    zq = np.full(49, 9.0)
    zq[[10, 11]] = -9.0                       # sure batteries
    zq[[40, 41, 44, 45]] = [-2.0, 3.0, 1.5, -9.0]           # unsure (45: sure by its log-odds, but 10% covered)
    zq[13] = -2.0                             # unsure, but at a corner of square 5 (f1), which may hold a robot
    pc = np.zeros(36)
    pc[5] = 0.9                               # covered: not asked
    qc = np.zeros(49)
    qc[45] = 0.1
    unlike = np.zeros(36, bool)
    unlike[6] = True                          # the change check's doubt: not asked
    asked = {}

    def second(cutter, fl, ss, ps, todo_s, todo_p, temperature=1.0, square_dist=None):
        asked.update(ss=ss.copy(), ps=ps.copy(), todo_s=list(todo_s), todo_p=list(todo_p))
        # log-odds occupied, covered: 2 agrees (empty) and is surer, 3 disagrees, 4 is less sure, 7 says
        # "empty" more surely than the first but not surely enough
        # "empty" more surely than the first but not surely enough, 8 leans no way at first
        occ = {2: (-8.0, 0.0), 3: (-6.0, 0.0), 4: (-1.0, 0.0), 7: (-6.0, 0.0)}
        occ_p = {40: (6.0, 0.01), 41: (5.0, 0.0), 44: (-6.0, 0.6), 45: (9.0, 0.001)}
        return np.array([occ[q] for q in todo_s]), np.array([occ_p[p] for p in todo_p])

    monkeypatch.setattr(reader_module, "own_frame_look", second)
    new_e, new_q, new_pc, new_qc = reader._own_frame_opinion(None, ze, zq, pc, qc, unlike)
    assert asked["todo_s"] == [2, 3, 4, 7] and asked["todo_p"] == [40, 41, 44, 45]     # 8 leans no way: not asked
    assert all(asked["ss"][q] == REF_UNKNOWN for q in (2, 3, 4, 5, 6, 7, 8))
    assert asked["ss"][0] == REF_OCCUPIED and asked["ss"][9] == REF_EMPTY
    assert all(asked["ps"][p] == REF_UNKNOWN for p in (13, 40, 41, 44, 45))
    assert asked["ps"][10] == REF_OCCUPIED and asked["ps"][20] == REF_EMPTY
    assert reader_module.OWN_FRAME_EMPTY <= 8.0
    assert reader_module.OWN_FRAME_LEAN <= 1.5
    assert new_e[2] == 8.0 and new_e[3] == -1.5 and new_e[4] == 2.0      # surer and agreeing / other side / less sure
    assert new_e[7] == 2.5 and new_e[8] == 0.2        # "empty", but below OWN_FRAME_EMPTY / no lean to second
    assert new_e[5] == 0.5 and new_e[6] == -0.5 and np.array_equal(new_pc, pc)
    assert new_q[40] == -6.0 and new_qc[40] == 0.01               # taken, its covered too
    assert new_q[41] == 3.0 and new_q[44] == 1.5 and new_qc[44] == 0.0   # other side / called covered
    assert new_q[45] == -9.0 and new_qc[45] == 0.001              # the same side, far less covered
    assert new_q[13] == -2.0                                      # not asked: perhaps hidden
    assert np.array_equal(np.delete(new_e, [2]), np.delete(ze, [2]))
    assert ze[2] == 1.5 and qc[45] == 0.1     # the caller's arrays are left as they were


def test_the_fine_look_tells_points_by_the_frames_own_sure_points_at_twice_the_resolution(cal):
    """vision/anyset/fields.py: fine_look: the points net of the fine second look, shown a frame's
    points at 48 px beside the same frame's points whose content is given, reads the points left
    unknown: batteries occupied, empty points empty; asked about no point it answers nothing."""
    from vision.anyset.fieldnet import REF_EMPTY, REF_OCCUPIED, REF_UNKNOWN
    from vision.anyset.fields import fine_look, look
    from vision.anyset.patches import FINE_POINT_PATCH

    board = random_layout(np.random.default_rng(11))
    shot = render(board, SEED, design=DESIGN, markers=False, frame=7)
    cutter = PatchCutter(cal.H, cal.image_size)
    assert cutter.fine_points(shot.image).shape == (49, FINE_POINT_PATCH, FINE_POINT_PATCH, 3)
    fl = look(cutter, shot.image, cal.reference)
    ps = np.array([REF_EMPTY if p.value == "empty" else REF_OCCUPIED for p in board.points])
    todo = np.array(sorted(board.batteries)[:3] + [p for p in range(49) if board.points[p].value == "empty"][:3])
    ps[todo] = REF_UNKNOWN
    second = fine_look(cutter, shot.image, fl, ps, todo)
    assert second.shape == (6, 2)
    sure = np.log(0.98 / 0.02)
    assert np.all(second[:3, 0] > sure) and np.all(second[3:, 0] < -sure), second
    assert np.all(second[:, 1] < 0.02)                    # nothing covers them
    assert fine_look(cutter, shot.image, fl, ps, np.empty(0, np.int64)).shape == (0, 2)


def test_an_unsure_point_takes_the_fine_look_only_where_it_agrees_and_is_surer(cal, monkeypatch):
    """vision/anyset/reader.py: _fine_opinion: the fine second look is asked about the points still
    unsure that lean (FINE_LEAN) -- not a covered one, not one leaning no way, not one that a robot
    on a square that may hold one could hide from the camera (another corner of that square is
    asked) -- and is shown the sure points as examples and no unsure one. It replaces the log-odds
    and the covered share where it leans the same way and is surer, towards "empty" only when very
    sure (FINE_EMPTY); otherwise it changes nothing."""
    from vision.anyset import reader as reader_module
    from vision.anyset.fieldnet import REF_EMPTY, REF_OCCUPIED, REF_UNKNOWN

    reader = BoardReader(cal, adapt=False)
    hideable = np.zeros((36, 49), bool)
    hideable[5, 13] = True                    # a robot on f1 could hide its corner 13 (not 12, 5, 6)
    hideable[20, 40] = True                   # ... and one on c4 point 40: but c4 is surely empty
    monkeypatch.setattr(reader, "_hideable", lambda: hideable)
    ze = np.full(36, 8.0)                     # every square surely empty ...
    ze[5] = 1.0                               # ... but f1, which may hold a robot
    zq = np.full(49, 9.0)
    zq[[10, 11]] = -9.0                       # sure batteries
    zq[[40, 41, 42, 43, 44, 46]] = [-2.0, 2.0, 3.0, -1.5, 2.5, 0.3]   # unsure; 46 leans no way
    zq[45] = -9.0                             # sure by its log-odds, but 10% covered
    zq[47] = -2.0                             # unsure and covered: not asked
    zq[13] = -2.0                             # unsure, at a corner of f1 it may hide: not asked
    zq[12] = -2.0                             # unsure, at a corner of f1 it cannot hide: asked
    qc = np.zeros(49)
    qc[45], qc[47] = 0.1, 0.7
    asked = {}

    def fine(cutter, image, fl, ps, todo, temperature=1.0):
        asked.update(ps=ps.copy(), todo=list(todo))
        # log-odds of a battery, covered: 40 agrees and is surer, 41 says "empty" very surely, 42 says
        # "empty" more surely but not surely enough, 43 leans the other way, 44 is less sure, 45 surer
        # and far less covered
        occ = {12: (5.0, 0.0), 40: (6.0, 0.01), 41: (-8.0, 0.0), 42: (-5.0, 0.0), 43: (-6.0, 0.0), 44: (-1.0, 0.0),
               45: (9.0, 0.001)}
        return np.array([occ[p] for p in todo])

    monkeypatch.setattr(reader_module, "fine_look", fine)
    new_q, new_qc = reader._fine_opinion(None, None, ze, zq, qc)
    assert asked["todo"] == [12, 40, 41, 42, 43, 44, 45]
    assert all(asked["ps"][p] == REF_UNKNOWN for p in (12, 13, 40, 41, 42, 43, 44, 45, 46, 47))
    assert asked["ps"][10] == REF_OCCUPIED and asked["ps"][20] == REF_EMPTY
    assert reader_module.FINE_LEAN <= 1.5 and reader_module.FINE_EMPTY <= 8.0
    assert new_q[40] == -6.0 and new_qc[40] == 0.01              # taken, its covered too
    assert new_q[41] == 8.0                                      # "empty", very surely
    assert new_q[42] == 3.0 and new_q[43] == -1.5 and new_q[44] == 2.5
    assert new_q[45] == -9.0 and new_qc[45] == 0.001
    assert new_q[46] == 0.3 and new_q[47] == -2.0 and new_q[13] == -2.0 and new_q[12] == -5.0
    assert zq[40] == -2.0 and qc[45] == 0.1   # the caller's arrays are left as they were


def _benchmark_first_frame(design: int, camera: int):
    """(calibration, board, shot): benchmarks/vision_anyset.py's set-up of ``design`` under camera
    ``camera``, calibrated marker-less on its start frame, and its first single frame (the board its
    random_layout draws first, rendered as frame 1), the design's look as it was before its blank
    side could have a colour of its own (``blank_color``, 3 December, fifth session), when these cases were
    taken down."""
    from dataclasses import replace as _replace

    from vision.designs import sample_design
    from vision.layout import BoardLayout

    seed = design * 16 + camera                             # benchmarks/vision_anyset.py: camera_seed
    design = _replace(sample_design(design), blank_color=None)
    rng = np.random.default_rng(seed)
    start = render(START, seed, design=design, markers=False, printed=[True] * 49)
    calibration = calibrate(start.image, START, white_side=white_side_of(start.homography))
    sq = rng.permutation(36)                                # benchmarks/vision_anyset.py: random_layout
    nw, nb = int(rng.integers(0, 7)), int(rng.integers(0, 7))
    board = BoardLayout.from_sets(white=sq[:nw], black=sq[nw:nw + nb],
                                  batteries=rng.permutation(49)[: int(rng.integers(6, 21))])
    return calibration, board, render(board, seed, design=design, markers=False, frame=1)


def test_the_fine_look_makes_a_small_battery_left_unsure_sure_and_the_frame_is_read(monkeypatch, first_stage):
    """vision/anyset/reader.py: a frame of development design 5,000,224 (camera 1) whose only doubtful
    field is the battery at point 39, which the 24-px looks leave at about 0.95: the fine second
    look (48 px) makes it sure and the frame is claimed, every field right. Without it
    (``FINE`` off) the same frame is held back at that point."""
    from vision.anyset import reader as reader_module
    from vision.geometry import point_name

    calibration, board, shot = _benchmark_first_frame(5_000_224, 1)
    assert 39 in board.batteries
    monkeypatch.setattr(reader_module, "FINE", False)
    without = BoardReader(calibration, adapt=False).read(shot.image)
    assert not without.readable and without.low_confidence_points == (39,), without.reason
    assert point_name(39) in without.reason
    monkeypatch.setattr(reader_module, "FINE", True)
    reading = BoardReader(calibration, adapt=False).read(shot.image)
    assert reading.readable, reading.reason
    assert wrong_fields(reading, board) == ([], [])
    assert reading.point_confidence[39] >= 0.98


def test_an_unsure_point_is_a_battery_only_where_all_four_looks_lean_so_and_add_up(cal, monkeypatch):
    """vision/anyset/reader.py: _agreed_battery: the points still unsure that lean towards a battery
    (not covered) are asked of all four looks afresh -- the net's first answer, the set head, the
    own-frame and the fine look, shown the sure points as examples and no unsure one; where all four
    lean towards a battery and their log-odds add up to AGREE_BATTERY, the point takes that sum; a
    look leaning the other way, a sum short of it, a look calling the point covered change nothing,
    and a point leaning empty is never asked (the nets' misses lean that way)."""
    from vision.anyset import reader as reader_module
    from vision.anyset.fieldnet import REF_OCCUPIED, REF_UNKNOWN, TEMPERATURE
    from vision.anyset.fields import look

    board = random_layout(np.random.default_rng(11))
    shot = render(board, SEED, design=DESIGN, markers=False, frame=7)
    reader = BoardReader(cal, adapt=False)
    fl = look(reader._cutter, shot.image, cal.reference)
    points = fl.points.copy()
    todo = [20, 21, 22, 23, 24]
    points[todo] = [0.2, 0.8, 0.0]                 # the net's first answer: log-odds of empty -1.39 each
    fl = replace(fl, points=points)
    zq = np.full(49, 9.0)
    zq[[10, 11]] = -9.0                            # sure batteries
    zq[todo] = -2.0                                # unsure, leaning a battery
    zq[30] = 2.0                                   # unsure, leaning empty: never asked
    zq[31] = -2.0                                  # unsure but covered: not asked
    qc = np.zeros(49)
    qc[31] = 0.7
    asked = {}
    net = -np.log(0.8 / 0.2)
    # per point: (own-frame log-odds of a battery, its covered, fine, its covered, the head's shift of the log-odds)
    looks = {20: (2.0, 0.0, 2.0, 0.0, 1.0),        # all four lean a battery: 1.39 + 2 + 2 + 2.39 = 7.8 -> taken
             21: (2.0, 0.0, -0.5, 0.0, 1.0),       # the fine look leans empty
             22: (1.0, 0.0, 1.0, 0.0, 0.5),        # all lean, but add up to 5.3 only
             23: (3.0, 0.0, 3.0, 0.6, 1.0),        # the fine look calls it covered
             24: (2.0, 0.0, 2.0, 0.0, -2.0)}       # the head leans empty (1.39 - 2.0)

    def own(cutter, fl_, ss, ps, todo_s, todo_p, temperature=1.0, square_dist=None):
        asked.update(own_ps=ps.copy(), own_todo=list(todo_p))
        return np.empty((0, 2)), np.array([[looks[p][0], looks[p][1]] for p in todo_p])

    def fine(cutter, image, fl_, ps, todo_p, temperature=1.0):
        asked.update(fine_ps=ps.copy(), fine_todo=list(todo_p))
        return np.array([[looks[p][2], looks[p][3]] for p in todo_p])

    monkeypatch.setattr(reader_module, "own_frame_look", own)
    monkeypatch.setattr(reader_module, "fine_look", fine)

    def head(kind, fl_, rows):
        corr = np.full(49, np.nan)
        corr[rows] = [looks[p][4] * TEMPERATURE for p in rows]
        return corr

    monkeypatch.setattr(reader, "_head_correction", head)
    out = reader._agreed_battery(shot.image, fl, zq, qc)
    assert asked["own_todo"] == todo and asked["fine_todo"] == todo
    for ps in (asked["own_ps"], asked["fine_ps"]):
        assert all(ps[p] == REF_UNKNOWN for p in todo + [30, 31]) and ps[10] == REF_OCCUPIED
    assert reader_module.AGREE_BATTERY >= 6.0
    np.testing.assert_allclose(out[20], net - 2.0 - 2.0 + (net - 1.0))
    assert out[20] <= -reader_module.AGREE_BATTERY
    assert np.array_equal(np.delete(out, 20), np.delete(zq, 20))
    assert zq[20] == -2.0                          # the caller's array is left as it was
    # nothing unsure leaning a battery: nothing asked
    asked.clear()
    assert np.array_equal(reader._agreed_battery(shot.image, fl, np.full(49, 9.0), qc), np.full(49, 9.0))
    assert not asked


def test_a_battery_every_look_leans_to_but_none_surely_is_read_by_their_agreement(monkeypatch, first_stage):
    """vision/anyset/reader.py: a single frame of development design 5,000,219 (camera 1) whose only
    doubtful field is the battery at C7 (44): each look leans towards a battery, none surely; with
    their agreement (AGREE) the frame is claimed, every field right. Without it the frame is held back
    there. (The case of the points net of stage 7 was design 5,000,210 camera 0, point 29; of stages 9-13
    design 5,000,227 camera 1, G1; stage 14's net, 6 December, fifth session, reads that one without the
    agreement.)"""
    from vision.anyset import reader as reader_module

    calibration, board, shot = _benchmark_first_frame(5_000_219, 1)
    assert 44 in board.batteries
    monkeypatch.setattr(reader_module, "AGREE", False)
    without = BoardReader(calibration, adapt=False).read(shot.image)
    assert not without.readable and without.low_confidence_points == (44,), without.reason
    monkeypatch.setattr(reader_module, "AGREE", True)
    reading = BoardReader(calibration, adapt=False).read(shot.image)
    assert reading.readable, reading.reason
    assert wrong_fields(reading, board) == ([], [])
    assert reading.point_probs[44, 1] >= 0.98


def test_an_unsure_square_is_a_robot_only_where_its_three_looks_lean_so_and_add_up(cal, monkeypatch):
    """vision/anyset/reader.py: _agreed_robot: the squares still unsure that lean towards a robot (not
    covered, not doubtful by the change check) are asked of three looks afresh -- the squares net's
    first answer, the squares head and the own-frame look, shown the sure squares as examples and no
    unsure one; where all three lean towards a robot and add up to AGREE_ROBOT, the square takes that
    sum; a look leaning empty, a sum short of it, the own-frame look calling it covered change nothing,
    and a square leaning empty or doubtful by the change check is never asked."""
    from vision.anyset import reader as reader_module
    from vision.anyset.fieldnet import REF_EMPTY, REF_UNKNOWN, TEMPERATURE
    from vision.anyset.fields import look

    board = random_layout(np.random.default_rng(12))
    shot = render(board, SEED, design=DESIGN, markers=False, frame=8)
    reader = BoardReader(cal, adapt=False)
    fl = look(reader._cutter, shot.image, cal.reference)
    squares = fl.squares.copy()
    todo = [10, 11, 12, 13]
    squares[todo] = [0.2, 0.8, 0.0]                # the net's first answer: log-odds of empty -1.39 each
    fl = replace(fl, squares=squares)
    ze = np.full(36, 9.0)
    ze[todo] = -2.0                                # unsure, leaning a robot
    ze[20] = 2.0                                   # unsure, leaning empty: never asked
    ze[21] = -2.0                                  # unsure, but doubtful by the change check: not asked
    ze[22] = -2.0                                  # unsure but covered: not asked
    pc = np.zeros(36)
    pc[22] = 0.7
    unlike = np.zeros(36, bool)
    unlike[21] = True
    net = -np.log(0.8 / 0.2)
    # per square: (own-frame log-odds of a robot, its covered, the head's shift of the log-odds)
    looks = {10: (3.0, 0.0, 1.5),                  # 1.39 + 3 + 2.89 = 7.3 -> taken
             11: (-0.5, 0.0, 1.5),                 # the own-frame look leans empty
             12: (1.0, 0.0, 1.0),                  # all lean, adding up to 5.2 only
             13: (4.0, 0.6, 1.5)}                  # the own-frame look calls it covered
    asked = {}

    def own(cutter, fl_, ss, ps, todo_s, todo_p, temperature=1.0, square_dist=None):
        asked.update(ss=ss.copy(), todo=list(todo_s), todo_p=list(todo_p))
        return np.array([[looks[s][0], looks[s][1]] for s in todo_s]), np.empty((0, 2))

    def head(kind, fl_, rows):
        assert kind == "squares"
        corr = np.full(36, np.nan)
        corr[rows] = [looks[s][2] * TEMPERATURE for s in rows]
        return corr

    monkeypatch.setattr(reader_module, "own_frame_look", own)
    monkeypatch.setattr(reader, "_head_correction", head)
    out = reader._agreed_robot(fl, ze, pc, unlike)
    assert asked["todo"] == todo and asked["todo_p"] == []
    assert all(asked["ss"][s] == REF_UNKNOWN for s in todo + [20, 21, 22]) and asked["ss"][0] == REF_EMPTY
    assert reader_module.AGREE_ROBOT >= 6.0
    np.testing.assert_allclose(out[10], net - 3.0 + (net - 1.5))
    assert np.array_equal(np.delete(out, 10), np.delete(ze, 10)) and ze[10] == -2.0


def test_a_robot_every_look_leans_to_but_none_surely_is_read_by_their_agreement(monkeypatch, first_stage):
    """vision/anyset/reader.py: a single frame of development design 5,000,203 (camera 0) whose only
    doubtful field is the robot on square 28 (the study of the three looks found their log-odds adding
    up to about -8): with their agreement (AGREE) the frame is claimed, every field right; without it
    the frame is held back there."""
    from vision.anyset import reader as reader_module

    calibration, board, shot = _benchmark_first_frame(5_000_203, 0)
    assert board.squares[28].value != "empty"
    monkeypatch.setattr(reader_module, "AGREE", False)
    without = BoardReader(calibration, adapt=False).read(shot.image)
    assert not without.readable and without.low_confidence_squares == (28,) and not without.low_confidence_points
    monkeypatch.setattr(reader_module, "AGREE", True)
    reading = BoardReader(calibration, adapt=False).read(shot.image)
    assert reading.readable, reading.reason
    assert wrong_fields(reading, board) == ([], [])
    assert reading.square_confidence[28] >= 0.98


def test_a_point_whose_battery_left_is_empty_only_where_all_four_looks_lean_so_surely_enough(cal, monkeypatch):
    """vision/anyset/reader.py: _vacated: the points still unsure that lean empty (not covered) where
    the reference showed a battery are asked of all four looks afresh (as for _agreed_battery); where
    all four lean empty, the net's first answer and the set head by VACATED_LOOK each, and they add up
    to VACATED_SUM, the point takes that sum. A look leaning a battery, a head short of the bound, a
    sum short of it, a look calling the point covered change nothing; a point the reference showed
    empty, or one leaning a battery, is never asked."""
    from vision.anyset import reader as reader_module
    from vision.anyset.fieldnet import TEMPERATURE
    from vision.anyset.fields import look

    board = random_layout(np.random.default_rng(13))
    shot = render(board, SEED, design=DESIGN, markers=False, frame=9)
    reader = BoardReader(cal, adapt=False)
    fl = look(reader._cutter, shot.image, cal.reference)
    ref_battery = np.flatnonzero(np.asarray(cal.reference.point_state) == 1)
    ref_empty = np.flatnonzero(np.asarray(cal.reference.point_state) == 0)
    todo = [int(p) for p in ref_battery[:5]]
    covered, leaning_battery, never = int(ref_battery[5]), int(ref_battery[6]), int(ref_empty[0])
    points = fl.points.copy()
    points[todo] = [0.9, 0.1, 0.0]                 # the net's first answer: log-odds of empty 2.20 each
    fl = replace(fl, points=points)
    zq = np.full(49, -9.0)
    zq[ref_empty] = 9.0
    zq[todo + [covered, never]] = 2.0              # unsure, leaning empty
    zq[leaning_battery] = -2.0
    qc = np.zeros(49)
    qc[covered] = 0.7
    net = np.log(0.9 / 0.1)
    # per point: (own-frame log-odds of a battery, its covered, fine, its covered, the head's shift of the
    # log-odds of a battery)
    looks = {todo[0]: (-4.0, 0.0, -4.0, 0.0, -1.0),    # 2.20 + 3.20 + 4 + 4 = 13.4 -> empty
             todo[1]: (-4.0, 0.0, -4.0, 0.0, 3.0),     # the head leans a battery
             todo[2]: (-5.0, 0.0, -5.0, 0.0, 0.7),     # the head leans empty by 1.5 only
             todo[3]: (-2.0, 0.0, -2.0, 0.0, -1.0),    # all lean empty, adding up to 9.4 only
             todo[4]: (-5.0, 0.0, -5.0, 0.6, -1.0)}    # the fine look calls it covered
    asked = {}

    def own(cutter, fl_, ss, ps, todo_s, todo_p, temperature=1.0, square_dist=None):
        asked.update(own_todo=list(todo_p))
        return np.empty((0, 2)), np.array([[looks[p][0], looks[p][1]] for p in todo_p])

    def fine(cutter, image, fl_, ps, todo_p, temperature=1.0):
        asked.update(fine_todo=list(todo_p))
        return np.array([[looks[p][2], looks[p][3]] for p in todo_p])

    def head(kind, fl_, rows):
        corr = np.full(49, np.nan)
        corr[rows] = [looks[p][4] * TEMPERATURE for p in rows]
        return corr

    monkeypatch.setattr(reader_module, "own_frame_look", own)
    monkeypatch.setattr(reader_module, "fine_look", fine)
    monkeypatch.setattr(reader, "_head_correction", head)
    out = reader._vacated(shot.image, fl, zq, qc)
    assert asked["own_todo"] == todo and asked["fine_todo"] == todo
    assert reader_module.VACATED_LOOK >= 2.0 and reader_module.VACATED_SUM >= 12.0
    np.testing.assert_allclose(out[todo[0]], net + (net + 1.0) + 4.0 + 4.0)
    assert np.array_equal(np.delete(out, todo[0]), np.delete(zq, todo[0])) and zq[todo[0]] == 2.0


def test_a_frame_held_back_by_a_point_its_battery_left_is_read_with_the_rule(monkeypatch, first_stage):
    """vision/anyset/reader.py: a single frame of development design 5,000,202 (camera 2) whose only
    doubtful field without the rule (VACATED) is G6, a start battery gone; with it the frame is
    claimed, every field right. (The case of the points net of stage 7 was design 5,000,237 camera 1,
    E6; of stages 9-13 design 5,000,202 camera 1, E2; stage 14's net, 6 December, fifth session, reads
    that one without the rule.)"""
    from vision.anyset import reader as reader_module
    from vision.geometry import point_name

    calibration, board, shot = _benchmark_first_frame(5_000_202, 2)
    g6 = [point_name(i) for i in range(49)].index("G6")
    assert calibration.reference.point_state[g6] == 1 and g6 not in board.batteries
    monkeypatch.setattr(reader_module, "VACATED", False)
    without = BoardReader(calibration, adapt=False).read(shot.image)
    assert not without.readable and without.low_confidence_points == (g6,), without.reason
    monkeypatch.setattr(reader_module, "VACATED", True)
    reading = BoardReader(calibration, adapt=False).read(shot.image)
    assert reading.readable, reading.reason
    assert wrong_fields(reading, board) == ([], [])
    assert reading.point_probs[g6, 0] >= 0.98


def test_a_point_read_empty_whose_middle_changed_as_an_arriving_batterys_with_nothing_moved_beside_it_is_doubtful(
        start, cal, monkeypatch):
    """vision/anyset/reader.py: _arrived_unseen: a point the reference showed empty and the nets read
    empty, whose middle (a battery's place) changed by more than ARRIVED_Z times the frame's untouched
    points' (and ARRIVED_MIN) while no square it is a corner of changed, is doubtful and named: a
    battery the nets do not make out. A smaller change, a change the whole frame shares (the light), a
    robot come beside it, a look that vouches for it: no doubt."""
    from vision.anyset import reader as reader_module
    from vision.anyset.fields import look
    from vision.anyset.reader import _CORNERS, _SEEN_POINT_DISC, ARRIVED_MIN
    from vision.geometry import point_name

    reader = BoardReader(cal, adapt=False)
    fl = look(reader._cutter, start.image, cal.reference)
    assert _read_with(reader, fl).readable
    rs, rp = np.asarray(cal.reference.square_state), np.asarray(cal.reference.point_state)
    quiet = [p for p in np.flatnonzero(rp == 0) if (rs[_CORNERS[:, p]] == 0).all()]
    q = int(quiet[len(quiet) // 2])

    def middle(amount: float, everywhere: float = 0.0):
        xp = fl.x_points.copy()
        xp[:, :, _SEEN_POINT_DISC] += everywhere / 3
        xp[q][:, _SEEN_POINT_DISC] += amount / 3          # summed over the channels
        return replace(fl, x_points=xp)

    changed = _read_with(reader, middle(3 * ARRIVED_MIN))
    assert not changed.readable and changed.low_confidence_points == (q,), changed.reason
    assert point_name(q) in (changed.reason or "")
    assert changed.doubts[point_name(q)].startswith("read empty, but its middle changed as a battery arriving")
    assert _read_with(reader, middle(0.5 * ARRIVED_MIN)).readable
    # the whole frame's light changed: every untouched point's middle alike, the point's no more than 4 times
    assert _read_with(reader, middle(3 * ARRIVED_MIN, everywhere=ARRIVED_MIN)).readable
    fl_changed = middle(3 * ARRIVED_MIN)
    robot, empty, vouched = np.zeros(36, bool), np.ones(49, bool), np.zeros(49, bool)
    empty[rp == 1] = False
    robot[rs == 1] = True
    assert reader._arrived_unseen(reader._moved_middles(fl_changed, robot, empty), empty, vouched)[q]
    beside = robot.copy()
    beside[int(np.flatnonzero(_CORNERS[:, q])[0])] = True     # a robot came onto a square beside it
    # its middle shows no robot's colour, in the reference nor now: the change is not the robot's
    assert reader._arrived_unseen(reader._moved_middles(fl_changed, beside, empty), empty, vouched)[q]
    monkeypatch.setattr(reader_module, "MOVED_CLEAR", False)
    assert not reader._arrived_unseen(reader._moved_middles(fl_changed, beside, empty), empty, vouched).any()
    monkeypatch.setattr(reader_module, "MOVED_CLEAR", True)
    # the robot's colour now over the middle (its lean): the robot may explain the change, no word
    over = fl.x_points.copy()
    over[q][:, _SEEN_POINT_DISC] = np.asarray(cal.colours.white, np.float32)[:, None]
    fl_over = replace(fl, x_points=over)
    assert reader._moved_middles(fl_over, robot, empty)[q]
    assert not reader._arrived_unseen(reader._moved_middles(fl_over, beside, empty), empty, vouched).any()
    # and over the reference's middle (a robot that stood there left)
    assert not reader._arrived_unseen(
        reader._moved_middles(replace(fl_changed, x_ref_points=over), beside, empty), empty, vouched).any()
    vouched[q] = True                                         # it looks as in a board told it empty
    assert not reader._arrived_unseen(reader._moved_middles(fl_changed, robot, empty), empty, vouched).any()
    # under the verdict (ARRIVED_VETO): the flagged point stays doubtful even where the verdict is sure
    monkeypatch.setattr(reader_module, "shared_verdict", lambda: _SureEmptyVerdict())
    reading = reader._reading(fl_changed, 1.0)
    assert reader.last_evidence.arrived[q] and reading.low_confidence_points == (q,), reading.reason

    class SureBatteryThere(_SureEmptyVerdict):
        def judge(self, squares, points):
            sp, pp = super().judge(squares, points)
            pp[q] = [0.0, 1.0]
            return sp, pp

    # a verdict sure of a battery there agrees with the check: something arrived (ARRIVED_AGREES)
    monkeypatch.setattr(reader_module, "shared_verdict", lambda: SureBatteryThere())
    reading = reader._reading(fl_changed, 1.0)
    assert reader.last_evidence.arrived[q] and reading.readable and reading.point_probs[q, 1] > 0.999
    monkeypatch.setattr(reader_module, "ARRIVED_AGREES", False)
    assert reader._reading(fl_changed, 1.0).low_confidence_points == (q,)
    monkeypatch.setattr(reader_module, "shared_verdict", lambda: _SureEmptyVerdict())
    monkeypatch.setattr(reader_module, "ARRIVED_VETO", False)
    assert reader._reading(fl_changed, 1.0).readable
    monkeypatch.setattr(reader_module, "ARRIVED", False)
    assert _read_with(reader, middle(3 * ARRIVED_MIN)).readable


def test_an_arrival_flag_whose_change_runs_on_to_the_patchs_edge_is_left_to_the_verdict(start, cal, monkeypatch):
    """vision/anyset/reader.py: ARRIVED_OPEN: a point the arrival check flags whose change at the middle
    is the edge of a larger region running on to the rim of the point's patch (a robot's body or its
    shadow come or gone beside it) is no longer held doubtful on top of the verdict; a change of the
    point's own place (a battery's), centred or set down off the point, still is. The flag itself, a
    feature of the verdict, is as before."""
    from vision.anyset import reader as reader_module
    from vision.anyset.fields import look
    from vision.anyset.patches import PATCH
    from vision.anyset.reader import _CORNERS, _SEEN_POINT_DISC, ARRIVED_MIN
    from vision.geometry import point_name

    reader = BoardReader(cal, adapt=False)
    fl = look(reader._cutter, start.image, cal.reference)
    rs, rp = np.asarray(cal.reference.square_state), np.asarray(cal.reference.point_state)
    quiet = [p for p in np.flatnonzero(rp == 0) if (rs[_CORNERS[:, p]] == 0).all()]
    q = int(quiet[len(quiet) // 2])
    yy, xx = np.mgrid[:PATCH, :PATCH] - (PATCH - 1) / 2

    def changed(where: np.ndarray):
        xp = fl.x_points.copy()
        xp[q][:, where] += 3 * ARRIVED_MIN / 3             # summed over the channels
        return replace(fl, x_points=xp)

    shadow = changed(xx + yy > 3.0)                      # a region from a corner of the patch over the middle's edge
    disc = changed(_SEEN_POINT_DISC)                     # the point's own place
    aside = changed((xx - 5) ** 2 + (yy + 1) ** 2 <= 16)  # a battery set down off the point, inside the patch
    monkeypatch.setattr(reader_module, "shared_verdict", lambda: _SureEmptyVerdict())
    for fl_now in (shadow, disc, aside):
        reader._reading(fl_now, 1.0)
        assert reader.last_evidence.arrived[q]           # the check flags all three
    flags = np.zeros(49, bool)
    flags[q] = True
    assert reader._arrival_open(shadow, flags)[q]
    assert not reader._arrival_open(disc, flags).any() and not reader._arrival_open(aside, flags).any()
    shadow_read = reader._reading(shadow, 1.0)
    assert shadow_read.readable and shadow_read.point_probs[q, 0] >= 0.98, shadow_read.reason
    for fl_now in (disc, aside):
        reading = reader._reading(fl_now, 1.0)
        assert not reading.readable and reading.low_confidence_points == (q,), reading.reason
        assert reading.doubts[point_name(q)].startswith("read empty, but its middle changed as a battery arriving")
    monkeypatch.setattr(reader_module, "ARRIVED_OPEN", False)
    held = reader._reading(shadow, 1.0)
    assert not held.readable and held.low_confidence_points == (q,), held.reason


def _benchmark_single_frame(design: int, camera: int):
    """(calibration, board, shot): benchmarks/vision_anyset.py's set-up of ``design`` under camera
    ``camera`` as the benchmark draws it today, calibrated marker-less on its start frame, and its first
    single frame."""
    from benchmarks.vision_anyset import camera_seed, random_layout

    seed = camera_seed(design, camera)
    rng = np.random.default_rng(seed)
    start = render(START, seed, design=design, markers=False, printed=[True] * 49)
    calibration = calibrate(start.image, START, white_side=white_side_of(start.homography))
    board = random_layout(rng)
    return calibration, board, render(board, seed, design=design, markers=False, frame=1)


@pytest.mark.parametrize("design, camera, flagged, battery", [
    (5_000_222, 1, ("B1", "C1"), None),     # start robots gone from a1, b1, c1: the edges of their bodies and shadows
    (17_200_036, 0, ("E7",), "E7"),         # a small battery in the board's colour arrived at E7: still doubtful
])
def test_robots_shadows_leaving_beside_empty_points_no_longer_hold_a_frame_back_an_unseen_battery_still_does(
        monkeypatch, design, camera, flagged, battery):
    """vision/anyset/reader.py: ARRIVED_OPEN on frames of development designs: the first single frame of
    5,000,222 camera 1 was held back by two arrival flags whose change ran on to the patches' edges (the
    robots' bodies and shadows that left the squares beside them) and is read right now; the first
    single frame of 17,200,036 camera 0 holds a battery at E7 that the nets read empty, its change a
    region of its own: doubtful and named while every arrival flag is vetoed, read by the verdict where
    the check agrees with it."""
    from vision.anyset import reader as reader_module
    from vision.geometry import point_name

    calibration, board, shot = _benchmark_single_frame(design, camera)
    names = [point_name(i) for i in range(49)]
    monkeypatch.setattr(reader_module, "ARRIVED_AGREES", False)      # every arrival flag vetoed, as then
    monkeypatch.setattr(reader_module, "ARRIVED_OPEN", False)
    before = BoardReader(calibration, adapt=False).read(shot.image)
    assert not before.readable and wrong_fields(before, board) == ([], [])
    for name in flagged:
        assert before.doubts[name].startswith("read empty, but its middle changed as a battery arriving"), before.doubts
    monkeypatch.setattr(reader_module, "ARRIVED_OPEN", True)
    reading = BoardReader(calibration, adapt=False).read(shot.image)
    assert wrong_fields(reading, board) == ([], [])
    if battery is None:
        assert reading.readable, reading.reason
    else:
        assert names.index(battery) in board.batteries and names.index(battery) in reading.low_confidence_points
        assert reading.doubts[battery].startswith("read empty, but its middle changed as a battery arriving")
        # the verdict reads a battery there (it stands apart from the frame's empty points, p_apart; the
        # verdict of the twelfth session at 0.98 or more, this one at 0.977): the check agrees
        # (ARRIVED_AGREES) and vetoes nothing; whether the point is sure is the verdict's own word
        monkeypatch.setattr(reader_module, "ARRIVED_AGREES", True)
        reading = BoardReader(calibration, adapt=False).read(shot.image)
        assert wrong_fields(reading, board) == ([], []) and reading.point_probs[names.index(battery), 1] > 0.9
        why = reading.doubts.get(battery, "")
        assert not why.startswith("read empty, but its middle changed as a battery arriving"), why


class _SureEmptyVerdict:
    """A verdict sure every square and point is empty, whatever the evidence."""

    def judge(self, squares, points):
        return np.tile([1.0, 0.0, 0.0], (36, 1)), np.tile([1.0, 0.0], (49, 1))


def test_a_battery_arriving_beside_a_robot_that_left_is_doubtful_where_no_robots_colour_shows_over_its_middle(
        monkeypatch, first_stage):
    """vision/anyset/reader.py: MOVED_CLEAR: single frame 1 of design 13,300,020 camera 2 (a block
    looked at on 3 December): a tiny dark battery in a black printed ring at D7, beside a start robot
    that left, is read empty at 0.998 by the nets. Its middle changed as an arriving battery's does, but
    a square it is a corner of changed, so ARRIVED alone says nothing and the frame was claimed wrong;
    its middle shows no robot's colour in the reference nor now, so the check now looks, and D7 is
    doubtful."""
    from vision.anyset import reader as reader_module
    from vision.geometry import point_name

    calibration, board, shot = _benchmark_first_frame(13_300_020, 2)
    d7 = [point_name(i) for i in range(49)].index("D7")
    assert calibration.reference.point_state[d7] == 0 and d7 in board.batteries
    monkeypatch.setattr(reader_module, "MOVED_CLEAR", False)
    without = BoardReader(calibration, adapt=False).read(shot.image)
    assert without.readable and wrong_fields(without, board) == ([], [d7])
    monkeypatch.setattr(reader_module, "MOVED_CLEAR", True)
    reading = BoardReader(calibration, adapt=False).read(shot.image)
    assert not reading.readable and d7 in reading.low_confidence_points, reading.reason
    assert reading.doubts["D7"].startswith("read empty, but its middle changed as a battery arriving")


@pytest.mark.parametrize("own_lean, fine_lean, doubtful", [(3.0, 3.0, True), (3.0, -4.0, False), (-6.0, 3.0, False),
                                                           (0.5, 3.0, False)])
def test_a_point_read_a_battery_whose_middle_changed_as_a_leaving_batterys_is_doubtful_where_the_frames_looks_see_none(
        start, cal, monkeypatch, own_lean, fine_lean, doubtful, first_stage):
    """vision/anyset/reader.py: _left_unseen: a point the reference showed holding a battery, read
    holding one, whose middle changed as _arrived_unseen's do (ARRIVED_Z, nothing moved beside it), is
    doubtful where the own-frame look and the fine look (the frame's own sure points as examples, the
    point itself none) both lean empty by LEFT_LEAN: the battery left, and the nets, shown the
    reference's battery, still read one. Where either look sees a battery (a battery turned over changes
    the middle as much), or leans too little, the nets' answer stands."""
    from vision.anyset import reader as reader_module
    from vision.anyset.fieldnet import REF_UNKNOWN
    from vision.anyset.fields import look
    from vision.anyset.reader import _CORNERS, _SEEN_POINT_DISC, ARRIVED_MIN, LEFT_LEAN
    from vision.geometry import point_name

    reader = BoardReader(cal, adapt=False)
    fl = look(reader._cutter, start.image, cal.reference)
    rp = np.asarray(cal.reference.point_state)
    q = int(np.flatnonzero(rp == 1)[3])
    xp = fl.x_points.copy()
    xp[q][:, _SEEN_POINT_DISC] += 3 * ARRIVED_MIN / 3             # summed over the channels
    changed = replace(fl, x_points=xp)
    asked = {}

    def own(cutter, fl_, ss, ps, todo_s, todo_p, temperature=1.0, square_dist=None):
        if q in list(todo_p):
            asked["own"] = (list(todo_p), ps[q])
        return (np.zeros((len(todo_s), 2)),
                np.array([[-own_lean if p == q else 0.0, 0.0] for p in todo_p]).reshape(-1, 2))

    def fine(cutter, image, fl_, ps, todo_p, temperature=1.0):
        if q in list(todo_p):
            asked["fine"] = (list(todo_p), ps[q])
        return np.array([[-fine_lean if p == q else 0.0, 0.0] for p in todo_p]).reshape(-1, 2)

    monkeypatch.setattr(reader_module, "own_frame_look", own)
    monkeypatch.setattr(reader_module, "fine_look", fine)
    reading = reader._reading(changed, 1.0, start.image)
    assert asked["own"] == ([q], REF_UNKNOWN) and asked["fine"] == ([q], REF_UNKNOWN)
    assert LEFT_LEAN <= min(3.0, 3.0) and LEFT_LEAN > 0.5
    if doubtful:
        assert not reading.readable and reading.low_confidence_points == (q,), reading.reason
        assert reading.doubts[point_name(q)].startswith("read as a battery, but its middle changed as a battery leaving")
    else:
        assert reading.readable, reading.reason
        assert reading.point_probs[q, 1] > 0.98
    # unchanged, the point is not asked; nor is it with the check left out
    asked.clear()
    assert reader._reading(fl, 1.0, start.image).readable and not asked
    monkeypatch.setattr(reader_module, "LEFT", False)
    assert reader._reading(changed, 1.0, start.image).readable and not asked
    # a robot come or gone on a square it is a corner of (its lean or shadow may change the middle): no word
    robot = np.asarray(cal.reference.square_state) == 1
    as_read = np.stack([1 - rp, rp], axis=1).astype(float)
    as_read_empty = as_read[:, 0] > 0.5
    assert reader._left_unseen(start.image, changed, reader._moved_middles(changed, robot, as_read_empty), as_read,
                               np.zeros(49))[q] == doubtful
    beside = robot.copy()
    s = int(np.flatnonzero(_CORNERS[:, q])[0])
    beside[s] = not beside[s]
    monkeypatch.setattr(reader_module, "MOVED_CLEAR", False)
    assert not reader._left_unseen(start.image, changed, reader._moved_middles(changed, beside, as_read_empty),
                                   as_read, np.zeros(49)).any()



def _a_battery_that_seems_to_leave(start, cal, monkeypatch):
    """A reader of the start frame ``start`` calibrated as ``cal``, with a verdict sure the board is the
    reference's and an own-frame and fine look that lean empty at one start battery ``q``: (reader, the
    frame's look, its look with ``q``'s middle changed as a leaving battery changes it, ``q``)."""
    from vision.anyset import reader as reader_module
    from vision.anyset.fields import look
    from vision.anyset.reader import _SEEN_POINT_DISC, ARRIVED_MIN

    reader = BoardReader(cal, adapt=False)
    fl = look(reader._cutter, start.image, cal.reference)
    rs, rp = np.asarray(cal.reference.square_state), np.asarray(cal.reference.point_state)
    q = int(np.flatnonzero(rp == 1)[3])
    xp = fl.x_points.copy()
    xp[q][:, _SEEN_POINT_DISC] += 3 * ARRIVED_MIN / 3             # summed over the channels
    changed = replace(fl, x_points=xp)

    class AsTheReference:                                          # sure the board is the reference's
        def judge(self, squares, points):
            sp = np.zeros((36, 3))
            sp[:, 0] = rs == 0
            sp[:, 1] = (rs == 1) & (cal.reference.square_colour == 1)
            sp[:, 2] = (rs == 1) & (cal.reference.square_colour != 1)
            return sp, np.stack([rp == 0, rp == 1], axis=1).astype(float)

    def own(cutter, fl_, ss, ps, todo_s, todo_p, temperature=1.0, square_dist=None):
        return np.zeros((len(todo_s), 2)), np.array([[-3.0 if p == q else 0.0, 0.0] for p in todo_p]).reshape(-1, 2)

    def fine(cutter, image, fl_, ps, todo_p, temperature=1.0):
        return np.array([[-3.0 if p == q else 0.0, 0.0] for p in todo_p]).reshape(-1, 2)

    monkeypatch.setattr(reader_module, "shared_verdict", lambda: AsTheReference())
    monkeypatch.setattr(reader_module, "own_frame_look", own)
    monkeypatch.setattr(reader_module, "fine_look", fine)
    return reader, fl, changed, q


@pytest.mark.parametrize("verdict_asks", [True, False])
def test_a_point_the_leaving_check_flags_stays_doubtful_whatever_the_verdict_says(start, cal, monkeypatch,
                                                                                  verdict_asks):
    """vision/anyset/reader.py: LEFT_VETO, LEFT_ASK. Under the verdict the leaving check's flag (a
    battery still read where the middle changed as a leaving battery's, the frame's own looks leaning
    empty) is evidence, and a sure verdict overrode it on a fresh block (an empty point beside a robot
    of the batteries' colour read a battery at 0.987): the flagged point stays doubtful, named; without
    the veto the verdict's word stands. Where the first look was too sure for the verdict's looks to be
    taken (``verdict_asks`` False), the check asks them itself, the verdict's features untouched."""
    from vision.anyset import reader as reader_module
    from vision.geometry import point_name

    reader, fl, changed, q = _a_battery_that_seems_to_leave(start, cal, monkeypatch)
    # every field asked by the verdict's looks, or none: the looks above answer
    monkeypatch.setattr(reader_module, "SURE_LOOK", np.inf if verdict_asks else 0.0)
    assert reader._reading(fl, 1.0, start.image).readable        # unchanged: no flag, the verdict's word
    reading = reader._reading(changed, 1.0, start.image)
    ev = reader.last_evidence
    assert ev.left[q] and ev.left.sum() == 1
    assert ev.points[q, list(reader_module.POINT_FEATURES).index("p_asked")] == verdict_asks
    if not verdict_asks:                                          # the check asked; it needs to
        monkeypatch.setattr(reader_module, "LEFT_ASK", False)
        assert reader._reading(changed, 1.0, start.image).readable and not reader.last_evidence.left.any()
        monkeypatch.setattr(reader_module, "LEFT_ASK", True)
    assert not reading.readable and reading.low_confidence_points == (q,), reading.reason
    assert reading.doubts[point_name(q)].startswith("read as a battery, but its middle changed as a battery leaving")
    monkeypatch.setattr(reader_module, "LEFT_VETO", False)
    reading = reader._reading(changed, 1.0, start.image)
    assert reading.readable and reading.point_probs[q, 1] == 1.0


def test_the_leaving_check_leaves_a_battery_turned_back_to_a_side_it_showed_before(start, cal, monkeypatch):
    """vision/anyset/reader.py: LEFT_REMEMBERED. A battery turned back to the side it showed a board
    before changes its middle against the reference as a leaving battery does: where the memory keeps a
    look of the point holding a battery whose middle is as the point's now, the leaving check's flag is
    no veto; a remembered look of the point empty, or a battery look unlike the point's now, leaves the
    veto standing."""
    from vision.anyset import reader as reader_module
    from vision.anyset.fieldnet import REF_EMPTY, REF_OCCUPIED
    from vision.anyset.reader import _SEEN_POINT_DISC, ARRIVED_MIN

    reader, fl, changed, q = _a_battery_that_seems_to_leave(start, cal, monkeypatch)
    now = changed.x_points[q]                           # the point's look now
    monkeypatch.setattr(reader_module, "SURE_LOOK", np.inf)
    assert not reader._reading(changed, 1.0, start.image).readable     # flagged and vetoed: nothing known
    assert reader.last_evidence.left[q]
    _, mp = reader._memory_here(create=True)

    def remembered(look_, state):
        mp.looks[1, q], mp.state[1, q] = look_, state

    remembered(now, REF_EMPTY)                          # the point looked so empty: the veto stands
    assert not reader._reading(changed, 1.0, start.image).readable
    unlike = now.copy()
    unlike[:, _SEEN_POINT_DISC] += 3 * ARRIVED_MIN      # a battery look unlike the point's now
    remembered(unlike, REF_OCCUPIED)
    assert not reader._reading(changed, 1.0, start.image).readable
    remembered(now, REF_OCCUPIED)                       # a battery looked so a board before: turned back
    reading = reader._reading(changed, 1.0, start.image)
    assert reader.last_evidence.left[q]                 # the flag is evidence still; no veto
    assert reading.readable and reading.point_probs[q, 1] == 1.0
    monkeypatch.setattr(reader_module, "LEFT_REMEMBERED", False)
    assert not reader._reading(changed, 1.0, start.image).readable


def _two_looks_board(alternating: bool, seed: int = 0) -> np.ndarray:
    """(36, 24, 24, 3) uint8 square patches of a board whose squares are one look or, alternating, two
    (as a chessboard's), with the camera's noise."""
    rng = np.random.default_rng(seed)
    looks = np.array([[180, 150, 120], [70, 90, 60]], np.float32)
    out = np.empty((36, 24, 24, 3), np.float32)
    for i in range(36):
        file, rank = i % 6, i // 6
        out[i] = looks[(file + rank) % 2 if alternating else 0]
    out += rng.normal(0, 4, out.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def test_a_board_whose_squares_alternate_is_told_from_its_empty_squares_and_examples_keep_to_their_parity(
        monkeypatch):
    """vision/anyset/fields.py: board_alternates, square_distances (PARITY): where a known board's empty
    squares differ from their orthogonal neighbours far more than from their diagonal ones (a
    chessboard's two colours), each square's example is the nearest square of its own parity; a plain
    board, or too few empty squares to tell, keeps the nearest square."""
    from dataclasses import replace as dc_replace

    from vision.anyset import fields
    from vision.anyset.fieldnet import REF_EMPTY, REF_OCCUPIED, example_fields

    start_states = np.array([REF_OCCUPIED if i < 6 or i >= 30 else REF_EMPTY for i in range(36)])
    assert fields.board_alternates(_two_looks_board(True), start_states)
    assert not fields.board_alternates(_two_looks_board(False), start_states)
    few = np.full(36, REF_OCCUPIED)
    few[[14, 15, 20]] = REF_EMPTY                          # two orthogonal pairs, no diagonal ones to compare
    assert not fields.board_alternates(_two_looks_board(True), few)

    from vision.anyset.reference import Reference

    def reference(alternating: bool) -> Reference:
        squares = _two_looks_board(alternating)
        points = np.zeros((49, 24, 24, 3), np.uint8)
        return Reference(squares, points, points, start_states, np.zeros(49, int), np.zeros((36, 3), np.float32),
                         np.zeros((49, 3), np.float32))

    monkeypatch.setattr(fields, "PARITY", True)             # off by default (fields.py)
    monkeypatch.setattr(fields, "_DIST_CACHE", [])
    checkered, plain = reference(True), reference(False)
    # b1 (square 1) had a robot: its nearest empty square is b2 (the other colour), its nearest of its own a2 / c2
    ex_checkered = example_fields(start_states[None], np.array([1]), fields.square_distances(checkered))[0, 0]
    ex_plain = example_fields(start_states[None], np.array([1]), fields.square_distances(plain))[0, 0]
    assert ex_plain == 7 and ex_checkered in (6, 8)
    assert fields.square_distances(dc_replace(checkered)) is fields.square_distances(checkered)   # the same set
    assert fields.square_distances(None) is fields._SQUARE_DIST
    monkeypatch.setattr(fields, "PARITY", False)
    assert fields.square_distances(reference(True)) is fields._SQUARE_DIST


def test_a_checkered_board_is_read_where_the_squares_see_examples_of_their_own_colour(monkeypatch, first_stage):
    """vision/anyset/fields.py: PARITY: single frame 1 of design 13,300,398 camera 1 (a checkered board,
    a block looked at on 3 December): shown the nearest empty square, always of the other colour, the
    squares net leaves three squares unsure; shown a square of their own colour, the frame is read,
    every field right. (Until stage 14's nets, 6 December, the case was design 13,300,031 camera 0,
    which those nets read without it.)"""
    from vision.anyset import fields

    calibration, board, shot = _benchmark_first_frame(13_300_398, 1)
    assert fields.board_alternates(calibration.reference.squares, calibration.reference.square_state)
    monkeypatch.setattr(fields, "PARITY", False)
    monkeypatch.setattr(fields, "_CACHE", [])
    without = BoardReader(calibration, adapt=False).read(shot.image)
    assert not without.readable and len(without.low_confidence_squares) >= 1, without.reason
    monkeypatch.setattr(fields, "PARITY", True)
    monkeypatch.setattr(fields, "_CACHE", [])
    monkeypatch.setattr(fields, "_DIST_CACHE", [])
    reading = BoardReader(calibration, adapt=False).read(shot.image)
    assert reading.readable, reading.reason
    assert wrong_fields(reading, board) == ([], [])




def test_a_square_looks_as_before_though_the_next_squares_robot_reaches_its_edge(start, cal):
    """vision/anyset/reader.py: SAME_SQUARE_RADIUS: the "looks as before" test of a square is its middle
    (0.3 of a square, 0.47 with the 5x5 average): a robot that came onto the next square, whose edge
    reaches 0.54 of a square from this one's middle, leaves it looking as before; a change in its middle
    does not."""
    from vision.anyset.fields import look
    from vision.anyset.patches import PATCH, SQUARE_SPAN
    from vision.anyset.reader import SAME_BLUR, SAME_SQUARE_RADIUS

    reader = BoardReader(cal, adapt=False)
    fl = look(reader._cutter, start.image, cal.reference)
    s = 0                                                   # a1: a start robot
    assert reader._same_as_reference(fl)[0][s]
    c = ((np.arange(PATCH) + 0.5) / PATCH - 0.5) * SQUARE_SPAN
    edge = int(np.flatnonzero(c > 0.5)[0])                  # the column 0.54 of a square to the right
    assert c[edge] - (SAME_BLUR // 2) * SQUARE_SPAN / PATCH > SAME_SQUARE_RADIUS
    beside = fl.x_squares.copy()
    beside[s][:, :, edge] += 3.0
    assert reader._same_as_reference(replace(fl, x_squares=beside))[0][s]
    middle = fl.x_squares.copy()
    middle[s][:, PATCH // 2 - 1:PATCH // 2 + 1, PATCH // 2 - 1:PATCH // 2 + 1] += 3.0
    assert not reader._same_as_reference(replace(fl, x_squares=middle))[0][s]


def test_a_point_read_empty_that_looks_unlike_its_known_empty_look_is_doubtful(cal, monkeypatch, first_stage):
    """vision/anyset/reader.py: UNLIKE_EMPTY: a point the reference showed holding a battery, read empty
    by nets that do not see the battery's other side, is doubtful where its look is unlike the point's
    empty look the memory keeps (a battery turned over: design 13,300,019 camera 0 read one empty at
    0.999); where the battery really left, the point looks as it did empty and is read empty, sure."""
    from vision.anyset import reader as reader_module
    from vision.anyset.fields import look
    from vision.anyset.reader import _CORNERS
    from vision.geometry import point_name
    from vision.layout import BoardLayout

    rs, rp = np.asarray(cal.reference.square_state), np.asarray(cal.reference.point_state)
    quiet = [p for p in np.flatnonzero(rp == 0) if (rs[_CORNERS[:, p]] == 0).all()]
    q = int(quiet[len(quiet) // 2])
    batteries = [i for i in range(49) if START.points[i].value == "battery"] + [q]
    with_battery = BoardLayout.from_sets(white=range(6), black=range(30, 36), batteries=batteries)
    reader = BoardReader(cal, adapt=False)
    told = render(with_battery, SEED, design=DESIGN, markers=False, frame=2, printed=[True] * 49).image
    assert reader.learn_bare(told, with_battery) == 85       # the start's looks, q empty, join the memory
    turned = render(with_battery, SEED, design=DESIGN, markers=False, frame=3,
                    printed=[i != q for i in range(49)]).image
    gone = render(START, SEED, design=DESIGN, markers=False, frame=3, printed=[True] * 49).image

    def blind_at_q(image):
        fl = look(reader._cutter, image, reader.calibration.reference)
        points = fl.points.copy()
        points[q] = [1.0, 0.0, 0.0]                           # the nets: empty, sure
        return replace(fl, points=points)

    reading = reader._reading(blind_at_q(turned), 1.0)
    assert not reading.readable and q in reading.low_confidence_points, reading.reason
    assert reading.doubts[point_name(q)].startswith("read empty, but it looks unlike this point empty")
    reading = reader._reading(blind_at_q(gone), 1.0)
    assert q not in reading.low_confidence_points and reading.point_probs[q, 0] > 0.98
    monkeypatch.setattr(reader_module, "UNLIKE_EMPTY", False)
    assert q not in reader._reading(blind_at_q(turned), 1.0).low_confidence_points


def test_a_small_covered_share_apart_from_any_covered_field_does_not_make_a_sure_field_doubtful(cal, monkeypatch, first_stage):
    """vision/anyset/reader.py: STRAY_COVER: nets that hedge on a look they were not trained on (the
    blank side of a foreign set's batteries: covered 4-41% on every look, the field sure seen) leave
    the field read as seen where no covered field touches it; beside a covered field (a hand's edge)
    the share still counts, and so it does where the nets are not very sure of the field seen."""
    from vision.anyset import reader as reader_module
    from vision.anyset.fields import look
    from vision.anyset.reader import _stray_cover_dropped
    from vision.geometry import field_neighbours

    for name in ("OWN_FRAME", "SET_HEAD", "FINE", "AGREE", "VACATED"):
        monkeypatch.setattr(reader_module, name, False)      # the first look alone
    reader = BoardReader(cal, adapt=False)
    q = next(i for i in range(49) if START.points[i].value == "battery")
    fl = look(reader._cutter, render(START, SEED, design=DESIGN, markers=False, frame=2).image,
              reader.calibration.reference)

    def hedged(square_covered: float = 0.0, sure: float = 1e-4):
        points, squares = fl.points.copy(), fl.squares.copy()
        points[q] = [sure * 0.85, (1 - sure) * 0.85, 0.15]   # a battery, sure seen; 15% covered
        s = int(np.flatnonzero(field_neighbours()[36 + q, :36])[0])
        squares[s] = squares[s] * (1 - square_covered) / squares[s].sum() + [0, 0, square_covered]
        return replace(fl, points=points, squares=squares)

    reading = reader._reading(hedged(), 1.0)
    assert q not in reading.low_confidence_points and reading.point_probs[q, 1] > 0.999
    assert q in reader._reading(hedged(square_covered=0.6), 1.0).low_confidence_points   # beside a covered field
    assert q in reader._reading(hedged(sure=0.01), 1.0).low_confidence_points            # not very sure seen
    monkeypatch.setattr(reader_module, "STRAY_COVER", False)
    assert q in reader._reading(hedged(), 1.0).low_confidence_points

    # the rule itself: a field covered (or more likely covered than seen) keeps its share
    ze, zq = np.full(36, 9.0), np.full(49, -9.0)
    pc, qc = np.zeros(36), np.full(49, 0.2)
    qc[0] = 0.7
    _, out = _stray_cover_dropped(ze, zq, pc, qc)
    near = field_neighbours()[36, 36:]
    assert out[0] == 0.7 and (out[near] == 0.2).all() and (out[~near & (np.arange(49) > 0)] == 0).all()


def test_a_board_coloured_near_a_robot_does_not_keep_a_point_beside_a_robot_doubtful(cal):
    """vision/anyset/reader.py: BOARD_NEARER: a pixel within FAR_COLOUR of a robot colour counts as a
    robot's only where it lies nearer that colour than the board's own (the squares read empty), once
    the board's colour is told apart from both robots' (MIN_SEPARATION): a grey cone on a beige card
    (vision-dev) no longer hides every point beside it. A pixel of the robot's colour still counts, and
    so does every such pixel where the board's colour cannot be told from a robot's."""
    from vision.anyset.colours import MIN_SEPARATION
    from vision.anyset.reader import FAR_COLOUR, _board_colour

    reader = BoardReader(cal, adapt=False)
    m = cal.colours
    white, black = np.array(m.white), np.array(m.black)
    away = (white - black) / np.linalg.norm(white - black)
    board = white + away * 3.0 / np.sqrt(away @ m._cov_inv() @ away)      # 3 apart: told apart, yet ...
    assert m.separation_of(board) >= MIN_SEPARATION
    assert m.fit_distance(board[None])[0] <= FAR_COLOUR                   # ... within FAR_COLOUR of White

    P = 24
    x_points = np.broadcast_to(board.astype(np.float32)[None, :, None, None], (49, 3, P, P)).copy()
    rows = np.zeros(49, bool)
    rows[[8, 9]] = True
    x_points[9, :, P // 2 - 2:P // 2 + 2, P // 2 - 2:P // 2 + 2] = white[:, None, None]   # a robot's body at 9
    x_squares = np.broadcast_to(board.astype(np.float32)[None, :, None, None], (36, 3, P, P))
    found = _board_colour(x_squares, np.ones(36, bool))
    assert np.allclose(found, board, atol=1e-5)
    assert not reader._clear_of_robots(x_points, rows)[[8, 9]].any()            # without the board's colour
    clear = reader._clear_of_robots(x_points, rows, board=found)
    assert clear[8] and not clear[9]
    near = white + away * 0.5 * MIN_SEPARATION / np.sqrt(away @ m._cov_inv() @ away)   # not told apart
    assert not reader._clear_of_robots(x_points, rows, board=near)[8]


def _plain_points(cal, size: int = 24):
    """A reader of ``cal``, its two robot colours and 49 point patches ((49, 3, size, size) normalised
    log colour) of a plain board far from both colours, for the hidden check's pixel tests."""
    reader = BoardReader(cal, adapt=False)
    m = cal.colours
    white, black = np.array(m.white), np.array(m.black)
    board = white + 3.0 * (white - black)                     # far from both robots' colours
    x_points = np.broadcast_to(board.astype(np.float32)[None, :, None, None], (49, 3, size, size)).copy()
    return reader, white, black, x_points


def test_a_print_of_a_robots_colour_does_not_keep_a_point_beside_a_robot_doubtful(cal):
    """vision/anyset/reader.py: EMPTY_NEARER: the print at a point (a ring, the lines) may have a
    robot's colour; a pixel that lies nearer the same place (or a pixel beside it) of another point
    showing how a point looks empty here (_empty_looks: read empty, shown empty in the reference, no
    robot at its corners, on the board's edge as the point is) than the robot's colour is not a
    robot's. A robot's body where the empty look shows the board still counts."""
    from vision.anyset.reader import _CORNERS, _empty_looks

    reader, white, black, x_points = _plain_points(cal)
    x_points[:, :, 4:20, 10:14] = white[None, :, None, None]  # the print: a band of White's colour at every point
    body = x_points[17].copy()
    body[:, 4:12, 8:16] = black[:, None, None]                # 17: a robot's body beside the line as well
    x_points[17] = body
    robot = np.zeros(36, bool)
    robot[[8, 9]] = True                                      # robots on b2 and c2 (corners of 8-10, 15-17)
    empty = np.ones(49, bool)
    rows = np.zeros(49, bool)
    rows[[16, 17]] = True
    looks = _empty_looks(x_points, robot, empty, rows)
    assert looks[16] >= 0 and looks[17] >= 0
    for i in (16, 17):
        j = looks[i]
        assert not (_CORNERS[:, j] & robot).any() and _CORNERS[:, j].sum() == _CORNERS[:, i].sum() and j != i
    assert (looks[~rows] == -1).all()
    assert not reader._clear_of_robots(x_points, rows, cover=True)[[16, 17]].any()     # the line: "a robot"
    clear = reader._clear_of_robots(x_points, rows, cover=True, empty_look=looks)
    assert clear[16] and not clear[17]
    # a line a pixel off (another point's lean) is still the print
    x_points[16] = np.roll(x_points[16], 1, axis=2)
    assert reader._clear_of_robots(x_points, rows, cover=True, empty_look=looks)[16]
    # no point shows the empty look (every other point read a battery): the rule as before
    none = _empty_looks(x_points, robot, np.eye(49, dtype=bool)[16] | np.eye(49, dtype=bool)[17], rows)
    assert (none == -1).all()
    assert not reader._clear_of_robots(x_points, rows, cover=True, empty_look=none)[16]


def test_a_point_is_hidden_only_where_robot_pixels_could_cover_half_a_battery_in_reach(cal):
    """vision/anyset/reader.py: HIDE_COVER: the nets see a battery half in view, so a robot hides a
    point only where its pixels could cover HIDE_COVER_SHARE of a battery standing within the reach
    (the smallest battery, HIDE_BATTERY_RADIUS). A few robot-coloured pixels at the reach's rim (the
    next robot's edge) leave the point clear; a patch of them inside the reach, or the robot's edge
    reaching well into it, does not."""
    from vision.anyset.patches import POINT_SPAN
    from vision.anyset.reader import HIDE_CLEAR_RADIUS

    reader, white, black, x_points = _plain_points(cal)
    P = x_points.shape[-1]
    c = ((np.arange(P) + 0.5) / P - 0.5) * POINT_SPAN
    r = np.hypot(c[None, :], c[:, None])
    rim = np.broadcast_to(c[None, :] > HIDE_CLEAR_RADIUS - 0.05, (P, P))
    x_points[3][:, rim] = white[:, None]                      # 3: the next robot's edge, just into the reach
    edge = (r <= HIDE_CLEAR_RADIUS) & (c[None, :] > 0.12)
    x_points[4][:, edge] = white[:, None]                     # 4: the robot reaches well into the reach
    x_points[5, :, 10:14, 10:14] = black[:, None, None]       # 5: a patch of its colour in the middle
    rows = np.zeros(49, bool)
    rows[[2, 3, 4, 5]] = True
    assert 2 <= (rim & (r <= HIDE_CLEAR_RADIUS)).sum() <= 20
    before = reader._clear_of_robots(x_points, rows)
    assert before[2] and not before[[3, 4, 5]].any()          # any robot pixel: hidden (the rule before)
    clear = reader._clear_of_robots(x_points, rows, cover=True)
    assert clear[2] and clear[3] and not clear[4] and not clear[5]


def test_a_battery_read_beside_a_robot_that_leaves_the_points_middle_in_view_is_not_held_back(cal):
    """vision/anyset/reader.py: HIDE_REACH_SEEN: a point read as a battery as close to a robot as the
    set showed robots cover a point's middle stays doubtful only where the robot's pixels could cover
    HIDE_COVER_SHARE of the smallest battery standing on the point itself; the rest of the reach (a
    battery set down off its point) does not count: a battery read there is seen. cover_shares gives
    both shares; the cover test for points read empty is the reach's share, as before."""
    from types import SimpleNamespace

    from vision.anyset.patches import POINT_SPAN
    from vision.anyset.reader import HIDE_CLEAR_RADIUS, HIDE_COVER_SHARE, cover_shares

    reader, white, black, x_points = _plain_points(cal)
    P = x_points.shape[-1]
    c = ((np.arange(P) + 0.5) / P - 0.5) * POINT_SPAN
    r = np.hypot(c[None, :], c[:, None])
    x_points[4][:, (r <= HIDE_CLEAR_RADIUS) & (c[None, :] > 0.12)] = white[:, None]   # 4: the robot in the reach
    x_points[5, :, 10:14, 10:14] = black[:, None, None]                               # 5: on the point itself
    x_points[6] = x_points[5]                                                         # 6: as 5, not asked
    rows = np.zeros(49, bool)
    rows[[2, 4, 5]] = True
    shares = cover_shares(reader.calibration.colours, x_points, rows)
    assert (shares[~rows] == 0).all() and (shares[2] == 0).all()
    assert shares[4, 0] == pytest.approx(1.0) and shares[4, 1] == 0.0
    assert shares[5, 1] > HIDE_COVER_SHARE and shares[5, 0] >= shares[5, 1]
    clear = reader._clear_of_robots(x_points, rows, cover=True)
    assert (clear[rows] == (shares[rows, 0] < HIDE_COVER_SHARE)).all()
    in_view = reader._middle_in_view(SimpleNamespace(x_points=x_points), rows, None)
    assert in_view[2] and in_view[4] and not in_view[5] and not in_view[6]


def test_a_board_whose_print_differs_in_hue_only_is_not_taken_for_moved_and_a_moved_one_is():
    """vision/anyset/reader.py: _structure: the fields' structure that tells whether the board is where
    calibration put it is their colour pattern. Design 19,100,013 (blue rings and lines on a dark green
    board, close to it in brightness) under camera 0, a board set up anew: by brightness alone its fields
    matched the start frame's too little (the board "moved"); by colour the frame is read as in place,
    and the same frame shifted by a quarter of a square is still refused as moved."""
    from vision.anyset import reader as reader_module

    design, seed = 19_100_013, 19_100_013 * 16
    start = render(START, seed, design=design, markers=False, printed=[True] * 49)
    cal = calibrate(start.image, START, white_side=white_side_of(start.homography))
    board = random_layout(np.random.default_rng(5))
    image = render(board, seed, design=design, markers=False, frame=4, placement=4).image
    reader = BoardReader(cal, adapt=False)
    reading = reader.read(image)
    assert reading.alignment >= reader_module.MIN_ALIGNMENT
    assert "not where the calibration expects it" not in (reading.reason or "")

    def brightness(patches):                      # the structure before: the channels' sum
        g = patches.reshape(len(patches), -1, 3).astype(np.float32).sum(axis=2)
        g -= g.mean(axis=1, keepdims=True)
        return g / np.sqrt((g * g).sum(axis=1, keepdims=True) + 1e-6)

    ref = cal.reference
    now = reader._looked_at(image)
    ncc = (brightness(np.concatenate([now.square_patches, now.coarse_point_patches]))
           * brightness(np.concatenate([ref.squares, ref.coarse_points]))).sum(axis=1)
    assert np.quantile(ncc, reader_module.ALIGN_QUANTILE) < reader_module.MIN_ALIGNMENT   # by brightness: "moved"

    a, b = cv2.perspectiveTransform(np.array([[[3.0, 3.0], [3.25, 3.0]]]), cal.H)[0]
    shifted = cv2.warpAffine(image, np.float32([[1, 0, b[0] - a[0]], [0, 1, b[1] - a[1]]]),
                             (image.shape[1], image.shape[0]), borderMode=cv2.BORDER_REPLICATE)
    moved = BoardReader(cal, adapt=False).read(shifted)
    assert not moved.readable and "not where the calibration expects it" in moved.reason
