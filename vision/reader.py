"""Reading frames with a calibration: fast, honest, never silently wrong."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from .appearance import (
    BATTERY,
    BOARD,
    BOARD_LIT,
    INK,
    N_CLASSES,
    OTHER,
    PIECE_SIDE,
    SHADE,
    PixelModel,
    line_segments,
    line_distance,
    point_windows,
    segment_contrast,
    segment_neighbours,
    square_windows,
    window_mass,
)
from .battery_side import with_battery_sides
from .calibration import OPEN_KERNEL, Calibration, blank_reason, check_image, found_again, robot_evidence, square_centres_for
from .errors import VisionError
from .features import PPU, SIZE, features, field_mask, rect_coords, rectify
from .geometry import point_coords, point_name, square_name
from .layout import BoardLayout, POINT_STATES, SQUARE_STATES
from .numeric import median
from .reading import BoardReading, unreadable
from .reference import bare_mask, square_cells, start_piece_coords

MIN_ALIGNMENT = 0.4          # median line contrast relative to calibration below this: board moved
MAX_NUDGE = 1.5              # squares: a board found again farther than this from the calibration's is not a nudge
OCCLUSION_TOLERANCE = 0.08  # share of a field's window that may be unexplained (glints, dust)
OCCLUDED_FIELD = 0.20        # share of a field's window unexplained -> that field is occluded
GLARE_DOUBT = 0.5           # glare (share of the glare map) under a field above which "empty" and "White" blur
GLARE_SPAN = 0.5
GLARE_DOUBT_UNKNOWN = 0.2   # the same where the calibration frame did not show the bare square
NEW_GLARE = 0.1             # glare this much stronger than in the calibration frame is new since then
NEW_REFLECTION = 0.3        # ... and this much stronger changes an empty square as much as a robot does
# a reflection this much stronger than at calibration anywhere on the board (a lamp moved or
# switched on): the pixel classes and the bare-board comparison around it are both unreliable
# (a White robot beside it read as bare board), so no square of the frame is trusted. Development
# frames: at most 0.22 (99%: 0.08); a new lamp reflection of strength 0.6: 0.62-1.0, of 0.45: 0.3-1.0
NEW_REFLECTION_FRAME = 0.25
EDGE_DOUBT = 0.4           # background slope (log per square) under a square above which empty/White blur
EDGE_SPAN = 0.3
EDGE_DOUBT_UNKNOWN = 0.2    # the same where the calibration frame did not show the bare square
EDGE_TEMPER = 0.8          # share of the empty-vs-White evidence discounted on a shadow's edge
MAX_DOUBT = 0.5            # glare / saturation make a field doubtful (below 0.75), never a coin toss
LINE_GLARE = 0.3          # a line segment under this much glare may look faint without a hand over it
CLIPPED_LEVEL = 250         # a channel this bright is (nearly) saturated
CLIPPED_SHARE = 0.05        # share of a square's window where the board may be saturated
CLIPPED_SPAN = 0.15
ADAPT_EVERY = 10            # adapt the appearance on every 10th readable frame (light changes slowly)
LINE_LOST = 0.3             # a line segment this much fainter than at calibration is hidden
LOST_LINE_WEIGHT = 0.012    # each hidden segment beside empty squares counts as this much occlusion
HAND_LINES = 8              # this many hidden segments: a hand over the board, every field is doubtful
OCCLUDED_BOARD = 0.02        # share of the whole field unexplained -> "hand or object over the board"
# the bare-board reference's second opinion (changed share of a square's window, relative to a robot's
# pixel mass): an empty square changes < 0.2 (99%: < 0.7), a robot 1.0-4 (median 2.3)
OFF_LINE = 0.12              # board units from the lines' centres where the change is counted
REF_SHARE = 0.35             # a square is checked when this much of its window (off the lines) has a reference
CHANGE_ROBOT = 0.7           # read empty but changed more than this: doubtful
CHANGE_EMPTY = 0.5           # read as a robot but changed less than this: doubtful
CHANGE_SPAN = 0.4
# the change as evidence: a log likelihood ratio robot : empty, piecewise linear in the change.
# On development seeds (25,000 empty squares with a reference, 6,000 robots) no empty square
# changed by more than 1.0 (99.4% under 0.01), a robot by less than 1.0 only 1 in 6,000 (median
# 3.2): little change is strong evidence of an empty square, and much change, while the rest of
# the board is as it was (see _check_against_reference), strong evidence of a robot, enough to
# outweigh a grey robot's colour (read empty at 0.99 in a shadow that lay there at calibration);
# never more certain than the colour reading, so it turns a reading into a doubtful one at most
CHANGE_LLR = ((0.3, 1.0, 1.6, 2.2, 3.0), (-5.0, -2.0, 0.0, 3.0, 6.0))
# under the start pieces, against the filled-in light (its spread measured by filling robot-sized
# holes in board that was seen, and only compact changes counted: FILL_OPEN_KERNEL, which drops
# the streaks of the wood's unknown grain and of a shadow's edge placed a little off): empty
# squares there change less than 1.0 in 98%, robots more than 1.5 in 99% (median 2.5-3); between
# them the change says nothing. Development seeds: log LR -1.9 at 0.5-1.0, +2.9 at 1.5-2.0, +5 above
FILL_CHANGE_LLR = ((0.5, 1.0, 1.5, 2.0, 2.5, 3.0), (-3.0, -1.0, 0.0, 1.5, 3.0, 4.0))
FILL_OPEN_KERNEL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (9, 9))   # a robot's core survives, grain does not
FILL_UNSTEADY = 1.5          # an emptied start square that changed this much: the light is not as it was
UNSTEADY_EMPTY = 0.9         # ... counted only where colour reads the square empty at least this clearly
UNSTEADY_SQUARES = 2         # other squares read empty yet changed, at which a change says nothing of a robot
FILL_SHARE = 0.2             # a square is checked against the fill when this much of its window is filled in
STATIC_GLARE = 0.2           # glare under a square now and in the calibration frame: the same reflection
GLARE_CHANGE = 1.0           # there, changed this much means a robot (an empty square: ~0, a robot: > 2)
GLARE_CHANGE_SPAN = 0.15


class BoardReader:
    """Reads frames of one camera setup.

    ``min_confidence``: a field whose chosen state has a lower probability is
    reported as low-confidence (and the frame as not readable).
    ``adapt``: follow slow light changes by nudging the appearance model towards
    what confidently read frames show.
    """

    def __init__(self, calibration: Calibration, *, min_confidence: float = 0.98, adapt: bool = True,
                 adapt_rate: float = 0.03, adapt_every: int = ADAPT_EVERY) -> None:
        if not isinstance(calibration, Calibration):
            raise VisionError("BoardReader needs a Calibration (see vision.calibration.calibrate / Calibration.load)")
        self._cal = calibration
        self.min_confidence = float(min_confidence)
        self.adapt = adapt
        self.adapt_rate = float(adapt_rate)
        self.adapt_every = max(1, int(adapt_every))
        self._means, self._covs = calibration.appearance.arrays()
        self._model = PixelModel(self._means, self._covs)
        app = calibration.appearance
        self._swin = square_windows(square_centres_for(app.lean))
        self._pwin = point_windows(point_coords())
        self._line_ref = np.array(app.line_contrast)
        self._line_use = self._line_ref > 0.25 * np.median(np.abs(self._line_ref))
        self._ink_sign = 1.0
        self._readable_count = 0
        self._fmask = field_mask()
        self._fmask_weights = (self._fmask / self._fmask.sum()).astype(np.float32).ravel()
        self._seg_squares, self._seg_points = segment_neighbours()
        self._fmask_tight = field_mask(tight=True).astype(np.float32)
        # the change is counted off the printed lines: a sharper or blurrier frame than the
        # calibration's, or a camera nudged by a pixel, changes the lines' edges, not a robot's body
        self._off_line = line_distance() > OFF_LINE
        self._use_reference()
        mid = rect_coords(line_segments().mean(axis=1))
        self._seg_mid = (np.clip(mid[:, 1].astype(int), 0, SIZE - 1), np.clip(mid[:, 0].astype(int), 0, SIZE - 1))

    @property
    def calibration(self) -> Calibration:
        """The calibration as adapted so far (save it to keep the adaptation)."""
        app = self._cal.appearance
        new = replace(app, means=tuple(tuple(float(v) for v in m) for m in self._means))
        return self._cal.with_appearance(new)

    def _use_reference(self) -> None:
        ref = self._cal.reference
        self._ref_valid = None if ref is None else ref.valid & self._off_line
        self._ref_share = np.zeros(36) if ref is None else window_mass(self._ref_valid.astype(np.float32), self._swin)
        self._known = self._ref_share >= REF_SHARE   # the squares the reference checks
        # the squares of the start ranks: compared with the light filled in under the start pieces
        self._filled = None if ref is None else ref.filled & self._off_line
        self._fill_share = np.zeros(36) if ref is None else window_mass(self._filled.astype(np.float32), self._swin)
        self._fill_checked = ~self._known & (self._fill_share >= FILL_SHARE)
        # the reflections in the calibration frame: the same glare now is the same lamp, not a change
        self._ref_glare = np.zeros(36) if ref is None else window_mass(features(ref.image).glare, self._swin)

    def learn_bare(self, image: np.ndarray, layout: BoardLayout) -> int:
        """Extend the bare-board reference with a frame the caller knows shows ``layout``.

        The calibration frame shows the bare board only where the start
        position has no piece; as a game goes on, squares of the start ranks
        are left empty. Given a frame whose layout the caller has established
        (the companion: an accepted turn), every square that is bare there,
        read as empty with confidence and not yet in the reference, joins it
        (clear of robots and batteries, as at calibration). Returns the number
        of squares that gained reference pixels (0 when there is nothing to add
        or no reference).
        """
        ref = self._cal.reference
        if ref is None or not isinstance(layout, BoardLayout):
            return 0
        image = check_image(image, self._cal.image_size)
        if blank_reason(image):
            return 0
        reading, _ = self._read(image)
        if reading.occluded_fraction > OCCLUDED_BOARD:
            return 0
        sconf = reading.square_probs.max(axis=1)
        sq_state = reading.square_probs.argmax(axis=1)
        new = [q for q in range(36) if layout.squares[q].value == "empty" and sq_state[q] == 0
               and sconf[q] >= self.min_confidence and not self._known[q]]
        if not new:
            return 0
        robots, bats = start_piece_coords(layout)
        # a point whose reading is doubtful counts as a battery: its disc stays out
        doubt_p = [p for p in range(49) if reading.point_probs[p].max() < self.min_confidence]
        bats = np.vstack([bats, point_coords()[doubt_p].reshape(-1, 2)])
        mask = square_cells(new) & bare_mask(robots, bats, self._cal.appearance.lean)
        updated = ref.extended(rectify(image, self._cal.H), mask)
        if updated is ref:
            return 0
        before = self._ref_share.copy()
        self._cal = replace(self._cal, reference=updated)
        self._use_reference()
        return int(sum(1 for q in new if self._ref_share[q] > before[q] + 0.05))

    def relocate(self, image: np.ndarray) -> bool:
        """Find the board again by its markers (camera nudged). True if the homography changed.

        A board found farther than :data:`MAX_NUDGE` squares from where the
        calibration put it is not taken (False): that camera was not nudged but
        moved, or the calibration is from another set-up, and the light, the
        bare board and the appearance it learned belong to that one.
        """
        return self._find_again(image)[0]

    def _find_again(self, image: np.ndarray) -> tuple[bool, str | None]:
        """(found and taken, why not taken when the markers were found too far away)."""
        found, too_far = found_again(self._cal, image, MAX_NUDGE)
        if found is None:
            return False, too_far
        self._cal = found
        return True, None

    # -- the hot path ---------------------------------------------------------
    def read(self, image: np.ndarray) -> BoardReading:
        image = check_image(image, self._cal.image_size)
        why = blank_reason(image)
        if why:
            return unreadable(why)
        reading, alignment = self._read(image)
        if alignment < MIN_ALIGNMENT and self._cal.method == "markers":
            found, too_far = self._find_again(image)
            if found:
                reading, alignment = self._read(image)
            elif too_far:
                reading = unreadable(too_far, alignment=alignment)
        return with_battery_sides(reading, image, self._cal)  # battery sides: information only

    def _read(self, image: np.ndarray) -> tuple[BoardReading, float]:
        app = self._cal.appearance
        rect = rectify(image, self._cal.H)
        F = features(rect)
        feats, dev = F.board, F.glare
        bright = _channel_mean(feats)
        contrast = segment_contrast(cv2.GaussianBlur(bright, (0, 0), 0.8))
        ratios_all = contrast / np.where(np.abs(self._line_ref) > 1e-6, self._line_ref, 1e-6)
        ratios = ratios_all[self._line_use]
        alignment = float(median(ratios)) if ratios.size else 0.0
        if alignment < MIN_ALIGNMENT:
            hint = (" and the corner markers were not found again" if self._cal.method == "markers"
                    else "; calibrate again with the corners")
            return unreadable(
                f"the board is not where the calibration expects it (energy lines match {alignment:.0%}): "
                f"camera or board moved, board not in view, or a calibration from another setup{hint}",
                alignment=alignment,
            ), alignment

        ref = self._cal.reference
        share = None
        if ref is not None:
            share = np.empty(feats.shape[:-1], np.float32)
            post = self._model.posteriors(feats, F.piece, F.glared, ref.as_before(F), share)
        else:
            post = self._model.posteriors(feats, F.piece, F.glared)
        ew, eb, ea = app.expected_mass
        raw, colour = robot_evidence(post, self._swin)
        ma = window_mass(post[BATTERY], self._pwin) / ea
        ow = window_mass(post[OTHER], self._swin)
        op = window_mass(post[OTHER], self._pwin)

        (pe, _), (_, cw), (_, cb) = app.square_means
        sc = app.colour_sigma
        c = np.clip((colour - cb) / (cw - cb), -0.4, 1.4)
        col_norm = -np.log(sc * np.sqrt(2 * np.pi))
        ss = app.square_sigma
        ll = np.stack([
            _t((raw / ((ew + eb) / 2) - pe) / app.empty_sigma, EMPTY_DOF) - np.log(app.empty_sigma / ss) + np.log(0.5),
            _t((raw / ew - 1) / ss, ROBOT_DOF) - 0.5 * ((c - 1) / sc) ** 2 + col_norm,
            _t((raw / eb - 1) / ss, ROBOT_DOF) - 0.5 * (c / sc) ** 2 + col_norm,
        ], axis=1)
        # the edge of a hard shadow: the local board colour is a blend there, and the lit rim
        # beside it may pass for a White robot: the empty-vs-White evidence counts for less
        # (strong evidence stays decisive, marginal evidence becomes doubtful)
        edge = window_mass(_slope(F.log_bg), self._swin)
        # (without a bare-board reference, the ranks of the start position, a milder edge is doubtful)
        edge_doubt = np.where(self._known, EDGE_DOUBT, EDGE_DOUBT_UNKNOWN)
        temper = 1 - EDGE_TEMPER * np.clip((edge - edge_doubt) / EDGE_SPAN, 0, 1)
        ll[:, 1] = ll[:, 0] + (ll[:, 1] - ll[:, 0]) * temper
        sp = _softmax(ll)
        llp = np.stack([
            _t((ma - app.point_means[0]) / app.point_empty_sigma, EMPTY_DOF) - np.log(app.point_empty_sigma / app.point_sigma),
            _t((ma - app.point_means[1]) / app.point_sigma, ROBOT_DOF),
        ], axis=1)
        pp = _softmax(llp)
        # unexplained pixels in a field's window make its reading uncertain
        us = np.clip((ow - OCCLUSION_TOLERANCE) / OCCLUDED_FIELD, 0, 1)[:, None]
        up = np.clip((op - OCCLUSION_TOLERANCE) / OCCLUDED_FIELD, 0, 1)[:, None]
        sp = (1 - us) * sp + us / 3
        pp = (1 - up) * pp + up / 2
        # glare washes a White robot into the board (and the board towards ivory): there
        # "empty" and "White" cannot be told apart
        # (Black robots and the red batteries stay visible in glare)
        # the same where the camera is overexposed to white: a board saturated in every channel
        # and a White robot look alike (one saturated channel still leaves two to tell them apart)
        # (no glare anywhere, the common case: the glare map is all zeros and so is its mass;
        # any() is true for NaN too, so only an all-zero map skips the sums)
        gs = window_mass(dev, self._swin) if dev.any() else np.zeros(len(self._swin.flat_index), np.float32)
        darkest = np.minimum(np.minimum(rect[..., 0], rect[..., 1]), rect[..., 2])  # = rect.min(axis=2), 10x faster
        saturated = darkest >= CLIPPED_LEVEL
        if saturated.any():
            boardish = post[BOARD] + post[BOARD_LIT] + post[INK] + post[SHADE]
            clipped = window_mass((saturated & (boardish > 0.5)).astype(np.float32), self._swin)
        else:   # (nothing saturated, the common case: all zero, without the sums)
            clipped = np.zeros(len(self._swin.flat_index), np.float32)
        # a doubt, not a verdict: at most half-way to a tie, so the evidence still picks the state
        # (without a bare-board reference, the ranks of the start position, or under a reflection
        # that is new since calibration, which disturbs the reference too, milder glare is doubtful)
        new_glare = gs - self._ref_glare     # how much stronger each square's reflection is than at calibration
        glare_doubt = np.where(self._known & (new_glare < NEW_GLARE), GLARE_DOUBT, GLARE_DOUBT_UNKNOWN)
        ug = MAX_DOUBT * np.clip(np.maximum((gs - glare_doubt) / GLARE_SPAN, (clipped - CLIPPED_SHARE) / CLIPPED_SPAN), 0, 1)
        cm, cm_fill = (None, None) if share is None else self._change_mass(post, share, ew, eb)
        if cm is not None:
            sp = self._under_static_glare(sp, cm, gs)
        ew_mean = (sp[:, 0] + sp[:, 1]) / 2
        sp[:, 0] = (1 - ug) * sp[:, 0] + ug * ew_mean
        sp[:, 1] = (1 - ug) * sp[:, 1] + ug * ew_mean
        if cm is not None:
            sp = self._check_against_reference(sp, cm, cm_fill, new_glare)
        reflection = new_glare.max() >= NEW_REFLECTION_FRAME
        if reflection:
            sp = 0.5 * sp + 0.5 / 3

        # energy lines that vanished beside empty squares: something lies over them (a hand)
        robot_sq = sp.argmax(axis=1) != 0
        # (glare washes lines out too: there a faint line is no sign of a hand)
        seg_glare = dev[self._seg_mid]
        lost = [k for k in np.flatnonzero(ratios_all < LINE_LOST)
                if self._line_use[k] and seg_glare[k] < LINE_GLARE and not any(robot_sq[q] for q in self._seg_squares[k])]
        if lost:
            # a hand is bigger than the lines it hides: its neighbours are doubtful too
            near = {q for k in lost for q in self._seg_squares[k]}
            hidden_s = sorted({(q // 6 + dr) * 6 + q % 6 + dc for q in near for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                               if 0 <= q // 6 + dr < 6 and 0 <= q % 6 + dc < 6})
            if len(lost) >= HAND_LINES:
                # a hand over the board: its skin, its shadow and what it holds may pass for
                # anything anywhere near it; no field of this frame is trusted
                hidden_s = list(range(36))
            hidden_p = sorted({(q // 6 + dr) * 7 + q % 6 + dc for q in hidden_s for dr in (0, 1) for dc in (0, 1)})
            sp[hidden_s] = 0.5 * sp[hidden_s] + 0.5 / 3
            pp[hidden_p] = 0.5 * pp[hidden_p] + 0.5 / 2
        unexplained = float(np.dot(post[OTHER].ravel(), self._fmask_weights))
        occluded = unexplained + LOST_LINE_WEIGHT * len(lost)
        sconf = sp.max(axis=1)
        pconf = pp.max(axis=1)
        low_s = tuple(int(i) for i in np.flatnonzero(sconf < self.min_confidence))
        low_p = tuple(int(i) for i in np.flatnonzero(pconf < self.min_confidence))
        common = dict(
            square_probs=sp,
            point_probs=pp,
            low_confidence_squares=low_s,
            low_confidence_points=low_p,
            occluded_fraction=occluded,
            alignment=alignment,
        )
        if occluded > OCCLUDED_BOARD:
            where = ""
            if lost:
                shown = sorted(near)
                where = " near " + ", ".join(square_name(q) for q in shown[:6]) + (" ..." if len(shown) > 6 else "")
            return unreadable(
                f"something covers the board{where} (energy lines hidden at {len(lost)} places, "
                f"{unexplained:.0%} unexplained): a hand or an object over the board?",
                **common,
            ), alignment
        if low_s or low_p:
            names = [square_name(i) for i in low_s] + [point_name(i) for i in low_p]
            why = "low confidence at " + ", ".join(names[:12]) + (" ..." if len(names) > 12 else "")
            if reflection:
                why = (f"a reflection on the board that was not there at calibration (strongest at "
                       f"{square_name(int(new_glare.argmax()))}): White robots and the bare board look alike "
                       f"around it; dim or move the lamp, or calibrate again ({why})")
            return unreadable(why, **common), alignment
        layout = BoardLayout(
            tuple(SQUARE_STATES[i] for i in sp.argmax(axis=1).tolist()),
            tuple(POINT_STATES[i] for i in pp.argmax(axis=1).tolist()),
        )
        if self.adapt:
            self._readable_count += 1
            if self._readable_count % self.adapt_every == 0:
                self._adapt(feats, F.piece, post)
        return BoardReading(
            layout=layout,
            square_probs=sp,
            point_probs=pp,
            square_confidence=tuple(sconf.tolist()),   # Python floats, as float(v) of each
            point_confidence=tuple(pconf.tolist()),
            readable=True,
            occluded_fraction=occluded,
            alignment=alignment,
        ), alignment

    def _change_mass(self, post: np.ndarray, share: np.ndarray, ew: float, eb: float) -> tuple[np.ndarray, np.ndarray]:
        """Per square: how much of its window (off the lines) no longer looks as it did, relative
        to a robot's pixel mass; counted where the calibration frame showed bare board, and
        (second array) where it showed the light filled in under the start pieces."""
        changed = (post[BOARD] * share < 0.5) & (post[BATTERY] < 0.5)
        robot = (ew + eb) / 2
        out = []
        for region, region_share, kernel in ((self._ref_valid, self._ref_share, OPEN_KERNEL),
                                             (self._filled, self._fill_share, FILL_OPEN_KERNEL)):
            # (the opening of a 0/1 mask: on 8 bits, the same result as on floats in half the time)
            mask = cv2.morphologyEx((changed & region).view(np.uint8), cv2.MORPH_OPEN, kernel).astype(np.float32)
            out.append(window_mass(mask, self._swin) / np.maximum(region_share, 1e-6) / robot)
        return out[0], out[1]

    def _under_static_glare(self, sp: np.ndarray, cm: np.ndarray, gs: np.ndarray) -> np.ndarray:
        """Where a reflection lies on a square now and lay there in the calibration frame too,
        the change decides between empty and White.

        Glare washes a White robot into the board, so there colour cannot tell
        the two apart; but the reflection itself is as before, so an empty
        square there has not changed and a robot has (by about its mass). A
        reflection that is new since calibration changes an empty square too:
        there this does not apply (the glare doubt still does).
        """
        static = self._known & (gs > STATIC_GLARE) & (self._ref_glare > STATIC_GLARE)
        if not static.any():
            return sp
        white = 1.0 / (1.0 + np.exp(-(cm[static] - GLARE_CHANGE) / GLARE_CHANGE_SPAN))
        either = sp[static, 0] + sp[static, 1]
        sp = sp.copy()
        sp[static, 0] = either * (1 - white)
        sp[static, 1] = either * white
        return sp

    def _check_against_reference(self, sp: np.ndarray, cm: np.ndarray, cm_fill: np.ndarray,
                                 new_glare: np.ndarray) -> np.ndarray:
        """A second opinion from how much changed since the calibration frame (``cm`` where it
        showed the bare square, ``cm_fill`` against the light filled in under the start pieces;
        from :meth:`_change_mass`; ``new_glare``: how much stronger each square's reflection is
        than in the calibration frame).

        A robot changes about as much of its window as it covers (more with its
        shadow); an empty square changes next to nothing. The change is weighed
        in as evidence (:data:`CHANGE_LLR`, bounded: a White robot that looks
        grey in a shadow, whose colour says "empty" even at 0.99, is read as the
        robot that changed the square by three robots' worth, while a colour
        reading of 0.999 and more keeps its state), but it never makes a square
        more certain than its colour made it. Where the reading and the change
        disagree, the square is made doubtful.

        A square that barely changed is evidence of an empty one in any light.
        Much change is evidence of a robot only while the board is otherwise as
        it was: not under a reflection much stronger than at calibration, and
        each other square that colour reads clearly as empty yet changed halves
        it (two or more: a new shadow across the board). Squares whose colour is
        unsure do not count there: they may be grey robots themselves, and three
        grey robots in one shadow once made each other's change suspect.
        Against the filled-in light the change is vaguer
        (:data:`FILL_CHANGE_LLR`: weaker, with a gap between what empty squares
        and robots do), but it is weighed the same way.
        """
        empty = sp.argmax(axis=1) == 0
        # read clearly empty, yet changed: each other such square halves what a square's change says
        # of a robot (two or more: a new shadow or glare spot is changing bare board, and a change
        # is no sign of a robot)
        calm = sp[:, 0] > UNSTEADY_EMPTY
        unsteady = calm & ((self._known & (cm > CHANGE_ROBOT)) | (self._fill_checked & (cm_fill > FILL_UNSTEADY)))
        others = np.count_nonzero(unsteady) - unsteady
        trust = np.where(new_glare < NEW_REFLECTION, np.clip(1.0 - others / UNSTEADY_SQUARES, 0.0, 1.0), 0.0)
        llr = np.where(self._known, np.interp(cm, *CHANGE_LLR),
                       np.where(self._fill_checked, np.interp(cm_fill, *FILL_CHANGE_LLR), 0.0))
        llr = np.where(llr > 0, llr * trust, llr)
        doubt = np.where(empty, np.clip((cm - CHANGE_ROBOT) / CHANGE_SPAN, 0, 1), np.clip((CHANGE_EMPTY - cm) / CHANGE_SPAN, 0, 1))
        doubt = MAX_DOUBT * np.where(self._known, doubt, 0.0)[:, None]
        return (1 - doubt) * _weigh_robot_evidence(sp, llr) + doubt / 3

    def _adapt(self, feats: np.ndarray, pfeats: np.ndarray, post: np.ndarray) -> None:
        """Move each class mean a little towards this frame's confidently classified pixels."""
        sub = (slice(None, None, 2), slice(None, None, 2))
        changed = False
        for k in range(N_CLASSES):
            f = (pfeats if k in PIECE_SIDE else feats)[sub]
            sel = post[k][sub] > 0.95
            if sel.sum() >= 20:
                self._means[k] = (1 - self.adapt_rate) * self._means[k] + self.adapt_rate * f[sel].mean(axis=0)
                changed = True
        if changed:
            self._model = PixelModel(self._means, self._covs)


