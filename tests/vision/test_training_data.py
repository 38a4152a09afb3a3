"""The training data's design pushes (training/fielddata.py): they stay within what the issue names
and leave every other set-up as it was (tests never train; they only check the data generator)."""

import numpy as np
import pytest

from training.fielddata import _rng, hard_design, tall_design
from vision.designs import sample_design


def test_tall_designs_have_the_tallest_robots_and_a_tilted_camera():
    for seed in range(3_013_200, 3_013_230):
        base = sample_design(seed)
        d, tilt = tall_design(base, _rng("fielddata-tall", seed))
        assert 0.55 <= d.robot_height <= 0.6 and 0.35 <= d.robot_radius <= 0.4   # up to 0.6 tall, 0.8 across
        assert 22 <= tilt <= 25                                                  # the renderer's tilts: 0..25
        assert d.board_color == base.board_color and d.white_color == base.white_color
        # a Design checks its own ranges when made (dataclasses.replace makes a new one)
        hd, tilt = tall_design(hard_design(base, _rng("hard", seed)), np.random.default_rng(seed))
        assert hd.name.endswith("(hard) (tall)") and 0.55 <= hd.robot_height <= 0.6


def test_hard_designs_push_robots_close_to_the_board_but_keep_the_players_apart():
    from training.fielddata import HARD_NEAR_BOARD
    from vision.designs import MIN_ROBOT_DELTA_E, delta_e

    gaps = []
    for seed in range(3_032_000, 3_032_200):
        base = sample_design(seed)
        d = hard_design(base, _rng("fielddata-hard", seed))
        assert delta_e(d.white_color, d.black_color) >= MIN_ROBOT_DELTA_E
        for side in ("white_color", "black_color"):
            if getattr(d, side) != getattr(base, side):
                gaps.append(delta_e(getattr(d, side), d.board_color))
    assert len(gaps) > 20
    assert min(gaps) >= HARD_NEAR_BOARD - 1e-9 and sum(g < 15 for g in gaps) >= 5   # closer than the sampler goes


def test_blank_heavy_set_ups_show_more_blank_sides_on_the_same_boards():
    from training.fielddata import setup_samples

    blank = {0.0: 0, 1.0: 0}
    batteries = 0
    for seed in (3_036_000, 3_036_001, 3_036_002):
        plain = setup_samples(seed, size=(480, 360))
        assert all(np.array_equal(plain[k], v) for k, v in setup_samples(seed, size=(480, 360), blank=0.0).items())
        heavy = setup_samples(seed, size=(480, 360), blank=1.0)
        assert np.array_equal(plain["pt_lab"], heavy["pt_lab"])        # the same boards, only the sides differ
        assert np.array_equal(plain["printed"][0], heavy["printed"][0])  # the first board as it was
        on = plain["pt_lab"][1:] == 1
        batteries += int(on.sum())
        for share, data in ((0.0, plain), (1.0, heavy)):
            blank[share] += int((~data["printed"][1:] & on).sum())
    assert batteries > 50
    assert blank[1.0] > blank[0.0] + 0.1 * batteries


def test_set_ups_set_anew_show_the_same_boards_with_their_pieces_set_down_elsewhere(tmp_path):
    """training/fielddata.py --anew: in that share of the set-ups the boards that are no game are set up
    from scratch (every piece set down anew); the boards, their labels and the first frame stay as they
    were, and without --anew the data is as before. A share outside 0..1 is refused."""
    import pytest

    from training.fielddata import main, setup_samples

    changed = 0
    for seed in (3_036_000, 3_036_001):
        plain = setup_samples(seed, size=(480, 360))
        assert all(np.array_equal(plain[k], v) for k, v in setup_samples(seed, size=(480, 360), anew=0.0).items())
        anew = setup_samples(seed, size=(480, 360), anew=1.0)
        for key in ("sq_lab", "pt_lab", "sq_colour", "printed"):
            assert np.array_equal(plain[key], anew[key]), key
        assert np.array_equal(plain["sq"][0], anew["sq"][0]) and np.array_equal(plain["pt"][0], anew["pt"][0])
        changed += sum(not np.array_equal(plain["pt"][f], anew["pt"][f]) for f in range(1, len(plain["pt"])))
    assert changed >= 3
    with pytest.raises(SystemExit):
        main(["--anew", "1.5", "--setups", "1", "--out", str(tmp_path / "x.npz")])
    assert not (tmp_path / "x.npz").exists()


