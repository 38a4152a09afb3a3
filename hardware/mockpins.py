"""Mock hardware for machines without a Pi: observable mock pins and a 74HC595 model.

``MockPanelFactory`` is a gpiozero ``MockFactory`` whose pins support PWM (the
buzzer is a ``TonalBuzzer``) and report every change to observers. A
:class:`Chain595` watches the data/clock/latch pins and behaves like the real
chips: it samples SER on each rising SRCLK edge and copies the stages to the
outputs on a rising RCLK edge. The virtual panel and the tests read the
pointer LEDs from this model, i.e. from what the pins actually did.
"""

from __future__ import annotations

from typing import Callable

from gpiozero.pins.mock import MockFactory, MockPWMPin


class ObservedMockPin(MockPWMPin):
    """A PWM-capable mock pin that calls ``observers(pin, state)`` on every change."""

    def __init__(self, factory, info) -> None:
        self.observers: list[Callable[["ObservedMockPin", float], None]] = []
        super().__init__(factory, info)

    def _notify(self) -> None:
        for observer in list(getattr(self, "observers", ())):
            observer(self, self._state)

    def _change_state(self, value):  # noqa: ANN001 - gpiozero signature
        changed = super()._change_state(value)
        if changed:
            self._notify()
        return changed

    def _set_frequency(self, value):  # noqa: ANN001 - gpiozero signature
        before = self._frequency
        super()._set_frequency(value)
        if self._frequency != before and self._state:
            self._notify()  # a new tone at the same duty cycle is a change too


class MockPanelFactory(MockFactory):
    """``MockFactory`` with :class:`ObservedMockPin` pins (PWM capable, observable)."""

    def __init__(self, revision: str | None = None) -> None:
        super().__init__(revision=revision, pin_class=ObservedMockPin)

    def bcm(self, number: int) -> ObservedMockPin:
        """The mock pin GPIO``number`` (created if needed)."""
        return self.pin(f"GPIO{number}")


class Chain595:
    """A model of ``chips`` daisy-chained 74HC595 attached to three observed pins."""

    def __init__(self, data: ObservedMockPin, clock: ObservedMockPin, latch: ObservedMockPin,
                 chips: int = 4) -> None:
        for pin in (data, clock, latch):
            if not isinstance(pin, ObservedMockPin):
                raise TypeError(f"{pin!r} is not an ObservedMockPin (use MockPanelFactory)")
        self._data, self._clock, self._latch = data, clock, latch
        self.stages = [False] * (8 * chips)
        self.outputs: tuple[bool, ...] = tuple(self.stages)
        self.clocks = 0
        self.latches = 0
        self.last_frame: tuple[bool, ...] = ()  # data bits clocked before the last latch
        self.sampled: list[bool] = []  # data bits in the order they were clocked since the last latch
        clock.observers.append(self._on_clock)
        latch.observers.append(self._on_latch)

    def _on_clock(self, pin: ObservedMockPin, state: float) -> None:
        if state:
            bit = bool(self._data.state)
            self.stages = [bit] + self.stages[:-1]
            self.sampled.append(bit)
            self.clocks += 1

    def _on_latch(self, pin: ObservedMockPin, state: float) -> None:
        if state:
            self.outputs = tuple(self.stages)
            self.latches += 1
            self.last_frame = tuple(self.sampled)
            self.sampled = []

    @property
    def value(self) -> int:
        return sum(1 << i for i, b in enumerate(self.outputs) if b)

    def lit(self) -> tuple[int, ...]:
        return tuple(i for i, b in enumerate(self.outputs) if b)

    def detach(self) -> None:
        if self._on_clock in self._clock.observers:
            self._clock.observers.remove(self._on_clock)
        if self._on_latch in self._latch.observers:
            self._latch.observers.remove(self._on_latch)


def wait(clock, seconds: float) -> None:  # noqa: ANN001 - a hardware.timing.Clock
    """Let ``seconds`` pass: advance a manual clock, sleep on a real one."""
    if getattr(clock, "manual", False):
        clock.advance(seconds)
    else:
        import time

        time.sleep(seconds)


def press(panel, name: str, *, hold: bool = False, seconds: float | None = None) -> None:  # noqa: ANN001
    """Press button ``name`` of a panel on mock pins: short, or held past the hold time.

    The pin is driven low (pressed), kept down ``seconds`` (default: 0.1 s, or
    the hold time + 0.1 s with ``hold=True``), driven high, and the debounce
    window is let pass.
    """
    pin = panel.button_pin(name)
    t = panel.timings
    down = seconds if seconds is not None else (t.hold_s + 0.1 if hold else 0.1)
    pin.drive_low()
    wait(panel.clock, down)
    pin.drive_high()
    wait(panel.clock, t.bounce_s + 0.01)


def press_together(panel, names: tuple[str, ...], seconds: float) -> None:  # noqa: ANN001
    """Press several buttons at once (e.g. both confirm buttons), hold them ``seconds``, release."""
    pins = [panel.button_pin(n) for n in names]
    for pin in pins:
        pin.drive_low()
    wait(panel.clock, seconds)
    for pin in pins:
        pin.drive_high()
    wait(panel.clock, panel.timings.bounce_s + 0.01)
