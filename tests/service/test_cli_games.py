"""``netzwerk games list|show|export`` through ``companion.cli.main``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion import cli
from companion.referee.journal import Journal
from companion.rules.position import START_STRING
from companion.record import parse_record

AFTER_W = "BBBBBB/6/6/6/W5/1WWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 b"
AFTER_B = "1BBBBB/B5/6/6/W5/1WWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 w"


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    path = tmp_path / "journal.sqlite"
    with Journal(path) as j:
        g1 = j.new_game(["must-capture"], START_STRING, players=("Anna", "Ben"), at="2026-11-22T18:00:00+00:00")
        j.record_turn(g1, START_STRING, AFTER_W, "a1-a2", confidences={"min": 0.91})
        j.record_rejection(g1, "rejected", "robot a6 moved diagonally", after=AFTER_B)
        j.record_rejection(g1, "unreadable", "a hand over the board")
        j.record_turn(g1, AFTER_W, AFTER_B, "a6-a5")
        j.undo_last_turn(g1)
        j.record_turn(g1, AFTER_W, AFTER_B, "a6-a5")
        j.finish_game(g1, "white wins", "target row")
        j.new_game([], START_STRING)
    return path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_registered_in_the_cli() -> None:
    assert "companion.cli.games" in cli.COMMAND_MODULES


def test_list(capsys, journal: Path) -> None:
    code, out, err = run(capsys, "games", "list", "--journal", str(journal))
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert len(lines) == 2
    assert lines[0].split()[0] == "1" and "Anna vs Ben" in lines[0] and "must-capture" in lines[0]
    assert "2 turns, 2 rejected" in lines[0] and "white wins (target row)" in lines[0]
    assert lines[1].split()[0] == "2" and "ongoing" in lines[1] and "original" in lines[1]


def test_list_json(capsys, journal: Path) -> None:
    code, out, _ = run(capsys, "games", "list", "--journal", str(journal), "--json")
    games = json.loads(out)
    assert code == 0 and [g["id"] for g in games] == [1, 2]
    assert games[0]["result"] == "white wins" and games[0]["turns"] == 2 and games[0]["rules"] == ["must-capture"]
    assert games[1]["status"] == "ongoing" and games[1]["result"] is None


def test_show(capsys, journal: Path) -> None:
    code, out, _ = run(capsys, "games", "show", "1", "--journal", str(journal))
    assert code == 0
    assert "game 1: Anna (White) vs Ben (Black)" in out
    assert f"position {AFTER_B}" in out
    assert "1. w: a1-a2" in out and "2. b: a6-a5" in out
    assert "taken back" in out and "event undo" in out
    assert "rejected (ply 2): robot a6 moved diagonally" in out and "unreadable (ply 2): a hand over the board" in out


def test_show_json(capsys, journal: Path) -> None:
    code, out, _ = run(capsys, "games", "show", "1", "--journal", str(journal), "--json")
    game = json.loads(out)
    assert code == 0
    assert [t["turn"] for t in game["turns"]] == ["a1-a2", "a6-a5"]
    assert game["turns"][0]["confidences"] == {"min": 0.91}
    assert [t["turn"] for t in game["taken_back"]] == ["a6-a5"]
    assert [r["verdict"] for r in game["rejections"]] == ["rejected", "unreadable"]
    assert game["rejections"][0]["after"] == AFTER_B and game["rejections"][1]["after"] is None
    assert game["position"] == AFTER_B and game["events"][0]["kind"] == "undo"


def test_export_to_stdout_and_file(capsys, journal: Path, tmp_path: Path) -> None:
    code, out, _ = run(capsys, "games", "export", "1", "--journal", str(journal))
    assert code == 0
    record = parse_record(out)
    assert record.turns == ("a1-a2", "a6-a5")
    assert (record.white, record.black, record.rules, record.result, record.termination, record.date) == (
        "Anna", "Ben", ("must-capture",), "white wins", "target row", "2026-11-22"
    )
    target = tmp_path / "game1.txt"
    code, out2, _ = run(capsys, "games", "export", "1", "--journal", str(journal), "--out", str(target))
    assert code == 0 and out2 == "" and target.read_text() == out
    code, out3, _ = run(capsys, "games", "export", "2", "--journal", str(journal), "--json")
    data = json.loads(out3)
    assert code == 0 and data["result"] == "*" and data["turns"] == [] and parse_record(data["record"]).result == "*"


def test_journal_from_the_config(capsys, journal: Path, tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'[journal]\npath = "{journal.name}"\n')  # relative to the config's folder
    code, out, _ = run(capsys, "games", "list", "--config", str(config), "--json")
    assert code == 0 and len(json.loads(out)) == 2


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["games", "show", "9"], "no game 9 in journal"),
        (["games", "show", "x"], "bad game id 'x'"),
        (["games", "export", "0"], "game ids start at 1"),
        (["games", "export", "1", "--out", "/nonexistent-dir/x.txt"], "the folder '/nonexistent-dir' does not exist"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, journal: Path, argv: list[str], words: str) -> None:
    code, out, err = run(capsys, *argv, "--journal", str(journal))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and words in err


def test_missing_or_broken_journal_and_bad_config(capsys, tmp_path: Path) -> None:
    code, _, err = run(capsys, "games", "list", "--journal", str(tmp_path / "none.sqlite"))
    assert code == 2 and "no journal at" in err and err.count("\n") == 1
    assert not (tmp_path / "none.sqlite").exists()  # reading never creates a journal
    junk = tmp_path / "junk.sqlite"
    junk.write_text("not a database")
    code, _, err = run(capsys, "games", "list", "--journal", str(junk))
    assert code == 2 and "not a Netzwerk journal" in err
    bad = tmp_path / "bad.toml"
    bad.write_text("[journal]\npaht = 'x'\n")
    code, _, err = run(capsys, "games", "list", "--config", str(bad))
    assert code == 2 and "line 2: journal.paht: unknown key; did you mean journal.path?" in err


def test_help(capsys) -> None:
    for argv in (["games", "--help"], ["games", "list", "--help"], ["games", "export", "--help"]):
        with pytest.raises(SystemExit) as exc:
            cli.main(argv)
        assert exc.value.code == 0
        assert "usage: netzwerk games" in capsys.readouterr().out


def test_export_and_show_carry_the_R23_notes(capsys, tmp_path: Path) -> None:
    """R-23 as the game loop journals it (an event ``sides`` per accepted turn with a note or batteries
    left blank): in the exported record, in its JSON, and said in words by ``games show``."""
    from companion.record import SidesNote

    path = tmp_path / "journal.sqlite"
    with Journal(path) as j:
        gid = j.new_game([], START_STRING)
        j.record_turn(gid, START_STRING, AFTER_W, "a1-a2")
        j.record_event(gid, "sides", {"ply": 1, "note": "G6 is turned but no moved robot stands beside it",
                                      "points": ["G6"], "turn_back": ["B2", "G6"]})
        j.record_turn(gid, AFTER_W, AFTER_B, "a6-a5")
        j.record_event(gid, "sides", {"ply": 2, "note": None, "points": [], "turn_back": ["A6"]})
    code, out, _ = run(capsys, "games", "export", str(gid), "--journal", str(path))
    assert code == 0
    assert out.splitlines()[-2:] == ["1. w: a1-a2 {note: G6 is turned but no moved robot stands beside it} {turn back: B2 G6}",
                                     "2. b: a6-a5 {turn back: A6}"]
    expected = (SidesNote(1, "G6 is turned but no moved robot stands beside it", ("B2", "G6")), SidesNote(2, None, ("A6",)))
    assert parse_record(out).sides == expected
    code, out, _ = run(capsys, "games", "export", str(gid), "--journal", str(path), "--json")
    data = json.loads(out)
    assert data["sides"] == [{"ply": 1, "note": "G6 is turned but no moved robot stands beside it", "turn_back": ["B2", "G6"]},
                             {"ply": 2, "note": None, "turn_back": ["A6"]}]
    assert parse_record(data["record"]).sides == expected
    code, out, _ = run(capsys, "games", "show", str(gid), "--journal", str(path))
    assert code == 0
    assert "event sides (ply 1, R-23): note: G6 is turned but no moved robot stands beside it; left blank: B2, G6" in out
    assert "event sides (ply 2, R-23): left blank: A6" in out
