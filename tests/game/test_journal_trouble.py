"""The game loop when the journal cannot be read or written: a damaged open game, a full
disk when a new game starts, a read-only journal. Nothing crashes and nothing is lost."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess

import pytest

from companion.referee.game import CHECK, PLAYING
from companion.referee.journal import Journal, JournalError
from companion.rules.position import START_STRING

from .helpers import close, make, ready


def test_a_damaged_open_game_is_left_as_it_is_and_a_new_game_starts(tmp_path):
    path = tmp_path / "journal.sqlite"
    with Journal(path) as j:
        old = j.new_game([], START_STRING)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE games SET rules='{not json' WHERE id=?", (old,))
    conn.commit()
    conn.close()
    comp, _ = make(tmp_path)
    try:
        ready(comp)
        assert comp.phase == PLAYING and comp.game_id == old + 1
        assert any("cannot be read" in e.text and f"game {old} is damaged" in e.text for e in comp.log)
        games = comp.journal.games()
        assert games[0].damaged is not None and games[1].damaged is None
    finally:
        close(comp)
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT rules FROM games WHERE id=?", (old,)).fetchone() == ("{not json",)
    conn.close()


def test_a_full_disk_when_a_new_game_starts_keeps_the_loop_running(tmp_path, monkeypatch):
    comp, _ = make(tmp_path)
    real = comp.journal.new_game
    disk = {"full": True, "tries": 0}

    def full(*args, **kwargs):
        if disk["full"]:
            disk["tries"] += 1
            raise JournalError("journal x: database or disk is full")
        return real(*args, **kwargs)

    monkeypatch.setattr(comp.journal, "new_game", full)
    try:
        comp.run_for(1.0)
        assert comp.phase == CHECK and comp.game_id is None
        assert comp.panel.state().status == "unreadable"
        warnings = [e for e in comp.log if "cannot be written to the journal" in e.text]
        assert len(warnings) == 1 and disk["tries"] > 1  # tried at every frame, said once
        disk["full"] = False  # space again: the game begins
        ready(comp)
        assert comp.phase == PLAYING and comp.game_id == 1
    finally:
        close(comp)


def test_an_unwritable_journal_is_refused_when_opened(tmp_path):
    path = tmp_path / "journal.sqlite"
    Journal(path).close()
    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode:
        pytest.skip("cannot make the journal immutable here (chattr needs CAP_LINUX_IMMUTABLE)")
    try:
        with pytest.raises(JournalError, match="cannot be written"):
            Journal(path)
        with Journal(path, readonly=True) as j:  # `games` still reads it
            assert j.games() == []
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)
