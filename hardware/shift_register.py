"""A daisy chain of 74HC595 shift registers on three gpiozero output devices.

Bit order (documented in docs/wiring.md):

* output index ``i`` (0-based) is pin ``Q(A+i%8)`` of chip ``i // 8``, chip 0
  being the one whose SER input is wired to the Pi's data pin; chip ``k``'s
  ``QH'`` (pin 9) feeds chip ``k+1``'s SER (pin 14);
* :meth:`ShiftRegister.write` clocks the bits out *highest index first*: on
  every rising edge of SRCLK each chip shifts ``QA→QB→…→QH→QH'`` and takes SER
  into ``QA``, so after ``8 * chips`` clocks the first bit sent sits in the last
  chip's ``QH`` and the last bit sent in chip 0's ``QA``;
* a rising edge of RCLK (latch) copies the shift stages to the outputs at once,
  so the LEDs never show the bits passing through.

OE (pin 13) is tied to GND and SRCLR (pin 10) to 3.3 V. The 74HC595 needs edges
of ~20 ns; gpiozero's pin writes take microseconds, so no delays are needed.
"""

from __future__ import annotations

from typing import Sequence

from gpiozero import CompositeDevice, DigitalOutputDevice


class ShiftRegister(CompositeDevice):
    """``chips`` daisy-chained 74HC595; ``value`` is the latched outputs as an int (bit i = output i)."""

    def __init__(self, data_pin: int | str, clock_pin: int | str, latch_pin: int | str, *,
                 chips: int = 4, pin_factory=None) -> None:
        if not 1 <= chips <= 16:
            raise ValueError(f"a chain of {chips} 74HC595 is not supported (1..16)")
        self._chips = chips
        self._latched = 0
        self._writes = 0
        created: list[DigitalOutputDevice] = []
        try:
            for pin in (data_pin, clock_pin, latch_pin):
                created.append(DigitalOutputDevice(pin, initial_value=False, pin_factory=pin_factory))
        except Exception:
            for dev in created:
                dev.close()
            raise
        super().__init__(data=created[0], clock=created[1], latch=created[2],
                         _order=("data", "clock", "latch"), pin_factory=pin_factory)
        self._send(0)

    @property
    def outputs(self) -> int:
        """Number of outputs of the chain (8 per chip)."""
        return 8 * self._chips

    @property
    def value(self) -> int:  # type: ignore[override]
        """The latched outputs: bit ``i`` is output ``i``."""
        return self._latched

    @value.setter
    def value(self, bits: int) -> None:
        self.write(bits)

    @property
    def writes(self) -> int:
        """How many times the chain has been shifted and latched (changes only)."""
        return self._writes

    def bits(self) -> tuple[bool, ...]:
        return tuple(bool(self._latched >> i & 1) for i in range(self.outputs))

    def write(self, bits: int | Sequence[bool]) -> None:
        """Latch ``bits`` (an int, bit i = output i, or a sequence of booleans) onto the outputs."""
        if not isinstance(bits, int):
            seq = list(bits)
            if len(seq) > self.outputs:
                raise ValueError(f"{len(seq)} bits for a chain of {self.outputs} outputs")
            bits = sum(1 << i for i, b in enumerate(seq) if b)
        if bits < 0 or bits >> self.outputs:
            raise ValueError(f"bit pattern {bits:#x} does not fit {self.outputs} outputs")
        if bits == self._latched:
            return
        self._send(bits)

    def refresh(self) -> None:
        """Shift the current value out again (e.g. after attaching a probe to the pins)."""
        self._send(self._latched)

    def _send(self, bits: int) -> None:
        self._check_open()
        data, clock, latch = self.data, self.clock, self.latch
        latch.off()
        for i in reversed(range(self.outputs)):
            data.value = bits >> i & 1
            clock.on()
            clock.off()
        data.off()
        latch.on()
        latch.off()
        self._latched = bits
        self._writes += 1
