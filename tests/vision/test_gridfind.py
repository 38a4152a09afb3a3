"""Marker-less board localisation (vision.gridfind): the 7x7 grid found in renders without markers.

Each case renders one frame of our own renderer (no markers) and compares the
49 points found with the renderer's truth, modulo the four rotations of the
board (the caller picks the orientation from the pieces). A few hostile frames
must be refused with a clean CalibrationError.
"""

from __future__ import annotations

import inspect
from functools import lru_cache

import cv2
import numpy as np
import pytest

from vision.errors import BadImage, CalibrationError
from vision.gridfind import GridFit, find_grid, grid_points, rotations
from vision.layout import BoardLayout
from vision.render import render

from vision_kit import START

HAS_DESIGNS = "design" in inspect.signature(render).parameters
MEAN_PX, MAX_PX = 1.5, 4.0
EMPTY = BoardLayout.from_sets()
MID_GAME = BoardLayout.from_sets(white=[3, 8, 14, 27], black=[10, 21, 22, 33, 35], batteries=[0, 5, 9, 16, 17, 24, 26, 30, 31, 38, 40, 44, 46, 48])


@lru_cache(maxsize=None)
def _frame(seed: int, layout: str, tilt: float, design: int | None):
    lay = {"start": START, "empty": EMPTY, "mid": MID_GAME}[layout]
    kw = {"design": design} if design is not None else {}
    return render(lay, seed, markers=False, tilt=tilt, **kw)


def _errors(H: np.ndarray, H_true: np.ndarray) -> np.ndarray:
    truth = grid_points(H_true)
    return min((np.linalg.norm(grid_points(R) - truth, axis=1) for R in rotations(H)), key=lambda e: float(e.mean()))


def _jacobian_det(H: np.ndarray) -> float:
    p = H @ np.array([3.0, 3.0, 1.0])
    J = (H[:2, :2] * p[2] - np.outer(p[:2], H[2, :2])) / p[2] ** 2
    return float(np.linalg.det(J))


CLASSIC_CASES = [
    pytest.param(9001, "start", 0.0, id="classic-start-tilt0"),
    pytest.param(9002, "start", 25.0, id="classic-start-tilt25"),
    pytest.param(9003, "empty", 25.0, id="classic-empty-tilt25"),
]
DESIGN_CASES = [
    pytest.param(9101, "empty", 25.0, id="big-discs-wide-border-empty-tilt25"),
    pytest.param(9102, "start", 12.0, id="checkerboard-wide-border-start"),
    pytest.param(9113, "mid", 25.0, id="checkerboard-big-discs-midgame-tilt25"),
    pytest.param(9111, "mid", 0.0, id="two-frame-lines-no-fields-midgame-tilt0"),
]


@pytest.mark.parametrize("seed,layout,tilt", CLASSIC_CASES)
def test_finds_the_grid_of_the_classic_set(seed, layout, tilt):
    frame = _frame(seed, layout, tilt, None)
    fit = find_grid(frame.image)
    assert isinstance(fit, GridFit)
    e = _errors(fit.H, frame.homography)
    assert e.mean() <= MEAN_PX and e.max() <= MAX_PX, f"point error mean {e.mean():.2f} px, max {e.max():.2f} px"
    assert fit.points_px.shape == (49, 2)
    assert np.allclose(fit.points_px, grid_points(fit.H))
    assert 0.5 <= fit.score <= 1.0


@pytest.mark.skipif(not HAS_DESIGNS, reason="the renderer has no design= axis yet")
@pytest.mark.parametrize("seed,layout,tilt", DESIGN_CASES)
def test_finds_the_grid_of_random_sets(seed, layout, tilt):
    frame = _frame(seed, layout, tilt, seed)
    fit = find_grid(frame.image)
    e = _errors(fit.H, frame.homography)
    assert e.mean() <= MEAN_PX and e.max() <= MAX_PX, f"point error mean {e.mean():.2f} px, max {e.max():.2f} px"


def test_the_grid_is_never_mirrored():
    frame = _frame(9002, "start", 25.0, None)
    fit = find_grid(frame.image)
    # like the truth (a board seen from above), whichever of the four rotations came out
    assert np.sign(_jacobian_det(fit.H)) == np.sign(_jacobian_det(frame.homography))
    for R in rotations(fit.H):
        assert np.sign(_jacobian_det(R)) == np.sign(_jacobian_det(fit.H))


def test_rotations_relabel_the_same_points():
    frame = _frame(9001, "start", 0.0, None)
    H = frame.homography / frame.homography[2, 2]
    rots = rotations(H)
    assert len(rots) == 4
    assert np.allclose(rots[0], H)
    base = grid_points(H)
    for k, R in enumerate(rots):
        pts = grid_points(R)
        # the same 49 pixels, relabelled
        d = np.linalg.norm(pts[:, None, :] - base[None, :, :], axis=2).min(axis=1)
        assert d.max() < 1e-6
        if k:
            assert not np.allclose(pts, base)
    # a quarter turn moves A1 (0, 0) to where G1 (6, 0) was... and four quarter turns are none
    assert np.allclose(grid_points(rots[1])[0], base[6])
    assert np.allclose(rotations(rots[3])[1], H)


