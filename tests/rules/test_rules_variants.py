"""The rule options as variant classes (companion/rules/variants/): one home per option.

Each option is one class overriding only the hooks its rule changes; a
profile takes each hook from the one chosen option that overrides it; no
rules or hints module tests an option by name.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from companion.rules.errors import NotationError
from companion.rules.options import OPTIONS, Rules
from companion.rules.variants import VARIANTS, Variant
from companion.rules.variants.base import hook_names, overridden

ROOT = Path(__file__).resolve().parents[2]

#: the hooks each option's rule changes (docs/rules.md, section 4)
EXPECTED_HOOKS = {
    "must-capture": {"keep_capturing", "capture_owed"},
    "contested-frozen": {"may_move", "movable", "control_shortfall"},
    "strength-capture": {"may_capture"},
    "jump-enemies": {"passable"},
    "no-line-limit": {"closed_lines", "line_used"},
    "controlled-energy": {"drawable", "energy_restriction"},
    "stacking": {"check_stacks", "battery_steps", "place", "left_movable", "destination_fault"},
    "stack-unsplit": {"check_stacks", "battery_steps", "place", "left_movable", "destination_fault", "energy_assignable"},
}


def test_each_option_is_one_class_changing_only_its_rule():
    assert [v.name for v in VARIANTS] == list(OPTIONS)
    for v in VARIANTS:
        assert set(overridden(v)) == EXPECTED_HOOKS[v.name], v.name
        assert v.__module__ == "companion.rules.variants." + {"stack-unsplit": "stacking"}.get(v.name, v.name).replace("-", "_")


def test_each_option_module_cites_its_rulings():
    rulings = {"must-capture": ("R-7", "R-8"), "contested-frozen": ("R-11",), "strength-capture": ("R-9",),
               "jump-enemies": ("R-12",), "controlled-energy": ("R-10",),
               "stacking": ("R-19", "R-20", "R-21", "R-22"), "stack-unsplit": ("R-21",)}
    for v in VARIANTS:
        text = Path(__import__(v.__module__, fromlist=["x"]).__file__).read_text()
        for r in rulings.get(v.name, ()):
            assert r in text, (v.name, r)


def test_jit_flags_are_distinct_bits():
    flags = [v.jit_flag for v in VARIANTS]
    assert all(f and f & (f - 1) == 0 for f in flags)
    assert len(set(flags)) == len(flags)
    assert Rules.from_names(OPTIONS).jit_flags == sum(flags)
    assert Rules().jit_flags == 0


@pytest.mark.parametrize("n", range(len(OPTIONS) + 1))
def test_every_combination_builds_a_profile(n):
    for combo in itertools.combinations(OPTIONS, n):
        rules = Rules.from_names(combo)
        chosen = set(combo) | ({"stacking"} if "stack-unsplit" in combo else set())
        assert rules.options == chosen
        for hook in hook_names():
            # stack-unsplit refines stacking: its hooks win
            deciding = [v for v in VARIANTS if v.name in chosen and not (v.name == "stacking" and "stack-unsplit" in chosen)]
            owners = [v for v in deciding if hook in set(overridden(v))]
            want = getattr(owners[0] if owners else Variant, hook)
            assert getattr(rules, hook) is want, (combo, hook)
        assert rules.name == "+".join(["original", *[o for o in OPTIONS if o in chosen]])


def test_profile_equality_hash_and_immutability():
    a = Rules.from_names(["jump-enemies", "must-capture"])
    b = Rules(frozenset({"must-capture", "jump-enemies"}))
    assert a == b and hash(a) == hash(b) and a != Rules()
    with pytest.raises(AttributeError):
        a.passable = None  # type: ignore[misc]
    with pytest.raises(NotationError, match="unknown rule option 'stack'"):
        Rules.from_names(["stack"])
    with pytest.raises(NotationError, match="unknown rule option"):
        Rules(frozenset({"bogus"}))


def test_hooks_answer_as_the_rules_say():
    orig, o = Rules(), lambda name: Rules.from_names([name])
    own, enemy = 0b011, 0b100
    assert orig.passable(own, enemy) == own and o("jump-enemies").passable(own, enemy) == own | enemy
    assert orig.closed_lines(0b101) == 0b101 and o("no-line-limit").closed_lines(0b101) == 0
    assert orig.line_used(0, 3) == 8 and o("no-line-limit").line_used(0, 3) == 0
    # strength: square a1 (0) has corners A1 B1 A2 B2 = points 0, 1, 7, 8; b1 (1) has 1, 2, 8, 9
    bats = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 8) | (1 << 9)
    assert o("strength-capture").may_capture(bats, 0, 1) is False  # victim 4 > attacker 3
    assert o("strength-capture").may_capture(bats, 1, 0) is True
    assert orig.may_capture(bats, 0, 1) is True
    assert o("must-capture").keep_capturing([1, 2, 3], lambda i: i == 2) == [2]
    assert o("must-capture").keep_capturing([1, 3], lambda i: i == 2, lambda: [2]) == [2]
    assert o("must-capture").keep_capturing([1, 3], lambda i: i == 2) == [1, 3]
    assert orig.keep_capturing([1, 2, 3], lambda i: i == 2) == [1, 2, 3]
    assert o("must-capture").capture_owed(lambda: "c3xc4") == "c3xc4"
    assert orig.capture_owed(lambda: pytest.fail("asked")) is None
    assert o("contested-frozen").control_shortfall(1, 1) and not o("contested-frozen").control_shortfall(2, 1)
    assert orig.control_shortfall(1, 1) is None
    assert "R-10" in o("controlled-energy").energy_restriction and orig.energy_restriction == ""


# modules that referee or search and must not test an option by name
_HOME_FREE = [
    "companion/rules/engine.py", "companion/rules/explain.py", "companion/rules/robot_moves.py",
    "companion/rules/energy.py", "companion/rules/control.py", "companion/rules/battery_moves.py",
    "companion/hints/turngen.py", "companion/hints/search.py", "companion/hints/evaluate.py",
    "companion/hints/board.py", "companion/hints/fastcore.py",
]


@pytest.mark.parametrize("path", _HOME_FREE)
def test_no_option_flag_tested_outside_its_class(path):
    code = (ROOT / path).read_text()
    code = re.sub(r'"""[\s\S]*?"""', "", code)  # docstrings may name options
    flags = re.findall(r"rules\.(must_capture|contested_frozen|strength_capture|jump_enemies|line_limit|controlled_energy)\b", code)
    assert not flags, (path, flags)
    names = re.findall(r"""in\s+[\w.]*options|["'](?:%s)["']\s*(?:in|not in)""" % "|".join(OPTIONS), code)
    assert not names, (path, names)
