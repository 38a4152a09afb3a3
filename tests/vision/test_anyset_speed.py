"""The any-set reader's speed-ups give the same answers as the plain ways they replace: the numba
kernels as their numpy ways, a few patches cut as the same patches of a whole cut, the pixel checks run
beside the nets as one after the other."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from vision.anyset import fields, jit
from vision.anyset.patches import PatchCutter
from vision.anyset.reader import BoardReader
from vision.anyset.verdict import shared_verdict
from vision.render import render

from vision_kit import ANYSET_DESIGN, ANYSET_SEED, random_layout

# the fixtures ``start`` and ``cal`` (a development design's start frame and its calibration): conftest.py


@pytest.fixture(scope="module")
def frames():
    rng = np.random.default_rng(7)
    return [render(random_layout(rng), ANYSET_SEED, design=ANYSET_DESIGN, markers=False, frame=f + 1).image
            for f in range(3)]


def test_the_likeness_kernel_gives_the_numpy_distances():
    fn = jit.compiled("mean_abs_distances")
    if fn is None:
        pytest.skip("numba is not installed here")
    rng = np.random.default_rng(3)
    for n, m, k in ((36, 36, 132), (49, 49, 426), (1, 5, 3)):
        a = rng.normal(size=(n, k)).astype(np.float32)
        b = rng.normal(size=(m, k)).astype(np.float32)
        got = fn(a, b)
        assert got.dtype == np.float32 and got.shape == (n, m)
        np.testing.assert_allclose(got, jit.mean_abs_distances_numpy(a, b), rtol=1e-6, atol=1e-7)
        # what it is: the mean absolute difference of two rows
        assert got[0, min(1, m - 1)] == pytest.approx(float(np.abs(a[0] - b[min(1, m - 1)]).mean()), rel=1e-5)


def test_the_compiled_forest_walk_gives_the_numpy_walk_of_the_shipped_model():
    if jit.compiled("forest_walk") is None:
        pytest.skip("numba is not installed here")
    verdict = shared_verdict()
    rng = np.random.default_rng(5)
    for forest in (verdict.robot, verdict.white, verdict.battery):
        x = rng.normal(0.0, 4.0, size=(49, int(forest.feature.max()) + 1))
        # the same trees, the same leaves; numpy adds the trees' leaves up pairwise, the kernel in turn
        np.testing.assert_allclose(forest.log_odds(x), forest._log_odds_numpy(np.ascontiguousarray(x)),
                                   rtol=1e-12, atol=1e-12)


def test_a_few_patches_cut_are_those_patches_of_a_whole_cut(start, cal):
    cutter = PatchCutter(cal.H, cal.image_size)
    whole = cutter.fine_points(start.image)
    rows = np.array([0, 17, 48, 24])
    some = cutter.fine_points(start.image, rows)
    assert some.shape == whole.shape
    np.testing.assert_array_equal(some[rows], whole[rows])
    others = np.setdiff1d(np.arange(49), rows)
    assert not some[others].any()                          # the others are left zero, never cut
    sq = cutter._squares
    np.testing.assert_array_equal(sq.cut(start.image, np.array([35, 0]))[[35, 0]], cutter.squares(start.image)[[35, 0]])


def test_look_with_gives_the_look_and_what_was_computed_beside_it(start, cal, frames):
    cutter = PatchCutter(cal.H, cal.image_size)
    seen = []

    def beside(px):
        seen.append(threading.current_thread() is not threading.main_thread())
        return float(px.x_squares.sum()), px.x_points is not None

    plain = fields.look(cutter, frames[0], cal.reference)
    fl, value = fields.look_with(cutter, frames[0], cal.reference, beside)
    for name in ("squares", "points", "printed", "x_squares", "x_points", "x_background", "x_ref_squares",
                 "x_ref_points", "square_patches", "coarse_point_patches"):
        np.testing.assert_array_equal(getattr(fl, name), getattr(plain, name), err_msg=name)
    assert value == (float(plain.x_squares.sum()), True)
    assert seen == [fields.BESIDE]                         # in a thread of its own where BESIDE


def test_an_error_beside_the_nets_is_raised_after_them_and_leaves_no_thread(start, cal, frames):
    cutter = PatchCutter(cal.H, cal.image_size)

    def broken(px):
        raise ValueError("a check failed")

    before = threading.active_count()
    with pytest.raises(ValueError, match="a check failed"):
        fields.look_with(cutter, frames[1], cal.reference, broken)
    assert threading.active_count() == before


def test_the_reader_reads_alike_with_the_pixel_checks_beside_the_nets_and_after_them(cal, frames, monkeypatch):
    """Bit for bit: the same probabilities, the same evidence, frame after frame (the nets' kept
    answers and the reader's caches carried along alike)."""
    def readings(beside: bool):
        monkeypatch.setattr(fields, "BESIDE", beside)
        reader = BoardReader(cal)
        out = []
        for image in frames + frames[:1]:
            r = reader.read(image)
            out.append((r.square_probs, r.point_probs, reader.last_evidence.squares, reader.last_evidence.points))
        return out

    for a, b in zip(readings(True), readings(False)):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)


def test_the_kernels_warm_up_for_the_types_the_reader_gives_them():
    jit.warm_up()          # compiles (or loads) each kernel; without numba it does nothing


def test_the_column_means_kernel_gives_numpys_means_bit_for_bit():
    """The light level of a frame's patches (fieldnet.normalise): numpy adds the rows of a 3-column
    array in turn in float32, as the kernel does."""
    import cv2

    from vision.anyset.fieldnet import _LOG, normalise

    fn = jit.compiled("column_means")
    if fn is None:
        pytest.skip("numba is not installed here")
    rng = np.random.default_rng(11)
    for n in (1, 2, 7, 36, 49):
        patches = rng.integers(0, 256, (n, 24, 24, 3), dtype=np.uint8)
        flat = cv2.LUT(patches, _LOG).reshape(-1, 3)
        got = fn(flat)
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, flat.mean(axis=0))
        np.testing.assert_array_equal(normalise(patches)[1], flat.mean(axis=0))
