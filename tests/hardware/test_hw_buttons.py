"""Buttons on mock pins: debouncing, long presses, confirm per player, wrong-player blink."""

import threading

import pytest

from hardware.animation import LedMode
from hardware.mockpins import press, press_together
from hardware.patterns import Timings
from hardware.pinmap import PinMap
from hardware.timing import MonotonicClock

T = Timings()


@pytest.fixture
def calls(panel):
    log: list[tuple] = []
    panel.on_confirm(lambda side: log.append(("confirm", side)))
    panel.on_hint(lambda: log.append(("hint",)))
    panel.on_control(lambda: log.append(("control",)))
    panel.on_undo(lambda: log.append(("undo",)))
    panel.on_new_game(lambda: log.append(("new_game",)))
    return log


@pytest.fixture
def events(panel):
    log: list[tuple[str, str]] = []
    panel.on_button_event(lambda name, event: log.append((name, event)))
    return log


def test_buttons_are_gpiozero_buttons_with_bounce_and_hold_time(panel):
    for name in panel.button_names:
        button = panel.devices[f"button_{name}"]
        assert type(button).__name__ == "Button"
        assert button.hold_time == T.hold_s
        assert button.pin.bounce == T.bounce_s
        assert button.pull_up is True
    assert panel.button_names == ("confirm_white", "confirm_black", "hint", "control", "undo")


def test_confirm_of_the_side_to_move_fires_on_release(panel, clock, calls):
    panel.show_turn("white")
    pin = panel.button_pin("confirm_white")
    pin.drive_low()
    clock.advance(0.1)
    assert calls == []  # a long press of both buttons must not confirm first
    pin.drive_high()
    assert calls == [("confirm", "white")]
    clock.advance(0.1)
    panel.show_turn("black")
    press(panel, "confirm_black")
    assert calls == [("confirm", "white"), ("confirm", "black")]


def test_wrong_player_press_is_ignored_with_a_short_amber_blink(panel, clock, calls, recorder):
    rec = recorder({"amber": panel.pin_map.status_amber})
    panel.show_turn("white")
    clock.advance(1)
    pin = panel.button_pin("confirm_black")
    pin.drive_low()
    clock.advance(0.1)
    pin.drive_high()  # at t = 1.1
    assert calls == []
    assert panel.state().led("amber").mode is LedMode.BLINKING
    clock.advance(2)
    on, off = T.wrong_player_on_s, T.wrong_player_off_s
    expected = [(0.0, False)]
    for i in range(T.wrong_player_blinks):
        expected += [(1.1 + i * (on + off), True), (1.1 + i * (on + off) + on, False)]
    assert [(pytest.approx(t), v) for t, v in expected] == rec.timeline("amber")
    # with no turn shown, neither confirm button counts
    panel.show_turn(None)
    press(panel, "confirm_white")
    assert calls == []


def test_contact_bounce_gives_one_press(panel, clock, calls, events):
    pin = panel.button_pin("hint")
    pin.drive_low()
    for _ in range(4):  # chatter for 8 ms, inside the bounce window
        clock.advance(0.001)
        pin.drive_high()
        clock.advance(0.001)
        pin.drive_low()
    clock.advance(0.2)
    pin.drive_high()
    for _ in range(3):
        clock.advance(0.002)
        pin.drive_low()
        clock.advance(0.002)
        pin.drive_high()
    clock.advance(0.2)
    assert calls == [("hint",)]
    assert events == [("hint", "press"), ("hint", "release")]
    assert panel._buttons["hint"].ignored_edges == 14


def test_bounce_that_ends_released_is_not_lost(panel, clock, events, calls):
    pin = panel.button_pin("control")
    pin.drive_low()        # t = 0: counts at once
    clock.advance(0.01)
    pin.drive_high()       # inside the window: ignored for now ...
    clock.advance(T.bounce_s)
    # ... but when the window closes the level is read again
    assert events == [("control", "press"), ("control", "release")]
    assert [t for t in (panel._buttons["control"].is_pressed,)] == [False]
    clock.advance(0.1)
    press(panel, "control")
    assert calls == [("control",), ("control",)]


def test_edges_after_the_bounce_window_count(panel, clock, events):
    pin = panel.button_pin("hint")
    pin.drive_low()
    clock.advance(T.bounce_s + 0.001)
    pin.drive_high()
    clock.advance(T.bounce_s + 0.001)
    pin.drive_low()
    clock.advance(T.bounce_s + 0.001)
    pin.drive_high()
    assert [e for _, e in events] == ["press", "release", "press", "release"]


