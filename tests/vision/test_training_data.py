"""The training data's design pushes (training/fielddata.py): they stay within what the issue names
and leave every other set-up as it was (tests never train; they only check the data generator)."""

import numpy as np

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