def test_the_verdict_data_keeps_the_readers_evidence_and_the_truth_of_every_frame():
    """training/verdictdata.py: one set-up's single frames and game frames, each with the reader's
    evidence (the verdict's features, as the shipped reader gathers them) and what stands where."""
    from training.verdictdata import setup_rows
    from vision.anyset.verdict import POINT_FEATURES, SQUARE_FEATURES

    rows = setup_rows((20_000_001, 0, 2, 0.0, 0.0))
    assert rows is not None
    assert rows["S"].shape == (4, 36, len(SQUARE_FEATURES)) and rows["P"].shape == (4, 49, len(POINT_FEATURES))
    assert rows["mode"].tolist() == [0, 0, 1, 1]             # two single frames, two boards of a game
    assert rows["robot"].shape == (4, 36) and rows["battery"].shape == (4, 49)
    assert 1 <= rows["robot"][2].sum() <= 12 and rows["battery"][2].sum() == 14     # a turn after the start
    assert np.isfinite(rows["S"][:, :, SQUARE_FEATURES.index("s_net")]).all()
    again = setup_rows((20_000_001, 0, 2, 0.0, 0.0))
    assert all(np.array_equal(rows[k], again[k], equal_nan=True) for k in rows)     # the same from the same seeds


def test_lightgbms_trees_are_written_as_the_arrays_the_reader_walks():
    """training/train_verdict.py: a model dump (the nested form LightGBM writes) becomes Forest arrays
    giving the same sums, a one-leaf tree included."""
    from training.train_verdict import forest_from_dump

    dump = {"tree_info": [
        {"tree_structure": {"split_feature": 1, "threshold": 0.5, "decision_type": "<=",
                            "left_child": {"leaf_value": -1.0},
                            "right_child": {"split_feature": 0, "threshold": 2.0, "decision_type": "<=",
                                            "left_child": {"leaf_value": 0.5}, "right_child": {"leaf_value": 3.0}}}},
        {"tree_structure": {"leaf_value": 0.25}},
    ]}
    f = forest_from_dump(dump)
    x = np.array([[0.0, 0.0], [1.0, 1.0], [5.0, 1.0], [5.0, 0.5]])
    assert f.log_odds(x).tolist() == [-0.75, 0.75, 3.25, -0.75]
    assert f.depth == 2


def test_the_verdict_trainer_refuses_bad_data_and_never_writes_over_an_input(tmp_path):
    """training/train_verdict.py: a data part that is no data part, a pipe, a missing file: a clear
    exit naming it; --out onto one of its --data parts, a folder or another suffix: refused before
    any work, the input left as it was (fileio.paths)."""
    import os

    from training.train_verdict import main

    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not numpy")
    fifo = tmp_path / "fifo.npz"
    os.mkfifo(fifo)
    for data, words in ((junk, "not a data part of training.verdictdata"), (fifo, "pipe (FIFO)"),
                        (tmp_path / "missing.npz", "does not exist")):
        with pytest.raises(SystemExit) as exc:
            main(["--data", str(data), "--out", str(tmp_path / "model.npz")])
        assert words in str(exc.value)
    for out in (junk, tmp_path, tmp_path / "model.txt"):
        with pytest.raises(SystemExit) as exc:
            main(["--data", str(junk), "--out", str(out)])
        assert exc.value.code == 2                       # argparse's error: refused before any work
    with pytest.raises(SystemExit) as exc:                # a feature the reader does not give: named
        main(["--data", str(junk), "--out", str(tmp_path / "model.npz"), "--without", "p_middle", "p_colour"])
    assert exc.value.code == 2
    assert junk.read_bytes() == b"not numpy"
    assert not (tmp_path / "model.npz").exists()
