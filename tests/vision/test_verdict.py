"""The verdict (vision/anyset/verdict.py): trees as arrays, the model file, and the reader's use of it."""

from __future__ import annotations

import numpy as np
import pytest

from vision.anyset import verdict
from vision.anyset.verdict import (MISSING, POINT_DERIVED, POINT_FEATURES, SQUARE_DERIVED, SQUARE_FEATURES, Forest,
                                   Verdict, derived)
from vision.errors import VisionError


def _stump(feature: int, threshold: float, low: float, high: float) -> Forest:
    """One tree: feature <= threshold -> ``low``, else ``high``."""
    return Forest(np.array([[feature]]), np.array([[threshold]]), np.array([[-1]]), np.array([[-2]]),
                  np.array([[low, high]]), 1)


def test_a_forest_sums_the_leaves_each_tree_sends_a_row_to():
    # tree 0: x0 <= 1 ? (x1 <= 0 ? 1 : 2) : 3 ; tree 1: x1 <= 5 ? 10 : 20 (padded to tree 0's size)
    f = Forest(feature=np.array([[0, 1], [1, 0]]), threshold=np.array([[1.0, 0.0], [5.0, 0.0]]),
               left=np.array([[1, -1], [-1, -1]]), right=np.array([[-3, -2], [-2, -1]]),
               leaf=np.array([[1.0, 2.0, 3.0], [10.0, 20.0, 0.0]]), depth=2)
    x = np.array([[0.0, -1.0], [0.0, 1.0], [2.0, 9.0], [1.0, 5.0]])
    assert f.log_odds(x).tolist() == [11.0, 12.0, 23.0, 12.0]
    assert f._log_odds_numpy(x).tolist() == [11.0, 12.0, 23.0, 12.0]      # without numba: the same
    assert np.allclose(f.probability(x), 1 / (1 + np.exp(-np.array([11.0, 12.0, 23.0, 12.0]))))


def test_a_missing_feature_goes_where_the_trees_learned_missing_values_go():
    """The trees were trained with MISSING in place of what the reader could not compute (no reference
    of its own, a look not asked): NaN is handed over as MISSING, below every real value."""
    f = _stump(0, -5.0, -2.0, 2.0)
    arrays = verdict.model_arrays(robot=f, white=_stump(0, 0.0, 0.0, 0.0), battery=_stump(0, -5.0, -3.0, 3.0))
    v = Verdict(arrays)
    s = np.zeros((36, len(SQUARE_FEATURES)))
    p = np.zeros((49, len(POINT_FEATURES)))
    s[0, 0] = np.nan
    p[1, 0] = np.inf
    sp, pp = v.judge(s, p)
    assert sp[0, 0] == pytest.approx(1 - 1 / (1 + np.exp(2.0)))      # MISSING <= -5: the left leaf
    assert sp[1, 0] == pytest.approx(1 - 1 / (1 + np.exp(-2.0)))
    assert pp[1, 1] == pytest.approx(1 / (1 + np.exp(3.0)))
    assert MISSING < -100
    assert np.allclose(sp.sum(axis=1), 1) and np.allclose(pp.sum(axis=1), 1)


def test_a_model_made_for_other_evidence_is_refused_by_name(tmp_path):
    f = _stump(0, 0.0, 0.0, 0.0)
    arrays = verdict.model_arrays(f, f, f)
    arrays["point_features"] = np.array(POINT_FEATURES[:-1] + ("something_else",) + POINT_DERIVED)
    with pytest.raises(VisionError, match="other evidence"):
        Verdict(arrays)


