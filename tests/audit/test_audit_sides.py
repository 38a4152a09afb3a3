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


def test_the_record_keeps_the_notes(folder, tmp_path, capsys) -> None:
    """``--record``: the game record carries each turn's R-23 note and the batteries it left blank, and
    reads back the same."""
    from companion.record import SidesNote, parse_record

    out = tmp_path / "game.txt"
    assert main(["audit", "--reader", "classic", str(folder), "--record", str(out)]) == 0
    capsys.readouterr()
    text = out.read_text()
    assert "2. b: c6-c5 {note: A2 is turned but no moved robot stands beside it} {turn back: A2 C6}" in text
    record = parse_record(text)
    assert record.turns == ("c1-c3", "c6-c5")
    assert record.sides == (
        SidesNote(1, "c1→c3 used 2 energy but only 1 battery beside c1 was turned (D2): turn each battery you draw "
                     "on to its blank side", ("D2",)),
        SidesNote(2, "A2 is turned but no moved robot stands beside it", ("A2", "C6")),
    )
    assert main(["audit", "--reader", "classic", str(folder), "--record", str(tmp_path / "plain.txt"), "--no-sides"]) == 0
    assert parse_record((tmp_path / "plain.txt").read_text()).sides == ()


def test_the_record_keeps_only_the_notes_of_the_turns_in_force(tmp_path) -> None:
    """An undo in the photos (a press for an earlier ply): the turns accepted again replace what the
    turns from their ply on said."""
    from pathlib import Path

    from companion.record import SidesNote
    from companion.referee.audit import AuditResult, ImageVerdict
    from companion.referee.referee import ACCEPTED, Verdict
    from companion.rules.moves import Turn

    def accepted(name: str, ply: int, pos: Position, turn: str, note: str | None, *back: str) -> ImageVerdict:
        v = Verdict(ACCEPTED, pos, turn=Turn.parse(turn), note=note, turn_back=tuple(parse_point(p) for p in back))
        return ImageVerdict(name, ACCEPTED, v, ply=ply)

    three = apply_turn(TWO, "d1-d2")
    from companion.rules.options import Rules

    res = AuditResult(Path(tmp_path), Rules())
    res.verdicts = [
        accepted("1.png", 1, ONE, "c1-c3", "first", "C2"),
        accepted("2.png", 2, TWO, "c6-c5", "second", "C6"),
        accepted("3.png", 3, three, "d1-d2", None, "D2"),
        accepted("4.png", 2, TWO, "c6-c5", None),  # ply 2 again after an undo: nothing said now
    ]
    res.turns = ["c1-c3", "c6-c5"]
    assert res.sides_notes() == (SidesNote(1, "first", ("C2",)),)
    assert res.record().sides == (SidesNote(1, "first", ("C2",)),)
