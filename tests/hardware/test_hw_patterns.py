"""Pin timelines of every signal, recorded from the mock pins on a manual clock."""

import math

import pytest

from hardware import patterns
from hardware.animation import LedMode
from hardware.mockpins import Chain595
from hardware.patterns import Pattern, Timings
from hardware.pointer import PointerTarget

T = Timings()


def approx_timeline(actual, expected):
    assert len(actual) == len(expected), f"{actual} != {expected}"
    for (ta, va), (te, ve) in zip(actual, expected):
        assert ta == pytest.approx(te, abs=1e-6), f"{actual} != {expected}"
        if isinstance(ve, float):
            assert va == pytest.approx(ve, abs=0.01), f"{actual} != {expected}"
        else:
            assert va == ve, f"{actual} != {expected}"


def status_pins(panel):
    pm = panel.pin_map
    return {"green": pm.status_green, "amber": pm.status_amber, "red": pm.status_red,
            "white": pm.turn_white, "black": pm.turn_black, "buzzer": pm.buzzer}


# -- the pattern type -----------------------------------------------------------------

def test_pattern_at_reports_value_and_time_to_the_next_change():
    p = Pattern("x", ((1, 0.5), (2, 0.25)), repeat=2, final=0)
    assert p.at(0) == (1, pytest.approx(0.5))
    assert p.at(0.5) == (2, pytest.approx(0.25))  # a change at exactly t counts as done
    assert p.at(0.8) == (1, pytest.approx(0.45))
    assert p.at(1.4) == (2, pytest.approx(0.1))
    assert p.at(1.5) == (0, math.inf)
    assert p.duration == pytest.approx(1.5)
    assert patterns.ON.at(1e9) == (True, math.inf)


@pytest.mark.parametrize("kwargs, message", [
    ({"frames": ()}, "no frames"),
    ({"frames": ((True, 0.0),)}, "must be > 0"),
    ({"frames": ((True, 1.0),), "repeat": 0}, "repeat"),
])
def test_bad_patterns_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Pattern("bad", **kwargs)


def test_bad_timings_are_refused():
    with pytest.raises(ValueError, match="accepted_s"):
        Timings(accepted_s=0.0)
    with pytest.raises(ValueError, match="illegal_beeps"):
        Timings(illegal_beeps=0)
    with pytest.raises(ValueError, match="win_tune.1.*4000"):
        Timings(win_tune=((440.0, 0.1), (4000.0, 0.1)))
    with pytest.raises(ValueError, match="illegal_tone_hz"):
        Timings(illegal_tone_hz=100.0)


def test_buzzer_range_matches_the_tonal_buzzer(panel):
    from hardware.patterns import TONE_RANGE

    bz = panel.devices["buzzer"]
    assert bz.min_tone.frequency == pytest.approx(TONE_RANGE[0])
    assert bz.max_tone.frequency == pytest.approx(TONE_RANGE[1])


# -- signals ----------------------------------------------------------------------------

def test_turn_leds(panel, clock, recorder):
    rec = recorder(status_pins(panel))
    panel.show_turn("white")
    clock.advance(1)
    panel.show_turn("black")
    clock.advance(1)
    panel.show_turn(None)
    assert rec.timeline("white") == [(0.0, True), (1.0, False)]
    assert rec.timeline("black") == [(0.0, False), (1.0, True), (2.0, False)]
    with pytest.raises(ValueError, match="'white', 'black' or None"):
        panel.show_turn("White")


def test_accepted_is_green_for_accepted_s_then_off(panel, clock, recorder):
    rec = recorder(status_pins(panel), tone=("buzzer",))
    panel.signal_accepted()
    assert panel.state().led("green").mode is LedMode.ON
    clock.advance(10)
    assert rec.timeline("green") == [(0.0, True), (T.accepted_s, False)]
    assert rec.timeline("red") == [(0.0, False)] and rec.timeline("buzzer") == [(0.0, None)]
    assert panel.state().led("green").mode is LedMode.OFF
    assert panel.state().status == "accepted"


def test_illegal_is_red_until_the_next_signal_with_beeps(panel, clock, recorder):
    rec = recorder(status_pins(panel), tone=("buzzer",))
    panel.signal_illegal()
    s = panel.state()
    assert s.led("red").mode is LedMode.ON and s.buzzer == "illegal" and s.buzzer_hz == T.illegal_tone_hz
    clock.advance(5)
    on, off, hz = T.illegal_beep_on_s, T.illegal_beep_off_s, T.illegal_tone_hz
    expected = []
    for i in range(T.illegal_beeps):
        start = i * (on + off)
        expected += [(start, hz), (start + on, None)]
    approx_timeline(rec.timeline("buzzer"), expected)
    assert rec.timeline("red") == [(0.0, True)]
    assert panel.state().buzzer == "off"
    panel.signal_accepted()
    assert rec.timeline("red") == [(0.0, True), (5.0, False)]


