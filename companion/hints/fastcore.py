"""The hint engine's hot path compiled with numba: turn generation, evaluation, win checks.

Everything here is a port of the Python reference -- the rules of
:mod:`companion.rules` (robot steps, energy as a b-matching, R-8 capture
availability, battery moves, R-15/R-18 win order) and the hints modules
(:mod:`.evaluate`, :mod:`.turngen`, :func:`.search.candidates`) -- over int64
bitmasks and small numpy arrays, and it gives the same results: the same
candidate turns in the same order with the same values and the same count of
board evaluations (``tests/hints/test_hints_fastcore.py`` checks this on
random positions under every rule option).

Batteries are three int64 masks of points (R-19, R-21): ``bats`` the points
holding at least one battery, ``b2`` those holding two or more, ``b3`` those
holding three -- the layers of :func:`companion.rules.masks.layered` split
into machine words (``bats | b2 << LAYER | b3 << 2 * LAYER`` is the rules'
layered int, :func:`split_batteries`).  Without stacks ``b2`` and ``b3`` are 0.
Energy counts every battery of a stack (:func:`energy_of`), as does strength;
a battery move is the profile's (``stacking``: a stacking step or the next
empty point, never over a stack, R-20; :func:`battery_moves`, :func:`place_c`).
Under ``stack-unsplit`` a robot phase's energy must also be payable with every
point's batteries going whole to one robot (R-21, :func:`unsplit_ok`).

A rules profile is passed as an int of ``FLAG_*`` bits -- each option's
``jit_flag`` (:mod:`companion.rules.variants`), ``Rules.jit_flags`` -- a colour as 0 (White)
or 1 (Black).  :func:`candidates` returns ``(values, rows, nodes)``: one row
per candidate turn laid out as described at ``ROW_*``.

Some rules are not ported but compiled from their one home: the hooks
``passable`` (what a move may pass over: the original rules' and
``jump-enemies``'s, R-12), ``closed_lines`` and ``line_used`` (one battery
move per energy line: the original rules' and ``no-line-limit``'s) of
:mod:`companion.rules.variants`,
:func:`companion.rules.robot_moves.move_cost` (section 2.1, R-24) and
:func:`companion.rules.variants.stacking.whole_points_assignable` (R-21 under
``stack-unsplit``: each point's batteries to one robot) are compiled as they stand; the tables (rays,
corners, lines) are the rules package's.  numba's cache does not notice a change to those functions:
after changing one, delete the cache (``__pycache__/*.nbi``, ``*.nbc`` or
``NUMBA_CACHE_DIR``); ``tests/hints/test_hints_fastcore.py`` fails on a stale one.

Import this module only through :mod:`.jit` (``available()``), which falls
back to the Python search when numba is missing or ``NETZWERK_NO_JIT=1``.
Functions are compiled with ``cache=True`` (numba's cache directory is
``NUMBA_CACHE_DIR`` if set); if no cache location is writable they are
compiled without a cache instead.
"""

from __future__ import annotations

import warnings

import numpy as np
from numba import njit

from ..rules.battery_moves import BATTERY_RAYS
from ..rules.masks import AROUND_MASK, CORNER_MASK, LAYER, POINTS, TARGET_RANK_MASK
from ..rules.robot_moves import ROBOT_RAYS, move_cost
from ..rules.variants import (
    ContestedFrozen,
    ControlledEnergy,
    JumpEnemies,
    MustCapture,
    NoLineLimit,
    Stacking,
    StackUnsplit,
    StrengthCapture,
    Variant,
)
from ..rules.variants.stacking import whole_points_assignable
from ..rules.geometry import BLACK, WHITE
from . import evaluate as _ev


def _jit(fn):
    """``njit(cache=True)``, or without the cache if numba cannot place one (read-only tree, no writable dir)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return njit(cache=True, nogil=True)(fn)
        except Exception:  # pragma: no cover - depends on the file system
            return njit(cache=False, nogil=True)(fn)


# ----------------------------------------------------------------------------
# flags and tables

FLAG_MC = MustCapture.jit_flag
FLAG_CF = ContestedFrozen.jit_flag
FLAG_SC = StrengthCapture.jit_flag
FLAG_JE = JumpEnemies.jit_flag
FLAG_NLL = NoLineLimit.jit_flag
FLAG_CE = ControlledEnergy.jit_flag
FLAG_ST = Stacking.jit_flag
FLAG_SU = StackUnsplit.jit_flag


#: the options this core compiles (all of them); a profile with any other would be searched by the Python search
COMPILED_FLAGS = FLAG_MC | FLAG_CF | FLAG_SC | FLAG_JE | FLAG_NLL | FLAG_CE | FLAG_ST | FLAG_SU


def split_batteries(layers: int) -> tuple[int, int, int]:
    """The rules' layered batteries (:func:`companion.rules.masks.layered`) as (bats, b2, b3)."""
    return layers & POINTS, (layers >> LAYER) & POINTS, (layers >> (2 * LAYER)) & POINTS


def join_batteries(bats: int, b2: int, b3: int) -> int:
    """(bats, b2, b3) back as the rules' layered int."""
    return bats | b2 << LAYER | b3 << (2 * LAYER)


def flags_of(rules) -> int:
    """The profile's options as ``FLAG_*`` bits."""
    return rules.jit_flags


def color_index(color) -> int:
    return 0 if color is WHITE else 1


WIN = 1_000_000.0

CORNER = np.array(CORNER_MASK, dtype=np.int64)
AROUND = np.array(AROUND_MASK, dtype=np.int64)
TARGET = np.array([TARGET_RANK_MASK[WHITE], TARGET_RANK_MASK[BLACK]], dtype=np.int64)

# RAYS[c, sq, k, i]: the i-th square of the k-th ray (forward, left, right; empty ones left out), -1 padded
RAYS = np.full((2, 36, 3, 6), -1, dtype=np.int64)
RAYLEN = np.zeros((2, 36, 3), dtype=np.int64)
NRAYS = np.zeros((2, 36), dtype=np.int64)
for _ci, _c in enumerate((WHITE, BLACK)):
    for _s in range(36):
        _rays = ROBOT_RAYS[_c][_s]
        NRAYS[_ci, _s] = len(_rays)
        for _k, _r in enumerate(_rays):
            RAYLEN[_ci, _s, _k] = len(_r)
            for _i, _t in enumerate(_r):
                RAYS[_ci, _s, _k, _i] = _t

