"""The win on the page, in Debian's headless Chromium: the game loop (mock pins, the fake table of the loop's
tests) plays a game to its end with the page open; the page shows who won and why, and the banner goes when
the win is taken back (an undo) and comes again with the winning turn."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from companion.referee.game import CHECK, OVER, PLAYING
from companion.rules.position import Placement
from companion.web import chromium
from companion.web.hub import Hub
from companion.web.server import WebServer
from companion.web.settings import WebSettings

pytestmark = pytest.mark.skipif(chromium.missing() is not None, reason=str(chromium.missing()))


class Newest:
    """In front of the page's hub: notes the newest view the loop handed over."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.seq = 0

    def take_requests(self, request: Any) -> None:
        self.hub.take_requests(request)

    def frame_seen(self, image: Any, calibration: Any, reading: Any) -> None:
        self.hub.frame_seen(image, calibration, reading)

    def game_changed(self, view: Any) -> None:
        self.hub.game_changed(view)
        self.seq = view.seq


def shown(page: Any, newest: Newest) -> None:
    """Until the page has drawn the newest view the loop handed over."""
    page.wait_for_function("([seq]) => Number(document.getElementById('board').dataset.seq) >= seq",
                           arg=[newest.seq], timeout=15_000)


def test_the_win_appears_on_the_page_and_goes_with_the_undo(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    from companion.hints.players import GreedyPlayer
    from game.helpers import close, make, play, press, ready

    hub = Hub(max_clients=2)
    settings = WebSettings(bind="127.0.0.1", port=0, max_clients=2, controls=True, passphrase="table-secret-42")
    server = WebServer(settings, hub, tmp_path / "journal.sqlite")
    url = server.start()
    newest = Newest(hub)
    comp, table = make(tmp_path, spectator=newest)
    try:
        with sync_playwright() as pw:
            browser = chromium.launch(pw, tmp_path / "profile", viewport={"width": 412, "height": 915})
            page = browser.new_page()
            faults: list[str] = []
            page.on("pageerror", lambda exc: faults.append(str(exc)))
            page.goto(url)
            ready(comp)
            assert comp.phase == PLAYING
            shown(page, newest)
            assert not page.is_visible("#result")  # no banner while the game goes on
            assert page.is_enabled("#confirm-button") and page.inner_text("#confirm-button") == "Confirm White's turn"
            player, rng = GreedyPlayer(), random.Random(1)
            for _ in range(300):
                if comp.phase == OVER:
                    break
                play(comp, table, player.choose(comp.referee.position, comp.rules, rng), settle=0.35)
            assert comp.phase == OVER
            status = comp.referee.status
            shown(page, newest)
            banner = page.inner_text("#result")
            assert page.is_visible("#result")
            assert banner == f"{status.winner.label} wins: {status.reason}"
            assert page.inner_text("#turn") == f"Game {comp.game_id} is over"
            assert page.locator("#energy li").all_inner_texts() == ["—"]  # nobody moves any more
            assert page.get_attribute("#board", "data-position") == comp.referee.position.to_string()
            assert not page.is_enabled("#confirm-button")  # nobody to confirm for: the game is over

            winning = comp.referee.history[-1]
            press(comp, "undo", hold=2.2)  # the win taken back: the game goes on from the board before it
            comp.run_for(0.3)
            assert comp.phase == CHECK
            shown(page, newest)
            assert not page.is_visible("#result")
            assert page.get_attribute("#board", "data-position") == winning.before.to_string()
            assert page.is_enabled("#confirm-button")
            table.board = Placement.of(winning.before)
            comp.run_for(0.5)
            play(comp, table, winning.turn, settle=0.35)  # the same winning turn again
            assert comp.phase == OVER
            shown(page, newest)
            assert page.is_visible("#result") and page.inner_text("#result") == banner
            assert faults == []
            browser.close()
    finally:
        close(comp)
        server.stop()
