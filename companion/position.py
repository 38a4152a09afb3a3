"""A thin re-export of :mod:`companion.rules.position`, the one home of positions.

Kept because code outside the rules' branch imports ``companion.position``
(``tests/vision/test_sources_cli.py``, ``benchmarks/vision_anyset.py``);
everything in ``companion`` imports ``companion.rules.position``.
"""

from __future__ import annotations

from .rules.position import (  # noqa: F401
    BATTERY_COUNT,
    MAX_ROBOTS,
    START_STRING,
    Placement,
    Position,
    describe_point,
    describe_square,
    format_batteries,
    format_robots,
    parse_batteries,
    parse_robots,
)
