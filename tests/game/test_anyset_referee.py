"""The any-set reader and the referee together on a design of our renderer's (the path of
``benchmarks/referee_anyset.py``): each turn's verdict holds the true turn or asks, never a wrong one."""

from __future__ import annotations

from benchmarks.referee_anyset import KINDS, one_setup


def test_a_game_on_another_set_is_refereed_without_a_wrong_verdict():
    out = one_setup((5_000_216, 0, 4))         # a development design (the benchmark uses 9,200,000+)
    assert out["accepted"], out["why"]
    assert len(out["turns"]) == 4 and set(out["turns"]) <= set(KINDS)
    assert "wrong" not in out["turns"], out["wrong"]
    assert out["turns"].count("accepted right") >= 3
