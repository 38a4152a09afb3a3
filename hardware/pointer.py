"""The pointer LEDs along two board edges and what they point at.

Bottom edge, left to right, 13 LEDs alternate energy lines and files:
``A a B b C c D d E e F f G`` — line ``X`` (column ``x``) is LED ``2x``, file
``f`` is LED ``2f+1``. Left edge, bottom to top, 13 LEDs alternate lines and
ranks: ``1 1 2 2 … 6 6 7`` — line (row) ``y`` is LED ``2y``, rank ``r`` is LED
``2r+1``. Lighting file c and rank 3 points at square c3; lines C and 3 at point C3.

On the shift-register chain (see ``shift_register``) bottom LED ``k`` is output
``k`` (chip 0 QA.. chip 1 QE) and left LED ``k`` is output ``16 + k`` (chip 2
QA .. chip 3 QE); outputs 13-15 and 29-31 are unused.

Squares and points are also named by index, as the rules number them (square
``6 * rank + file``, point ``7 * row + col``): :func:`targets_at` and
:func:`move_steps` turn indices into pointer steps (the hardware knows
nothing of the game: plain integers in, targets out).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Final, Iterable, Literal, Sequence

from . import patterns
from .animation import Channel
from .patterns import Timings
from .shift_register import ShiftRegister
from .timing import Scheduler

FILES: Final = "abcdef"
COLS: Final = "ABCDEFG"
EDGE_LEDS: Final = 13
BOTTOM_OFFSET: Final = 0
LEFT_OFFSET: Final = 16
CHIPS: Final = 4

# Names of the 26 pointer LEDs by edge position.
BOTTOM_NAMES: Final = tuple(
    f"line-{COLS[k // 2]}" if k % 2 == 0 else f"file-{FILES[k // 2]}" for k in range(EDGE_LEDS)
)
LEFT_NAMES: Final = tuple(
    f"line-{k // 2 + 1}" if k % 2 == 0 else f"rank-{k // 2 + 1}" for k in range(EDGE_LEDS)
)
# Shift-register output -> LED name.
OUTPUT_NAMES: Final[dict[int, str]] = {
    **{BOTTOM_OFFSET + k: n for k, n in enumerate(BOTTOM_NAMES)},
    **{LEFT_OFFSET + k: n for k, n in enumerate(LEFT_NAMES)},
}


def bottom_output(k: int) -> int:
    return BOTTOM_OFFSET + k


def left_output(k: int) -> int:
    return LEFT_OFFSET + k


def _check(name: str, value: int, limit: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < limit:
        raise ValueError(f"{name} must be an integer 0..{limit - 1}, got {value!r}")


@dataclass(frozen=True)
class PointerTarget:
    """What the pointer shows: a square (file, rank) or a point (col, row), 0-based."""

    kind: Literal["square", "point"]
    col: int
    row: int
    blink: bool = False

    def __post_init__(self) -> None:
        if self.kind == "square":
            _check("square file", self.col, 6)
            _check("square rank", self.row, 6)
        elif self.kind == "point":
            _check("point column", self.col, 7)
            _check("point row", self.row, 7)
        else:
            raise ValueError(f"pointer target kind must be 'square' or 'point', got {self.kind!r}")
        if not isinstance(self.blink, bool):
            raise ValueError(f"pointer target blink must be True or False, got {self.blink!r}")

    @classmethod
    def square(cls, file: int, rank: int, blink: bool = False) -> "PointerTarget":
        return cls("square", file, rank, blink)

    @classmethod
    def point(cls, col: int, row: int, blink: bool = False) -> "PointerTarget":
        return cls("point", col, row, blink)

    @classmethod
    def at_square(cls, index: int, blink: bool = False) -> "PointerTarget":
        """The square numbered ``index`` = 6 * rank + file (0..35)."""
        _check("square index", index, 36)
        return cls.square(index % 6, index // 6, blink)

    @classmethod
    def at_point(cls, index: int, blink: bool = False) -> "PointerTarget":
        """The point numbered ``index`` = 7 * row + col (0..48)."""
        _check("point index", index, 49)
        return cls.point(index % 7, index // 7, blink)

    @classmethod
    def parse(cls, text: str, blink: bool = False) -> "PointerTarget":
        """``c3`` (square, lower case) or ``C3`` (point, upper case); a trailing ``*`` blinks."""
        raw = text.strip()
        if raw.endswith("*"):
            raw, blink = raw[:-1], True
        if len(raw) == 2 and raw[0] in FILES and raw[1] in "123456":
            return cls.square(FILES.index(raw[0]), int(raw[1]) - 1, blink)
        if len(raw) == 2 and raw[0] in COLS and raw[1] in "1234567":
            return cls.point(COLS.index(raw[0]), int(raw[1]) - 1, blink)
        raise ValueError(f"{text!r} is neither a square a1..f6 nor a point A1..G7")

    @property
    def name(self) -> str:
        if self.kind == "square":
            return f"{FILES[self.col]}{self.row + 1}"
        return f"{COLS[self.col]}{self.row + 1}"

    def leds(self) -> tuple[int, int]:
        """The two shift-register outputs that point at the target (bottom, left)."""
        if self.kind == "square":
            return bottom_output(2 * self.col + 1), left_output(2 * self.row + 1)
        return bottom_output(2 * self.col), left_output(2 * self.row)

    def bits(self) -> int:
        b, l = self.leds()
        return 1 << b | 1 << l

    def __str__(self) -> str:
        return self.name + ("*" if self.blink else "")


def targets_at(squares: Iterable[int] = (), points: Iterable[int] = (), blink: bool = False) -> list[PointerTarget]:
    """Pointer steps at squares, then points, by index (shown in turn)."""
    out = [PointerTarget.at_square(s, blink) for s in squares]
    out += [PointerTarget.at_point(p, blink) for p in points]
    return out


def move_steps(square_moves: Iterable[tuple[int, int]] = (),
               point_moves: Iterable[tuple[int, int]] = ()) -> list[PointerTarget]:
    """Pointer steps showing moves given as (source, destination) indices: each source blinking,
    then its destination steady; robot moves (squares) first, then battery moves (points)."""
    steps = []
    for src, dst in square_moves:
        steps += [PointerTarget.at_square(src, True), PointerTarget.at_square(dst)]
    for src, dst in point_moves:
        steps += [PointerTarget.at_point(src, True), PointerTarget.at_point(dst)]
    return steps


def win_sweep_frames() -> list[int]:
    """Bits for the win sweep: LED k of both edges together, k = 0..12."""
    return [1 << bottom_output(k) | 1 << left_output(k) for k in range(EDGE_LEDS)]


class Pointer:
    """The 26 pointer LEDs on a :class:`ShiftRegister`, animated by a channel."""

    def __init__(self, register: ShiftRegister, scheduler: Scheduler, lock: threading.RLock,
                 timings: Timings) -> None:
        if register.outputs < LEFT_OFFSET + EDGE_LEDS:
            raise ValueError(f"the pointer needs {CHIPS} chained 74HC595, got {register.outputs // 8}")
        self._register = register
        self._lock = lock
        self._timings = timings
        self._targets: tuple[PointerTarget, ...] = ()
        self.channel = Channel("pointer", self._apply, scheduler, lock, idle=0)

    def _apply(self, bits) -> None:  # noqa: ANN001
        self._register.write(int(bits or 0))

    @property
    def targets(self) -> tuple[PointerTarget, ...]:
        return self._targets

    def point_at_square(self, file: int, rank: int, blink: bool = False) -> None:
        self.show_sequence([PointerTarget.square(file, rank, blink)])

    def point_at_point(self, col: int, row: int, blink: bool = False) -> None:
        self.show_sequence([PointerTarget.point(col, row, blink)])

    def show_sequence(self, steps: Iterable[PointerTarget]) -> None:
        """Show the targets one after another, cycling (one target: held)."""
        steps = tuple(steps)
        for step in steps:
            if not isinstance(step, PointerTarget):
                raise TypeError(f"pointer steps must be PointerTarget, got {step!r}")
        with self._lock:
            self._targets = steps
            self.channel.play(patterns.pointer_sequence([(s.bits(), s.blink) for s in steps], self._timings))

    def show_move(self, source: PointerTarget, target: PointerTarget) -> None:
        """A move: the source blinking, then the target steady, in turn."""
        self.show_sequence([
            PointerTarget(source.kind, source.col, source.row, True),
            PointerTarget(target.kind, target.col, target.row, False),
        ])

    def sweep(self) -> None:
        with self._lock:
            self._targets = ()
            self.channel.play(patterns.win_sweep(win_sweep_frames(), self._timings))

    def clear(self) -> None:
        with self._lock:
            self._targets = ()
            self.channel.off()

    def lit_names(self, bits: int | None = None) -> tuple[str, ...]:
        value = self._register.value if bits is None else bits
        return tuple(OUTPUT_NAMES[i] for i in sorted(OUTPUT_NAMES) if value >> i & 1)

    def close(self) -> None:
        self.channel.close()


def names_to_bits(names: Sequence[str]) -> int:
    by_name = {n: i for i, n in OUTPUT_NAMES.items()}
    return sum(1 << by_name[n] for n in names)
