"""The static evaluation: how good a board is for the side to move.

It knows the game's three ways to win (section 3, R-18) and scores, for each
side, the things that lead there:

* **race**: with n robots left, ceil(n/2) must stand on the target row, so
  only the ``need`` best-placed robots count fully: a robot on the target row
  scores best, then one that can reach it this turn on its own energy (path
  clear, cost <= batteries on its corners), then by distance;
* **energy**: batteries touching the robots (distinct ones: each gives one
  point per turn), robots with none are frozen; starving the opponent wins
  games (R-18), so the first batteries weigh most;
* **control**: batteries the side may move in its battery phase;
* **material** and **threats**: robots left, captures the side to move has
  now, and a race the side to move can finish now.

Scores are in "points" (a robot is worth about 20); a decided game is
``±WIN`` and is judged by the search, not here.
"""

from __future__ import annotations

from ..rules.masks import AROUND_MASK, CORNER_MASK
from ..rules.geometry import BLACK, WHITE, Color
from ..rules.options import Rules
from ..rules.robot_moves import ROBOT_RAYS, move_cost
from .board import squares_of

# FORWARD[color][sq]: the squares from sq (exclusive) straight forward to the target rank (inclusive).
FORWARD: dict[Color, tuple[tuple[int, ...], ...]] = {
    c: tuple(ROBOT_RAYS[c][s][0] if s // 6 != c.target_rank else () for s in range(36)) for c in (WHITE, BLACK)
}
# The first ray of ROBOT_RAYS is the forward one unless the robot stands on its target rank.
for _c in (WHITE, BLACK):
    for _s in range(36):
        _r = FORWARD[_c][_s]
        assert not _r or all(t % 6 == _s % 6 for t in _r)

DIST: dict[Color, tuple[int, ...]] = {
    WHITE: tuple(5 - s // 6 for s in range(36)),
    BLACK: tuple(s // 6 for s in range(36)),
}

_DIST_W, _DIST_B = DIST[WHITE], DIST[BLACK]
_FWD_W, _FWD_B = FORWARD[WHITE], FORWARD[BLACK]
_RAYS_W, _RAYS_B = ROBOT_RAYS[WHITE], ROBOT_RAYS[BLACK]

#: Value of having k distinct batteries around one's robots (concave: the first ones matter most).
ENERGY_VALUE = (-60.0, -22.0, -8.0, 0.0, 5.0, 9.0, 12.0, 14.5, 16.5, 18.0, 19.5, 21.0, 22.0, 23.0, 24.0)

W_PROGRESS = 11.0
W_DIST = 1.5
W_ROBOT_ENERGY = 1.2
W_FROZEN = 4.0
W_MATERIAL = 22.0
W_CONTROL = 1.2
W_RACE_TO_MOVE = 260.0
W_RACE_WAITING = 45.0
W_CAPTURE_TO_MOVE = 14.0
W_RACE_LEAD = 20.0


def _square_table(color: Color) -> tuple[tuple[int, int, int, int], ...]:
    """Per square: (corner points mask, distance to the target rank, forward path mask
    without its last square, the last square's bit) -- the race test as mask operations."""
    out = []
    for s in range(36):
        path = FORWARD[color][s]
        inner = 0
        for t in path[:-1]:
            inner |= 1 << t
        out.append((CORNER_MASK[s], DIST[color][s], inner, 1 << path[-1] if path else 0))
    return tuple(out)


_TABLE_W, _TABLE_B = _square_table(WHITE), _square_table(BLACK)


_COVER: dict[int, int] = {}
_SIDE_CACHE: dict[tuple, tuple[float, bool, int]] = {}
_THREAT_CACHE: dict[tuple, int] = {}
CACHE_LIMIT = 150_000
"""Entries per evaluation cache; a full cache is emptied (the search keeps meeting the same few)."""


def cover(robots: int) -> int:
    """The points touching any of ``robots``' squares (the only batteries their score depends on)."""
    c = _COVER.get(robots)
    if c is None:
        c = 0
        for sq in squares_of(robots):
            c |= CORNER_MASK[sq]
        if len(_COVER) > CACHE_LIMIT:
            _COVER.clear()
        _COVER[robots] = c
    return c


def side_score(robots: int, enemy: int, bats: int, color: Color, rules: Rules) -> tuple[float, bool, int]:
    """(static score, can finish the race this turn, turns the race needs) for the player with ``robots``.

    It depends on the batteries only through the points touching ``robots``,
    so results are cached on that part of the placement: a battery move next to
    one side's robots leaves the other side's score to the cache.
    """
    key = (robots, enemy, bats & cover(robots), color is WHITE, rules.passable)
    r = _SIDE_CACHE.get(key)
    if r is None:
        r = _side_score(robots, enemy, bats, color, rules)
        if len(_SIDE_CACHE) > CACHE_LIMIT:
            _SIDE_CACHE.clear()
        _SIDE_CACHE[key] = r
    return r


def _side_score(robots: int, enemy: int, bats: int, color: Color, rules: Rules) -> tuple[float, bool, int]:
    sqs = squares_of(robots)
    n = len(sqs)
    if n == 0:
        return -5000.0, False, 99
    need = (n + 1) >> 1
    table = _TABLE_W if color is WHITE else _TABLE_B
    passable = rules.passable
    keys = []
    total_d = 0
    union = 0
    energy = 0
    frozen = 0
    ready = 0
    for sq in sqs:
        cmask, d, inner, last = table[sq]
        total_d += d
        cm = cmask & bats
        union |= cm
        e = cm.bit_count()
        if e == 0:
            frozen += 1
            if d == 0:
                keys.append(0)
                ready += 1
            else:
                keys.append(2 + (d + 1) // 2)
            continue
        energy += e if e < 3 else 3
        if d == 0:
            keys.append(0)
            ready += 1
            continue
        # can it reach the target row this turn on its own energy (path clear, cost <= energy)?
        if (
            e >= d
            and not robots & last
            and not (robots | enemy) & inner & ~passable(robots, enemy)
            and move_cost(d, ((robots | enemy) & inner).bit_count(), bool(enemy & last)) <= e
        ):
            keys.append(1)
            ready += 1
        else:
            # turns to get there: this one with the energy it has, then about two squares a turn
            keys.append(2 + (d - e) // 2 if d > e else 2)
    keys.sort()
    progress = sum(keys[:need])
    race = keys[need - 1]  # turns until ``need`` robots can stand on the target row
    controlled = 0
    for p in squares_of(union):
        a = AROUND_MASK[p]
        if (robots & a).bit_count() >= (enemy & a).bit_count():
            controlled += 1
    score = (
        -W_PROGRESS * progress
        - W_DIST * total_d
        + ENERGY_VALUE[union.bit_count()]
        + W_ROBOT_ENERGY * energy
        - W_FROZEN * frozen
        + W_MATERIAL * n
        + W_CONTROL * controlled
    )
    return score, ready >= need, race


def capture_threats(robots: int, enemy: int, bats: int, color: Color, rules: Rules) -> int:
    """How many enemy robots one of ``robots`` could capture in one move on its own energy (cached like :func:`side_score`)."""
    # the victims' corners count only where the profile's ``may_capture`` asks them (R-9)
    seen = cover(robots) | cover(enemy)
    key = (robots, enemy, bats & seen, color is WHITE, rules.may_capture, rules.passable)
    r = _THREAT_CACHE.get(key)
    if r is None:
        r = _capture_threats(robots, enemy, bats, color, rules)
        if len(_THREAT_CACHE) > CACHE_LIMIT:
            _THREAT_CACHE.clear()
        _THREAT_CACHE[key] = r
    return r


def _capture_threats(robots: int, enemy: int, bats: int, color: Color, rules: Rules) -> int:
    victims = 0
    may_capture = rules.may_capture
    rays = _RAYS_W if color is WHITE else _RAYS_B
    over = rules.passable(robots, enemy)
    occupied = robots | enemy
    for sq in squares_of(robots):
        e = (CORNER_MASK[sq] & bats).bit_count()
        if e < 2:
            continue
        for ray in rays[sq]:
            n = jumped = 0
            for t in ray:
                n += 1
                if move_cost(n, jumped, True) > e:
                    break
                bit = 1 << t
                if enemy & bit and may_capture(bats, sq, t):
                    victims |= bit
                if not occupied & bit:
                    continue
                if not over & bit:
                    break
                jumped += 1
    return victims.bit_count()


def evaluate(own: int, enemy: int, bats: int, side: Color, rules: Rules) -> float:
    """Score of a non-terminal board for the side to move (``own`` robots, playing ``side``)."""
    s_own, race_own, t_own = side_score(own, enemy, bats, side, rules)
    s_enemy, race_enemy, t_enemy = side_score(enemy, own, bats, BLACK if side is WHITE else WHITE, rules)
    score = s_own - s_enemy
    # the race: who needs fewer turns, the side to move winning ties (it moves first)
    lead = t_enemy - t_own + 0.5
    score += W_RACE_LEAD * (lead if -2.5 < lead < 2.5 else (2.5 if lead > 0 else -2.5))
    if race_own:
        score += W_RACE_TO_MOVE
    if race_enemy:
        score -= W_RACE_WAITING
    threats = capture_threats(own, enemy, bats, side, rules)
    if threats:
        score += W_CAPTURE_TO_MOVE * (1 + (threats > 1))
    return score
