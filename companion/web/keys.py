"""The application's shared objects, by typed key (aiohttp's ``web.AppKey``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from aiohttp import web

from .hub import Hub
from .limits import Limits
from .privacy import Scrubber
from .settings import WebSettings

if TYPE_CHECKING:
    from .live import HintDesk

SETTINGS = web.AppKey("settings", WebSettings)
HUB = web.AppKey("hub", Hub)
JOURNAL = web.AppKey("journal", object)  # Path | None
MAX_BODY = web.AppKey("max_body", int)
HINTS = web.AppKey("hints", object)  # HintDesk
LIMITS = web.AppKey("limits", Limits)
SCRUB = web.AppKey("scrub", Scrubber)


def journal_of(app: web.Application) -> Path | None:
    value = app[JOURNAL]
    return value if isinstance(value, Path) else None


def hints_of(app: web.Application) -> "HintDesk":
    return app[HINTS]  # type: ignore[return-value]
