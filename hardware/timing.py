"""Clocks and the scheduler that drives every timed pattern and button timer.

On a Pi the panel uses :class:`MonotonicClock`: one background thread runs the
timers when they fall due (like gpiozero's ``blink`` threads, but one thread
for the whole panel). Tests and the unattended self-test use
:class:`ManualClock`: nothing moves until ``clock.advance(seconds)``, which runs
every timer that falls due on the way, in order, at its own time. Patterns and
long presses are therefore exactly reproducible.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import queue
import threading
import time
from typing import Any, Callable, Protocol

log = logging.getLogger(__name__)


class Clock(Protocol):
    """Seconds on a monotonic scale; ``manual`` clocks only move when advanced."""

    manual: bool

    def now(self) -> float: ...


class MonotonicClock:
    """Real time (``time.monotonic``)."""

    manual = False

    def now(self) -> float:
        return time.monotonic()


class ManualClock:
    """A clock that moves only when told to: ``advance(seconds)`` / ``advance_to(t)``."""

    manual = True

    def __init__(self, start: float = 0.0) -> None:
        self._now = float(start)
        self._schedulers: list[Scheduler] = []
        self._lock = threading.RLock()

    def now(self) -> float:
        return self._now

    def attach(self, scheduler: "Scheduler") -> None:
        with self._lock:
            self._schedulers.append(scheduler)

    def detach(self, scheduler: "Scheduler") -> None:
        with self._lock:
            if scheduler in self._schedulers:
                self._schedulers.remove(scheduler)

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError(f"cannot advance a clock by a negative time ({seconds} s)")
        self.advance_to(self._now + seconds)

    def advance_to(self, target: float) -> None:
        """Move to ``target``, running every timer due on the way at its own time."""
        with self._lock:
            if target < self._now:
                raise ValueError(f"cannot move a clock back from {self._now} to {target}")
            while True:
                due = [d for d in (s.next_due() for s in list(self._schedulers)) if d is not None]
                nxt = min(due, default=None)
                if nxt is None or nxt > target:
                    break
                self._now = max(self._now, nxt)
                for s in list(self._schedulers):
                    s.run_due(self._now)
            # a timer's callback may itself have advanced the clock past target
            self._now = max(self._now, target)


class Timer:
    """A scheduled call; ``cancel()`` it to drop it."""

    __slots__ = ("when", "fn", "args", "cancelled")

    def __init__(self, when: float, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self.when = when
        self.fn = fn
        self.args = args
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class Scheduler:
    """Timed calls on one clock; with a real clock, one daemon thread runs them."""

    def __init__(self, clock: Clock | None = None, name: str = "panel") -> None:
        self.clock: Clock = clock if clock is not None else MonotonicClock()
        self._heap: list[tuple[float, int, Timer]] = []
        self._seq = itertools.count()
        self._cond = threading.Condition(threading.Lock())
        self._closed = False
        self._thread: threading.Thread | None = None
        if self.clock.manual:
            self.clock.attach(self)  # type: ignore[attr-defined]
        else:
            self._thread = threading.Thread(target=self._run, name=f"{name}-scheduler", daemon=True)
            self._thread.start()

    def now(self) -> float:
        return self.clock.now()

    def call_at(self, when: float, fn: Callable[..., Any], *args: Any) -> Timer:
        timer = Timer(when, fn, args)
        with self._cond:
            if self._closed:
                timer.cancelled = True
                return timer
            heapq.heappush(self._heap, (when, next(self._seq), timer))
            self._cond.notify()
        return timer

    def call_later(self, delay: float, fn: Callable[..., Any], *args: Any) -> Timer:
        return self.call_at(self.now() + delay, fn, *args)

    def next_due(self) -> float | None:
        with self._cond:
            while self._heap and self._heap[0][2].cancelled:
                heapq.heappop(self._heap)
            return self._heap[0][0] if self._heap else None

    def _pop_due(self, now: float) -> Timer | None:
        with self._cond:
            while self._heap:
                when, _, timer = self._heap[0]
                if timer.cancelled:
                    heapq.heappop(self._heap)
                    continue
                if when <= now:
                    heapq.heappop(self._heap)
                    return timer
                return None
            return None

    def run_due(self, now: float) -> int:
        """Run every timer due at ``now`` (including ones they schedule for ``now``)."""
        count = 0
        while (timer := self._pop_due(now)) is not None:
            count += 1
            try:
                timer.fn(*timer.args)
            except Exception:  # a broken callback must not stop the panel
                log.exception("panel timer %r failed", timer.fn)
        return count

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._closed:
                    while self._heap and self._heap[0][2].cancelled:
                        heapq.heappop(self._heap)
                    if not self._heap:
                        self._cond.wait()
                        continue
                    delay = self._heap[0][0] - self.clock.now()
                    if delay <= 0:
                        break
                    self._cond.wait(delay)
                if self._closed:
                    return
            self.run_due(self.clock.now())

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._heap.clear()
            self._cond.notify_all()
        if self.clock.manual:
            self.clock.detach(self)  # type: ignore[attr-defined]
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2)


class Dispatcher:
    """Runs the user's button callbacks.

    With a manual clock they run at once, in the caller's thread (deterministic
    tests). With a real clock they run one at a time, in press order, on a
    worker thread, so a slow callback (reading the camera) never stalls the LED
    patterns or the button timers.
    """

    def __init__(self, manual: bool, name: str = "panel") -> None:
        self._manual = manual
        self._queue: queue.SimpleQueue[tuple[Callable[..., Any], tuple[Any, ...]] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        if not manual:
            self._thread = threading.Thread(target=self._run, name=f"{name}-events", daemon=True)
            self._thread.start()

    def submit(self, fn: Callable[..., Any], *args: Any) -> None:
        if self._manual:
            fn(*args)  # errors reach the test that pressed the button
        else:
            self._queue.put((fn, args))

    @staticmethod
    def _call(fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        try:
            fn(*args)
        except Exception:
            log.exception("panel callback %r failed", fn)

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            self._call(*item)

    def close(self) -> None:
        if self._thread is not None:
            self._queue.put(None)
            if self._thread is not threading.current_thread():
                self._thread.join(timeout=2)
            self._thread = None
