"""Fixtures shared by the game-loop tests."""

from __future__ import annotations

import pytest

from companion.referee.game import PLAYING

from .helpers import close, make, ready


@pytest.fixture
def game(tmp_path):
    """A companion on mock pins and a fake table, a game open and White to move: (companion, table)."""
    comp, table = make(tmp_path)
    ready(comp)
    assert comp.phase == PLAYING
    yield comp, table
    close(comp)
