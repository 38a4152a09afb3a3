"""The game journal: writes, undo, resume, crash safety, damaged and foreign files."""

from __future__ import annotations

import hashlib
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from dataclasses import FrozenInstanceError
from pathlib import Path

import pytest

from companion.referee.journal import (
    SCHEMA_VERSION,
    Journal,
    JournalError,
    default_journal_path,
    set_aside,
)
from companion.rules.position import START_STRING

START = START_STRING
# Not legal play (the journal does not judge legality): two positions to alternate.
AFTER_W = "BBBBBB/6/6/6/W5/1WWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 b"
AFTER_B = "1BBBBB/B5/6/6/W5/1WWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 w"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def jpath(tmp_path: Path) -> Path:
    return tmp_path / "state" / "journal.sqlite"


def test_a_game_is_recorded_and_read_back(jpath: Path) -> None:
    with Journal(jpath) as j:
        gid = j.new_game(["must-capture"], START, players=("Anna", "Ben"))
        assert j.current_position(gid) == START
        t1 = j.record_turn(gid, START, AFTER_W, "a1-a2", confidences={"a2": 0.93}, at="2026-11-23T11:00:00+01:00")
        r = j.record_rejection(gid, "rejected", "robot b6 moved backwards", after=AFTER_W)
        t2 = j.record_turn(gid, AFTER_W, AFTER_B, "a6-a5  ")
        j.record_event(gid, "resumed", {"reason": "restart"})
        j.finish_game(gid, "black wins", "target row")
    assert t1.ply == 1 and t2.ply == 2 and r.ply == 2
    assert t2.turn == "a6-a5"
    with Journal(jpath) as j:
        g = j.game(gid)
        assert (g.white, g.black, g.rules) == ("Anna", "Ben", ("must-capture",))
        assert [t.turn for t in g.turns] == ["a1-a2", "a6-a5"]
        assert g.turns[0].confidences == {"a2": 0.93}
        assert g.turns[0].at == "2026-11-23T10:00:00.000+00:00"  # stored in UTC, milliseconds
        assert g.rejections[0].verdict == "rejected" and g.rejections[0].diagnosis == "robot b6 moved backwards"
        assert g.rejections[0].after == AFTER_W
        assert [e.kind for e in g.events] == ["resumed"] and g.events[0].detail == {"reason": "restart"}
        assert g.finished and g.result == "black wins" and g.reason == "target row" and g.ended_at
        assert g.position == AFTER_B == j.current_position(gid)
        assert j.open_game() is None
        [s] = j.games()
        assert (s.id, s.turns, s.rejections, s.status, s.result) == (gid, 2, 1, "finished", "black wins")


def test_records_are_immutable(jpath: Path) -> None:
    with Journal(jpath) as j:
        gid = j.new_game([], START)
        t = j.record_turn(gid, START, AFTER_W, "a1-a2", confidences=[0.5, 0.9])
        g = j.game(gid)
    with pytest.raises(FrozenInstanceError):
        g.status = "finished"  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        t.turn = "b1-b2"  # type: ignore[misc]
    g.turns[0].confidences.append(1.0)  # a fresh copy each time
    assert g.turns[0].confidences == [0.5, 0.9]


def test_undo_keeps_history_and_the_ply_is_played_again(jpath: Path) -> None:
    with Journal(jpath) as j:
        gid = j.new_game([], START)
        j.record_turn(gid, START, AFTER_W, "a1-a2")
        undone = j.undo_last_turn(gid)
        assert undone.turn == "a1-a2" and undone.undone_at is not None
        assert j.current_position(gid) == START
        with pytest.raises(JournalError, match="no turn to take back"):
            j.undo_last_turn(gid)
        j.record_turn(gid, START, AFTER_W, "a1-a3")
        g = j.game(gid)
    assert [t.turn for t in g.turns] == ["a1-a3"]
    assert [(t.turn, t.in_force) for t in g.history] == [("a1-a2", False), ("a1-a3", True)]
    assert [e.kind for e in g.events] == ["undo"] and g.events[0].detail == {"ply": 1, "turn": "a1-a2"}


