"""The LED and buzzer patterns of every signal: names and timings.

A :class:`Pattern` is a list of frames ``(value, seconds)`` played ``repeat``
times (``None``: for ever), then the ``final`` value. Values are ``bool`` for an
LED, a 32-bit int for the pointer shift register, a frequency in Hz (or
``None`` for silence) for the buzzer. Every timing lives in :class:`Timings`,
so tests and the docs read them from one place.

| signal | LEDs | buzzer |
| --- | --- | --- |
| turn | turn LED of the side to move, steady | — |
| accepted | green steady for ``accepted_s``, then off | — |
| illegal | red steady until the next signal | ``illegal_beeps`` beeps of ``illegal_tone_hz`` |
| unreadable | amber steady until the next signal | — |
| wrong player | amber flashes ``wrong_player_blinks`` times (then back to what it showed) | — |
| pointer, steady target | its two pointer LEDs steady | — |
| pointer, blinking target | its two pointer LEDs blink ``blink_on_s``/``blink_off_s`` | — |
| several targets | each shown ``pointer_step_s``, dark ``pointer_gap_s`` between, cycling | — |
| win | winner's turn LED blinks ``win_blink_s``; green→amber→red chase ``win_chase_s``; pointer LEDs sweep ``win_sweep_s`` per LED | ``win_tune`` then ``win_tune_pause_s`` silence, repeated |
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Hashable

EPS = 1e-9
# The tones the panel's TonalBuzzer can play (mid tone A5, two octaves each way).
TONE_RANGE = (220.0, 3520.0)


@dataclass(frozen=True)
class Pattern:
    """Frames ``(value, seconds)`` played ``repeat`` times (None = for ever), then ``final``."""

    name: str
    frames: tuple[tuple[Hashable, float], ...]
    repeat: int | None = None
    final: Hashable = None

    def __post_init__(self) -> None:
        if not self.frames:
            raise ValueError(f"pattern {self.name!r} has no frames")
        for value, seconds in self.frames:
            if not seconds > 0:
                raise ValueError(f"pattern {self.name!r}: frame {value!r} lasts {seconds} s (must be > 0)")
        if self.repeat is not None and self.repeat < 1:
            raise ValueError(f"pattern {self.name!r}: repeat must be >= 1 or None")

    @property
    def cycle(self) -> float:
        return sum(s for _, s in self.frames)

    @property
    def duration(self) -> float:
        """Total length; ``inf`` for a pattern that never ends."""
        if self.repeat is None:
            return math.inf
        return self.cycle * self.repeat

    @property
    def values(self) -> frozenset[Hashable]:
        return frozenset(v for v, _ in self.frames)

    def at(self, elapsed: float) -> tuple[Hashable, float]:
        """The value ``elapsed`` seconds after the start and the seconds until it changes.

        A change falling exactly on ``elapsed`` counts as done (a timer set for
        the change sees the new value).
        """
        real = max(0.0, elapsed)
        e = real + EPS
        if e >= self.duration:
            return self.final, math.inf
        cycle = self.cycle
        t = e if math.isinf(cycle) else math.fmod(e, cycle)
        cycle_start = e - t
        acc = 0.0
        for value, seconds in self.frames:
            if t < acc + seconds:
                change = cycle_start + acc + seconds  # absolute elapsed of the next change
                change = min(change, self.duration)
                return value, change - real
            acc += seconds
        return self.frames[0][0], EPS  # rounding at the end of a cycle: look again


def steady(value: Hashable, name: str | None = None) -> Pattern:
    """A value held for ever."""
    return Pattern(name or ("on" if value is True else "off" if value in (False, None, 0) else "steady"),
                   ((value, math.inf),))


OFF = steady(False, "off")
ON = steady(True, "on")
SILENT = steady(None, "off")


def blink(on_s: float, off_s: float, *, on: Hashable = True, off: Hashable = False,
          times: int | None = None, name: str = "blink", final: Hashable = False) -> Pattern:
    return Pattern(name, ((on, on_s), (off, off_s)), times, final)


@dataclass(frozen=True)
class Timings:
    """Every duration of the panel, in seconds (frequencies in Hz)."""

    accepted_s: float = 3.0
    illegal_tone_hz: float = 330.0
    illegal_beep_on_s: float = 0.25
    illegal_beep_off_s: float = 0.12
    illegal_beeps: int = 3
    wrong_player_on_s: float = 0.12
    wrong_player_off_s: float = 0.12
    wrong_player_blinks: int = 2
    blink_on_s: float = 0.3
    blink_off_s: float = 0.3
    pointer_step_s: float = 1.8
    pointer_gap_s: float = 0.3
    win_blink_s: float = 0.2
    win_chase_s: float = 0.15
    win_sweep_s: float = 0.08
    # A rising fanfare: C6 E6 G6 C7, the last one held.
    win_tune: tuple[tuple[float, float], ...] = (
        (1046.5, 0.15), (1318.5, 0.15), (1568.0, 0.15), (2093.0, 0.45),
    )
    win_tune_pause_s: float = 1.0
    selftest_step_s: float = 0.25
    bounce_s: float = 0.03
    hold_s: float = 2.0

    def __post_init__(self) -> None:
        for name, value in self.__dict__.items():
            if isinstance(value, float) and not value > 0:
                raise ValueError(f"timing {name!r} must be > 0, got {value}")
        if self.illegal_beeps < 1 or self.wrong_player_blinks < 1:
            raise ValueError("illegal_beeps and wrong_player_blinks must be >= 1")
        lo, hi = TONE_RANGE
        tones = [("illegal_tone_hz", self.illegal_tone_hz)] + [
            (f"win_tune[{i}]", hz) for i, (hz, _) in enumerate(self.win_tune)]
        for name, hz in tones:
            if not lo <= hz <= hi:
                raise ValueError(f"timing {name!r}: {hz} Hz is outside the buzzer's range {lo:g}..{hi:g} Hz")
        for i, (_, seconds) in enumerate(self.win_tune):
            if not seconds > 0:
                raise ValueError(f"timing 'win_tune[{i}]' must last > 0 s, got {seconds}")


# -- the patterns of the signals ------------------------------------------------

def accepted(t: Timings) -> Pattern:
    return Pattern("accepted", ((True, t.accepted_s),), repeat=1, final=False)


def illegal_red(t: Timings) -> Pattern:
    return steady(True, "illegal")


def illegal_buzz(t: Timings) -> Pattern:
    return blink(t.illegal_beep_on_s, t.illegal_beep_off_s, on=t.illegal_tone_hz, off=None,
                 times=t.illegal_beeps, name="illegal", final=None)


def unreadable(t: Timings) -> Pattern:
    return steady(True, "unreadable")


def wrong_player(t: Timings) -> Pattern:
    return blink(t.wrong_player_on_s, t.wrong_player_off_s, times=t.wrong_player_blinks,
                 name="wrong-player", final=False)


def pointer_blink(bits: int, t: Timings) -> Pattern:
    return blink(t.blink_on_s, t.blink_off_s, on=bits, off=0, name="pointer-blink", final=0)


def pointer_sequence(steps: list[tuple[int, bool]], t: Timings) -> Pattern:
    """Several targets ``(bits, blink)`` in turn, each ``pointer_step_s`` long, dark gaps between."""
    if not steps:
        return steady(0, "off")
    if len(steps) == 1:
        bits, blinking = steps[0]
        return pointer_blink(bits, t) if blinking else steady(bits, "pointer-steady")
    frames: list[tuple[Hashable, float]] = []
    for bits, blinking in steps:
        if blinking:
            period = t.blink_on_s + t.blink_off_s
            n = max(1, round(t.pointer_step_s / period))
            frames.extend([(bits, t.blink_on_s), (0, t.blink_off_s)] * n)
        else:
            frames.append((bits, t.pointer_step_s))
        frames.append((0, t.pointer_gap_s))
    return Pattern("pointer-sequence", tuple(frames))


def win_turn(t: Timings) -> Pattern:
    return blink(t.win_blink_s, t.win_blink_s, name="win")


def win_chase(position: int, t: Timings) -> Pattern:
    """Green (0), amber (1), red (2) light one after another."""
    frames: list[tuple[Hashable, float]] = []
    if position > 0:
        frames.append((False, position * t.win_chase_s))
    frames.append((True, t.win_chase_s))
    if position < 2:
        frames.append((False, (2 - position) * t.win_chase_s))
    return Pattern("win", tuple(frames))


def win_sweep(pairs: list[int], t: Timings) -> Pattern:
    """The pointer LEDs light pair by pair from the corner outwards."""
    return Pattern("win", tuple((bits, t.win_sweep_s) for bits in pairs))


def win_tune(t: Timings) -> Pattern:
    frames: list[tuple[Hashable, float]] = list(t.win_tune)
    frames.append((None, t.win_tune_pause_s))
    return Pattern("win-tune", tuple(frames))


def describe(pattern: Pattern) -> dict[str, Any]:
    """A JSON-friendly description (for ``netzwerk panel show --json``)."""
    return {
        "name": pattern.name,
        "frames": [[v, s if math.isfinite(s) else None] for v, s in pattern.frames],
        "repeat": pattern.repeat,
        "final": pattern.final,
    }
