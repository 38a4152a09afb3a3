"""The virtual panel reads the pins, not the panel's intentions."""

import cv2
import numpy as np
import pytest

from hardware.pointer import PointerTarget
from hardware.virtual import VirtualPanel


@pytest.fixture
def virtual(panel):
    v = VirtualPanel(panel)
    yield v
    v.close()


def _grid_rows(text):
    return {line[2:8].strip(): line for line in text.splitlines() if line[2:8].strip()[:4] in ("line", "rank")}


def test_text_shows_turn_status_gauge_buzzer_and_pointer(panel, virtual):
    panel.show_turn("black")
    panel.signal_illegal()
    panel.show_gauge(7, 14)
    panel.point_at_square(2, 2)  # c3
    text = virtual.render_text()
    assert "○ white  ● black" in text
    assert "○ green ○ amber ● red" in text
    assert "●●●○○" in text and "♪ 330 Hz" in text
    rows = _grid_rows(text)
    assert rows["rank 3"][9] == "●" and rows["rank 2"][9] == "○"
    # the square's marker sits in file c's column, aligned with the bottom LED of file c
    col = rows["rank 3"].index("◆")
    bottom = [line for line in text.splitlines() if line.startswith("│           ")][0]
    assert bottom[col] == "●" and bottom.count("●") == 1
    names = [line for line in text.splitlines() if "A a B b" in line][0]
    assert names[col] == "c"
    assert "pointer c3" in text and "status illegal" in text


def test_points_are_marked_on_line_crossings(panel, virtual):
    panel.point_at_point(3, 4)  # D5
    rows = _grid_rows(virtual.render_text())
    assert rows["line 5"][9] == "●" and "◉" in rows["line 5"] and "◆" not in "".join(rows.values())


def test_picture_comes_from_the_pins(panel, virtual, factory):
    # switch an LED and the shift register behind the panel's back: the picture follows the pins
    panel.devices["status_green"].on()
    panel.devices["shift_register"].write(1 << 0 | 1 << 16)
    pic = virtual.picture()
    assert pic.status["green"] and pic.bottom[0] and pic.left[0]
    assert panel.state().status is None  # the panel itself was never told
    assert pic.pointer_source.startswith("74HC595 model")
    factory.bcm(panel.pin_map.hint).drive_low()
    assert virtual.picture().buttons["hint"] is True
    assert "[▼hint]" in virtual.render_text()


def test_colour_output_uses_ansi_only_when_asked(panel, virtual):
    panel.show_turn("white")
    assert "\x1b[" not in virtual.render_text()
    assert "\x1b[1;97m●" in virtual.render_text(color=True)


def test_png_image(panel, virtual, tmp_path):
    panel.show_turn("white")
    panel.signal_accepted()
    panel.point_at_square(0, 0)
    img = virtual.render_image()
    assert img.shape == (520, 640, 3) and img.dtype == np.uint8
    # lit turn LED (white) is bright, the black turn LED is dark
    assert img[95, 470].min() > 200 and img[125, 470].max() < 120
    # green status LED lit, red not
    assert tuple(img[195, 470]) == (60, 220, 60) and img[255, 470][2] < 120
    path = virtual.save_png(tmp_path / "panel.png", scale=2)
    back = cv2.imread(str(path))
    assert back.shape == (1040, 1280, 3)


def test_virtual_panel_sees_bits_written_before_it_was_attached(panel):
    panel.show_sequence([PointerTarget.point(6, 6)])
    with VirtualPanel(panel) as v:
        assert v.picture().bottom[12] and v.picture().left[12]


def test_plain_mock_factories():
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from hardware import Panel, PanelError
    from hardware.timing import ManualClock

    plain = MockFactory()
    try:
        with pytest.raises(PanelError, match="GPIO18 cannot do PWM"):
            Panel(pin_factory=plain, clock=ManualClock())
        plain.reset()
        with Panel(pin_factory=plain, clock=ManualClock(), buzzer="active") as panel:
            panel.signal_illegal()
            assert panel.devices["buzzer"].is_active
            with VirtualPanel(panel) as v:
                assert v.chain is None  # plain mock pins cannot be watched: the driver's bits are used
                panel.point_at_square(1, 1)
                pic = v.picture()
                assert pic.bottom[3] and pic.left[3] and pic.pointer_source.startswith("shift-register driver")
                assert pic.buzzer_hz == 0.0 and "♪ on" in v.render_text()
    finally:
        plain.reset()
    pwm = MockFactory(pin_class=MockPWMPin)
    try:
        with Panel(pin_factory=pwm, clock=ManualClock()) as panel:
            panel.show_win("white")
            assert VirtualPanel(panel).picture().buzzer_hz == pytest.approx(1046.5, abs=0.5)
    finally:
        pwm.reset()
