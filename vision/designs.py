"""The looks of Netzwerk sets, for the synthetic camera (:mod:`vision.render`).

A :class:`Design` is everything that tells one physical set from another: the
board's print (base colour, paper / wood / felt texture, an optional
checkerboard, border, frame lines, labels, varnish), the energy lines, the
energy fields printed at the 49 points, the robots (shape, the two players'
colours, size, gloss), the batteries (colour, size, the symbol on the printed
side) and the table the board lies on. The geometry never changes: a 6x6 field
of squares with 7x7 points, in board units (1 = one square; see
:mod:`vision.geometry`).

:data:`CLASSIC` is the renderer's original look (light wood board, dark ink
lines with small dots, ivory and black octagonal robots, red batteries with a
yellow bolt). :func:`sample_design` draws any other set from a seed, for
domain randomisation (training a field classifier) and for tests and
benchmarks over many designs.

Colours are RGB triples of ints 0..255.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

RGB = tuple[int, int, int]

TEXTURES = ("plain", "paper", "wood", "felt")
FIELD_STYLES = ("none", "dot", "disc", "ring", "ring_dot")
ROBOT_SHAPES = ("prism", "disc", "stone", "pawn", "cone")
SQUARE_PRINTS = ("none", "circle", "frame")
BATTERY_SYMBOLS = ("bolt", "plus", "ring", "dot")
BATTERY_SHAPES = ("cylinder", "dome")
TABLES = ("wood", "cloth", "laminate")

BLANK_OTHER_SHARE = 0.3      # designs whose batteries' blank side has a colour of its own
MIN_ROBOT_DELTA_E = 25.0     # the two players' robot colours differ at least this much (CIE76, Lab)


@dataclass(frozen=True)
class Design:
    """All looks of one set. Lengths in board units (1 = one square), colours RGB."""

    name: str
    # -- board
    board_color: RGB
    board_texture: str            # plain | paper | wood | felt
    texture_strength: float       # 0 (flat) .. 1 (strong mottle / grain)
    checker_color: RGB | None     # squares with (file + rank) even get this colour (a1 is one of them)
    border: float                 # board margin beyond the 6x6 field, 0.3..1.0
    frame_lines: int              # 0..2 thin lines around the field
    frame_offset: float           # distance of the first frame line outside the field
    frame_color: RGB
    labels: bool                  # file letters / rank numbers printed on the border
    label_color: RGB
    board_gloss: bool             # varnished: the lamp may be mirrored (glare); matte boards never glare
    # -- energy lines
    line_color: RGB
    line_width: float             # 0.015..0.08
    # -- energy fields printed at the 49 points
    field_style: str              # none | dot | disc | ring | ring_dot
    field_radius: float           # 0.04..0.3
    field_color: RGB
    # -- robots
    robot_shape: str              # prism | disc | stone | pawn | cone
    white_color: RGB              # the player on rank 1
    black_color: RGB
    robot_radius: float           # 0.25..0.40
    robot_height: float           # total height, 0.04..0.6
    robot_gloss: float            # strength of the specular highlight, 0..1
    robot_groove: bool            # disc: a groove ring on the top face (draughts checker)
    # -- batteries
    battery_color: RGB
    battery_radius: float         # 0.06..0.17
    battery_height: float         # 0.03..0.10
    battery_symbol: str           # printed side: bolt | plus | ring | dot (the blank side is plain)
    symbol_color: RGB
    # -- table
    table: str                    # wood | cloth | laminate
    table_color: RGB
    # True only for CLASSIC: the setup seed picks board tone, ink and table among the
    # original renderer's palettes (the colours above are their first entries) and the
    # pieces stand exactly as the original renderer put them.
    classic_palette: bool = False
    # -- a print inside every square (some boards have a circle or a frame in each square)
    square_print: str = "none"    # none | circle | frame
    square_print_size: float = 0.0   # circle: radius; frame: half the side (0.2..0.42)
    square_print_color: RGB | None = None
    # -- later axes (defaults: the looks before them)
    battery_shape: str = "cylinder"   # cylinder | dome (a rounded stone, its symbol on a small flat top)
    field_outline: RGB | None = None  # disc fields: a thin ring of this colour round each disc
    # the blank side's top face: None (the battery's own colour, its symbol left off) or another
    # colour (a token whose printed face is a coloured disc on a body of this colour, a wooden stone
    # with a painted face): the start frame shows only printed sides, so the reader never learns it
    blank_color: RGB | None = None

    def __post_init__(self) -> None:
        checks = (
            (self.board_texture in TEXTURES, f"board_texture {self.board_texture!r}: one of {TEXTURES}"),
            (self.field_style in FIELD_STYLES, f"field_style {self.field_style!r}: one of {FIELD_STYLES}"),
            (self.robot_shape in ROBOT_SHAPES, f"robot_shape {self.robot_shape!r}: one of {ROBOT_SHAPES}"),
            (self.battery_symbol in BATTERY_SYMBOLS, f"battery_symbol {self.battery_symbol!r}: one of {BATTERY_SYMBOLS}"),
            (self.table in TABLES, f"table {self.table!r}: one of {TABLES}"),
            (self.battery_shape in BATTERY_SHAPES, f"battery_shape {self.battery_shape!r}: one of {BATTERY_SHAPES}"),
            (self.field_outline is None or self.field_style == "disc", "field_outline: only for disc fields"),
            (0 <= self.frame_lines <= 2, f"frame_lines {self.frame_lines}: 0..2"),
            (0.2 <= self.border <= 1.5, f"border {self.border}: 0.2..1.5"),
            (0.1 <= self.robot_radius <= 0.45, f"robot_radius {self.robot_radius}: 0.1..0.45"),
            (0.02 <= self.robot_height <= 1.0, f"robot_height {self.robot_height}: 0.02..1.0"),
            (0.03 <= self.battery_radius < self.robot_radius, f"battery_radius {self.battery_radius}: 0.03..robot_radius"),
            (0.01 <= self.battery_height <= 0.3, f"battery_height {self.battery_height}: 0.01..0.3"),
            (0.005 <= self.line_width <= 0.15, f"line_width {self.line_width}: 0.005..0.15"),
            (0.0 <= self.field_radius <= 0.3, f"field_radius {self.field_radius}: 0..0.3"),
            (self.square_print in SQUARE_PRINTS, f"square_print {self.square_print!r}: one of {SQUARE_PRINTS}"),
            (self.square_print == "none" or (0.1 <= self.square_print_size <= 0.45 and self.square_print_color is not None),
             f"square_print_size {self.square_print_size}: 0.1..0.45, with a colour"),
        )
        for ok, message in checks:
            if not ok:
                raise ValueError(f"design {self.name!r}: {message}")

    def summary(self) -> str:
        """One line, e.g. ``design 17: cream card, navy lines, blue disc fields r0.18, robots pawn red/green r0.33 h0.55, batteries yellow (bolt)``."""
        board = f"{color_name(self.board_color)} {_SURFACE_NOUN[self.board_texture]}"
        if self.checker_color is not None:
            board += f" checkered {color_name(self.checker_color)}"
        if self.square_print != "none":
            board += f" with {color_name(self.square_print_color)} {self.square_print}s in the squares"
        if self.field_style == "none":
            fields = "no fields"
        else:
            style = self.field_style.replace("_", "+")
            fields = f"{color_name(self.field_color)} {style} fields r{self.field_radius:.2f}"
            if self.field_outline is not None:
                fields += f" outlined {color_name(self.field_outline)}"
        robots = (f"robots {self.robot_shape} {color_name(self.white_color)}/{color_name(self.black_color)} "
                  f"r{self.robot_radius:.2f} h{self.robot_height:.2f}")
        shape = "" if self.battery_shape == "cylinder" else f" {self.battery_shape}s"
        blank = "" if self.blank_color is None else f", blank side {color_name(self.blank_color)}"
        batteries = (f"batteries{shape} {color_name(self.battery_color)} r{self.battery_radius:.2f} "
                     f"({color_name(self.symbol_color)} {self.battery_symbol}{blank})")
        return f"{self.name}: {board}, {color_name(self.line_color)} lines, {fields}, {robots}, {batteries}"


_SURFACE_NOUN = {"plain": "print", "paper": "card", "wood": "wood", "felt": "felt"}

CLASSIC = Design(
    name="classic",
    board_color=(206, 168, 118), board_texture="wood", texture_strength=0.5, checker_color=None,
    border=0.75, frame_lines=0, frame_offset=0.1, frame_color=(40, 36, 34),
    labels=True, label_color=(40, 36, 34), board_gloss=True,
    line_color=(40, 36, 34), line_width=0.035,
    field_style="dot", field_radius=0.07, field_color=(40, 36, 34),
    robot_shape="prism", white_color=(232, 226, 212), black_color=(38, 36, 40),
    robot_radius=0.27, robot_height=0.38, robot_gloss=0.3, robot_groove=False,
    battery_color=(196, 38, 34), battery_radius=0.14, battery_height=0.07,
    battery_symbol="bolt", symbol_color=(245, 205, 60),
    table="wood", table_color=(92, 64, 44),
    classic_palette=True,
)


# -- colour ------------------------------------------------------------------------

def to_lab(rgb) -> np.ndarray:
    """sRGB (0..255) -> CIE Lab (D65), for one colour or an (..., 3) array."""
    c = np.asarray(rgb, np.float64) / 255.0
    c = np.where(c > 0.04045, ((c + 0.055) / 1.055) ** 2.4, c / 12.92)
    m = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = c @ m.T / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], axis=-1)


def delta_e(a, b) -> float:
    """CIE76 colour difference of two RGB colours."""
    return float(np.linalg.norm(to_lab(a) - to_lab(b)))


def lightness(rgb) -> float:
    return float(to_lab(rgb)[0])


_NAMES: dict[str, RGB] = {
    "white": (242, 242, 240), "ivory": (236, 228, 208), "cream": (238, 226, 190), "beige": (214, 196, 160),
    "light grey": (190, 190, 190), "grey": (128, 128, 130), "dark grey": (70, 70, 72), "black": (28, 28, 30),
    "red": (200, 40, 40), "dark red": (120, 24, 28), "pink": (236, 130, 170), "orange": (236, 128, 36),
    "yellow": (240, 210, 50), "gold": (196, 156, 60), "tan": (200, 160, 110), "brown": (120, 78, 48),
    "dark brown": (70, 46, 30), "olive": (120, 120, 50), "light green": (140, 210, 130), "green": (50, 150, 70),
    "dark green": (30, 80, 46), "teal": (30, 130, 130), "light blue": (140, 180, 230), "blue": (40, 90, 190),
    "navy": (28, 40, 90), "purple": (110, 60, 150), "lilac": (184, 160, 214), "magenta": (200, 50, 150),
}
_NAME_LAB = {name: to_lab(rgb) for name, rgb in _NAMES.items()}


def color_name(rgb) -> str:
    """The nearest of a few dozen colour names (for summaries)."""
    lab = to_lab(rgb)
    return min(_NAME_LAB, key=lambda n: float(np.linalg.norm(_NAME_LAB[n] - lab)))


# -- sampling ------------------------------------------------------------------------

def _rng(*parts: object) -> np.random.Generator:
    digest = hashlib.sha256(repr(parts).encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def _rgb(c) -> RGB:
    return tuple(int(v) for v in np.clip(np.round(c), 0, 255))


def _jitter(rng, base, amount=12.0) -> RGB:
    return _rgb(np.asarray(base, np.float64) + rng.uniform(-amount, amount, 3))


def _hsv(rng, s=(0.55, 1.0), v=(0.45, 1.0), hue=None) -> RGB:
    h = rng.uniform(0, 1) if hue is None else hue
    s, v = rng.uniform(*s), rng.uniform(*v)
    i = int(h * 6) % 6
    f = h * 6 - int(h * 6)
    p, q, t = v * (1 - s), v * (1 - f * s), v * (1 - (1 - f) * s)
    r, g, b = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)][i]
    return _rgb(np.array([r, g, b]) * 255)


def _pick(rng, draw, *, far_from=(), near=None, tries=60):
    """Draw colours until one is at least ``d`` (Delta E) from every (colour, d) in ``far_from``."""
    best, best_gap = None, -np.inf
    for _ in range(tries):
        c = draw()
        gap = min((delta_e(c, o) - d for o, d in far_from if o is not None), default=0.0)
        if near is not None:
            gap = min(gap, near[1] - delta_e(c, near[0]))
        if gap >= 0:
            return c
        if gap > best_gap:
            best, best_gap = c, gap
    return best


_BOARDS = (  # name, weight, colour, textures
    ("light wood", 0.16, (206, 168, 118), ("wood",)),
    ("dark wood", 0.07, (128, 84, 52), ("wood",)),
    ("white card", 0.14, (240, 240, 236), ("paper", "plain")),
    ("cream card", 0.12, (236, 226, 196), ("paper", "plain")),
    ("green print", 0.08, (46, 112, 64), ("plain", "paper", "felt")),
    ("blue print", 0.07, (44, 82, 150), ("plain", "paper")),
    ("red print", 0.05, (164, 40, 40), ("plain", "paper")),
    ("grey print", 0.06, (150, 150, 148), ("plain", "paper", "felt")),
    ("black print", 0.06, (32, 32, 34), ("plain", "paper", "felt")),
    ("any colour", 0.19, None, ("plain", "paper", "felt")),
)

_DARK_INKS = ((30, 28, 28), (60, 40, 30), (28, 36, 80), (30, 70, 40), (110, 24, 24), (60, 60, 64))
_LIGHT_INKS = ((240, 240, 236), (236, 226, 190), (220, 190, 90), (250, 220, 60), (170, 200, 240), (200, 200, 200))
_LIGHT_PLASTIC = ((236, 228, 208), (244, 244, 240), (230, 216, 176), (200, 200, 204), (214, 196, 160), (250, 240, 200))
_DARK_PLASTIC = ((36, 34, 38), (70, 44, 30), (30, 40, 90), (110, 24, 28), (28, 70, 40), (72, 72, 76))
_BLANK_BODIES = ((196, 156, 108), (150, 110, 70), (238, 232, 214), (34, 32, 34), (128, 128, 130))
_TABLE_WOODS = ((92, 64, 44), (70, 52, 40), (110, 84, 60), (150, 112, 74), (176, 140, 100), (52, 36, 28))
_CLOTHS = ((96, 104, 98), (120, 112, 100), (70, 84, 92), (40, 90, 60), (40, 50, 80), (120, 40, 40), (180, 170, 150), (40, 40, 42))
_LAMINATES = ((228, 228, 224), (200, 200, 196), (60, 60, 62), (210, 200, 180))


def _weighted(rng, items, weights):
    w = np.asarray(weights, np.float64)
    return items[int(rng.choice(len(items), p=w / w.sum()))]


def sample_design(seed: int) -> Design:
    """A random set, deterministic from ``seed`` (domain randomisation for the synthetic camera)."""
    rng = _rng("design", int(seed))
    u = rng.uniform

    # board
    kind = _weighted(rng, _BOARDS, [b[1] for b in _BOARDS])
    if kind[2] is None:
        board = _hsv(rng, s=(0.15, 0.9), v=(0.15, 0.95))
    else:
        board = _jitter(rng, kind[2], 14)
    texture = str(kind[3][int(rng.integers(len(kind[3])))])
    strength = float(u(0.15, 1.0))
    checker = None
    if rng.random() < 0.2:
        def second():
            if rng.random() < 0.6:  # the same colour, lighter or darker
                return _rgb(np.asarray(board) * u(0.6, 0.85) if lightness(board) > 45 else np.asarray(board) * u(1.3, 1.8) + 20)
            return _hsv(rng, s=(0.1, 0.8), v=(0.2, 0.95))
        checker = _pick(rng, second, far_from=[(board, 12)], near=(board, 45))
    light_board = lightness(board) > 52

    # energy lines: contrast with the board (and the checker squares)
    def ink():
        r = rng.random()
        if r < 0.55:
            return _jitter(rng, (_DARK_INKS if light_board else _LIGHT_INKS)[int(rng.integers(6))], 10)
        if r < 0.8:
            return _hsv(rng, s=(0.6, 1.0), v=(0.35, 0.75) if light_board else (0.75, 1.0))
        return _hsv(rng, s=(0.0, 1.0), v=(0.0, 1.0))

    line = _pick(rng, ink, far_from=[(board, 40), (checker, 30)])
    line_width = float(np.exp(u(np.log(0.015), np.log(0.08))))

    # energy fields
    style = _weighted(rng, FIELD_STYLES, [0.12, 0.22, 0.36, 0.15, 0.15])
    radius = {
        "none": 0.0,
        "dot": u(0.04, 0.09),
        "disc": u(0.08, 0.22) if rng.random() < 0.6 else u(0.15, 0.22),
        "ring": u(0.1, 0.22),
        "ring_dot": u(0.12, 0.22),
    }[style]
    radius = max(float(radius), 0.6 * line_width + 0.02) if style != "none" else 0.0
    if style == "dot" or rng.random() < 0.35:
        field = line
    else:
        field = _pick(rng, lambda: _hsv(rng, s=(0.5, 1.0), v=(0.45, 1.0)) if rng.random() < 0.8 else _hsv(rng, s=(0, 1), v=(0, 1)),
                      far_from=[(board, 30), (checker, 20)])

    # frame and labels
    border = float(u(0.3, 1.0))
    frame_lines = int(_weighted(rng, (0, 1, 2), [0.5, 0.3, 0.2]))
    frame_offset = float(u(0.05, 0.15))
    frame_color = line if rng.random() < 0.7 else _pick(rng, ink, far_from=[(board, 35)])
    free = border - (frame_offset + 0.08 * max(0, frame_lines - 1) if frame_lines else 0.0)
    labels = bool(rng.random() < 0.65 and free >= 0.28)
    label_color = line if rng.random() < 0.7 else _pick(rng, ink, far_from=[(board, 40)])
    gloss = bool(rng.random() < 0.5)

    # robots: two colours that differ by at least MIN_ROBOT_DELTA_E, neither lost on the board
    shape = str(ROBOT_SHAPES[int(rng.integers(len(ROBOT_SHAPES)))])
    robot_radius = float(u(0.25, 0.40))
    lo, hi = {"disc": (0.04, 0.12), "stone": (0.08, 0.2), "prism": (0.22, 0.45), "pawn": (0.38, 0.6), "cone": (0.3, 0.6)}[shape]
    robot_height = float(u(lo, hi))
    if shape == "disc":
        robot_radius = max(robot_radius, 0.28)
    elif shape == "pawn":     # pawns are slender
        robot_radius = float(u(0.25, 0.33))
    mode = rng.random()
    away = [(board, 18), (checker, 12)]
    if mode < 0.4:      # light against dark
        a = _pick(rng, lambda: _jitter(rng, _LIGHT_PLASTIC[int(rng.integers(6))], 10), far_from=away)
        b = _pick(rng, lambda: _jitter(rng, _DARK_PLASTIC[int(rng.integers(6))], 10), far_from=away + [(a, MIN_ROBOT_DELTA_E)])
    elif mode < 0.8:    # two colours, any lightness (red and green, blue and yellow ...)
        a = _pick(rng, lambda: _hsv(rng, s=(0.45, 1.0), v=(0.35, 1.0)), far_from=away)
        b = _pick(rng, lambda: _hsv(rng, s=(0.45, 1.0), v=(0.35, 1.0)), far_from=away + [(a, MIN_ROBOT_DELTA_E + 10)])
    else:               # close, similar lightness (ivory and light grey-blue ...)
        a = _pick(rng, lambda: _hsv(rng, s=(0.0, 0.7), v=(0.3, 1.0)), far_from=away)
        b = _pick(rng, lambda: _rgb(np.asarray(a) + rng.uniform(-60, 60, 3)),
                  far_from=away + [(a, MIN_ROBOT_DELTA_E + 2)], near=(a, 45), tries=200)
    if delta_e(a, b) < MIN_ROBOT_DELTA_E:  # (never seen; guarantees the contract)
        b = _rgb(255 - np.asarray(a))
    white, black = (a, b) if rng.random() < 0.5 else (b, a)
    robot_gloss = float(u(0.05, 0.7))
    groove = bool(shape == "disc" and rng.random() < 0.6)

    # batteries: visible on the point fields, now and then like a robot
    r = rng.random()
    if r < 0.2:
        def bat():
            return _jitter(rng, (white, black)[int(rng.integers(2))], 14)
    elif r < 0.35:
        def bat():
            return _jitter(rng, ((236, 236, 232), (30, 30, 32), (200, 160, 60), (150, 150, 150))[int(rng.integers(4))], 12)
    else:
        def bat():
            return _hsv(rng, s=(0.5, 1.0), v=(0.4, 1.0))
    under = [(board, 25), (checker, 18)]
    if style != "none":
        under.append((field, 22))
    if style != "none" and rng.random() < 0.15:
        # batteries in the energy fields' own colour: told apart by their size, height, shadow and symbol
        battery = _jitter(rng, field, 10)
    else:
        battery = _pick(rng, bat, far_from=under, tries=120)
    battery_radius = float(min(u(0.09, 0.17), robot_radius - 0.08))
    battery_height = float(u(0.03, 0.10))
    symbol = str(BATTERY_SYMBOLS[int(rng.integers(len(BATTERY_SYMBOLS)))])
    symbol_color = _pick(rng, lambda: _hsv(rng, s=(0.0, 1.0), v=(0.0, 1.0)) if rng.random() < 0.5
                         else ((245, 205, 60), (250, 250, 250), (20, 20, 20))[int(rng.integers(3))],
                         far_from=[(battery, 40)])

    # table: any tone, not the board's
    t = rng.random()
    table_kind = "wood" if t < 0.5 else "cloth" if t < 0.85 else "laminate"
    palette = {"wood": _TABLE_WOODS, "cloth": _CLOTHS, "laminate": _LAMINATES}[table_kind]
    table = _pick(rng, lambda: _jitter(rng, palette[int(rng.integers(len(palette)))], 16), far_from=[(board, 14)])

    # a print in every square: its own stream, so the looks above stay what they were for every seed
    xrng = _rng("design-square-print", int(seed))
    square_print, square_print_size, square_print_color = "none", 0.0, None
    if xrng.random() < 0.18:
        square_print = "circle" if xrng.random() < 0.65 else "frame"
        square_print_size = round(float(xrng.uniform(0.2, 0.42)), 3)
        square_print_color = _pick(xrng, lambda: _rgb(np.asarray(board) + xrng.uniform(-70, 70, 3)),
                                   far_from=[(board, 8)], near=(board, 40), tries=100)

    # later axes, each set drawn from a stream of its own (the looks above stay what they were):
    # energy fields up to well over half a square across (some with a thin outline), small batteries,
    # rounded batteries (go stones, domed counters)
    vrng = _rng("design-fields-batteries", int(seed))
    if style in ("disc", "ring", "ring_dot") and vrng.random() < 0.35:
        radius = float(vrng.uniform(0.2, 0.3))
    field_outline = None
    if style == "disc" and vrng.random() < 0.45:
        field_outline = _pick(vrng, lambda: _hsv(vrng, s=(0.0, 1.0), v=(0.05, 1.0)), far_from=[(field, 30)], tries=60)
    if vrng.random() < 0.35:
        battery_radius = float(vrng.uniform(0.06, 0.1))
    battery_shape = "dome" if vrng.random() < 0.4 else "cylinder"

    # the blank side in a colour of its own (a stream of its own again): the printed side, all the
    # start frame shows, says nothing of it
    brng = _rng("design-blank-side", int(seed))
    blank_color = None
    if brng.random() < BLANK_OTHER_SHARE:
        k = brng.random()
        if k < 0.35:        # an unpainted body: wood, ivory, black or grey plastic
            def blank():
                return _jitter(brng, _BLANK_BODIES[int(brng.integers(len(_BLANK_BODIES)))], 14)
        elif k < 0.6:       # the same colour, much lighter or darker
            def blank():
                return _rgb(np.asarray(battery) * brng.uniform(0.45, 0.7) if brng.random() < 0.5
                            else 255 - (255 - np.asarray(battery)) * brng.uniform(0.3, 0.6))
        else:               # any colour
            def blank():
                return _hsv(brng, s=(0.0, 1.0), v=(0.2, 1.0))
        under_blank = [(board, 15), (checker, 12), (battery, 18)] + ([(field, 15)] if style != "none" else [])
        blank_color = _pick(brng, blank, far_from=under_blank, tries=120)

    return Design(
        name=f"design {int(seed)}",
        board_color=board, board_texture=texture, texture_strength=round(strength, 3), checker_color=checker,
        border=round(border, 3), frame_lines=frame_lines, frame_offset=round(frame_offset, 3), frame_color=frame_color,
        labels=labels, label_color=label_color, board_gloss=gloss,
        line_color=line, line_width=round(line_width, 4),
        field_style=str(style), field_radius=round(float(radius), 3), field_color=field,
        robot_shape=shape, white_color=white, black_color=black,
        robot_radius=round(robot_radius, 3), robot_height=round(robot_height, 3), robot_gloss=round(robot_gloss, 3),
        robot_groove=groove,
        battery_color=battery, battery_radius=round(battery_radius, 3), battery_height=round(battery_height, 3),
        battery_symbol=symbol, symbol_color=symbol_color,
        table=table_kind, table_color=table,
        square_print=square_print, square_print_size=square_print_size, square_print_color=square_print_color,
        battery_shape=battery_shape, field_outline=field_outline, blank_color=blank_color,
    )


def resolve_design(design, seed: int) -> Design:
    """``render``'s ``design`` argument: None (CLASSIC), "classic", "random" (drawn from ``seed``), an int seed, or a Design."""
    if design is None:
        return CLASSIC
    if isinstance(design, Design):
        return design
    if isinstance(design, (bool, np.bool_)):
        raise TypeError(f"design {design!r}: expected None, an int seed, 'random', 'classic' or a Design")
    if isinstance(design, (int, np.integer)):
        return sample_design(int(design))
    if isinstance(design, str):
        text = design.strip().lower()
        if text == "random":
            return sample_design(int(seed))
        if text == "classic":
            return CLASSIC
        try:
            return sample_design(int(text))
        except ValueError:
            pass
        raise ValueError(f"design {design!r}: expected an integer seed, 'random' or 'classic'")
    raise TypeError(f"design {design!r}: expected None, an int seed, 'random', 'classic' or a Design")
