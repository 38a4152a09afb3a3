"""Whether the compiled core (:mod:`.fastcore`, numba) is used, and warming it up.

The compiled core is used when numba can be imported, the machine is not a
32-bit ARM (armv7l: numba has no wheels there) and ``NETZWERK_NO_JIT`` is
not set to a true value (``1``, ``yes``, ``true``).  Otherwise the Python
search (:mod:`.search`) runs, unchanged.  The environment is read at each
call, so a test can switch the core off for one search.
"""

from __future__ import annotations

import os
import platform
import threading

_core = None
_import_error: str | None = None
_lock = threading.Lock()
_warming = threading.Event()  # set while a background warm-up compiles the core
_warm = threading.Event()  # set once the core has been compiled or loaded in this process


def disabled_by_env() -> bool:
    return os.environ.get("NETZWERK_NO_JIT", "").strip().lower() in ("1", "yes", "true", "on")


def core():
    """The compiled core module, or None (numba missing, armv7l, or ``NETZWERK_NO_JIT``)."""
    global _core, _import_error
    if disabled_by_env() or platform.machine() == "armv7l":
        return None
    if _core is not None:
        return _core
    if _import_error is not None:
        return None
    with _lock:
        if _core is None and _import_error is None:
            try:
                from . import fastcore
            except Exception as exc:  # numba missing or broken: the Python search it is
                _import_error = f"{type(exc).__name__}: {exc}"
            else:
                _core = fastcore
    return _core


def available() -> bool:
    return core() is not None


def warming() -> bool:
    """Is a background warm-up still compiling (or loading) the core?  Hints meanwhile use the Python search."""
    return _warming.is_set()


def why_not() -> str | None:
    """Why the compiled core is not used (None when it is)."""
    if disabled_by_env():
        return "NETZWERK_NO_JIT is set"
    if platform.machine() == "armv7l":
        return "32-bit ARM (armv7l): no numba"
    if core() is None:
        return f"numba not importable ({_import_error})"
    return None


def warm_up() -> float | None:
    """Compile the core or load it from numba's cache (seconds taken), or None without it.

    Never raises: a core that fails here is simply not warmed (the first hint
    then compiles it, or the Python search runs)."""
    try:
        c = core()
        if c is None:
            return None
        took = c.warm_up()
        _warm.set()
        return took
    except Exception:  # pragma: no cover - depends on the installation
        return None


def ensure_warm() -> None:
    """Load (or compile) the core once per process (``FastSearcher`` calls this when it is
    made, before any search starts its clock: a 1 s hint then searches for 1 s, the cache's
    loading is not charged to it). Raises if the core cannot be loaded."""
    if not _warm.is_set():
        c = core()
        if c is None:
            raise RuntimeError(f"the compiled core is not available: {why_not()}")
        c.warm_up()
        _warm.set()


def warm_up_in_background() -> threading.Thread:
    """Start :func:`warm_up` on a daemon thread (``netzwerk run`` calls this at start).

    Until it is done :func:`warming` is true and a hint uses the Python search
    instead of waiting for the compiler (a cold compile takes about a minute
    on the dev machine; later starts load numba's cache in well under a second).

    The compiling itself runs in a child process first: it fills numba's
    on-disk cache on another core without holding this interpreter's lock
    (the referee's loop keeps its pace), then this process only loads the
    cache. If the child fails (no writable cache, say), this thread compiles.
    """
    _warming.set()

    def work() -> None:
        try:
            if core() is not None:
                _compile_in_child()
            warm_up()
        finally:
            _warming.clear()

    t = threading.Thread(target=work, name="hints-jit-warm-up", daemon=True)
    t.start()
    return t


def _compile_in_child(timeout: float = 1800.0) -> bool:
    """Compile the core in a separate Python process (filling numba's cache). True if it succeeded."""
    import subprocess
    import sys

    code = "from companion.hints.jit import warm_up; import sys; sys.exit(0 if warm_up() is not None else 1)"
    try:
        done = subprocess.run([sys.executable, "-c", code], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=timeout, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0
