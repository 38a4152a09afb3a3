"""One look at every field of a frame: patches cut, the field classifier run, probabilities out."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, fields as dataclass_fields

import cv2
import numpy as np

from .fieldnet import (REF_EMPTY, REF_UNKNOWN, TEMPERATURE, example_fields, field_distances, net_input, normalise, scalars,
                       shared_net, softmax)
from ..geometry import point_coords, square_centers
from ..layout import BoardLayout
from .patches import PATCH, PatchCutter
from .reference import Reference

MIRROR = os.environ.get("NETZWERK_FIELD_MIRROR", "1") != "0"   # read unsure patches again as their mirror image
MIRROR_BELOW = 0.995     # a field whose first look is less sure than this is looked at again, mirrored
# A field whose patch differs from the one the nets last answered on by at most STILL (the absolute log
# colour difference summed over the channels, averaged over STILL_BLUR pixels square, anywhere in the
# patch but its rim) keeps that answer (:class:`Answers`): half the reader's limit for "looks just as
# in the reference" (reader.SAME_SQUARE), far below any change of content (0.185 at the least on
# training designs), about what camera noise leaves after the average
STILL = 0.05
STILL_BLUR = 5
EVERY_WAY = 2.0          # (above 1) checking a frame against a layout (calibration), every field is looked at every way


@dataclass(frozen=True)
class FieldLook:
    """What the classifier sees on each field of one frame."""

    squares: np.ndarray        # (36, 3) P(empty, robot, covered)
    points: np.ndarray         # (49, 3) P(empty, battery, covered)
    printed: np.ndarray        # (49,) P(printed side up | battery)
    square_patches: np.ndarray  # (36, P, P, 3) uint8
    point_patches: np.ndarray   # (49, Q, Q, 3) uint8 (Q = POINT_PATCH: 24, or finer for a --fine net)
    x_squares: np.ndarray       # (36, 3, P, P) normalised log colour of the square patches
    level: np.ndarray           # (3,) the frame's light level (mean log colour)
    x_background: np.ndarray | None = None  # (36, 3, P, P) each square's empty board: as the reference
                                            # showed it empty, else its nearest square known empty (None: no reference)
    x_points: np.ndarray | None = None      # (49, 3, P, P) normalised log colour of the point patches at the
                                            # squares' P (PatchCutter.coarse_points: the reader's "as before" tests)
    x_ref_squares: np.ndarray | None = None  # (36, 3, P, P) the reference's own square patches, normalised
    x_ref_points: np.ndarray | None = None   # (49, 3, P, P) its point patches, as x_points (None: no reference of its own)
    coarse_point_patches: np.ndarray | None = None   # (49, P, P, 3) uint8, the patches of x_points
    x_points_net: np.ndarray | None = None  # (49, 3, Q, Q) the point patches normalised as the nets take them


@dataclass(frozen=True)
class PixelLook:
    """A frame's patches and their normalised log colour, before any net has looked (the fields of
    :class:`FieldLook` of the same names): what the reader's pixel checks take, while the nets run
    (:func:`look_with`)."""

    square_patches: np.ndarray
    point_patches: np.ndarray
    x_squares: np.ndarray
    level: np.ndarray
    x_background: np.ndarray | None
    x_points: np.ndarray | None
    x_ref_squares: np.ndarray | None
    x_ref_points: np.ndarray | None
    coarse_point_patches: np.ndarray | None
    x_points_net: np.ndarray | None


# The reader's pixel checks of a frame run beside the nets (numpy and OpenCV let other threads run
# while they compute; the nets' runs leave a core partly idle): about 1.5 ms of a 16 ms read on two cores.
# The same answers either way; NETZWERK_FIELD_BESIDE=0 runs them one after the other (for measuring)
BESIDE = os.environ.get("NETZWERK_FIELD_BESIDE", "1") != "0"


class Beside:
    """``fn(*args)`` run in a thread of its own (or at once without :data:`BESIDE`); :meth:`result`
    waits for it and gives its value, or raises what it raised. ``fn`` must not use what the caller
    uses meanwhile (a net is run by one thread at a time)."""

    def __init__(self, fn, *args) -> None:
        self._fn, self._args, self._value, self._error = fn, args, None, None
        self._thread = None
        if BESIDE:
            self._thread = threading.Thread(target=self._run, name="netzwerk-pixels", daemon=True)
            self._thread.start()
        else:
            self._run()

    def _run(self) -> None:
        try:
            self._value = self._fn(*self._args)
        except BaseException as exc:      # handed to the caller by result()
            self._error = exc

    def wait(self) -> None:
        if self._thread is not None:
            self._thread.join()

    def result(self):
        self.wait()
        if self._error is not None:
            raise self._error
        return self._value


def _looked_again(views, x: np.ndarray, below: float = MIRROR_BELOW, todo: np.ndarray | None = None) -> np.ndarray:
    """The nets' log-odds on the patches ``x`` of the fields ``todo`` (None: every field; the result
    has a row per field looked at). ``views`` are the ways the net may be shown a field's
    known board (the examples it is given: the nearest known empty and occupied fields, or the
    second nearest); ``view(x, rows, mirrored)`` runs the net on patches ``x`` of the fields
    ``rows`` (None: all). Every field is looked at once, the first way. Where a field's first look
    is unsure (its likeliest state below :data:`MIRROR_BELOW`), its log-odds are averaged over every
    way and over the patch and its mirror image (left and right swapped, the lean's axis kept): a
    field looks the same either way round and beside either pair of examples, and the average is
    steadier than any one look. The sure fields (most of them) are looked at once: a fraction of the
    time of looking at every field every way, and as many frames read right (measured on
    development designs: about 7% of the fields looked at again). ``below`` above 1: every field is
    looked at every way (calibration, where time does not count and a sure first look can be wrong)."""
    xt = x if todo is None else np.ascontiguousarray(x[todo])
    if MIRROR and below > 1 and hasattr(views[0], "inputs"):
        # every field every way: the first look and the others in one run of the net
        xm = np.ascontiguousarray(xt[..., ::-1])
        looks = _batched([(view, x_, m) for view in views for x_, m in ((xt, False), (xm, True))],
                         np.arange(len(xt)) if todo is None else todo)
        return sum(looks) / len(looks)
    z = views[0](xt, todo, False)
    if not MIRROR:
        return z
    p = softmax(z[:, :3])
    rows = np.flatnonzero(p.max(axis=1) < below)       # of the fields looked at
    if len(rows):
        fields = rows if todo is None else todo[rows]
        xr = np.ascontiguousarray(xt[rows])
        xm = np.ascontiguousarray(xr[..., ::-1])
        again = [(views[0], xm, True)] + [(view, x_, m) for view in views[1:] for x_, m in ((xr, False), (xm, True))]
        looks = [z[rows]] + _batched(again, fields)
        z[rows] = sum(looks) / len(looks)
    return z


def _batched(looks: list, fields: np.ndarray) -> list[np.ndarray]:
    """The log-odds of each (view, patches, mirrored) in ``looks`` for the fields ``fields``: in one
    run of the net where every view can hand over its input (:meth:`_Known.view`'s ``inputs``; a
    net run costs a fixed part besides its patches), else one run each."""
    if len(looks) > 1 and all(hasattr(v, "inputs") for v, _, _ in looks):
        parts = [v.inputs(x, fields, m) for v, x, m in looks]
        run = looks[0][0].run_net
        z = run(np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
                np.concatenate([p[2] for p in parts]))
        return np.split(z, len(looks))
    return [v(x, fields, m) for v, x, m in looks]


@dataclass
class Answers:
    """The nets' last answers for one reader: per field the log-odds and the patch (normalised)
    they were given on, for one reference and one place of the board. A field whose patch now
    differs from that one by no more than camera noise (:data:`STILL`) keeps its answer: the nets
    would answer the same, and a still board (most frames of a game, the press's frame too) costs
    no net at all. Started anew with a new reference or a new homography."""

    key: tuple = ()
    x_squares: np.ndarray | None = None
    x_points: np.ndarray | None = None
    z_squares: np.ndarray | None = None
    z_points: np.ndarray | None = None


def box_blurred(x: np.ndarray, blur: int) -> np.ndarray:
    """(..., P, P) float32: each patch of the stack ``x`` averaged over ``blur`` pixels square, all at once
    (the patches stacked: near a patch's edge the average reaches into the next one, so what is used
    of it must lie ``blur // 2`` pixels off the edge)."""
    size = x.shape[-1]
    flat = np.ascontiguousarray(x, np.float32).reshape(-1, size)
    return cv2.blur(flat, (blur, blur)).reshape(x.shape)


def local_differences(x_now: np.ndarray, x_ref: np.ndarray, where: np.ndarray, blur: int,
                      shift: np.ndarray | None = None) -> np.ndarray:
    """(n, k): the local differences between two looks of each field ((n, 3, P, P) normalised log
    colour) at the k pixels of ``where`` ((P, P) bool; kept ``blur // 2`` pixels off the patch's edge,
    so the average never reaches into the next patch of the stack): the absolute difference summed
    over the channels, averaged over ``blur`` pixels square; ``shift`` (3,), a change of every look's
    colour to take off first (:func:`colour_shift`)."""
    d = x_now - x_ref
    if shift is not None:
        d = d - np.asarray(shift, np.float32)[None, :, None, None]
    return box_blurred(np.abs(d).sum(axis=1, dtype=np.float32), blur)[:, where]


def colour_shift(x_now: np.ndarray, x_ref: np.ndarray, where: np.ndarray) -> np.ndarray:
    """(3,): how every field's look changed in colour, as the median over the fields' pixels in
    ``where`` of the difference of each channel (the frame's light, or its mean colour that the
    normalisation takes off, moved since the reference; a few fields' changes of content do not
    move a median)."""
    d = (x_now - x_ref)[:, :, where].transpose(1, 0, 2).reshape(3, -1)     # (3, n k)
    half = d.shape[1] // 2                     # np.partition: a third of np.median's time
    return np.partition(d, half, axis=1)[:, half].astype(np.float32)


def largest_difference(x_now: np.ndarray, x_ref: np.ndarray, where: np.ndarray, blur: int) -> np.ndarray:
    """(n,): the largest local difference between two looks of each field (:func:`local_differences`)
    in ``where``."""
    return local_differences(x_now, x_ref, where, blur).max(axis=1)


_INSIDE = np.zeros((PATCH, PATCH), bool)      # a patch but its rim (STILL_BLUR // 2 pixels)
_INSIDE[STILL_BLUR // 2:PATCH - STILL_BLUR // 2, STILL_BLUR // 2:PATCH - STILL_BLUR // 2] = True


def still(x_now: np.ndarray, x_then: np.ndarray) -> np.ndarray:
    """(n,) bool: the patches that differ from ``x_then`` by at most :data:`STILL` everywhere (for
    the finer point patches: by at most STILL averaged over 2x2 of their pixels, the squares' pixel)."""
    return largest_difference(_pooled(x_now), _pooled(x_then), _INSIDE, STILL_BLUR) <= STILL


def _pooled(x: np.ndarray) -> np.ndarray:
    """(n, c, kP, kP) -> (n, c, P, P): the mean of each k x k block of pixels (P = the squares'
    PATCH; a patch of P pixels is returned as it is). Sums of strided views: numpy's mean over a
    6-d reshape takes several times as long."""
    k = x.shape[-1] // PATCH
    if k <= 1:
        return x
    out = np.zeros(x.shape[:-2] + (PATCH, PATCH), np.float32)
    for i in range(k):
        for j in range(k):
            out += x[..., i::k, j::k]
    out *= 1.0 / (k * k)
    return out


def _answered(views, x: np.ndarray, below: float, then: np.ndarray | None, z_then: np.ndarray | None
              ) -> tuple[np.ndarray, np.ndarray]:
    """The log-odds on ``x`` (:func:`_looked_again`), the fields still as ``then`` keeping ``z_then``;
    and the patches the answers were given on."""
    if then is None or z_then is None:
        return _looked_again(views, x, below), x
    keep = still(x, then)
    todo = np.flatnonzero(~keep)
    z, seen = z_then.copy(), then.copy()
    if len(todo):
        z[todo] = _looked_again(views, x, below, todo)
        seen[todo] = x[todo]
    return z, seen


def _known_c1(net, kind: str, known: np.ndarray) -> np.ndarray:
    """The known channels' share of the first convolution for the patches and (when mirroring) for
    their mirror images: (2, n, ...) as :meth:`_Known.view` takes it."""
    if not MIRROR:
        return net.known_part(kind, known)[None]
    c1 = net.known_part(kind, np.concatenate([known, known[..., ::-1]]))
    return c1.reshape((2, len(known)) + c1.shape[1:])


@dataclass(frozen=True)
class _Known:
    """One way of showing each field of one kind its known board: (n, 9, P, P) its own reference
    patch (zeros where it has none) and its two examples, the reference states it is told, the
    examples' field indices ((n, 2), -1 for none) and their share of the first convolution
    (:func:`_known_c1`)."""

    patches: np.ndarray
    told: np.ndarray
    examples: np.ndarray
    c1: np.ndarray

    def view(self, net, kind: str, lean: np.ndarray):
        """The net ``kind`` shown the known board this way, as :func:`_looked_again` runs it (its
        ``inputs`` and ``run_net`` let several such looks share one run of the net)."""
        s = scalars(self.told, lean, self.examples)

        def inputs(x: np.ndarray, rows: np.ndarray | None, mirrored: bool):
            part = self.c1[1 if mirrored else 0]
            return x, part if rows is None else part[rows], s if rows is None else s[rows]

        def run_net(x: np.ndarray, part: np.ndarray, s_: np.ndarray) -> np.ndarray:
            return net.with_known(kind, x, part, s_)

        def run(x: np.ndarray, rows: np.ndarray | None, mirrored: bool) -> np.ndarray:
            return run_net(*inputs(x, rows, mirrored))
        run.inputs, run.run_net = inputs, run_net
        return run


def _whole(net_run, s: np.ndarray):
    """The whole net (no reference) as :func:`_looked_again` runs it."""
    return lambda x, rows, mirrored: net_run(x, s if rows is None else s[rows])


_SQUARE_DIST = field_distances(square_centers())
_POINT_DIST = field_distances(point_coords())

# A board whose squares alternate in look (a chessboard's two colours, a print of two kinds): learned
# from a known board's empty squares, never assumed. The nets are shown each square's nearest square
# known empty as its example, and on such a board that square always has the other look; there a
# square of the same parity (file + rank) is made PARITY_NEARER board units nearer, so that the
# diagonal neighbour is shown instead. A board alternates where its orthogonal neighbours among the
# empty squares differ by ALTERNATE_RATIO times as much as its diagonal ones, and by ALTERNATE_MIN
# (medians over ALTERNATE_PAIRS pairs of each at least; the middle of each square, log colour summed
# over the channels). Measured before it was written (a study script, not kept; the start frames of
# block 13,300,000, camera 0): the 7 checkered designs differed 5.7-31.9 times as much (0.61-1.77),
# the 33 plain ones 0.0-2.1 times (at most 0.36). The rule for every board (measured first, not kept)
# cost 14 game frames of 474 on a plain block: the parity is taken only where the board shows it.
# Fresh block 14,200,000: 251 / 383 -> 258 / 386 of 480 frames read right, the same misreads; but on
# fresh block 14,400,000 it brought 2 confident misreads (design 14,400,015 camera 0: pale stones on a
# pale checkered board read empty at 0.983-1.000, shown a square of their own colour). **Off by
# default** until that is understood: NETZWERK_PARITY=1 turns it on (for measuring);
# docs/readme-vision.md ("3 December, later"). With stage 14's nets (6 December, fifth session) 11 of the
# 333 first single frames of the checkered designs among 13,300,000-599 (3 cameras) are held back by
# squares without it and read right with it (its first case, design 13,300,031 camera 0, is read without)
PARITY = os.environ.get("NETZWERK_PARITY", "0") == "1"
PARITY_NEARER = 0.5
ALTERNATE_RATIO = 3.0
ALTERNATE_MIN = 0.3
ALTERNATE_PAIRS = 6
_SQUARE_PARITY = np.floor(square_centers() + 1e-9).astype(int).sum(axis=1) % 2
_SQUARE_DIST_PARITY = _SQUARE_DIST + PARITY_NEARER * (_SQUARE_PARITY[:, None] != _SQUARE_PARITY[None, :])
_ORTHOGONAL = np.isclose(_SQUARE_DIST, 1.0)
_DIAGONAL = np.isclose(_SQUARE_DIST, np.sqrt(2.0))


def board_alternates(patches: np.ndarray, states: np.ndarray) -> bool:
    """Whether the squares known empty (``states`` (36,) REF_EMPTY) of a board's square patches
    ``patches`` ((36, P, P, 3) uint8) alternate in look as a chessboard's do (see :data:`PARITY`)."""
    empty = np.asarray(states) == REF_EMPTY
    both = empty[:, None] & empty[None, :]
    if min(int((both & _ORTHOGONAL).sum()), int((both & _DIAGONAL).sum())) < 2 * ALTERNATE_PAIRS:
        return False                        # each pair is counted twice
    p = patches.shape[1]
    a, b = p // 4 + 1, p - p // 4 - 1       # the square itself (a patch spans two squares)
    middle = np.median(np.log(patches[:, a:b, a:b].astype(np.float32) + 8.0).reshape(len(patches), -1, 3), axis=1)
    diff = np.abs(middle[:, None, :] - middle[None, :, :]).sum(axis=2)
    across, along = float(np.median(diff[both & _ORTHOGONAL])), float(np.median(diff[both & _DIAGONAL]))
    return across >= ALTERNATE_MIN and across >= ALTERNATE_RATIO * along


_DIST_CACHE: list = []   # [(reference, distances)]: the last few references' square distances
_SQUARE_DIST_SAME_PARITY = _SQUARE_DIST + 1000.0 * (_SQUARE_PARITY[:, None] != _SQUARE_PARITY[None, :])
_BACKGROUND_CACHE: list = []   # [(reference, (squares, their backgrounds) or None)]


def _per_reference(cache: list, reference: Reference, make, keep: int):
    """``make(reference)``, kept in ``cache`` ([(reference, value)], newest first) for the last
    ``keep`` references (by identity: a reader reads many frames against one)."""
    for ref, value in cache:
        if ref is reference:
            return value
    value = make(reference)
    cache.insert(0, (reference, value))
    del cache[keep:]
    return value


def reference_alternates(reference: Reference) -> bool:
    """Whether ``reference``'s board alternates in look (:func:`board_alternates`), as decided on the
    first reference of its calibration and kept by the references updated from it
    (:attr:`Reference.alternates`; decided here, once, where not yet)."""
    if reference.alternates is None:
        object.__setattr__(reference, "alternates", board_alternates(reference.squares, reference.square_state))
    return bool(reference.alternates)


def _same_parity_backgrounds(reference: Reference) -> tuple[np.ndarray, np.ndarray] | None:
    """Where ``reference``'s board alternates (:func:`reference_alternates`): the squares that have a
    square of their own parity known empty, and that square's patch normalised (as the nets' examples
    are); None elsewhere."""
    if not reference_alternates(reference):
        return None
    rows = np.arange(36)
    idx = example_fields(np.broadcast_to(reference.square_state, (36, 36)), rows, _SQUARE_DIST_SAME_PARITY)[:, 0]
    same = (idx >= 0) & (_SQUARE_PARITY[np.maximum(idx, 0)] == _SQUARE_PARITY)
    rows, idx = rows[same], idx[same]
    return rows, normalise(reference.squares[idx], reference.square_level[idx])[0]


def _same_look_backgrounds(reference: Reference, told: np.ndarray, background: np.ndarray) -> np.ndarray:
    """``background`` ((36, 3, P, P): each square's empty board, its own reference patch where the
    reference is told it is empty, else its empty example) with, on a board whose squares alternate
    in look (:func:`reference_alternates`), every square's example replaced by its nearest square of
    the same parity known empty: the board as it looks under a robot there. What the robot colours
    are told from (a robot set down off centre is found where its patch differs most from the empty
    board, :mod:`vision.anyset.colours`): against a square of the other look, the difference is the
    board's own, and the two robot colours of checkered design 17,400,032 (lilac and pale pink stones)
    were 0.2-0.8 apart, too close to tell, where the squares of their own look set them 2.5 apart. The
    nets' examples are not changed by it (:data:`PARITY`)."""
    kept = _per_reference(_BACKGROUND_CACHE, reference, _same_parity_backgrounds, 4)
    if kept is None:
        return background
    rows, x = kept
    use = np.asarray(told)[rows] != REF_EMPTY
    out = background.copy()
    out[rows[use]] = x[use]
    return out


def square_distances(reference: Reference | None) -> np.ndarray:
    """(36, 36): the distances by which the squares' examples are chosen for a known board: the
    board's own, a square of the same parity nearer where ``reference``'s empty squares alternate
    (:data:`PARITY`)."""
    if reference is None or not PARITY:
        return _SQUARE_DIST
    return _per_reference(_DIST_CACHE, reference, lambda ref: _SQUARE_DIST_PARITY
                          if board_alternates(ref.squares, ref.square_state) else _SQUARE_DIST, 8)


def _examples(patches: np.ndarray, levels: np.ndarray, states: np.ndarray, dist: np.ndarray, rank: int,
              rows: np.ndarray | None = None):
    """Per field (of ``rows``; None: every field): the empty and the occupied example (patches,
    levels, valid) from a known board (``rank`` 0: the nearest ones, 1: the second nearest where
    there is one)."""
    n = len(states)
    fields = np.arange(n) if rows is None else np.asarray(rows)
    idx = example_fields(np.broadcast_to(states, (len(fields), n)), fields, dist, rank)
    out = []
    for col in (0, 1):
        k = np.maximum(idx[:, col], 0)
        out.append((patches[k], levels[k], idx[:, col] >= 0))
    return idx, out


def _known_parts(net, kind: str, patches: np.ndarray, levels: np.ndarray, states: np.ndarray, dist: np.ndarray,
                 own: bool, rank: int, rows: np.ndarray | None = None) -> _Known:
    """What the net sees of a known board for each field (of ``rows``; None: every field), with the
    examples of ``rank``."""
    fields = np.arange(len(states)) if rows is None else np.asarray(rows)
    m = len(fields)
    idx, (empty, occupied) = _examples(patches, levels, states, dist, rank, rows)
    x, _ = net_input(patches[fields], patches[fields], np.zeros(3, np.float32), levels[fields],
                     ref_valid=np.full(m, own), empty_example=empty, occupied_example=occupied)
    known = np.ascontiguousarray(x[:, 3:])
    return _Known(known, np.asarray(states)[fields] if own else np.full(m, REF_UNKNOWN), idx,
                  _known_c1(net, kind, known))


_CACHE: list = []        # [(reference, own, parts)]: the last few references' parts (a reader reads many frames against one)
#: the examples' ranks a field is shown (the first for every field, the others where it is unsure; training
#: shows the nearest and the second nearest alike). NETZWERK_FIELD_SECOND=0: the nearest only
RANKS = (0, 1) if os.environ.get("NETZWERK_FIELD_SECOND", "1") != "0" else (0,)


def _parts_of(reference: Reference, own: bool) -> tuple[list[_Known], list[_Known]]:
    """The ways of showing the squares and the points their known board (one per rank in
    :data:`RANKS`), computed once per reference."""
    for ref, o, parts in _CACHE:
        if ref is reference and o == own:
            return parts
    net = shared_net()
    parts = ([_known_parts(net, "squares", reference.squares, reference.square_level, reference.square_state,
                           square_distances(reference), own, r) for r in RANKS],
             [_known_parts(net, "points", reference.points, reference.point_level, reference.point_state,
                           _POINT_DIST, own, r) for r in RANKS])
    _CACHE.insert(0, (reference, own, parts))
    del _CACHE[4:]
    return parts


def _run(cutter: PatchCutter, sq: np.ndarray, pt: np.ndarray, pc: np.ndarray, reference: Reference | None, own: bool,
         temperature: float, level: np.ndarray | None = None, below: float = MIRROR_BELOW,
         answers: Answers | None = None, meanwhile=None) -> FieldLook | tuple[FieldLook, object]:
    """The nets' look at every field (:class:`FieldLook`); with ``meanwhile`` (a function of the
    frame's :class:`PixelLook`), that function's value too, computed while the nets run."""
    net = shared_net()
    background = ref_s = ref_p = None
    if reference is None:
        xs, level = net_input(sq, None, level)
        xp, _ = net_input(pt, None, level)
        views_s = [_whole(net.squares, scalars(np.full(36, REF_UNKNOWN), cutter.square_lean))]
        views_p = [_whole(net.points, scalars(np.full(49, REF_UNKNOWN), cutter.point_lean))]
    else:
        # the reference's share of the nets' first layer is computed once per reference
        known_s, known_p = _parts_of(reference, own)
        xs, level = normalise(sq, level)
        xp, _ = normalise(pt, level)
        ks, kp = known_s[0].patches, known_p[0].patches
        background = np.where((known_s[0].told == REF_EMPTY)[:, None, None, None], ks[:, 0:3], ks[:, 3:6])
        background = _same_look_backgrounds(reference, known_s[0].told, background)
        if own:
            ref_s = ks[:, 0:3]
            # the reference's own point patches, normalised once per reference in its known parts;
            # only a points net on finer patches needs the coarse ones normalised here
            ref_p = kp[:, 0:3] if kp.shape[-1] == PATCH else normalise(reference.coarse_points, reference.point_level)[0]
        views_s = [k.view(net, "squares", cutter.square_lean) for k in known_s]
        views_p = [k.view(net, "points", cutter.point_lean) for k in known_p]
    pixels = PixelLook(sq, pt, xs[:, :3], level, background, xp[:, :3] if pc is pt else normalise(pc, level)[0],
                       ref_s, ref_p, pc, xp[:, :3])
    beside = Beside(meanwhile, pixels) if meanwhile is not None else None
    try:
        if answers is None or reference is None:
            zs = _looked_again(views_s, xs, below)
            zp = _looked_again(views_p, xp, below)
        else:
            key = (reference, cutter, own, below)
            k = answers.key
            if not k or k[0] is not reference or k[1] is not cutter or k[2:] != (own, below):
                answers.key, answers.x_squares, answers.x_points, answers.z_squares, answers.z_points = (key, None, None,
                                                                                                         None, None)
            zs, answers.x_squares = _answered(views_s, xs, below, answers.x_squares, answers.z_squares)
            zp, answers.x_points = _answered(views_p, xp, below, answers.x_points, answers.z_points)
            answers.z_squares, answers.z_points = zs, zp
    except BaseException:
        if beside is not None:
            beside.wait()          # never left running behind an error of the nets
        raise
    value = beside.result() if beside is not None else None
    zs, zp = zs / temperature, zp / temperature
    fl = FieldLook(softmax(zs[:, :3]), softmax(zp[:, :3]), 1.0 / (1.0 + np.exp(-zp[:, 3])),
                   **{f.name: getattr(pixels, f.name) for f in dataclass_fields(PixelLook)})
    return fl if meanwhile is None else (fl, value)


# An unsure field is looked at once more with the frame's *own* sure fields as its examples (see
# :func:`own_frame_look`); NETZWERK_FIELD_OWN_FRAME=0 leaves that out (for measuring). Only the nearest
# examples, plain and mirrored: the second nearest as well (four looks instead of two) read 3 more single
# frames of 702 on development and training designs at twice the time
OWN_FRAME = os.environ.get("NETZWERK_FIELD_OWN_FRAME", "1") != "0"
OWN_FRAME_RANKS = (0,)


def _own_frame_kind(net, kind: str, patches: np.ndarray, x_now: np.ndarray, level: np.ndarray, states: np.ndarray,
                    dist: np.ndarray, lean: np.ndarray, todo: np.ndarray, temperature: float) -> np.ndarray:
    """(k, 2): the log-odds (occupied against empty, the field seen) and P(covered) of the fields
    ``todo`` of one kind, each shown the nearest fields of this frame whose ``states`` are known as
    its examples."""
    levels = np.repeat(np.asarray(level, np.float32).reshape(1, 3), len(states), axis=0)
    views = [_known_parts(net, kind, patches, levels, states, dist, False, rank, todo).view(net, kind, lean[todo])
             for rank in OWN_FRAME_RANKS]
    z = _looked_again(views, np.ascontiguousarray(x_now[todo]), EVERY_WAY) / temperature
    p = softmax(z[:, :3])
    return np.stack([np.log(np.maximum(p[:, 1], 1e-300)) - np.log(np.maximum(p[:, 0], 1e-300)), p[:, 2]], axis=1)


def own_frame_look(cutter: PatchCutter, fl: FieldLook, square_states: np.ndarray, point_states: np.ndarray,
                   todo_squares: np.ndarray, todo_points: np.ndarray, temperature: float = TEMPERATURE,
                   square_dist: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A second opinion on the fields a frame left unsure: each is looked at as calibration looks
    at a frame (:func:`look_as`), its examples the nearest fields of **this frame** whose content
    ``square_states`` / ``point_states`` give (REF_EMPTY / REF_OCCUPIED: the fields the reader is
    sure of; REF_UNKNOWN: the unsure and covered ones, never an example), its own reference left
    out: the same light, the same moment, often the next field. The nets were trained on such
    looks (a share of their samples, calibration's). Returns for ``todo_squares`` and
    ``todo_points`` ((k, 2) each) the log-odds occupied against empty (the field seen) and the
    probability the field is covered, each patch plain and mirrored beside the nearest examples
    (:data:`OWN_FRAME_RANKS`). ``square_dist``: the squares' distances of this set
    (:func:`square_distances`; None: the board's own)."""
    net = shared_net()
    zs = zp = np.empty((0, 2))
    if len(todo_squares):
        zs = _own_frame_kind(net, "squares", fl.square_patches, fl.x_squares, fl.level, np.asarray(square_states),
                             _SQUARE_DIST if square_dist is None else square_dist, cutter.square_lean,
                             np.asarray(todo_squares), temperature)
    if len(todo_points) and fl.x_points is not None:
        xp = fl.x_points_net if fl.x_points_net is not None else normalise(fl.point_patches, fl.level)[0]
        zp = _own_frame_kind(net, "points", fl.point_patches, xp, fl.level, np.asarray(point_states),
                             _POINT_DIST, cutter.point_lean, np.asarray(todo_points), temperature)
    return zs, zp


# The points the reader still leaves unsure are looked at once more at twice the resolution (48-px
# patches: a battery a sixth of a square across is then 10 px wide, 5 px in the 24-px patch) by a net
# of their own (fieldnet "fine"), as the own-frame look does: the frame's own sure points as
# examples (at 48 px too), no reference patch. NETZWERK_FIELD_FINE=0 leaves it out (for measuring)
FINE = os.environ.get("NETZWERK_FIELD_FINE", "1") != "0"


def fine_look(cutter: PatchCutter, image: np.ndarray, fl: FieldLook, point_states: np.ndarray, todo: np.ndarray,
              temperature: float = TEMPERATURE) -> np.ndarray:
    """(k, 2): the fine second look's log-odds (a battery against empty, the point seen) and
    P(covered) of the points ``todo`` of ``image``, each shown the nearest points of this frame
    whose content ``point_states`` gives (REF_EMPTY / REF_OCCUPIED; REF_UNKNOWN: never an example)
    at 48 px, its patch plain and mirrored (:func:`own_frame_look`'s way, with the fine net)."""
    todo = np.asarray(todo, np.int64)
    if not len(todo):
        return np.empty((0, 2))
    # only the points asked about and their examples are cut and read
    states = np.asarray(point_states)
    needed = [todo] + [example_fields(np.broadcast_to(states, (len(todo), len(states))), todo, _POINT_DIST, r).ravel()
                       for r in OWN_FRAME_RANKS]
    rows = np.unique(np.concatenate(needed))
    patches = cutter.fine_points(image, rows[rows >= 0])
    x = np.zeros((len(patches), 3) + patches.shape[1:3], np.float32)
    x[todo] = normalise(patches[todo], fl.level)[0]
    return _own_frame_kind(shared_net(), "fine", patches, x, fl.level, np.asarray(point_states), _POINT_DIST,
                           cutter.point_lean, todo, temperature)


def look(cutter: PatchCutter, image: np.ndarray, reference: Reference | None,
         temperature: float = TEMPERATURE, answers: Answers | None = None) -> FieldLook:
    """Run the classifier on every field of ``image``, against ``reference`` (None: no reference).
    ``temperature``: the log-odds are divided by it (see :data:`vision.fieldnet.TEMPERATURE`).
    ``answers``: the reader's last answers (:class:`Answers`), kept where a field is still and
    brought up to date."""
    sq, pt, pc = cutter.cut_with_coarse(image)
    return _run(cutter, sq, pt, pc, reference, True, temperature, answers=answers)


def look_with(cutter: PatchCutter, image: np.ndarray, reference: Reference | None, meanwhile,
              temperature: float = TEMPERATURE, answers: Answers | None = None) -> tuple[FieldLook, object]:
    """:func:`look`, and ``meanwhile(pixels)`` (a function of the frame's :class:`PixelLook`: checks of
    its pixels that need no net) computed while the nets run; returns both. ``meanwhile`` runs in a
    thread of its own: it must not touch what the nets use."""
    sq, pt, pc = cutter.cut_with_coarse(image)
    return _run(cutter, sq, pt, pc, reference, True, temperature, answers=answers, meanwhile=meanwhile)


def look_as(cutter: PatchCutter, image: np.ndarray, layout: BoardLayout,
            temperature: float = TEMPERATURE) -> tuple[FieldLook, Reference]:
    """Check a frame against a layout it is said to show: every field is classified with the
    frame's *other* fields as its examples (the nearest one the layout calls empty, the nearest it
    calls occupied), its own patch taking no part in the examples. Where the layout is wrong, or a
    hand covers a field, the field looks unlike what the layout says. Returns the look and the
    frame as a reference showing ``layout``."""
    sq, pt, pc = cutter.cut_with_coarse(image)
    _, level = normalise(sq)
    reference = Reference.from_frame(sq, pt, pc, level, layout)
    return _run(cutter, sq, pt, pc, reference, False, temperature, level, EVERY_WAY), reference
