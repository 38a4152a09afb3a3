"""The game loop's timings (``[timings]`` of the config file)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class LoopTimings:
    """The loop's timings in seconds (``[timings]`` of the config file)."""

    stable_seconds: float = 0.5
    confirm_timeout: float = 10.0
    camera_timeout: float = 5.0
    poll_interval: float = 0.1
    watchdog_seconds: float = 0.0  # 0: from $WATCHDOG_USEC
    calibration_retry: float = 1.0
    hint_budget: float = 1.0
    hint_nodes: int | None = None  # also stop a hint's search after about this many board evaluations (the demo)
    camera_giveup: float = 60.0  # run(): a camera failing this long ends the loop (the service restarts it)
    question_seconds: float = 3.0  # an amber question shows each candidate turn this long
    recalibrate_after: float = 5.0  # unreadable (board moved, no confident reading) this long: calibrate again; 0: never

    @classmethod
    def from_config(cls, t: Any, **kw: Any) -> "LoopTimings":
        return cls(stable_seconds=t.stable_seconds, confirm_timeout=t.confirm_timeout,
                   camera_timeout=t.camera_timeout, poll_interval=t.poll_interval,
                   watchdog_seconds=t.watchdog_seconds, question_seconds=t.question_seconds,
                   recalibrate_after=t.recalibrate_after, **kw)
