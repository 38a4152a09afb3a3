"""``netzwerk demo``: a whole game on the synthetic camera (real rendering and vision), mock pins, exit 0."""

from __future__ import annotations

import re

from companion.cli import main
from companion.record import parse_record


def test_demo_plays_a_whole_game_through_the_loop(capsys):
    assert main(["demo", "--fast", "--no-color", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    # the slips, the hand and the wrong button were refereed, not guessed
    assert re.search(r"rejected .*(diagonally|energy|moved)", out)
    assert "unreadable something covers the board" in out
    assert "undo turn" in out and "the board is back as it was" in out
    assert "hint " in out and "control " in out
    # the record at the end parses and holds every accepted turn
    record = parse_record(out.split("== The record (netzwerk games export) ==\n", 1)[1].rsplit("\n\n", 1)[0] + "\n")
    accepted = int(re.search(r"(\d+) turns accepted", out).group(1))
    assert len(record.turns) == accepted > 5
    assert record.result in ("white wins", "black wins")
    assert "┌─ Netzwerk panel" in out
