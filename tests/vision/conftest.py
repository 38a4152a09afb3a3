"""Shared fixtures: one calibrated synthetic setup, reused by many tests (rendering is the slow part)."""

from __future__ import annotations

import pytest

from vision.calibration import calibrate
from vision.render import render

from vision_kit import ANYSET_DESIGN, ANYSET_SEED, SETUP_SEED, START


@pytest.fixture(scope="session")
def start_frame():
    return render(START, SETUP_SEED, tilt=18.0, rotation=37.0, shadow=0.0, glare=0.0)


@pytest.fixture(scope="session")
def calibration(start_frame):
    return calibrate(start_frame.image, START)


@pytest.fixture(scope="session")
def start():
    """The start frame of the any-set reader's tests: development design ANYSET_DESIGN, marker-less."""
    return render(START, ANYSET_SEED, design=ANYSET_DESIGN, markers=False, printed=[True] * 49)


@pytest.fixture(scope="session")
def cal(start):
    """That frame calibrated by the any-set reader, marker-less, told where White sits."""
    from vision.anyset.calibration import calibrate as anyset_calibrate
    from vision.calibration import white_side_of

    return anyset_calibrate(start.image, START, white_side=white_side_of(start.homography))


@pytest.fixture
def first_stage(monkeypatch):
    """The any-set reader without its verdict (NETZWERK_VERDICT=0): each look in turn, each check making a
    field doubtful. The tests of a check use it: the check's own word, which the verdict then weighs as
    evidence among the others (tests/vision/test_verdict.py tests the verdict's readings)."""
    import vision.anyset.reader as reader_module

    monkeypatch.setattr(reader_module, "VERDICT", False)
