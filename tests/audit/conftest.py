"""Rendered games shared by the audit tests (rendering costs ~0.3 s a photo: each game is rendered once)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from audit_scenario import (  # noqa: E402
    BATTERY_NUDGED,
    CAPTURE_IGNORED,
    ENEMY_KNOCKED,
    ROBOT_DIAGONAL,
    ROBOT_TOO_FAR,
    Shot,
    build_game,
    write_game,
)

from companion.rules.options import Rules  # noqa: E402

SLIPS_AT = {2: ROBOT_TOO_FAR, 3: ROBOT_DIAGONAL, 5: BATTERY_NUDGED, 6: ENEMY_KNOCKED}


@dataclass(frozen=True)
class RecordedGame:
    folder: Path
    shots: list[Shot]
    rules: Rules
    seed: int
    corners: object


def _record(tmp_path_factory, name: str, seed: int, rules: Rules, slips: dict, hands=(4,), max_plies=16,
            **render_kw) -> RecordedGame:
    shots = build_game(seed, rules, slip_plies=slips, hand_plies=hands, max_plies=max_plies)
    folder = tmp_path_factory.mktemp(name)
    _, corners = write_game(folder, shots, seed=seed, **render_kw)
    return RecordedGame(folder, shots, rules, seed, corners)


@pytest.fixture(scope="session")
def default_game(tmp_path_factory) -> RecordedGame:
    """Original rules: every slip kind, a hand at a press, a win, two photos after the win."""
    return _record(tmp_path_factory, "default", 10, Rules(), SLIPS_AT)


@pytest.fixture(scope="session")
def capture_game(tmp_path_factory) -> RecordedGame:
    """must-capture: the slips, a hand, and a turn that leaves a capture out (legal in the original rules)."""
    slips = dict(SLIPS_AT)
    slips.update({k: CAPTURE_IGNORED for k in range(7, 12)})
    return _record(tmp_path_factory, "capture", 18, Rules.from_names(["must-capture"]), slips)


@pytest.fixture(scope="session")
def corners_game(tmp_path_factory) -> RecordedGame:
    """A board without corner markers (calibrated with --corners), PNG photos, three turns."""
    return _record(tmp_path_factory, "corners", 31, Rules(), {2: ROBOT_TOO_FAR}, hands=(), max_plies=3,
                   markers=False, suffix=".png")
