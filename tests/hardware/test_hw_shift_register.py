"""Bit order of the 74HC595 chain, checked on a model of the chips driven by the pins."""

import pytest

from hardware.mockpins import Chain595
from hardware.pointer import (BOTTOM_NAMES, COLS, FILES, LEFT_NAMES, OUTPUT_NAMES, PointerTarget)
from hardware.shift_register import ShiftRegister


@pytest.fixture
def chain_and_register(factory):
    reg = ShiftRegister(17, 27, 22, chips=4, pin_factory=factory)
    chain = Chain595(factory.bcm(17), factory.bcm(27), factory.bcm(22), chips=4)
    yield chain, reg
    chain.detach()
    reg.close()


def test_first_bit_clocked_lands_in_the_last_output(chain_and_register):
    chain, reg = chain_and_register
    reg.write(1 << 31)
    assert chain.last_frame[0] is True and not any(chain.last_frame[1:])
    assert chain.lit() == (31,)
    reg.write(1)
    assert chain.last_frame[-1] is True and not any(chain.last_frame[:-1])
    assert chain.lit() == (0,)
    assert len(chain.last_frame) == 32


def test_every_single_output(chain_and_register):
    chain, reg = chain_and_register
    for i in range(32):
        reg.write(1 << i)
        assert chain.lit() == (i,)
        assert reg.value == 1 << i
        # the data bits are sent highest output first
        assert chain.last_frame == tuple(j == i for j in reversed(range(32)))


def test_outputs_change_only_on_the_latch(chain_and_register, factory):
    chain, reg = chain_and_register
    reg.write(0b1011)
    latches = chain.latches
    seen = []
    factory.bcm(27).observers.append(lambda p, s: seen.append(chain.outputs))
    reg.write(0xF0F0_0001)
    assert chain.latches == latches + 1
    # while clocking, the outputs still show the previous value
    assert all(sum(1 << i for i, b in enumerate(o) if b) == 0b1011 for o in seen)
    assert chain.value == 0xF0F0_0001


def test_unchanged_value_is_not_shifted_again_and_bad_values_refused(chain_and_register):
    chain, reg = chain_and_register
    reg.write(5)
    clocks = chain.clocks
    reg.write(5)
    assert chain.clocks == clocks
    reg.write([True, False, True])
    assert chain.clocks == clocks  # the same bits as a sequence
    with pytest.raises(ValueError, match="does not fit"):
        reg.write(1 << 32)
    with pytest.raises(ValueError, match="33 bits"):
        reg.write([True] * 33)
    reg.refresh()
    assert chain.clocks == clocks + 32 and chain.value == 5


def test_pointer_layout_names():
    assert BOTTOM_NAMES == ("line-A", "file-a", "line-B", "file-b", "line-C", "file-c", "line-D",
                            "file-d", "line-E", "file-e", "line-F", "file-f", "line-G")
    assert LEFT_NAMES[:4] == ("line-1", "rank-1", "line-2", "rank-2") and LEFT_NAMES[-1] == "line-7"
    assert sorted(OUTPUT_NAMES) == list(range(13)) + list(range(16, 29))


def _expected_outputs(kind: str, col: int, row: int) -> tuple[int, int]:
    # Independent of the implementation: from the documented wiring table.
    if kind == "square":
        bottom = BOTTOM_NAMES.index(f"file-{FILES[col]}")
        left = LEFT_NAMES.index(f"rank-{row + 1}")
    else:
        bottom = BOTTOM_NAMES.index(f"line-{COLS[col]}")
        left = LEFT_NAMES.index(f"line-{row + 1}")
    return bottom, 16 + left


def test_shifted_bits_for_every_square_and_every_point(panel, factory):
    pm = panel.pin_map
    chain = Chain595(factory.bcm(pm.sr_data), factory.bcm(pm.sr_clock), factory.bcm(pm.sr_latch))
    try:
        for rank in range(6):
            for file in range(6):
                panel.point_at_square(file, rank)
                bottom, left = _expected_outputs("square", file, rank)
                assert chain.lit() == (bottom, left), f"square {FILES[file]}{rank + 1}"
                frame = chain.last_frame  # the 32 data bits as clocked, first bit first
                assert [31 - i for i, b in enumerate(frame) if b] == [left, bottom]
        for row in range(7):
            for col in range(7):
                panel.point_at_point(col, row)
                assert chain.lit() == _expected_outputs("point", col, row), f"point {COLS[col]}{row + 1}"
        panel.clear_pointer()
        assert chain.lit() == ()
    finally:
        chain.detach()


def test_pointer_target_validation_and_parsing():
    assert PointerTarget.parse("c3") == PointerTarget.square(2, 2)
    assert PointerTarget.parse("C3*") == PointerTarget.point(2, 2, blink=True)
    assert str(PointerTarget.point(6, 6)) == "G7"
    for bad in ("g1", "a7", "H1", "A8", "c", "c33"):
        with pytest.raises(ValueError, match="neither a square"):
            PointerTarget.parse(bad)
    with pytest.raises(ValueError, match="square file"):
        PointerTarget.square(6, 0)
    with pytest.raises(ValueError, match="point row"):
        PointerTarget.point(0, 7)
    with pytest.raises(ValueError, match="kind"):
        PointerTarget("battery", 0, 0)
    with pytest.raises(ValueError, match="integer"):
        PointerTarget.square(True, 0)


def test_closing_the_panel_darkens_the_pointer_leds(make_panel, factory):
    panel = make_panel()
    pm = panel.pin_map
    chain = Chain595(factory.bcm(pm.sr_data), factory.bcm(pm.sr_clock), factory.bcm(pm.sr_latch))
    panel.point_at_square(5, 5)
    assert chain.lit() == (11, 27)
    panel.close()
    assert chain.lit() == ()
    chain.detach()
