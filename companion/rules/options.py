"""Rules profiles: the ``original`` game and its switchable options (docs/rules.md, section 4).

Each option is one class in :mod:`.variants` (its rule and R-numbers are
there); a :class:`Rules` profile puts the chosen ones together.  The rules
code asks the profile's hooks (``rules.passable(own, enemy)``,
``rules.may_move(...)``, ``rules.keep_capturing(...)``, ...) -- each one the
hook of the chosen option that overrides it, or the original rules' -- and
never tests an option by name.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Iterable

from .errors import NotationError

if TYPE_CHECKING:
    from .position import Placement, Position
from .variants import IMPLIES, VARIANTS, Variant
from .variants.base import hook_names, overridden

OPTIONS: tuple[str, ...] = tuple(v.name for v in VARIANTS)
VARIANT_OF: dict[str, type[Variant]] = {v.name: v for v in VARIANTS}
OPTION_HELP: dict[str, str] = {v.name: v.help for v in VARIANTS}

MUST_CAPTURE, CONTESTED_FROZEN, STRENGTH_CAPTURE, JUMP_ENEMIES, NO_LINE_LIMIT, CONTROLLED_ENERGY, STACKING, STACK_UNSPLIT = OPTIONS

_HOOKS = hook_names()


def _unknown(name: object) -> NotationError:
    return NotationError(f"unknown rule option {name!r}: known options are {', '.join(OPTIONS)}")


#: The sides a new game may begin with (``starting_side`` of a new-game request).
STARTING_SIDES: tuple[str, ...] = ("white", "black")


def new_game_choice(options: object, starting_side: object = "white") -> tuple[tuple[str, ...], str]:
    """A new game's rule options and starting side as a request names them: the one check of the web
    page's new-game request, the game loop's inbox and the loop itself.

    ``options``: a list (or tuple) of rule option names; ``starting_side``: ``"white"`` or
    ``"black"``. Returns the options without repeats, in the order given, and the side. Raises
    :class:`NotationError` with one line naming what is wrong: options that are not a list of
    names, an unknown option (the message of every command's ``--option``), an option the camera
    cannot referee yet (:meth:`Rules.camera_refusal`), a side that is neither white nor black.
    """
    if not isinstance(options, (list, tuple)) or not all(isinstance(o, str) for o in options):
        raise NotationError("options must be a list of rule option names")
    refusal = Rules.from_names(options).camera_refusal()  # an unknown name: its NotationError
    if refusal:
        raise NotationError(refusal)
    if starting_side not in STARTING_SIDES:
        try:
            shown = json.dumps(starting_side)
        except (TypeError, ValueError):
            shown = repr(starting_side)
        raise NotationError(f'starting_side must be "white" or "black", not {shown}')
    return tuple(dict.fromkeys(options)), str(starting_side)


class Rules:
    """A rules profile: the set of enabled options. ``Rules()`` is ``original``.

    Its hooks (the names of :class:`~.variants.base.Variant`'s) are the
    chosen options' or the original rules'.
    """

    __slots__ = ("options", "variants", *_HOOKS)

    options: frozenset[str]
    variants: tuple[type[Variant], ...]

    def __init__(self, options: Iterable[str] = frozenset()) -> None:
        options = frozenset(options)
        unknown = sorted(str(o) for o in options - set(OPTIONS))
        if unknown:
            raise _unknown(unknown[0])
        options = options.union(*(IMPLIES.get(o, ()) for o in options))
        chosen = tuple(v for v in VARIANTS if v.name in options)
        object.__setattr__(self, "options", options)
        object.__setattr__(self, "variants", chosen)
        # an option that refines another (a subclass) takes its hooks over
        deciding = [v for v in chosen if not any(w is not v and issubclass(w, v) for w in chosen)]
        for hook in _HOOKS:
            owners = [v for v in deciding if hook in set(overridden(v))]
            if len(owners) > 1:  # pragma: no cover - a design error, caught by the tests of every profile
                raise TypeError(f"options {', '.join(v.name for v in owners)} both change {hook!r}")
            object.__setattr__(self, hook, getattr(owners[0] if owners else Variant, hook))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a rules profile is immutable")

    @classmethod
    def from_names(cls, names: Iterable[str] | None = None) -> "Rules":
        names = list(names or ())
        for n in names:
            if n not in OPTIONS:
                raise _unknown(n)
        return cls(frozenset(names))

    @property
    def name(self) -> str:
        """``original`` or ``original+opt1+opt2`` (options in canonical order)."""
        return "+".join(["original", *self.names()])

    def check_position(self, pos: "Position | Placement") -> None:
        """R-19: refuse a position (or board) holding a stack unless the profile has ``stacking``."""
        self.check_stacks(pos.stacks)

    def camera_refusal(self) -> str | None:
        """Why a game under this profile cannot be refereed from the camera yet, or None."""
        for v in self.variants:
            if v.camera_gap:
                return f"the option {v.name} cannot be refereed from the camera yet: {v.camera_gap}"
        return None

    @property
    def jit_flags(self) -> int:
        """The chosen options' bits for the hints' compiled core."""
        f = 0
        for v in self.variants:
            f |= v.jit_flag
        return f

    def names(self) -> list[str]:
        return [v.name for v in self.variants]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rules) and other.options == self.options

    def __hash__(self) -> int:
        return hash(self.options)

    def __repr__(self) -> str:
        return f"Rules(options={self.options!r})"

    def __str__(self) -> str:
        return self.name

    def __reduce__(self):
        return (Rules, (self.options,))


ORIGINAL = Rules()
