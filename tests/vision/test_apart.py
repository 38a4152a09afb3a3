"""The points' unlikeness to each other, square to the board (vision.anyset.apart)."""

import numpy as np
import pytest

from vision.anyset import apart
from vision.anyset.patches import FINE_POINT_PATCH, PatchCutter, aligned_offsets

P = FINE_POINT_PATCH
TURNS = apart.quarter_turns(aligned_offsets())
UNLIKENESS = apart.Unlikeness(aligned_offsets(), 0.3)


def _printed_board(rng: np.random.Generator, noise: float = 2.0) -> np.ndarray:
    """(49, P, P, 3) uint8 patches square to the board of a printed set: a line along each of the
    board's axes through every point (only where the field goes on), a printed ring at every point,
    camera noise; no piece."""
    u, v = aligned_offsets()
    out = np.empty((49, P, P, 3), np.float64)
    for i in range(49):
        x, y = i % 7 + u, i // 7 + v
        on = (x >= 0) & (x <= 6) & (y >= 0) & (y <= 6)
        img = np.full((P, P, 3), (200.0, 180.0, 150.0))
        line = on & ((np.abs(u) < 0.03) | (np.abs(v) < 0.03))
        ring = np.abs(np.hypot(u, v) - 0.15) < 0.03
        img[line] = (40, 40, 40)
        img[ring] = (30, 90, 160)
        img[~on] = (90, 70, 50)
        out[i] = img + rng.normal(0, noise, img.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def _battery(patches: np.ndarray, i: int, at: tuple[float, float], radius: float, colour) -> None:
    u, v = aligned_offsets()
    patches[i][np.hypot(u - at[0], v - at[1]) <= radius] = colour


def test_quarter_turns_bring_the_fields_edge_to_one_side():
    u, v = aligned_offsets()
    outside = [apart._outside((u, v), i) for i in range(49)]
    for kind in (1, 2):
        members = np.flatnonzero(apart.KINDS == kind)
        first = outside[members[0]]
        for i in members:
            assert np.array_equal(np.rot90(outside[i], TURNS[i]), first), i
    assert (TURNS[apart.KINDS == 0] == 0).all() and not outside[24].any()
    assert list(np.bincount(apart.KINDS)) == [25, 20, 4]


def test_a_battery_stands_out_and_empty_points_do_not():
    rng = np.random.default_rng(3)
    patches = _printed_board(rng)
    batteries = {8: ((0.0, 0.0), 0.12, (30, 90, 160)),        # the print's own colour, on its point
                 17: ((0.2, -0.1), 0.06, (60, 60, 60)),       # small, dark, set down off its point
                 0: ((0.1, 0.1), 0.1, (220, 40, 40)),         # in a corner
                 45: ((-0.15, 0.0), 0.08, (240, 240, 240))}   # on an edge
    for i, (at, r, colour) in batteries.items():
        _battery(patches, i, at, r, colour)
    out = UNLIKENESS(patches)
    assert out.shape == (49, 2) and np.isfinite(out).all()
    empty = np.setdiff1d(np.arange(49), list(batteries))
    assert out[empty, 0].max() < 2.0
    assert out[list(batteries), 0].min() > 3.0
    assert np.median(out[:, 0]) == pytest.approx(1.0)


def test_light_across_the_board_does_not_make_points_unlike():
    rng = np.random.default_rng(4)
    patches = _printed_board(rng).astype(np.float64)
    gain = np.linspace(0.6, 1.3, 49)                        # brighter towards one end of the board
    patches = np.clip(patches * gain[:, None, None, None], 0, 255).astype(np.uint8)
    out = UNLIKENESS(patches)
    assert out[:, 0].max() < 2.0


def test_a_flat_frame_gives_no_value():
    out = UNLIKENESS(np.full((49, P, P, 3), 128, np.uint8))
    assert np.isnan(out).all()


def test_aligned_patches_keep_the_boards_axes():
    """Whichever way the camera is turned, a mark at +y of a point lies at +y in its aligned patch."""
    import cv2

    u, v = aligned_offsets()
    for H in (np.array([[60.0, 0.0, 100.0], [0.0, 60.0, 80.0], [0.0, 0.0, 1.0]]),      # board x to the right
              np.array([[0.0, -60.0, 500.0], [60.0, 0.0, 80.0], [0.0, 0.0, 1.0]])):    # a quarter turn
        img = np.zeros((600, 640, 3), np.uint8)
        at = cv2.perspectiveTransform(np.array([[[3.0, 2.2]]]), H)[0, 0]             # 0.2 above point (3, 2)
        cv2.circle(img, (int(round(at[0])), int(round(at[1]))), 4, (255, 255, 255), -1)
        patches = PatchCutter(H, (640, 600)).aligned_points(img)
        assert patches.shape == (49, P, P, 3)
        bright = tuple(np.argwhere(patches[17].max(axis=2) > 128).T)
        assert len(bright[0])
        assert np.all(np.abs(v[bright] - 0.2) < 0.1) and np.all(np.abs(u[bright]) < 0.1)


def test_the_reader_gives_the_verdict_each_points_unlikeness(start, cal):
    """On a rendered frame of the tests' design: every point has a value, the batteries stand out
    from the empty points that no robot stands beside, and they are the verdict's p_apart columns."""
    from vision.anyset.reader import BoardReader
    from vision.anyset.verdict import POINT_FEATURES
    from vision.render import render

    from vision_kit import ANYSET_DESIGN, ANYSET_SEED, random_layout

    layout = random_layout(np.random.default_rng(11))
    shot = render(layout, ANYSET_SEED, design=ANYSET_DESIGN, markers=False, frame=3, placement=3)
    reader = BoardReader(cal, adapt=False, judge=False)
    reader.read(shot.image)
    points = reader.last_evidence.points
    got = points[:, [POINT_FEATURES.index("p_apart"), POINT_FEATURES.index("p_apart_hi")]]
    assert np.isfinite(got).all()
    battery = np.array([v.value == "battery" for v in layout.points])
    robot = np.array([v.value != "empty" for v in layout.squares]).reshape(6, 6)
    lone = np.array([not robot[max(y - 1, 0):y + 1, max(x - 1, 0):x + 1].any()
                     for y in range(7) for x in range(7)])
    assert battery.any() and (~battery & lone).any()
    assert got[battery & lone, 0].min() > got[~battery & lone, 0].max()
    assert np.median(got[battery, 0]) > 2 * np.median(got[~battery, 0])
    # and outside the camera shadows of the robots beside it: the same where no robot stands beside a
    # point (over another median), never more than the whole reach where one does
    free = points[:, POINT_FEATURES.index("p_apart_free")]
    assert np.isfinite(free[lone]).all()
    assert np.allclose(free[lone] / got[lone, 0], free[lone][0] / got[lone, 0][0], rtol=1e-4)
    ratio = free[lone][0] / got[lone, 0][0]
    beside = ~lone & np.isfinite(free)
    assert beside.any() and (free[beside] <= got[beside, 0] * ratio * (1 + 1e-4)).all()
    assert free[battery & lone].min() > free[~battery & lone].max()
    tint = points[:, POINT_FEATURES.index("p_apart_tint")]
    assert np.isfinite(tint[lone]).all() and np.median(tint[battery]) > 2 * np.median(tint[~battery])


def _overhead_shadows(radius: float = 0.5, lean: tuple[float, float] = (0.0, 0.0)) -> apart.Shadows:
    """Camera shadows of robots whose tops the camera sees ``lean`` (board units) from their feet."""
    from vision.geometry import square_centers

    feet = square_centers()
    return UNLIKENESS.shadows(feet, feet + np.asarray(lean), radius)


def _unturned_mask(shadows: apart.Shadows, point: int, square: int) -> np.ndarray:
    """(P, P) the mask of ``square``'s robot over ``point``'s patch, as the patch is cut."""
    j = int(np.flatnonzero(UNLIKENESS.order == point)[0])
    c = int(np.flatnonzero(shadows.squares[j] == square)[0])
    flat = np.zeros(P * P, bool)
    flat[UNLIKENESS.turned[j]] = shadows.masks[j, c]
    return flat.reshape(P, P)


def test_a_robots_camera_shadow_covers_the_patch_where_geometry_says():
    """Point D4 (3, 3) is a corner of the square whose centre is (3.5, 3.5): seen straight from above
    (no lean), the robot there covers the pixels within the radius of that centre; leaning away from
    the point, less of the patch; leaning towards it, more. Every point has the 1 to 4 squares it is a
    corner of, and none other."""
    from vision.geometry import square_centers

    u, v = aligned_offsets()
    sq = square_centers()
    s = int(np.flatnonzero(np.all(np.isclose(sq, (3.5, 3.5)), axis=1))[0])
    flat = _unturned_mask(_overhead_shadows(0.5), 24, s)
    assert np.array_equal(flat, np.hypot(u - 0.5, v - 0.5) < 0.5)
    away = _unturned_mask(_overhead_shadows(0.5, (0.3, 0.3)), 24, s)
    toward = _unturned_mask(_overhead_shadows(0.5, (-0.3, -0.3)), 24, s)
    assert away.sum() == flat.sum() and toward.sum() > 2 * flat.sum()     # the capsule grows from the foot
    assert np.array_equal(flat & toward, flat)
    counts = (_overhead_shadows().squares >= 0).sum(axis=1)
    assert list(np.bincount(counts, minlength=5)) == [0, 4, 20, 0, 25]   # corners, edges, inside
    # a corner point (0, 0) of the board is a corner of one square only
    j = int(np.flatnonzero(UNLIKENESS.order == 0)[0])
    assert counts[j] == 1 and np.allclose(sq[_overhead_shadows().squares[j, 0]], (0.5, 0.5))


def test_a_robot_leaning_into_a_point_does_not_set_it_apart_where_it_is_read():
    """A blob of a robot's body in the corner of D4's patch towards the square it stands on sets D4
    apart over the whole reach; left out with that robot's camera shadow, D4 is as the others. A
    battery on its point beside robots on all four squares still stands apart."""
    from vision.geometry import square_centers

    rng = np.random.default_rng(5)
    patches = _printed_board(rng)
    sq = square_centers()
    s = int(np.flatnonzero(np.all(np.isclose(sq, (3.5, 3.5)), axis=1))[0])
    _battery(patches, 24, (0.24, 0.24), 0.07, (200, 30, 30))             # the robot's edge, leaning in
    _battery(patches, 10, (0.0, 0.02), 0.1, (40, 160, 60))               # a battery on point D2 (3, 1)
    shadows = _overhead_shadows(0.5)
    measured = UNLIKENESS.measure(patches)
    assert np.allclose(measured.stats, UNLIKENESS(patches), equal_nan=True)
    assert measured.stats[24, 0] > 3.0
    no_robot = UNLIKENESS.free(measured, shadows, np.zeros(36, bool))
    assert no_robot.shape == (49, 2)
    assert no_robot[24, 0] > 3.0 and np.allclose(no_robot[:, 0], measured.stats[:, 0], rtol=1e-5)
    robots = np.zeros(36, bool)
    robots[s] = True
    beside_battery = np.abs(sq - (3.0, 1.0)).max(axis=1) <= 0.5
    robots |= beside_battery                                             # four robots round the battery
    free = UNLIKENESS.free(measured, shadows, robots)
    assert (free[24] < 2.0).all()
    assert (free[10] > 3.0).all()
    empty = np.setdiff1d(np.arange(49), [10])
    assert free[empty].max() < 2.0


def test_a_point_its_robots_cover_wholly_has_no_free_value():
    rng = np.random.default_rng(6)
    measured = UNLIKENESS.measure(_printed_board(rng))
    robots = np.zeros(36, bool)
    robots[0] = True                                                     # the square of corner A1
    free = UNLIKENESS.free(measured, _overhead_shadows(radius=2.0), robots)
    covered = [0, 1, 7, 8]                                               # its four corners
    assert np.isnan(free[covered]).all()
    assert np.isfinite(np.delete(free, covered, axis=0)).all()


def test_a_shade_on_the_board_sets_a_point_apart_but_not_its_tint():
    """A lamp's shadow falling over point D4 darkens the board alike in every channel: D4 stands apart
    in its colour, not in its tint. A battery of another colour than the board's stands apart in both;
    one of the board's own colour, darker, only in its colour (the verdict weighs the two)."""
    rng = np.random.default_rng(7)
    patches = _printed_board(rng).astype(np.float64)
    u, v = aligned_offsets()
    shade = np.hypot(u - 0.1, v - 0.15) < 0.25
    patches[24][shade] *= 0.55                                           # a shade, as a lamp casts it
    patches = np.clip(patches, 0, 255).astype(np.uint8)
    _battery(patches, 10, (0.0, 0.0), 0.1, (40, 160, 60))                # a green battery on D2
    _battery(patches, 38, (0.0, 0.0), 0.1, (100, 90, 75))                # a battery of the board's colour, darker
    free = UNLIKENESS.free(UNLIKENESS.measure(patches), _overhead_shadows(), np.zeros(36, bool))
    colour, tint = free[:, 0], free[:, 1]
    assert colour[24] > 3.0 and tint[24] < 2.0
    assert colour[10] > 3.0 and tint[10] > 3.0
    assert colour[38] > 3.0 and tint[38] < colour[38] / 2


def test_robots_everywhere_covering_every_point_give_no_value_and_no_warning():
    import warnings

    measured = UNLIKENESS.measure(_printed_board(np.random.default_rng(8)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        free = UNLIKENESS.free(measured, _overhead_shadows(radius=3.0), np.ones(36, bool))
    assert free.shape == (49, 2) and np.isnan(free).all()
