"""SIGKILL the companion at random points of a game, 50 times: every turn the LEDs called accepted
is in the journal, and the game resumes.

Each run is a forked child process running the real game loop (mock pins,
ManualClock) on a fast fake camera that looks at a "table" kept in a file (the
board outlives the process, as on a real table). The child plays: if the board
shows the companion's position it makes a random legal turn on the table, then
presses the mover's confirm button; whenever the panel shows "accepted" it
appends ``game ply turn`` to a witness file (what a player saw). The parent
kills it with SIGKILL after a random delay and starts the next run, which
resumes from the journal. A kill between the player's move and the journal
commit leaves a board that differs from the journal: the next run says so and
takes the confirm press.

The delay is the child's own CPU time (``/proc/PID/stat``), not the wall clock:
on a machine busy with other work a child may get no CPU for a wall-clock
while, and a wall-clock delay would kill it before it did anything (no
progress, nothing checked). Measured in its CPU time the kills fall at the same
points of its work however loaded the machine is.
"""

from __future__ import annotations

import os
import random
import signal
import sys
import time
from pathlib import Path

import pytest

from companion.rules.engine import apply_turn, random_turn
from companion.referee.game import OVER, PLAYING, CHECK
from companion.referee.journal import Journal
from companion.rules.position import Placement, Position

from .helpers import FileTableCamera, close, hold_both_confirms, make, press, read_table, write_table

KILLS = 50
TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
POLL = 0.003  # seconds between two looks at the child's CPU time
PATIENCE = 120.0  # wall-clock seconds a run may take to get its CPU time (then it is killed where it is)


def _cpu_seconds(pid: int) -> float | None:
    """The CPU time (user + system) the process ``pid`` has used, or None when it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) ": state is field 3, utime 14, stime 15
    return (int(fields[11]) + int(fields[12])) / TICK


def _kill_after_cpu(pid: int, seconds: float) -> int:
    """SIGKILL the child ``pid`` once it has used ``seconds`` of CPU time; its wait status (it may
    also have ended by itself before: the caller checks)."""
    give_up = time.monotonic() + PATIENCE
    while time.monotonic() < give_up:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        used = _cpu_seconds(pid)
        if used is None or used >= seconds:
            break
        time.sleep(POLL)
    os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    return status


def _child(tmp: Path, seed: int) -> None:
    from hardware.timing import ManualClock

    clock = ManualClock()
    source = FileTableCamera(tmp / "table.txt", clock)
    comp, _ = make(tmp, source=source, clock=clock, calibration="fake")
    witness = os.open(tmp / "witness.txt", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    r = random.Random(seed)
    comp.run_for(0.5)
    while True:
        if comp.phase == OVER:
            hold_both_confirms(comp)
            write_table(tmp / "table.txt", Placement.of(Position.start()))
            comp.run_for(0.5)
            continue
        if comp.phase not in (PLAYING, CHECK) or comp.game_id is None:
            comp.run_for(0.2)
            continue
        pos = comp.referee.position
        board = read_table(tmp / "table.txt")
        if board == Placement.of(pos):
            write_table(tmp / "table.txt", Placement.of(apply_turn(pos, random_turn(pos, r))))
            comp.run_for(0.35)
        press(comp, f"confirm_{pos.to_move.name.lower()}")
        n = len(comp.log)
        comp.run_for(0.1)
        if comp.panel.state().status == "accepted":
            e = next(e for e in comp.log[n - 1:] if e.kind == "accepted")
            os.write(witness, f"{comp.game_id} {e.ply} {e.turn}\n".encode())


@pytest.mark.skipif(sys.platform != "linux", reason="fork and SIGKILL")
def test_sigkill_at_random_points_loses_no_accepted_turn(tmp_path):
    write_table(tmp_path / "table.txt", Placement.of(Position.start()))
    rng = random.Random(2026)
    for k in range(KILLS):
        pid = os.fork()
        if pid == 0:  # the companion process
            code = 0
            try:
                _child(tmp_path, seed=k)
            except BaseException:  # noqa: BLE001 - a crash of the child is reported through its exit code
                import traceback

                traceback.print_exc()
                code = 1
            os._exit(code)
        st = _kill_after_cpu(pid, rng.uniform(0.02, 0.3))
        assert os.WIFSIGNALED(st) and os.WTERMSIG(st) == signal.SIGKILL, f"run {k} ended by itself: {st}"

    witnessed = [line.split(" ", 2) for line in (tmp_path / "witness.txt").read_text().splitlines()]
    assert len(witnessed) >= 10, f"the runs made progress ({len(witnessed)} accepted turns seen)"
    with Journal(tmp_path / "journal.sqlite") as journal:
        for game_id, ply, turn in witnessed:
            game = journal.game(int(game_id))
            in_force = {t.ply: t.turn for t in game.turns}
            assert in_force.get(int(ply)) == turn, f"game {game_id} ply {ply}: {turn} was shown accepted but is not journalled"
        games = journal.games()
        assert all(g.status == "finished" for g in games[:-1]), "only the latest game can be open"
        assert all(g.result in ("white wins", "black wins") for g in games if g.status == "finished")
        open_game = journal.open_game()
        if open_game is not None:
            expected = Position.from_string(open_game.start_position)
            for t in open_game.turns:
                expected = apply_turn(expected, t.turn)
            assert expected.to_string() == open_game.position
        else:  # killed after a win: the next run waits for the start position and opens a new game
            expected = Position.start()

    # the game resumes: the board is put as the journal says, a new turn is accepted
    write_table(tmp_path / "table.txt", Placement.of(expected))
    from hardware.timing import ManualClock

    clock = ManualClock()
    comp, _ = make(tmp_path, source=FileTableCamera(tmp_path / "table.txt", clock), clock=clock, calibration="fake")
    try:
        comp.run_for(1.0)
        assert comp.phase == PLAYING and comp.referee.position == expected
        turn = random_turn(expected, random.Random(1))
        write_table(tmp_path / "table.txt", Placement.of(apply_turn(expected, turn)))
        comp.run_for(0.5)
        press(comp, f"confirm_{expected.to_move.name.lower()}")
        comp.run_for(0.3)
        assert comp.panel.state().status == "accepted"
        assert comp.journal.open_game().turns[-1].after == apply_turn(expected, turn).to_string()
    finally:
        close(comp)
