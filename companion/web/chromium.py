"""Debian's headless Chromium for the page's end-to-end tests, the latency benchmark and the screenshots.

Driven by playwright (the ``test`` extra) with ``executable_path``: never a
browser download. A fresh profile each time, and no traffic of its own (the
table's network is closed): no QUIC, no component or sync updates.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync")


def missing() -> str | None:
    """Why no browser can be driven here (None: it can)."""
    if not CHROMIUM.exists() and shutil.which("chromium") is None:
        return f"no Chromium at {CHROMIUM} (Debian: apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -e '.[test]')"
    return None


def launch(playwright: Any, profile: Path, **context: Any) -> Any:
    """A browser context of Debian's Chromium on a fresh profile directory ``profile``."""
    exe = str(CHROMIUM) if CHROMIUM.exists() else shutil.which("chromium")
    return playwright.chromium.launch_persistent_context(
        str(profile), executable_path=exe, headless=True, args=list(FLAGS), accept_downloads=True, **context)
