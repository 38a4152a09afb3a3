import threading

import pytest

from hardware.timing import Dispatcher, ManualClock, MonotonicClock, Scheduler


def test_manual_clock_runs_timers_in_order_at_their_own_time():
    clock = ManualClock(10.0)
    sched = Scheduler(clock)
    seen = []
    sched.call_at(10.5, lambda: seen.append(("b", clock.now())))
    sched.call_at(10.2, lambda: seen.append(("a", clock.now())))
    t = sched.call_at(10.3, lambda: seen.append(("cancelled", clock.now())))
    t.cancel()
    # a timer scheduling another one inside the same advance
    sched.call_at(10.6, lambda: sched.call_later(0.1, lambda: seen.append(("c", clock.now()))))
    clock.advance(1.0)
    assert seen == [("a", 10.2), ("b", 10.5), ("c", pytest.approx(10.7))]
    assert clock.now() == 11.0
    with pytest.raises(ValueError, match="negative"):
        clock.advance(-1)
    with pytest.raises(ValueError, match="back"):
        clock.advance_to(5)
    sched.close()
    sched.call_later(0.1, lambda: seen.append("after close"))
    clock.advance(1)
    assert "after close" not in seen


def test_a_timer_that_advances_the_clock_does_not_turn_it_back():
    clock = ManualClock()
    sched = Scheduler(clock)
    sched.call_at(0.1, lambda: clock.advance(5))
    clock.advance(1)
    assert clock.now() == pytest.approx(5.1)
    sched.close()


def test_a_failing_timer_does_not_stop_the_others(caplog):
    clock = ManualClock()
    sched = Scheduler(clock)
    seen = []
    sched.call_at(0.1, lambda: 1 / 0)
    sched.call_at(0.2, lambda: seen.append(1))
    clock.advance(1)
    assert seen == [1] and "failed" in caplog.text
    sched.close()


def test_real_scheduler_thread_and_dispatcher():
    sched = Scheduler(MonotonicClock())
    fired = threading.Event()
    sched.call_later(0.01, fired.set)
    assert fired.wait(2)
    sched.close()
    d = Dispatcher(manual=False)
    names = []
    done = threading.Event()
    d.submit(lambda: (names.append(threading.current_thread().name), done.set()))
    assert done.wait(2) and names == ["panel-events"]
    d.close()
    m = Dispatcher(manual=True)
    with pytest.raises(ZeroDivisionError):  # synchronous: errors reach the caller (the test)
        m.submit(lambda: 1 / 0)
