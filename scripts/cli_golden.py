"""Before/after check of the rules commands' output: the CLI must print the same bytes.

``python scripts/cli_golden.py write FILE`` builds a list of ``netzwerk``
commands (apply, explain, outcomes, status, hint, arena) under every rule
option, runs each one in this process and stores the command with its exit
code, stdout and stderr as JSON lines.  ``python scripts/cli_golden.py check
FILE`` runs the stored commands again and reports every one whose output
changed (exit 1), so a refactor that must not change behaviour can be checked
against the output of the code before it.  ``tests/rules/test_cli_golden.py``
runs the check on ``tests/rules/cli_golden.jsonl``.

The commands are deterministic: ``hint`` and ``arena`` search with a node
budget; the seconds a search took are left out of the comparison.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
import sys
from pathlib import Path
from typing import Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

START = "BBBBBB/6/6/6/6/WWWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 w"
PROFILES: list[tuple[str, ...]] = [
    (),
    ("must-capture",),
    ("contested-frozen",),
    ("strength-capture",),
    ("jump-enemies",),
    ("no-line-limit",),
    ("controlled-energy",),
    ("must-capture", "contested-frozen", "strength-capture", "jump-enemies", "no-line-limit", "controlled-energy"),
]
# fixed positions where decisions are near: a capture in reach, a near-win, a blocked side
FIXED = [
    START,
    "BBBBBB/6/6/6/2W3/WW1WWW 7/xxxxxxx/7/7/7/xxxxxxx/7 b",
    "1BBBBB/6/B5/W5/6/1WWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 w",
    "6/6/6/2B3/2W3/6 7/2xxxx1/1xxxxx1/7/7/7/1xxxxx1 w",
    "WWW3/6/6/6/6/BBB3 7/xxxxxxx/7/7/7/xxxxxxx/7 w",
    "BB4/2W3/6/6/6/W5 7/xxxxxxx/7/7/7/xxxxxxx/7 w",
]


def run(argv: list[str]) -> dict:
    """One ``netzwerk`` command in this process: its exit code, stdout and stderr."""
    from companion.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as exc:  # argparse's refusals
            rc = exc.code if isinstance(exc.code, int) else 2
    return {"argv": argv, "rc": rc, "stdout": _untimed(out.getvalue()), "stderr": err.getvalue()}


def _untimed(text: str) -> str:
    """``text`` without the seconds a search took (they vary from run to run)."""
    text = re.sub(r"nodes in \d+\.\d+ s", "nodes in - s", text)
    return re.sub(r'"seconds": [\d.e+-]+', '"seconds": -', text)


def _opts(profile: tuple[str, ...]) -> list[str]:
    return [a for o in profile for a in ("--option", o)]


def _positions(profile: tuple[str, ...], rng: random.Random) -> list[str]:
    """The fixed positions and two reached by random play under ``profile``."""
    from companion.rules.engine import apply_turn, random_turn, status
    from companion.rules.errors import IllegalTurn
    from companion.rules.options import Rules
    from companion.rules.position import Position

    rules = Rules.from_names(profile)
    out = list(FIXED)
    for plies in (6, 14):
        pos = Position.from_string(START)
        for _ in range(plies):
            if status(pos, rules).over:
                break
            try:
                pos = apply_turn(pos, random_turn(pos, rng, rules), rules)
            except IllegalTurn:
                break
        out.append(pos.to_string())
    return out


def commands() -> Iterator[list[str]]:
    from companion.rules.engine import apply_turn, random_turn, status
    from companion.rules.errors import IllegalTurn, NotationError
    from companion.rules.options import Rules
    from companion.rules.position import Position

    rng = random.Random(21)
    for profile in PROFILES:
        rules = Rules.from_names(profile)
        o = _opts(profile)
        for text in _positions(profile, rng):
            try:
                pos = Position.from_string(text)
            except NotationError:
                yield ["status", text, *o]
                continue
            yield ["status", text, *o]
            yield ["status", text, "--json", *o]
            yield ["outcomes", text, "--phase", "robots", "--count-only", *o]
            yield ["outcomes", text, "--phase", "batteries", "--count-only", *o]
            yield ["hint", text, "--nodes", "1500", "--time", "3600", *o]
            if status(pos, rules).over:
                yield ["apply", text, "a1-a2", *o]
                continue
            for k in range(3):
                try:
                    turn = random_turn(pos, rng, rules, stop=0.4, battery_stop=0.3)
                except IllegalTurn:
                    break
                after = apply_turn(pos, turn, rules)
                yield ["apply", text, str(turn), *o]
                yield ["explain", text, after.to_string(), *o]
                if k == 0:
                    yield ["explain", text, after.to_string(), "--json", *o]
                # illegal variants: a robot move made one square longer, a battery moved twice as far
                bad = str(turn).split()
                first = bad[0]
                sep = "x" if "x" in first else "-"
                src, dst = first.split(sep)
                step = 1 if dst[1] > src[1] else -1 if dst[1] < src[1] else 0
                if step and "1" <= chr(ord(dst[1]) + step) <= "6":
                    longer = f"{src}{sep}{dst[0]}{chr(ord(dst[1]) + step)}"
                    yield ["apply", text, " ".join([longer, *bad[1:]]), *o]
                    yield ["apply", text, " ".join([longer, *bad[1:]]), "--json", *o]
                yield _explain_shifted(pos, after, rng, o)
            yield ["apply", text, "a1-a2 C2-C4", *o]
            yield ["explain", text, START.replace(" w", " b"), *o]
        yield ["arena", "--white", "search", "--black", "greedy", "--games", "1", "--nodes", "400", "--time", "3600",
               "--max-turns", "4", "--seed", "3", *o]
        yield ["arena", "--white", "random", "--black", "greedy", "--games", "2", "--max-turns", "10", "--seed", "5", *o]
    for text in ("BBB3/2W3/1W4/6/6/W5 7/xxxxxxx/7/7/7/xxxxxxx/7 w", "B5/6/6/6/WW4/W5 xxxxxxx/7/7/7/7/7/xxxxxxx w"):
        for profile in PROFILES:
            yield ["hint", text, "--json", "--nodes", "3000", "--time", "3600", *_opts(profile)]


def _explain_shifted(pos, after, rng: random.Random, o: list[str]) -> list[str]:
    """``explain`` to a board with one battery of ``after`` put on a random empty point: mostly illegal."""
    from companion.rules.position import Position

    bats = sorted(after.batteries)
    empty = [p for p in range(49) if p not in after.batteries]
    moved = set(bats)
    moved.discard(rng.choice(bats))
    moved.add(rng.choice(empty))
    board = Position(after.white, after.black, frozenset(moved), after.to_move)
    return ["explain", pos.to_string(), board.to_string(), *o]


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("write", "check"):
        print("usage: python scripts/cli_golden.py write|check FILE", file=sys.stderr)
        return 2
    mode, path = argv[0], Path(argv[1])
    if mode == "write":
        with path.open("w", encoding="utf-8") as fh:
            n = 0
            for argv_ in commands():
                fh.write(json.dumps(run(argv_), ensure_ascii=False) + "\n")
                n += 1
        print(f"wrote {n} commands to {path}")
        return 0
    changed = check(path)
    for line in changed:
        print(line)
    return 1 if changed else 0


def check(path: Path) -> list[str]:
    """The stored commands whose output is no longer the same, as one line each."""
    changed = []
    n = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        want = json.loads(line)
        got = run(want["argv"])
        n += 1
        if got != want:
            what = [k for k in ("rc", "stdout", "stderr") if got[k] != want[k]]
            changed.append(f"changed {', '.join(what)}: netzwerk {' '.join(want['argv'])!r}\n  was {want}\n  now {got}")
    return changed


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
