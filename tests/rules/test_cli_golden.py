"""The rules commands print what they printed before the rules became variant classes.

``tests/rules/cli_golden.jsonl`` holds ``netzwerk`` commands (apply, explain,
outcomes, status, hint, arena under every rule option) with the exit code and
output of the code before the refactor (``scripts/cli_golden.py write``); this
test runs a third of them again and wants the same bytes.  The whole list:
``python scripts/cli_golden.py check tests/rules/cli_golden.jsonl``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).with_name("cli_golden.jsonl")
sys.path.insert(0, str(ROOT / "scripts"))

import cli_golden  # noqa: E402

LINES = GOLDEN.read_text(encoding="utf-8").splitlines()


def test_the_golden_list_covers_every_command_and_option():
    stored = [json.loads(line) for line in LINES]
    commands = {d["argv"][0] for d in stored}
    assert {"apply", "explain", "outcomes", "status", "hint", "arena"} <= commands
    for name in ("must-capture", "contested-frozen", "strength-capture", "jump-enemies", "no-line-limit", "controlled-energy"):
        assert any(name in d["argv"] for d in stored), name
    assert {d["rc"] for d in stored} >= {0, 1}


@pytest.mark.parametrize("i", range(0, len(LINES), 3))
def test_same_output_as_before(i):
    want = json.loads(LINES[i])
    assert cli_golden.run(want["argv"]) == want