# BRAYS[p, k, i]: battery rays (up, down, left, right; empty ones left out), BLINE their energy line
BRAYS = np.full((49, 4, 7), -1, dtype=np.int64)
BRLEN = np.zeros((49, 4), dtype=np.int64)
BLINE = np.zeros((49, 4), dtype=np.int64)
NBR = np.zeros(49, dtype=np.int64)
for _p in range(49):
    NBR[_p] = len(BATTERY_RAYS[_p])
    for _k, (_line, _r) in enumerate(BATTERY_RAYS[_p]):
        BLINE[_p, _k] = _line
        BRLEN[_p, _k] = len(_r)
        for _i, _q in enumerate(_r):
            BRAYS[_p, _k, _i] = _q

# evaluation tables per colour and square: corners, distance, forward path without its last square, last square's bit
TAB = np.zeros((2, 36, 4), dtype=np.int64)
for _ci, _t in enumerate((_ev._TABLE_W, _ev._TABLE_B)):
    for _s in range(36):
        for _k in range(4):
            TAB[_ci, _s, _k] = _t[_s][_k]

ENERGY_VALUE = np.array(_ev.ENERGY_VALUE, dtype=np.float64)
W = np.array(
    [
        _ev.W_PROGRESS, _ev.W_DIST, _ev.W_ROBOT_ENERGY, _ev.W_FROZEN, _ev.W_MATERIAL, _ev.W_CONTROL,
        _ev.W_RACE_TO_MOVE, _ev.W_RACE_WAITING, _ev.W_CAPTURE_TO_MOVE, _ev.W_RACE_LEAD,
    ],
    dtype=np.float64,
)

# rules compiled from their one home: companion.rules.robot_moves, companion.rules.variants
move_cost_c = _jit(move_cost)
_passable_original = _jit(Variant.passable)
_passable_jump_enemies = _jit(JumpEnemies.passable)
_closed_lines_original = _jit(Variant.closed_lines)
_closed_lines_no_limit = _jit(NoLineLimit.closed_lines)
_line_used_original = _jit(Variant.line_used)
_line_used_no_limit = _jit(NoLineLimit.line_used)
whole_points_assignable_c = _jit(whole_points_assignable)


@_jit
def passable_c(own, enemy, jump_enemies):
    """The profile's ``passable`` hook: ``jump-enemies``'s or the original rules'."""
    if jump_enemies:
        return _passable_jump_enemies(own, enemy)
    return _passable_original(own, enemy)


@_jit
def closed_lines_c(used, line_limit):
    """The profile's ``closed_lines`` hook: the original rules' or ``no-line-limit``'s."""
    if line_limit:
        return _closed_lines_original(used)
    return _closed_lines_no_limit(used)


@_jit
def line_used_c(used, line, line_limit):
    """The profile's ``line_used`` hook: the original rules' or ``no-line-limit``'s."""
    if line_limit:
        return _line_used_original(used, line)
    return _line_used_no_limit(used, line)

# ----------------------------------------------------------------------------
# candidate rows

MAX_STEPS = 6
MAX_CHAIN = 6
ROW_OWN, ROW_ENEMY, ROW_BATS, ROW_BATS2, ROW_BATS3, ROW_NSTEPS = 0, 1, 2, 3, 4, 5
ROW_KEY = 5  # the row's first ROW_KEY columns are the placement it leads to
ROW_STEPS = 6  # MAX_STEPS x (src, dst, capture, cost, jumped own, jumped enemy)
ROW_NBAT = ROW_STEPS + 6 * MAX_STEPS
ROW_BAT = ROW_NBAT + 1  # MAX_CHAIN x (from point, to point)
ROW_WIDTH = ROW_BAT + 2 * MAX_CHAIN

# robot-phase state records
S_OWN, S_ENEMY, S_MOVED, S_NDEM = 0, 1, 2, 3
S_DSQ = 4  # 6 demand start squares
S_DCOST = 10  # 6 demand costs
S_PARENT = 16
S_STEP = 17  # src, dst, capture, cost, jo, je of the move that reached the state
S_DEPTH = 23
S_WIDTH = 24

# successor rows
U_SRC, U_DST, U_CAP, U_COST, U_JO, U_JE, U_OWN, U_ENEMY, U_MOVED = range(9)
U_MAX = 128


# ----------------------------------------------------------------------------
# bits


@_jit
def popcount(x):
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56


@_jit
def lowbit_index(x):
    return popcount((x & -x) - 1)


@_jit
def energy_of(u, b2, b3):
    """The energy of the sources ``u`` (points): each battery on them one point, every battery of a
    stack one (R-21): the bit count of the rules' layered sources (energy.sources_by_square)."""
    return popcount(u) + popcount(u & b2) + popcount(u & b3)


@_jit
def strength_c(sq, bats, b2, b3):
    """R-9 with R-21: the batteries on a square's corners, every battery of a stack (robot_moves.strength)."""
    return energy_of(CORNER[sq] & bats, b2, b3)


# ----------------------------------------------------------------------------
# control, energy, robot steps (companion.rules.engine)


@_jit
def controlled_mask(own, enemy, bats, strict):
    m = np.int64(0)
    b = bats
    while b:
        low = b & -b
        b ^= low
        p = popcount(low - 1)
        a = AROUND[p]
        o = popcount(own & a)
        e = popcount(enemy & a)
        if o >= 1 and ((o > e) if strict else (o >= e)):
            m |= low
    return m


@_jit
def make_sources(own, enemy, bats, flags, sources):
    """Per start square, the batteries a robot may draw from (R-10): the port of
    ``companion.rules.energy.sources_by_square``, checked against it by a parity test."""
    allowed = bats
    if flags & FLAG_CE:
        allowed = controlled_mask(own, enemy, bats, False)
    for s in range(36):
        sources[s] = CORNER[s] & allowed


