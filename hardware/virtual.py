"""The virtual panel: the panel drawn from what its pins actually do.

For machines without a Pi (the demo, the unattended self-test, tests). Every
LED is read from its pin's state; the pointer LEDs from a
:class:`~hardware.mockpins.Chain595` model that watches the data, clock and
latch pins (when the pins are :class:`~hardware.mockpins.ObservedMockPin`;
on other factories from the driver's latched value); the buzzer from its
PWM pin (frequency and duty); the buttons from their input pins.

``render_text()`` gives a unicode drawing (ANSI colours with ``color=True``),
``render_image()`` a BGR numpy image and ``save_png(path)`` writes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .mockpins import Chain595, ObservedMockPin
from .panel import Panel
from .pointer import COLS, EDGE_LEDS, FILES, LEFT_OFFSET, BOTTOM_OFFSET

_ANSI = {
    "white": "\x1b[1;97m", "black": "\x1b[1;94m", "green": "\x1b[1;92m", "amber": "\x1b[1;93m",
    "red": "\x1b[1;91m", "pointer": "\x1b[1;96m", "gauge": "\x1b[1;92m", "buzzer": "\x1b[1;95m",
    "dim": "\x1b[2m", "reset": "\x1b[0m",
}
_BGR = {
    "white": (245, 245, 245), "black": (255, 140, 40), "green": (60, 220, 60), "amber": (0, 190, 255),
    "red": (40, 40, 240), "pointer": (255, 230, 60), "gauge": (60, 220, 60), "buzzer": (230, 90, 230),
}
ON, OFF = "●", "○"


@dataclass(frozen=True)
class PinPicture:
    """What the pins show at one instant."""

    turn: dict[str, bool]
    status: dict[str, bool]
    gauge: tuple[bool, ...]
    bottom: tuple[bool, ...]
    left: tuple[bool, ...]
    buzzer_hz: float | None
    buttons: dict[str, bool]
    pointer_source: str


class VirtualPanel:
    """Reads ``panel``'s pins and draws them."""

    def __init__(self, panel: Panel) -> None:
        self.panel = panel
        register = panel.devices["shift_register"]
        self._register = register
        self.chain: Chain595 | None = None
        pins = (register.data.pin, register.clock.pin, register.latch.pin)
        if all(isinstance(p, ObservedMockPin) for p in pins):
            self.chain = Chain595(*pins, chips=register.outputs // 8)
            register.refresh()  # shift the current bits again so the model sees them

    def close(self) -> None:
        if self.chain is not None:
            self.chain.detach()
            self.chain = None

    def __enter__(self) -> "VirtualPanel":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reading the pins -------------------------------------------------------------
    def picture(self) -> PinPicture:
        d = self.panel.devices
        def lit(dev) -> bool:  # noqa: ANN001
            return bool(dev.pin.state) if dev.active_high else not dev.pin.state
        if self.chain is not None:
            outputs = self.chain.outputs
            source = "74HC595 model on the data/clock/latch pins"
        else:
            outputs = self._register.bits()
            source = "shift-register driver (pins not observable)"
        bottom = tuple(outputs[BOTTOM_OFFSET + k] for k in range(EDGE_LEDS))
        left = tuple(outputs[LEFT_OFFSET + k] for k in range(EDGE_LEDS))
        bz = d["buzzer"]
        pin = bz.pwm_device.pin if hasattr(bz, "pwm_device") else bz.pin
        freq = pin.frequency if pin.frequency else None
        sounding = bool(pin.state)
        buzzer_hz = (freq or 0.0) if sounding else None
        buttons = {n: bool(d[f"button_{n}"].is_pressed) for n in self.panel.button_names}
        return PinPicture(
            turn={s: lit(d[f"turn_{s}"]) for s in ("white", "black")},
            status={c: lit(d[f"status_{c}"]) for c in ("green", "amber", "red")},
            gauge=tuple(lit(led) for led in d["gauge"]),
            bottom=bottom, left=left, buzzer_hz=buzzer_hz, buttons=buttons,
            pointer_source=source,
        )

    # -- text ---------------------------------------------------------------------------
    def render_text(self, color: bool = False, summary: bool = True) -> str:
        p = self.picture()
        def led(on: bool, kind: str) -> str:
            sym = ON if on else OFF
            if not color:
                return sym
            return (_ANSI[kind] if on else _ANSI["dim"]) + sym + _ANSI["reset"]

        lines: list[str] = []
        lines.append("┌─ Netzwerk panel " + "─" * 41)
        lines.append(f"│ turn   {led(p.turn['white'], 'white')} white  {led(p.turn['black'], 'black')} black"
                     f"     status {led(p.status['green'], 'green')} green {led(p.status['amber'], 'amber')} amber"
                     f" {led(p.status['red'], 'red')} red")
        gauge = "".join(led(g, "gauge") for g in p.gauge)
        if p.buzzer_hz is None:
            buzz = "buzzer  -"
        else:
            note = f"♪ {p.buzzer_hz:.0f} Hz" if p.buzzer_hz else "♪ on"
            buzz = "buzzer " + ((_ANSI["buzzer"] + note + _ANSI["reset"]) if color else note)
        lines.append(f"│ energy {gauge}{' ' * max(1, 22 - len(p.gauge))}{buzz}")
        lines.append("│")
        bottom_cols = [k for k in range(EDGE_LEDS) if p.bottom[k]]
        left_rows = [k for k in range(EDGE_LEDS) if p.left[k]]
        # Grid rows from the top: line 7, rank 6, line 6, ..., rank 1, line 1.
        for k in reversed(range(EDGE_LEDS)):
            label = f"{k // 2 + 1}" if k % 2 == 0 else f"{k // 2 + 1}"
            kind_row = "line" if k % 2 == 0 else "rank"
            cells = []
            for c in range(EDGE_LEDS):
                hit = k in left_rows and c in bottom_cols and (k % 2 == c % 2)
                if k % 2 == 0:  # a line row
                    ch = "┼" if c % 2 == 0 else "─"
                    if hit:
                        ch = "◉"
                else:
                    ch = "│" if c % 2 == 0 else " "
                    if hit:
                        ch = "◆"
                if hit and color:
                    ch = _ANSI["pointer"] + ch + _ANSI["reset"]
                cells.append(ch)
            row_label = (f"{kind_row} {label}").rjust(6)
            joiner = "─" if k % 2 == 0 else " "
            lines.append(f"│ {row_label} {led(p.left[k], 'pointer')}  " + joiner.join(cells))
        lines.append("│" + " " * 11 + " ".join(led(b, "pointer") for b in p.bottom))
        names = " ".join(COLS[c // 2] if c % 2 == 0 else FILES[c // 2] for c in range(EDGE_LEDS))
        lines.append("│" + " " * 11 + names)
        lines.append("│")
        btn = "  ".join(f"[{'▼' if down else ' '}{name.replace('_', ' ')}]" for name, down in p.buttons.items())
        lines.append(f"│ buttons {btn}")
        if summary and not self.panel.closed:
            s = self.panel.state()
            targets = " ".join(str(t) for t in s.pointer_targets) or "-"
            modes = ", ".join(f"{n} {st.mode.value}" for n, st in s.leds
                              if n in ("turn-white", "turn-black", "green", "amber", "red")
                              and st.mode.value != "off") or "all off"
            lines.append(f"│ panel: turn {s.turn or '-'} · status {s.status or '-'} · win {s.win or '-'}"
                         f" · pointer {targets} ({s.pointer_pattern}) · {modes}")
        lines.append("└" + "─" * 58)
        return "\n".join(lines)

    # -- image --------------------------------------------------------------------------
    def render_image(self, scale: int = 1) -> np.ndarray:
        import cv2

        p = self.picture()
        s = max(1, int(scale))
        w, h = 640 * s, 520 * s
        img = np.full((h, w, 3), (38, 32, 30), np.uint8)
        font = cv2.FONT_HERSHEY_SIMPLEX

        def text(t: str, x: int, y: int, size: float = 0.45, col=(220, 220, 220)) -> None:  # noqa: ANN001
            cv2.putText(img, t, (x * s, y * s), font, size * s, col, max(1, s), cv2.LINE_AA)

        def led(x: int, y: int, on: bool, kind: str, r: int = 8) -> None:
            colour = _BGR[kind]
            if on:
                cv2.circle(img, (x * s, y * s), (r + 6) * s, tuple(int(c * 0.35) for c in colour), -1, cv2.LINE_AA)
                cv2.circle(img, (x * s, y * s), r * s, colour, -1, cv2.LINE_AA)
            else:
                cv2.circle(img, (x * s, y * s), r * s, tuple(int(c * 0.22) + 20 for c in colour), -1, cv2.LINE_AA)
            cv2.circle(img, (x * s, y * s), r * s, (90, 90, 90), max(1, s), cv2.LINE_AA)

        # Board: 6x6 squares of 44 px, lines on the square edges.
        cell, bx, by = 44, 120, 60
        size = 6 * cell
        cv2.rectangle(img, (bx * s, by * s), ((bx + size) * s, (by + size) * s), (60, 90, 110), -1)
        for f in range(6):
            for r in range(6):
                if (f + r) % 2 == 0:
                    x0, y0 = bx + f * cell, by + (5 - r) * cell
                    cv2.rectangle(img, (x0 * s, y0 * s), ((x0 + cell) * s, (y0 + cell) * s), (70, 105, 128), -1)
        for i in range(7):
            cv2.line(img, ((bx + i * cell) * s, by * s), ((bx + i * cell) * s, (by + size) * s), (160, 180, 190), max(1, s))
            cv2.line(img, (bx * s, (by + i * cell) * s), ((bx + size) * s, (by + i * cell) * s), (160, 180, 190), max(1, s))
        # Pointer LEDs: bottom (x along the board), left (y along the board).
        def edge_pos(k: int) -> int:
            return k * cell // 2
        for k in range(EDGE_LEDS):
            x = bx + edge_pos(k)
            led(x, by + size + 26, p.bottom[k], "pointer", 7)
            text(COLS[k // 2] if k % 2 == 0 else FILES[k // 2], x - 5, by + size + 52, 0.45)
            y = by + size - edge_pos(k)
            led(bx - 28, y, p.left[k], "pointer", 7)
            text(str(k // 2 + 1), bx - 58 if k % 2 == 0 else bx - 70, y + 5, 0.45,
                 (220, 220, 220) if k % 2 else (170, 200, 230))
        # Mark what the pointer LEDs cross at.
        for kb in range(EDGE_LEDS):
            for kl in range(EDGE_LEDS):
                if p.bottom[kb] and p.left[kl] and kb % 2 == kl % 2:
                    cx, cy = bx + edge_pos(kb), by + size - edge_pos(kl)
                    cv2.circle(img, (cx * s, cy * s), 13 * s, _BGR["pointer"], 3 * s, cv2.LINE_AA)
        # Right column: turn, status, gauge, buzzer.
        rx = 450
        text("turn", rx, 70, 0.55)
        led(rx + 20, 95, p.turn["white"], "white", 10); text("white", rx + 40, 100)
        led(rx + 20, 125, p.turn["black"], "black", 10); text("black", rx + 40, 130)
        text("status", rx, 170, 0.55)
        for i, c in enumerate(("green", "amber", "red")):
            led(rx + 20, 195 + 30 * i, p.status[c], c, 10)
            text(c, rx + 40, 200 + 30 * i)
        text("energy", rx, 300, 0.55)
        for i, g in enumerate(p.gauge):
            x0, y0 = rx + i * 30, 312
            colour = _BGR["gauge"] if g else (45, 70, 45)
            cv2.rectangle(img, (x0 * s, y0 * s), ((x0 + 22) * s, (y0 + 14) * s), colour, -1)
        text("buzzer", rx, 360, 0.55)
        if p.buzzer_hz is None:
            text("silent", rx, 385, 0.5, (150, 150, 150))
        else:
            text(f"{p.buzzer_hz:.0f} Hz" if p.buzzer_hz else "on", rx, 385, 0.6, _BGR["buzzer"])
        # Buttons along the bottom.
        x = 20
        for name, down in p.buttons.items():
            label = name.replace("_", " ")
            width = 12 + 8 * len(label)
            cv2.rectangle(img, (x * s, 470 * s), ((x + width) * s, 500 * s),
                          (200, 200, 200) if down else (90, 90, 90), -1 if down else max(1, s))
            text(label, x + 6, 490, 0.42, (30, 30, 30) if down else (210, 210, 210))
            x += width + 10
        text("Netzwerk panel (virtual)", 20, 30, 0.6)
        return img

    def save_png(self, path: str | Path, scale: int = 1) -> Path:
        """Write the panel picture as PNG, whole or not at all; :class:`fileio.paths.FileRefused` if it cannot be."""
        from fileio.atomic import atomic_write_bytes
        from fileio.images import encode_image
        from fileio.paths import FileRefused

        out = Path(path)
        data = encode_image(self.render_image(scale), ".png")
        try:
            atomic_write_bytes(out, data)
        except OSError as exc:
            raise FileRefused(f"could not write the panel image to {str(out)!r}: {exc.strerror or exc}") from None
        return out