def test_undo_needs_a_long_press(panel, clock, calls, events):
    pin = panel.button_pin("undo")
    press(panel, "undo", seconds=T.hold_s - 0.05)  # too short
    assert calls == []
    pin.drive_low()
    clock.advance(T.hold_s - 0.001)
    assert calls == []
    clock.advance(0.002)
    assert calls == [("undo",)]
    clock.advance(5)  # holding on does not repeat
    pin.drive_high()
    clock.advance(1)
    assert calls == [("undo",)]
    assert events[-3:] == [("undo", "press"), ("undo", "hold"), ("undo", "release-held")]


def test_both_confirm_buttons_held_start_a_new_game_without_confirming(panel, clock, calls):
    panel.show_turn("white")
    press_together(panel, ("confirm_white", "confirm_black"), T.hold_s + 0.5)
    assert calls == [("new_game",)]
    # a new game again needs both held anew
    press(panel, "confirm_white", hold=True)
    assert calls == [("new_game",)]
    # staggered: black held first, white joins later and is held long enough
    b, w = panel.button_pin("confirm_black"), panel.button_pin("confirm_white")
    b.drive_low()
    clock.advance(1.0)
    w.drive_low()
    clock.advance(T.hold_s - 0.01)
    assert calls == [("new_game",)]
    clock.advance(0.02)
    assert calls == [("new_game",), ("new_game",)]
    w.drive_high()
    b.drive_high()
    clock.advance(0.1)
    press(panel, "confirm_white")
    assert calls == [("new_game",), ("new_game",), ("confirm", "white")]


def test_dedicated_new_game_button_needs_a_long_press(make_panel, clock):
    panel = make_panel(PinMap.from_mapping({"new_game": 9}))
    log = []
    panel.on_new_game(lambda: log.append("new"))
    press(panel, "new_game")
    assert log == []
    press(panel, "new_game", hold=True)
    assert log == ["new"]


def test_callbacks_can_be_replaced_or_removed_and_must_be_callable(panel, calls):
    panel.on_hint(None)
    press(panel, "hint")
    assert calls == []
    with pytest.raises(TypeError, match="callable"):
        panel.on_hint("hint")
    with pytest.raises(KeyError, match="no button 'new_game'"):
        panel.button_pin("new_game")


def test_real_clock_runs_callbacks_on_the_event_thread_and_patterns_in_background(make_panel):
    panel = make_panel(clock=MonotonicClock(), timings=Timings(hold_s=0.05, wrong_player_on_s=0.01,
                                                                wrong_player_off_s=0.01))
    done = threading.Event()
    threads = []

    def on_undo():
        threads.append(threading.current_thread().name)
        done.set()

    panel.on_undo(on_undo)
    pin = panel.button_pin("undo")
    pin.drive_low()
    assert done.wait(5), "the long press was not detected on the real clock"
    pin.drive_high()
    assert threads == ["panel-events"]
    panel.blink_wrong_player()
    amber = panel.devices["status_amber"]
    deadline = threading.Event()
    for _ in range(500):
        if panel.state().led("amber").mode is LedMode.OFF and not amber.is_lit:
            break
        deadline.wait(0.01)
    assert not amber.is_lit and panel.state().led("amber").mode is LedMode.OFF
    assert amber.pin.states[-1].state is False or amber.pin.states[-1].state == 0
    assert len(amber.pin.states) >= 1 + 2 * T.wrong_player_blinks


def test_a_button_down_at_start_counts_as_held(factory, clock):
    import threading as _t

    from gpiozero import Button

    from hardware.buttons import ButtonLogic
    from hardware.timing import Scheduler

    button = Button(16, pull_up=True, pin_factory=factory)
    scheduler = Scheduler(clock)
    try:
        button.pin.drive_low()  # already pressed (stuck, or leaned on) when the logic starts
        events = []
        logic = ButtonLogic("b", button, scheduler, _t.RLock(), lambda n, e: events.append(e), 0.03, 2.0)
        assert logic.is_held
        button.pin.drive_high()
        clock.advance(0.1)
        assert events == ["release-held"]  # not a short press
        button.pin.drive_low()
        clock.advance(0.1)
        button.pin.drive_high()
        assert events == ["release-held", "press", "release"]
        logic.close()
    finally:
        scheduler.close()
        button.close()
