"""``netzwerk demo``: a whole game on the synthetic camera (real rendering and vision), mock pins, exit 0."""

from __future__ import annotations

import re

from companion.cli import main
from companion.record import parse_record
from companion.referee.journal import Journal
from companion.rules.position import START_STRING


def test_demo_plays_a_whole_game_through_the_loop(capsys, tmp_path):
    journal = tmp_path / "journal.sqlite"
    with Journal(journal) as j:  # a real game going on: the demo must not touch it
        real = j.new_game([], START_STRING, players=("Anna", "Ben"))
    assert main(["demo", "--fast", "--no-color", "--seed", "1", "--journal", str(journal)]) == 0
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
    # the game went into the journal, tagged as a demo, and `games` shows and exports it
    saved = int(re.search(r"as game (\d+), tagged as a demo", out).group(1))
    with Journal(journal, readonly=True) as j:
        games = {g.id: g for g in j.games()}
        assert games[real].status == "ongoing" and not games[real].demo
        assert games[saved].demo and games[saved].status == "finished" and games[saved].turns == accepted
        assert j.open_game().id == real
    assert main(["games", "list", "--journal", str(journal)]) == 0
    assert "? vs ? (demo)" in capsys.readouterr().out
    assert main(["games", "export", str(saved), "--journal", str(journal)]) == 0
    assert parse_record(capsys.readouterr().out).turns == record.turns


def test_no_save_keeps_the_demo_out_of_the_journal(monkeypatch, capsys, tmp_path):
    import companion.demo

    seen = []
    monkeypatch.setattr(companion.demo, "run_demo", lambda **kw: seen.append(kw.get("save_to")))
    journal = tmp_path / "journal.sqlite"
    assert main(["demo", "--no-save", "--journal", str(journal)]) == 0
    assert seen == [None] and not journal.exists()
    assert main(["demo", "--journal", str(tmp_path)]) == 2  # a folder: refused before the game begins
    err = capsys.readouterr().err
    assert "is a directory" in err and "--no-save" in err and len(seen) == 1
