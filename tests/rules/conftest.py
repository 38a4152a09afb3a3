"""Shared fixtures of the rules test-suite.

``ref`` runs a hand-worked test twice: against the engine (``companion.rules.engine``)
and against the naive oracle of ``naive.py``. Both must agree with the
hand-worked expectation.
"""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from referees import REFEREES  # noqa: E402


@pytest.fixture(params=sorted(REFEREES))
def ref(request):
    return REFEREES[request.param]
