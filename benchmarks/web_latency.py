"""The web page's latency: how long after the LEDs a turn's verdict appears on the page.

    python benchmarks/web_latency.py [--seeds 1 2 3] [--plies 40] [--screenshots DIR]

Per seed, a demo game (``companion.demo.run_demo``: synthetic camera, simulated
players, mock pins, virtual clock, ``--fast``) is refereed with the web page served
on a free loopback port and open in Debian's headless Chromium
(``/usr/bin/chromium``, driven by playwright). Per verdict (accepted, rejected,
unreadable, unchanged, question), in wall-clock time on this machine:

* the LEDs: the moment the panel's ``signal_accepted`` / ``signal_illegal`` /
  ``signal_unreadable`` returned (the pins set), the last one before the verdict;
* handed over: the moment the loop's thread had handed the view carrying the
  verdict to the page's hub (``Hub.game_changed`` returned);
* queued: the moment the server's thread queued that state (or a newer one) for
  the browser (``Client.offer``), the JSON built;
* the page: the moment the browser drew it (a ``MutationObserver`` on the board's
  ``data-seq``, ``performance.timeOrigin + performance.now()``).

Printed: the count, median, p95 and max of page minus LEDs (target: <= 200 ms),
and of each stretch (loop, server, browser). ``--screenshots DIR`` also writes
``web-phone.png`` (412 px wide) and ``web-laptop.png`` (1280 px) of the page at
the first game's first rejected turn (the game waits there for the pictures).
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.demo import run_demo  # noqa: E402
from companion.referee.view import GameView, VerdictWatch  # noqa: E402
from companion.web import chromium  # noqa: E402
from companion.web.hub import Client, Hub  # noqa: E402
from companion.web.server import WebServer  # noqa: E402
from companion.web.settings import WebSettings  # noqa: E402
from hardware.panel import Panel  # noqa: E402

LED_SIGNALS = ("signal_accepted", "signal_illegal", "signal_unreadable")
WATCH_SEQ = """
window.__drawn = [];
new MutationObserver((changes) => {
  for (const c of changes) {
    if (c.target.id === 'board' && c.attributeName === 'data-seq')
      window.__drawn.push([Number(c.target.dataset.seq), performance.timeOrigin + performance.now()]);
  }
}).observe(document, {subtree: true, attributes: true, attributeFilter: ['data-seq']});
"""


class LedClock:
    """The wall time the panel last set a verdict's LEDs (the panel's signal methods wrapped)."""

    def __init__(self) -> None:
        self.last = 0.0
        for name in LED_SIGNALS:
            original = getattr(Panel, name)

            def timed(panel: Panel, *a: Any, _original: Any = original, **kw: Any) -> Any:
                out = _original(panel, *a, **kw)
                self.last = time.time()
                return out

            setattr(Panel, name, timed)


class Stamps:
    """The wall time each view (by seq) was handed to the hub (``Hub.game_changed`` called, in the loop's thread)
    and first queued for a browser (``Client.offer``, in the server's thread, the JSON built): both wrapped."""

    def __init__(self) -> None:
        self.handed: dict[int, float] = {}
        self.queued: dict[int, float] = {}
        changed, offer = Hub.game_changed, Client.offer

        def handing(hub: Hub, view: GameView, _original: Any = changed) -> None:
            self.handed.setdefault(view.seq, time.time())
            _original(hub, view)

        def queueing(client: Client, seq: int, message: bytes, _original: Any = offer) -> None:
            self.queued.setdefault(seq, time.time())
            _original(client, seq, message)

        Hub.game_changed = handing  # type: ignore[method-assign]
        Client.offer = queueing  # type: ignore[method-assign]


class Timekeeper:
    """Notes each new verdict's view (seq) with the LEDs' time; may hold one kind for the pictures."""

    def __init__(self, leds: LedClock, hold_on: str | None) -> None:
        self.leds, self.hold_on = leds, hold_on
        self.verdicts: list[tuple[int, str, float]] = []
        self.held = threading.Event()
        self.release = threading.Event()

    def __call__(self, view: GameView) -> None:
        kind = view.last_verdict.kind if view.last_verdict is not None else ""
        self.verdicts.append((view.seq, kind, self.leds.last))
        if self.hold_on == kind and not self.held.is_set():
            self.held.set()
            self.release.wait(60)


def figures(values: list[float]) -> str:
    values = sorted(values)
    p95 = values[min(len(values) - 1, int(len(values) * 0.95))]
    return f"median {statistics.median(values):.1f} ms, p95 {p95:.1f} ms, max {values[-1]:.1f} ms"


def one_game(page: Any, seed: int, plies: int, tmp: Path, leds: LedClock, stamps: Stamps,
             screenshots: str | None) -> list[tuple[str, float, float, float]]:
    """A demo game with the page open; per verdict (kind, LEDs -> handed over, -> queued, -> drawn) in ms."""
    journal = tmp / f"journal-{seed}.sqlite"
    hub = Hub(max_clients=4)
    server = WebServer(WebSettings(bind="127.0.0.1", port=0), hub, journal)
    url = server.start()
    keeper = Timekeeper(leds, "rejected" if screenshots else None)
    done = threading.Event()
    stamps.handed.clear()
    stamps.queued.clear()

    def play() -> None:
        try:
            run_demo(seed=seed, fast=True, show_panel=False, out=io.StringIO(), max_plies=plies,
                     journal_path=journal, spectator=VerdictWatch(hub, keeper))
        finally:
            done.set()

    page.goto(url)
    page.wait_for_selector("#link.up")
    threading.Thread(target=play, daemon=True).start()
    if screenshots:
        out = Path(screenshots)
        if keeper.held.wait(600):
            time.sleep(0.5)
            page.screenshot(path=str(out / "web-phone.png"), full_page=True)
            page.set_viewport_size({"width": 1280, "height": 860})
            time.sleep(0.3)
            page.screenshot(path=str(out / "web-laptop.png"), full_page=False)
            page.set_viewport_size({"width": 412, "height": 915})
            print(f"wrote {out / 'web-phone.png'} and {out / 'web-laptop.png'}")
        keeper.release.set()
    done.wait(1800)
    time.sleep(1.0)
    drawn = page.evaluate("window.__drawn")
    server.stop()
    rows = []
    for seq, kind, led in keeper.verdicts:
        shown = [t / 1000.0 for s, t in drawn if s >= seq]
        queued = [t for s, t in stamps.queued.items() if s >= seq]
        if shown and queued and led and seq in stamps.handed:
            handed, sent, drew = stamps.handed[seq], min(queued), min(shown)
            rows.append((kind, (handed - led) * 1000.0, (sent - led) * 1000.0, (drew - led) * 1000.0))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=None, help="one game of this seed (the same as --seeds N)")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1], help="a game of each seed, one after the other")
    ap.add_argument("--plies", type=int, default=40)
    ap.add_argument("--screenshots", metavar="DIR", help="write web-phone.png and web-laptop.png here")
    args = ap.parse_args(argv)
    seeds = [args.seed] if args.seed is not None else args.seeds
    why = chromium.missing()
    if why:
        print(f"web_latency: {why}", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp(prefix="netzwerk-web-bench-"))
    leds, stamps = LedClock(), Stamps()
    rows: list[tuple[str, float, float, float]] = []
    with sync_playwright() as pw:
        browser = chromium.launch(pw, tmp / "profile", viewport={"width": 412, "height": 915})
        page = browser.pages[0] if browser.pages else browser.new_page()
        page.add_init_script(WATCH_SEQ)
        for i, seed in enumerate(seeds):
            game = one_game(page, seed, args.plies, tmp, leds, stamps, args.screenshots if i == 0 else None)
            if game:
                print(f"seed {seed}: {len(game)} verdicts, page after the LEDs {figures([r[3] for r in game])}")
            rows += game
        browser.close()
    if not rows:
        print("web_latency: no verdict was measured", file=sys.stderr)
        return 1
    worst = max(rows, key=lambda r: r[3])
    print(f"verdict on the page after the LEDs, {len(rows)} verdicts: {figures([r[3] for r in rows])} "
          f"(target <= 200 ms)")
    print(f"  the loop, LEDs -> view handed over: {figures([r[1] for r in rows])}")
    print(f"  the server, handed over -> queued for the browser: {figures([r[2] - r[1] for r in rows])}")
    print(f"  the browser, queued -> drawn: {figures([r[3] - r[2] for r in rows])}")
    print(f"  the slowest: {worst[0]}, {worst[1]:.1f} + {worst[2] - worst[1]:.1f} + {worst[3] - worst[2]:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