@_jit
def unsplit_ok(ndem, dsq, dcost, sq, cost, sources, b2, b3):
    """R-21 under ``stack-unsplit``: can the robots moved so far (``dsq``, ``dcost``) and one more
    (starting on ``sq``, costing ``cost``) be paid with each point's batteries going whole to one
    robot?  The port of ``StackUnsplit.energy_assignable`` (the units, biggest first, and the robots
    touching them), deciding by the rules' own ``whole_points_assignable`` compiled as it stands."""
    n = ndem + 1
    src = np.empty(n, dtype=np.int64)
    costs = np.empty(n, dtype=np.int64)
    union = np.int64(0)
    for i in range(ndem):
        src[i] = sources[dsq[i]]
        costs[i] = dcost[i]
        union |= src[i]
    src[ndem] = sources[sq]
    costs[ndem] = cost
    union |= src[ndem]
    heights = np.empty(49, dtype=np.int64)
    touch = np.empty(49, dtype=np.int64)
    nu = 0
    for h in range(3, 0, -1):
        if h == 3:
            m = union & b3
        elif h == 2:
            m = union & b2 & ~b3
        else:
            m = union & ~b2
        while m:
            low = m & -m
            m ^= low
            t = np.int64(0)
            for i in range(n):
                if src[i] & low:
                    t |= np.int64(1) << i
            heights[nu] = h
            touch[nu] = t
            nu += 1
    return whole_points_assignable_c(heights, touch, costs, nu, n)


@_jit
def gen_successors(own, enemy, moved, ndem, dsq, dcost, sources, color, flags, bats, b2, b3, out, sub_u, sub_t):
    """Every legal next robot move from a robot-phase state, energy checked (engine.successors), into ``out``."""
    nsub = 1 << ndem
    sub_u[0] = 0
    sub_t[0] = 0
    for i in range(ndem):
        half = 1 << i
        su = sources[dsq[i]]
        for j in range(half):
            sub_u[half + j] = sub_u[j] | su
            sub_t[half + j] = sub_t[j] + dcost[i]
    over = passable_c(own, enemy, (flags & FLAG_JE) != 0)
    strength_cap = (flags & FLAG_SC) != 0
    unsplit = (flags & FLAG_SU) != 0 and ndem > 0
    n = 0
    movable = own & ~moved
    while movable:
        low = movable & -movable
        movable ^= low
        sq = popcount(low - 1)
        src = sources[sq]
        cap = energy_of(src, b2, b3)
        if cap == 0:
            continue
        attacker = strength_c(sq, bats, b2, b3) if strength_cap else 0
        for k in range(NRAYS[color, sq]):
            jo = 0
            je = 0
            steps = 0
            for i in range(RAYLEN[color, sq, k]):
                t = RAYS[color, sq, k, i]
                steps += 1
                base = move_cost_c(steps, jo + je, False)
                if base > cap:
                    break
                bit = np.int64(1) << t
                capture = False
                cost = base
                if own & bit:
                    jo += 1
                    continue
                stop = False
                emit = True
                if enemy & bit:
                    emit = False
                    cost_cap = move_cost_c(steps, jo + je, True)
                    if cost_cap <= cap and (not strength_cap or strength_c(t, bats, b2, b3) <= attacker):
                        emit = True
                        capture = True
                        cost = cost_cap
                    if not (over & bit):
                        stop = True
                if emit:
                    ok = True
                    for j in range(nsub):
                        if energy_of(sub_u[j] | src, b2, b3) < sub_t[j] + cost:
                            ok = False
                            break
                    if ok and unsplit:
                        ok = unsplit_ok(ndem, dsq, dcost, sq, cost, sources, b2, b3)
                    if ok:
                        out[n, U_SRC] = sq
                        out[n, U_DST] = t
                        out[n, U_CAP] = 1 if capture else 0
                        out[n, U_COST] = cost
                        out[n, U_JO] = jo
                        out[n, U_JE] = je
                        out[n, U_OWN] = (own & ~low) | bit
                        out[n, U_ENEMY] = enemy & ~bit
                        out[n, U_MOVED] = moved | bit
                        n += 1
                if enemy & bit:
                    if stop:
                        break
                    je += 1
    return n


@_jit
def demand_key(ndem, dsq, dcost, sq, cost):
    """The demands (plus one more, if ``sq`` >= 0) packed in an int (engine.state_key's sorted demands).

    Start squares are distinct within a phase (each robot moves once, R-14), so the
    set of (start square, cost) pairs is the start-square mask plus the costs (3 bits
    each, at most 4) in square order."""
    mask = np.int64(0)
    for i in range(ndem):
        mask |= np.int64(1) << dsq[i]
    if sq >= 0:
        mask |= np.int64(1) << sq
    code = np.int64(0)
    for i in range(ndem):
        code |= np.int64(dcost[i]) << (3 * popcount(mask & ((np.int64(1) << dsq[i]) - 1)))
    if sq >= 0:
        code |= np.int64(cost) << (3 * popcount(mask & ((np.int64(1) << sq) - 1)))
    return mask | (code << 36)


@_jit
def grow(S, n):
    if n < S.shape[0]:
        return S
    S2 = np.empty((S.shape[0] * 2, S_WIDTH), dtype=np.int64)
    S2[:n] = S[:n]
    return S2


@_jit
def add_child(S, n, parent, U, u):
    """Append the state reached from ``S[parent]`` by successor ``U[u]``; returns (S, new index)."""
    S = grow(S, n)
    nd = S[parent, S_NDEM]
    for c in range(S_WIDTH):
        S[n, c] = 0
    S[n, S_OWN] = U[u, U_OWN]
    S[n, S_ENEMY] = U[u, U_ENEMY]
    S[n, S_MOVED] = U[u, U_MOVED]
    S[n, S_NDEM] = nd + 1
    for i in range(nd):
        S[n, S_DSQ + i] = S[parent, S_DSQ + i]
        S[n, S_DCOST + i] = S[parent, S_DCOST + i]
    S[n, S_DSQ + nd] = U[u, U_SRC]
    S[n, S_DCOST + nd] = U[u, U_COST]
    S[n, S_PARENT] = parent
    for c in range(6):
        S[n, S_STEP + c] = U[u, c]
    S[n, S_DEPTH] = S[parent, S_DEPTH] + 1
    return S, n


@_jit
def child_key(S, parent, U, u):
    nd = S[parent, S_NDEM]
    return (U[u, U_OWN], U[u, U_ENEMY], U[u, U_MOVED],
            demand_key(nd, S[parent, S_DSQ:S_DSQ + 6], S[parent, S_DCOST:S_DCOST + 6], U[u, U_SRC], U[u, U_COST]))