def test_the_model_file_round_trips_and_a_broken_one_is_named(tmp_path, monkeypatch):
    path = tmp_path / "v.npz"
    verdict.save(path, _stump(0, 0.0, -1.0, 1.0), _stump(4, 0.0, -1.0, 1.0), _stump(0, 0.0, -2.0, 2.0), seed=3)
    monkeypatch.setenv(verdict.ENV_MODEL, str(path))
    verdict._loaded.cache_clear()
    v = verdict.shared_verdict()
    sp, pp = v.judge(np.ones((36, len(SQUARE_FEATURES))), -np.ones((49, len(POINT_FEATURES))))
    assert sp[0, 0] == pytest.approx(1 - 1 / (1 + np.exp(-1.0)))
    assert pp[0, 1] == pytest.approx(1 / (1 + np.exp(2.0)))
    path.write_bytes(b"not a model")
    verdict._loaded.cache_clear()
    with pytest.raises(VisionError, match="verdict model is damaged"):
        verdict.shared_verdict()
    monkeypatch.setenv(verdict.ENV_MODEL, str(tmp_path / "missing.npz"))
    with pytest.raises(VisionError, match="cannot read the verdict model"):
        verdict.shared_verdict()
    verdict._loaded.cache_clear()


def test_the_shipped_model_takes_the_evidence_the_reader_gives():
    v = verdict.shared_verdict()
    s = np.zeros((36, len(SQUARE_FEATURES)))
    p = np.zeros((49, len(POINT_FEATURES)))
    sp, pp = v.judge(s, p)
    assert sp.shape == (36, 3) and pp.shape == (49, 2)
    assert np.all((sp >= 0) & (sp <= 1)) and np.allclose(pp.sum(axis=1), 1)


def test_the_derived_features_are_differences_of_the_likenesses():
    s = np.zeros((36, len(SQUARE_FEATURES)))
    p = np.zeros((49, len(POINT_FEATURES)))
    col = SQUARE_FEATURES.index
    s[:, col("s_d_empty")], s[:, col("s_d_white")], s[:, col("s_d_black")] = 0.9, 0.3, 0.5
    s[0, col("s_d_black")] = np.nan                    # no Black robot known: the White one alone
    p[:, POINT_FEATURES.index("p_d_empty")], p[:, POINT_FEATURES.index("p_d_battery")] = 0.2, 0.7
    s2, p2 = derived(s, p)
    assert s2.shape == (36, len(SQUARE_FEATURES) + len(SQUARE_DERIVED))
    assert p2.shape == (49, len(POINT_FEATURES) + len(POINT_DERIVED))
    like_empty, like_white = (SQUARE_FEATURES + SQUARE_DERIVED).index("s_like_empty"), \
        (SQUARE_FEATURES + SQUARE_DERIVED).index("s_like_white")
    assert s2[1, like_empty] == pytest.approx(0.6) and s2[1, like_white] == pytest.approx(0.2)
    assert s2[0, like_empty] == pytest.approx(0.6) and np.isnan(s2[0, like_white])
    assert p2[0, (POINT_FEATURES + POINT_DERIVED).index("p_like_empty")] == pytest.approx(-0.5)


