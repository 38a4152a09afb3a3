"""The GPIO panel of the Netzwerk Companion (gpiozero): LEDs, pointer LEDs, buzzer, buttons.

Knows nothing of the game; the companion states intentions::

    from hardware import Panel, PinMap, PointerTarget

    with Panel(PinMap.from_mapping(config_pins)) as panel:
        panel.show_turn("white")
        panel.on_confirm(lambda side: ...)
        panel.signal_illegal()
        panel.show_sequence([PointerTarget.square(2, 1, blink=True), PointerTarget.square(2, 3)])

Without a Pi: ``Panel(pin_factory=MockPanelFactory(), clock=ManualClock())`` and
``VirtualPanel(panel).render_text()``. Wiring: docs/wiring.md.
"""

from .animation import LedMode
from .errors import HardwareError, PanelError, PinMapError
from .factories import open_panel
from .mockpins import Chain595, MockPanelFactory, press, press_together
from .panel import LedState, Panel, PanelState
from .patterns import Pattern, Timings
from .pinmap import PinMap
from .pointer import PointerTarget
from .timing import ManualClock, MonotonicClock

__all__ = [
    "Chain595", "HardwareError", "LedMode", "LedState", "ManualClock", "MockPanelFactory",
    "MonotonicClock", "Panel", "PanelError", "PanelState", "Pattern", "PinMap", "PinMapError",
    "PointerTarget", "Timings", "open_panel", "press", "press_together",
]
