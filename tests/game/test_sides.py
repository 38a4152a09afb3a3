"""The game loop and the batteries' sides (R-23): the pointer at the batteries left blank, the note."""

from __future__ import annotations

import pytest

from companion.referee.game import PLAYING
from companion.rules.engine import apply_turn
from companion.rules.geometry import parse_point
from companion.rules.position import Placement, Position

from .helpers import close, make, press, ready, side


def sides(pos, *blank: str) -> dict[int, str]:
    out = {p: "printed" for p in pos.batteries}
    out.update({parse_point(n): "blank" for n in blank})
    return out


def pointer(comp) -> list[str]:
    return [t.name for t in comp.panel.state().pointer_targets]


def confirm(comp, table, turn: str, *blank: str, told: bool = True) -> Position:
    """Play ``turn`` on the table with ``blank`` batteries blank, the others printed (``told``: the camera
    tells the sides, else none), and confirm it."""
    after = apply_turn(comp.referee.position, turn, comp.rules)
    table.board = Placement.of(after)
    table.sides = sides(after, *blank) if told else None
    comp.run_for(0.5)
    press(comp, f"confirm_{side(comp)}")
    comp.run_for(0.5)
    return after


def started(tmp_path, **kw):
    comp, table = make(tmp_path, **kw)
    table.sides = sides(Position.start())
    ready(comp)
    assert comp.phase == PLAYING
    return comp, table


def test_blank_batteries_are_pointed_at_until_turned_back(tmp_path) -> None:
    comp, table = started(tmp_path)
    try:
        after = confirm(comp, table, "c1-c3", "C2", "D2")
        assert comp.log[-1].kind == "sides" and comp.log[-1].text == "Black: turn C2 and D2 back to their printed sides"
        assert not any(e.kind == "note" for e in comp.log)
        assert pointer(comp) == ["C2", "D2"]
        table.sides = sides(after, "D2")  # Black turns C2 back
        comp.run_for(0.6)
        assert pointer(comp) == ["D2"]
        table.sides = sides(after)  # and D2
        comp.run_for(0.6)
        assert pointer(comp) == [] and comp.turn_back == ()
        # Black's turn, drawing on C6; nothing noted, White is shown C6
        confirm(comp, table, "c6-c5", "C6")
        assert comp.log[-1].text == "White: turn C6 back to its printed side" and pointer(comp) == ["C6"]
    finally:
        close(comp)


def test_the_next_confirm_ends_the_pointing(tmp_path) -> None:
    comp, table = started(tmp_path)
    try:
        after = confirm(comp, table, "c1-c3", "C2", "D2")
        assert pointer(comp) == ["C2", "D2"]
        two = apply_turn(after, "c6-c5")
        table.board = Placement.of(two)  # Black forgets to turn C2 and D2 back, and C6 is not told
        table.sides = {p: s for p, s in sides(two, "C2", "D2").items() if p != parse_point("C6")}
        comp.run_for(0.5)
        press(comp, "confirm_black")
        comp.run_for(0.5)
        assert comp.referee.position == two
        assert not any(e.kind == "note" for e in comp.log)  # already blank, still blank: says nothing
        assert pointer(comp) == ["C2", "D2"] and comp.log[-1].text == "White: turn C2 and D2 back to their printed sides"
        press(comp, "confirm_white")  # the next confirm: pointing ends
        comp.run_for(0.1)
        assert pointer(comp) == [] and comp.turn_back == ()
    finally:
        close(comp)


def test_a_mismatch_is_a_note_on_the_accepted_turn_and_in_the_journal(tmp_path) -> None:
    comp, table = started(tmp_path)
    try:
        after = confirm(comp, table, "c1-c3", "C2", "G6")
        assert comp.referee.position == after and comp.panel.state().status == "accepted"
        notes = [e for e in comp.log if e.kind == "note"]
        assert len(notes) == 1
        assert notes[0].text == ("White's turn 1: G6 is turned but no moved robot stands beside it; c1→c3 used 2 "
                                 "energy but only 1 battery beside c1 was turned (C2): turn each battery you draw "
                                 "on to its blank side (R-23)")
        assert notes[0].ply == 1
        game = comp.journal.game(comp.game_id)
        events = [e for e in game.events if e.kind == "sides"]
        assert len(events) == 1 and events[0].detail["ply"] == 1 and "G6 is turned" in events[0].detail["note"]
        assert pointer(comp) == ["C2", "G6"]  # the batteries left blank, for Black
    finally:
        close(comp)


def test_the_game_record_keeps_the_notes_and_the_batteries_left_blank(tmp_path) -> None:
    """R-23 in the exported record (``netzwerk games export``): the note of turn 1 and the batteries
    each turn left blank, journalled by the loop and read back from the record's text."""
    from companion.record import GameText, SidesNote, format_record, parse_record

    comp, table = started(tmp_path)
    try:
        after = confirm(comp, table, "c1-c3", "C2", "G6")
        table.sides = sides(after)  # Black turns C2 and G6 back
        comp.run_for(0.6)
        confirm(comp, table, "c6-c5", "C6")
        confirm(comp, table, "d1-d2", "D2")
        record = GameText.from_game(comp.journal.game(comp.game_id))
    finally:
        close(comp)
    assert record.turns == ("c1-c3", "c6-c5", "d1-d2")
    first, *rest = record.sides
    assert first.ply == 1 and first.note.startswith("G6 is turned but no moved robot stands beside it; c1→c3 used 2")
    assert first.turn_back == ("C2", "G6") and rest == [SidesNote(2, None, ("C6",)), SidesNote(3, None, ("D2",))]
    text = format_record(record)
    assert "1. w: c1-c3 {note: G6 is turned" in text and text.endswith("3. w: d1-d2 {turn back: D2}\n")
    assert parse_record(text) == record


def test_sides_off(tmp_path) -> None:
    comp, table = started(tmp_path, sides=False)
    try:
        confirm(comp, table, "c1-c3", "G6")
        assert comp.referee.position.to_move.name == "BLACK"
        assert not any(e.kind in ("note", "sides") for e in comp.log) and pointer(comp) == []
    finally:
        close(comp)


def test_a_camera_that_tells_no_side_is_silent(tmp_path) -> None:
    comp, table = make(tmp_path)
    ready(comp)
    try:
        confirm(comp, table, "c1-c3", told=False)
        confirm(comp, table, "c6-c4", told=False)
        assert len(comp.referee.history) == 2
        assert not any(e.kind in ("note", "sides") for e in comp.log)
    finally:
        close(comp)


@pytest.mark.parametrize("text, expected", [("", True), ("[rules]\nbattery_sides = false\n", False)])
def test_run_takes_battery_sides_from_the_config(tmp_path, monkeypatch, text: str, expected: bool) -> None:
    import companion.hints.jit
    import companion.referee.game as game
    from companion.cli import main

    seen: dict = {}

    class Stop(Exception):
        pass

    def fake(*args, **kw):
        seen.update(kw)
        raise Stop

    monkeypatch.setattr(game, "Companion", fake)
    monkeypatch.setattr(companion.hints.jit, "warm_up_in_background", lambda: None)
    config = tmp_path / "config.toml"
    config.write_text(text + "[frames]\nsave_frames = false\n")
    with pytest.raises(Stop):
        main(["run", "--config", str(config), "--gpio", "mock", "--camera", "sim", "--journal", str(tmp_path / "j.sqlite"),
              "--web", "off"])
    assert seen["sides"] is expected
