"""No server path in an answer to a browser.

The game loop's log lines and the journal's errors name files for the operator
("journal /var/lib/netzwerk/journal.sqlite cannot be written ..."); the page,
open to anyone on the table's network, shows the text without them. A
:class:`Scrubber` replaces the journal's path (as given, absolute, as a
``file:`` URI, and its folder) and any other absolute path (two parts or more,
``/...`` or ``~/...``) with ``<server path>``. The operator still reads the whole
text on the companion's own output (the service's journal).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

HIDDEN = "<server path>"

#: An absolute path of two parts or more (or ``~/...``, or a ``file:`` URI), not inside a word, a URL or a
#: position string (``BBBBBB/6/...``: a slash after a letter or digit is not a path's start).
_PATH = re.compile(r"(?<![\w.:/~<-])(?:file://|~)?/(?:[^\s/'\"(),;<>|`]+/)+[^\s/'\"(),;<>|`]*")


def _forms(path: Path) -> set[str]:
    """The ways a message may spell ``path``: as given, absolute, as a ``file:`` URI, and its absolute folder."""
    forms = {str(path)}
    try:
        full = path.expanduser().resolve()
        forms |= {str(full), full.as_uri()}
        if str(full.parent) != "/":
            forms.add(str(full.parent))
    except (OSError, RuntimeError, ValueError):
        pass
    return {f for f in forms if len(f) > 1 and f != "."}


class Scrubber:
    """``scrub(text)``: ``text`` without the server's paths (``known``: paths that may also appear relative)."""

    def __init__(self, *known: Path | None) -> None:
        forms: set[str] = set()
        for path in known:
            if path is not None:
                forms |= _forms(Path(path))
        # the longest first (a file before its folder), each a whole name (not a part of a word or a longer path)
        self.known = [re.compile(rf"(?<![\w./~-]){re.escape(f)}(?![\w/-])") for f in sorted(forms, key=len, reverse=True)]

    def __call__(self, text: str) -> str:
        for form in self.known:
            text = form.sub(HIDDEN, text)
        return _PATH.sub(HIDDEN, text)

    def deep(self, data: Any, keep: frozenset[str] = frozenset({"board_svg"})) -> Any:
        """Every string in a JSON-like ``data`` scrubbed (the keys in ``keep`` left as they are)."""
        if isinstance(data, str):
            return self(data)
        if isinstance(data, list):
            return [self.deep(v, keep) for v in data]
        if isinstance(data, dict):
            return {k: v if k in keep else self.deep(v, keep) for k, v in data.items()}
        return data