def test_undoing_the_winning_turn_reopens_the_game(jpath: Path) -> None:
    with Journal(jpath) as j:
        gid = j.new_game([], START)
        j.record_turn(gid, START, AFTER_W, "a1-a2")
        j.finish_game(gid, "white wins", "target row")
        assert j.open_game() is None
        undone = j.undo_last_turn(gid, at="2026-11-23T12:00:00+00:00")
        assert undone.turn == "a1-a2"
        g = j.game(gid)
        assert not g.finished and g.result is None and g.reason is None and g.ended_at is None
        assert g.turns == () and j.current_position(gid) == START
        assert [e.kind for e in g.events] == ["reopened", "undo"]
        assert g.events[0].detail == {"result": "white wins", "reason": "target row"}
        assert j.open_game().id == gid  # a restart resumes it
        j.record_turn(gid, START, AFTER_W, "a1-a3")  # and it takes turns again
        assert [t.turn for t in j.game(gid).turns] == ["a1-a3"]


def test_an_abandoned_game_or_one_followed_by_a_new_game_stays_closed(jpath: Path) -> None:
    with Journal(jpath) as j:
        g1 = j.new_game([], START)
        j.record_turn(g1, START, AFTER_W, "a1-a2")
        g2 = j.new_game([], START)  # abandons g1
        with pytest.raises(JournalError, match="abandoned"):
            j.undo_last_turn(g1)
        j.record_turn(g2, START, AFTER_W, "a1-a2")
        j.finish_game(g2, "white wins", "target row")
        j.new_game([], START)
        with pytest.raises(JournalError, match="has been started since"):
            j.undo_last_turn(g2)
        assert j.game(g2).finished and j.game(g2).result == "white wins"
        assert [t.turn for t in j.game(g2).turns] == ["a1-a2"]


def test_bad_writes_are_refused_with_a_clear_message(jpath: Path) -> None:
    with Journal(jpath) as j:
        gid = j.new_game([], START)
        with pytest.raises(JournalError, match="is in position"):
            j.record_turn(gid, AFTER_W, AFTER_B, "a6-a5")  # not the position the game is in
        with pytest.raises(JournalError, match="bad position after the turn"):
            j.record_turn(gid, START, "BBBBBB/6/6/6/6/WWWWWW 7/xxxxxxx/7/7/7/xxxxxx1/7 b", "a1-a2")
        with pytest.raises(JournalError, match="empty"):
            j.record_turn(gid, START, AFTER_W, "  ")
        with pytest.raises(JournalError, match="JSON"):
            j.record_turn(gid, START, AFTER_W, "a1-a2", confidences={"x": object()})
        with pytest.raises(JournalError, match="bad verdict"):
            j.record_rejection(gid, "illegal", "x")
        with pytest.raises(JournalError, match="diagnosis"):
            j.record_rejection(gid, "unreadable", " ")
        with pytest.raises(JournalError, match="no game 99"):
            j.record_turn(99, START, AFTER_W, "a1-a2")
        with pytest.raises(JournalError, match="bad result"):
            j.finish_game(gid, "draw", "agreed")
        with pytest.raises(JournalError, match="bad start position"):
            j.new_game([], "nonsense")
        with pytest.raises(JournalError, match="rules options"):
            j.new_game("must-capture", START)
        with pytest.raises(JournalError, match="bad time"):
            j.record_event(gid, "x", at="yesterday")
        j.finish_game(gid, "white wins", "target row")
        with pytest.raises(JournalError, match="finished"):
            j.record_turn(gid, START, AFTER_W, "a1-a2")
        with pytest.raises(JournalError, match="finished"):
            j.undo_last_turn(gid)
        # Nothing of the refused writes was stored.
        g = j.game(gid)
        assert g.turns == () and g.rejections == () and g.history == ()


def test_open_game_is_the_one_to_resume_and_a_new_game_abandons_it(jpath: Path) -> None:
    with Journal(jpath) as j:
        first = j.new_game([], START)
        j.record_turn(first, START, AFTER_W, "a1-a2")
    with Journal(jpath) as j:  # a restart
        g = j.open_game()
        assert g is not None and g.id == first and g.position == AFTER_W
        second = j.new_game(["jump-enemies"], START)
        assert j.open_game().id == second
        old = j.game(first)
        assert old.result == "abandoned" and old.status == "finished" and old.turns  # kept
        assert [s.id for s in j.games()] == [first, second]


