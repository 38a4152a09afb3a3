"""The ``netzwerk`` command line: one entry point, subcommands registered by modules.

Each module of this package (``companion.cli.rules``, ``.games``, ...) has ``register(subparsers)`` that adds its
subcommands; every subcommand's handler returns the exit code.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Sequence

# The camera reader's matrix products are small: a multi-threaded BLAS spends
# more time waking threads than computing (about 6 ms against 16 ms per read on
# 2 cores). Set before any command module loads numpy; the environment wins.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

# Modules that contribute subcommands, in help order.
COMMAND_MODULES = (
    "companion.cli.rules",
    "companion.cli.games",
    "companion.cli.panel",
    "companion.cli.audit",
    "companion.cli.hints",
    "companion.cli.vision",
    "companion.cli.run",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="netzwerk",
        description="Netzwerk Companion: referee a physical game of Netzwerk with a camera and a GPIO panel.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def _print_any_file_name() -> None:
    """File names that are not UTF-8 reach print() as surrogates: write them back as their bytes
    instead of failing with UnicodeEncodeError (the C locale does this already, a UTF-8 one does not)."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and getattr(stream, "errors", None) == "strict":
            try:
                reconfigure(errors="surrogateescape")
            except (ValueError, OSError):
                pass


def main(argv: Sequence[str] | None = None) -> int:
    _print_any_file_name()
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0

