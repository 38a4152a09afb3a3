"""The panel self-test: every LED one by one, the buzzer, then every button.

On real hardware a person watches the LEDs and is asked to press each button
(undo and new game: hold them); ``wait_for_buttons`` waits for the debounced
events. With mock pins (``simulate=True``) the presses are simulated on the
pins and every LED step is *checked* against what the pins did (the pointer
LEDs through the 74HC595 model), so the test runs unattended and can fail.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Callable

from . import patterns
from .mockpins import press, wait
from .panel import STATUS_LEDS, Panel
from .pointer import BOTTOM_NAMES, EDGE_LEDS, LEFT_NAMES
from .virtual import VirtualPanel

HOLD_BUTTONS = ("undo", "new_game")


@dataclass(frozen=True)
class Check:
    part: str
    name: str
    ok: bool
    detail: str = ""

    def line(self) -> str:
        return f"{'ok  ' if self.ok else 'FAIL'} {self.part:<8} {self.name:<14} {self.detail}".rstrip()


@dataclass(frozen=True)
class SelftestReport:
    checks: tuple[Check, ...]

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    def failures(self) -> tuple[Check, ...]:
        return tuple(c for c in self.checks if not c.ok)

    def as_dict(self) -> dict:
        return {"ok": self.ok, "checks": [c.__dict__ for c in self.checks]}


class Selftest:
    """Runs the walk on ``panel``; ``simulate`` presses the buttons on mock pins."""

    def __init__(self, panel: Panel, *, simulate: bool, out: Callable[[str], None] = print,
                 button_timeout_s: float = 30.0, show_virtual: bool = False, color: bool = False,
                 png: str | None = None) -> None:
        self.show_virtual = show_virtual
        self.color = color
        self.png = png
        self.panel = panel
        self.simulate = simulate
        self.out = out
        self.button_timeout_s = button_timeout_s
        self.virtual = VirtualPanel(panel)
        self._checks: list[Check] = []

    def _record(self, check: Check) -> None:
        self._checks.append(check)
        self.out(check.line())

    def _step(self) -> None:
        wait(self.panel.clock, self.panel.timings.selftest_step_s)

    def _everything_off(self) -> None:
        p = self.panel
        p.clear_win()
        p.clear_gauge()

    # -- the walk ------------------------------------------------------------------
    def run(self) -> SelftestReport:
        self._everything_off()
        self.walk_leds()
        self.lamp_test()
        self.walk_buzzer()
        self.walk_buttons()
        self._everything_off()
        return SelftestReport(tuple(self._checks))

    def _expect(self, part: str, name: str, expected: dict[str, bool]) -> None:
        """Compare the pin picture with the one LED that should be lit."""
        pic = self.virtual.picture()
        seen = {
            **{f"turn-{k}": v for k, v in pic.turn.items()},
            **dict(pic.status),
            **{f"gauge-{i + 1}": v for i, v in enumerate(pic.gauge)},
            **{f"bottom:{BOTTOM_NAMES[k]}": pic.bottom[k] for k in range(EDGE_LEDS)},
            **{f"left:{LEFT_NAMES[k]}": pic.left[k] for k in range(EDGE_LEDS)},
        }
        lit = sorted(k for k, v in seen.items() if v)
        want = sorted(k for k, v in expected.items() if v)
        ok = lit == want
        detail = "" if ok else f"expected lit {want}, pins show {lit}"
        self._record(Check(part, name, ok, detail))

    def walk_leds(self) -> None:
        p = self.panel
        channels = p._channels  # the self-test drives single LEDs below the intentions
        for side in ("white", "black"):
            p.show_turn(side)
            self._expect("led", f"turn-{side}", {f"turn-{side}": True})
            self._step()
        p.show_turn(None)
        for colour in STATUS_LEDS:
            channels[colour].play(patterns.ON)
            self._expect("led", colour, {colour: True})
            self._step()
            channels[colour].play(patterns.OFF)
        n = len(p.pin_map.gauge)
        for i in range(n):
            p._devices["gauge"].value = 0
            p._devices["gauge"][i].on()
            self._expect("gauge", f"gauge-{i + 1}", {f"gauge-{i + 1}": True})
            self._step()
        p.clear_gauge()
        for edge, names, offset in (("bottom", BOTTOM_NAMES, 0), ("left", LEFT_NAMES, 16)):
            for k, name in enumerate(names):
                p.pointer.channel.play(patterns.steady(1 << (offset + k), "selftest"))
                self._expect("pointer", f"{edge} {name}", {f"{edge}:{name}": True})
                self._step()
        p.clear_pointer()

    def lamp_test(self) -> None:
        """Every LED on at once (shows a short or a weak supply), checked on the pins."""
        p = self.panel
        for side in ("white", "black"):
            p._channels[f"turn-{side}"].play(patterns.ON)
        for colour in STATUS_LEDS:
            p._channels[colour].play(patterns.ON)
        p._devices["gauge"].value = 1
        p.pointer.channel.play(patterns.steady(sum(1 << i for i in range(EDGE_LEDS))
                                               | sum(1 << (16 + i) for i in range(EDGE_LEDS)), "selftest"))
        expected = {f"turn-{s}": True for s in ("white", "black")}
        expected.update({c: True for c in STATUS_LEDS})
        expected.update({f"gauge-{i + 1}": True for i in range(len(p.pin_map.gauge))})
        expected.update({f"bottom:{n}": True for n in BOTTOM_NAMES})
        expected.update({f"left:{n}": True for n in LEFT_NAMES})
        self._expect("led", "all on", expected)
        if self.show_virtual:
            self.out(self.virtual.render_text(color=self.color, summary=False))
        if self.png:
            self.virtual.save_png(self.png)
            self.out(f"     virtual panel image written to {self.png}")
        wait(p.clock, 4 * p.timings.selftest_step_s)
        p.show_turn(None)
        for colour in STATUS_LEDS:
            p._channels[colour].play(patterns.OFF)
        p.clear_gauge()
        p.clear_pointer()

    def walk_buzzer(self) -> None:
        p = self.panel
        bz = p._devices["buzzer"]
        tones = (440.0, 880.0, 1760.0) if p.buzzer_kind == "tonal" else (1.0,)
        for hz in tones:
            p._channels["buzzer"].play(patterns.steady(hz, "selftest"))
            pic = self.virtual.picture()
            if p.buzzer_kind == "tonal":
                ok = pic.buzzer_hz is not None and abs(pic.buzzer_hz - hz) < 1.0
                detail = "" if ok else f"pin plays {pic.buzzer_hz} Hz"
                self._record(Check("buzzer", f"{hz:.0f} Hz", ok, detail))
            else:
                ok = bool(bz.is_active)
                self._record(Check("buzzer", "on", ok, "" if ok else "pin is low"))
            self._step()
        p._channels["buzzer"].play(patterns.SILENT)
        pic = self.virtual.picture()
        self._record(Check("buzzer", "silent", pic.buzzer_hz is None,
                           "" if pic.buzzer_hz is None else f"still sounding {pic.buzzer_hz} Hz"))

    def walk_buttons(self) -> None:
        p = self.panel
        seen: dict[str, set[str]] = {n: set() for n in p.button_names}
        changed = threading.Condition()

        def on_event(name: str, event: str) -> None:
            with changed:
                seen[name].add(event)
                changed.notify_all()

        p.on_button_event(on_event)
        try:
            for name in p.button_names:
                needed = "hold" if name in HOLD_BUTTONS else "press"
                if self.simulate:
                    press(p, name, hold=needed == "hold")
                else:
                    verb = f"HOLD {name.replace('_', ' ')} for {p.timings.hold_s:g} s" if needed == "hold" \
                        else f"press {name.replace('_', ' ')}"
                    self.out(f"     -> {verb} (GPIO{getattr(p.pin_map, name)}) ...")
                    with changed:
                        changed.wait_for(lambda: needed in seen[name], timeout=self.button_timeout_s)
                ok = needed in seen[name]
                others = sorted(n for n, ev in seen.items() if ev and n != name)
                detail = "" if ok else f"no {needed} within {self.button_timeout_s:g} s"
                if others:
                    ok = False
                    detail = (detail + "; " if detail else "") + f"also saw {', '.join(others)} (wiring crossed?)"
                self._record(Check("button", name, ok, detail))
                for events in seen.values():
                    events.clear()
        finally:
            p.on_button_event(None)