# Student-t tails (degrees of freedom): evidence far from every state is doubtful, not
# decisive. Empty fields get heavy tails (a neighbour's piece may lean into the window).
EMPTY_DOF = 4.0
ROBOT_DOF = 20.0


def _weigh_robot_evidence(sp: np.ndarray, llr: np.ndarray) -> np.ndarray:
    """``sp`` (n x 3: empty, White, Black) with a log likelihood ratio ``llr`` (robot : empty) weighed in.

    White and Black are scaled alike (the evidence says "a robot", the colour
    says which). The result is never more certain than ``sp``: where the
    evidence sharpens the reading it keeps ``sp``; where it turns it, it is
    drawn back towards ``sp`` until its top probability is ``sp``'s.
    """
    fused = sp.copy()
    fused[:, 1:] *= np.exp(llr)[:, None]
    fused /= fused.sum(axis=1, keepdims=True)
    top, now = sp.max(axis=1), fused.max(axis=1)
    j = fused.argmax(axis=1)
    # a in [0, 1]: 1 where the top state stays (sp itself), else just enough to bring the top down to sp's
    a = np.where(now > top, (now - top) / np.maximum(now - sp[np.arange(len(sp)), j], 1e-12), 0.0)
    a = np.clip(a, 0.0, 1.0)[:, None]
    return (1 - a) * fused + a * sp


def _slope(log_bg: np.ndarray) -> np.ndarray:
    """Slope of the board's log brightness, per square (smooth light: ~0.05; a hard shadow's edge: ~0.6)."""
    lb = _channel_mean(log_bg)
    gx = cv2.Sobel(lb, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(lb, cv2.CV_32F, 0, 1, ksize=3)
    return cv2.magnitude(gx, gy) * (PPU / 8.0)


def _channel_mean(a: np.ndarray) -> np.ndarray:
    """The mean of the first three channels of an (H, W, C) image (a tenth of ``a[..., :3].mean(axis=2)``'s time)."""
    return (a[..., 0] + a[..., 1] + a[..., 2]) * np.float32(1 / 3)


def _t(z: np.ndarray, dof: float) -> np.ndarray:
    return -0.5 * (dof + 1) * np.log1p(z * z / dof)


def _softmax(ll: np.ndarray) -> np.ndarray:
    ll = ll - ll.max(axis=1, keepdims=True)
    e = np.exp(ll)
    return e / e.sum(axis=1, keepdims=True)
