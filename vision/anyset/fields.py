"""One look at every field of a frame: patches cut, the field classifier run, probabilities out."""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from .fieldnet import REF_UNKNOWN, TEMPERATURE, net_input, scalars, shared_net, softmax
from .patches import PatchCutter
from .reference import Reference

MIRROR = os.environ.get("NETZWERK_FIELD_MIRROR", "1") != "0"   # read each patch and its mirror image


@dataclass(frozen=True)
class FieldLook:
    """What the classifier sees on each field of one frame."""

    squares: np.ndarray        # (36, 3) P(empty, robot, covered)
    points: np.ndarray         # (49, 3) P(empty, battery, covered)
    printed: np.ndarray        # (49,) P(printed side up | battery)
    square_patches: np.ndarray  # (36, P, P, 3) uint8
    point_patches: np.ndarray   # (49, P, P, 3) uint8
    x_squares: np.ndarray       # (36, 3, P, P) normalised log colour of the square patches
    level: np.ndarray           # (3,) the frame's light level (mean log colour)


def _both_ways(run, x: np.ndarray, s: np.ndarray) -> np.ndarray:
    """The nets' log-odds on the patches and on their mirror images (left and right swapped, the
    lean's axis kept), averaged: a field looks the same either way round, and the average
    is steadier than either look alone."""
    if not MIRROR:
        return run(x, s)
    z = run(np.ascontiguousarray(np.concatenate([x, x[..., ::-1]])), np.concatenate([s, s]))
    return (z[: len(x)] + z[len(x):]) / 2


def look(cutter: PatchCutter, image: np.ndarray, reference: Reference | None,
         temperature: float = TEMPERATURE) -> FieldLook:
    """Run the classifier on every field of ``image``, against ``reference`` (None: no reference).
    ``temperature``: the log-odds are divided by it (see :data:`vision.fieldnet.TEMPERATURE`)."""
    sq, pt = cutter.cut(image)
    net = shared_net()
    if reference is None:
        xs, level = net_input(sq, None)
        xp, _ = net_input(pt, None, level)
        ss = scalars(np.full(36, REF_UNKNOWN), cutter.square_lean)
        ps = scalars(np.full(49, REF_UNKNOWN), cutter.point_lean)
    else:
        xs, level = net_input(sq, reference.squares, None, reference.square_level)
        xp, _ = net_input(pt, reference.points, level, reference.point_level)
        ss = scalars(reference.square_state, cutter.square_lean)
        ps = scalars(reference.point_state, cutter.point_lean)
    zs = _both_ways(net.squares, xs, ss) / temperature
    zp = _both_ways(net.points, xp, ps) / temperature
    return FieldLook(softmax(zs[:, :3]), softmax(zp[:, :3]), 1.0 / (1.0 + np.exp(-zp[:, 3])),
                     sq, pt, xs[:, :3], level)