@_jit
def state_key(S, i):
    return (S[i, S_OWN], S[i, S_ENEMY], S[i, S_MOVED], demand_key(S[i, S_NDEM], S[i, S_DSQ:S_DSQ + 6], S[i, S_DCOST:S_DCOST + 6], -1, 0))


@_jit
def succ_of(S, i, sources, color, flags, bats, b2, b3, U, sub_u, sub_t):
    return gen_successors(S[i, S_OWN], S[i, S_ENEMY], S[i, S_MOVED], S[i, S_NDEM], S[i, S_DSQ:S_DSQ + 6],
                          S[i, S_DCOST:S_DCOST + 6], sources, color, flags, bats, b2, b3, U, sub_u, sub_t)


@_jit
def new_store(own, enemy):
    S = np.zeros((1024, S_WIDTH), dtype=np.int64)
    S[0, S_OWN] = own
    S[0, S_ENEMY] = enemy
    S[0, S_PARENT] = -1
    return S


# ----------------------------------------------------------------------------
# capture availability


@_jit
def capture_candidates(S, i, sources, color, b2, b3):
    own = S[i, S_OWN]
    enemy = S[i, S_ENEMY]
    movable = own & ~S[i, S_MOVED]
    while movable:
        low = movable & -movable
        movable ^= low
        sq = popcount(low - 1)
        cap = energy_of(sources[sq], b2, b3)
        if cap < 2:
            continue
        for k in range(NRAYS[color, sq]):
            for i2 in range(RAYLEN[color, sq, k]):
                if move_cost_c(i2 + 1, 0, True) > cap:
                    break
                if (enemy >> RAYS[color, sq, k, i2]) & 1:
                    return True
    return False


@_jit
def capture_reachable(S, n, i, sources, color, flags, bats, b2, b3):
    """Can some continuation of the robot phase from ``S[i]`` capture? (engine._first_capture)

    Scratch states are appended to ``S`` past ``n`` and dropped afterwards."""
    if not capture_candidates(S, i, sources, color, b2, b3):
        return S, False
    U = np.empty((U_MAX, 9), dtype=np.int64)
    sub_u = np.empty(64, dtype=np.int64)
    sub_t = np.empty(64, dtype=np.int64)
    seen = {(np.int64(0), np.int64(0), np.int64(0), np.int64(0))}
    seen.clear()
    stack = [i]
    top = n
    while len(stack):
        cur = stack.pop()
        nu = succ_of(S, cur, sources, color, flags, bats, b2, b3, U, sub_u, sub_t)
        for u in range(nu):
            if U[u, U_CAP]:
                return S, True
            key = child_key(S, cur, U, u)
            if key not in seen:
                seen.add(key)
                S, j = add_child(S, top, cur, U, u)
                top += 1
                if capture_candidates(S, j, sources, color, b2, b3):
                    stack.append(j)
    return S, False


# ----------------------------------------------------------------------------
# win rules (board.has_move, board.winner_after)


@_jit
def has_move(own, enemy, bats, b2, b3, color, flags):
    if not (flags & FLAG_CE):
        occupied = own | enemy
        m = own
        while m:
            low = m & -m
            m ^= low
            sq = popcount(low - 1)
            if CORNER[sq] & bats:
                for k in range(NRAYS[color, sq]):
                    if not (occupied >> RAYS[color, sq, k, 0]) & 1:
                        return True
    sources = np.empty(36, dtype=np.int64)
    make_sources(own, enemy, bats, flags, sources)
    U = np.empty((U_MAX, 9), dtype=np.int64)
    sub_u = np.empty(64, dtype=np.int64)
    sub_t = np.empty(64, dtype=np.int64)
    dsq = np.zeros(6, dtype=np.int64)
    return gen_successors(own, enemy, np.int64(0), 0, dsq, dsq, sources, color, flags, bats, b2, b3, U, sub_u, sub_t) > 0


@_jit
def winner_after(mover_robots, other_robots, bats, b2, b3, mover, flags):
    """0 nobody, 1 the mover, -1 the other side (R-5, R-15, R-18)."""
    other = 1 - mover
    if not other_robots:
        return 1
    n = popcount(mover_robots)
    if n and popcount(mover_robots & TARGET[mover]) >= (n + 1) >> 1:
        return 1
    if not mover_robots:
        return -1
    n = popcount(other_robots)
    if popcount(other_robots & TARGET[other]) >= (n + 1) >> 1:
        return -1
    if not has_move(other_robots, mover_robots, bats, b2, b3, other, flags):
        return 1
    return 0


# ----------------------------------------------------------------------------
# evaluation (hints.evaluate)


