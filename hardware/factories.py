"""Open the panel on the Pi's pins (``auto``) or on mock pins (``mock``), with clear errors.

``netzwerk panel selftest --gpio ...`` and the companion's ``run``/``demo`` use
the same choice; a machine without GPIO gets one sentence, not a traceback.
"""

from __future__ import annotations

import warnings
from typing import Any

from .errors import PanelError
from .mockpins import MockPanelFactory
from .panel import Panel
from .pinmap import PinMap

GPIO_CHOICES = ("auto", "mock")


def open_panel(gpio: str, pin_map: PinMap | None = None, **kwargs: Any) -> Panel:
    """A :class:`Panel` on gpiozero's default pin factory (``auto``) or on
    :class:`MockPanelFactory` (``mock``); ``kwargs`` go to ``Panel`` (clock, timings, buzzer).

    Raises :class:`PanelError` with a one-sentence message when the pins cannot be opened.
    """
    if gpio == "mock":
        return Panel(pin_map, MockPanelFactory(), **kwargs)
    if gpio != "auto":
        raise PanelError(f"gpio must be one of {', '.join(GPIO_CHOICES)}, got {gpio!r}")
    from gpiozero.exc import BadPinFactory, GPIOPinInUse, GPIOZeroError

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # gpiozero warns about every pin library it falls back from
        try:
            return Panel(pin_map, None, **kwargs)
        except BadPinFactory:
            raise PanelError(
                "no GPIO pins here: gpiozero found no pin library for this machine (not a Raspberry Pi, "
                "or lgpio not installed: pip install '.[pi]'); use --gpio mock for simulated pins"
            ) from None
        except GPIOPinInUse as exc:
            raise PanelError(
                f"a panel pin is already in use ({exc}); is the companion service running? "
                f"(systemctl stop netzwerk-companion)"
            ) from None
        except PanelError:
            raise
        except (GPIOZeroError, OSError, RuntimeError) as exc:
            raise PanelError(f"cannot open the panel's pins: {exc}") from None
