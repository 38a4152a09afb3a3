"""How tall this set's robots stand, measured on the calibration frame (geometry and the set's learned
colours only: no look).

A robot hides what lies behind it only within its *camera shadow*: on the board plane, the region
between its foot and where the camera sees its top. Beyond its own footprint that region reaches, in the
direction things lean away from the camera there, no further than the robot's top is displaced: a flat
piece (a draughts checker, a go stone) hides almost nothing, a tall pawn a good deal. The reader's rule
for points a robot may hide (``reader.HIDE_HEIGHT``) assumed the tallest robot a set may have (0.6 of a
square); measured here instead, per set, from the robots the calibration frame shows.

Each robot's silhouette is cut out of the frame at fine resolution in its square's own frame (across,
and along the lean: *up*), its pixels those of the robot's learned colour (within ``reader.FAR_COLOUR`` of it, after a
3x3 blur, as the reader's robot pixels are, and nearer it than the board's own colour where the two are
told apart), connected to the square's middle. How far it reaches up beyond the robot's footprint is
taken two ways, each blind to a different error, and the larger kept (an overestimate only keeps more
points doubtful):

* its length along the lean less its width across (a round footprint is as long as it is wide,
  wherever on its square the robot was set down; a footprint that is not round, a square one turned,
  or a shadow of the robot's colour beside it, makes this smaller);
* how much further its far end lies beyond the square's centre than its near end lies short of it (a
  footprint of any shape set down on its square's centre reaches as far both ways; a robot set down
  towards the camera makes this smaller, one set down away from it larger, and a robot's side of
  another colour than its top, so that only the top is seen as the robot, leaves it whole).

A silhouette wider than any robot (``WIDEST``: it ran into something of the robot's colour) or running
off the cut gives no measure.

For an upright robot of any shape widest at its foot (cylinder, prism, cone, pawn, disc, dome) that
reach is exactly the depth of its camera shadow beyond its footprint; a battery, which cannot stand on
the robot's footprint, is half hidden only where that depth exceeds its radius. The set's height is the
height a cylinder would need to reach so far (``REACH_MARGIN`` added), the largest over the robots
where the lean is (nearly) the board's largest, and it is only given where there is one: the reach
grows with the lean for every such shape, so the robots of the largest lean bound them all (a cone's
reach, ``height x lean - radius``, grows faster with the lean than a cylinder's of the height
measured, hence the margin and the largest lean), while a robot where things hardly lean tells
nothing of its height. Where too few robots can be measured (one colour too
close to the board's, robots touching) there is no measure and the reader assumes the tallest.
"""

from __future__ import annotations

import cv2
import numpy as np

from ..geometry import square_centers
from ..layout import BoardLayout, SquareState
from .colours import MIN_SEPARATION, ColourModel
from .fieldnet import normalise
from .patches import CameraPose, lean_vectors

#: the fine cut around each robot, in squares: across (either side), towards the camera, away from it
ACROSS = 0.5
BACK = 0.8
UP = 1.6
STEP = 0.02
#: the robot's own pixels are those connected to its square's middle (this radius, in squares)
MIDDLE = 0.15
#: added to each robot's reach before its height is worked out (squares): the silhouette's edge as the
#: blur and the colour test place it, a robot set down a little off its square's centre
REACH_MARGIN = 0.05
#: at least this many robots measured, one of them where the lean is at least LEAN_SHARE of the board's
#: largest (a square of the board's), else no measure
MIN_ROBOTS = 4
LEAN_SHARE = 0.9
#: the gaps closed in a robot's silhouette (see robot_reach): a disc this wide, in squares
CLOSE = 0.16
_CLOSING = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (int(round(CLOSE / STEP)) | 1,) * 2)
#: no robot is wider than this (issue #20: 0.5-0.8 of a square across), a silhouette wider is more than a robot
WIDEST = 0.84
#: the silhouette touching the cut's far edge: a robot taller than any measure here
TALL = np.inf


