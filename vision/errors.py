"""Errors raised by :mod:`vision`. Every message names what was wrong."""

from __future__ import annotations


class VisionError(Exception):
    """Base class of every error the vision package raises on purpose."""


class MarkersNotFound(VisionError):
    """The four board-corner ArUco markers could not all be found."""


class BadCorners(VisionError):
    """Manually given board corners are malformed or describe no plausible board."""


class BadImage(VisionError):
    """A frame that is empty, black, uniform grey, of the wrong size or type."""


class CalibrationError(VisionError):
    """Calibration failed, or a calibration file is corrupt or from another setup."""


class SourceError(VisionError):
    """A frame source failed: camera unplugged, file unreadable, stalled stream."""
