"""The original rules' hooks: what a rule option may change, and how the default profile answers.

Each rule option (docs/rules.md, section 4) is one class in this package,
a subclass of :class:`Variant` that overrides only the hooks its rule
changes -- as python-chess's variant boards override the chess rules they
change.  :class:`~companion.rules.options.Rules` puts the chosen options
together: each hook comes from the one chosen option that overrides it, or
from :class:`Variant` (the ``original`` profile).  The engine, explain and
the hints ask these hooks and never test an option by name.

The hooks are static functions of plain ints and bools (the board as
bitmasks, :mod:`..masks`), so that they are cheap to call and the hints'
compiled core can compile them as they stand.
"""

from __future__ import annotations

from typing import Callable, ClassVar, Iterable, TypeVar

from typing import Iterator

from ..control import controlled_mask, controls
from ..errors import NotationError
from ..geometry import Point, point_name
from ..battery_moves import BATTERY_RAYS
from ..masks import bits

T = TypeVar("T")


class Variant:
    """The ``original`` profile: sections 1 to 3 of docs/rules.md."""

    #: the option's name on the command line, in the config and in a game record
    name: ClassVar[str] = "original"
    #: one line for ``--help``
    help: ClassVar[str] = "the rules of sections 1 to 3"
    #: the option's bit in the hints' compiled core (companion/hints/fastcore.py)
    jit_flag: ClassVar[int] = 0
    #: why the camera cannot referee a game under this option yet (None: it can)
    camera_gap: ClassVar[str | None] = None

    # ------------------------------------------------------------------
    # robot moves (section 2.1)

    @staticmethod
    def passable(own: int, enemy: int) -> int:
        """The robots a move may pass over: own robots only (a jump)."""
        return own

    @staticmethod
    def may_capture(batteries: int, src: int, victim: int) -> bool:
        """May the robot starting on ``src`` capture the one on ``victim``?  Always."""
        return True

    # ------------------------------------------------------------------
    # energy (section 2.1)

    @staticmethod
    def drawable(own: int, enemy: int, batteries: int) -> int:
        """The batteries the side with robots ``own`` may draw energy from: all
        of them (control does not matter for energy)."""
        return batteries

    #: words an energy shortage adds after "batteries" to say which ones count
    energy_restriction: ClassVar[str] = ""

    #: an exact check of a robot phase's energy beyond Hall's condition on
    #: the sources' bit counts (each battery one point, to one robot): none
    energy_assignable: ClassVar[Callable[[list[tuple[int, int]]], bool] | None] = None

    # ------------------------------------------------------------------
    # control of batteries (section 2.2, R-3)

    @staticmethod
    def may_move(own: int, enemy: int, pt: Point) -> bool:
        """May the mover (robots ``own`` after the robot phase) move the battery
        on ``pt``?  If it controls it (R-3)."""
        return controls(own, enemy, pt)

    @staticmethod
    def movable(own: int, enemy: int, batteries: int) -> int:
        """The batteries of ``batteries`` the mover may move."""
        return controlled_mask(own, enemy, batteries)

    @staticmethod
    def control_shortfall(own_count: int, enemy_count: int) -> str | None:
        """Why a battery with this many own and enemy robots around it is not
        movable although the mover has at least as many: never, here."""
        return None

    # ------------------------------------------------------------------
    # one battery move per energy line (section 2.2)

    @staticmethod
    def closed_lines(used: int) -> int:
        """The energy lines closed to another battery move this turn: the ones used."""
        return used

    @staticmethod
    def line_used(used: int, line: int) -> int:
        """``used`` after a battery move along ``line``."""
        return used | (1 << line)

    # ------------------------------------------------------------------
    # battery moves (section 2.2): one battery on a point, to the next empty point

    @staticmethod
    def check_stacks(stacks: frozenset[tuple[Point, int]]) -> None:
        """R-19: without ``stacking`` a position holding a stack is malformed input."""
        if stacks:
            listed = ", ".join(f"{point_name(p)} ({h} batteries)" for p, h in sorted(stacks))
            raise NotationError(f"the position holds a stack on {listed}: stacks need the option stacking (R-19)")

    @staticmethod
    def battery_steps(bats: int, movable: int, closed: int) -> Iterator[tuple[int, int, int]]:
        """Every next battery move as (from, to, line): a ``movable`` battery
        to the next empty point along a line not ``closed``, passing any
        batteries in a row."""
        for p in bits(movable):
            for line, ray in BATTERY_RAYS[p]:
                if closed >> line & 1:
                    continue
                for q in ray:  # the next empty point, inline: outcome enumeration's hot loop
                    if not bats >> q & 1:
                        yield p, q, line
                        break

    @staticmethod
    def place(bats: int, p: Point, q: Point) -> int:
        """The batteries after the one on ``p`` moved to ``q``."""
        return (bats & ~(1 << p)) | (1 << q)

    @staticmethod
    def left_movable(movable: int, after: int, p: Point, q: Point) -> int:
        """The movable points after a move from ``p`` to ``q`` (R-4: it moved, and left ``p`` empty)."""
        return movable & ~(1 << p)

    @staticmethod
    def destination_fault(bats: int, src: Point, dst: Point, ray: tuple[int, ...]) -> tuple[str, tuple[int, ...]] | None:
        """Why the battery on ``src`` may not move to ``dst`` along ``ray``
        (R-13: exactly the next empty point), with the points to show; None if it may."""
        first_empty = next((q for q in ray if not bats >> q & 1), None)
        if first_empty is None:
            return "every point up to the edge is occupied, the battery cannot move that way", (src,)
        if first_empty != dst:
            return f"a battery moves to the next empty point, which is {point_name(first_empty)} (R-13)", (src, first_empty)
        return None

    # ------------------------------------------------------------------
    # capturing is voluntary (section 2.1)

    @staticmethod
    def keep_capturing(items: list[T], captures: Callable[[T], bool], more: Callable[[], list[T]] | None = None) -> list[T]:
        """Of the robot phases ``items`` (first moves, placements, outcomes),
        the ones the rules allow: all of them, capturing or not."""
        return items

    @staticmethod
    def capture_owed(available: Callable[[], T]) -> T | None:
        """What a robot phase that captured nothing owes: nothing (``available``,
        which finds an available capture, is not asked)."""
        return None


def hook_names() -> tuple[str, ...]:
    """The names of the hooks an option may override."""
    return tuple(
        k for k, v in vars(Variant).items()
        if not k.startswith("_") and k not in ("name", "help", "jit_flag", "camera_gap") and not isinstance(v, (classmethod,))
    )


def overridden(cls: type[Variant]) -> Iterable[str]:
    """The hooks ``cls`` overrides (itself or through a base other than :class:`Variant`)."""
    return (k for k in hook_names() if getattr(cls, k) is not getattr(Variant, k))
