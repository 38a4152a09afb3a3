"""`netzwerk demo` after its game, as a real process: watched (a terminal, or ``--stay``) its page stays up with
the final board and the result until Ctrl-C or SIGTERM, then stops cleanly and tells the browsers; without a
terminal (tests, CI, scripts that wait for it) it ends with the game. Then the same in Debian's headless
Chromium: the page keeps the final board, says that the companion has stopped (never "reconnecting…" for
ever), and follows the game again by itself when a server is back on its address.

The demo's game itself is stood in for (a whole one takes a minute and a half on this machine; the loop's
win on the page is tests/web/test_page_win.py): the process is the real command, with its real page, signals
and exit, and the stand-in hands the page the loop's last view of a won game, as the demo's loop does.
"""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from companion.cli.run import stays_up
from companion.web import chromium

ROOT = Path(__file__).resolve().parents[2]
FINAL = "6/6/6/6/6/WWWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 b"
REASON = "Black has no robot left"

DRIVER = f'''
import signal
import sys

# Ctrl-C as at a terminal: a suite started as a background job (``cmd &`` in a script) hands its processes
# SIGINT ignored, and Python keeps an inherited "ignored" (so does the demo: such a job cannot be sent Ctrl-C)
signal.signal(signal.SIGINT, signal.default_int_handler)

import companion.demo
from companion.cli import main
from companion.referee.view import GameView, VerdictView


def game(*, spectator=None, **kwargs):
    """Stands for the demo's game: the loop's last view, a win, handed to the page as the loop does."""
    if spectator is not None:
        spectator.take_requests(lambda event: True)
        spectator.game_changed(GameView(
            seq=40, game_id=1, phase="over", step="idle", position={FINAL!r},
            start="BBBBBB/6/6/6/6/WWWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 w", turns=("c1-c2",), options=(),
            starting_side="white", result="white wins", reason={REASON!r},
            last_verdict=VerdictView("accepted", "White: c1-c2", 1, "c1-c2", (), ()), blank=(),
            status="game 1 is over: white wins", recent=()))
    print("1 turns accepted; result: white wins", flush=True)


companion.demo.run_demo = game
sys.exit(main(sys.argv[1:]))
'''


def demo(*args: str) -> subprocess.Popen:
    """`netzwerk demo` with the stand-in game, on a free loopback port, standard input not a terminal."""
    return subprocess.Popen([sys.executable, "-c", DRIVER, "demo", "--no-save", "--no-color", "--web", "127.0.0.1:0",
                             *args], cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def staying(proc: subprocess.Popen) -> tuple[int, list[str]]:
    """The page's port, once the demo says that its page stays up (and the lines it printed until then)."""
    lines = [proc.stdout.readline()]
    page = re.match(r"netzwerk demo: the web page is at http://127\.0\.0\.1:(\d+)/ ", lines[0])
    assert page, (lines, proc.stderr.read() if proc.poll() is not None else "")
    while "stays up" not in lines[-1]:
        line = proc.stdout.readline()
        assert line, (lines, proc.stderr.read())
        lines.append(line)
    return int(page.group(1)), lines


def state(port: int) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=10) as reply:
        return json.loads(reply.read())


def ended(proc: subprocess.Popen) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, out, err


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
def test_the_demo_page_stays_up_after_the_game_until_stopped(stop: signal.Signals) -> None:
    proc = demo("--stay")
    try:
        port, lines = staying(proc)
        assert lines[-1].startswith(f"netzwerk demo: the game has ended; the web page stays up at "
                                    f"http://127.0.0.1:{port}/ with the final board until Ctrl-C (or SIGTERM)")
        time.sleep(1.0)
        assert proc.poll() is None  # it waits
        final = state(port)  # the final board and the result, after the game
        assert (final["position"], final["result"], final["reason"]) == (FINAL, "white", REASON)
        live = socket.create_connection(("127.0.0.1", port), timeout=20)
        live.sendall(b"GET /api/events HTTP/1.1\r\nHost: x\r\n\r\n")
        got = b""
        deadline = time.monotonic() + 20  # the stream's keepalives never let recv time out: a deadline of its own
        while b"event: state" not in got and time.monotonic() < deadline:
            got += live.recv(65536)
        proc.send_signal(stop)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and (chunk := live.recv(65536)):  # the stream ends, saying why
            got += chunk
        live.close()
        assert b'event: bye\ndata: {"reason": "the companion has stopped"}' in got
    finally:
        code, out, err = ended(proc)
    assert code == 0, err
    assert out.rstrip().endswith("netzwerk demo: stopped; the page says so") and err == ""
    with pytest.raises(OSError):  # nothing serves there any more
        state(port)


