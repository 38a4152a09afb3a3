"""Draw the panel's schematic as SVG from the pin map (``python -m hardware.schematic OUT.svg``).

The drawing is generated, so it always matches the pin map: every GPIO in use
with its header pin, the LED and resistor on each output, the buzzer driver,
the buttons, and the chain of four 74HC595 with the pointer LEDs they drive.
Part values are in :data:`PARTS` (the calculation is in docs/wiring.md).
"""

from __future__ import annotations

import sys
from html import escape
from pathlib import Path

from .pinmap import HEADER_PIN, PinMap
from .pointer import BOTTOM_NAMES, LEFT_NAMES

# Values used in the drawing and the bill of materials (docs/wiring.md derives them).
PARTS = {
    "r_led": "330 Ω",        # GPIO LEDs, ~3.5 mA at 3.3 V
    "r_pointer": "270 Ω",    # pointer LEDs on the 74HC595 outputs, ~4 mA
    "r_base": "1 kΩ",        # buzzer transistor base, ~2.6 mA
    "r_buzzer": "100 Ω",     # in series with the 5 V magnetic transducer, ~34 mA
    "npn": "BC337 / 2N2222",
    "diode": "1N4148",
    "c_decouple": "100 nF",
}

LED_COLOURS = {
    "turn_white": "yellow", "turn_black": "yellow", "status_green": "green", "status_amber": "amber",
    "status_red": "red",
}
INK = "#1d2733"
WIRE = "#2f6db5"


class _Svg:
    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.items: list[str] = []

    def line(self, x1: float, y1: float, x2: float, y2: float, colour: str = WIRE, width: float = 1.6,
             dash: str | None = None) -> None:
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        self.items.append(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{colour}" '
                          f'stroke-width="{width}"{extra}/>')

    def poly(self, points: list[tuple[float, float]], fill: str = "none", colour: str = INK,
             closed: bool = True) -> None:
        tag = "polygon" if closed else "polyline"
        pts = " ".join(f"{x},{y}" for x, y in points)
        self.items.append(f'<{tag} points="{pts}" fill="{fill}" stroke="{colour}" stroke-width="1.6"/>')

    def rect(self, x: float, y: float, w: float, h: float, fill: str = "none", colour: str = INK,
             rx: float = 0) -> None:
        self.items.append(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="{rx}" fill="{fill}" '
                          f'stroke="{colour}" stroke-width="1.6"/>')

    def circle(self, x: float, y: float, r: float, fill: str = "none", colour: str = INK) -> None:
        self.items.append(f'<circle cx="{x}" cy="{y}" r="{r}" fill="{fill}" stroke="{colour}" stroke-width="1.6"/>')

    def text(self, x: float, y: float, s: str, size: int = 12, anchor: str = "start", weight: str = "normal",
             colour: str = INK) -> None:
        self.items.append(f'<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}" '
                          f'font-weight="{weight}" fill="{colour}">{escape(s)}</text>')

    # -- symbols ---------------------------------------------------------------------
    def resistor(self, x: float, y: float, label: str) -> float:
        """Horizontal resistor from x to x+50 on height y; returns the right end."""
        self.line(x, y, x + 10, y)
        self.rect(x + 10, y - 6, 30, 12, fill="white")
        self.line(x + 40, y, x + 50, y)
        self.text(x + 25, y - 10, label, 10, "middle")
        return x + 50

    def led(self, x: float, y: float, colour: str) -> float:
        """Horizontal LED (anode left) from x to x+40; returns the right end."""
        fill = {"red": "#f26b6b", "green": "#6fd07a", "amber": "#ffb347", "yellow": "#ffe066"}.get(colour, "white")
        self.line(x, y, x + 12, y)
        self.poly([(x + 12, y - 8), (x + 12, y + 8), (x + 26, y)], fill=fill)
        self.line(x + 26, y - 8, x + 26, y + 8, INK)
        self.line(x + 26, y, x + 40, y)
        for dx in (16, 22):
            self.line(x + dx, y - 10, x + dx + 6, y - 16, INK, 1)
        return x + 40

    def ground(self, x: float, y: float) -> None:
        self.line(x, y, x, y + 8)
        for i, half in enumerate((8, 5, 2)):
            self.line(x - half, y + 8 + 3 * i, x + half, y + 8 + 3 * i, INK)

    def rail(self, x: float, y: float, label: str) -> None:
        self.line(x, y, x, y - 8)
        self.line(x - 7, y - 8, x + 7, y - 8, INK, 2)
        self.text(x, y - 12, label, 10, "middle")

    def switch(self, x: float, y: float) -> float:
        self.line(x, y, x + 12, y)
        self.circle(x + 14, y, 2, fill=INK)
        self.line(x + 14, y, x + 34, y - 10, INK)
        self.circle(x + 36, y, 2, fill=INK)
        self.line(x + 36, y, x + 48, y)
        self.line(x + 24, y - 5, x + 24, y - 14, INK, 1)
        self.line(x + 18, y - 14, x + 30, y - 14, INK, 1)
        return x + 48

    def svg(self) -> str:
        body = "\n".join(self.items)
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
                f'viewBox="0 0 {self.width} {self.height}" font-family="DejaVu Sans, Arial, sans-serif">\n'
                f'<rect width="100%" height="100%" fill="white"/>\n{body}\n</svg>\n')