def test_a_fields_distance_and_log_odds_are_also_measured_against_its_frames_quiet_fields():
    """A distance over the frame's typical one for quiet fields of the kind (told so by the reference,
    their look changed less than QUIET), and a log-odds less their median there: what is unusual for
    this frame, whatever the set's looks and the camera make of every field. Too few quiet fields: NaN."""
    names = POINT_FEATURES + POINT_DERIVED
    col = POINT_FEATURES.index
    p = np.zeros((49, len(POINT_FEATURES)))
    p[:35, col("p_ref_empty")] = 1.0                  # 35 points told empty, 14 told a battery
    p[35:, col("p_ref_battery")] = 1.0
    p[:, col("p_diff")] = 0.1
    p[:, col("p_d_empty")] = 0.2
    p[:, col("p_net")] = 6.0
    p[0, col("p_d_empty")], p[0, col("p_net")], p[0, col("p_diff")] = 0.8, 2.0, 2.5   # changed: not quiet
    p[1:3, col("p_d_empty")] = 5.0                    # two quiet outliers do not move the median
    p[35:, col("p_diff")] = 1.0                       # every battery point changed: none quiet
    p[35:38, col("p_diff")] = 0.0                     # ... but three
    p[35:38, col("p_d_battery")] = 0.5
    p[40, col("p_d_battery")] = 1.5
    _, p2 = derived(np.zeros((36, len(SQUARE_FEATURES))), p)
    assert p2[0, names.index("p_d_empty_rel")] == pytest.approx(4.0)
    assert p2[5, names.index("p_d_empty_rel")] == pytest.approx(1.0)
    assert p2[0, names.index("p_net_shift")] == pytest.approx(-4.0)
    assert p2[40, names.index("p_d_battery_rel")] == pytest.approx(3.0)
    p[37, col("p_diff")] = 1.0                        # two quiet battery points: too few to say
    _, p3 = derived(np.zeros((36, len(SQUARE_FEATURES))), p)
    assert np.isnan(p3[:, names.index("p_d_battery_rel")]).all()
    # a robot's colour distances against the frame's quiet robots of each colour
    sq, scol = np.zeros((36, len(SQUARE_FEATURES))), SQUARE_FEATURES.index
    sq[:6, scol("s_ref_colour")], sq[30:, scol("s_ref_colour")] = 1.0, -1.0
    sq[:, scol("s_diff")] = 0.1
    sq[:, scol("s_d_white")], sq[:, scol("s_d_black")] = 0.3, 0.2
    sq[10, scol("s_d_white")], sq[10, scol("s_d_black")], sq[10, scol("s_diff")] = 0.9, 0.9, 2.0
    s2, _ = derived(sq, p)
    snames = SQUARE_FEATURES + SQUARE_DERIVED
    assert s2[10, snames.index("s_d_white_rel")] == pytest.approx(3.0)
    assert s2[10, snames.index("s_d_black_rel")] == pytest.approx(4.5)
    # frames stacked (as training takes them) are each measured against their own quiet fields
    q = p.copy()
    q[:, col("p_net")] += 3.0
    _, both = derived(np.zeros((2, 36, len(SQUARE_FEATURES))), np.stack([p, q]))
    assert np.allclose(both[0], p3, equal_nan=True)
    assert both[1, 0, names.index("p_net_shift")] == pytest.approx(-4.0)


class _SureEmpty:
    """A verdict that is sure every field is empty, whatever the evidence."""

    def judge(self, squares, points):
        return (np.tile([1.0, 0.0, 0.0], (len(squares), 1)), np.tile([1.0, 0.0], (len(points), 1)))


@pytest.fixture(scope="module")
def anyset_reader():
    from vision.anyset.calibration import calibrate, white_side_of
    from vision.anyset.reader import BoardReader
    from vision.render import render

    from vision_kit import START

    design = 5_000_005                     # a development design (tests/vision/test_anyset.py's)
    start = render(START, design * 16, design=design, markers=False, printed=[True] * 49)
    cal = calibrate(start.image, START, white_side=white_side_of(start.homography))
    return BoardReader(cal, adapt=False), start


def test_the_reader_keeps_a_covered_fields_share_on_top_of_the_verdict_and_leaves_a_small_one_to_it(
        anyset_reader, monkeypatch):
    """vision/anyset/reader.py, BoardReader._reading: the verdict weighs the nets' covered share itself
    (trained with a field under a hand as "cannot tell"); a field the nets see covered (COVERED or more)
    stays doubtful whatever the verdict says, a smaller share (a foreign set's glare, JPEG noise) is left
    to the verdict and does not make a sure field doubtful."""
    from dataclasses import replace

    from vision.anyset import reader as reader_module
    from vision.anyset.fields import look

    reader, start = anyset_reader
    monkeypatch.setattr(reader_module, "shared_verdict", lambda: _SureEmpty())
    fl = look(reader._cutter, start.image, reader.calibration.reference)
    points, squares = fl.points.copy(), fl.squares.copy()
    points[0], points[1] = [0.3, 0.1, reader_module.COVERED + 0.1], [0.85, 0.05, 0.1]
    squares[0], squares[1] = [0.2, 0.2, reader_module.COVERED + 0.1], [0.8, 0.1, 0.1]
    reading = reader._reading(replace(fl, points=points, squares=squares), 1.0)
    assert 0 in reading.low_confidence_points and 0 in reading.low_confidence_squares
    assert 1 not in reading.low_confidence_points and 1 not in reading.low_confidence_squares
    assert reading.point_probs[1, 0] == 1.0 and reading.square_probs[1, 0] == 1.0
