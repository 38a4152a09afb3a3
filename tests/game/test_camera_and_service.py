"""A failing camera (raises, black frames, stalls), sd_notify from the loop, camera specs, the CLI."""

from __future__ import annotations

import json
import random
import re
import socket
import time
import urllib.request

import pytest

from companion.cameras import CameraError, GuardedSource, ReplayCamera, open_camera
from companion.rules.engine import apply_turn, random_turn
from companion.referee.game import PLAYING
from companion.rules.position import Placement
from companion.sd_notify import Notifier

from companion.rules.position import Position

from .helpers import Table, TableCamera, close, make, play, press, ready


def test_camera_that_raises_amber_with_the_message_nothing_lost(game):
    comp, table = game
    r = random.Random(1)
    play(comp, table, random_turn(comp.referee.position, r))
    pos = comp.referee.position
    turn = random_turn(pos, r)
    table.board = Placement.of(apply_turn(pos, turn))
    table.mode = "raise"
    comp.run_for(0.3)
    assert comp.panel.state().status == "unreadable"
    assert comp.log[-1].kind == "camera" and "unplugged" in comp.log[-1].text
    press(comp, "confirm_black")
    comp.run_for(comp.timings.confirm_timeout + 0.3)
    assert comp.pending is None and "no frame from the camera" in comp.log[-1].text
    assert comp.referee.position == pos and len(comp.journal.game(comp.game_id).turns) == 1
    table.mode = "ok"
    comp.run_for(0.5)
    assert any(e.text == "the camera delivers frames again" for e in comp.log)
    press(comp, "confirm_black")
    comp.run_for(0.3)
    assert comp.panel.state().status == "accepted"
    assert [t.turn for t in comp.journal.game(comp.game_id).turns][-1] == str(turn)


def test_black_frames_are_unreadable_never_a_turn(game):
    comp, table = game
    pos = comp.referee.position
    table.board = Placement.of(apply_turn(pos, random_turn(pos, random.Random(2))))
    table.mode = "black"
    comp.run_for(0.5)
    press(comp, "confirm_white")
    comp.run_for(0.8)
    assert comp.panel.state().status == "unreadable"
    assert "black" in comp.log[-1].text
    assert comp.referee.position == pos
    table.mode = "ok"
    comp.run_for(0.5)
    assert comp.panel.state().status == "accepted"  # the same press, read again


def test_a_stalled_camera_is_reported_not_waited_for(tmp_path):
    from hardware.timing import ManualClock

    clock = ManualClock()
    table = Table(Placement.of(Position.start()))
    guarded = GuardedSource(TableCamera(table, clock), timeout=0.2)
    comp, _ = make(tmp_path, source=guarded, clock=clock)
    try:
        comp.run_for(2.0)
        assert comp.phase == PLAYING
        table.mode = "stall"
        t0 = time.perf_counter()
        comp.run_for(0.3)
        assert time.perf_counter() - t0 < 2.0, "the loop did not hang on the camera"
        assert comp.log[-1].kind == "camera" and "stalled" in comp.log[-1].text
        assert comp.panel.state().status == "unreadable"
    finally:
        table.mode = "ok"
        close(comp)


def test_ready_status_and_watchdog_pings_from_the_loop(tmp_path):
    import threading

    path = tmp_path / "notify.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(str(path))
    server.settimeout(0.2)
    messages: list[str] = []
    done = threading.Event()

    def listen() -> None:  # like systemd: read every datagram as it comes
        while not done.is_set():
            try:
                messages.append(server.recv(4096).decode())
            except TimeoutError:
                continue

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    notifier = Notifier({"NOTIFY_SOCKET": str(path), "WATCHDOG_USEC": "400000"})
    comp, table = make(tmp_path, notifier=notifier)
    try:
        comp.run_for(2.0)
        comp.close()
        time.sleep(0.3)
    finally:
        done.set()
        listener.join(2)
        server.close()
        comp.panel.close()
        comp.journal.close()
    assert messages and messages[0].startswith("READY=1")
    pings = sum(1 for m in messages if m == "WATCHDOG=1")
    assert pings >= 8  # every 0.2 s of the loop's clock for 2 s
    assert any(m.startswith("STATUS=") and "White to move" in m for m in messages)
    assert messages[-1].startswith("STOPPING=1")


