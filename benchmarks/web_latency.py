"""The web page's latency: how long after the LEDs a turn's verdict appears on the page.

    python benchmarks/web_latency.py [--seed 1] [--plies 40] [--screenshots DIR]

A demo game (``companion.demo.run_demo``: synthetic camera, simulated players,
mock pins, virtual clock, ``--fast``) is refereed with the web page served on a
free loopback port and open in Debian's headless Chromium (``/usr/bin/chromium``,
driven by playwright). Per verdict (accepted, rejected, unreadable, unchanged,
question), in wall-clock time on this machine:

* the LEDs: the moment the panel's ``signal_accepted`` / ``signal_illegal`` /
  ``signal_unreadable`` returned (the pins set), the last one before the verdict;
* the page: the moment the browser drew the state carrying that verdict (a
  ``MutationObserver`` on the board's ``data-seq``, ``performance.timeOrigin +
  performance.now()``).

Printed: the count, median, p95 and max of page minus LEDs (target: <= 200 ms).
``--screenshots DIR`` also writes ``web-phone.png`` (412 px wide) and
``web-laptop.png`` (1280 px) of the page at the game's first rejected turn
(the game waits there for the pictures).
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
from companion.web.hub import Hub  # noqa: E402
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--plies", type=int, default=40)
    ap.add_argument("--screenshots", metavar="DIR", help="write web-phone.png and web-laptop.png here")
    args = ap.parse_args(argv)
    why = chromium.missing()
    if why:
        print(f"web_latency: {why}", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp(prefix="netzwerk-web-bench-"))
    journal = tmp / "journal.sqlite"
    hub = Hub(max_clients=4)
    server = WebServer(WebSettings(bind="127.0.0.1", port=0), hub, journal)
    url = server.start()
    keeper = Timekeeper(LedClock(), "rejected" if args.screenshots else None)
    done = threading.Event()

    def play() -> None:
        try:
            run_demo(seed=args.seed, fast=True, show_panel=False, out=io.StringIO(), max_plies=args.plies,
                     journal_path=journal, spectator=VerdictWatch(hub, keeper))
        finally:
            done.set()

    with sync_playwright() as pw:
        browser = chromium.launch(pw, tmp / "profile", viewport={"width": 412, "height": 915})
        page = browser.pages[0] if browser.pages else browser.new_page()
        page.add_init_script(WATCH_SEQ)
        page.goto(url)
        page.wait_for_selector("#link.up")
        threading.Thread(target=play, daemon=True).start()
        if args.screenshots:
            out = Path(args.screenshots)
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
        browser.close()
    server.stop()
    delays = []
    for seq, kind, led in keeper.verdicts:
        shown = [t for s, t in drawn if s >= seq]
        if shown and led:
            delays.append((min(shown) / 1000.0 - led) * 1000.0)
    if not delays:
        print("web_latency: no verdict was measured", file=sys.stderr)
        return 1
    delays.sort()
    p95 = delays[min(len(delays) - 1, int(len(delays) * 0.95))]
    print(f"verdict on the page after the LEDs, {len(delays)} verdicts: median {statistics.median(delays):.1f} ms, "
          f"p95 {p95:.1f} ms, max {delays[-1]:.1f} ms (target <= 200 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