def test_unreadable_is_amber_until_cleared(panel, clock, recorder):
    rec = recorder(status_pins(panel))
    panel.signal_illegal()
    clock.advance(0.1)
    panel.signal_unreadable()  # a new signal replaces red and silences the buzzer
    clock.advance(60)
    panel.clear_status()
    assert rec.timeline("amber") == [(0.0, False), (0.1, True), (60.1, False)]
    assert rec.timeline("red") == [(0.0, True), (0.1, False)]
    assert panel.state().status is None


def test_wrong_player_blink_and_amber_comes_back(panel, clock, recorder):
    rec = recorder(status_pins(panel))
    panel.blink_wrong_player()
    clock.advance(2)
    on, off = T.wrong_player_on_s, T.wrong_player_off_s
    expected = []
    for i in range(T.wrong_player_blinks):
        expected += [(i * (on + off), True), (i * (on + off) + on, False)]
    approx_timeline(rec.timeline("amber"), expected)
    # Over a steady amber (unreadable) the blink shows as dark gaps, then amber stays on.
    panel.signal_unreadable()
    clock.advance(1)
    panel.blink_wrong_player()
    assert panel.state().led("amber").mode is LedMode.BLINKING
    clock.advance(2)
    gaps = []
    for i in range(T.wrong_player_blinks):
        gaps += [(3 + i * (on + off) + on, False), (3 + (i + 1) * (on + off), True)]
    approx_timeline(rec.timeline("amber")[len(expected):], [(2.0, True)] + gaps)
    assert panel.state().led("amber").mode is LedMode.ON


def test_gauge_lights_ceil_of_the_share(panel):
    leds = panel.devices["gauge"]
    n = len(leds)
    assert n == 5
    for value, maximum, lit in [(0, 14, 0), (1, 14, 1), (2.8, 14, 1), (5.6, 14, 2), (7, 14, 3),
                                (13, 14, 5), (14, 14, 5), (3, 3, 5), (0.5, 1, 3)]:
        panel.show_gauge(value, maximum)
        assert [bool(led.pin.state) for led in leds] == [i < lit for i in range(n)], (value, maximum)
        assert panel.state().gauge_lit == lit and panel.state().gauge == (value, maximum)
    panel.clear_gauge()
    assert not any(led.pin.state for led in leds) and panel.state().gauge is None
    for bad, message in [((15, 14), "between 0"), ((-1, 14), "between 0"), ((1, 0), "maximum must be > 0"),
                         ((True, 4), "finite number"), ((float("nan"), 4), "finite number"), (("3", 4), "finite")]:
        with pytest.raises(ValueError, match=message):
            panel.show_gauge(*bad)


def _pointer_recorder(panel, factory, clock):
    pm = panel.pin_map
    chain = Chain595(factory.bcm(pm.sr_data), factory.bcm(pm.sr_clock), factory.bcm(pm.sr_latch))
    seen = [(0.0, chain.lit())]
    factory.bcm(pm.sr_latch).observers.append(
        lambda p, s: seen.append((round(clock.now(), 6), chain.lit())) if s else None)
    return chain, seen


def test_move_sequence_from_blinking_then_to_steady_cycling(panel, factory, clock):
    chain, seen = _pointer_recorder(panel, factory, clock)
    source, target = PointerTarget.square(2, 1), PointerTarget.square(2, 3)  # c2 -> c4
    panel.show_sequence([PointerTarget.square(2, 1, blink=True), target])
    s = panel.state()
    assert s.pointer_targets == (PointerTarget.square(2, 1, True), target)
    assert s.led("file-c").mode is LedMode.BLINKING and s.led("rank-2").mode is LedMode.BLINKING
    clock.advance(10)
    src, dst = tuple(sorted(source.leds())), tuple(sorted(target.leds()))
    on, off, step, gap = T.blink_on_s, T.blink_off_s, T.pointer_step_s, T.pointer_gap_s
    n = round(step / (on + off))
    cycle = []
    t = 0.0
    for _ in range(n):
        cycle += [(t, src), (t + on, ())]
        t += on + off
    # after the last blink's dark phase comes the gap (still dark), then the target steady
    t += gap
    cycle += [(t, dst), (t + step, ())]
    period = t + step + gap
    expected = [(0.0, ())] + cycle + [(period + a, b) for a, b in cycle]
    expected = [e for e in expected if e[0] <= 10]
    assert [(pytest.approx(a), b) for a, b in expected] == seen[:len(expected)]
    chain.detach()


