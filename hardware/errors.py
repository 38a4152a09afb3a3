"""Errors of the panel package: each message names what was wrong."""

from __future__ import annotations


class HardwareError(Exception):
    """Base class of every error ``hardware`` raises on purpose."""


class PinMapError(HardwareError, ValueError):
    """A pin map that cannot be wired: unknown key, bad value, pin used twice or missing."""


class PanelError(HardwareError):
    """The panel cannot be built or driven with the given pins and pin factory."""