def test_a_board_cut_off_by_the_frame_is_not_fully_in_view():
    frame = _frame(9001, "start", 0.0, None)
    pts = grid_points(frame.homography)
    pitch = float(np.linalg.norm(pts[1] - pts[0]))
    dx = frame.image.shape[1] - pts[:, 0].max() + 1.5 * pitch     # the last column and a half leave the frame
    shifted = cv2.warpAffine(frame.image, np.float32([[1, 0, dx], [0, 1, 0]]), frame.image.shape[1::-1],
                             borderMode=cv2.BORDER_REPLICATE)
    with pytest.raises(CalibrationError, match="not fully in view"):
        find_grid(shifted)


def _wood(h: int = 960, w: int = 1280, seed: int = 5) -> np.ndarray:
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    warp = cv2.resize(rng.standard_normal((12, 16)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    grain = np.sin((0.8 * yy + 0.3 * xx) / 9.0 + 3.0 * warp)
    base = np.array([60, 90, 130], np.float32)
    img = base * (1 + 0.18 * grain)[..., None] + rng.normal(0, 3, (h, w, 3)).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


def _chessboard() -> np.ndarray:
    board = np.kron((np.indices((8, 8)).sum(axis=0) % 2).astype(np.float32), np.ones((100, 100), np.float32))
    board = cv2.copyMakeBorder(200 * board + 30, 60, 60, 60, 60, cv2.BORDER_CONSTANT, value=120)
    src = np.float32([[0, 0], [920, 0], [920, 920], [0, 920]])
    dst = np.float32([[300, 150], [1000, 200], [1050, 850], [250, 800]])
    M = cv2.getPerspectiveTransform(src, dst)
    img = cv2.warpPerspective(board, M, (1280, 960), borderValue=70)
    return cv2.cvtColor(img.astype(np.uint8), cv2.COLOR_GRAY2BGR)


@pytest.mark.parametrize("name,image", [
    ("a table without a board", _wood()),
    ("uniform grey", np.full((960, 1280, 3), 128, np.uint8)),
    ("sensor noise", np.random.default_rng(1).integers(0, 256, (960, 1280, 3), dtype=np.uint8)),
    ("an 8x8 chessboard", _chessboard()),
])
def test_a_frame_without_a_board_is_refused_cleanly(name, image):
    with pytest.raises(CalibrationError, match="cannot find the board's 7x7 grid"):
        find_grid(image)


@pytest.mark.parametrize("bad", [None, np.zeros((0, 0, 3), np.uint8), np.zeros((960, 1280, 3), np.float32), np.zeros((50, 60, 3), np.uint8)])
def test_what_is_not_a_frame_is_a_bad_image(bad):
    with pytest.raises(BadImage):
        find_grid(bad)


@pytest.mark.skipif(not HAS_DESIGNS, reason="the renderer has no design= axis yet")
def test_a_board_turned_45_degrees_with_a_printed_ring_at_every_point_is_found():
    """A board turned by 45 degrees, a ring printed at every point: the rings, drawn as short chords
    in every direction, cross each other more often than the board's two line families do, so the
    pair of families must be chosen by how long the crossing segments are, not how many (this frame
    found a wrong grid 183 px off when the crossings were counted)."""
    design = 10_800_001
    frame = render(START, design * 16 + 1, design=design, markers=False, printed=[True] * 49)
    fit = find_grid(frame.image)
    e = _errors(fit.H, frame.homography)
    assert e.mean() <= MEAN_PX and e.max() <= MAX_PX, f"point error mean {e.mean():.2f} px, max {e.max():.2f} px"


@pytest.mark.skipif(not HAS_DESIGNS, reason="the renderer has no design= axis yet")
def test_the_runners_up_are_offered_and_one_fitting_a_pitch_off_is_among_them():
    """Tall robots along two edges hide the outer lines, and a table's grain runs along a third: the
    grid a pitch off onto the table fits the lines as well as the board's own. ``find_grid`` cannot
    tell them apart by lines alone; it offers the runners-up (distinct grids, each passing the same
    checks) for a caller that knows what the board shows."""
    design = 9_100_047
    frame = render(START, design * 16 + 1, design=design, markers=False, printed=[True] * 49)
    fit = find_grid(frame.image)
    grids = [fit.H, *fit.alternatives]
    errors = [float(_errors(H, frame.homography).max()) for H in grids]
    assert min(errors) <= MAX_PX, errors
    for i, a in enumerate(grids):                       # no grid twice, in any orientation
        for b in grids[i + 1:]:
            assert min(np.abs(grid_points(R) - grid_points(b)).max() for R in rotations(a)) > 0.3 * fit.pitch_px


@pytest.mark.skipif(not HAS_DESIGNS, reason="the renderer has no design= axis yet")
def test_thin_lines_on_a_dark_board_are_checked_a_pyramid_level_finer():
    """Thin purple lines on a dark green board keep a fraction of their contrast on the pyramid level
    the candidates are scored on: only 43% of the unit segments showed a line there and the grid,
    found and refined right, was refused; a level finer all 84 show one."""
    design = 11_100_000
    frame = render(START, design * 16 + 1, design=design, markers=False, printed=[True] * 49)
    fit = find_grid(frame.image)
    e = _errors(fit.H, frame.homography)
    assert e.mean() <= MEAN_PX and e.max() <= MAX_PX, f"point error mean {e.mean():.2f} px, max {e.max():.2f} px"
    assert fit.score >= 0.9
