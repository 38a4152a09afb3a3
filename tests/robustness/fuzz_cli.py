"""A bounded, seeded fuzz of the ``netzwerk`` command line (issue 23), run as its own process.

``python tests/robustness/fuzz_cli.py --seed N --cases K --dir TMP`` builds a set of hostile
inputs in TMP (missing paths, folders, a FIFO, names that are not UTF-8, empty, truncated
and garbage files, damaged journals and configs, a picture whose header claims 400
megapixels), then calls ``companion.cli.main`` K times with arguments drawn from them and
from hostile numbers and strings. Each call must end with an exit code; an exception that
escapes ``main`` is a traceback, a call still running after ``--limit`` seconds a hang (an
alarm interrupts it), an input file whose bytes changed a loss. A crash of the process
itself (a signal) ends the run early: the caller sees it. The last line is
``fuzz: K cases, T tracebacks, H hangs, C inputs changed``.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import signal
import sqlite3
import struct
import sys
import traceback
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

START = "BBBBBB/6/6/6/6/WWWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 w"
NUMBERS = ["0", "-1", "1", "1e300", "-1e300", "nan", "inf", "9223372036854775808", "100000", "0.5", "x", ""]


class Hang(Exception):
    pass


def _png(w: int, h: int) -> bytes:
    import cv2
    import numpy as np

    return cv2.imencode(".png", np.full((h, w, 3), 120, np.uint8))[1].tobytes()


def build_inputs(root: Path) -> dict[str, list[str]]:
    """Files and folders of every kind the commands may be given."""
    from companion.referee.journal import Journal

    root.mkdir(parents=True, exist_ok=True)
    files: dict[str, bytes] = {
        "empty.png": b"",
        "garbage.png": b"hello, not a picture",
        "truncated.png": _png(64, 48)[:60],
        "tiny.png": _png(64, 48),
        "huge-header.png": bytearray(_png(64, 48)),
        "text.toml": b"[timings]\npoll_interval = 0.2\n",
        "bad.toml": b"[timings\npoll_interval = \n",
        "deep.toml": b"[camera]\nx = " + b"[" * 1000 + b"]" * 1000 + b"\n",
        "huge-number.toml": b"[timings]\npoll_interval = 1e300\n",
        "latin1.toml": b"[rules]\noptions = ['\xe9']\n",
        "not-json.json": b"{not json",
        "deep.json": b"[" * 50000 + b"]" * 50000,
        "other.json": b'{"format": "something else"}',
        "not-sqlite.sqlite": b"SQLite format 2\x00 garbage",
    }
    hh = files["huge-header.png"]
    hh[16:24] = struct.pack(">II", 20000, 20000)  # type: ignore[index]
    for name, data in files.items():
        (root / name).write_bytes(bytes(data))
    (root / os.fsdecode(b"name-\xff\xfe.png")).write_bytes(_png(64, 48))
    (root / "folder").mkdir(exist_ok=True)
    (root / "folder" / "a.png").write_bytes(_png(64, 48))
    (root / "folder" / os.fsdecode(b"b-\xff.png")).write_bytes(b"garbage")
    os.mkfifo(root / "fifo")
    good = root / "journal.sqlite"
    with Journal(good) as j:
        g = j.new_game([], START, players=("A", "B"))
        j.finish_game(g, "abandoned", "fuzz")
        j.new_game(["must-capture"], START)
    damaged = root / "damaged.sqlite"
    damaged.write_bytes(good.read_bytes())
    conn = sqlite3.connect(damaged)
    conn.execute("UPDATE games SET rules='[bad' WHERE id=1")
    conn.execute("UPDATE events SET detail='{bad' WHERE 1")
    conn.commit()
    conn.close()
    paths = [str(root / n) for n in files] + [
        str(root / os.fsdecode(b"name-\xff\xfe.png")), str(root / "folder"), str(root / "fifo"), str(good),
        str(damaged), str(root / "missing.png"), str(root / "no" / "such" / "dir.png"), str(root), "",
    ]
    outs = [str(root / "out" / "x.png"), str(root / "o.png"), str(root / "o.svg"), str(root / "o.txt"),
            str(root / "o.json"), str(root / "o.pdf"), str(root / os.fsdecode(b"out-\xfe.png")), str(root / "folder"),
            str(root / "fifo")]
    return {"paths": paths, "outs": outs, "journals": [str(good), str(damaged)] + paths,
            "files": [str(root / n) for n in files] + [str(root / "fifo")],
            "bad_configs": [str(root / n) for n in ("bad.toml", "deep.toml", "huge-number.toml", "latin1.toml",
                                                   "garbage.png")] + [str(root / "fifo"), str(root / "folder")]}


def _digests(root: Path) -> dict[str, str]:
    """A digest of every regular input file under ``root`` (the ``o.*`` outputs and ``out*`` excluded)."""
    import hashlib

    found = {}
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink() and not path.name.startswith(("o.", "out", ".")):
            found[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def positions(rng: random.Random) -> str:
    text = START
    for _ in range(rng.randrange(0, 4)):
        i = rng.randrange(len(text) + 1)
        text = text[:i] + rng.choice("BWx123456789/ wbyz\xe9\x00-") + text[i + 1:]
    return rng.choice([text, START, "", " ", "w", START.replace(" w", " b"), "7/7/7/7/7/7 7/7/7/7/7/7/7 w"])


def draw(rng: random.Random, inputs: dict[str, list[str]]) -> list[str]:
    p, o, n = inputs["paths"], inputs["outs"], NUMBERS
    pick = rng.choice
    cases = [
        lambda: ["status", positions(rng)],
        lambda: ["show", positions(rng), "--png", pick(o)] + (["--svg", pick(o)] if rng.random() < 0.5 else []),
        lambda: ["show", positions(rng), "--mark", pick(["c3 D4", "z9", "", "c3,,D4", "\xff"])],
        lambda: ["apply", positions(rng), pick(["c1-c2", "", "c1-c9", "a1xb2 C2-C3", "-", "c1-c2 c1-c2"])],
        lambda: ["explain", positions(rng), positions(rng)],
        lambda: ["outcomes", positions(rng), "--phase", pick(["robots", "batteries"]), "--count-only"],
        lambda: ["hint", positions(rng), "--time", pick(["0.05", *n])],
        lambda: ["games", pick(["list", "show", "export"]), *([] if rng.random() < 0.3 else [pick(n + ["1", "2"])]),
                 "--journal", pick(inputs["journals"])],
        lambda: ["games", "export", "2", "--journal", inputs["journals"][0], "--out", pick(o + p)],
        lambda: ["games", "list", "--config", pick(p)],
        lambda: ["vision", "markers", "--out", pick(o), "--dpi", pick(n + ["72"])],
        lambda: ["vision", "render", START, "--out", pick(o), "--size", pick(["100000x100000", "0x0", "-5x-5", "x",
                                                                             "nanxnan", "160x160", "200x161"]),
                 "--seed", pick(n + ["3"]), "--design", pick(["classic", "random", "x", "-1"])],
        lambda: ["vision", "read", "--image", pick(p), "--calibration", pick(p),
                 "--min-confidence", pick(n + ["0.9"])],
        lambda: ["vision", "calibrate", "--image", pick(p), "--out", pick(o + p)],
        lambda: ["vision", "overlay", "--image", pick(p), "--calibration", pick(p), "--out", pick(o + p)],
        lambda: ["panel", "show", "--png", pick(o), "--gauge", pick(["3/14", "nan/5", "1e300/5", "5/0", "x"]),
                 "--at", pick(n)],
        lambda: ["panel", "show", "--config", pick(p), "--point", pick(["c3", "D4", "z9", ""])],
        lambda: ["panel", "selftest", "--gpio", "mock", "--json", "--button-timeout", pick(n),
                 *(["--png", pick(o)] if rng.random() < 0.5 else [])],
        lambda: ["arena", "--white", pick(["random", "greedy", "search", "x"]), "--black", pick(["random", "greedy", ""]),
                 "--games", pick(n[:4] + ["1", "2"]), "--max-turns", pick(n + ["4"]), "--time", pick(["0.01", *n]),
                 "--nodes", pick(["50", *n]), "--seed", pick(n + ["3"]), "--jobs", pick(["1", "0", "-1", "65"]),
                 *(["--option", pick(["stacking", "x", ""])] if rng.random() < 0.3 else []),
                 *(["--json"] if rng.random() < 0.5 else [])],
        lambda: ["audit", pick(p), *(["--record", pick(o + p)] if rng.random() < 0.5 else []),
                 *(["--calibration", pick(p)] if rng.random() < 0.3 else [])],
        # run and demo only with input they refuse (a good one plays a game: not this test's business)
        lambda: ["run", "--gpio", "mock", "--camera", pick(["sim:x", "replay:" + pick(inputs["files"]), "opencv:x", "x"]),
                 "--config", pick(p), "--journal", pick(inputs["journals"])],
        lambda: ["run", "--gpio", "mock", "--camera", "sim", "--config", pick(inputs["bad_configs"]),
                 "--journal", pick(inputs["journals"])],
        lambda: ["demo", "--seed", pick(n), "--camera-seed", pick(n), "--option", pick(["x", "stacking", ""]),
                 "--no-save"],
        lambda: [*pick([["run", "--gpio", "mock", "--camera", "sim", "--journal", pick(inputs["journals"])],
                        ["demo", "--no-save"]]),
                 "--web", pick(["x", "1.2.3.4:99999", "::1", "", "localhost:8080", "0.0.0.0:-1", "[::1]8080", "\udcff:80"])],
    ]
    return rng.choice(cases)()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=23)
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--dir", required=True)
    parser.add_argument("--limit", type=float, default=60.0)
    args = parser.parse_args()
    os.environ["NETZWERK_NO_JIT"] = "1"
    inputs = build_inputs(Path(args.dir))
    from companion.cli import main as netzwerk

    def alarm(*_: object) -> None:
        raise Hang()

    signal.signal(signal.SIGALRM, alarm)
    before = _digests(Path(args.dir))
    rng = random.Random(args.seed)
    tracebacks = hangs = 0
    report = sys.__stdout__
    asked: set[str] = set()  # files a case asked to write: those may change
    for k in range(args.cases):
        argv = draw(rng, inputs)
        asked.update(v for flag, v in zip(argv, argv[1:]) if flag in ("--out", "--png", "--svg", "--record"))
        print(f"case {k}: {argv!r}", file=report, flush=True)
        out, err = io.StringIO(), io.StringIO()
        signal.setitimer(signal.ITIMER_REAL, args.limit)
        try:
            with redirect_stdout(out), redirect_stderr(err):
                try:
                    netzwerk(argv)
                except SystemExit:
                    pass
        except Hang:
            hangs += 1
            print(f"HANG in case {k}: {argv!r}", file=report, flush=True)
        except BaseException:  # noqa: BLE001 - every escaped exception is a finding
            tracebacks += 1
            print(f"TRACEBACK in case {k}: {argv!r}\n{traceback.format_exc()}", file=report, flush=True)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        if "Traceback" in err.getvalue():
            tracebacks += 1
            print(f"TRACEBACK printed in case {k}: {argv!r}\n{err.getvalue()[-2000:]}", file=report, flush=True)
    after = _digests(Path(args.dir))
    changed = sorted(os.fsencode(name).decode("utf-8", "backslashreplace") for name, digest in before.items()
                     if after.get(name) != digest and name not in asked)
    for name in changed:
        print(f"CHANGED input {name}", file=report, flush=True)
    print(f"fuzz: {args.cases} cases, {tracebacks} tracebacks, {hangs} hangs, {len(changed)} inputs changed",
          file=report, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