@_jit
def side_score(robots, enemy, bats, color, flags):
    n = popcount(robots)
    if n == 0:
        return -5000.0, False, 99
    need = (n + 1) >> 1
    over = passable_c(robots, enemy, (flags & FLAG_JE) != 0)
    hist = np.int64(0)  # how many robots have each race key 0..5, 4 bits a key (no array to allocate)
    total_d = 0
    union = np.int64(0)
    energy = 0
    frozen = 0
    ready = 0
    m = robots
    while m:
        low = m & -m
        m ^= low
        sq = popcount(low - 1)
        cmask = TAB[color, sq, 0]
        d = TAB[color, sq, 1]
        inner = TAB[color, sq, 2]
        last = TAB[color, sq, 3]
        total_d += d
        cm = cmask & bats
        union |= cm
        e = popcount(cm)
        if e == 0:
            frozen += 1
            if d == 0:
                hist += 1
                ready += 1
            else:
                hist += np.int64(1) << (4 * (2 + (d + 1) // 2))
            continue
        energy += e if e < 3 else 3
        if d == 0:
            hist += 1
            ready += 1
            continue
        if (
            e >= d
            and not (robots & last)
            and not ((robots | enemy) & inner & ~over)
            and move_cost_c(d, popcount((robots | enemy) & inner), (enemy & last) != 0) <= e
        ):
            hist += np.int64(1) << 4
            ready += 1
        else:
            hist += np.int64(1) << (4 * ((2 + (d - e) // 2) if d > e else 2))
    # the ``need`` smallest keys: their sum (progress) and the largest of them (race)
    progress = 0
    race = 0
    remaining = need
    for k in range(6):
        cnt = (hist >> (4 * k)) & 15
        take = cnt if cnt < remaining else remaining
        progress += take * k
        remaining -= take
        if remaining == 0:
            race = k
            break
    controlled = 0
    u = union
    while u:
        low = u & -u
        u ^= low
        a = AROUND[popcount(low - 1)]
        if popcount(robots & a) >= popcount(enemy & a):
            controlled += 1
    score = (
        -W[0] * progress
        - W[1] * total_d
        + ENERGY_VALUE[popcount(union)]
        + W[2] * energy
        - W[3] * frozen
        + W[4] * n
        + W[5] * controlled
    )
    return score, ready >= need, race


@_jit
def capture_threats(robots, enemy, bats, b2, b3, color, flags):
    victims = np.int64(0)
    strength = (flags & FLAG_SC) != 0
    over = passable_c(robots, enemy, (flags & FLAG_JE) != 0)
    occupied = robots | enemy
    m = robots
    while m:
        low = m & -m
        m ^= low
        sq = popcount(low - 1)
        e = popcount(CORNER[sq] & bats)
        if e < 2:
            continue
        attacker = strength_c(sq, bats, b2, b3) if strength else 0
        for k in range(NRAYS[color, sq]):
            steps = 0
            jumped = 0
            for i in range(RAYLEN[color, sq, k]):
                t = RAYS[color, sq, k, i]
                steps += 1
                if move_cost_c(steps, jumped, True) > e:
                    break
                bit = np.int64(1) << t
                if (enemy & bit) and (not strength or strength_c(t, bats, b2, b3) <= attacker):
                    victims |= bit
                if not (occupied & bit):
                    continue
                if not (over & bit):
                    break
                jumped += 1
    return popcount(victims)


@_jit
def evaluate(own, enemy, bats, b2, b3, side, flags):
    s_own, race_own, t_own = side_score(own, enemy, bats, side, flags)
    s_enemy, race_enemy, t_enemy = side_score(enemy, own, bats, 1 - side, flags)
    score = s_own - s_enemy
    lead = t_enemy - t_own + 0.5
    if -2.5 < lead < 2.5:
        score += W[9] * lead
    elif lead > 0:
        score += W[9] * 2.5
    else:
        score += W[9] * -2.5
    if race_own:
        score += W[6]
    if race_enemy:
        score -= W[7]
    threats = capture_threats(own, enemy, bats, b2, b3, side, flags)
    if threats:
        score += W[8] * (1 + (1 if threats > 1 else 0))
    return score


@_jit
def value_after(own, enemy, bats, b2, b3, mover, flags):
    w = winner_after(own, enemy, bats, b2, b3, mover, flags)
    if w == 1:
        return WIN
    if w == -1:
        return -WIN
    return -evaluate(enemy, own, bats, b2, b3, 1 - mover, flags)


# ----------------------------------------------------------------------------
# robot phases (hints.turngen)


@_jit
def robot_outcomes(own0, enemy0, bats, b2, b3, color, flags, max_moves, max_states, S, sources):
    """(S, outcome state indices, n) as turngen.robot_outcomes (its order, its shortest paths)."""
    U = np.empty((U_MAX, 9), dtype=np.int64)
    sub_u = np.empty(64, dtype=np.int64)
    sub_t = np.empty(64, dtype=np.int64)
    n = 1
    seen = {state_key(S, 0)}
    found = {(own0, enemy0): np.int64(0)}
    found.clear()
    order = []
    queue = np.empty(1024, dtype=np.int64)
    qh = 0
    qt = 1
    queue[0] = 0
    complete = True
    while qh < qt:
        cur = queue[qh]
        qh += 1
        depth = S[cur, S_DEPTH] + 1
        nu = succ_of(S, cur, sources, color, flags, bats, b2, b3, U, sub_u, sub_t)
        for u in range(nu):
            key = child_key(S, cur, U, u)
            if key in seen:
                continue
            seen.add(key)
            S, j = add_child(S, n, cur, U, u)
            n += 1
            placement = (U[u, U_OWN], U[u, U_ENEMY])
            if placement not in found:
                found[placement] = j
                order.append(j)
            if depth < max_moves:
                if qt == queue.shape[0]:
                    q2 = np.empty(queue.shape[0] * 2, dtype=np.int64)
                    q2[:qt] = queue[:qt]
                    queue = q2
                queue[qt] = j
                qt += 1
            elif U[u, U_OWN] & ~U[u, U_MOVED]:
                complete = False
        if max_states and len(seen) > max_states:
            complete = complete and not (qh < qt)
            break
    if not complete:
        cseen = {state_key(S, 0)}
        stack = [np.int64(0)]
        nodes = 0
        while len(stack) and nodes < 2000:
            cur = stack.pop()
            nu = succ_of(S, cur, sources, color, flags, bats, b2, b3, U, sub_u, sub_t)
            for u in range(nu):
                nodes += 1
                if not U[u, U_CAP]:
                    continue
                key = child_key(S, cur, U, u)
                if key in cseen:
                    continue
                cseen.add(key)
                S, j = add_child(S, n, cur, U, u)
                n += 1
                placement = (U[u, U_OWN], U[u, U_ENEMY])
                if placement not in found:
                    found[placement] = j
                    order.append(j)
                stack.append(j)
    if flags & FLAG_MC:
        capturing = []
        for j in order:
            if S[j, S_ENEMY] != enemy0:
                capturing.append(j)
        if len(capturing):
            order = capturing
        elif not complete:
            S, n, capt = capturing_outcomes(S, n, enemy0, bats, b2, b3, color, flags, sources, 64)
            if len(capt):
                order = capt
    out = np.empty(len(order), dtype=np.int64)
    for k in range(len(order)):
        out[k] = order[k]
    return S, n, out, complete


@_jit
def capturing_outcomes(S, n, enemy0, bats, b2, b3, color, flags, sources, limit):
    U = np.empty((U_MAX, 9), dtype=np.int64)
    sub_u = np.empty(64, dtype=np.int64)
    sub_t = np.empty(64, dtype=np.int64)
    out = {(np.int64(0), np.int64(0)): np.int64(0)}
    out.clear()
    order = [np.int64(0)]
    order.clear()
    seen = {state_key(S, 0)}
    stack = [np.int64(0)]
    while len(stack) and len(out) < limit:
        cur = stack.pop()
        nu = succ_of(S, cur, sources, color, flags, bats, b2, b3, U, sub_u, sub_t)
        for u in range(nu):
            key = child_key(S, cur, U, u)
            if key in seen:
                continue
            seen.add(key)
            S, j = add_child(S, n, cur, U, u)
            n += 1
            if U[u, U_CAP] or U[u, U_ENEMY] != enemy0:
                placement = (U[u, U_OWN], U[u, U_ENEMY])
                if placement not in out:
                    out[placement] = j
                    order.append(j)
                stack.append(j)
            else:
                S, r = capture_reachable(S, n, j, sources, color, flags, bats, b2, b3)
                if r:
                    stack.append(j)
    return S, n, order


@_jit
def winning_robot_phase(own0, enemy0, bats, b2, b3, color, flags, max_nodes, S, n, sources):
    """(S, n, state index or -1) as turngen.winning_robot_phase."""
    U = np.empty((U_MAX, 9), dtype=np.int64)
    sub_u = np.empty(64, dtype=np.int64)
    sub_t = np.empty(64, dtype=np.int64)
    target = 5 if color == 0 else 0
    seen = {state_key(S, 0)}
    stack = [np.int64(0)]
    nodes = 0
    while len(stack) and nodes < max_nodes:
        cur = stack.pop()
        nu = succ_of(S, cur, sources, color, flags, bats, b2, b3, U, sub_u, sub_t)
        for u in range(nu):
            nodes += 1
            if not (U[u, U_CAP] or (U[u, U_DST] // 6 == target and U[u, U_SRC] // 6 != target)):
                continue
            key = child_key(S, cur, U, u)
            if key in seen:
                continue
            seen.add(key)
            S, j = add_child(S, n, cur, U, u)
            n += 1
            o = U[u, U_OWN]
            e = U[u, U_ENEMY]
            won = False
            if e == 0 and o:
                won = True
            else:
                k = popcount(o)
                won = k > 0 and popcount(o & TARGET[color]) >= (k + 1) >> 1
            if won:
                if (flags & FLAG_MC) and e == enemy0:
                    continue
                return S, n, j
            stack.append(j)
    return S, n, np.int64(-1)


@_jit
def grown_robot_phases(own0, enemy0, bats, b2, b3, color, flags, beam, max_moves, S, n, sources):
    """(S, n, state indices, values) as turngen.grown_robot_phases (value: value_after with ``bats``)."""
    U = np.empty((U_MAX, 9), dtype=np.int64)
    sub_u = np.empty(64, dtype=np.int64)
    sub_t = np.empty(64, dtype=np.int64)
    found = {(own0, enemy0): np.int64(0)}
    found.clear()
    order = [np.int64(0)]
    order.clear()
    fvals = [0.0]
    fvals.clear()
    seen = {state_key(S, 0)}
    level = np.zeros(1, dtype=np.int64)
    for _ in range(max_moves):
        g_idx = [np.int64(0)]
        g_idx.clear()
        g_val = [0.0]
        g_val.clear()
        for cur in level:
            nu = succ_of(S, cur, sources, color, flags, bats, b2, b3, U, sub_u, sub_t)
            for u in range(nu):
                key = child_key(S, cur, U, u)
                if key in seen:
                    continue
                seen.add(key)
                S, j = add_child(S, n, cur, U, u)
                n += 1
                placement = (U[u, U_OWN], U[u, U_ENEMY])
                if placement in found:
                    v = fvals[found[placement]]
                else:
                    v = value_after(U[u, U_OWN], U[u, U_ENEMY], bats, b2, b3, color, flags)
                    found[placement] = len(order)
                    order.append(j)
                    fvals.append(v)
                g_idx.append(j)
                g_val.append(v)
        if len(g_idx) == 0:
            break
        gv = np.empty(len(g_val), dtype=np.float64)
        for k in range(len(g_val)):
            gv[k] = -g_val[k]
        rank = np.argsort(gv, kind="mergesort")
        m = min(beam, len(g_idx))
        level = np.empty(m, dtype=np.int64)
        for k in range(m):
            level[k] = g_idx[rank[k]]
    idx = np.empty(len(order), dtype=np.int64)
    vals = np.empty(len(order), dtype=np.float64)
    for k in range(len(order)):
        idx[k] = order[k]
        vals[k] = fvals[k]
    return S, n, idx, vals


# ----------------------------------------------------------------------------
# battery phases


@_jit
def place_c(bats, b2, b3, p, q):
    """The batteries after the (top) battery on ``p`` moved onto ``q``: the profile's ``place``
    (the original rules' on an empty point; ``stacking``'s onto a stack, R-20)."""
    bp = np.int64(1) << p
    bq = np.int64(1) << q
    if b3 & bp:
        b3 &= ~bp
    elif b2 & bp:
        b2 &= ~bp
    else:
        bats &= ~bp
    if not (bats & bq):
        bats |= bq
    elif not (b2 & bq):
        b2 |= bq
    else:
        b3 |= bq
    return bats, b2, b3


@_jit
def left_movable_c(movable, bats_after, p, q, stacking):
    """The profile's ``left_movable``: R-4, the battery that moved may not move again; under
    ``stacking`` nothing leaves ``q`` and the battery it uncovered on ``p`` still may (R-20)."""
    if stacking:
        movable &= ~(np.int64(1) << q)
        if not (bats_after >> p) & 1:
            movable &= ~(np.int64(1) << p)
        return movable
    return movable & ~(np.int64(1) << p)


@_jit
def battery_moves(bats, b2, b3, movable, used, line_limit, stacking, out):
    """Single battery moves (from, to, line) in rules.battery_moves.battery_steps' order; returns their count.

    The profile's ``battery_steps``: the next empty point along a line (the original rules'), and
    under ``stacking`` first the stacking step onto the adjacent point holding one or two, the
    next empty point never past a stack (R-20)."""
    n = 0
    m = movable
    while m:
        low = m & -m
        m ^= low
        p = popcount(low - 1)
        for k in range(NBR[p]):
            line = BLINE[p, k]
            if (closed_lines_c(used, line_limit) >> line) & 1:
                continue
            if stacking:
                first = BRAYS[p, k, 0]
                if (bats >> first) & 1 and not (b3 >> first) & 1:
                    out[n, 0] = p
                    out[n, 1] = first
                    out[n, 2] = line
                    n += 1
            for i in range(BRLEN[p, k]):
                q = BRAYS[p, k, i]
                if not (bats >> q) & 1:
                    out[n, 0] = p
                    out[n, 1] = q
                    out[n, 2] = line
                    n += 1
                    break
                if stacking and (b2 >> q) & 1:
                    break
    return n


@_jit
def battery_chain(own, enemy, bats, b2, b3, color, flags, max_len, moves_out, bats_out):
    """turngen.battery_chains with value_after as the score: (chain length, evaluations).

    ``bats_out[k]`` is the placement (bats, b2, b3) after the first k moves, ``moves_out[k]`` the k-th move."""
    bats_out[0, 0] = bats
    bats_out[0, 1] = b2
    bats_out[0, 2] = b3
    movable = controlled_mask(own, enemy, bats, (flags & FLAG_CF) != 0)
    if not movable:
        return 0, 0
    line_limit = (flags & FLAG_NLL) == 0
    stacking = (flags & FLAG_ST) != 0
    evals = 1
    current = value_after(own, enemy, bats, b2, b3, color, flags)
    used = np.int64(0)
    opts = np.empty((128, 3), dtype=np.int64)
    length = 0
    for _ in range(max_len):
        nm = battery_moves(bats, b2, b3, movable, used, line_limit, stacking, opts)
        best_v = 0.0
        best_k = -1
        best_1 = np.int64(0)
        best_2 = np.int64(0)
        best_3 = np.int64(0)
        for k in range(nm):
            n1, n2, n3 = place_c(bats, b2, b3, opts[k, 0], opts[k, 1])
            v = value_after(own, enemy, n1, n2, n3, color, flags)
            evals += 1
            if best_k < 0 or v > best_v:
                best_v = v
                best_k = k
                best_1, best_2, best_3 = n1, n2, n3
        if best_k < 0 or best_v < current + 0.25:
            break
        current = best_v
        p = opts[best_k, 0]
        q = opts[best_k, 1]
        bats, b2, b3 = best_1, best_2, best_3
        movable = left_movable_c(movable, bats, p, q, stacking)
        used = line_used_c(used, opts[best_k, 2], line_limit)
        moves_out[length, 0] = p
        moves_out[length, 1] = q
        length += 1
        bats_out[length, 0] = bats
        bats_out[length, 1] = b2
        bats_out[length, 2] = b3
    return length, evals


# ----------------------------------------------------------------------------
# candidates (search.candidates)


@_jit
def _write_row(rows, r, S, j, bats, b2, b3, nbat, moves):
    for c in range(ROW_WIDTH):
        rows[r, c] = 0
    rows[r, ROW_OWN] = S[j, S_OWN]
    rows[r, ROW_ENEMY] = S[j, S_ENEMY]
    rows[r, ROW_BATS] = bats
    rows[r, ROW_BATS2] = b2
    rows[r, ROW_BATS3] = b3
    d = S[j, S_DEPTH]
    rows[r, ROW_NSTEPS] = d
    k = j
    i = d - 1
    while k > 0 and i >= 0:
        for c in range(6):
            rows[r, ROW_STEPS + 6 * i + c] = S[k, S_STEP + c]
        k = S[k, S_PARENT]
        i -= 1
    rows[r, ROW_NBAT] = nbat
    for m in range(nbat):
        rows[r, ROW_BAT + 2 * m] = moves[m, 0]
        rows[r, ROW_BAT + 2 * m + 1] = moves[m, 1]


@_jit
def _single(S, j, bats, b2, b3, v):
    vals = np.empty(1, dtype=np.float64)
    vals[0] = v
    rows = np.zeros((1, ROW_WIDTH), dtype=np.int64)
    _write_row(rows, 0, S, j, bats, b2, b3, 0, np.zeros((1, 2), dtype=np.int64))
    return vals, rows


@_jit
def candidates(own, enemy, bats0, b2, b3, color, flags, root, keep, chain, inner_moves, inner_states, beam, beam_moves):
    """search.candidates: (values, rows, board evaluations counted), best first."""
    sources = np.empty(36, dtype=np.int64)
    make_sources(own, enemy, bats0, flags, sources)
    S = new_store(own, enemy)
    n = 1
    S, n, w = winning_robot_phase(own, enemy, bats0, b2, b3, color, flags, 4000, S, n, sources)
    if w >= 0:
        vals, rows = _single(S, w, bats0, b2, b3, WIN)
        return vals, rows, 0
    if root:
        S, n, outs, complete = robot_outcomes(own, enemy, bats0, b2, b3, color, flags, 6, 0, S, sources)
    else:
        S, n, outs, complete = robot_outcomes(own, enemy, bats0, b2, b3, color, flags, inner_moves, inner_states, S, sources)
    m = len(outs)
    sc_idx = [np.int64(0)]
    sc_idx.clear()
    sc_val = [0.0]
    sc_val.clear()
    for k in range(m):
        j = outs[k]
        v = value_after(S[j, S_OWN], S[j, S_ENEMY], bats0, b2, b3, color, flags)
        if v >= WIN:
            vals, rows = _single(S, j, bats0, b2, b3, v)
            return vals, rows, 0
        sc_idx.append(j)
        sc_val.append(v)
    if not root and beam:
        have = {(own, enemy)}
        have.clear()
        must = (flags & FLAG_MC) != 0 and m > 0
        for k in range(m):
            j = outs[k]
            have.add((S[j, S_OWN], S[j, S_ENEMY]))
            if S[j, S_ENEMY] == enemy:
                must = False
        S, n, gidx, gval = grown_robot_phases(own, enemy, bats0, b2, b3, color, flags, beam, beam_moves, S, n, sources)
        for k in range(len(gidx)):
            j = gidx[k]
            if (S[j, S_OWN], S[j, S_ENEMY]) in have or (must and S[j, S_ENEMY] == enemy):
                continue
            if gval[k] >= WIN:
                vals, rows = _single(S, j, bats0, b2, b3, gval[k])
                return vals, rows, 0
            sc_idx.append(j)
            sc_val.append(gval[k])
    nodes = len(sc_idx)
    nsc = len(sc_idx)
    neg = np.empty(nsc, dtype=np.float64)
    for k in range(nsc):
        neg[k] = -sc_val[k]
    rank = np.argsort(neg, kind="mergesort")
    kept = min(keep, nsc)
    cap = kept * (chain + 1)
    if cap < 1:
        cap = 1
    out_vals = np.empty(cap, dtype=np.float64)
    rows = np.zeros((cap, ROW_WIDTH), dtype=np.int64)
    moves = np.zeros((MAX_CHAIN, 2), dtype=np.int64)
    bseq = np.zeros((MAX_CHAIN + 1, 3), dtype=np.int64)
    nout = 0
    for r in range(kept):
        k = rank[r]
        j = sc_idx[k]
        v = sc_val[k]
        o_own = S[j, S_OWN]
        o_enemy = S[j, S_ENEMY]
        length, evals = battery_chain(o_own, o_enemy, bats0, b2, b3, color, flags, min(chain, MAX_CHAIN), moves, bseq)
        for b in range(length + 1):
            if b == 0:
                val = v
            else:
                val = value_after(o_own, o_enemy, bseq[b, 0], bseq[b, 1], bseq[b, 2], color, flags)
                evals += 1
            out_vals[nout] = val
            _write_row(rows, nout, S, j, bseq[b, 0], bseq[b, 1], bseq[b, 2], b, moves)
            nout += 1
            if val >= WIN:
                nodes += evals
                vals1 = np.empty(1, dtype=np.float64)
                vals1[0] = val
                return vals1, rows[nout - 1:nout].copy(), nodes
        nodes += evals
    if nout == 0:
        if nsc == 0:
            return np.empty(0, dtype=np.float64), np.zeros((0, ROW_WIDTH), dtype=np.int64), nodes
        vals, rows1 = _single(S, sc_idx[rank[0]], bats0, b2, b3, sc_val[rank[0]])
        return vals, rows1, nodes
    neg = -out_vals[:nout]
    rank2 = np.argsort(neg, kind="mergesort")
    return out_vals[:nout][rank2], rows[:nout][rank2], nodes


# ----------------------------------------------------------------------------
# replaying a remembered turn on another board (turngen.replay) and valuing it


@_jit
def replay_value(own, enemy, bats, b2, b3, color, flags, row):
    """(legal, value for the mover of the board after it) of the turn in ``row`` played on this board."""
    sources = np.empty(36, dtype=np.int64)
    make_sources(own, enemy, bats, flags, sources)
    U = np.empty((U_MAX, 9), dtype=np.int64)
    sub_u = np.empty(64, dtype=np.int64)
    sub_t = np.empty(64, dtype=np.int64)
    S = new_store(own, enemy)
    cur = 0
    n = 1
    captured = False
    for i in range(row[ROW_NSTEPS]):
        src = row[ROW_STEPS + 6 * i]
        dst = row[ROW_STEPS + 6 * i + 1]
        saved = S[cur, S_MOVED]
        S[cur, S_MOVED] = saved | (S[cur, S_OWN] & ~(np.int64(1) << src))
        nu = succ_of(S, cur, sources, color, flags, bats, b2, b3, U, sub_u, sub_t)
        S[cur, S_MOVED] = saved
        hit = -1
        for u in range(nu):
            if U[u, U_DST] == dst:
                hit = u
                break
        if hit < 0:
            return False, 0.0
        U[hit, U_MOVED] = saved | (np.int64(1) << dst)
        S, cur = add_child(S, n, cur, U, hit)
        n += 1
        if U[hit, U_CAP]:
            captured = True
    if (flags & FLAG_MC) and not captured:
        S, r = capture_reachable(S, n, 0, sources, color, flags, bats, b2, b3)
        if r:
            return False, 0.0
    o2 = S[cur, S_OWN]
    e2 = S[cur, S_ENEMY]
    movable = controlled_mask(o2, e2, bats, (flags & FLAG_CF) != 0)
    used = np.int64(0)
    line_limit = (flags & FLAG_NLL) == 0
    stacking = (flags & FLAG_ST) != 0
    for m in range(row[ROW_NBAT]):
        p = row[ROW_BAT + 2 * m]
        q = row[ROW_BAT + 2 * m + 1]
        if not (movable >> p) & 1:
            return False, 0.0
        kk = -1
        for k in range(NBR[p]):
            for i in range(BRLEN[p, k]):
                if BRAYS[p, k, i] == q:
                    kk = k
                    break
            if kk >= 0:
                break
        if kk < 0:
            return False, 0.0
        line = BLINE[p, kk]
        if (closed_lines_c(used, line_limit) >> line) & 1:
            return False, 0.0
        # the profile's destination_fault: the next empty point, or a stacking step
        first = BRAYS[p, kk, 0]
        if stacking and q == first and (bats >> first) & 1:
            if (b3 >> first) & 1:
                return False, 0.0
        else:
            to = -1
            for i in range(BRLEN[p, kk]):
                x = BRAYS[p, kk, i]
                if not (bats >> x) & 1:
                    to = x
                    break
                if stacking and (b2 >> x) & 1:
                    break
            if to != q:
                return False, 0.0
        bats, b2, b3 = place_c(bats, b2, b3, p, q)
        movable = left_movable_c(movable, bats, p, q, stacking)
        used |= np.int64(1) << line
    return True, value_after(o2, e2, bats, b2, b3, color, flags)


def warm_up() -> float:
    """Compile (or load from numba's cache) every entry point; returns the seconds it took."""
    import time

    t0 = time.perf_counter()
    from ..rules.position import Position

    pos = Position.start()
    own = sum(1 << s for s in pos.robots(WHITE))
    enemy = sum(1 << s for s in pos.robots(BLACK))
    bats = sum(1 << p for p in pos.batteries)
    for root in (True, False):
        vals, rows, _ = candidates(own, enemy, bats, 0, 0, 0, 0, root, 6, 2, 1, 4000, 3, 6)
    replay_value(enemy, own, int(rows[0, ROW_BATS]), 0, 0, 1, 0, rows[0])
    value_after(own, enemy, bats, 0, 0, 0, 0)
    return time.perf_counter() - t0