@pytest.mark.parametrize("args", [(), ("--stay", "--web", "off"), ("--no-stay",)],
                         ids=["no terminal", "no page", "--no-stay"])
def test_the_demo_ends_with_its_game_when_nobody_watches_its_page(args: tuple[str, ...]) -> None:
    proc = demo(*args)
    code, out, err = ended(proc)  # within 30 s, not at Ctrl-C
    assert code == 0, err
    assert "result: white wins" in out and "stays up" not in out


class Stream:
    def __init__(self, tty: bool) -> None:
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


class Closed:
    def isatty(self) -> bool:
        raise ValueError("I/O operation on closed file")


def test_who_the_page_stays_up_for() -> None:
    tty, pipe = Stream(True), Stream(False)
    assert stays_up(None, fast=False, served=True, stdin=tty, stdout=tty)  # a person at a terminal
    assert not stays_up(None, fast=True, served=True, stdin=tty, stdout=tty)  # --fast: never waits by itself
    assert not stays_up(None, fast=False, served=True, stdin=pipe, stdout=tty)  # no input: nobody to press Ctrl-C
    assert not stays_up(None, fast=False, served=True, stdin=tty, stdout=pipe)  # output read by a program
    assert not stays_up(None, fast=False, served=True, stdin=Closed(), stdout=tty)
    assert not stays_up(None, fast=False, served=False, stdin=tty, stdout=tty)  # no page (--web off, port in use)
    assert stays_up(True, fast=True, served=True, stdin=pipe, stdout=pipe)  # --stay
    assert not stays_up(True, fast=False, served=False, stdin=tty, stdout=tty)  # --stay, but no page to keep
    assert not stays_up(False, fast=False, served=True, stdin=tty, stdout=tty)  # --no-stay


@pytest.mark.skipif(chromium.missing() is not None, reason=str(chromium.missing()))
def test_the_page_keeps_the_final_board_says_the_companion_stopped_and_comes_back(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    from companion.referee.view import GameView
    from companion.rules.position import START_STRING
    from companion.web.hub import Hub
    from companion.web.server import WebServer
    from companion.web.settings import WebSettings

    proc = demo("--stay")
    server = None
    try:
        port, _ = staying(proc)
        with sync_playwright() as pw:
            browser = chromium.launch(pw, tmp_path / "profile", viewport={"width": 412, "height": 915})
            page = browser.new_page()
            faults: list[str] = []
            page.on("pageerror", lambda exc: faults.append(str(exc)))
            page.goto(f"http://127.0.0.1:{port}/")
            page.wait_for_selector("#link.up")
            page.wait_for_function("() => document.getElementById('board').dataset.position !== undefined")
            assert page.get_attribute("#board", "data-position") == FINAL
            assert page.inner_text("#result") == f"White wins: {REASON}"
            assert not page.is_visible("#gone")
            page.evaluate("""() => {  // every text the live indicator shows from now on
                window.linkTexts = [];
                new MutationObserver(() => window.linkTexts.push(document.getElementById('link').textContent))
                    .observe(document.getElementById('link'), {childList: true, characterData: true, subtree: true});
            }""")

            proc.send_signal(signal.SIGTERM)
            code, _, err = ended(proc)
            assert code == 0, err
            page.wait_for_function("() => document.getElementById('link').textContent === 'stopped'",
                                   timeout=10_000)
            assert page.is_visible("#gone")
            assert page.inner_text("#gone").startswith("The companion has stopped: the page shows its last state")
            time.sleep(6.0)  # a quiet retry or more, with nothing serving on the port
            assert page.inner_text("#link") == "stopped" and page.is_visible("#gone")
            assert page.get_attribute("#board", "data-position") == FINAL  # the final board and result stay
            assert page.inner_text("#result") == f"White wins: {REASON}"
            assert "reconnecting…" not in page.evaluate("window.linkTexts")

            # the companion is back on the same address (another game): the page follows it by itself
            hub = Hub(max_clients=2)
            hub.game_changed(GameView(seq=1, game_id=2, phase="playing", step="idle", position=START_STRING,
                                      start=START_STRING, turns=(), options=(), starting_side="white", result=None,
                                      reason=None, last_verdict=None, blank=(), status="game 2, turn 1: White to move",
                                      recent=()))
            server = WebServer(WebSettings(bind="127.0.0.1", port=port, max_clients=2), hub, None)
            server.start()
            page.wait_for_selector("#link.up", timeout=15_000)
            page.wait_for_function(f"() => document.getElementById('board').dataset.position === {START_STRING!r}",
                                   timeout=10_000)
            assert not page.is_visible("#gone") and not page.is_visible("#result")
            assert faults == []
            browser.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if server is not None:
            server.stop()
