"""The page end to end in Debian's headless Chromium, while a simulated game runs (the demo's machinery:
synthetic camera, simulated players, mock pins).

One game for the whole module: after every verdict the game loop waits (a test onlooker beside the
page's hub holds it, as a slow player would) until the browser shows that verdict, and the board drawn
on the page is compared with the referee's position piece by piece. Then the journal's games: the
replay turn by turn, the record downloaded, and the controls refused without the passphrase.
"""

from __future__ import annotations

import io
import queue
import threading
from pathlib import Path
from typing import Any

import pytest

from companion.demo import run_demo
from companion.record import GameText, format_record
from companion.referee.journal import Journal
from companion.referee.view import GameView, VerdictWatch
from companion.rules.geometry import point_name, square_name
from companion.rules.position import Position
from companion.web import chromium
from companion.web.hub import Hub
from companion.web.server import WebServer
from companion.web.settings import WebSettings

pytestmark = pytest.mark.skipif(chromium.missing() is not None, reason=str(chromium.missing()))

PASSPHRASE = "table-secret-42"
PLIES = 8  # a slip (ply 3: rejected, the pointer), a hand (ply 5: unreadable), an undo (ply 7)


class Checkpoint:
    """After each verdict the game waits here (a test onlooker beside the page's hub, as a slow player would)
    until the browser has been checked; the hub itself never waits."""

    def __init__(self) -> None:
        self.verdicts: queue.Queue = queue.Queue()

    def __call__(self, view: GameView) -> None:
        checked = threading.Event()
        self.verdicts.put((view, checked))
        checked.wait(90)


def drawn(page: Any, board: str) -> dict[str, list[str]]:
    """What the SVG on the page shows: robots, batteries (with stack heights), blank sides, marks."""
    return page.evaluate("""(id) => {
        const q = (sel) => Array.from(document.querySelectorAll('#' + id + ' ' + sel));
        const names = (sel, key) => q(sel).map((e) => e.dataset[key]).sort();
        return {white: names('.robot.white', 'square'), black: names('.robot.black', 'square'),
                blank: names('.battery.blank', 'point'),
                batteries: q('.battery').map((e) => e.dataset.point + (e.dataset.height === '1' ? '' : 'x' + e.dataset.height)).sort(),
                marks: q('.mark').map((e) => e.dataset.square || e.dataset.point).sort()};
    }""", board)


def expected(position: str, blank: tuple[int, ...] = ()) -> dict[str, list[str]]:
    pos = Position.from_string(position)
    heights = dict(pos.stacks)
    return {"white": sorted(square_name(s) for s in pos.white), "black": sorted(square_name(s) for s in pos.black),
            "blank": sorted(point_name(p) for p in blank),
            "batteries": sorted(point_name(p) + (f"x{heights[p]}" if heights.get(p, 1) > 1 else "")
                                for p in pos.batteries)}


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory):
    """The server on a free loopback port, the browser on the page, and the game running in a thread."""
    from playwright.sync_api import sync_playwright

    tmp = tmp_path_factory.mktemp("web")
    journal = tmp / "journal.sqlite"
    settings = WebSettings(bind="127.0.0.1", port=0, max_clients=4, controls=True, passphrase=PASSPHRASE)
    hub = Hub(settings.max_clients)
    server = WebServer(settings, hub, journal)
    url = server.start()
    onlooker = Checkpoint()
    outcome: dict[str, Any] = {}

    def play() -> None:
        try:
            outcome["result"] = run_demo(seed=1, fast=True, show_panel=False, out=io.StringIO(), max_plies=PLIES,
                                         journal_path=journal, spectator=VerdictWatch(hub, onlooker))
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            outcome["error"] = exc
        finally:
            onlooker.verdicts.put(None)

    with sync_playwright() as pw:
        browser = chromium.launch(pw, tmp / "profile", viewport={"width": 412, "height": 915})
        page = browser.new_page()
        faults: list[str] = []  # script errors and anything the page's security policy blocked
        page.on("pageerror", lambda exc: faults.append(str(exc)))
        page.on("console", lambda m: faults.append(m.text) if "Content Security Policy" in m.text else None)
        page.goto(url)
        page.wait_for_selector("#link.up")  # live updates connected before the game begins
        game = threading.Thread(target=play, daemon=True)
        game.start()
        yield {"page": page, "url": url, "onlooker": onlooker, "outcome": outcome, "journal": journal,
               "game": game, "tmp": tmp, "faults": faults}
        for item in iter(lambda: onlooker.verdicts.get_nowait() if not onlooker.verdicts.empty() else None, None):
            item[1].set()
        game.join(120)
        browser.close()
    server.stop()


