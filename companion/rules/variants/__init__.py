"""The rule options, one class each (docs/rules.md, section 4).

:class:`~.base.Variant` holds the original rules' hooks; each option's module
holds the class that overrides the hooks its rule changes, with the rule's
R-numbers.  :data:`VARIANTS` lists them in the canonical order of profile
names (``original+must-capture+jump-enemies``).
"""

from __future__ import annotations

from .base import Variant
from .contested_frozen import ContestedFrozen
from .controlled_energy import ControlledEnergy
from .jump_enemies import JumpEnemies
from .must_capture import MustCapture
from .no_line_limit import NoLineLimit
from .stacking import StackUnsplit, Stacking
from .strength_capture import StrengthCapture

VARIANTS: tuple[type[Variant], ...] = (
    MustCapture,
    ContestedFrozen,
    StrengthCapture,
    JumpEnemies,
    NoLineLimit,
    ControlledEnergy,
    Stacking,
    StackUnsplit,
)

#: options that bring others with them: ``stack-unsplit`` implies ``stacking``
IMPLIES: dict[str, tuple[str, ...]] = {StackUnsplit.name: (Stacking.name,)}

__all__ = ["VARIANTS", "IMPLIES", "Stacking", "StackUnsplit", "Variant", "MustCapture", "ContestedFrozen", "StrengthCapture", "JumpEnemies", "NoLineLimit", "ControlledEnergy"]
