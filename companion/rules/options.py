"""Rules profiles: the ``original`` game and its switchable options (docs/rules.md, section 4)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .errors import NotationError

MUST_CAPTURE = "must-capture"          # variant 4 (German) / variation 1 (English)
CONTESTED_FROZEN = "contested-frozen"  # variant 1; R-11
STRENGTH_CAPTURE = "strength-capture"  # variant 2; R-9
JUMP_ENEMIES = "jump-enemies"          # variant 5; R-12
NO_LINE_LIMIT = "no-line-limit"        # English translation: drop one-move-per-energy-line
CONTROLLED_ENERGY = "controlled-energy"  # 13x13 abstract rendition; R-10

OPTIONS: tuple[str, ...] = (
    MUST_CAPTURE,
    CONTESTED_FROZEN,
    STRENGTH_CAPTURE,
    JUMP_ENEMIES,
    NO_LINE_LIMIT,
    CONTROLLED_ENERGY,
)

OPTION_HELP = {
    MUST_CAPTURE: "if any capture is possible in the robot phase, the player must capture (R-7, R-8)",
    CONTESTED_FROZEN: "a battery controlled by both players can be moved by neither (R-11)",
    STRENGTH_CAPTURE: "capture only an enemy whose strength is not greater than the attacker's (R-9)",
    JUMP_ENEMIES: "robots may also jump over enemy robots, +1 energy each, no capture (R-12)",
    NO_LINE_LIMIT: "drop the one-battery-move-per-energy-line rule",
    CONTROLLED_ENERGY: "a robot draws energy only from batteries its player controls (R-10)",
}


@dataclass(frozen=True, slots=True)
class Rules:
    """A rules profile: the set of enabled options. ``Rules()`` is ``original``."""

    options: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        unknown = sorted(set(self.options) - set(OPTIONS))
        if unknown:
            raise NotationError(f"unknown rule option {unknown[0]!r}: known options are {', '.join(OPTIONS)}")

    @classmethod
    def from_names(cls, names: Iterable[str] | None = None) -> "Rules":
        names = list(names or ())
        for n in names:
            if n not in OPTIONS:
                raise NotationError(f"unknown rule option {n!r}: known options are {', '.join(OPTIONS)}")
        return cls(frozenset(names))

    @property
    def must_capture(self) -> bool:
        return MUST_CAPTURE in self.options

    @property
    def contested_frozen(self) -> bool:
        return CONTESTED_FROZEN in self.options

    @property
    def strength_capture(self) -> bool:
        return STRENGTH_CAPTURE in self.options

    @property
    def jump_enemies(self) -> bool:
        return JUMP_ENEMIES in self.options

    @property
    def line_limit(self) -> bool:
        return NO_LINE_LIMIT not in self.options

    @property
    def controlled_energy(self) -> bool:
        return CONTROLLED_ENERGY in self.options

    @property
    def name(self) -> str:
        """``original`` or ``original+opt1+opt2`` (options in canonical order)."""
        return "+".join(["original", *[o for o in OPTIONS if o in self.options]])

    def names(self) -> list[str]:
        return [o for o in OPTIONS if o in self.options]

    def __str__(self) -> str:
        return self.name


ORIGINAL = Rules()
