"""Which BCM pin drives which part of the panel.

The defaults keep clear of the pins other hardware of a Raspberry Pi needs:

* GPIO 0 and 1 (ID EEPROM of HATs), 2 and 3 (I2C1), 7 to 11 (SPI0) are never
  used by default;
* the camera uses the CSI connector, no header pin;
* GPIO 14 and 15 (UART0 TX/RX) carry the last two LEDs of the energy gauge:
  on Raspberry Pi OS the serial port is off unless enabled (``raspi-config`` →
  Interface → Serial), and the Pi 5 has its own debug UART connector. If you
  need the serial console, move or drop those two gauge LEDs in the config file.

Every pin is a BCM number (``GPIO17`` is 17). ``PinMap.from_mapping`` takes the
``[pins]`` table of the config file; it accepts ints and the strings ``"17"``,
``"GPIO17"``, ``"BCM17"`` and ``"BOARD11"`` (a physical header pin).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Final, Iterator, Mapping

from .errors import PinMapError

# BCM number -> physical pin of the 40-pin header (every Pi since the B+).
HEADER_PIN: Final[dict[int, int]] = {
    2: 3, 3: 5, 4: 7, 14: 8, 15: 10, 17: 11, 18: 12, 27: 13, 22: 15, 23: 16,
    24: 18, 10: 19, 9: 21, 25: 22, 11: 23, 8: 24, 7: 26, 0: 27, 1: 28, 5: 29,
    6: 31, 12: 32, 13: 33, 19: 35, 16: 36, 26: 37, 20: 38, 21: 40,
}
BCM_BY_HEADER: Final[dict[int, int]] = {h: b for b, h in HEADER_PIN.items()}
VALID_BCM: Final = frozenset(HEADER_PIN)

# What else lives on a pin, for the wiring docs and for warnings.
PIN_ROLES: Final[dict[int, str]] = {
    0: "ID_SD (HAT EEPROM)", 1: "ID_SC (HAT EEPROM)", 2: "I2C1 SDA", 3: "I2C1 SCL",
    4: "GPCLK0 / 1-Wire", 7: "SPI0 CE1", 8: "SPI0 CE0", 9: "SPI0 MISO", 10: "SPI0 MOSI",
    11: "SPI0 SCLK", 12: "PWM0", 13: "PWM1", 14: "UART0 TXD", 15: "UART0 RXD",
    18: "PWM0 / PCM CLK", 19: "PWM1 / PCM FS", 20: "PCM DIN", 21: "PCM DOUT",
}
RESERVED_BY_DEFAULT: Final = frozenset({0, 1, 2, 3, 7, 8, 9, 10, 11})

# The human description of each key, used by docs and the self-test.
PART_NAMES: Final[dict[str, str]] = {
    "sr_data": "74HC595 SER (data), pin 14 of the first chip",
    "sr_clock": "74HC595 SRCLK (shift clock), pin 11 of every chip",
    "sr_latch": "74HC595 RCLK (latch), pin 12 of every chip",
    "turn_white": "turn LED White",
    "turn_black": "turn LED Black",
    "status_green": "status LED green (accepted)",
    "status_amber": "status LED amber (fix the board / wrong button)",
    "status_red": "status LED red (illegal)",
    "buzzer": "buzzer: 5 V magnetic transducer through an NPN transistor",
    "confirm_white": "button confirm White",
    "confirm_black": "button confirm Black",
    "hint": "button hint",
    "control": "button show control",
    "undo": "button undo (long press)",
    "new_game": "button new game (long press, optional)",
    "gauge": "energy gauge LED",
}


def _parse_pin(key: str, value: Any) -> int:
    """One pin value of the config file as a BCM number (existence checked later)."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise PinMapError(
            f"pin map key {key!r}: {value!r} is not a pin (use a BCM number like 17 or 'GPIO17')"
        )
    if isinstance(value, int):
        return value
    text = value.strip().upper()
    for prefix in ("GPIO", "BCM"):
        if text.startswith(prefix) and text[len(prefix):].isdigit():
            return int(text[len(prefix):])
    if text.startswith("BOARD") and text[5:].isdigit():
        header = int(text[5:])
        if header not in BCM_BY_HEADER:
            raise PinMapError(
                f"pin map key {key!r}: header pin {header} is not a GPIO pin "
                f"(power, ground or out of 1..40)"
            )
        return BCM_BY_HEADER[header]
    if text.isdigit():
        return int(text)
    raise PinMapError(
        f"pin map key {key!r}: {value!r} is not a pin (use a BCM number like 17, 'GPIO17' or 'BOARD11')"
    )