def _cut(image: np.ndarray, H: np.ndarray, centre: np.ndarray, across: np.ndarray, up: np.ndarray) -> np.ndarray | None:
    """(nv, nu, 3) uint8: the frame around ``centre`` (board units) on a grid of STEP, rows from
    -BACK to UP along ``up`` (unit, board units), columns from -ACROSS to ACROSS along ``across``;
    None where some of it does not map into the picture plane (a homography that sends it to infinity)."""
    v = np.arange(-BACK, UP + 1e-9, STEP)
    u = np.arange(-ACROSS, ACROSS + 1e-9, STEP)
    bx = centre[0] + u[None, :] * across[0] + v[:, None] * up[0]
    by = centre[1] + u[None, :] * across[1] + v[:, None] * up[1]
    q = H @ np.stack([bx.ravel(), by.ravel(), np.ones(bx.size)])
    if not (q[2] > 1e-9).all() and not (q[2] < -1e-9).all():
        return None
    mx = (q[0] / q[2]).reshape(bx.shape).astype(np.float32)
    my = (q[1] / q[2]).reshape(bx.shape).astype(np.float32)
    if not (np.isfinite(mx).all() and np.isfinite(my).all()):
        return None
    return cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def robot_reach(image: np.ndarray, H: np.ndarray, centre: np.ndarray, up: np.ndarray, colour: tuple,
                colours: ColourModel, level: np.ndarray, board: np.ndarray | None) -> float | None:
    """How far (squares) the silhouette of the robot standing on the square of ``centre`` reaches up
    (``up``: the unit lean direction there) beyond its footprint, the larger of the two measures in
    the module's docstring; :data:`TALL` where it runs off the cut's far edge; None where it cannot
    be measured (no pixel of ``colour`` at the square's middle, or the silhouette runs off the cut's
    sides or near edge: the robot touches another or the board has its colour)."""
    across = np.array([up[1], -up[0]])
    patch = _cut(image, H, centre, across, up)
    if patch is None:
        return None
    from .reader import FAR_COLOUR    # import cycle (the reader's calibration measures the height)

    # the normalised log colour, as the nets and the reader's robot pixels take it, 3x3 averaged
    x = normalise(patch[None], level)[0][0].transpose(1, 2, 0)
    x = cv2.blur(x, (3, 3), borderType=cv2.BORDER_REPLICATE)
    flat = x.reshape(-1, 3).astype(np.float64)
    dist = colours.distance_to(flat, colour)
    mask = dist <= FAR_COLOUR
    if board is not None and colours.separation_of(board) >= MIN_SEPARATION:
        mask &= dist < colours.distance_to(flat, board)
    nv, nu = x.shape[:2]
    mask = mask.reshape(nv, nu).astype(np.uint8)
    # a robot's parts of another shade (a pawn's neck, the bands of a turned profile) leave gaps in its
    # silhouette: closed, so that its top stays joined to its foot
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, _CLOSING)
    n, labels = cv2.connectedComponents(mask, connectivity=8)
    v = -BACK + STEP * np.arange(nv)
    u = -ACROSS + STEP * np.arange(nu)
    middle = (v[:, None] ** 2 + u[None, :] ** 2) <= MIDDLE ** 2
    found = labels[middle & (mask > 0)]
    if not len(found):
        return None
    rows, cols = np.nonzero(labels == np.bincount(found).argmax())
    if cols.min() == 0 or cols.max() == nu - 1 or rows.min() == 0:
        return None
    if rows.max() == nv - 1:
        return TALL
    v_far, v_near = v[rows.max()] + STEP / 2, v[rows.min()] - STEP / 2
    width = u[cols.max()] - u[cols.min()] + STEP
    if width > WIDEST:
        return None
    return float(max((v_far - v_near) - width, v_far + v_near, 0.0))


def robot_height(image: np.ndarray, H: np.ndarray, pose: CameraPose, layout: BoardLayout, colours: ColourModel,
                 level: np.ndarray, board: np.ndarray | None = None) -> float | None:
    """The set's robots' height (squares; the height a cylinder needs to reach as far behind its
    footprint as the tallest-reaching robot of ``layout`` in ``image`` does, see the module's
    docstring), or None where the frame gives no measure (too few robots measured, none where the
    lean is largest, or a robot taller than the cut). ``H``: board -> pixels; ``pose``: the camera;
    ``colours``: the set's robot colours; ``level``: the frame's level (as ``fieldnet.normalise``
    takes it); ``board``: the board's own colour, or None."""
    centres = square_centers()
    lean = lean_vectors(pose, centres)
    size = np.linalg.norm(lean, axis=1)
    if not np.isfinite(size).all() or size.max() <= 1e-6:
        return None
    cz = float(pose.centre[2])
    heights, leans = [], []
    for i, state in enumerate(layout.squares):
        if state == SquareState.EMPTY or size[i] <= 1e-6:
            continue
        colour = colours.white if state == SquareState.WHITE else colours.black
        reach = robot_reach(image, H, centres[i], lean[i] / size[i], colour, colours, level, board)
        if reach is None:
            continue
        if not np.isfinite(reach):
            return None
        reach += REACH_MARGIN
        # a top at height h is seen displaced by h * size * cz / (cz - h) (size: the lean per unit height)
        heights.append(reach * cz / (size[i] * cz + reach))
        leans.append(size[i])
    if len(heights) < MIN_ROBOTS:
        return None
    heights, leans = np.array(heights), np.array(leans)
    # only the robots where the lean is (nearly) the board's largest: they bound every square's reach
    # (a robot where things hardly lean tells nothing of its height: its margin alone is a tall robot)
    informative = leans >= LEAN_SHARE * size.max()
    return float(heights[informative].max()) if informative.any() else None
