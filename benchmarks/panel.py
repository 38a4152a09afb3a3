"""Figures of the panel on mock pins: ``python benchmarks/panel.py``.

* pointer update: one new target = 32 bits shifted + latch (67 pin writes);
* press → callback: a confirm press (mock pin driven low, then high) until the
  ``on_confirm`` callback runs on the panel's event thread (real clock);
* press → LEDs: the callback signals "accepted"; until the green pin is high;
* ``state()`` snapshot; building and closing a panel.

On a Pi the pin writes go through the Pi's pin library (lgpio) instead of
the mock pins, so the shift-register figure there depends on its write time.
"""

from __future__ import annotations

import statistics
import threading
import time

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hardware.mockpins import MockPanelFactory  # noqa: E402
from hardware.panel import Panel  # noqa: E402
from hardware.timing import ManualClock  # noqa: E402


def _stats(samples: list[float]) -> str:
    samples = sorted(samples)
    p95 = samples[max(0, int(round(0.95 * len(samples))) - 1)]
    return f"median {statistics.median(samples) * 1e3:.3f} ms, p95 {p95 * 1e3:.3f} ms (n={len(samples)})"


def main() -> int:
    # pointer updates on a manual clock (no background thread)
    with Panel(pin_factory=MockPanelFactory(), clock=ManualClock()) as panel:
        samples = []
        for i in range(400):
            t0 = time.perf_counter()
            panel.point_at_square(i % 6, (i // 6) % 6)
            samples.append(time.perf_counter() - t0)
        print(f"pointer update (32 bits + latch on mock pins): {_stats(samples)}")
        samples = []
        for _ in range(400):
            t0 = time.perf_counter()
            panel.state()
            samples.append(time.perf_counter() - t0)
        print(f"state() snapshot: {_stats(samples)}")

    # press -> callback -> LEDs, real clock and event thread
    with Panel(pin_factory=MockPanelFactory()) as panel:
        panel.show_turn("white")
        done = threading.Event()
        green = panel.devices["status_green"]
        called_at: list[float] = []

        def on_confirm(side: str) -> None:
            called_at.append(time.perf_counter())
            panel.signal_accepted()
            done.set()

        panel.on_confirm(on_confirm)
        pin = panel.button_pin("confirm_white")
        to_cb, to_led = [], []
        for _ in range(200):
            done.clear()
            pin.drive_low()
            time.sleep(panel.timings.bounce_s + 0.002)
            t0 = time.perf_counter()
            pin.drive_high()
            if not done.wait(2):
                print("press -> callback: callback did not run")
                return 1
            while not green.is_lit:
                time.sleep(0)
            to_led.append(time.perf_counter() - t0)
            to_cb.append(called_at[-1] - t0)
            panel.clear_status()
            time.sleep(panel.timings.bounce_s + 0.002)
        print(f"confirm release -> on_confirm callback (event thread): {_stats(to_cb)}")
        print(f"confirm release -> green LED pin high: {_stats(to_led)}")

    samples = []
    for _ in range(20):
        t0 = time.perf_counter()
        Panel(pin_factory=MockPanelFactory(), clock=ManualClock()).close()
        samples.append(time.perf_counter() - t0)
    print(f"build + close a panel (mock pins): {_stats(samples)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