def test_camera_specs_and_clear_errors(tmp_path):
    with pytest.raises(CameraError, match="does not exist"):
        open_camera(f"replay:{tmp_path / 'nope'}")
    with pytest.raises(CameraError, match="no .jpg"):
        open_camera(f"replay:{tmp_path}")
    with pytest.raises(ValueError, match="unknown camera"):
        open_camera("webcam")
    with pytest.raises(CameraError, match="picamera2"):
        open_camera("picamera2")
    with pytest.raises(CameraError, match="camera 7"):
        open_camera("opencv:7")
    import cv2
    import numpy as np

    for i in range(2):
        cv2.imwrite(str(tmp_path / f"{i:02d}.png"), np.full((40, 60, 3), 60 + 80 * i, np.uint8))
    (tmp_path / "03.png").write_text("not an image")
    now = [0.0]
    cam = ReplayCamera(tmp_path, hold=1.0, clock=lambda: now[0])
    assert cam.grab().name == "00.png"
    now[0] = 1.5
    assert cam.grab().name == "01.png"
    now[0] = 2.5
    with pytest.raises(CameraError, match="03.png"):
        cam.grab()


def test_cli_run_without_a_pi_exits_2_with_a_message(capsys, tmp_path):
    from companion.cli import main

    assert main(["run", "--gpio", "auto", "--journal", str(tmp_path / "j.sqlite")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("netzwerk run: ") and "GPIO" in err and "\n" == err[-1] and err.count("\n") == 1
    # no camera (yet): exit 1, which the service restarts; a config error (exit 2) it does not
    assert main(["run", "--gpio", "mock", "--camera", "opencv:9", "--journal", str(tmp_path / "j.sqlite")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("netzwerk run: ") and "camera" in err and err.count("\n") == 1
    bad = tmp_path / "bad.toml"
    bad.write_text("[camera]\nsource = 3\n")
    assert main(["run", "--gpio", "mock", "--config", str(bad)]) == 2
    assert "line 2" in capsys.readouterr().err
    assert main(["demo", "--option", "nonsense"]) == 2
    assert "unknown rule option" in capsys.readouterr().err


def test_save_frames_keeps_the_start_and_every_press_for_the_audit(tmp_path):
    from companion.referee.frames import FrameArchive

    archive = FrameArchive(tmp_path / "frames", cap_mib=10, suffix=".png")
    comp, table = make(tmp_path, frames=archive)
    try:
        ready(comp)
        pos = comp.referee.position
        turn = random_turn(pos, random.Random(3))
        table.board = Placement((pos.white - {0}) | {20}, pos.black, pos.batteries)  # a slip
        comp.run_for(0.5)
        press(comp, "confirm_white")
        comp.run_for(0.3)
        play(comp, table, turn)
        names = sorted(p.name for p in (tmp_path / "frames" / "game-000001").iterdir() if not p.name.startswith("."))
        assert names == ["00000-start.png", "00001-ply0001-try1.png", "00002-ply0001-try2.png"]
    finally:
        close(comp)


def test_netzwerk_run_in_real_time_on_mock_pins_and_the_sim_camera(tmp_path):
    """The service path: a real process, real time, READY over the notify socket, SIGTERM -> exit 0."""
    import os
    import signal
    import subprocess
    import sys

    from companion.referee.journal import Journal

    sock_path = tmp_path / "notify.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(str(sock_path))
    server.settimeout(150)  # generous: on a loaded 2-core CI machine start-up and calibration took > 60 s once
    env = dict(os.environ, NOTIFY_SOCKET=str(sock_path), STATE_DIRECTORY=str(tmp_path / "state"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "run", "--gpio", "mock", "--camera", "sim",
         "--journal", str(tmp_path / "journal.sqlite"), "--no-save-frames", "--web", "127.0.0.1:0"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    messages: list[str] = []
    state: dict = {}
    try:
        first = proc.stdout.readline()  # the page's address comes first
        page = re.match(r"netzwerk run: the web page is at http://127\.0\.0\.1:(\d+)/ \(bound to 127\.0\.0\.1", first)
        assert page, first
        deadline = time.monotonic() + 150
        while not any("White to move" in m for m in messages) and time.monotonic() < deadline:
            try:
                messages.append(server.recv(4096).decode())
            except TimeoutError:
                break
        # the page publishes the loop's state at the end of the tick whose log line said
        # "White to move": on a loaded machine the request can come first, so ask until it follows
        while True:
            with urllib.request.urlopen(f"http://127.0.0.1:{page.group(1)}/api/state", timeout=30) as reply:
                state = json.loads(reply.read())
            if state.get("phase") == "playing" or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        server.close()
    assert messages and messages[0].startswith("READY=1"), (messages, err)
    assert any("White to move" in m for m in messages), ("no game opened", messages, err)
    assert proc.returncode == 0, err
    assert "game 1 begins" in out
    # the page follows the referee: the game that began, White to move from the start
    assert state["game_id"] == 1 and state["phase"] == "playing" and state["to_move"] == "white"
    assert state["position"] == "BBBBBB/6/6/6/6/WWWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 w" and state["ply"] == 0
    with Journal(tmp_path / "journal.sqlite", readonly=True) as j:
        assert j.open_game().id == 1
    assert (tmp_path / "calibration.json").exists()


def test_a_camera_that_stays_dead_ends_run_so_the_service_restarts_it(tmp_path):
    from dataclasses import replace

    from .helpers import TIMINGS

    comp, table = make(tmp_path, timings=replace(TIMINGS, camera_giveup=3.0))
    try:
        comp.run_for(2.0)
        table.mode = "raise"
        with pytest.raises(CameraError, match="no usable frame for 3 s"):
            comp.run()
        assert [e.kind for e in comp.log].count("camera") == 1  # said once, not every frame
        assert len(comp.journal.games()) == 1
    finally:
        close(comp)


def test_a_press_timed_out_without_frames_says_press_again_once(game):
    """A confirm press waiting when the camera stops: at the timeout one line asks for a new press."""
    comp, table = game
    pos = comp.referee.position
    table.board = Placement.of(apply_turn(pos, random_turn(pos, random.Random(3))))
    comp.run_for(0.5)
    table.mode = "raise"
    press(comp, "confirm_white")
    comp.run_for(comp.timings.confirm_timeout + 0.3)
    given_up = [e for e in comp.log if "no frame from the camera" in e.text]
    assert comp.pending is None and len(given_up) == 1
    assert given_up[0].kind == "unreadable" and given_up[0].text.count("press confirm again") == 1, given_up[0].text
    table.mode = "ok"


class RefusingReader:
    """A reader that refuses every frame (a camera mode of another size than the calibration's)."""

    def __init__(self) -> None:
        self.reads = 0

    def read(self, image):  # noqa: ANN001, ANN201
        self.reads += 1
        raise ValueError(f"frame of {image.shape[1]}x{image.shape[0]} pixels, calibrated for 1280x960")


def test_a_reader_that_refuses_every_frame_is_said_once_not_every_tick(tmp_path):
    comp, table = make(tmp_path, calibration="fake", make_reader=lambda cal: RefusingReader())
    try:
        comp.run_for(0.5)
        said = [e for e in comp.log if e.kind == "camera"]
        assert comp.reader.reads >= 4
        assert [e.text for e in said] == ["the frame cannot be read: frame of 86x1 pixels, calibrated for 1280x960"]
        comp.run_for(2.0)
        assert [e for e in comp.log if e.kind == "camera"] == said, "the same refusal is said once"
        assert comp.panel.state().status == "unreadable"
        with pytest.raises(CameraError, match="no usable frame"):  # `run` ends: the service opens the camera again
            comp.camera.give_up_after(2.0)
    finally:
        close(comp)