def test_readonly_journal_reads_but_does_not_write(jpath: Path) -> None:
    with Journal(jpath) as j:
        gid = j.new_game([], START)
    with Journal(jpath, readonly=True) as r:
        assert r.game(gid).id == gid
        with pytest.raises(JournalError, match="read-only"):
            r.record_turn(gid, START, AFTER_W, "a1-a2")
    with pytest.raises(JournalError, match="no journal at"):
        Journal(jpath.with_name("missing.sqlite"), readonly=True)
    with pytest.raises(JournalError, match="no journal at"):
        Journal(jpath.with_name("missing.sqlite"), create=False)


def test_the_file_is_wal_with_full_sync_and_versioned(jpath: Path) -> None:
    with Journal(jpath) as j:
        conn = j._conn
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    conn = sqlite3.connect(jpath)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()


def test_default_path_follows_the_state_directory(tmp_path: Path) -> None:
    assert default_journal_path({"STATE_DIRECTORY": "/var/lib/netzwerk"}) == Path("/var/lib/netzwerk/journal.sqlite")
    assert default_journal_path({"STATE_DIRECTORY": "/a:/b"}) == Path("/a/journal.sqlite")
    assert default_journal_path({}).parts[-3:] == ("state", "netzwerk", "journal.sqlite")


# -- damaged and foreign files: a clear error naming the file, the file untouched ---------


def test_a_file_that_is_not_sqlite(jpath: Path) -> None:
    jpath.parent.mkdir(parents=True)
    jpath.write_text("this is my shopping list\n")
    before = digest(jpath)
    with pytest.raises(JournalError) as exc:
        Journal(jpath)
    assert str(jpath) in str(exc.value) and "not a Netzwerk journal" in str(exc.value)
    assert digest(jpath) == before


def test_another_programs_database(jpath: Path) -> None:
    jpath.parent.mkdir(parents=True)
    conn = sqlite3.connect(jpath)
    conn.execute("CREATE TABLE recipes (name TEXT)")
    conn.commit()
    conn.close()
    before = digest(jpath)
    with pytest.raises(JournalError, match="another program"):
        Journal(jpath)
    assert digest(jpath) == before


def test_a_newer_schema(jpath: Path) -> None:
    Journal(jpath).close()
    conn = sqlite3.connect(jpath)
    conn.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    with pytest.raises(JournalError, match="newer than this program"):
        Journal(jpath)


def test_damaged_pages(jpath: Path) -> None:
    with Journal(jpath) as j:
        gid = j.new_game([], START)
        for i in range(40):
            pos = j.current_position(gid)
            j.record_turn(gid, pos, AFTER_W if pos == START else START, "a1-a2", confidences={"i": i})
    conn = sqlite3.connect(jpath)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    data = bytearray(jpath.read_bytes())
    assert len(data) >= 3 * page
    data[page + 8 : 2 * page] = b"\xa5" * (page - 8)  # scribble over the second page
    jpath.write_bytes(bytes(data))
    before = digest(jpath)
    with pytest.raises(JournalError) as exc:
        Journal(jpath)
    assert str(jpath) in str(exc.value)
    assert digest(jpath) == before


def test_truncated_header_and_a_directory(jpath: Path) -> None:
    jpath.parent.mkdir(parents=True)
    jpath.write_bytes(b"SQLite")
    with pytest.raises(JournalError, match="not an SQLite database"):
        Journal(jpath)
    with pytest.raises(JournalError, match="is a directory"):
        Journal(jpath.parent)


def test_set_aside_keeps_the_broken_file_and_a_new_journal_starts(jpath: Path) -> None:
    jpath.parent.mkdir(parents=True)
    jpath.write_text("garbage")
    with pytest.raises(JournalError):
        Journal(jpath)
    moved = set_aside(jpath)
    assert moved.read_text() == "garbage" and not jpath.exists()
    with Journal(jpath) as j:
        assert j.games() == []


# -- crash safety ------------------------------------------------------------------------