@dataclass(frozen=True)
class PinMap:
    """BCM pin of every part of the panel. Validated on construction."""

    sr_data: int = 17
    sr_clock: int = 27
    sr_latch: int = 22
    turn_white: int = 5
    turn_black: int = 6
    status_green: int = 23
    status_amber: int = 24
    status_red: int = 25
    buzzer: int = 18
    confirm_white: int = 16
    confirm_black: int = 26
    hint: int = 20
    control: int = 21
    undo: int = 19
    new_game: int | None = None
    gauge: tuple[int, ...] = (4, 12, 13, 14, 15)

    def __post_init__(self) -> None:
        if not isinstance(self.gauge, tuple):
            raise PinMapError(f"pin map key 'gauge': must be a list of pins, got {self.gauge!r}")
        if not 1 <= len(self.gauge) <= 10:
            raise PinMapError(f"pin map key 'gauge': needs 1 to 10 pins, got {len(self.gauge)}")
        used: dict[int, str] = {}
        for key, pin in self.assignments():
            if isinstance(pin, bool) or not isinstance(pin, int):
                raise PinMapError(f"pin map key {key!r}: {pin!r} is not a BCM pin number")
            if pin not in VALID_BCM:
                raise PinMapError(
                    f"pin map key {key!r}: GPIO{pin} does not exist on the 40-pin header "
                    f"(BCM pins are 0..27)"
                )
            if pin in used:
                raise PinMapError(
                    f"pin map key {key!r}: GPIO{pin} is used twice (already taken by {used[pin]!r})"
                )
            used[pin] = key

    def assignments(self) -> Iterator[tuple[str, int]]:
        """``(key, bcm)`` for every wired part, gauge LEDs as ``gauge_1``, ``gauge_2``, ... (config-file keys)"""
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "gauge":
                for i, pin in enumerate(value):
                    yield f"gauge_{i + 1}", pin
            elif value is not None:
                yield f.name, value

    def reserved_pins_used(self) -> tuple[tuple[str, int, str], ...]:
        """Keys placed on pins the defaults avoid (I2C, SPI, HAT ID), for warnings."""
        return tuple(
            (key, pin, PIN_ROLES[pin]) for key, pin in self.assignments() if pin in RESERVED_BY_DEFAULT
        )

    @classmethod
    def keys(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any]) -> "PinMap":
        """The defaults overridden by ``mapping`` (the config file's ``[pins]`` table).

        ``new_game`` may be ``None``, ``""`` or ``"none"`` for "no dedicated button";
        The gauge is a list ``gauge = [4, 12, ...]`` or, for config files whose pin
        table holds only integers, the keys ``gauge_1``, ``gauge_2``, ... (first LED first).
        """
        if not isinstance(mapping, Mapping):
            raise PinMapError(f"pin map must be a table of key = pin, got {type(mapping).__name__}")
        known = cls.keys()
        values: dict[str, Any] = {}
        numbered: dict[int, Any] = {}
        for key, raw in mapping.items():
            if isinstance(key, str) and key.startswith("gauge_") and key[6:].isdigit():
                numbered[int(key[6:])] = raw
                continue
            if key not in known:
                raise PinMapError(f"pin map: unknown key {key!r} (known keys: {', '.join(known)})")
            if key == "gauge":
                if isinstance(raw, (str, bytes)) or not isinstance(raw, (list, tuple)):
                    raise PinMapError(f"pin map key 'gauge': must be a list of pins, got {raw!r}")
                values[key] = tuple(_parse_pin(f"gauge_{i + 1}", p) for i, p in enumerate(raw))
            elif key == "new_game" and (raw is None or (isinstance(raw, str) and raw.strip().lower() in ("", "none"))):
                values[key] = None
            else:
                values[key] = _parse_pin(key, raw)
        if numbered:
            if "gauge" in values:
                raise PinMapError("pin map: give the gauge either as 'gauge' = [...] or as gauge_1, gauge_2, ..., not both")
            expected = list(range(1, len(numbered) + 1))
            if sorted(numbered) != expected:
                missing = sorted(set(range(1, max(numbered) + 1)) - set(numbered))
                raise PinMapError(
                    f"pin map: gauge keys must be gauge_1 .. gauge_{len(numbered)} without gaps "
                    f"(missing: {', '.join(f'gauge_{i}' for i in missing) or 'gauge_1'})"
                )
            values["gauge"] = tuple(_parse_pin(f"gauge_{i}", numbered[i]) for i in expected)
        return cls(**values)

    def to_mapping(self) -> dict[str, Any]:
        """The inverse of :meth:`from_mapping` (BCM ints, gauge as a list)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = list(value) if f.name == "gauge" else value
        return out
