"""The GPIO panel: how the companion speaks to the players, and hears their buttons.

``Panel`` is composed like a gpiozero composite device: it owns gpiozero
``LED``s (turn and status), an ``LEDBarGraph`` (energy gauge), a
``TonalBuzzer`` (or ``Buzzer``), seven to eight ``Button``s and a
:class:`~hardware.shift_register.ShiftRegister` for the 26 pointer LEDs, all
on the given pin factory. It knows nothing of the game: callers state
intentions ("show turn: white", "signal illegal", "point at square c3").

Timed patterns run on a :class:`~hardware.timing.Scheduler`: pass
``clock=ManualClock()`` to step them deterministically (tests, unattended
self-test); by default they run on a background thread in real time.

Buttons (active low, internal pull-ups, wired to GND):

* ``confirm_white`` / ``confirm_black``: a short press (released before
  ``hold_s``) confirms the turn of that side, *if* its turn LED is lit;
  otherwise it is ignored with a short amber blink. Holding both for
  ``hold_s`` starts a new game.
* ``hint``, ``control``: act on press.
* ``undo``: acts after a long press (``hold_s``).
* ``new_game`` (optional dedicated button): acts after a long press.

Callbacks run one at a time on the panel's event thread (synchronously, in the
thread that moved the pin or the clock, with a ManualClock).
"""

from __future__ import annotations

import math
import numbers
import threading
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from gpiozero import LED, Button, Buzzer, LEDBarGraph, TonalBuzzer
from gpiozero.exc import PinPWMUnsupported
from gpiozero.tones import Tone

from . import patterns
from .animation import Channel, LedMode
from .buttons import HOLD, PRESS, RELEASE, RELEASE_HELD, ButtonLogic
from .errors import PanelError
from .patterns import Timings
from .pinmap import PinMap
from .pointer import CHIPS, OUTPUT_NAMES, Pointer, PointerTarget
from .shift_register import ShiftRegister
from .timing import Clock, Dispatcher, Scheduler

SIDES = ("white", "black")
STATUS_LEDS = ("green", "amber", "red")
BUTTON_NAMES = ("confirm_white", "confirm_black", "hint", "control", "undo", "new_game")
BUZZER_MID_TONE = "A5"
BUZZER_OCTAVES = 2  # 220 Hz .. 3520 Hz


@dataclass(frozen=True)
class LedState:
    mode: LedMode
    lit: bool

    def __str__(self) -> str:
        return self.mode.value


@dataclass(frozen=True)
class PanelState:
    """An immutable snapshot of everything the panel shows."""

    time: float
    turn: str | None
    status: str | None
    win: str | None
    leds: tuple[tuple[str, LedState], ...]
    pointer_targets: tuple[PointerTarget, ...]
    pointer_pattern: str
    pointer_lit: tuple[str, ...]
    gauge: tuple[float, float] | None
    gauge_lit: int
    buzzer: str
    buzzer_hz: float | None

    def led(self, name: str) -> LedState:
        for n, s in self.leds:
            if n == name:
                return s
        raise KeyError(f"no LED named {name!r} (LEDs: {', '.join(n for n, _ in self.leds)})")

    def as_dict(self) -> dict[str, Any]:
        return {
            "time": self.time,
            "turn": self.turn,
            "status": self.status,
            "win": self.win,
            "leds": {n: {"mode": s.mode.value, "lit": s.lit} for n, s in self.leds},
            "pointer": {"targets": [str(t) for t in self.pointer_targets],
                        "pattern": self.pointer_pattern, "lit": list(self.pointer_lit)},
            "gauge": None if self.gauge is None else {"value": self.gauge[0], "maximum": self.gauge[1],
                                                      "lit": self.gauge_lit},
            "buzzer": {"pattern": self.buzzer, "hz": self.buzzer_hz},
        }


def _check_side(side: Any, allow_none: bool) -> None:
    allowed = SIDES + ((None,) if allow_none else ())
    if side not in allowed:
        choices = "'white', 'black'" + (" or None" if allow_none else "")
        raise ValueError(f"side must be {choices}, got {side!r}")