WRITER = textwrap.dedent(
    """
    import sys
    from companion.referee.journal import Journal
    A = sys.argv[2]
    B = sys.argv[3]
    j = Journal(sys.argv[1])
    g = j.open_game()
    gid = g.id if g is not None else j.new_game([], A)
    pos = j.current_position(gid)
    while True:
        after = B if pos == A else A
        t = j.record_turn(gid, pos, after, "a1-a2", confidences={"n": 1})
        # Only now may the referee say "accepted": tell the parent.
        sys.stdout.write(f"{gid} {t.ply}\\n")
        sys.stdout.flush()
        pos = after
    """
)


def test_sigkill_loses_no_recorded_turn_and_the_game_resumes(jpath: Path, tmp_path: Path) -> None:
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    jpath.parent.mkdir(parents=True)
    a = START
    b = AFTER_W
    expected_ply = 0
    for round_ in range(5):
        proc = subprocess.Popen(
            [sys.executable, str(script), str(jpath), a, b],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        acknowledged: list[tuple[int, int]] = []
        stop_after = 15 + 7 * round_
        assert proc.stdout is not None
        for line in proc.stdout:
            gid, ply = map(int, line.split())
            acknowledged.append((gid, ply))
            if len(acknowledged) >= stop_after:
                os.kill(proc.pid, signal.SIGKILL)  # mid-write, most likely
                break
        proc.wait(timeout=20)
        assert proc.returncode == -signal.SIGKILL, proc.stderr.read() if proc.stderr else ""
        with Journal(jpath) as j:
            game = j.open_game()
            assert game is not None, "the game must be resumable"
            plies = [t.ply for t in game.turns]
            assert plies == list(range(1, len(plies) + 1))
            last_ack = acknowledged[-1][1]
            assert len(plies) >= last_ack, f"acknowledged ply {last_ack} lost (journal has {len(plies)})"
            assert plies[0] == 1 and expected_ply < last_ack
            expected_ply = last_ack
            # Positions chain: each turn starts where the previous ended.
            for prev, cur in zip(game.turns, game.turns[1:]):
                assert cur.before == prev.after
            assert game.id == acknowledged[0][0]


def test_a_reader_sees_the_writers_turns_while_the_service_runs(jpath: Path) -> None:
    with Journal(jpath) as writer:
        gid = writer.new_game([], START)
        writer.record_turn(gid, START, AFTER_W, "a1-a2")
        assert jpath.with_name(jpath.name + "-wal").exists()  # the service holds the WAL open
        with Journal(jpath, readonly=True) as reader:
            assert [t.turn for t in reader.game(gid).turns] == ["a1-a2"]
            writer.record_turn(gid, AFTER_W, AFTER_B, "a6-a5")
            assert [t.turn for t in reader.game(gid).turns] == ["a1-a2", "a6-a5"]
            assert reader.open_game().position == AFTER_B


def test_a_game_copied_in_as_a_demo_touches_no_other_game(tmp_path: Path) -> None:
    from companion.referee.journal import DEMO_EVENT

    with Journal(tmp_path / "demo.sqlite") as demo:
        g = demo.new_game(["must-capture"], START)
        after = "BBBBBB/6/6/6/6/WWWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 b"
        demo.record_turn(g, START, after, "a1-a1", confidences={"p": 0.9})
        demo.record_rejection(g, "rejected", "a robot moved diagonally", after)
        demo.record_event(g, "hint", {"turn": "b1-b2"})
        played = demo.game(g)  # not finished: the demo stopped
    with Journal(tmp_path / "j.sqlite") as j:
        won = j.new_game([], START)
        j.record_turn(won, START, "BBBBBB/6/6/6/6/WWWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 b", "a1-a1")
        j.finish_game(won, "white wins", "test")
        saved = j.add_finished_game(played, tag=DEMO_EVENT, reason="the camera could not read the board")
        copy = j.game(saved)
        assert copy.demo and not j.game(won).demo
        assert copy.result == "abandoned" and copy.reason == "the camera could not read the board"
        assert [t.turn for t in copy.turns] == ["a1-a1"] and copy.turns[0].confidences == {"p": 0.9}
        assert copy.rejections == played.rejections and copy.events[:-1] == played.events
        assert copy.rules == ("must-capture",) and copy.started_at == played.started_at
        assert [g.demo for g in j.games()] == [False, True]
        # a demo game played since does not stop the real game's winning turn from being taken back
        assert j.undo_last_turn(won).turn == "a1-a1" and j.open_game().id == won