def test_several_targets_in_turn(panel, factory, clock):
    chain, seen = _pointer_recorder(panel, factory, clock)
    batteries = [PointerTarget.point(0, 1), PointerTarget.point(3, 1), PointerTarget.point(6, 5)]
    panel.show_sequence(batteries)
    clock.advance(3 * (T.pointer_step_s + T.pointer_gap_s) + 0.01)
    shown = [lit for _, lit in seen if lit]
    assert shown == [tuple(sorted(b.leds())) for b in batteries] + [tuple(sorted(batteries[0].leds()))]
    assert [round(t, 6) for t, lit in seen if lit] == pytest.approx(
        [i * (T.pointer_step_s + T.pointer_gap_s) for i in range(4)])
    chain.detach()


def test_single_targets_are_steady_and_clear_switches_off(panel, factory, clock):
    chain, seen = _pointer_recorder(panel, factory, clock)
    panel.point_at_point(3, 3)
    clock.advance(30)
    assert seen == [(0.0, ()), (0.0, (6, 22))]
    assert panel.state().pointer_lit == ("line-D", "line-4")
    panel.clear_pointer()
    assert chain.lit() == () and panel.state().pointer_targets == ()
    with pytest.raises(TypeError):
        panel.show_sequence(["c3"])
    chain.detach()


def test_win_pattern_and_tune_until_cleared(panel, factory, clock, recorder):
    rec = recorder(status_pins(panel), tone=("buzzer",))
    chain, seen = _pointer_recorder(panel, factory, clock)
    panel.show_turn("white")
    panel.show_win("black")
    s = panel.state()
    assert s.win == "black" and s.turn is None and s.buzzer == "win-tune"
    assert s.led("turn-black").mode is LedMode.BLINKING and s.led("turn-white").mode is LedMode.OFF
    clock.advance(4.0)
    b = T.win_blink_s
    approx_timeline(rec.timeline("black"), [(k * b, k % 2 == 0) for k in range(int(4.0 / b) + 1)])
    c = T.win_chase_s
    approx_timeline(rec.timeline("green")[:3], [(0.0, True), (c, False), (3 * c, True)])
    approx_timeline(rec.timeline("amber")[:3], [(0.0, False), (c, True), (2 * c, False)])
    approx_timeline(rec.timeline("red")[:3], [(0.0, False), (2 * c, True), (3 * c, False)])
    tune = []
    t = 0.0
    for hz, seconds in T.win_tune:
        tune.append((t, hz))
        t += seconds
    tune.append((t, None))
    period = t + T.win_tune_pause_s
    approx_timeline(rec.timeline("buzzer")[:len(tune) + 1], tune + [(period, T.win_tune[0][0])])
    # the pointer sweeps LED k of both edges together
    assert [lit for _, lit in seen[1:14]] == [(k, 16 + k) for k in range(13)]
    panel.clear_win()
    t_end = clock.now()
    clock.advance(5)
    s = panel.state()
    assert s.win is None and s.buzzer == "off"
    assert all(st.mode is LedMode.OFF for n, st in s.leds if not n.startswith("gauge"))
    assert rec.timeline("buzzer")[-1] == (t_end, None) or rec.timeline("buzzer")[-1][1] is None
    assert chain.lit() == ()
    with pytest.raises(ValueError, match="'white', 'black'"):
        panel.show_win(None)
    chain.detach()


def test_state_snapshot_is_immutable_and_complete(panel):
    panel.show_turn("white")
    panel.signal_illegal()
    panel.point_at_square(0, 0)
    panel.show_gauge(2, 4)
    s = panel.state()
    names = [n for n, _ in s.leds]
    assert names == list(panel.led_names()) and len(names) == 2 + 3 + 5 + 26
    assert s.led("turn-white").lit and s.led("red").mode is LedMode.ON
    assert s.led("file-a").mode is LedMode.ON and s.led("rank-1").lit and not s.led("line-A").lit
    with pytest.raises(Exception):
        s.turn = "black"  # frozen
    d = s.as_dict()
    assert d["pointer"]["targets"] == ["a1"] and d["gauge"]["lit"] == 3 and d["buzzer"]["hz"] == T.illegal_tone_hz
    with pytest.raises(KeyError, match="no LED"):
        s.led("blue")