def _check_number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise ValueError(f"gauge {name} must be a finite number, got {value!r}")
    return float(value)


class Panel:
    """LEDs, pointer LEDs, gauge, buzzer and buttons of the companion."""

    def __init__(self, pin_map: PinMap | None = None, pin_factory=None, *, clock: Clock | None = None,
                 timings: Timings | None = None, buzzer: str = "tonal") -> None:
        if pin_map is not None and not isinstance(pin_map, PinMap):
            raise TypeError(f"pin_map must be a PinMap, got {type(pin_map).__name__}")
        if buzzer not in ("tonal", "active"):
            raise ValueError(f"buzzer must be 'tonal' (passive piezo, PWM) or 'active', got {buzzer!r}")
        self.pin_map = pin_map or PinMap()
        self.timings = timings or Timings()
        self.buzzer_kind = buzzer
        self._lock = threading.RLock()
        self._closed = False
        self._devices: dict[str, Any] = {}
        self._channels: dict[str, Channel] = {}
        self._buttons: dict[str, ButtonLogic] = {}
        self._callbacks: dict[str, Callable[..., Any] | None] = {
            "confirm": None, "hint": None, "control": None, "undo": None, "new_game": None, "event": None,
        }
        self._turn: str | None = None
        self._status: str | None = None
        self._win: str | None = None
        self._gauge: tuple[float, float] | None = None
        self._new_game_latched = False
        self._scheduler = Scheduler(clock)
        self._dispatcher = Dispatcher(manual=self._scheduler.clock.manual)
        self.pointer: Pointer
        try:
            self._build(pin_factory)
        except Exception:
            self.close()
            raise

    # -- construction ------------------------------------------------------------
    def _add(self, name: str, factory: Callable[[], Any]) -> Any:
        device = factory()
        self._devices[name] = device
        return device

    def _build(self, pf) -> None:  # noqa: ANN001
        pm, t = self.pin_map, self.timings
        for side in SIDES:
            led = self._add(f"turn_{side}", lambda p=getattr(pm, f"turn_{side}"): LED(p, pin_factory=pf))
            self._channels[f"turn-{side}"] = Channel(f"turn-{side}", self._led_writer(led),
                                                     self._scheduler, self._lock)
        for colour in STATUS_LEDS:
            led = self._add(f"status_{colour}",
                            lambda p=getattr(pm, f"status_{colour}"): LED(p, pin_factory=pf))
            self._channels[colour] = Channel(colour, self._led_writer(led), self._scheduler, self._lock)
        self._add("gauge", lambda: LEDBarGraph(*pm.gauge, pwm=False, pin_factory=pf))
        if self.buzzer_kind == "tonal":
            try:
                bz = self._add("buzzer", lambda: TonalBuzzer(pm.buzzer, mid_tone=BUZZER_MID_TONE,
                                                             octaves=BUZZER_OCTAVES, pin_factory=pf))
            except PinPWMUnsupported as exc:
                raise PanelError(
                    f"the buzzer pin GPIO{pm.buzzer} cannot do PWM with this pin factory "
                    f"(for mock pins use hardware.mockpins.MockPanelFactory or "
                    f"MockFactory(pin_class=MockPWMPin); for an active buzzer pass buzzer='active')"
                ) from exc
        else:
            bz = self._add("buzzer", lambda: Buzzer(pm.buzzer, pin_factory=pf))
        self._channels["buzzer"] = Channel("buzzer", self._buzzer_writer(bz), self._scheduler,
                                           self._lock, idle=None)
        register = self._add("shift_register", lambda: ShiftRegister(
            pm.sr_data, pm.sr_clock, pm.sr_latch, chips=CHIPS, pin_factory=pf))
        self.pointer = Pointer(register, self._scheduler, self._lock, t)
        for name in BUTTON_NAMES:
            pin = getattr(pm, name)
            if pin is None:
                continue
            button = self._add(f"button_{name}", lambda p=pin: Button(
                p, pull_up=True, bounce_time=t.bounce_s, hold_time=t.hold_s, pin_factory=pf))
            self._buttons[name] = ButtonLogic(name, button, self._scheduler, self._lock,
                                              self._on_button, t.bounce_s, t.hold_s)

    @staticmethod
    def _led_writer(led: LED) -> Callable[[Any], None]:
        def write(value: Any) -> None:
            led.value = 1 if value else 0
        return write

    @staticmethod
    def _buzzer_writer(bz: TonalBuzzer | Buzzer) -> Callable[[Any], None]:
        def write(hz: Any) -> None:
            if isinstance(bz, TonalBuzzer):
                if hz is None:
                    bz.stop()
                else:
                    bz.play(Tone.from_frequency(float(hz)))
            else:
                bz.value = 0 if hz is None else 1
        return write

    # -- context manager / lifetime --------------------------------------------------
    def __enter__(self) -> "Panel":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Switch everything off and release every pin (safe to call twice)."""
        if self._closed:
            return
        self._closed = True
        for logic in self._buttons.values():
            logic.close()
        pointer = getattr(self, "pointer", None)
        if pointer is not None:
            pointer.close()
        for channel in self._channels.values():
            channel.close()
        self._scheduler.close()
        # The 74HC595 keep their outputs when the Pi lets go of the pins: clear
        # them first, or the pointer LEDs would stay lit after the program ends.
        register = self._devices.get("shift_register")
        if register is not None:
            try:
                register.write(0)
            except Exception:
                pass
        self._dispatcher.close()
        for logic in self._buttons.values():
            # gpiozero's hold thread polls every 0.1 s (and waits hold_time while a
            # button is down); wake it so that closing the buttons is quick
            # (only speed depends on these private attributes).
            hold_thread = getattr(logic.button, "_hold_thread", None)
            if hold_thread is not None:
                hold_thread.stopping.set()
                hold_thread.holding.set()
                inactive = getattr(logic.button, "_inactive_event", None)
                if inactive is not None:  # a button held while closing
                    inactive.set()
        for device in reversed(list(self._devices.values())):
            try:
                device.close()
            except Exception:  # closing must never mask the original problem
                pass

    def _check_open(self) -> None:
        if self._closed:
            raise PanelError("the panel is closed")

    # -- devices (for the virtual panel, the self-test and tests) ----------------------
    @property
    def devices(self) -> Mapping[str, Any]:
        """The gpiozero devices by name (read-only view)."""
        return dict(self._devices)

    @property
    def clock(self) -> Clock:
        return self._scheduler.clock

    @property
    def button_names(self) -> tuple[str, ...]:
        return tuple(self._buttons)

    def button_pin(self, name: str):  # noqa: ANN201 - a gpiozero Pin
        """The pin of button ``name`` (on mock pins: ``drive_low()`` presses it)."""
        if name not in self._buttons:
            raise KeyError(f"no button {name!r} (buttons: {', '.join(self._buttons)})")
        return self._buttons[name].button.pin

    def led_names(self) -> tuple[str, ...]:
        gauge = tuple(f"gauge-{i + 1}" for i in range(len(self.pin_map.gauge)))
        return ("turn-white", "turn-black", *STATUS_LEDS, *gauge,
                *(OUTPUT_NAMES[i] for i in sorted(OUTPUT_NAMES)))

    # -- turn and status -------------------------------------------------------------
    def show_turn(self, side: str | None) -> None:
        """Light the turn LED of ``side`` ("white", "black"), or none."""
        _check_side(side, allow_none=True)
        with self._lock:
            self._check_open()
            self._turn = side
            for s in SIDES:
                self._channels[f"turn-{s}"].play(patterns.ON if s == side else patterns.OFF)

    @property
    def turn(self) -> str | None:
        return self._turn

    def signal_accepted(self) -> None:
        """Green for ``accepted_s`` seconds; red, amber and the buzzer off."""
        with self._lock:
            self._check_open()
            self._status = "accepted"
            self._channels["green"].play(patterns.accepted(self.timings))
            self._channels["red"].play(patterns.OFF)
            self._channels["amber"].play(patterns.OFF)
            self._channels["buzzer"].play(patterns.SILENT)

    def signal_illegal(self) -> None:
        """Red until the next signal, and the buzzer beeps."""
        with self._lock:
            self._check_open()
            self._status = "illegal"
            self._channels["red"].play(patterns.illegal_red(self.timings))
            self._channels["green"].play(patterns.OFF)
            self._channels["amber"].play(patterns.OFF)
            self._channels["buzzer"].play(patterns.illegal_buzz(self.timings))

    def signal_unreadable(self) -> None:
        """Amber until the next signal: please fix the board."""
        with self._lock:
            self._check_open()
            self._status = "unreadable"
            self._channels["amber"].play(patterns.unreadable(self.timings))
            self._channels["green"].play(patterns.OFF)
            self._channels["red"].play(patterns.OFF)
            self._channels["buzzer"].play(patterns.SILENT)

    def clear_status(self) -> None:
        with self._lock:
            self._check_open()
            self._status = None
            for colour in STATUS_LEDS:
                self._channels[colour].play(patterns.OFF)
            self._channels["buzzer"].play(patterns.SILENT)

    def blink_wrong_player(self) -> None:
        """A short amber blink over whatever amber shows (it comes back afterwards)."""
        with self._lock:
            self._check_open()
            self._channels["amber"].flash(patterns.wrong_player(self.timings))

    # -- pointer ---------------------------------------------------------------------
    def point_at_square(self, file: int, rank: int) -> None:
        self._check_open()
        self.pointer.point_at_square(file, rank)

    def point_at_point(self, col: int, row: int) -> None:
        self._check_open()
        self.pointer.point_at_point(col, row)

    def show_sequence(self, steps: Iterable[PointerTarget]) -> None:
        """Show the targets in turn, cycling; e.g. a move: source blinking, then target steady."""
        self._check_open()
        self.pointer.show_sequence(steps)

    def clear_pointer(self) -> None:
        self._check_open()
        self.pointer.clear()

    # -- gauge -----------------------------------------------------------------------
    def show_gauge(self, value: float, maximum: float) -> None:
        """Light ``ceil(n * value / maximum)`` of the n gauge LEDs (any energy lights at least one)."""
        v = _check_number("value", value)
        m = _check_number("maximum", maximum)
        if m <= 0:
            raise ValueError(f"gauge maximum must be > 0, got {maximum!r}")
        if not 0 <= v <= m:
            raise ValueError(f"gauge value must be between 0 and the maximum {maximum!r}, got {value!r}")
        with self._lock:
            self._check_open()
            bar: LEDBarGraph = self._devices["gauge"]
            n = len(bar)
            lit = math.ceil(n * v / m - 1e-9)
            bar.value = lit / n
            self._gauge = (v, m)

    def clear_gauge(self) -> None:
        with self._lock:
            self._check_open()
            self._devices["gauge"].value = 0
            self._gauge = None

    # -- win -------------------------------------------------------------------------
    def show_win(self, side: str) -> None:
        """The winner's turn LED blinks, status LEDs chase, pointer sweeps, the tune plays, until :meth:`clear_win`."""
        _check_side(side, allow_none=False)
        with self._lock:
            self._check_open()
            self._win = side
            self._turn = None
            self._status = None
            for s in SIDES:
                self._channels[f"turn-{s}"].play(patterns.win_turn(self.timings) if s == side else patterns.OFF)
            for i, colour in enumerate(STATUS_LEDS):
                self._channels[colour].play(patterns.win_chase(i, self.timings))
            self.pointer.sweep()
            self._channels["buzzer"].play(patterns.win_tune(self.timings))

    def clear_win(self) -> None:
        """End the win pattern: turn and status LEDs, the pointer and the buzzer go off
        (the gauge keeps what it shows; ``clear_gauge()`` for that)."""
        with self._lock:
            self._check_open()
            self._win = None
            self._turn = None
            self._status = None
            for name, channel in self._channels.items():
                channel.off()
            self.pointer.clear()

    # -- buttons ---------------------------------------------------------------------
    def _set_callback(self, key: str, callback: Callable[..., Any] | None) -> None:
        if callback is not None and not callable(callback):
            raise TypeError(f"the {key} callback must be callable or None, got {callback!r}")
        self._callbacks[key] = callback

    def on_confirm(self, callback: Callable[[str], Any] | None) -> None:
        """``callback(side)`` when the side whose turn LED is lit presses its confirm button."""
        self._set_callback("confirm", callback)

    def on_hint(self, callback: Callable[[], Any] | None) -> None:
        self._set_callback("hint", callback)

    def on_control(self, callback: Callable[[], Any] | None) -> None:
        self._set_callback("control", callback)

    def on_undo(self, callback: Callable[[], Any] | None) -> None:
        """``callback()`` after a long press of the undo button."""
        self._set_callback("undo", callback)

    def on_new_game(self, callback: Callable[[], Any] | None) -> None:
        """``callback()`` after a long press of both confirm buttons, or of the new-game button."""
        self._set_callback("new_game", callback)

    def on_button_event(self, callback: Callable[[str, str], Any] | None) -> None:
        """``callback(button, event)`` for every debounced event of every button
        (event: ``press``, ``hold``, ``release``, ``release-held``), before the
        panel acts on it; for the self-test and logging."""
        self._set_callback("event", callback)

    def _fire(self, key: str, *args: Any) -> None:
        callback = self._callbacks[key]
        if callback is not None:
            self._dispatcher.submit(callback, *args)

    def _on_button(self, name: str, event: str) -> None:
        if self._closed:
            return
        self._fire("event", name, event)
        if name.startswith("confirm_"):
            side = name.removeprefix("confirm_")
            other = self._buttons["confirm_" + ("black" if side == "white" else "white")]
            if event == RELEASE:
                with self._lock:
                    accepted = side == self._turn
                    if not accepted:
                        self.blink_wrong_player()
                if accepted:
                    self._fire("confirm", side)
            elif event == HOLD:
                with self._lock:
                    both = other.is_held and not self._new_game_latched
                    if both:
                        self._new_game_latched = True
                if both:
                    self._fire("new_game")
            elif event == RELEASE_HELD:
                with self._lock:
                    if not other.is_pressed:
                        self._new_game_latched = False
        elif name in ("hint", "control") and event == PRESS:
            self._fire(name)
        elif name == "undo" and event == HOLD:
            self._fire("undo")
        elif name == "new_game" and event == HOLD:
            self._fire("new_game")

    # -- snapshot ----------------------------------------------------------------------
    def state(self) -> PanelState:
        """An immutable snapshot of every LED, the pointer, the gauge and the buzzer."""
        with self._lock:
            self._check_open()
            leds: list[tuple[str, LedState]] = []
            for name in ("turn-white", "turn-black", *STATUS_LEDS):
                ch = self._channels[name]
                leds.append((name, LedState(ch.mode(), bool(ch.value))))
            bar: LEDBarGraph = self._devices["gauge"]
            gauge_lit = 0
            for i, led in enumerate(bar):
                on = bool(led.value)
                gauge_lit += on
                leds.append((f"gauge-{i + 1}", LedState(LedMode.ON if on else LedMode.OFF, on)))
            pch = self.pointer.channel
            remaining = [int(v or 0) for v in pch.remaining_values()]
            current = int(pch.value or 0)
            for out in sorted(OUTPUT_NAMES):
                bit = 1 << out
                hits = [bool(v & bit) for v in remaining]
                mode = LedMode.ON if all(hits) else LedMode.BLINKING if any(hits) else LedMode.OFF
                leds.append((OUTPUT_NAMES[out], LedState(mode, bool(current & bit))))
            bch = self._channels["buzzer"]
            hz = bch.value
            return PanelState(
                time=self._scheduler.now(),
                turn=self._turn,
                status=self._status,
                win=self._win,
                leds=tuple(leds),
                pointer_targets=self.pointer.targets,
                pointer_pattern=pch.pattern_name,
                pointer_lit=self.pointer.lit_names(current),
                gauge=self._gauge,
                gauge_lit=gauge_lit,
                buzzer=bch.pattern_name,
                buzzer_hz=float(hz) if isinstance(hz, (int, float)) else None,
            )