def _rows(pm: PinMap) -> list[tuple[str, int, str]]:
    rows: list[tuple[str, int, str]] = []
    for key in ("sr_data", "sr_clock", "sr_latch"):
        rows.append((key, getattr(pm, key), "sr"))
    for key in ("turn_white", "turn_black", "status_green", "status_amber", "status_red"):
        rows.append((key, getattr(pm, key), "led"))
    for i, pin in enumerate(pm.gauge):
        rows.append((f"gauge {i + 1}", pin, "gauge"))
    rows.append(("buzzer", pm.buzzer, "buzzer"))
    for key in ("confirm_white", "confirm_black", "hint", "control", "undo", "new_game"):
        pin = getattr(pm, key)
        if pin is not None:
            rows.append((key, pin, "button"))
    return rows


def render_svg(pin_map: PinMap | None = None) -> str:
    pm = pin_map or PinMap()
    rows = _rows(pm)
    pitch = 34
    top = 90
    height_left = top + pitch * (len(rows) + 2) + 120
    svg = _Svg(1320, max(height_left, 1010))
    svg.text(20, 32, "Netzwerk Companion — GPIO panel schematic (generated by hardware/schematic.py)", 18, weight="bold")
    svg.text(20, 54, "BCM numbering; (n) = physical header pin. Buttons use the Pi's internal pull-ups and "
                     "switch to GND. Logic supply 3.3 V (header pin 1/17), buzzer supply 5 V (pin 2/4).", 11)
    # Pi header block
    hx, hw = 20, 170
    extra = 26  # the buzzer row needs room for its notes
    svg.rect(hx, top - 24, hw, pitch * len(rows) + 30 + extra, fill="#e9f2e4", rx=6)
    svg.text(hx + hw / 2, top - 8, "Raspberry Pi header", 12, "middle", "bold")
    sr_y: dict[str, float] = {}
    shift = 0
    for i, (key, pin, kind) in enumerate(rows):
        y = top + 14 + i * pitch + shift
        if kind == "buzzer":
            shift = extra
        svg.text(hx + hw - 8, y + 4, f"GPIO{pin} ({HEADER_PIN[pin]})", 12, "end")
        svg.circle(hx + hw, y, 3, fill=WIRE, colour=WIRE)
        x = hx + hw
        if kind == "sr":
            sr_y[key] = y
            svg.line(x, y, 640, y)
            svg.text(x + 12, y - 5, {"sr_data": "SER (data)", "sr_clock": "SRCLK (clock)",
                                     "sr_latch": "RCLK (latch)"}[key], 11)
            continue
        if kind in ("led", "gauge"):
            svg.line(x, y, x + 30, y)
            end = svg.resistor(x + 30, y, PARTS["r_led"])
            colour = LED_COLOURS.get(key, "green")
            end = svg.led(end, y, colour)
            svg.line(end, y, end + 10, y)
            svg.ground(end + 10, y)
            svg.text(end + 30, y + 4, f"{key.replace('_', ' ')} ({colour})", 12)
        elif kind == "buzzer":
            svg.line(x, y, x + 30, y)
            end = svg.resistor(x + 30, y, PARTS["r_base"])
            bx = end + 14
            svg.line(end, y, bx, y)
            svg.circle(bx + 10, y, 14)
            svg.line(bx, y - 9, bx, y + 9, INK, 2)       # base bar
            svg.line(bx, y - 4, bx + 14, y - 14, INK)     # collector
            svg.line(bx, y + 4, bx + 14, y + 14, INK)     # emitter
            svg.poly([(bx + 14, y + 14), (bx + 7, y + 12), (bx + 11, y + 7)], fill=INK)
            svg.ground(bx + 14, y + 14)
            # collector -> 100 ohm -> transducer -> +5 V, diode across the transducer
            cx = bx + 14
            svg.line(cx, y - 14, cx + 60, y - 14)
            rend = svg.resistor(cx + 60, y - 14, PARTS["r_buzzer"])
            svg.rect(rend + 6, y - 24, 34, 20, fill="#f4e1f7")
            svg.text(rend + 23, y - 10, "BZ", 10, "middle")
            svg.line(rend, y - 14, rend + 6, y - 14)
            svg.line(rend + 40, y - 14, rend + 52, y - 14)
            svg.rail(rend + 52, y - 14, "+5 V")
            svg.text(bx + 40, y + 16, f"NPN {PARTS['npn']}; {PARTS['diode']} across BZ", 10)
            svg.text(bx + 40, y + 28, "BZ: 5 V magnetic transducer (passive)", 10)
        elif kind == "button":
            svg.line(x, y, x + 30, y)
            end = svg.switch(x + 30, y)
            svg.line(end, y, end + 10, y)
            svg.ground(end + 10, y)
            svg.text(end + 30, y + 4, f"button {key.replace('_', ' ')}", 12)
    # 74HC595 chain
    cx0, cy0, cw, ch, gap = 700, 100, 150, 190, 30
    svg.text(cx0, cy0 - 12, "4 × 74HC595 (VCC 3.3 V, 100 nF at each VCC; OE→GND, SRCLR→3.3 V)", 12, weight="bold")
    bus_clock, bus_latch = 670, 680
    svg.line(640, sr_y["sr_clock"], bus_clock, sr_y["sr_clock"])
    svg.line(640, sr_y["sr_latch"], bus_latch, sr_y["sr_latch"])
    last_y = cy0 + 3 * (ch + gap)
    svg.line(bus_clock, sr_y["sr_clock"], bus_clock, last_y + 70)
    svg.line(bus_latch, sr_y["sr_latch"], bus_latch, last_y + 90)
    ser_from = (640, sr_y["sr_data"])
    names = list(BOTTOM_NAMES) + ["—"] * 3 + list(LEFT_NAMES) + ["—"] * 3
    for chip in range(4):
        y0 = cy0 + chip * (ch + gap)
        svg.rect(cx0, y0, cw, ch, fill="#fff8e1", rx=4)
        svg.text(cx0 + cw / 2, y0 + 16, f"chip {chip} (U{chip + 1})", 12, "middle", "bold")
        pins_left = [("SER 14", 40), ("SRCLK 11", 70), ("RCLK 12", 90), ("OE 13", 130), ("SRCLR 10", 150)]
        for label, dy in pins_left:
            svg.text(cx0 + 6, y0 + dy + 4, label, 10)
        # SER
        svg.line(ser_from[0], ser_from[1], ser_from[0] if chip == 0 else ser_from[0], ser_from[1])
        if chip == 0:
            svg.line(640, sr_y["sr_data"], 655, sr_y["sr_data"])
            svg.line(655, sr_y["sr_data"], 655, y0 + 40)
            svg.line(655, y0 + 40, cx0, y0 + 40)
        else:
            px, py = ser_from
            svg.line(px, py, px + 20, py)
            svg.line(px + 20, py, px + 20, py + 20)
            svg.line(px + 20, py + 20, cx0 - 40, py + 20, dash="4 3")
            svg.line(cx0 - 40, py + 20, cx0 - 40, y0 + 40)
            svg.line(cx0 - 40, y0 + 40, cx0, y0 + 40)
        svg.line(bus_clock, y0 + 70, cx0, y0 + 70)
        svg.circle(bus_clock, y0 + 70, 2.5, fill=WIRE, colour=WIRE)
        svg.line(bus_latch, y0 + 90, cx0, y0 + 90)
        svg.circle(bus_latch, y0 + 90, 2.5, fill=WIRE, colour=WIRE)
        svg.line(cx0, y0 + 130, cx0 - 14, y0 + 130)
        svg.ground(cx0 - 14, y0 + 130)
        svg.line(cx0, y0 + 150, cx0 - 24, y0 + 150)
        svg.text(cx0 - 26, y0 + 154, "3.3 V", 9, "end")
        # outputs
        gnd_x: float | None = None
        outs = ["QA 15", "QB 1", "QC 2", "QD 3", "QE 4", "QF 5", "QG 6", "QH 7"]
        for j, label in enumerate(outs):
            oy = y0 + 34 + j * 18
            svg.text(cx0 + cw - 6, oy + 4, label, 10, "end")
            out_index = chip * 8 + j
            name = names[out_index]
            if name == "—":
                svg.text(cx0 + cw + 10, oy + 4, f"out {out_index}: unused", 10, colour="#888888")
                continue
            svg.line(cx0 + cw, oy, cx0 + cw + 8, oy)
            end = svg.resistor(cx0 + cw + 8, oy, "")
            end = svg.led(end, oy, "red")
            svg.line(end, oy, end + 8, oy)
            gnd_x = end + 8
            svg.text(end + 16, oy + 4, f"out {out_index}: {name}", 10)
        if gnd_x is not None:
            svg.line(gnd_x, y0 + 34, gnd_x, y0 + ch - 10)
            svg.ground(gnd_x, y0 + ch - 10)
            gnd_x = None
        # QH' -> next SER
        svg.text(cx0 + cw / 2, y0 + ch - 8, "QH' 9 → next SER", 10, "middle")
        ser_from = (cx0 + cw / 2 - 40, y0 + ch)
    note_y = top + pitch * len(rows) + extra + 40
    for i, line in enumerate((
        f"Pointer LEDs: red 3 mm, each with {PARTS['r_pointer']} in series, cathodes to GND.",
        "Bottom edge (A a B b … f G) = outputs 0–12 (chips 0–1), left edge (1 1 2 2 … 6 7) = outputs 16–28 (chips 2–3).",
        "Bits are shifted highest output first; a rising RCLK edge shows them (see hardware/shift_register.py).",
        f"GPIO LEDs: {PARTS['r_led']} each (≈3.5 mA); {PARTS['c_decouple']} between VCC and GND at every 74HC595;"
        " 10 kΩ from RCLK to GND.",
    )):
        svg.text(20, note_y + 16 * i, line, 11)
    return svg.svg()


def wiring_table(pin_map: PinMap | None = None) -> str:
    """The wiring table of docs/wiring.md (Markdown), from the pin map."""
    from .pinmap import PART_NAMES, PIN_ROLES

    pm = pin_map or PinMap()
    lines = ["| BCM | header pin | config key | part | other use of the pin |", "| --- | --- | --- | --- | --- |"]
    for key, pin in pm.assignments():
        base = "gauge" if key.startswith("gauge_") else key
        part = PART_NAMES[base]
        if base == "gauge":
            part = f"{part} {key[6:]} (first = lowest)"
        elif base in LED_COLOURS:
            part = f"{part}, {LED_COLOURS[base]} LED"
        lines.append(f"| GPIO{pin} | {HEADER_PIN[pin]} | `{key}` | {part} | {PIN_ROLES.get(pin, '')} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m hardware.schematic OUT.svg", file=sys.stderr)
        return 2
    Path(args[0]).write_text(render_svg(), encoding="utf-8")
    print(f"schematic written to {args[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
