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
    arrays = _model_arrays(robot=f, white=_stump(0, 0.0, 0.0, 0.0), battery=_stump(0, -5.0, -3.0, 3.0))
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


def _model_arrays(robot: Forest, white: Forest, battery: Forest, **meta) -> dict:
    arrays = {"square_features": np.array(SQUARE_FEATURES + SQUARE_DERIVED),
              "point_features": np.array(POINT_FEATURES + POINT_DERIVED)}
    for prefix, f in (("robot", robot), ("white", white), ("battery", battery)):
        for k in ("feature", "threshold", "left", "right", "leaf"):
            arrays[f"{prefix}_{k}"] = getattr(f, k)
        arrays[f"{prefix}_depth"] = np.array(f.depth)
    arrays.update(meta)
    return arrays


def test_a_model_made_for_other_evidence_is_refused_by_name(tmp_path):
    f = _stump(0, 0.0, 0.0, 0.0)
    arrays = _model_arrays(f, f, f)
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
    assert p2[0, -1] == pytest.approx(-0.5)
