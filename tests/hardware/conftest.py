"""Fixtures for the panel tests: mock pins, a manual clock, a panel, pin recorders.

Every test gets a fresh ``MockPanelFactory`` and ``ManualClock``; panels are
closed and the factory reset afterwards, and gpiozero's global
``Device.pin_factory`` is checked to be untouched, so no device leaks from one
test into the next.
"""

from __future__ import annotations

from typing import Any

import pytest
from gpiozero import Device

from hardware.mockpins import MockPanelFactory
from hardware.panel import Panel
from hardware.pinmap import PinMap
from hardware.timing import ManualClock


@pytest.fixture(autouse=True)
def _no_global_pin_factory():
    before = Device.pin_factory
    yield
    leaked = Device.pin_factory
    Device.pin_factory = before
    assert leaked is before, "a test changed gpiozero's global Device.pin_factory"


@pytest.fixture
def factory():
    f = MockPanelFactory()
    yield f
    f.reset()


@pytest.fixture
def clock():
    return ManualClock()


@pytest.fixture
def make_panel(factory, clock):
    made: list[Panel] = []

    def make(pin_map: PinMap | None = None, **kwargs: Any) -> Panel:
        panel = Panel(pin_map, factory, clock=kwargs.pop("clock", clock), **kwargs)
        made.append(panel)
        return panel

    yield make
    for panel in made:
        panel.close()
    assert all(p.closed for p in made)


@pytest.fixture
def panel(make_panel):
    return make_panel()


class PinRecorder:
    """Records every change of the watched mock pins with the manual clock's time.

    ``timeline(name)`` is ``[(t, value), ...]`` with consecutive duplicates
    dropped; the value is a bool for a plain pin and the frequency in Hz (or
    None when silent) for a PWM buzzer pin.
    """

    def __init__(self, factory: MockPanelFactory, clock: ManualClock, pins: dict[str, int],
                 tone: tuple[str, ...] = ()) -> None:
        self.clock = clock
        self.events: dict[str, list[tuple[float, Any]]] = {}
        for name, bcm in pins.items():
            pin = factory.bcm(bcm)
            self.events[name] = [(round(clock.now(), 6), self._value(pin, name in tone))]
            pin.observers.append(lambda p, s, n=name, t=name in tone: self._record(n, p, t))

    @staticmethod
    def _value(pin, tonal: bool):  # noqa: ANN001
        if tonal:
            return float(pin.frequency) if pin.state and pin.frequency else None
        return bool(pin.state)

    def _record(self, name: str, pin, tonal: bool) -> None:  # noqa: ANN001
        value = self._value(pin, tonal)
        events = self.events[name]
        t = round(self.clock.now(), 6)
        if events and events[-1][1] == value:
            return
        if events and events[-1][0] == t:
            events[-1] = (t, value)  # same instant: the last value wins
            if len(events) > 1 and events[-2][1] == value:
                events.pop()
            return
        events.append((t, value))

    def timeline(self, name: str) -> list[tuple[float, Any]]:
        return list(self.events[name])


@pytest.fixture
def recorder(factory, clock):
    def make(pins: dict[str, int], tone: tuple[str, ...] = ()) -> PinRecorder:
        return PinRecorder(factory, clock, pins, tone)

    return make
