"""The fuzz of issue 23's figure: every subcommand given hostile arguments, configs, journals
and pictures (bounded, seeded): 0 tracebacks, 0 signals, 0 hangs, 0 inputs changed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).with_name("fuzz_cli.py")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs")
@pytest.mark.parametrize("seed", [23, 2026])
def test_the_command_line_survives_hostile_input(tmp_path: Path, seed: int) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT), NETZWERK_NO_JIT="1")
    r = subprocess.run([sys.executable, str(DRIVER), "--seed", str(seed), "--cases", "200", "--dir", str(tmp_path)],
                       env=env, capture_output=True, timeout=1200)
    out = r.stdout.decode("utf-8", "replace")
    assert r.returncode == 0, f"the process died (signal {-r.returncode})" if r.returncode < 0 else r.stderr[-3000:]
    findings = [line for line in out.splitlines() if line.startswith(("TRACEBACK", "HANG", "CHANGED"))]
    assert out.splitlines()[-1] == "fuzz: 200 cases, 0 tracebacks, 0 hangs, 0 inputs changed", findings or out[-3000:]
