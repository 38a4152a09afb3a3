"""``netzwerk audit`` and the batteries' sides (R-23): rendered photos whose sides are set, a note on the turn."""

from __future__ import annotations

import json

import cv2
import pytest
from audit_scenario import layout_of

from companion.cli import main
from companion.rules.engine import apply_turn
from companion.rules.geometry import parse_point
from companion.rules.position import Position

START = Position.start()
ONE = apply_turn(START, "c1-c3")
TWO = apply_turn(ONE, "c6-c5")


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """Start (all printed); White plays c1-c3 turning only D2 (C2 forgotten); Black turns D2 back
    and plays c6-c5 turning C6 and, by mistake, A2."""
    from vision.render import render

    out = tmp_path_factory.mktemp("sides")
    shots = [(START, ()), (ONE, ("D2",)), (TWO, ("C6", "A2"))]
    for i, (pos, blank) in enumerate(shots):
        printed = [p not in {parse_point(n) for n in blank} for p in range(49)]
        frame = render(layout_of(pos), 31, size=(960, 720), frame=i, printed=printed)
        ok, buf = cv2.imencode(".png", frame.image)
        assert ok
        (out / f"IMG_{i + 1}.png").write_bytes(buf.tobytes())
    return out


def test_notes_on_accepted_turns(folder, capsys) -> None:
    assert main(["audit", "--reader", "classic", str(folder)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == ("IMG_2.png: accepted 1. w: c1-c3 -- note: c1→c3 used 2 energy but only 1 battery beside c1 "
                        "was turned (D2): turn each battery you draw on to its blank side (R-23)")
    assert lines[2] == "IMG_3.png: accepted 2. b: c6-c5 -- note: A2 is turned but no moved robot stands beside it (R-23)"
    assert main(["audit", "--reader", "classic", str(folder), "--json"]) == 0
    items = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert items[1]["note"].startswith("c1→c3 used 2 energy") and items[1]["turn_back"] == ["D2"]
    assert items[2]["turn_back"] == ["A2", "C6"]


def test_no_sides(folder, capsys) -> None:
    assert main(["audit", "--reader", "classic", str(folder), "--no-sides"]) == 0
    out = capsys.readouterr().out
    assert "accepted 1. w: c1-c3\n" in out and "note" not in out