@pytest.fixture(scope="module")
def seen(table: dict) -> list[tuple[str, str, int]]:
    """Follows the game to its end, checking the page after every verdict; the verdicts seen."""
    page, onlooker = table["page"], table["onlooker"]
    kinds: list[tuple[str, str, int]] = []
    while True:
        item = onlooker.verdicts.get(timeout=300)
        if item is None:
            break
        view, checked = item
        v = view.last_verdict
        try:
            page.wait_for_function("([seq]) => Number(document.getElementById('board').dataset.seq) >= seq",
                                   arg=[view.seq], timeout=10_000)
            shown = drawn(page, "board")
            assert page.get_attribute("#board", "data-position") == view.position
            want = expected(view.position, view.blank)  # the batteries left blank drawn as such
            assert {k: shown[k] for k in want} == want, (view.position, shown)
            assert page.get_attribute("#verdict", "class") == f"verdict {v.kind}"
            assert v.text in page.inner_text("#verdict-text")
            marks = sorted([square_name(s) for s in v.squares] + [point_name(p) for p in v.points])
            assert shown["marks"] == marks  # the highlight: where the pointer LEDs point
            kinds.append((v.kind, v.text, len(marks), len(view.blank)))
        finally:
            checked.set()
    table["game"].join(120)
    if "error" in table["outcome"]:
        raise table["outcome"]["error"]
    return kinds


def test_the_board_and_every_verdict_follow_the_referee(seen: list, table: dict) -> None:
    result = table["outcome"]["result"]
    kinds = [k for k, _, _, _ in seen]
    assert kinds.count("accepted") >= result.plies  # every accepted turn was shown (and checked on the board)
    rejected = [(text, n) for k, text, n, _ in seen if k == "rejected"]
    assert any(blank for k, _, _, blank in seen if k == "accepted")  # batteries left blank were shown
    assert rejected and all(n > 0 for _, n in rejected)  # the slip: diagnosis and squares highlighted
    assert "unreadable" in kinds  # the hand over the board


def test_the_turn_list_energy_and_hint(seen: list, table: dict) -> None:
    page = table["page"]
    with Journal(table["journal"], readonly=True) as j:
        game = j.game(1)
    items = page.locator("#turns li").all_inner_texts()
    assert [i.split(": ", 1)[1] for i in items] == [t.turn for t in game.turns]
    pos = Position.from_string(game.position)
    energy = page.locator("#energy li").all_inner_texts()
    assert sorted(e.split(":")[0] for e in energy) == sorted(square_name(s) for s in pos.robots(pos.to_move))
    page.click("#hint-button")
    page.wait_for_function("() => document.getElementById('hint-text').textContent.includes('could play')",
                           timeout=60_000)
    assert page.locator("#hint-board .mark").count() > 0


def test_a_game_replayed_turn_by_turn_and_downloaded(seen: list, table: dict) -> None:
    page = table["page"]
    with Journal(table["journal"], readonly=True) as j:
        game = j.game(1)
    page.click("a[data-view=games]")
    page.locator("#games li[data-game='1'] button").click()
    page.wait_for_selector("#replay-board svg")
    assert page.get_attribute("#replay-board", "data-position") == game.start_position
    for i, turn in enumerate(game.turns, start=1):
        page.click("#replay-next")
        page.wait_for_function("([n]) => document.getElementById('replay-board').dataset.ply === String(n)", arg=[i])
        assert page.get_attribute("#replay-board", "data-position") == turn.after
        assert drawn(page, "replay-board") | {"marks": []} == expected(turn.after) | {"marks": []}
        assert turn.turn in page.inner_text("#replay-turn")
    with page.expect_download() as download:
        page.click("#replay-download")
    text = Path(download.value.path()).read_text(encoding="utf-8")
    assert download.value.suggested_filename == "netzwerk-game-1.txt"
    assert text == format_record(GameText.from_game(game))
    page.click("a[data-view=live]")


def test_the_camera_view_shows_the_latest_frame_with_the_passphrase(seen: list, table: dict) -> None:
    page = table["page"]
    page.click("a[data-view=setup]")
    page.fill("#setup-passphrase", "not it at all")
    page.click("#setup-button")
    page.wait_for_function("() => document.getElementById('setup-msg').textContent === 'wrong passphrase'")
    assert not page.is_visible("#setup-image")
    page.fill("#setup-passphrase", PASSPHRASE)
    page.click("#setup-button")
    page.wait_for_selector("#setup-image", state="visible")
    page.wait_for_function("() => document.getElementById('setup-image').naturalWidth > 0")
    assert page.evaluate("document.getElementById('setup-image').naturalWidth") <= 960
    assert page.inner_text("#setup-msg").startswith(("readable", "not readable"))  # drawn with the calibration
    page.click("a[data-view=live]")


def test_controls_refuse_a_post_without_the_passphrase(seen: list, table: dict) -> None:
    page = table["page"]
    page.wait_for_selector("#controls", state="visible")  # the live view may still be coming in
    page.fill("#passphrase", "")
    page.click("#undo-button")
    page.wait_for_function("() => document.getElementById('control-msg').textContent.includes('passphrase')")
    assert "the passphrase is missing" in page.inner_text("#control-msg")
    status = page.evaluate("""async () => {
        const bare = await fetch('/api/control/undo', {method: 'POST'});
        const wrong = await fetch('/api/control/new-game', {method: 'POST', headers: {'Content-Type': 'application/json'},
                                                            body: JSON.stringify({passphrase: 'guess-guess'})});
        const link = await fetch('/api/control/undo');
        return [bare.status, wrong.status, (await wrong.json()).error, link.status];
    }""")
    assert status == [415, 403, "wrong passphrase", 405]
    with Journal(table["journal"], readonly=True) as j:
        assert len(j.game(1).turns) == table["outcome"]["result"].plies  # nothing was taken back
    assert table["faults"] == []  # no script error all along, nothing blocked by the page's own policy
