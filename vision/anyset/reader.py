"""Reading frames with a calibration: fast, honest, never silently wrong.

Per frame (:meth:`BoardReader.read`): the 36 square and 49 point patches are
cut (:mod:`vision.patches`), the field classifier compares each with the
reference board (:mod:`vision.fields`), a robot's colour is told by the set's
two colours (:mod:`vision.colours`), and every field gets a probability. A
field the classifier is unsure of (a piece hidden behind a tall robot, a
glare spot, a colour unlike both robot colours) is *doubtful*, never guessed:
the frame is then not readable and the reason names the fields; the referee
settles them with the rules or asks. Beside the nets, two checks against the
reference (the last board the reader was told): a field that looks just as it
did there, or in an earlier board the reader keeps in its memory of earlier
looks (:mod:`vision.anyset.memory`: a battery turned back to its printed side,
a square a robot left), keeps what it held then (its odds, and a robot's
colour's, times :data:`SAME_ODDS`); a square read empty whose centre changed
far more than the frame's other such squares is doubtful (:data:`CHANGED_Z`),
and so is a field read as holding something else than the reference showed
whose look changed less than a change of content does (:data:`CONTENT_SQUARE`),
and a point read empty that a robot beside it could hide from the camera,
unless its look vouches for it (:data:`HIDE_HEIGHT`) and the game has not
shown this set's robots to reach that far (:data:`HIDE_REACH`), or the frame
shows no robot's colour within a battery's reach of it (:data:`HIDE_CLEAR_RADIUS`).
A field still unsure after all that gets a second opinion: the nets look at
it once more with the frame's *own* sure fields as its examples (as
calibration looks at a frame), and where that opinion leans the same way and
more surely, it stands (:meth:`BoardReader._own_frame_opinion`). A point
still unsure, or read empty where no known look vouches for it, is then
looked at by the points net's last layer refitted on this set's own points
(:mod:`vision.anyset.sethead`, :data:`SET_HEAD`), then, still unsure, at twice
the resolution (:data:`FINE_LEAN`). A point every look leaves unsure but all
four lean towards a battery, adding up to :data:`AGREE_BATTERY`, holds one (a square,
where its three looks agree on a robot: :data:`AGREE_ROBOT`). A small share of
"covered" the nets give a field very sure of it seen, with no covered field
beside it, is their hedge on a look they were not trained on, not a hand
(:data:`STRAY_COVER`).

Since 5 December 2026 all of that is **evidence** and one learned step weighs it:
:meth:`BoardReader._evidence` gathers, per field, every look's log-odds (the
second opinions asked of every field the first look leaves less than sure,
whether or not they agree), the known looks, the colours, the differences, the
field's likeness to this set's fields in the reference, the robots beside it
and each check's doubt, and the verdict (:mod:`vision.anyset.verdict`,
gradient-boosted trees trained on many frames of random designs) gives the
probabilities. Three rules stay above it: a field the nets see covered
(:data:`COVERED`), a point a robot may hide (:data:`HIDDEN_VETO`) and a point a
battery may have arrived at unseen (:data:`ARRIVED_VETO`; not where the change there
runs on to the edge of the point's patch, a robot's body or shadow beside it:
:data:`ARRIVED_OPEN`) are doubtful whatever the verdict says. ``NETZWERK_VERDICT=0`` reads as before (the first stage, each
look and each check in turn: :meth:`BoardReader._first_stage`).

Frame-level refusals: a hand or an object over the board (fields covered), a
board that is not where the calibration put it (the fields' structure no
longer matches the reference: camera or board moved; markers find a nudged
board again), a black or blank frame.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import NamedTuple

import cv2
import numpy as np

from ..calibration import found_again
from .calibration import Calibration, blank_reason, check_image
from ..errors import VisionError
from .fieldnet import REF_EMPTY, REF_OCCUPIED, REF_UNKNOWN, TEMPERATURE, example_fields
from .fields import (_POINT_DIST, FINE, OWN_FRAME, Answers, FieldLook, PixelLook, box_blurred, colour_shift, fine_look,
                     largest_difference, local_differences, look, look_with, own_frame_look, square_distances, still)
from .colours import MIN_SEPARATION, ColourModel, descriptors, plain_model
from .jit import compiled, mean_abs_distances_numpy
from .memory import FieldMemory
from .sethead import SetHead, board_samples
from ..geometry import field_neighbours, point_name, square_centers, square_name, touching_groups
from ..layout import BoardLayout, POINT_STATES, SQUARE_STATES
from .apart import Apart, Shadows, Unlikeness
from .patches import PATCH, POINT_SPAN, SQUARE_SPAN, PatchCutter, aligned_offsets, camera_shadows, corner_gaps
from .reference import COLOUR_BLACK, COLOUR_UNKNOWN, COLOUR_WHITE
from ..reading import BoardReading, unreadable
from .verdict import POINT_FEATURES, SQUARE_FEATURES, shared_verdict

MIN_ALIGNMENT = 0.4          # fields' structure matching the reference below this: the board moved
MAX_NUDGE = 1.5              # squares: a board found again farther than this from the calibration's is not a nudge
OCCLUDED_BOARD = 0.02        # share of the fields covered (a hand, an object) at which the board counts as covered
COVERED = 0.5                # a field covered with at least this probability
# A hand or an object over the board covers fields that touch: a group of at least HAND_GROUP touching
# covered fields (squares beside squares, points beside points, a square and its corner points) is
# one, and only the fields of such groups count as covered (:data:`OCCLUDED_BOARD`). A covered field
# or two apart from the others is a look the nets do not know (a piece of a shape they never saw,
# glare): doubtful fields, for the referee's rules prior, not a hand the players are asked to take
# away. On our renderer's hands (development designs 5,000,300-314, 120 frames) the smallest hand
# covered 4 touching fields, and frames without a hand none; a foreign set's white cones and
# off-point batteries had 2 covered fields apart in 3 of 48 frames.
HAND_GROUP = 3
# A robot whose colour (the disc the calibration chose, colours.py) lies farther than FAR_COLOUR spreads
# from both of the set's robot colours (ColourModel.fit_distance) is of neither colour as far as the
# camera can tell: the disc caught something else (the board in a hard shadow band beside a flat dark
# robot looked like a pale robot darkened three times, and the heavy tails still said "White" at 0.999:
# design 11,100,006 camera 1). Its colour is doubtful unless its look vouches for it. On development
# designs 5,000,200-229 (6,203 robots read in 720 frames) the robots read in their right colour lay at
# most 2.12 spreads from it in 99.9%, 5 farther than 2.5
FAR_COLOUR = 2.5
SIDE_SURE = 0.9              # P(printed) at which a battery's side is told
LEARN_COLOUR_RATE = 0.2      # how far an accepted board moves the robot colours
ALIGN_QUANTILE = 0.7         # most fields are as in the reference (a turn moves a few pieces)
# A square the reference showed empty and the classifier reads empty again, whose centre differs from
# the reference's far more than the frame's other such squares do, is doubtful, not empty: the
# classifier can be sure and wrong on a look unlike any it trained on (a pale robot on a pale board).
# The difference is the mean absolute log colour difference (three channels summed) over a disc of
# CHANGED_RADIUS squares at the centre; "far more" is above the others' median by CHANGED_Z of their
# spread (median absolute deviation) and by CHANGED_MIN log units (a change the eye would see: on
# development designs 5,000,200-219, 11,000 such squares read right, noise, grain and a neighbour's
# shadow stayed below 0.07 however far out in the spread, the two robots missed were above 0.6).
# Statistics of the frame itself, no look.
CHANGED_RADIUS = 0.35
CHANGED_Z = 10.0
CHANGED_MIN = 0.2
CHANGED_SAMPLE = 8           # fewer such squares than this: no spread to compare with, no check
# A field that looks just as it did in the reference (the last board the reader was told) holds what it
# held then, whatever the nets make of its look: the odds of the reference's content (and, for a robot,
# of its colour) are multiplied by SAME_ODDS. "Just as it did": the absolute log colour difference
# (three channels summed) between the patch now and the reference's, averaged over SAME_BLUR x SAME_BLUR
# patch pixels (camera noise), stays at most SAME_SQUARE (SAME_POINT) everywhere in a disc of
# SAME_SQUARE_RADIUS (SAME_POINT_RADIUS) board units at the field: the square's own middle (not the
# batteries on its corners), the point's reach (a battery set down off its point). Measured on training
# designs 3,900,000-3,900,039 (half of them pushed into the hard corners: robots near the board's colour,
# batteries of the fields' colour, small batteries; 80 camera set-ups, 960 frames): a field whose content
# changed differed by at least 0.185 (squares) and 0.317 (points); the limits are half of that. A field
# left alone in a game stays below them in about 9 cases in 10 (squares) and 3 in 4 (points); a robot
# of the other colour or a flipped battery changes the look and gets no such help. A robot's colour is
# helped only where the set's two colours differ by at least twice SAME_SQUARE (summed over the
# channels): where they lie closer, a robot swapped for one of the other colour could pass as unchanged.
# The same test and limits hold against the earlier looks the reader's memory keeps (the boards told
# before the reference, memory.KEEP different looks a field): a look matches what the field held then.
# A field whose look matches both an empty and an occupied earlier look gets no word. Measured on
# development designs 5,000,200-219 and training designs 3,900,000-039 (games of 6 boards): of about
# 33,000 such words none pointed the wrong way (no point of those games was hidden behind a robot).
# The square's disc was 0.4 until 3 December: with the 5x5 average it reached 0.57 of a square from
# the middle, where the edge of a wide robot on the next square lies, so a robot standing still beside
# one that came lost the help (design 13,900,009 camera 1, a flat cream disc on white paper, then read
# empty at 0.986 and a legal turn rejected). At 0.3 (0.47 with the average) a robot on the square still
# fills most of the disc wherever on its square it stands (its radius is at least 0.25 and it stands at
# most 0.49 minus its radius off the middle). Measured (single / game frames read right): development
# designs 5,000,200-239 301 / 440 -> 303 / 440 of 480, 0 misreads; with the parity of checkered boards
# on (fields.PARITY, off by default) block 14,200,000 258 / 386 -> 258 / 391 and fresh block 14,400,000
# 245 / 400 -> 248 / 404, the same misreads (the parity's); the shipped reader there 242 / 392, 0
# misreads; the referee on block 13,900,000 (the parity on too) 723 / 7 / 18 / 2 -> 730 / 5 / 13 / 2 (the
# same design's cream discs missed in other turns); docs/readme-vision.md ("3 December, later").
# NETZWERK_SAME_R sets it (0.1-0.8, for measuring)
SAME_BLUR = 5
SAME_SQUARE_RADIUS = 0.3
try:
    _r = float(os.environ.get("NETZWERK_SAME_R", SAME_SQUARE_RADIUS))
    if 0.1 <= _r <= 0.8:            # else (out of range, not a number): the shipped radius
        SAME_SQUARE_RADIUS = _r
except ValueError:
    pass
SAME_POINT_RADIUS = 0.3
SAME_SQUARE = 0.1
SAME_POINT = 0.16
SAME_ODDS = 50.0
# The camera's noise is in every look twice (now and the reference), and an absolute difference keeps
# it: averaged over SAME_BLUR pixels it stays at about 1.1 of the noise's spread in log colour, which is
# larger the darker a channel (log(v + 8): a grey level of noise at v = 10 is 0.06, at v = 200 0.005).
# On a dark felt board (design 14,500,002: (18, 51, 10), noisy) an untouched point differed by 0.21 in
# the median, above SAME_POINT, and 61 of 70 untouched empty points left doubtful in the game frames of
# fresh block 14,500,000 were that design's. The difference is therefore taken above the frame's
# noise floor: the NOISE_QUANTILE quantile of the local differences (as above) in all the fields'
# discs, at least a quarter of whose pixels no change touches (a turn moves a few pieces; a frame read
# against the calibration frame changes at most two thirds of the squares, and a battery fills little
# of its point's disc). The frame's colour shift (each channel's median difference over those pixels:
# the light, or the mean colour the normalisation takes off, moved) is taken off before the absolute
# value, else a shift could cancel a change of content the other way once the floor is off. Measured
# (the floor alone) on games of 6 boards (training designs 3,900,000-039 and development
# designs 5,000,200-219, 2 cameras): the floor was 0.016 (squares) and 0.034 (points) in the median, at
# most 0.06 and 0.08; the smallest change of content fell from 0.367 / 0.458 to 0.350 / 0.435 (the
# limits are still below half of it); untouched fields within the limits rose from 95.8% / 80.7% to
# 96.5% / 84.2%, on design 14,500,002 from 85.8% / 7.8% to 96.6% / 71.7%. Statistics of the frame
# itself, no look. NETZWERK_NOISE_FLOOR=0 takes the differences as they are (for measuring).
NOISE_FLOOR = os.environ.get("NETZWERK_NOISE_FLOOR", "1") != "0"
NOISE_QUANTILE = 0.25
# A field read as holding something else than the reference showed (a robot or a battery arrived or
# left) whose look changed by less than a change of content ever did is doubtful: the nets answer on a
# look that is all but the reference's (a tiny battery beside its point read empty at 0.999, its look
# 0.166 from the reference's that showed it: design 9,100,022 camera 1). The limits are the smallest
# change of a field's content measured above (the SAME_ limits are half of them); statistics-free, no
# look. On the reader's own game frames (the reference told the true board after each frame) no frame
# read right was lost: training designs 3,900,000-039 (half of them hard), development designs
# 5,000,200-219, the run of record's designs 9,100,000-049 and the fresh block 10,100,000-049 (4
# cameras): 0 of 286, 202, 735 and 789, and that misread was caught.
# Measured and not kept: the other way round, a point read empty whose look changed by a content's
# worth while no square around it changed (a battery the nets miss where nothing beside it moved): on
# sets whose points are dark or saturated prints, an untouched point's look changes by that much with
# the camera's noise alone (0.32-0.36): 3 game frames lost on the run of record's designs, 2 turns of
# 751 made unreadable in benchmarks/referee_anyset.py (design 10,200,002: four untouched points at once),
# no misread of the shipped nets caught.
CONTENT_SQUARE = 0.185
# ... and a square read as holding something else than the reference showed is doubtful where most of
# its middle did not change: the median of its local differences over the disc (SAME_SQUARE_RADIUS, above
# the noise floor) below CONTENT_SQUARE. A robot coming or going changes most of its place (a robot is
# 0.5-0.8 of a square across, the disc 0.6); a battery set down at a corner of the square changes only the
# disc's edge, which the largest difference alone counts as a change of content: a flat dark robot that
# stood still beside a battery set down at its square's corner was read gone at 1.000 (fresh block
# 16,000,000, design 16,000,029 camera 0: its square's middle 0.70 by the largest difference, the rest of
# it at the camera's noise). No look, no figure of a set; it only makes fields doubtful.
# NETZWERK_ROBOT_MIDDLE=0 leaves it out (for measuring); docs/readme-vision.md ("4 December, night")
ROBOT_MIDDLE = os.environ.get("NETZWERK_ROBOT_MIDDLE", "1") != "0"
CONTENT_POINT = 0.317
# A field still unsure gets a second opinion from the nets with the frame's own sure fields as its
# examples (fields.own_frame_look, BoardReader._own_frame_opinion): where it leans the same way and more
# surely, it stands. Both opinions come from the same nets looking at the same patch, so where the
# nets miss a piece (a tiny battery of the fields' colour, a blank side, a robot of the board's colour)
# both lean "empty": taking the surer of the two, whatever it said, read 29% more single frames on
# development and training designs (designs 5,000,200-299 and 3,900,000-039, 1,694 frames) but made
# more confident misreads of such pieces (5 -> 9; on the run of record 1 -> 3 single, 1 -> 2 game), all
# "empty" where a piece stood. A second opinion saying "empty" therefore counts only when it is very
# sure (log-odds OWN_FRAME_EMPTY, 0.999): the pieces missed lay at 0.98-0.999 in both opinions.
# Those designs, estimated offline with this rule alone: single frames 656 -> 697, confident misreads
# 5 -> 5 (the figures of record, with the rules below, are in docs/readme-vision.md)
OWN_FRAME_EMPTY = 7.0
# ... and it seconds a lean: where the first opinion leans neither way (below 0.8, log-odds 1.39), a sure
# second one is one look against another (the answer depends on the examples the nets are shown: a
# field they cannot tell), not a second opinion. Added after the run of record showed a black robot read
# empty at 1.000 whose first opinion was 0.50 (design 9,100,022 camera 2); the figures are therefore
# reported on a fresh block of designs as well (docs/readme-vision.md)
OWN_FRAME_LEAN = 1.39
# ... and it is not asked about a point at a corner of a square that may hold a robot (not surely empty):
# a tall robot in a tilted view hides such a point, and the frame's examples elsewhere are not hidden.
# benchmarks/vision_anyset.py --only hidden (designs 5,000,410-419): asked there too, the second
# opinion made 3 more hidden points sure and wrong (3 -> 6 of 51)
# The fine second look (fields.fine_look: the points at 48 px, a net of their own, the frame's own sure
# points as examples) is asked about the points still unsure after the looks above, by the own-frame
# look's rules: it seconds a first opinion that leans at least FINE_LEAN the same way and more surely,
# "empty" only from FINE_EMPTY on. The points net's misses are batteries read empty, the fine net's too:
# on the held-out set-ups of its data (1,709 batteries looked at so) it read 6 empty at log-odds 5 or
# more, 3 at 6, none at 7 (docs/readme-training.md, the fine look). Unlike the own-frame look, it is
# asked about a point at a corner of a robot's square unless a robot standing there could hide the point
# from this camera (the tallest robot's geometry, HIDE_HEIGHT): such corners were most of the points left
# unsure on development designs 5,000,220-259 (2 cameras, single and game frames: 856 + 152 unsure points,
# those asked so 180 + 21 made sure and right, 1 sure and wrong (a battery read empty at 8.99); every
# corner left out: 93 + 3). NETZWERK_FIELD_FINE=0 leaves it out (for measuring)
FINE_LEAN = OWN_FRAME_LEAN
FINE_EMPTY = OWN_FRAME_EMPTY
# A point read empty that a robot read beside it could hide from the camera is doubtful, unless its look
# vouches for it: the nets, shown a robot's body where a battery would stand, read "empty" (a tall robot
# in a tilted view: benchmarks/vision_anyset.py --only hidden, designs 5,000,410-419, 5 cameras: 6 of 89
# hidden point-frames read sure and wrong, every one a battery read empty at 0.98-1.00). Which corner
# points a robot could hide is geometry alone (patches.hideable_corners: the camera as the homography
# gives it, a robot of the largest size issue #20 names, HIDE_HEIGHT tall and HIDE_RADIUS across the half;
# HIDE_MARGIN for where on its square it stands, a tenth of a square for the widest). The look vouches
# where the point looks just as in a board the reader was told it empty (the reference or the memory, the
# SAME_POINT test), or where its middle, a battery's place (HIDE_SEEN_RADIUS), changed less than a change
# of content does (CONTENT_POINT) since the reference that showed it empty: then the robot does not cover
# it, as a short or slim robot of most sets does not (a robot's shadow or its edge leaning near changes
# the middle by 0.16-0.26). Measured: the hidden study 6 -> 1 sure and wrong (not an independent figure:
# HIDE_MARGIN is what the study's misreads needed, their points lay up to 0.48 of a square from a tall
# robot's axis); fresh designs 10,300,010-039 in the same study 25 -> 11 of 464. Left: a battery set down
# (nearly) all hidden behind a robot that stood there already changes the point's look less than a content
# does (the vouching look was a covered one; in a game the referee then counts 13 batteries, a board no
# turn makes, and asks), and a wide robot off its square's centre hiding a battery set down off its point.
# Development designs 5,000,200-229 (2 cameras, games of 6 boards): 289 -> 282 of 360 game frames read
# right (points a robot may hide are doubtful now); the referee on designs 10,200,000-024 (751 turns): one
# turn more asked, none wrong; figures of record in docs/readme-vision.md.
# Once the game has shown how far this set's robots reach (a robot arrived beside an empty point it could
# hide, or left one, and the point's middle changed by a content's worth: BoardReader._learn_reach keeps
# the largest such gap of corner_gaps), a point read empty that a robot read now stands that close to is
# doubtful whatever its look (HIDE_REACH): the look it had when it was told empty may have been a covered
# one. Measured: the hidden study 1 -> 0; fresh designs 10,300,010-039 11 -> 6 of 464 (left: four in the
# first boards of a game, before any robot came or went beside an empty point, two out of the cylinder's
# reach); development games 282 -> 282 of 360; the referee on designs 10,200,000-024 the same (747 right,
# 2 asked, 2 unreadable, 0 wrong of 751).
# Neither rule makes a point doubtful where the frame shows that no robot covers any of it: no pixel
# within a battery's reach of the point (HIDE_CLEAR_RADIUS, the SAME_POINT_RADIUS a battery set down for
# this point stands within) has either robot colour of this set (within FAR_COLOUR of one, per pixel,
# after a 3x3 blur for the camera's noise: BoardReader._clear_of_robots). A battery more than half hidden
# has its centre behind the robot (a robot's outline is convex), and that centre lies within the reach:
# so the robot's body shows there, in its colour. Where the board, its print or the battery has a robot's
# colour, the point stays doubtful. Learned colours and the geometry only: no look. Measured before it was
# written (a study script, not kept): on development designs 5,000,200-219 (2 cameras, single and game
# frames) 55 of the 84 points the rules made doubtful were cleared, every one empty and in full view; on
# the hidden study (designs 5,000,410-419, the tallest robots, 5 cameras) 66 hidden point-frames, none
# cleared (a hidden battery's point itself often shows the board: it lay off its point, behind the robot,
# so the robot's middle-only test, a disc of 0.04-0.1, cleared 9 of them, 5 read empty). Then, with it:
# development designs single frames 110 -> 132 of 240, game 199 -> 205, 0 misreads; the fresh block
# 11,500,000-039 (2 cameras) single 178 -> 212 of 480, game 346 -> 350, the same 2 + 1 misreads; fresh tall
# designs 11,400,000-029 (--only hidden): the same 71 doubtful, 40 sure and right, 1 sure and wrong (a
# battery set down behind a start robot that stood there at calibration, vouched for by the reference's
# look, as before). NETZWERK_HIDE_CLEAR=0 leaves it out (for measuring); docs/readme-vision.md, 1 December
# A point every look leaves unsure, but where all four looks lean towards a battery -- the points net
# (its first answer, before any known look), the own-frame look, the fine look and the set's own last
# layer (asked afresh here, each on its own, whatever the rules above took of it) -- and their log-odds
# add up to AGREE_BATTERY, holds a battery (BoardReader._agreed_battery). The looks are not
# independent (three of them are the same nets shown other examples), so the sum is no probability; it
# is a rule measured on the looks' answers. The nets' misses lean the other way (a battery they cannot
# see reads empty in every look: the dangerous direction, where no such rule is made); an empty point
# on which all four looks lean a battery did not occur. Measured before it was written (a study
# script, not kept, every look's log-odds at each point left "the camera cannot tell whether a battery
# stands there"): development designs 5,000,200-239 (2 cameras, 6 single and 6 game frames a set-up)
# 322 + 60 such points, of the empty ones none with all four looks leaning a battery (the lowest sum of
# an empty point's four log-odds +0.75 single, +10.0 game); at -6 all four leaning: 24 + 6 points
# called, all batteries, 12 + 2 frames read right more. Block 12,500,000 (looked at before, the same
# set-up): 453 + 71 such points, no empty one with all four leaning (lowest sum -0.87), 29 + 10 called,
# all batteries, 7 + 6 frames more. Figures of record in docs/readme-vision.md ("2 December, fourth
# session"); NETZWERK_FIELD_AGREE=0 leaves it out (for measuring)
AGREE_BATTERY = 6.0
# The same for the squares left "the camera cannot tell whether a robot stands there": three looks (the
# squares net's first answer, the own-frame look, the squares head) leaning towards a robot, adding up
# to AGREE_ROBOT, make it a robot (BoardReader._agreed_robot; its colour is the colour model's, as any
# robot's). Measured before it was written (a study script, not kept): on development designs
# 5,000,200-239 and blocks 12,500,000 and 12,600,000 (looked at before; 2 cameras, 6 single and 6 game
# frames) 155 + 21 such squares, no empty one with all three leaning a robot; at -6, 18 + 5 robots
# called, all right, 8 + 3 frames read right more (0 on 12,500,000). Robots the nets miss lean empty (a
# robot of the board's colour): no rule that way.
AGREE_ROBOT = 6.0
AGREE = os.environ.get("NETZWERK_FIELD_AGREE", "1") != "0"
# A point the reference showed holding a battery that every look leaves unsure, where all four looks (as
# for AGREE_BATTERY) lean towards empty, the points net's first answer and the set head each by at least
# VACATED_LOOK and the four by VACATED_SUM together, is empty: the battery left (BoardReader._vacated).
# The points a battery has just left were the largest cause of game frames held back: on development
# designs 5,000,200-239 (2 cameras, games of 6 boards) 30 of about 70 doubtful fields, each read empty at
# 0.71-0.98, the printed ring of an empty field plainly in view. Measured before it was written (a study
# script, not kept, every look's log-odds at each unsure point leaning empty; development designs and block
# 12,500,000, single and game frames): the reference showed a battery at 381 + 62 such points that were
# empty; at the 2 + 1 batteries among them with all four looks leaning empty, the first answer and the
# head lay at 0.75-1.1; the rule called 232 + 44 empty points and no battery.
# It was off by default while it claimed frames the nets misread elsewhere. Without the check of a
# battery that arrived unseen (ARRIVED_Z, below), fresh block 13,200,000: confident misreads 1 -> 3
# (batteries arriving read empty at 0.999); with it, fresh block 13,300,000 (200 set-ups): single frames
# 677 -> 721 of 1,200, game frames 978 -> 1,005, confident misreads 4 + 1 -> 6 + 2 (a point whose battery
# left read a battery at 0.997-0.998 by the points net, design 13,300,020 camera 3, in frames the vacated
# points had held back), and the referee on fresh block 13,400,000 (781 turns) the same with and without
# (775 right, 1 asked, 5 unreadable, 0 wrong: the rules prior settles a point a battery left). With the
# check of a battery still read where it left (LEFT_LEAN, below) and both middle checks looking beside
# robots that moved where no robot's colour shows over the middle (MOVED_CLEAR, below), **on by
# default**: block 13,300,000 707 of 1,200 single frames and 997 game frames, confident misreads 0 + 1
# (4 + 1 without the rule and MOVED_CLEAR); development designs 5,000,200-239 (2 cameras) 289 -> 301 and
# 420 -> 440 of 480, 0 misreads; fresh block 13,800,000 (2 cameras, 79 set-ups accepted) 239 -> 254 and
# 384 -> 385 of 474, 0 misreads both. NETZWERK_VACATED=0 leaves it out (for measuring);
# docs/readme-vision.md ("3 December" and "3 December, later")
VACATED_LOOK = 2.0
VACATED_SUM = 12.0
VACATED = os.environ.get("NETZWERK_VACATED", "1") != "0"
# A point the reference showed empty that is read empty whose middle, a battery's place
# (HIDE_SEEN_RADIUS), changed by more than ARRIVED_Z times the frame's typical change of an untouched
# point's middle (the median over the points read as the reference showed them: the camera's noise, this
# print's, this light's) and by at least ARRIVED_MIN, while no square it is a corner of changed (no robot
# came or went beside it to lean or cast a shadow over it), is doubtful: something arrived at the point
# that the nets do not make out (BoardReader._arrived_unseen; no look, the frame's own statistics). The
# nets read arriving batteries empty at 0.999 where they are the print's colour (design 13,200,001
# camera 1: C4 and F1, their middles changed by 0.57 and 0.49 where the frame's untouched points changed
# by 0.05-0.07). An earlier check of this kind on the whole reach with CONTENT_POINT as its limit lost
# frames on dark prints (their untouched points change by 0.32-0.36 with the camera's noise alone); the
# middle and the frame's own noise keep clear of that. Measured before it was written on the reader's own
# frames (a study script, not kept; development designs 5,000,200-239 and blocks 13,100,000, 13,200,000,
# 2 cameras, 6 single and 6 game frames): at 4 and 0.3, no frame read right lost, both misreads caught
# and 20 frames with a battery missed so (held back by other fields) now name it. A robot arriving beside
# a point changes its middle by as much (a lean, a shadow): there the check cannot tell and says nothing.
# NETZWERK_ARRIVED=0 leaves it out (for measuring)
ARRIVED_Z = 4.0
ARRIVED_MIN = 0.3
ARRIVED = os.environ.get("NETZWERK_ARRIVED", "1") != "0"
# The other way round: a point the reference showed holding a battery that is read holding one, whose
# middle changed as much (the same limits, nothing moved beside it), is doubtful where both looks that
# do not see the reference -- the own-frame look and the fine look, the frame's own sure points as
# examples -- lean empty by LEFT_LEAN (BoardReader._left_unseen): the battery left and the nets, shown the
# reference's battery, still read one (B2 of design 13,300,020 camera 3 at 0.998, G2 of 13,500,027 camera
# 1 at 0.982). A battery turned over changes the middle as much, but those looks then see a battery
# (log-odds -2.5 to -38 towards it). Measured before it was written on the reader's own frames (a study
# script, not kept; development designs 5,000,200-239 and block 13,200,000, 2 cameras, 6 single and 6
# game frames; 61 + 1,986 such points, 5 of them left): at 1.0 every point whose battery left was flagged,
# 3 batteries turned over too, none in a frame read right. Fresh block 13,600,000 (80 set-ups): 244 and
# 376 of 480 frames read right with and without it, 0 misreads; on block 13,300,000 with the rule for
# points whose battery left it caught that rule's game misread (B2 of 13,300,020 camera 3). Figures in
# docs/readme-vision.md ("3 December"); NETZWERK_LEFT=0 leaves it out (for measuring)
LEFT_LEAN = 1.0
LEFT = os.environ.get("NETZWERK_LEFT", "1") != "0"
# Both checks also look at a point beside which a robot came or went, where the point's middle shows
# neither robot colour of this set, in the reference nor now (no pixel within FAR_COLOUR of one, the
# patches blurred 3x3, as HIDE_CLEAR has it; BoardReader._clear_of_robots on the middle): a robot's body over the
# middle would show its colour there, so the change is not the robot's lean. The nets' sure misses left
# on fresh block 13,300,000 were batteries beside a start robot that left: D7 of design 13,300,020
# camera 2 (a tiny dark battery in a black printed ring, 3 single frames, 0.996-0.998), A7 of 13,300,034
# camera 1 (0.995), and, with the rule for points whose battery left, B2 of 13,300,020 camera 3 (a
# battery gone read as one at 0.998). A shadow that came or went with the robot changes the middle as
# well, and some frames are then held back for nothing: development designs 5,000,200-239 (2 cameras)
# 289 -> 284 of 480 single frames, 420 -> 419 game frames; block 13,300,000 (200 set-ups) 677 -> 663 and
# 978 -> 970 of 1,200, confident misreads 4 + 1 -> 0 + 1. NETZWERK_MOVED_CLEAR=0 leaves it out (for
# measuring); docs/readme-vision.md ("3 December, later")
MOVED_CLEAR = os.environ.get("NETZWERK_MOVED_CLEAR", "1") != "0"
# A point the reference showed holding a battery, read empty now, whose middle (a battery's place,
# HIDE_SEEN_RADIUS) looks unlike every empty look of it the reader knows (an earlier board told with it
# empty, :mod:`memory`) by at least a change of content (CONTENT_POINT, above the frame's noise floor)
# is doubtful: where its battery left, the point's middle looks as it did empty; where a battery still
# stands and the nets do not see it, it does not. The middle, not the battery's whole reach: a robot's
# edge or shadow beside the point changed the whole reach of 21 of 183 such points truly empty (games
# of fresh block 14,500,000 and development designs 5,000,200-219, 2 cameras), their middles one. The
# nets can be sure and wrong on a battery turned over to a side they do not see: design 13,300,019 camera 0, a battery turned from its blank side to its printed
# one, read empty at 0.999 (the points net 1.000), its look 2.1 from the point's empty look of two boards
# before. A point of which no empty look is known (a start battery not yet moved) is not judged. Only
# doubts; NETZWERK_UNLIKE_EMPTY=0 leaves it out (for measuring); docs/readme-vision.md ("3 December,
# evening")
UNLIKE_EMPTY = os.environ.get("NETZWERK_UNLIKE_EMPTY", "1") != "0"
# A field the nets call more likely seen than covered (covered below COVERED), that touches no covered
# field, and whose state seen they are very sure of (log-odds STRAY_SURE, the second opinions' bar for
# "empty") is read as seen: its covered share is the nets hedging on a look unlike any they were trained
# on, not a hand (a hand or an object over the board covers a group of touching fields, HAND_GROUP, and
# its edge lies beside the fields it covers). A covered share that large counted against the field
# (BoardReading's probabilities mix in a covered field as every state alike), so that a share of 4%
# made a field doubtful however sure the nets were of it seen. On our renderer's designs the share is
# nil (development designs 5,000,200-239, 2 cameras, 6 single and 6 game frames: of 12,979 battery
# point-frames, 9 with a share above 2%); on ../shared/vision-dev, a renderer not ours, the blank side
# of its batteries (a plain disc, the start frame's examples all printed) had shares of 4-41% on
# every look (30 fields of 48 frames doubtful for it alone, 23 points and 7 squares, every one right
# seen). The rules after it (a point a robot may hide, a look changed as no empty field's, a battery
# arrived or left unseen) still make a field doubtful. NETZWERK_STRAY_COVER=0 leaves it out (for
# measuring); docs/readme-vision.md ("3 December, night")
STRAY_COVER = os.environ.get("NETZWERK_STRAY_COVER", "1") != "0"
STRAY_SURE = OWN_FRAME_EMPTY
HIDE_HEIGHT = 0.6
# ... or, where calibration measured it, as tall as this set's robots are (Calibration.robot_height,
# vision.anyset.stature: how far each start robot's silhouette reaches behind its footprint where things
# lean most, as the height of a cylinder reaching that far, a margin added), when that is less: a flat
# piece (a draughts checker, a go stone) hides no point beside it, where the tallest robot would. Only
# which points a robot could hide (BoardReader._hideable); the verdict's gap features stay the tallest
# robot's, as its data was made. Measured before it was written (a study script, single frames of
# designs 20,700,000-019, 3 cameras, the design's true height in place of HIDE_HEIGHT): 219 -> 229 of 354
# read right, the same 2 misreads. With the height measured, fresh block 21,000,000 (40 designs x 5
# cameras) single / game frames read right 814 / 1,043 -> 825 / 1,044 of 1,182, 0 misreads both; the
# hidden study (5,000,410-419, robots 0.6 tall) 89 of 89 hidden point-frames doubtful as before, robots 0.45
# tall on 5,000,420-439 49 of 49 (docs/readme-vision.md, "7 December, eleventh session").
# NETZWERK_SET_HEIGHT=0: always HIDE_HEIGHT (for measuring)
SET_HEIGHT = os.environ.get("NETZWERK_SET_HEIGHT", "1") != "0"
HIDE_RADIUS = 0.4
HIDE_MARGIN = 0.1
HIDE_SEEN_RADIUS = 0.12
HIDE_REACH = True
# Under the verdict, a point read as a battery that close to a robot is doubtful too (HIDE_REACH_BATTERY:
# the veto below, not the verdict's evidence, which stays as its data was made): the robot covers the
# point's middle, so what the looks take for a battery may be the robot's own body. The hidden study
# (designs 5,000,410-419): a points net trained on positions set up from scratch read B2 of 5,000,413
# camera 1, empty with 21% of a battery's place in view, a battery at 0.989 (docs/readme-vision.md, "6
# December, second session"). NETZWERK_HIDE_REACH_BATTERY=0: only points read empty (as before).
HIDE_REACH_BATTERY = os.environ.get("NETZWERK_HIDE_REACH_BATTERY", "1") != "0"
# ... where the robot's pixels could cover half of a battery standing on the point itself (HIDE_REACH_SEEN:
# the cover test's pixels and share, HIDE_COVER_SHARE of the smallest battery, on the point alone): a
# battery read there beside a robot whose body leaves the point's middle in view is what the looks see,
# not the robot. NETZWERK_HIDE_REACH_SEEN=0: every point read a battery that close stays doubtful
HIDE_REACH_SEEN = os.environ.get("NETZWERK_HIDE_REACH_SEEN", "1") != "0"
HIDE_CLEAR = os.environ.get("NETZWERK_HIDE_CLEAR", "1") != "0"
# ... and a pixel counts as a robot's there only where it also lies nearer the robot's colour than the
# board's own (the median colour of the squares read empty in the frame: BoardReader._clear_of_robots,
# _board_colour), once the board's colour is told apart from both robots' (MIN_SEPARATION, the bar the
# two robot colours must pass at calibration). A grey cone on a beige card (vision-dev set 5) had the card
# itself within FAR_COLOUR of the cone's colour: every point beside such a robot stayed "the robot may
# hide it", each plainly in view. A robot whose colour the board's cannot be told from keeps every pixel
# within FAR_COLOUR (the rule as before). Colours only, no look. Measured (single / game frames read right,
# confident misreads), NETZWERK_BOARD_NEARER=0 -> on: vision-dev 16 / 20 -> 17 / 21 of 48, 0 misreads;
# development designs 5,000,200-239 (2 cameras) 309 / 442 -> 322 / 445 of 480, 0 misreads; fresh block
# 15,300,000 (2 cameras) 196 / 361 -> 201 / 363 of 480, 0 + 1 misreads both (an empty point read a battery
# at 0.991); block 15,000,000 251 / 397 -> 252 / 398; the hidden study (5,000,410-419) the same 56
# doubtful, 33 sure and right, 0 sure and wrong of 89, a fresh tall block 15,200,000-009 148 / 114 / 1 both
# (the one: a battery set down behind a start robot, 3% in view, as before); docs/readme-vision.md ("3
# December, night")
BOARD_NEARER = os.environ.get("NETZWERK_BOARD_NEARER", "1") != "0"
# ... nor where it lies nearer the pixel in the same place of another point's patch that shows how a
# point looks empty here (the nearest point read empty and shown empty in the reference, no robot at
# its corners, on the board's edge as this one is: BoardReader._clear_of_robots, _empty_looks) than the
# robot's colour: the print at every point (a ring, a disc, the lines) may have a robot's colour, and
# a point plainly in view beside a robot then stayed "the robot may hide it" (development design
# 5,000,228: dark blue robots and teal ones beside teal lines). Colours and the board's own look only.
# NETZWERK_EMPTY_NEARER=0 leaves it out (for measuring)
EMPTY_NEARER = os.environ.get("NETZWERK_EMPTY_NEARER", "1") != "0"
# ... and a robot hides a battery there only where its pixels could cover half of one: the nets are taught
# that a battery half in view is seen (pt_view, docs/readme-training.md), so a point is clear unless some
# battery standing within the reach (its centre within HIDE_CLEAR_RADIUS - HIDE_BATTERY_RADIUS of the
# point) would have at least HIDE_COVER of its footprint under robot-coloured pixels. HIDE_BATTERY_RADIUS
# is the smallest battery the nets are trained to see (the renderer's range, vision/designs.py): a
# smaller one could hide behind fewer pixels, and is not seen anyway. A few robot-coloured pixels at the
# reach's rim (the next robot's edge, a stray pixel or two) hide no battery. Geometry only, no look. NETZWERK_HIDE_COVER=0: any such pixel keeps the
# point hidden, as before (for measuring); figures in docs/readme-vision.md ("3 December, fifth session")
HIDE_COVER_SHARE = 0.5
HIDE_BATTERY_RADIUS = 0.06
HIDE_COVER = os.environ.get("NETZWERK_HIDE_COVER", "1") != "0"
# A point the nets leave unsure, or read empty with no known look vouching for it (it looks neither as
# in a board told with it empty nor as in one with a battery: a battery arrived that the nets miss, or one
# turned to a side they do not see), is looked at once more by the points net's last layer refitted on
# this set's own labelled points (vision.anyset.sethead: the calibration's board, a Gaussian prior keeping
# it near the net's layer); the refitted layer's answer less the net's is added to its log-odds. The
# rules after it (a look changed too little, a point a robot may hide) still make a point doubtful. It
# makes a point surer of "empty" only where it ends very sure (OWN_FRAME_EMPTY, as the second opinion):
# without that rule the run of record's designs 9,100,000-049 read 402 single and 808 game frames (the
# net alone 315 and 697), but three batteries read empty at 0.97 became 0.99, confident misreads. A point
# the nets read empty that surely already is asked only where the reference showed a battery (asking
# every one cost 2-3 ms a read on a frame far from the reference). Figures of record, and what was
# tried, in docs/readme-vision.md ("28 November"); NETZWERK_SET_HEAD=0 leaves it out (for measuring)
SET_HEAD = os.environ.get("NETZWERK_SET_HEAD", "1") != "0"
# The same for the squares: a square the nets leave unsure between empty and a robot (not covered, not
# doubtful by the change check) is looked at once more by the squares net's last layer refitted on the
# calibration board's 36 squares (12 robots, 24 empty), with the same rule for "empty". Development
# designs 5,000,200-259 (2 cameras): single frames 237 -> 242, game frames 529 -> 531 of 720, 0 misreads;
# the squares unsure between empty and a robot in the game frames not read 37 -> 15 (most such frames also
# hold a doubtful point). Figures of record in docs/readme-vision.md ("28 November, morning");
# NETZWERK_SQUARE_HEAD=0 leaves it out
SQUARE_HEAD = os.environ.get("NETZWERK_SQUARE_HEAD", "1") != "0"
# The set heads learn from every board the caller tells the reader (an accepted turn: learn_bare), not
# only from the calibration's: they are fitted again on the last HEAD_BOARDS boards told beside the
# calibration's board (sethead.SetHead.fit_boards; each board's fields looked at as calibration looks at
# a frame, a few ms per board told). A fresh block, 13,200,000-039 (2 cameras, 79 of 80 set-ups
# accepted): game frames read right 364 -> 370 of 474, the same 1 confident misread (a battery the nets
# read empty at 1.000 before and after); single frames are read against the calibration alone (240
# both). Development designs 5,000,200-239: game frames 417 -> 420 of 480, 0 misreads. Figures of
# record in docs/readme-vision.md ("2 December, fifth session"); NETZWERK_HEAD_LEARN=0 leaves it out
HEAD_LEARN = os.environ.get("NETZWERK_HEAD_LEARN", "1") != "0"
HEAD_BOARDS = int(os.environ.get("NETZWERK_HEAD_BOARDS", "12"))
# ... and a set head makes a field surer of "empty" only where the look before it already leaned that way
# (OWN_FRAME_LEAN, as the second opinion's rule): where the nets lean neither way, the head is one look
# against another. A battery turned to its blank side, navy on a navy printed disc, read 59% empty by the
# nets, was made empty at 0.9997 by the points head and claimed (design 13,200,023 camera 1, game frame 1,
# C6). Measured before it was written on the reader's own frames (a study script, not kept): development
# designs 5,000,200-239 no such point; blocks 13,100,000 and 13,200,000 (looked at before, 2 cameras, 6
# single and 6 game frames) 3 + 3 such points, at most 1 frame read right lost, that misread caught.
# NETZWERK_HEAD_LEAN=0 leaves it out (for measuring)
HEAD_LEAN = os.environ.get("NETZWERK_HEAD_LEAN", "1") != "0"
# The verdict (vision/anyset/verdict.py): the probabilities of every field come from a model learned
# on many frames of random designs, weighing all the evidence below (the looks, the known looks, the
# colours, the differences, the neighbours, and each check that raises a doubt) instead of the checks
# each setting a doubtful field's probabilities by hand. NETZWERK_VERDICT=0: the first stage's
# probabilities, as the reader gave them before the verdict (for measuring)
VERDICT = os.environ.get("NETZWERK_VERDICT", "1") != "0"
# Under the verdict, a point the hidden check flags (read empty, a robot beside it could hide it from the
# camera, its look not vouching for it: BoardReader._maybe_hidden) stays doubtful whatever the verdict says:
# its probability halved towards "either", as the first stage does. Issue #20 asks that such a field be
# reported doubtful, never guessed; the verdict alone read 5 of 89 hidden point-frames of the hidden study
# (designs 5,000,410-419) sure and wrong. NETZWERK_HIDDEN_VETO=0 leaves it to the verdict (for measuring).
HIDDEN_VETO = os.environ.get("NETZWERK_HIDDEN_VETO", "1") != "0"
# So does a point the arrival check flags (read empty, its middle changed as a battery arriving changes it,
# nothing moved beside it that explains that: BoardReader._arrived_unseen): on fresh block 16,800,000 the
# verdict overrode it twice (a battery read empty at 0.986-0.993, design 16,800,036 camera 2), the first
# stage's doubt there being right; it costs about 2% of the frames read (held-out verdict data).
# NETZWERK_ARRIVED_VETO=0 leaves it to the verdict (for measuring).
ARRIVED_VETO = os.environ.get("NETZWERK_ARRIVED_VETO", "1") != "0"
# The arrival check fears a battery read empty (the first stage's reading); where the verdict reads a
# battery there, the check and the verdict agree that one arrived, and the veto does not halve it
# (ARRIVED_AGREES). On block 19,700,000 (2 cameras) all 26 points the veto held were batteries, 20 of them
# read so by the verdict. Measured, off -> on (5 cameras x 40 designs, single / game frames read right):
# 19,700,000 805 / 1,048 -> 820 / 1,050, 18,700,000 752 / 1,060 -> 761 / 1,061, 20,200,000 759 / 1,031 ->
# 769 / 1,038; confident misreads the same but one: a frame it released held a battery misread elsewhere
# (18,700,032 camera 2 A6, a blank side of its printed field's colour, read empty at 0.996; docs/readme-
# vision.md, "7 December").
# NETZWERK_ARRIVED_AGREES=0: the veto halves whatever the verdict reads (for measuring)
ARRIVED_AGREES = os.environ.get("NETZWERK_ARRIVED_AGREES", "1") != "0"
# And a robot whose colour is of neither player (FAR_COLOUR) keeps its colour doubtful whatever the verdict
# says, unless its look vouches for it (it looks as the reference's robot of that colour on its square did):
# the verdict's data never showed such a robot read in the wrong colour (0 of 69 held out, 6 December), but
# fresh blocks did, under a lamp's reflection or a shadow band the start robots were not in (18,000,001
# camera 4 e1 at 0.982, 18,000,037 camera 1 c6 at 0.98-0.99, 18,100,023 camera 4 e5 at 1.000), where
# the colour evidence says "neither" and the trees go by the likeness. The referee knows whose robot
# moved there; a guess it does not need. It cost 16 of 1,200 single and 1 of 1,200 game frames on fresh
# block 18,200,000 and none of vision-dev's 48 (docs/readme-vision.md, "6 December, day").
# NETZWERK_FAR_VETO=0 leaves it to the verdict (for measuring).
FAR_VETO = os.environ.get("NETZWERK_FAR_VETO", "1") != "0"
# And so is a point the leaving check flags (LEFT: a battery still read where the middle changed as a
# leaving battery's, nothing moved beside it, and both looks that do not see the reference lean empty):
# the verdict weighed it as evidence and overrode it on fresh block 18,500,000 (F2 of design 18,500,005
# camera 1, game frame 0, read a battery at 0.987: a cream robot set down beside the point the cream
# battery had left). On block 18,400,000 (200 set-ups, 2,400 frames) the check flagged 6 points the
# verdict read surely as batteries, all of them right, in 4 frames otherwise read right
# (docs/readme-vision.md, "6 December, third session"). NETZWERK_LEFT_VETO=0 leaves it to the verdict.
LEFT_VETO = os.environ.get("NETZWERK_LEFT_VETO", "1") != "0"
# ... but not where the point's middle is now as it was in a look the memory keeps of it holding a
# battery (BoardReader._as_remembered_battery): a battery turned back to the side it showed a board or
# two before (R-23: a battery drawn on is turned to its blank side and back the next turn) changes its
# middle against the reference as a leaving one does, and where the frame's own sure batteries show the
# other side, the own-frame and the fine look lean empty: on fresh block 20,400,000 (20 designs x 3
# cameras, games of 6 boards) the leaving check held back 7 batteries still there, every one turned, of
# which 6 had shown that side before (design 20,400,013 camera 2 D6 three boards running). A battery that
# left shows the point's empty look, as it was when the battery stood there only where the battery
# cannot be seen at all. NETZWERK_LEFT_REMEMBERED=0 leaves it out (for measuring)
LEFT_REMEMBERED = os.environ.get("NETZWERK_LEFT_REMEMBERED", "1") != "0"
# The verdict's looks are taken only at points the first look is less than sure of (SURE_LOOK), and the
# nets, shown the reference's battery, can stay sure of one that left: E2 of design 18,500,005 camera 3
# (game frame 1; an empty printed ring beside a robot of the batteries' colour, read a battery at 1.000,
# the first look at -7.7, just past SURE_LOOK), where the own-frame and the fine look, asked, lean empty
# (2.1, 5.4). So the leaving check asks both looks itself at a point it would judge, a battery the
# reference showed and still read, its middle changed so (BoardReader._left_looks); the verdict's
# features stay as before. NETZWERK_LEFT_ASK=0: only where the verdict's looks were taken (for measuring).
LEFT_ASK = os.environ.get("NETZWERK_LEFT_ASK", "1") != "0"
# And a robot the verdict reads in one player's colour while its look is clearly nearer the other player's
# start robots (the likeness the verdict weighs: the nearest reference robot of the other colour at most
# LIKE_AGAINST times as far as the nearest of the colour read) keeps its colour doubtful, unless its look
# vouches for it. The colour disc the calibration chose is the one that tells the start rows apart best,
# and the start rows stand in a context of their own (the batteries at one row's corners, the board's edge
# beyond the other): a disc that also takes in a robot's surroundings can read another robot's colour in
# them later. Fresh block 18,400,000: a cream robot whose disc (its darkest twentieth, off centre) took in
# a dark battery set down beside it read Black at 0.998 (18,400,036 camera 3 b3; its look 0.24 from the
# nearest White robot, 1.20 from the nearest Black one), a white stone whose disc (lifted for a tall
# piece) took in the green board behind it read Black at 0.989 (18,400,037 camera 3 d5; 0.95 against
# 1.92). On development designs 5,000,200-239 (2 cameras, 3,372 robots read surely, none vouched for by
# a known look, none in the wrong colour) the nearest look of the other colour was under half as far in
# 1 of them, under 0.6 in 6; on blocks 18,500,000 and 18,600,000 the likeness alone held back 8 and 19
# single frames and 5 and 4 game frames by itself, with the plain disc below (LIKE_CORE) no single frame
# and 0 and 1 game frames (docs/readme-vision.md, "6 December, third session"). The referee knows whose
# robot moved there. NETZWERK_LIKE_VETO=0 leaves it to the verdict (for measuring).
LIKE_VETO = os.environ.get("NETZWERK_LIKE_VETO", "1") != "0"
LIKE_AGAINST = 0.55
# ... where the plain disc leans the other way too: the median of a small disc (CORE_RADIUS) at the
# square's centre, its colours learned on the reference's robots as they stand (colours.plain_model), a
# colour the calibration's disc search did not choose and so cannot have chosen for the start rows'
# surroundings. Where the likeness and the chosen disc disagree because the light differs (a set whose
# White robots stood in a shadow band at calibration: lit later, they look like the other player's start
# robots), the plain disc keeps to the chosen one's colour (its covariance takes the shade out); where a
# battery or the board beside took the chosen disc, the plain disc sees the robot. NETZWERK_LIKE_CORE=0:
# the likeness alone decides (for measuring)
LIKE_CORE = os.environ.get("NETZWERK_LIKE_CORE", "1") != "0"
CORE_RADIUS = 0.12
# And a robot's colour is claimed only where the colour model itself gives the colour read at least
# WEAK_COLOUR log-odds (0.95), unless its look vouches for it: on fresh block 18,700,000 the verdict read
# robots of two close colours (separation 3.2) in the wrong colour at 0.990-0.991 on colour log-odds of
# 0.4 (18,700,015 camera 2 a1, a3: the likeness, as unsure, and the reference's colour on the square
# weighed instead) and at 0.982 on -2.6 against it (18,700,018 camera 4 c6). On block 18,400,000 (2,400
# frames, 8,527 robots read surely, none vouched for) 63 such robots were right, in 13 frames otherwise
# read right; on development designs 5,000,200-239 (960 frames) none (docs/readme-vision.md, "6
# December, third session"). NETZWERK_WEAK_VETO=0 leaves it to the verdict (for measuring).
WEAK_VETO = os.environ.get("NETZWERK_WEAK_VETO", "1") != "0"
WEAK_COLOUR = 3.0
# ... unless two other measures of the colour both clearly give the colour read (WEAK_LIKE): the likeness
# (its look at most LIKE_AGAINST times as far from the reference's robots of that colour as from the
# other player's: LIKE_VETO's test the other way round) and the plain disc at its centre (LIKE_CORE's),
# the colour model leaning the same way too. A set whose start robots stood under a lamp's reflection or
# in a shadow's fall-off spreads its colours wide, so the colour model's log-odds stay low even for a
# robot whose look says plainly whose it is. Measured, off -> on (5 cameras x 40 designs each): block
# 18,700,000 (where WEAK_VETO was chosen: its misreads had the likeness unsure, or the colour model
# against) single / game frames read right 749 / 1,058 -> 752 / 1,060, block 19,700,000 792 / 1,043 ->
# 805 / 1,048 of 1,188, the same confident misreads (3 + 1, 6 + 2) (docs/readme-vision.md, "7 December").
# NETZWERK_WEAK_LIKE=0: every weak colour doubtful (for measuring)
WEAK_LIKE = os.environ.get("NETZWERK_WEAK_LIKE", "1") != "0"
# And where this frame's board has the colour of one player's robots (its separation from the nearer robot
# colour below MIN_SEPARATION, the limit below which calibration will not tell two robot colours apart), a
# square read empty is doubtful unless its look vouches for it (it looks as in a board told with it empty)
# or is clearly nearer the reference's empty squares than its robots of the board's colour (LIKE_AGAINST):
# colour cannot tell such a robot from the bare board, and the squares net, trained on robots that differ
# from their board, read a pale robot on a near-white board empty at 0.998 (fresh block 19,000,000: design
# 19,000,006 camera 4 b1, separation 1.4; before it 14,900,001 camera 1 and the referee's two wrong
# verdicts of 15,700,000, cream stones on white paper). NETZWERK_BOARD_VETO=0 leaves it to the verdict.
BOARD_VETO = os.environ.get("NETZWERK_BOARD_VETO", "1") != "0"
# ... but not where the change that reaches the point's middle runs on to the edge of the point's patch
# (0.375 of a square from the point every way): the pixels that changed by more than ARRIVED_OPEN_SHARE of
# the middle's largest change (3x3 averaged), the region of them that touches the middle (as the middle's
# change is taken: its disc and the SAME_BLUR around it) reaching the patch's outer ARRIVED_OPEN_RIM pixels
# (BoardReader._arrival_open). That is the edge of something larger than a battery's place, a robot's body
# or its shadow coming or going on a square beside the point (looked at: every such flag of the
# development frames), where an arriving battery changes a region of its own around the point. The flag
# stays one of the verdict's features as it was; only the veto on top of the verdict is lifted. Measured
# before it was written (a study script, not kept; development designs 5,000,200-239 and block 17,400,000,
# 2 cameras, block 17,200,000, 1 camera; single and game frames): of 219 flags, 166 on empty points all
# ran to the rim, of the 53 on batteries 8 did (a battery beside a robot that moved, or a blank side turned
# in the board's colour; the verdict alone read each a battery or doubtful). NETZWERK_ARRIVED_OPEN=0 keeps
# the veto on every flag (for measuring); docs/readme-vision.md ("6 December")
ARRIVED_OPEN_SHARE = 0.4
ARRIVED_OPEN_RIM = 2
ARRIVED_OPEN = os.environ.get("NETZWERK_ARRIVED_OPEN", "1") != "0"
# the verdict's own looks (BoardReader._verdict_looks): every field the first look leaves less sure than
# SURE_LOOK (log-odds, about 0.9995) is looked at by the set head, beside the frame's own fields and, a
# point, at twice the resolution, each look's answer a feature of its own; the frame's fields the first
# look is sure of to EXAMPLE_SURE (log-odds of 0.98, as the first stage's second opinions) are their examples
SURE_LOOK = 7.6
EXAMPLE_SURE = float(np.log(0.98 / 0.02))
GAP_CAP = 5.0                # board units: a point's gap to a robot's camera shadow beyond this is "far"
_NEIGHBOURS = field_neighbours()                 # (85, 85): the fields each field touches
_CORNERS = _NEIGHBOURS[:36, 36:]                 # (36, 49): the corner points of each square
_SQ = square_centers()
_SQUARES_BESIDE = np.hypot(*(_SQ[:, None, :] - _SQ[None, :, :]).transpose(2, 0, 1)) < 1.5   # (36, 36): the up
np.fill_diagonal(_SQUARES_BESIDE, False)                                                    # to 8 squares around each


def _disc(span: float, radius: float) -> np.ndarray:
    """(P, P) bool: the disc of ``radius`` board units at the centre of a patch covering ``span``."""
    c = ((np.arange(PATCH) + 0.5) / PATCH - 0.5) * span
    return (c[None, :] ** 2 + c[:, None] ** 2) <= radius ** 2


_CENTRE = _disc(SQUARE_SPAN, CHANGED_RADIUS)     # the disc at a square patch's centre (the change check)
LIKE_SQUARE_RADIUS = 0.45                         # board units: the part of a square its likeness to others is taken on
_EVERY_OTHER = (np.add.outer(np.arange(PATCH), np.arange(PATCH)) % 2 == 0)   # a checkerboard of the patch's pixels
_LIKE_SQUARE_SAMPLE = _disc(SQUARE_SPAN, LIKE_SQUARE_RADIUS) & _EVERY_OTHER
_SAME_SQUARE_DISC = _disc(SQUARE_SPAN, SAME_SQUARE_RADIUS)
_SAME_POINT_DISC = _disc(POINT_SPAN, SAME_POINT_RADIUS)
_SEEN_POINT_DISC = _disc(POINT_SPAN, HIDE_SEEN_RADIUS)
# the pixels whose SAME_BLUR average reaches the middle (the middle's change is taken over them) and a
# patch's outer ARRIVED_OPEN_RIM pixels (BoardReader._arrival_open)
_SEEN_POINT_REACH = cv2.dilate(_SEEN_POINT_DISC.astype(np.uint8), np.ones((SAME_BLUR, SAME_BLUR), np.uint8)) > 0
_PATCH_RIM = np.ones((PATCH, PATCH), bool)
_PATCH_RIM[ARRIVED_OPEN_RIM:PATCH - ARRIVED_OPEN_RIM, ARRIVED_OPEN_RIM:PATCH - ARRIVED_OPEN_RIM] = False
HIDE_CLEAR_RADIUS = SAME_POINT_RADIUS
_CLEAR_POINT_DISC = _disc(POINT_SPAN, HIDE_CLEAR_RADIUS)
_LIKE_POINT_SAMPLE = _CLEAR_POINT_DISC & _EVERY_OTHER     # a point's likeness to others: its battery reach
# how unlike each point is to the frame's others, square to the board, within its battery reach
# (HIDE_CLEAR_RADIUS): the verdict's p_apart, p_apart_hi (vision.anyset.apart); and the largest of it
# again outside the camera shadows (BoardReader._shadows: the set's height, HIDE_RADIUS + HIDE_MARGIN
# across, as the hidden check takes them) of the robots read beside the point: p_apart_free. A robot's
# body leaning into an empty point's patch set it apart as a battery would (designs 20,700,000-009, 3
# cameras, single frames: of the 60 points left doubtful for a battery, 32 were empty points beside a
# robot); over the points beside a robot there, how often a battery stands further apart than an empty
# point (area under the curve) 0.914 with the whole reach, 0.966 with the shadows left out. And the same
# of the tint (each pixel's difference less its mean over the channels: a lamp's shadow of a robot, which
# no camera geometry places, darkens the board alike in every channel): p_apart_tint, 0.978 beside a robot
# (0.988 against 0.992 where no robot stands beside: a battery of the board's own hue has little tint)
_UNLIKENESS = Unlikeness(aligned_offsets(), HIDE_CLEAR_RADIUS)
_BATTERY_CENTRES = _disc(POINT_SPAN, HIDE_CLEAR_RADIUS - HIDE_BATTERY_RADIUS)   # where a battery in reach stands
_FOOT_PX = HIDE_BATTERY_RADIUS / POINT_SPAN * PATCH                                 # its radius in patch pixels
_FOOT_AT = np.arange(-int(np.ceil(_FOOT_PX)), int(np.ceil(_FOOT_PX)) + 1)
_BATTERY_FOOT = ((_FOOT_AT[None, :] ** 2 + _FOOT_AT[:, None] ** 2) <= _FOOT_PX ** 2).astype(np.float32)  # its footprint


class Differences(NamedTuple):
    """How much each field's look differs from the reference's, above the frame's noise floor (see
    :data:`NOISE_FLOOR`): ``squares`` (36,), ``points`` (49,); and the floors taken off, for comparing
    the looks now with earlier ones (the same camera, the same noise); ``square_middles`` (36,), the
    median of each square's local differences over the same disc above the floor (how much of a robot's
    place changed: :data:`ROBOT_MIDDLE`), or None."""
    squares: np.ndarray
    points: np.ndarray
    floor_squares: float = 0.0
    floor_points: float = 0.0
    square_middles: np.ndarray | None = None


def _local_above_floor(x_now: np.ndarray, x_ref: np.ndarray, disc: np.ndarray) -> tuple[np.ndarray, float]:
    """((n, k) the local differences of each field's look now from the reference's at the k pixels of
    its ``disc``, the frame's noise floor to take off them) (:data:`NOISE_FLOOR`); the colour shift of
    the whole frame taken off first (:func:`colour_shift`: with the floor taken off an absolute
    difference, a shift would otherwise cancel a change of content the other way)."""
    if not NOISE_FLOOR:
        return local_differences(x_now, x_ref, disc, SAME_BLUR), 0.0
    local = local_differences(x_now, x_ref, disc, SAME_BLUR, colour_shift(x_now, x_ref, disc))
    flat = local.ravel()
    k = int(NOISE_QUANTILE * (flat.size - 1))
    return local, float(np.partition(flat, k)[k])


def _square_difference(x_now: np.ndarray, x_ref: np.ndarray) -> np.ndarray:
    """(36,): the largest local difference between two looks of each square in its middle (see
    :data:`SAME_SQUARE`; the discs keep SAME_BLUR // 2 pixels off the patch's edge)."""
    return largest_difference(x_now, x_ref, _SAME_SQUARE_DISC, SAME_BLUR)


def _point_difference(x_now: np.ndarray, x_ref: np.ndarray) -> np.ndarray:
    """(49,): the same for each point, in a battery's reach (:data:`SAME_POINT_RADIUS`)."""
    return largest_difference(x_now, x_ref, _SAME_POINT_DISC, SAME_BLUR)


def _middle_difference(x_now: np.ndarray, x_ref: np.ndarray) -> np.ndarray:
    """(n,): the largest local difference between two looks of each point (as :func:`_point_difference`)
    in its middle, a battery's place (:data:`HIDE_SEEN_RADIUS`)."""
    return largest_difference(x_now, x_ref, _SEEN_POINT_DISC, SAME_BLUR)


def _middle_change(fl: FieldLook | PixelLook) -> np.ndarray:
    """(49,): how much each point's middle changed since the reference (:func:`_middle_difference`)."""
    return _middle_difference(fl.x_points, fl.x_ref_points)


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return np.log(p) - np.log1p(-p)


def _example_states(ze: np.ndarray, zq: np.ndarray, pc: np.ndarray, qc: np.ndarray, unlike: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
    """The examples of the verdict's own-frame and fine looks (:meth:`BoardReader._verdict_looks`): the
    fields the first look (``ze`` / ``zq``, log-odds of empty) is sure of to :data:`EXAMPLE_SURE`, not
    covered (``pc`` / ``qc``), a square not doubtful by the change check either (``unlike``); the
    squares' and the points' states (:func:`_frame_states`)."""
    return (_frame_states(ze, (np.abs(ze) < EXAMPLE_SURE) | (pc >= COVERED) | unlike),
            _frame_states(zq, (np.abs(zq) < EXAMPLE_SURE) | (qc >= COVERED)))


def _clearly_nearer(white: np.ndarray, d_white: np.ndarray, d_black: np.ndarray) -> np.ndarray:
    """(36,) bool: the squares whose look is clearly nearer the reference's robots of the colour given
    (``white``: (36,) bool, White's where True) than those of the other (the likeness ``d_white`` /
    ``d_black``, :data:`LIKE_AGAINST`); False where either is unknown (NaN)."""
    d_near, d_far = np.where(white, d_white, d_black), np.where(white, d_black, d_white)
    with np.errstate(invalid="ignore"):
        return np.isfinite(d_near) & np.isfinite(d_far) & (d_near < LIKE_AGAINST * d_far)


def _looks_like_the_other(sp: np.ndarray, d_white: np.ndarray, d_black: np.ndarray) -> np.ndarray:
    """(36,) bool: the squares read as a robot (``sp``: (36, 3) empty / White / Black) whose look is
    clearly nearer the reference's robots of the other colour than those of the colour read
    (:func:`_clearly_nearer`)."""
    return (sp[:, 0] < 0.5) & _clearly_nearer(sp[:, 1] < sp[:, 2], d_white, d_black)


def _board_like_empty(sp: np.ndarray, sep_board: np.ndarray, toward: np.ndarray, d_empty: np.ndarray,
                      d_robot: np.ndarray) -> np.ndarray:
    """(36,) bool: the squares read empty (``sp``) on a frame whose board has a robot's colour (its
    separation ``sep_board`` from the nearer robot colour below :data:`MIN_SEPARATION`; NaN: no board
    seen) that no known look vouches for as empty (``toward`` > 0) and whose look is not clearly nearer
    the reference's empty squares than its robots of the board's colour (the likeness ``d_empty``,
    ``d_robot``, :data:`LIKE_AGAINST`): see :data:`BOARD_VETO`."""
    with np.errstate(invalid="ignore"):
        return ((sp[:, 0] >= 0.5) & (np.asarray(sep_board) < MIN_SEPARATION) & (np.asarray(toward) <= 0)
                & ~(np.asarray(d_empty) < LIKE_AGAINST * np.asarray(d_robot)))


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


def _seen_logodds(probs: np.ndarray) -> np.ndarray:
    """(n,) the log-odds of empty against a piece, the field seen (its covered share left out), from
    the nets' probabilities ``probs`` (n, >= 2: empty, the piece, ...)."""
    return _logit(probs[:, 0] / np.maximum(probs[:, 0] + probs[:, 1], 1e-12))


def _agreed(z: np.ndarray, todo: np.ndarray, looks: np.ndarray, seen: np.ndarray, bound: float) -> np.ndarray:
    """``z`` (log-odds of empty) where the fields ``todo`` whose ``looks`` ((k, m) log-odds of empty,
    one column a look) all lean towards a piece, every look calling the field seen (``seen``, (k,)
    bool), and add up to ``bound`` take that sum (a copy); ``z`` itself where none does
    (:data:`AGREE_BATTERY`, :data:`AGREE_ROBOT`)."""
    agreed = (looks < 0).all(axis=1) & (looks.sum(axis=1) <= -bound) & seen
    if not agreed.any():
        return z
    out = z.copy()
    out[todo[agreed]] = looks[agreed].sum(axis=1)
    return out


def _sure(z: np.ndarray, c: np.ndarray, kinds: int) -> np.ndarray:
    """How sure a field's likeliest state is, given its log-odds of empty ``z`` (the field seen) and
    the probability ``c`` that it is covered (each of its ``kinds`` states then alike)."""
    return (1 - c) * _sigmoid(np.abs(z)) + c / kinds


def _frame_states(z: np.ndarray, doubtful: np.ndarray) -> np.ndarray:
    """What a frame's fields hold as examples for a second opinion: REF_EMPTY / REF_OCCUPIED by the
    log-odds of empty ``z``, REF_UNKNOWN at the fields ``doubtful`` (unsure or covered: no example)."""
    states = np.where(z > 0, REF_EMPTY, REF_OCCUPIED)
    states[doubtful] = REF_UNKNOWN
    return states


def _seconded(z: np.ndarray, c: np.ndarray, z2: np.ndarray, c2: np.ndarray, kinds: int, empty: float) -> np.ndarray:
    """(k,) bool: where a second opinion (log-odds of empty ``z2``, covered ``c2``) replaces the first
    (``z``, ``c``): it leans the same way, calls the field not covered and is surer, and says
    "empty" only from ``empty`` on (the own-frame and the fine look's rule)."""
    take = (np.sign(z2) == np.sign(z)) & (c2 < COVERED) & (_sure(z2, c2, kinds) > _sure(z, c, kinds))
    return take & ((z2 < 0) | (z2 >= empty))


def _with_second(z: np.ndarray, c: np.ndarray, todo: np.ndarray, second: np.ndarray, kinds: int, empty: float
                 ) -> tuple[np.ndarray, np.ndarray]:
    """``z`` (log-odds of empty) and ``c`` (covered), copies, with the second opinion ``second``
    ((k, 2): log-odds of occupied against empty, covered) on the fields ``todo`` taken where it
    seconds the first (:func:`_seconded`)."""
    z2, c2 = -second[:, 0], second[:, 1]
    take = _seconded(z[todo], c[todo], z2, c2, kinds, empty)
    z, c = z.copy(), c.copy()
    z[todo[take]] = z2[take]
    c[todo[take]] = c2[take]
    return z, c


def _share(p: float) -> str:
    """A probability in words' digits: a tenth of a per cent near 0 and 1 (97.9%, not 98%)."""
    p = float(p)
    return f"{p:.1%}" if p < 0.05 or p > 0.95 else f"{p:.0%}"


def _under_a_hand(pc: np.ndarray, qc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The squares and the points covered (probability ``pc`` / ``qc`` at least :data:`COVERED`)
    in groups of at least :data:`HAND_GROUP` touching fields."""
    covered = np.concatenate([pc, qc]) >= COVERED
    if covered.sum() < HAND_GROUP:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    fields = sorted(f for g in touching_groups(covered) if len(g) >= HAND_GROUP for f in g)
    f = np.array(fields, np.int64)
    return f[f < 36], f[f >= 36] - 36


def _stray_cover_dropped(ze: np.ndarray, zq: np.ndarray, pc: np.ndarray, qc: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray]:
    """The squares' and points' covered probabilities ``pc`` (36,) and ``qc`` (49,) (copies) with the
    share of each field set to 0 that the nets call more likely seen (below :data:`COVERED`), that
    touches no covered field, and whose state seen (``ze`` / ``zq``: log-odds of empty) they are sure
    of to :data:`STRAY_SURE` either way (see there)."""
    c = np.concatenate([pc, qc])
    z = np.concatenate([ze, zq])
    covered = c >= COVERED
    beside = (_NEIGHBOURS & covered[None, :]).any(axis=1)
    stray = ~covered & ~beside & (np.abs(z) >= STRAY_SURE)
    c = np.where(stray, 0.0, c)
    return c[:36], c[36:]


_POINT_CORNER_COUNT = _CORNERS.sum(axis=0)          # (49,) 4 inside, 2 on an edge, 1 at a corner of the board
# the points' distances between points on the board's edge alike (the print's lines end at the edge): the
# empty looks are the nearest of these (_empty_looks)
_SAME_EDGE_POINT_DIST = np.where(_POINT_CORNER_COUNT[:, None] == _POINT_CORNER_COUNT[None, :], _POINT_DIST, np.inf)


def _empty_looks(x_points: np.ndarray, robot: np.ndarray, empty: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """(49,) for each point of ``rows`` the nearest other point that shows how it looks empty here
    (-1: none; see :data:`EMPTY_NEARER`): read empty and shown empty in the reference (``empty``),
    no robot on a square it is a corner of (``robot``, (36,) read holding one), and on the board's edge
    as the point is (the print's lines end there)."""
    out = np.full(49, -1, np.int64)
    todo = np.flatnonzero(rows)
    if x_points is None or not len(todo):
        return out
    free = np.asarray(empty, bool) & ~(_CORNERS & np.asarray(robot, bool)[:, None]).any(axis=0)
    states = np.where(free, REF_EMPTY, REF_UNKNOWN)
    out[todo] = example_fields(np.broadcast_to(states, (len(todo), 49)), todo, _SAME_EDGE_POINT_DIST)[:, 0]
    return out


def _board_colour(x_squares: np.ndarray, empty: np.ndarray) -> np.ndarray | None:
    """(3,) the board's own colour in a frame: the median normalised log colour of the pixels of the
    squares read empty (``empty``, (36,) bool; ``x_squares`` (36, 3, P, P)); None without one."""
    idx = np.flatnonzero(empty)
    if not len(idx):
        return None
    return np.median(x_squares[idx].transpose(1, 0, 2, 3).reshape(3, -1), axis=1)


def _structure(patches: np.ndarray) -> np.ndarray:
    """(n, P*P*3): each patch's colour pattern, each channel about its own mean, the whole of unit
    length (for a normalised cross-correlation between two looks of a field). Colour, not brightness
    alone: a print may differ from its board in hue only (blue rings on a dark green board: design
    19,100,013, whose fields' brightness patterns were flat enough for the frame's noise to decide
    their match, so that boards set up anew were refused as moved)."""
    p = patches.reshape(len(patches), -1, 3).astype(np.float32)
    p -= p.mean(axis=1, keepdims=True)
    g = p.reshape(len(patches), -1)
    g /= np.sqrt((g * g).sum(axis=1, keepdims=True) + 1e-6)
    return g


def _with_covered(probs: np.ndarray, covered: np.ndarray) -> np.ndarray:
    """``probs`` (..., K) of a field seen, with its share ``covered`` (...) of being covered: a
    covered field is any of the K states."""
    return (1 - covered)[..., None] * probs + covered[..., None] / probs.shape[-1]


def covered_on_top(sp: np.ndarray, pp: np.ndarray, pc: np.ndarray, qc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The verdict's probabilities (squares ``sp`` (..., 36, 3), points ``pp`` (..., 49, 2)) as the
    reader gives them: the verdict weighs the nets' covered share itself (among its evidence, a field
    under a hand trained towards "cannot tell"); only a field the nets see covered (``pc`` / ``qc`` at
    least :data:`COVERED`) keeps its share on top, so that it stays doubtful whatever the verdict says."""
    return (_with_covered(sp, np.where(pc >= COVERED, pc, 0.0)), _with_covered(pp, np.where(qc >= COVERED, qc, 0.0)))


def _square_probs(ze: np.ndarray, pw_given_robot: np.ndarray, pc: np.ndarray) -> np.ndarray:
    """(36, 3) P(empty, White, Black) from the log-odds of empty (the square seen), P(White | a robot)
    and P(covered)."""
    pe = _sigmoid(ze)
    return _with_covered(np.stack([pe, (1 - pe) * pw_given_robot, (1 - pe) * (1 - pw_given_robot)], axis=1), pc)


def _point_probs(zq: np.ndarray, qc: np.ndarray) -> np.ndarray:
    """(49, 2) P(empty, battery) from the log-odds of empty (the point seen) and P(covered)."""
    pe = _sigmoid(zq)
    return _with_covered(np.stack([pe, 1 - pe], axis=1), qc)


class PixelChecks(NamedTuple):
    """What the reader takes of a frame's pixels alone, before any net's answer
    (:meth:`BoardReader._pixel_checks`): how well the board is where it was, the differences from the
    reference, the squares' colour descriptors with their log-odds White against Black (clipped to
    +-30) and their distance to the nearer robot colour, the likeness to the reference's fields (None
    without the verdict) and the points' middle change (None without the reference's own looks)."""
    alignment: float
    diffs: Differences | None
    desc: np.ndarray
    llr: np.ndarray
    fit: np.ndarray
    like: dict[str, np.ndarray] | None
    middle: np.ndarray | None
    apart: Apart | None = None             # vision.anyset.apart.Unlikeness.measure (None without the frame)


@dataclass(frozen=True)
class Evidence:
    """What the reader saw of every field of one frame (:meth:`BoardReader._evidence`)."""

    squares: np.ndarray            # (36, len(SQUARE_FEATURES)) the verdict's features of each square
    points: np.ndarray             # (49, len(POINT_FEATURES)) and of each point
    # the probabilities before the verdict: the first stage's (NETZWERK_VERDICT=0: the reading's), or with
    # the verdict the provisional ones its checks start from (each field's looks averaged)
    stage_squares: np.ndarray      # (36, 3) P(empty, White, Black)
    stage_points: np.ndarray       # (49, 2) P(empty, battery)
    covered_squares: np.ndarray    # (36,) P(covered): a hand or an object over it
    covered_points: np.ndarray     # (49,)
    unlike: np.ndarray             # (36,) bool: each check's doubt (the words of _doubt_causes)
    far: np.ndarray                # (36,) bool: a colour of neither robot
    hasty_squares: np.ndarray      # (36,) bool
    hasty_points: np.ndarray       # (49,) bool
    hidden: np.ndarray             # (49,) bool
    arrived: np.ndarray            # (49,) bool
    left: np.ndarray               # (49,) bool
    unlike_points: np.ndarray      # (49,) bool
    board_colour: np.ndarray | None = None   # (3,) the board's own colour this frame (BOARD_VETO); None unseen


def runs_to_rim(mask: np.ndarray, middle: np.ndarray) -> bool:
    """Whether an 8-connected region of ``mask`` ((P, P) bool, a point patch's pixels) that touches
    ``middle`` ((P, P) bool) reaches the patch's rim (:data:`ARRIVED_OPEN_RIM` pixels): the edge of
    something larger than the point's own place (:meth:`BoardReader._arrival_open`,
    ``calibration._covered_by_robots``)."""
    mask = np.asarray(mask, np.uint8)
    _, label = cv2.connectedComponents(mask, connectivity=8)
    touching = np.unique(label[middle & (mask > 0)])
    touching = touching[touching > 0]
    return bool(touching.size) and bool(np.isin(label[_PATCH_RIM], touching).any())


def robot_pixels(colours: ColourModel, x_points: np.ndarray, idx: np.ndarray, disc: np.ndarray,
                 board: np.ndarray | None = None, empty_look: np.ndarray | None = None) -> np.ndarray:
    """(n, k) bool: which of the k pixels of ``disc`` ((P, P) bool, kept a pixel off the patch's edge) of
    each point ``idx`` ((n,) indices) have a robot colour of ``colours`` (:func:`clear_of_robots`)."""
    # the disc lies off the patch's edge: the 3x3 average stays inside each patch
    px = box_blurred(x_points[idx], 3)[:, :, disc].transpose(0, 2, 1)                  # (n, k, 3)
    flat = px.reshape(-1, 3)
    dist = colours.fit_distance(flat).reshape(len(idx), -1)
    robot = dist <= FAR_COLOUR
    # the board's own colour, told apart from both robots' (see BOARD_NEARER): a pixel nearer it is the board's
    if board is not None and colours.separation_of(board) >= MIN_SEPARATION:
        robot &= dist < colours.distance_to(flat, board).reshape(len(idx), -1)
    if empty_look is not None and (empty_look[idx] >= 0).any():
        has = empty_look[idx] >= 0
        ex_all = box_blurred(x_points[empty_look[idx][has]], 3)
        mine = px[has].reshape(-1, 3)
        like_empty = np.full(mine.shape[0], np.inf)
        # the other point's pixel in the same place or one beside it (two patches' print lies a pixel
        # apart where their points' lean differs)
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                ex = np.roll(ex_all, (dy, dx), axis=(2, 3))[:, :, disc].transpose(0, 2, 1).reshape(-1, 3)
                like_empty = np.minimum(like_empty, colours.distance_between(mine, ex))
        robot[has] &= dist[has] < like_empty.reshape(int(has.sum()), -1)
    return robot


def clear_of_robots(colours: ColourModel, x_points: np.ndarray, rows: np.ndarray,
                    disc: np.ndarray = _CLEAR_POINT_DISC, board: np.ndarray | None = None, cover: bool = False,
                    empty_look: np.ndarray | None = None) -> np.ndarray:
    """(49,) bool: of the points ``rows`` (49,) bool, those in whose ``disc`` ((P, P) bool: a
    battery's reach, :data:`HIDE_CLEAR_RADIUS`; or its middle, :data:`HIDE_SEEN_RADIUS`, for
    :data:`MOVED_CLEAR`) no pixel has either robot colour of ``colours`` (the set's :class:`ColourModel`;
    within :data:`FAR_COLOUR` of one, the patch blurred 3x3): no robot covers any of it. ``x_points``: (49, 3, P, P) the point
    patches' normalised log colour (now, or the reference's). ``board``: (3,) the board's own colour,
    or None: where given and told apart from both robot colours, a pixel nearer it than the robot's
    colour is not a robot's (:data:`BOARD_NEARER`). ``cover``: a point is clear unless the robot's pixels
    could cover :data:`HIDE_COVER_SHARE` of a battery standing within the reach (:data:`HIDE_COVER`).
    ``empty_look``: (49,) indices of another point showing how each point looks empty (-1: none,
    :func:`_empty_looks`): a pixel nearer that point's pixel in the same place than the robot's colour
    is not a robot's (:data:`EMPTY_NEARER`)."""
    out = np.zeros(49, bool)
    idx = np.flatnonzero(rows)
    if not len(idx):
        return out
    robot = robot_pixels(colours, x_points, idx, disc, board, empty_look)
    if not cover:
        out[idx] = ~robot.any(axis=1)
        return out
    out[idx] = _cover_shares(robot, disc)[:, 0] < HIDE_COVER_SHARE
    return out


def _cover_shares(robot: np.ndarray, disc: np.ndarray) -> np.ndarray:
    """(n, 2): for each point's robot pixels ``robot`` ((n, k) bool over the k pixels of ``disc``,
    :func:`robot_pixels`), the largest share of the smallest battery's footprint (:data:`HIDE_BATTERY_RADIUS`)
    under them of a battery standing anywhere within the reach (:data:`_BATTERY_CENTRES`), and that
    share of one standing on the point itself."""
    foot = _BATTERY_FOOT / _BATTERY_FOOT.sum()
    out = np.zeros((len(robot), 2))
    mid = slice(PATCH // 2 - 1, PATCH // 2 + 1)          # the four pixels about the patch's centre
    for k in range(len(robot)):
        mask = np.zeros(disc.shape, np.float32)
        mask[disc] = robot[k]
        share = cv2.filter2D(mask, -1, foot, borderType=cv2.BORDER_CONSTANT)
        out[k] = float(share[_BATTERY_CENTRES].max()), float(share[mid, mid].mean())
    return out


def cover_shares(colours: ColourModel, x_points: np.ndarray, rows: np.ndarray, board: np.ndarray | None = None
                 ) -> np.ndarray:
    """(49, 2): how much of a battery at each point of ``rows`` ((49,) bool) a robot's pixels could
    cover (:func:`_cover_shares`: the most over the battery's reach, and of one on the point itself),
    0 for the other points; the pixels as :func:`clear_of_robots` finds them in ``x_points`` ((49, 3, P, P),
    as there) with ``board`` (its colour, or None) and no empty look."""
    out = np.zeros((49, 2))
    idx = np.flatnonzero(rows)
    if len(idx):
        out[idx] = _cover_shares(robot_pixels(colours, x_points, idx, _CLEAR_POINT_DISC, board), _CLEAR_POINT_DISC)
    return out


class BoardReader:
    """Reads frames of one camera set-up.

    ``min_confidence``: a field whose chosen state has a lower probability is
    reported as low-confidence (and the frame as not readable). ``adapt``:
    follow slow light changes: each board the caller confirms (``learn_bare``)
    becomes the reference and nudges the robot colours.
    """

    def __init__(self, calibration: Calibration, *, min_confidence: float = 0.98, adapt: bool = True,
                 judge: bool = True, **_ignored) -> None:
        if not isinstance(calibration, Calibration):
            raise VisionError("BoardReader needs a Calibration (see vision.calibration.calibrate / Calibration.load)")
        self._cal = calibration
        self.min_confidence = float(min_confidence)
        self.adapt = adapt
        # False: the evidence is gathered but the verdict not asked; the probabilities are the
        # provisional ones the checks start from (training/verdictdata.py makes the verdict's data so)
        self.judge = bool(judge)
        self._cutter = PatchCutter(calibration.H, calibration.image_size)
        self._ref_structure = None     # (reference, its fields' structure): computed once per reference
        self._last = None              # (frame's fingerprint, reference, its field look): the last frame read
        self._memory = None            # (cutter, squares' FieldMemory, points'): earlier references' looks
        self._answers = Answers()      # the nets' last answers: a still field keeps its answer
        self._shadow_masks = None      # (cutter, the camera shadows of robots beside each point: _shadows)
        self._hiding = None            # (cutter, (36, 49) corner gaps, how far this set's robots were seen to cover, gaps at the set's height)
        self._heads = {}               # kind -> the net's last layer fitted to this set (SetHead) or None
        # the boards the set heads learn from: (reference, kind -> its samples, sethead.board_samples)
        self._head_boards = [(calibration.reference, {})]
        self._head_answers = {}        # kind -> [reference, cutter, patches looked at, their corrections]
        self._like_cache = None        # (reference, kind -> its fields' middles as _likeness compares them)
        self._core_cache = None        # (reference, the plain colour model of its robots: _core_llr)

    @property
    def calibration(self) -> Calibration:
        """The calibration as adapted so far (save it to keep the adaptation)."""
        return self._cal

    # -- learning from confirmed boards ------------------------------------------
    def learn_bare(self, image: np.ndarray, layout: BoardLayout) -> int:
        """Take a frame the caller knows shows ``layout`` (an accepted turn) as the new reference.

        Every field not covered by a hand joins the reference with its known
        content, and the robot colours move a little towards this frame's
        (when ``adapt``). Returns the number of fields taken (0 when the frame
        is blank, the wrong size or not a layout).
        """
        if not isinstance(layout, BoardLayout):
            return 0
        try:
            image = check_image(image, self._cal.image_size)
        except VisionError:
            return 0
        if blank_reason(image):
            return 0
        fl = self._looked_at(image)
        if fl is None:
            fl = look(self._cutter, image, self._cal.reference)
        if self._alignment(fl) < MIN_ALIGNMENT:
            return 0
        take_s = fl.squares[:, 2] < COVERED
        take_p = fl.points[:, 2] < COVERED
        old = self._cal.reference
        if fl.x_ref_squares is not None and fl.x_ref_points is not None:
            # the looks the new board replaces join the memory of earlier looks
            ms, mp = self._memory_here(create=True)
            ms.remember(fl.x_ref_squares, old.square_state, old.square_colour, take_s, _square_difference, SAME_SQUARE)
            mp.remember(fl.x_ref_points, old.point_state, np.zeros(49, np.int8), take_p, _point_difference, SAME_POINT)
        self._learn_reach(fl, old, layout, take_p)
        ref = old.updated(fl.square_patches, fl.point_patches, fl.coarse_point_patches, fl.level, layout, take_s, take_p)
        colours = self._cal.colours
        robots = [q for q in range(36) if layout.squares[q].value != "empty" and take_s[q]]
        if self.adapt and robots:
            bg = None if fl.x_background is None else fl.x_background[robots]
            desc = colours.describe(fl.x_squares[robots], self._cutter.square_lean[robots], bg)
            is_white = np.array([layout.squares[q].value == "white" for q in robots])
            near = colours.fit_distance(desc) <= FAR_COLOUR      # a disc that caught something else teaches nothing
            if near.any():
                colours = colours.adapted(desc[near], is_white[near], LEARN_COLOUR_RATE)
        self._cal = replace(self._cal, reference=ref, colours=colours)
        self._teach_heads(ref)
        return int(take_s.sum() + take_p.sum())

    learn = learn_bare

    def _memory_here(self, create: bool = False) -> tuple[FieldMemory, FieldMemory] | None:
        """The memory of earlier looks, if it was made where the board is now (looks cut with another
        homography are not comparable: a board found again starts it anew)."""
        if self._memory is None or self._memory[0] is not self._cutter:
            if not create:
                return None
            self._memory = (self._cutter, FieldMemory.new(36), FieldMemory.new(49))
        return self._memory[1], self._memory[2]

    def _hiding_here(self) -> list:
        """[cutter, (36, 49) the corner points' gaps to a tall robot's camera shadow (corner_gaps), the
        largest gap at which a robot of this set was seen to cover a point's middle (-inf: never), the
        gaps to the camera shadow of a robot of this set's height (:data:`SET_HEIGHT`)], for the
        board's place now (a board found again starts it anew)."""
        if self._hiding is None or self._hiding[0] is not self._cutter:
            gaps = corner_gaps(self._cutter.pose, HIDE_HEIGHT)
            height = self._set_height()
            own = gaps if height >= HIDE_HEIGHT else corner_gaps(self._cutter.pose, height)
            self._hiding = [self._cutter, gaps, -np.inf, own]
        return self._hiding

    def _set_height(self) -> float:
        """How tall the checks take this set's robots: as calibration measured them (:data:`SET_HEIGHT`),
        never taller than the tallest a set may have (:data:`HIDE_HEIGHT`, also where none was measured)."""
        height = self._cal.robot_height if SET_HEIGHT else None
        return HIDE_HEIGHT if height is None else min(height, HIDE_HEIGHT)

    def _set_head(self, kind: str = "points") -> SetHead | None:
        """The net ``kind``'s last layer fitted on the fields of the calibration's board and, where
        :data:`HEAD_LEARN`, of the boards told since (the last :data:`HEAD_BOARDS`; see :data:`SET_HEAD`)."""
        if kind not in self._heads:
            lean = self._cutter.square_lean if kind == "squares" else self._cutter.point_lean
            for reference, samples in self._head_boards:
                if kind not in samples:
                    samples[kind] = board_samples(reference, lean, kind)
            self._heads[kind] = SetHead.fit_boards([samples[kind] for _, samples in self._head_boards], kind=kind)
        return self._heads[kind]

    def _teach_heads(self, reference: object) -> None:
        """A board told (``reference``, the new reference) joins the boards the set heads learn from."""
        if not HEAD_LEARN:
            return
        self._head_boards.append((reference, {}))
        if len(self._head_boards) > HEAD_BOARDS + 1:
            del self._head_boards[1]           # the calibration's board stays
        self._heads = {}

    def _head_correction(self, kind: str, fl: FieldLook, rows: np.ndarray) -> np.ndarray | None:
        """(n,) the set head's correction (:meth:`SetHead.correction`) of the fields of ``kind`` at
        ``rows`` (NaN elsewhere), or None without a head. A field still since the last frame keeps
        its correction."""
        head = self._set_head(kind)
        if head is None:
            return None
        if kind == "squares":
            patches, x_now, lean = fl.square_patches, fl.x_squares, self._cutter.square_lean
        else:
            patches, lean = fl.point_patches, self._cutter.point_lean
            x_now = fl.x_points_net if fl.x_points_net is not None else fl.x_points
        n = len(patches)
        cache = self._head_answers.get(kind)
        if cache is None or cache[0] is not self._cal.reference or cache[1] is not self._cutter or x_now is None:
            cache = [self._cal.reference, self._cutter, None, np.full(n, np.nan)]
        if cache[2] is not None and x_now is not None:
            kept = still(x_now[rows], cache[2][rows]) & np.isfinite(cache[3][rows])
            todo = rows[~kept]
        else:
            todo = rows
        corr = cache[3].copy()
        corr[todo] = head.correction(patches, fl.level, self._cal.reference, lean, todo)
        if x_now is not None:
            seen = x_now.copy() if cache[2] is None else cache[2].copy()
            seen[todo] = x_now[todo]
            self._head_answers[kind] = [cache[0], cache[1], seen, corr]
        return corr

    def _hideable(self) -> np.ndarray:
        """(36, 49) bool: which corner points a robot on each square could hide (:data:`HIDE_HEIGHT`, or
        this set's robots' height where calibration measured it: :data:`SET_HEIGHT`)."""
        return self._hiding_here()[3] < HIDE_RADIUS + HIDE_MARGIN

    def _learn_reach(self, fl: FieldLook, old: object, layout: BoardLayout, seen: np.ndarray) -> None:
        """A point empty in the reference and in the board told now, beside which a robot could hide it
        stood in one of the two and in neither the other: its middle changed by a content's worth
        (CONTENT_POINT) shows that this set's robots cover a point at that gap; the largest such gap
        is kept (see :data:`HIDE_REACH`). ``seen``: (49,) the points no hand covers now."""
        if fl.x_points is None or fl.x_ref_points is None:
            return
        hiding = self._hiding_here()
        gaps = hiding[1]
        near_all = self._hideable()
        rs, rp = np.asarray(old.square_state), np.asarray(old.point_state)
        now_robot = np.array([q.value != "empty" for q in layout.squares])
        now_empty = np.array([q.value == "empty" for q in layout.points])
        middle = _middle_change(fl)
        told = (rp == REF_EMPTY) & now_empty & np.asarray(seen, bool)
        for i in np.flatnonzero(told & near_all.any(axis=0) & (middle >= CONTENT_POINT)):
            near = near_all[:, i]
            if (rs[near] == REF_UNKNOWN).any():
                continue
            then, now = near & (rs == REF_OCCUPIED), near & now_robot
            if then.any() == now.any():
                continue                     # robots beside it both times or neither: nothing to tell
            hiding[2] = max(hiding[2], float(gaps[then | now, i].min()))

    def _within_reach(self, robot: np.ndarray) -> np.ndarray:
        """(49,) bool: the points a robot on a square read as holding one (``robot``, (36,)) stands as close
        to as this set's robots were seen to cover a point's middle (:data:`HIDE_REACH`; none before the
        game has shown it)."""
        _, gaps, reach, _ = self._hiding_here()
        return (np.asarray(robot, bool)[:, None] & (gaps <= reach)).any(axis=0)

    def _maybe_hidden(self, fl: FieldLook, robot: np.ndarray, read_empty: np.ndarray, known_empty: np.ndarray
                      ) -> np.ndarray:
        """(49,) bool: the points read empty (``read_empty``) that a robot on a square read as holding one
        (``robot``, (36,)) could hide and whose look does not vouch for them: neither a known empty
        look (``known_empty``) nor a middle that changed less than a content does since the reference
        showed the point empty (see :data:`HIDE_HEIGHT`)."""
        robot, read_empty = np.asarray(robot, bool), np.asarray(read_empty, bool)
        hidden = (robot[:, None] & self._hideable()).any(axis=0) & read_empty & ~np.asarray(known_empty, bool)
        if hidden.any() and fl.x_points is not None and fl.x_ref_points is not None:
            middle = _middle_change(fl)
            hidden &= ~((np.asarray(self._cal.reference.point_state) == REF_EMPTY) & (middle < CONTENT_POINT))
        if HIDE_REACH:
            hidden |= self._within_reach(robot) & read_empty
        if HIDE_CLEAR and hidden.any() and fl.x_points is not None:
            board = _board_colour(fl.x_squares, ~robot) if BOARD_NEARER and fl.x_squares is not None else None
            empty_look = _empty_looks(fl.x_points, robot, read_empty & (np.asarray(self._cal.reference.point_state)
                                                                        == REF_EMPTY), hidden) if EMPTY_NEARER else None
            hidden &= ~self._clear_of_robots(fl.x_points, hidden, board=board, cover=HIDE_COVER, empty_look=empty_look)
        return hidden

    def _middle_in_view(self, fl: FieldLook, rows: np.ndarray, board: np.ndarray | None) -> np.ndarray:
        """(49,) bool: of the points ``rows``, those on which a robot's pixels cover less than
        :data:`HIDE_COVER_SHARE` of the smallest battery standing on the point itself (see
        :data:`HIDE_REACH_SEEN`): pixels of a robot's colour, not nearer the board's own (``board``: its
        colour now, or None). Not the other points' empty look (:data:`EMPTY_NEARER`): a robot that
        hides the point may look there as the print does elsewhere."""
        board = board if BOARD_NEARER else None
        out = cover_shares(self._cal.colours, fl.x_points, rows, board)[:, 1] < HIDE_COVER_SHARE
        return out & np.asarray(rows, bool)

    def _clear_of_robots(self, x_points: np.ndarray, rows: np.ndarray, disc: np.ndarray = _CLEAR_POINT_DISC,
                         board: np.ndarray | None = None, cover: bool = False,
                         empty_look: np.ndarray | None = None) -> np.ndarray:
        """:func:`clear_of_robots` with this calibration's robot colours."""
        return clear_of_robots(self._cal.colours, x_points, rows, disc, board, cover, empty_look)

    # -- the last frame read ----------------------------------------------------------
    @staticmethod
    def _fingerprint(image: np.ndarray) -> tuple:
        """Which frame this is: the array itself (its memory and shape) and a sample of its pixels
        (a camera that fills one buffer again with each new frame changes them everywhere)."""
        return (image.__array_interface__["data"][0], image.shape, image.strides,
                hash(image[::37, ::41].tobytes()))

    def _looked_at(self, image: np.ndarray) -> FieldLook | None:
        """The field look of the last frame read, if ``image`` is that frame and the reference and
        the board's place are what they were then (an accepted turn is learned from the frame it
        was read from: no second look)."""
        last = self._last
        if last is None or last[1] is not self._cal.reference or last[2] is not self._cutter:
            return None
        return last[3] if last[0] == self._fingerprint(image) else None

    def forget_answers(self) -> None:
        """The nets look at every field of the next frame afresh, as on a frame in which everything
        changed (benchmarks time that worst case; a still field otherwise keeps the nets' answer)."""
        self._answers = Answers()
        self._head_answers = {}

    # -- the board moved ------------------------------------------------------------
    def relocate(self, image: np.ndarray) -> bool:
        """Find the board again by its markers (camera nudged). True if the homography changed."""
        return self._find_again(image)[0]

    def _find_again(self, image: np.ndarray) -> tuple[bool, str | None]:
        """(found and taken, why not taken when the markers were found too far away)."""
        found, too_far = found_again(self._cal, image, MAX_NUDGE)
        if found is None:
            return False, too_far
        self._cal = found
        self._cutter = PatchCutter(found.H, found.image_size)
        return True, None

    # -- the hot path -------------------------------------------------------------------
    def read(self, image: np.ndarray) -> BoardReading:
        image = check_image(image, self._cal.image_size)
        why = blank_reason(image)
        if why:
            return unreadable(why)
        fl, pixels = look_with(self._cutter, image, self._cal.reference, self._checks_of(image), answers=self._answers)
        alignment = pixels.alignment
        if alignment < MIN_ALIGNMENT and self._cal.method == "markers":
            found, too_far = self._find_again(image)
            if found:
                fl, pixels = look_with(self._cutter, image, self._cal.reference, self._checks_of(image),
                                       answers=self._answers)
                alignment = pixels.alignment
            elif too_far:
                return unreadable(too_far, alignment=alignment)
        self._last = (self._fingerprint(image), self._cal.reference, self._cutter, fl)
        return self._reading(fl, alignment, image, pixels)

    def _pixel_checks(self, px: PixelLook, image: np.ndarray | None = None) -> PixelChecks:
        """What the reader takes of a frame's pixels alone, no net needed (:class:`PixelChecks`): run
        while the nets look (:func:`vision.anyset.fields.look_with`), so it touches nothing they use.
        ``image``: the frame (the points' unlikeness to each other is cut from it; None: left out)."""
        ref_points = px.x_points is not None and px.x_ref_points is not None
        colours = self._cal.colours
        desc = colours.describe(px.x_squares, self._cutter.square_lean, px.x_background)
        return PixelChecks(self._alignment(px), self._differences(px), desc, np.clip(colours.llr(desc), -30, 30),
                           colours.fit_distance(desc), self._likeness(px) if VERDICT else None,
                           _middle_change(px) if ref_points else None,
                           self._unlikeness(image) if VERDICT and image is not None else None)

    def _unlikeness(self, image: np.ndarray) -> Apart:
        """How unlike each point is to the frame's other points of its kind, square to the board
        (:class:`vision.anyset.apart.Unlikeness`)."""
        return _UNLIKENESS.measure(self._cutter.aligned_points(image))

    def _shadows(self) -> Shadows:
        """Which pixels of each point's board-aligned patch a robot of this set's height (``SET_HEIGHT``,
        else the tallest) on each square beside it may cover, for the board's place now."""
        if self._shadow_masks is None or self._shadow_masks[0] is not self._cutter:
            feet, tops = camera_shadows(self._cutter.pose, self._set_height())
            self._shadow_masks = (self._cutter, _UNLIKENESS.shadows(feet, tops, HIDE_RADIUS + HIDE_MARGIN))
        return self._shadow_masks[1]

    def _checks_of(self, image: np.ndarray):
        """The frame's pixel checks as :func:`vision.anyset.fields.look_with` runs them beside the nets."""
        return lambda px: self._pixel_checks(px, image)

    def _alignment(self, fl: FieldLook | PixelLook) -> float:
        """How well the fields' structure matches the reference's (1: the board is where it was)."""
        ref = self._cal.reference
        if self._ref_structure is None or self._ref_structure[0] is not ref:
            self._ref_structure = (ref, _structure(np.concatenate([ref.squares, ref.coarse_points])))
        b = self._ref_structure[1]
        a = _structure(np.concatenate([fl.square_patches, fl.coarse_point_patches]))
        ncc = (a * b).sum(axis=1)
        return float(np.quantile(ncc, ALIGN_QUANTILE))

    def _unlike_reference_z(self, fl: FieldLook) -> np.ndarray:
        """(36,) how far each square's centre changed beyond the frame's other squares that the
        reference showed empty and the classifier reads empty, in units of the limit of
        :data:`CHANGED_Z` (above 1 for such a square: it is doubtful; 0 for the others where the
        limit is not passed, NaN without a sample to compare with)."""
        alike = (np.asarray(self._cal.reference.square_state) == REF_EMPTY) & (fl.squares[:, 0] >= fl.squares[:, 1])
        if fl.x_background is None or alike.sum() < CHANGED_SAMPLE:
            return np.full(36, np.nan)
        # where the reference showed a square empty, its background is that square's own reference patch
        change = np.abs(fl.x_squares[:, :, _CENTRE] - fl.x_background[:, :, _CENTRE]).sum(axis=1).mean(axis=1)
        med = float(np.median(change[alike]))
        spread = 1.4826 * float(np.median(np.abs(change[alike] - med)))
        ratio = (change - med) / max(CHANGED_Z * spread, CHANGED_MIN)
        # only a square alike in the reference and now can be doubtful so: the others stay below 1
        return np.where(alike, ratio, np.minimum(ratio, 1.0))

    def _differences(self, fl: FieldLook | PixelLook) -> Differences | None:
        """How much each square's and point's look differs from the reference's (as
        :func:`_square_difference`, :func:`_point_difference`), above the frame's noise floor
        (:data:`NOISE_FLOOR`); None without the reference's own looks."""
        if fl.x_ref_squares is None or fl.x_points is None or fl.x_ref_points is None:
            return None
        ls, fs = _local_above_floor(fl.x_squares, fl.x_ref_squares, _SAME_SQUARE_DISC)
        lp, fp = _local_above_floor(fl.x_points, fl.x_ref_points, _SAME_POINT_DISC)
        half = ls.shape[1] // 2                        # the median of each square's (see ROBOT_MIDDLE)
        return Differences(ls.max(axis=1) - fs, lp.max(axis=1) - fp, fs, fp,
                           np.partition(ls, half, axis=1)[:, half] - fs)

    def _changed_without_a_look(self, diffs: Differences | None, taken_s: np.ndarray,
                                taken_p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """((36,), (49,)) bool: the fields read as holding something else than the reference showed
        (``taken_s`` / ``taken_p``: read occupied) whose look changed by less than a change of content
        does (see :data:`CONTENT_SQUARE`)."""
        if diffs is None:
            return np.zeros(36, bool), np.zeros(49, bool)
        ref = self._cal.reference
        rs, rp = np.asarray(ref.square_state), np.asarray(ref.point_state)
        other_s = ((rs == REF_EMPTY) & taken_s) | ((rs == REF_OCCUPIED) & ~taken_s)
        other_p = ((rp == REF_EMPTY) & taken_p) | ((rp == REF_OCCUPIED) & ~taken_p)
        # a square's median difference is at most its largest: below the limit wherever the largest is
        changed_s = diffs.square_middles if ROBOT_MIDDLE and diffs.square_middles is not None else diffs.squares
        return other_s & (changed_s < CONTENT_SQUARE), other_p & (diffs.points < CONTENT_POINT)

    def _same_as_reference(self, fl: FieldLook, diffs: Differences | None = None
                           ) -> tuple[np.ndarray, np.ndarray]:
        """((36,), (49,)) bool: the fields whose patch now looks just as in the reference (see
        :data:`SAME_SQUARE`)."""
        d = self._differences(fl) if diffs is None else diffs
        if d is None:
            return np.zeros(36, bool), np.zeros(49, bool)
        return d[0] <= SAME_SQUARE, d[1] <= SAME_POINT

    def _known_looks(self, fl: FieldLook, diffs: Differences | None = None
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Where a field looks just as it did in a known board (the reference, or an earlier one the
        memory keeps): ((36,) +1 towards empty, -1 towards a robot, 0 no word; (36,) the robot's colour
        those looks agree on (COLOUR_*); (49,) +1 / -1 / 0 for the points). Looks that disagree (the
        field matched both empty and occupied) give no word."""
        ref = self._cal.reference
        diffs = self._differences(fl) if diffs is None else diffs
        same_s, same_p = self._same_as_reference(fl, diffs)
        rs, rp = np.asarray(ref.square_state), np.asarray(ref.point_state)
        empty_s, robot = same_s & (rs == REF_EMPTY), same_s & (rs == REF_OCCUPIED)
        white, black = robot & (ref.square_colour == COLOUR_WHITE), robot & (ref.square_colour == COLOUR_BLACK)
        empty_p, battery = same_p & (rp == REF_EMPTY), same_p & (rp == REF_OCCUPIED)
        memory = self._memory_here()
        if memory is not None and fl.x_points is not None:
            ms, mp = memory
            # the earlier looks are the same camera's: the same noise floor (0 without a reference of its own)
            fs, fp = (diffs.floor_squares, diffs.floor_points) if diffs is not None else (0.0, 0.0)
            hit, state = ms.matching(fl.x_squares, lambda a, b: _square_difference(a, b) - fs, SAME_SQUARE)
            was_robot = hit & (state == REF_OCCUPIED)
            empty_s = empty_s | (hit & (state == REF_EMPTY)).any(axis=0)
            robot = robot | was_robot.any(axis=0)
            white = white | (was_robot & (ms.colour == COLOUR_WHITE)).any(axis=0)
            black = black | (was_robot & (ms.colour == COLOUR_BLACK)).any(axis=0)
            hit, state = mp.matching(fl.x_points, lambda a, b: _point_difference(a, b) - fp, SAME_POINT)
            empty_p = empty_p | (hit & (state == REF_EMPTY)).any(axis=0)
            battery = battery | (hit & (state == REF_OCCUPIED)).any(axis=0)
        toward_s = empty_s.astype(np.float64) - robot
        colour = np.where(robot & ~empty_s & white & ~black, COLOUR_WHITE,
                          np.where(robot & ~empty_s & black & ~white, COLOUR_BLACK, COLOUR_UNKNOWN))
        return toward_s, colour, empty_p.astype(np.float64) - battery

    def _own_frame_opinion(self, fl: FieldLook, ze: np.ndarray, zq: np.ndarray, pc: np.ndarray, qc: np.ndarray,
                           unlike: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """A second opinion on the fields this frame leaves unsure (see :data:`OWN_FRAME` in
        fields.py): ``ze`` / ``zq`` the log-odds of empty (squares, points; the field seen), ``pc`` /
        ``qc`` the probability each is covered. Where the frame's own sure fields, as examples,
        lean the same way and more surely (the field seen and not covered), their opinion -- its
        log-odds and its covered -- replaces the first. A second opinion leaning the other way
        changes nothing, it seconds only a first opinion that leans (:data:`OWN_FRAME_LEAN`), and
        one saying "empty" counts only from :data:`OWN_FRAME_EMPTY` on; a covered field (at least
        :data:`COVERED`), a square the change check calls doubtful and a point at a corner of a
        square that may hold a robot (it may be hidden) are not asked. Returns new ``ze, zq, pc, qc``."""
        limit = self.min_confidence
        unsure_s = (_sure(ze, pc, 3) < limit) & (pc < COVERED) & ~unlike
        # a point at a corner of a square that may hold a robot may be hidden behind it: its own first
        # opinion stands (see _CORNERS)
        beside = (_CORNERS & (ze < _logit(np.array(limit)))[:, None]).any(axis=0)
        unsure_p = (_sure(zq, qc, 2) < limit) & (qc < COVERED)
        ask_p = unsure_p & ~beside
        if not unsure_s.any() and not ask_p.any():
            return ze, zq, pc, qc
        # what the frame's sure fields hold (the examples); unsure and covered fields are no example
        ss = _frame_states(ze, unsure_s | (pc >= COVERED) | unlike)
        ps = _frame_states(zq, unsure_p | (qc >= COVERED))
        # only a first opinion that leans can be seconded: the others are not asked (the same result, sooner)
        todo_s = np.flatnonzero(unsure_s & (np.abs(ze) >= OWN_FRAME_LEAN))
        todo_p = np.flatnonzero(ask_p & (np.abs(zq) >= OWN_FRAME_LEAN))
        second_s, second_p = own_frame_look(self._cutter, fl, ss, ps, todo_s, todo_p,
                                            square_dist=square_distances(self._cal.reference))
        # "empty" only when very sure (OWN_FRAME_EMPTY)
        ze, pc = _with_second(ze, pc, todo_s, second_s, 3, OWN_FRAME_EMPTY)
        zq, qc = _with_second(zq, qc, todo_p, second_p, 2, OWN_FRAME_EMPTY)
        return ze, zq, pc, qc

    def _set_head_opinion(self, fl: FieldLook, zq: np.ndarray, qc: np.ndarray, toward_p: np.ndarray) -> np.ndarray:
        """The log-odds of empty ``zq`` (49,) corrected by the set's own last layer (:meth:`_set_head`)
        where the nets leave a point unsure or no known look vouches for it (``toward_p`` 0: it looks
        neither as in a board told with it empty nor as in one with a battery), the point not covered
        (``qc``); the others as they are. A point still since the last frame keeps its correction."""
        unsure = _sure(zq, qc, 2) < self.min_confidence
        # read empty with no known look for it: not as sure as the head could make it (OWN_FRAME_EMPTY,
        # below), or where the reference showed a battery (one turned to a side the nets do not see reads
        # empty at 1.000); asking every such point cost 2-3 ms on a frame far from the reference
        ref_battery = np.asarray(self._cal.reference.point_state) == REF_OCCUPIED
        unvouched_empty = (np.asarray(toward_p) == 0) & (zq > 0) & ((zq < OWN_FRAME_EMPTY) | ref_battery)
        return self._head_applied("points", fl, zq, (unsure | unvouched_empty) & (qc < COVERED))

    def _square_head_opinion(self, fl: FieldLook, ze: np.ndarray, pc: np.ndarray, unlike: np.ndarray) -> np.ndarray:
        """The log-odds of empty ``ze`` (36,) corrected by the squares net's last layer refitted on this
        set (:meth:`_set_head`) where the nets leave a square unsure between empty and a robot, the
        square not covered (``pc``) and not doubtful by the change check (``unlike``); the others as
        they are. As for the points, it makes a square surer of "empty" only where it ends very sure."""
        unsure = _sure(ze, pc, 3) < self.min_confidence
        return self._head_applied("squares", fl, ze, unsure & (pc < COVERED) & ~unlike)

    def _head_applied(self, kind: str, fl: FieldLook, z: np.ndarray, ask: np.ndarray) -> np.ndarray:
        """The log-odds of empty ``z`` of the fields of ``kind`` corrected by the set head of that kind
        at the fields ``ask``; the others as they are. Towards "empty" only where it ends very sure (as
        the second opinion's, OWN_FRAME_EMPTY) and the field leaned empty before (:data:`HEAD_LEAN`):
        the nets' misses are pieces read empty, and a head fitted on one board's pieces leans that way
        too."""
        patches = fl.square_patches if kind == "squares" else fl.point_patches
        if not ask.any() or patches is None:
            return z
        rows = np.flatnonzero(ask)
        corr = self._head_correction(kind, fl, rows)
        if corr is None:
            return z
        out = z.copy()
        out[rows] -= corr[rows] / TEMPERATURE
        timid = (out > z) & ((out < OWN_FRAME_EMPTY) | (HEAD_LEAN & (z < OWN_FRAME_LEAN)))   # see HEAD_LEAN
        out[timid] = z[timid]
        return out

    def _fine_opinion(self, image: np.ndarray, fl: FieldLook, ze: np.ndarray, zq: np.ndarray, qc: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
        """The fine second look (:func:`vision.anyset.fields.fine_look`) at the points still unsure
        (``zq``: log-odds of empty, the point seen; ``qc``: P(covered)), by the own-frame look's rules
        (:meth:`_own_frame_opinion`): it seconds a first opinion that leans (:data:`FINE_LEAN`) the
        same way and more surely, "empty" only from :data:`FINE_EMPTY` on; a covered point and a
        point a robot on a square that may hold one (``ze``: the squares' log-odds of empty) could
        hide from this camera (:meth:`_hideable`) are not asked. Returns new ``zq, qc``."""
        limit = self.min_confidence
        unsure = (_sure(zq, qc, 2) < limit) & (qc < COVERED)
        leaning = unsure & (np.abs(zq) >= FINE_LEAN)
        if not leaning.any():
            return zq, qc
        # a point a robot on a square not surely empty could hide from this camera (the geometry of
        # the tallest robot: _hideable) is not asked; the other corners of such a square are
        hideable = ((ze < _logit(np.array(limit)))[:, None] & self._hideable()).any(axis=0)
        todo = np.flatnonzero(leaning & ~hideable)
        if not len(todo):
            return zq, qc
        second = fine_look(self._cutter, image, fl, _frame_states(zq, unsure | (qc >= COVERED)), todo)
        return _with_second(zq, qc, todo, second, 2, FINE_EMPTY)

    def _agreed_robot(self, fl: FieldLook, ze: np.ndarray, pc: np.ndarray, unlike: np.ndarray) -> np.ndarray:
        """``ze`` (36,), the squares' log-odds of empty, where the squares still unsure that lean towards
        a robot (not covered: ``pc``; not doubtful by the change check: ``unlike``) get the sum of three
        looks' log-odds where all three lean towards a robot and that sum reaches :data:`AGREE_ROBOT`;
        the others as they are. The looks, each asked afresh: the squares net's first answer, the
        own-frame look (its covered below :data:`COVERED`) and the squares head."""
        unsure = (_sure(ze, pc, 3) < self.min_confidence) & (pc < COVERED) & ~unlike
        todo = np.flatnonzero(unsure & (ze < 0))
        if not len(todo):
            return ze
        corr = self._head_correction("squares", fl, todo)
        if corr is None:
            return ze
        z_net = _seen_logodds(fl.squares[todo])
        states = _frame_states(ze, unsure | (pc >= COVERED) | unlike)
        own, _ = own_frame_look(self._cutter, fl, states, np.full(49, REF_UNKNOWN), todo, np.empty(0, np.int64),
                                square_dist=square_distances(self._cal.reference))
        looks = np.stack([z_net, z_net - corr[todo] / TEMPERATURE, -own[:, 0]], axis=1)
        return _agreed(ze, todo, looks, own[:, 1] < COVERED, AGREE_ROBOT)

    def _point_looks(self, image: np.ndarray, fl: FieldLook, zq: np.ndarray, qc: np.ndarray, unsure: np.ndarray,
                     todo: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """The four looks at the points ``todo``, each asked afresh: ((k, 4) their log-odds of empty --
        the points net's first answer, the set head, the own-frame look, the fine look --, (k,) bool
        every look calls the point seen, its covered below :data:`COVERED`); None without a set head.
        ``unsure``: (49,) the points that are no examples for the own-frame and the fine look."""
        corr = self._head_correction("points", fl, todo)
        if corr is None:
            return None
        z_net = _seen_logodds(fl.points[todo])
        own, fine, seen = self._frame_point_looks(image, fl, _frame_states(zq, unsure | (qc >= COVERED)), todo)
        return np.stack([z_net, z_net - corr[todo] / TEMPERATURE, own, fine], axis=1), seen

    def _frame_point_looks(self, image: np.ndarray, fl: FieldLook, states: np.ndarray, todo: np.ndarray
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The two looks at the points ``todo`` that take the frame's own points as examples (``states``,
        (49,) REF_*): ((k,) the own-frame look's log-odds of empty, (k,) the fine look's, (k,) bool both
        call the point seen, their covered below :data:`COVERED`)."""
        _, own = own_frame_look(self._cutter, fl, np.full(36, REF_UNKNOWN), states, np.empty(0, np.int64), todo)
        fine = fine_look(self._cutter, image, fl, states, todo)
        return -own[:, 0], -fine[:, 0], (own[:, 1] < COVERED) & (fine[:, 1] < COVERED)

    def _agreed_battery(self, image: np.ndarray, fl: FieldLook, zq: np.ndarray, qc: np.ndarray) -> np.ndarray:
        """``zq`` (49,), the log-odds of empty, where the points still unsure that lean towards a
        battery (not covered: ``qc``) get the sum of the four looks' log-odds (:meth:`_point_looks`)
        where all four lean towards a battery and that sum reaches :data:`AGREE_BATTERY` (see there);
        the others as they are."""
        unsure = (_sure(zq, qc, 2) < self.min_confidence) & (qc < COVERED)
        todo = np.flatnonzero(unsure & (zq < 0))
        if not len(todo) or fl.x_points is None:
            return zq
        looked = self._point_looks(image, fl, zq, qc, unsure, todo)
        if looked is None:
            return zq
        return _agreed(zq, todo, looked[0], looked[1], AGREE_BATTERY)

    def _vacated(self, image: np.ndarray, fl: FieldLook, zq: np.ndarray, qc: np.ndarray) -> np.ndarray:
        """``zq`` (49,), the log-odds of empty, where the points still unsure that lean empty, not
        covered, and held a battery in the reference, take the sum of the four looks' log-odds
        (:meth:`_point_looks`) where all four lean empty, the first answer and the set head by
        :data:`VACATED_LOOK` each, and the sum reaches :data:`VACATED_SUM` (see there); the others as
        they are."""
        unsure = (_sure(zq, qc, 2) < self.min_confidence) & (qc < COVERED)
        ref_battery = np.asarray(self._cal.reference.point_state) == REF_OCCUPIED
        todo = np.flatnonzero(unsure & (zq > 0) & ref_battery)
        if not len(todo) or fl.x_points is None:
            return zq
        looked = self._point_looks(image, fl, zq, qc, unsure, todo)
        if looked is None:
            return zq
        looks, seen = looked
        left = ((looks > 0).all(axis=1) & (looks[:, 0] >= VACATED_LOOK) & (looks[:, 1] >= VACATED_LOOK)
                & (looks.sum(axis=1) >= VACATED_SUM) & seen)
        out = zq.copy()
        out[todo[left]] = looks[left].sum(axis=1)
        return out

    def _moved_middles(self, fl: FieldLook, robot: np.ndarray, read_empty: np.ndarray,
                       middle: np.ndarray | None = None) -> np.ndarray:
        """(49,) bool: the points whose middle (a battery's place) changed by more than :data:`ARRIVED_Z`
        times the frame's untouched points' middles (read as the reference showed them: ``read_empty``,
        (49,) read empty) and by :data:`ARRIVED_MIN`, while no square they are a corner of changed
        (``robot``: (36,) read holding a robot) or their middle shows no robot's colour in the reference
        nor now (:data:`MOVED_CLEAR`); none without the reference's own looks or with fewer than
        :data:`CHANGED_SAMPLE` untouched points. ``middle``: :func:`_middle_change` of ``fl`` where
        the caller has it."""
        none = np.zeros(49, bool)
        if fl.x_ref_points is None or fl.x_points is None:
            return none
        ref = self._cal.reference
        rs = np.asarray(ref.square_state)
        middle = _middle_change(fl) if middle is None else middle
        limit = self._middle_limit(middle, read_empty)
        if limit is None:
            return none
        square_changed = ~(((rs == REF_EMPTY) & ~robot) | ((rs == REF_OCCUPIED) & robot))
        quiet = ~(_CORNERS & square_changed[:, None]).any(axis=0)
        big = middle > limit
        if MOVED_CLEAR and (big & ~quiet).any():
            rows = big & ~quiet
            quiet = quiet | (self._clear_of_robots(fl.x_points, rows, _SEEN_POINT_DISC)
                             & self._clear_of_robots(fl.x_ref_points, rows, _SEEN_POINT_DISC))
        return quiet & big

    def _middle_limit(self, middle: np.ndarray, read_empty: np.ndarray) -> float | None:
        """The change of a point's middle (``middle``: (49,) :func:`_middle_change`) above which it
        changed as a battery coming or going changes it: :data:`ARRIVED_Z` times the frame's untouched
        points' (read as the reference showed them: ``read_empty``, (49,) read empty) and at least
        :data:`ARRIVED_MIN`; None with fewer than :data:`CHANGED_SAMPLE` untouched points."""
        rp = np.asarray(self._cal.reference.point_state)
        untouched = ((rp == REF_EMPTY) & read_empty) | ((rp == REF_OCCUPIED) & ~read_empty)
        if untouched.sum() < CHANGED_SAMPLE:
            return None
        return max(ARRIVED_MIN, ARRIVED_Z * float(np.median(middle[untouched])))

    def _as_remembered_battery(self, fl: FieldLook, flagged: np.ndarray, read_empty: np.ndarray,
                               middle: np.ndarray | None) -> np.ndarray:
        """(49,) bool: of the points ``flagged`` ((49,) bool, the leaving check's), those whose middle
        is now as it was in a look the memory keeps of the point holding a battery (changed by no more
        than :meth:`_middle_limit` from it): a battery turned back to a side it showed before; see
        :data:`LEFT_REMEMBERED`."""
        out = np.zeros(49, bool)
        memory = self._memory_here()
        if memory is None or fl.x_points is None or not flagged.any():
            return out
        middle = _middle_change(fl) if middle is None else middle
        limit = self._middle_limit(middle, read_empty)
        if limit is None:
            return out
        mp = memory[1]
        d = mp.distances(fl.x_points, _middle_difference, among=flagged)
        nearest = np.where(mp.state == REF_OCCUPIED, d, np.inf).min(axis=0)
        return flagged & (nearest <= limit)

    def _arrived_unseen(self, moved: np.ndarray, read_empty: np.ndarray, vouched: np.ndarray) -> np.ndarray:
        """(49,) bool: the points the reference showed empty, read empty (``read_empty``) and not
        vouched for by a known look (``vouched``), whose middle changed as an arriving battery's does
        while no square they are a corner of changed (``moved``: :meth:`_moved_middles`); see
        :data:`ARRIVED_Z`."""
        rp = np.asarray(self._cal.reference.point_state)
        return (rp == REF_EMPTY) & read_empty & ~vouched & moved

    @staticmethod
    def _arrival_open(fl: FieldLook, flagged: np.ndarray) -> np.ndarray:
        """(49,) bool: of the points ``flagged`` ((49,) bool, the arrival check's), those whose change at
        the middle runs on to the edge of the point's patch (the edge of a robot's body or shadow that came
        or went beside it, not a battery's own place): the pixels that changed by more than
        :data:`ARRIVED_OPEN_SHARE` of the middle's largest change (each patch's difference from the
        reference averaged 3x3 on its own), the 8-connected regions of them that touch the middle's reach
        reaching the patch's rim (:data:`ARRIVED_OPEN_RIM`); see there."""
        out = np.zeros(49, bool)
        if fl.x_points is None or fl.x_ref_points is None:
            return out
        for i in np.flatnonzero(flagged):
            d = np.abs(fl.x_points[i] - fl.x_ref_points[i]).sum(axis=0, dtype=np.float32)
            top = float(cv2.blur(d, (SAME_BLUR, SAME_BLUR))[_SEEN_POINT_DISC].max())
            out[i] = runs_to_rim(cv2.blur(d, (3, 3)) > ARRIVED_OPEN_SHARE * top, _SEEN_POINT_REACH)
        return out

    def _left_unseen(self, image: np.ndarray, fl: FieldLook, moved: np.ndarray, pp: np.ndarray,
                     qc: np.ndarray) -> np.ndarray:
        """(49,) bool: the points the reference showed holding a battery, read holding one (``pp``:
        (49, 2) P(empty, battery)) and not covered (``qc``), whose middle changed as a battery leaving
        changes it with nothing moved beside them (``moved``: :meth:`_moved_middles`), where the
        own-frame and the fine look (the frame's sure points as examples, no reference) both lean
        empty by :data:`LEFT_LEAN`; see there."""
        rp = np.asarray(self._cal.reference.point_state)
        todo = np.flatnonzero((rp == REF_OCCUPIED) & (pp[:, 0] <= 0.5) & (qc < COVERED) & moved)
        out = np.zeros(49, bool)
        if not len(todo):
            return out
        unsure = pp.max(axis=1) < self.min_confidence
        states = _frame_states(_logit(pp[:, 0]), unsure | (qc >= COVERED))
        states[todo] = REF_UNKNOWN                     # no example of itself
        own, fine, seen = self._frame_point_looks(image, fl, states, todo)
        out[todo[(own >= LEFT_LEAN) & (fine >= LEFT_LEAN) & seen]] = True
        return out

    def _unlike_empty(self, fl: FieldLook, diffs: Differences | None, read_empty: np.ndarray) -> np.ndarray:
        """(49,) bool: the points the reference showed holding a battery, read empty (``read_empty``),
        whose middle (a battery's place, :data:`HIDE_SEEN_RADIUS`) now differs from every empty look of
        them the memory keeps by at least :data:`CONTENT_POINT` above the frame's noise floor (see
        :data:`UNLIKE_EMPTY`)."""
        rp = np.asarray(self._cal.reference.point_state)
        memory = self._memory_here()
        todo = (rp == REF_OCCUPIED) & read_empty
        if memory is None or diffs is None or fl.x_points is None or not todo.any():
            return np.zeros(49, bool)
        mp = memory[1]
        floor = diffs.floor_points
        d = mp.distances(fl.x_points, lambda a, b: _middle_difference(a, b) - floor, among=todo)
        nearest = np.where(mp.state == REF_EMPTY, d, np.inf).min(axis=0)     # inf: no empty look known
        return todo & np.isfinite(nearest) & (nearest >= CONTENT_POINT)

    def _evidence(self, fl: FieldLook, image: np.ndarray | None, pixels: PixelChecks | None = None) -> Evidence:
        """Everything the reader sees of each field of this frame (:class:`Evidence`). With the
        verdict (:data:`VERDICT`): the nets' first look, the known looks, the robot colours, the
        other looks at every field the first leaves less than sure (:meth:`_verdict_looks`), the
        differences from the reference, the likeness to this set's fields, the neighbours and the
        checks that raise a doubt, taken on a provisional reading (each field's looks averaged).
        Without it: the first stage (each look in turn, a second opinion taken where it agrees and is
        surer, the checks making a field doubtful), the reader before the verdict. ``pixels``: the
        frame's :class:`PixelChecks` where they were taken while the nets looked (else taken here)."""
        colours = self._cal.colours
        ref = self._cal.reference
        rs, rp = np.asarray(ref.square_state), np.asarray(ref.point_state)
        pixels = self._pixel_checks(fl, image) if pixels is None else pixels
        diffs = pixels.diffs
        toward_s, colour, toward_p = self._known_looks(fl, diffs)
        odds = np.log(SAME_ODDS)
        desc, llr, fit = pixels.desc, pixels.llr, pixels.fit
        far = fit > FAR_COLOUR
        llr_seen = llr.copy()
        llr_seen[far] = 0.0                                    # of neither colour (see FAR_COLOUR)
        if np.abs(np.subtract(colours.white, colours.black)).sum() >= 2 * SAME_SQUARE:
            llr_seen = llr_seen + odds * (colour == COLOUR_WHITE) - odds * (colour == COLOUR_BLACK)
        pw_given_robot = _sigmoid(llr_seen)
        pc, qc = fl.squares[:, 2], fl.points[:, 2]
        s_net, p_net = _seen_logodds(fl.squares), _seen_logodds(fl.points)
        ze = s_net + odds * toward_s                        # log-odds of empty, the square seen
        zq = p_net + odds * toward_p                        # log-odds of empty, the point seen
        unlike_z = self._unlike_reference_z(fl)
        unlike = np.nan_to_num(unlike_z, nan=0.0) > 1.0
        if not VERDICT:
            return self._first_stage(image, fl, diffs, toward_p, pw_given_robot, ze, zq, pc, qc, unlike, far)

        # -- the verdict's evidence -------------------------------------------------------------
        looks = self._verdict_looks(image, fl, s_net, p_net, ze, zq, pc, qc, unlike)
        s_prov = np.nanmean(np.stack([ze, looks["s_own"], looks["s_head"]]), axis=0)
        p_prov = np.nanmean(np.stack([zq, looks["p_own"], looks["p_head"], looks["p_fine"]]), axis=0)
        if STRAY_COVER:
            pc, qc = _stray_cover_dropped(s_prov, p_prov, pc, qc)
        sp = _square_probs(s_prov, pw_given_robot, pc)
        pp = _point_probs(p_prov, qc)
        robot_now = sp[:, 0] < 0.5
        battery_now = pp[:, 1] > 0.5
        hasty_s, hasty_p = self._changed_without_a_look(diffs, robot_now, battery_now)
        hidden = self._maybe_hidden(fl, robot_now, ~battery_now, toward_p > 0)
        middle = pixels.middle
        moved = self._moved_middles(fl, robot_now, ~battery_now, middle) if ARRIVED or LEFT else np.zeros(49, bool)
        arrived = self._arrived_unseen(moved, ~battery_now, toward_p > 0) if ARRIVED else np.zeros(49, bool)
        # a battery still read where its middle changed as a leaving one's, the frame's own looks (the
        # own-frame and the fine look) leaning empty (LEFT_LEAN): as _left_unseen, with the looks taken
        if LEFT:
            judged = (rp == REF_OCCUPIED) & battery_now & (qc < COVERED) & moved
            own_p, fine_p = self._left_looks(image, fl, ze, zq, pc, qc, unlike, looks, judged)
            left = (judged & (np.nan_to_num(own_p, nan=-np.inf) >= LEFT_LEAN)
                    & (np.nan_to_num(fine_p, nan=-np.inf) >= LEFT_LEAN))
        else:
            left = np.zeros(49, bool)
        unlike_p = self._unlike_empty(fl, diffs, ~battery_now) if UNLIKE_EMPTY else np.zeros(49, bool)

        nan_s, nan_p = np.full(36, np.nan), np.full(49, np.nan)
        s_changed = np.where(rs == REF_EMPTY, robot_now, np.where(rs == REF_OCCUPIED, ~robot_now, True))
        p_changed = np.where(rp == REF_EMPTY, battery_now, np.where(rp == REF_OCCUPIED, ~battery_now, True))
        board = _board_colour(fl.x_squares, ~robot_now) if fl.x_squares is not None else None
        sep_board = colours.separation_of(board) if board is not None else np.nan
        s_board = colours.distance_to(desc, board) if board is not None else nan_s
        gaps = self._hiding_here()[1].T                      # (49, 36): each point's gap to a tall robot's shadow
        corners = _CORNERS.T                                   # (49, 36): the squares each point is a corner of
        s_diff = diffs.squares if diffs is not None else nan_s
        ref_colour = np.where(ref.square_colour == COLOUR_WHITE, 1.0,
                              np.where(ref.square_colour == COLOUR_BLACK, -1.0, 0.0))
        middle = nan_p if middle is None else middle
        untouched = ((rp == REF_EMPTY) & ~battery_now) | ((rp == REF_OCCUPIED) & battery_now)
        noise = float(np.median(middle[untouched])) if untouched.any() and np.isfinite(middle).all() else np.nan
        like = pixels.like if pixels.like is not None else self._likeness(fl)
        apart = pixels.apart.stats if pixels.apart is not None else np.full((49, 2), np.nan)
        free = (_UNLIKENESS.free(pixels.apart, self._shadows(), robot_now) if pixels.apart is not None
                else np.full((49, 2), np.nan))

        def asked(z: np.ndarray, look: np.ndarray) -> np.ndarray:
            """A look's log-odds, the first look's where it was not asked (the first look was sure)."""
            return np.where(np.isfinite(look), look, z)

        squares = {
            "s_net": s_net, "s_cov": fl.squares[:, 2], "s_toward": toward_s,
            "s_known_colour": np.where(colour == COLOUR_WHITE, 1.0, np.where(colour == COLOUR_BLACK, -1.0, 0.0)),
            "s_llr": llr, "s_fit": fit, "s_board": s_board, "s_lean": self._cutter.square_lean, "s_diff": s_diff,
            "s_mid": diffs.square_middles if diffs is not None and diffs.square_middles is not None else nan_s,
            "s_floor": np.full(36, diffs.floor_squares if diffs is not None else np.nan), "s_unlike_z": unlike_z,
            "s_z0": ze, "s_own": asked(ze, looks["s_own"]), "s_head": asked(ze, looks["s_head"]), "s_prov": s_prov,
            "s_asked": np.isfinite(looks["s_own"]), "s_pc": pc, "s_hasty": hasty_s, "s_far": far,
            "s_ref_empty": rs == REF_EMPTY, "s_ref_robot": rs == REF_OCCUPIED, "s_ref_colour": ref_colour,
            "s_adj_robot": (_SQUARES_BESIDE & robot_now[None, :]).sum(axis=1),
            "s_adj_changed": (_SQUARES_BESIDE & s_changed[None, :]).sum(axis=1),
            "s_corner_battery": (_CORNERS & battery_now[None, :]).sum(axis=1),
            "s_corner_changed": (_CORNERS & p_changed[None, :]).sum(axis=1),
            "sep_colours": np.full(36, colours.separation), "sep_board": np.full(36, sep_board),
            "s_d_empty": like["s_d_empty"], "s_d_white": like["s_d_white"], "s_d_black": like["s_d_black"],
        }
        points = {
            "p_net": p_net, "p_cov": fl.points[:, 2], "p_toward": toward_p, "p_printed": fl.printed,
            "p_lean": self._cutter.point_lean, "p_diff": diffs.points if diffs is not None else nan_p,
            "p_floor": np.full(49, diffs.floor_points if diffs is not None else np.nan), "p_middle": middle,
            "p_middle_z": middle / max(noise, 1e-3) if np.isfinite(noise) else nan_p,
            "p_z0": zq, "p_own": asked(zq, looks["p_own"]), "p_head": asked(zq, looks["p_head"]),
            "p_fine": asked(zq, looks["p_fine"]), "p_prov": p_prov, "p_asked": np.isfinite(looks["p_own"]),
            "p_qc": qc, "p_hasty": hasty_p, "p_hidden": hidden, "p_moved": moved, "p_arrived": arrived,
            "p_left": left, "p_unlike": unlike_p, "p_ref_empty": rp == REF_EMPTY, "p_ref_battery": rp == REF_OCCUPIED,
            "p_sq_robot": (corners & robot_now[None, :]).sum(axis=1),
            "p_sq_robot_ref": (corners & (rs == REF_OCCUPIED)[None, :]).sum(axis=1),
            "p_sq_changed": (corners & s_changed[None, :]).sum(axis=1),
            "p_gap_robot": np.minimum(np.where(corners & robot_now[None, :], gaps, np.inf).min(axis=1), GAP_CAP),
            "p_gap_changed": np.minimum(np.where(corners & s_changed[None, :], gaps, np.inf).min(axis=1), GAP_CAP),
            "p_adj_sdiff": np.where(corners, s_diff[None, :], -1.0).max(axis=1), "sep_board": np.full(49, sep_board),
            "p_d_empty": like["p_d_empty"], "p_d_battery": like["p_d_battery"],
            "p_apart": apart[:, 0], "p_apart_hi": apart[:, 1], "p_apart_free": free[:, 0],
            "p_apart_tint": free[:, 1],
        }
        S = np.stack([np.asarray(squares[k], np.float64) for k in SQUARE_FEATURES], axis=1)
        P = np.stack([np.asarray(points[k], np.float64) for k in POINT_FEATURES], axis=1)
        if HIDE_REACH and HIDE_REACH_BATTERY:                 # the veto's, not the evidence's
            reach = self._within_reach(robot_now) & battery_now
            if HIDE_REACH_SEEN and reach.any() and fl.x_points is not None:
                reach &= ~self._middle_in_view(fl, reach, board)
            hidden = hidden | reach
        return Evidence(S, P, sp, pp, pc, qc, unlike, far, hasty_s, hasty_p, hidden, arrived, left, unlike_p, board)

    def _first_stage(self, image: np.ndarray | None, fl: FieldLook, diffs: Differences | None, toward_p: np.ndarray,
                     pw_given_robot: np.ndarray, ze: np.ndarray, zq: np.ndarray, pc: np.ndarray, qc: np.ndarray,
                     unlike: np.ndarray, far: np.ndarray) -> Evidence:
        """The reader before the verdict (``NETZWERK_VERDICT=0``, for measuring): each look in turn, a
        second opinion taken where it agrees and is surer, the checks making a field doubtful. The
        evidence it returns has no features (the verdict is not asked)."""
        if OWN_FRAME:
            ze, zq, pc, qc = self._own_frame_opinion(fl, ze, zq, pc, qc, unlike)
        if SET_HEAD:
            zq = self._set_head_opinion(fl, zq, qc, toward_p)
        if SQUARE_HEAD:
            ze = self._square_head_opinion(fl, ze, pc, unlike)
        if AGREE:
            ze = self._agreed_robot(fl, ze, pc, unlike)
        if FINE and image is not None:
            zq, qc = self._fine_opinion(image, fl, ze, zq, qc)
        if AGREE and FINE and image is not None:
            zq = self._agreed_battery(image, fl, zq, qc)
        if VACATED and FINE and image is not None:
            zq = self._vacated(image, fl, zq, qc)
        if STRAY_COVER:
            pc, qc = _stray_cover_dropped(ze, zq, pc, qc)
        sp = _square_probs(ze, pw_given_robot, pc)
        sp[unlike] = 0.5 * sp[unlike] + 0.5 / 3      # doubtful: the referee's rules prior or a question settles it
        pp = _point_probs(zq, qc)
        hasty_s, hasty_p = self._changed_without_a_look(diffs, sp[:, 0] < 0.5, pp[:, 1] > 0.5)
        sp[hasty_s] = 0.5 * sp[hasty_s] + 0.5 / 3     # doubtful (see CONTENT_SQUARE)
        pp[hasty_p] = 0.5 * pp[hasty_p] + 0.5 / 2
        hidden = self._maybe_hidden(fl, sp[:, 0] < 0.5, pp[:, 0] > 0.5, toward_p > 0)
        pp[hidden] = 0.5 * pp[hidden] + 0.5 / 2       # doubtful (see HIDE_HEIGHT)
        # the points whose middle changed as a battery coming or going changes it, nothing moved beside
        # them: looked at once for both checks (neither changes which points are read empty)
        moved = (self._moved_middles(fl, sp[:, 0] < 0.5, pp[:, 0] > 0.5) if ARRIVED or LEFT
                 else np.zeros(49, bool))
        arrived = self._arrived_unseen(moved, pp[:, 0] > 0.5, toward_p > 0) if ARRIVED else np.zeros(49, bool)
        pp[arrived] = 0.5 * pp[arrived] + 0.5 / 2     # doubtful (see ARRIVED_Z)
        left = (self._left_unseen(image, fl, moved, pp, qc) if LEFT and FINE and image is not None
                else np.zeros(49, bool))
        pp[left] = 0.5 * pp[left] + 0.5 / 2           # doubtful (see LEFT_LEAN)
        unlike_p = (self._unlike_empty(fl, diffs, pp[:, 0] > 0.5) if UNLIKE_EMPTY else np.zeros(49, bool))
        pp[unlike_p] = 0.5 * pp[unlike_p] + 0.5 / 2   # doubtful (see UNLIKE_EMPTY)
        return Evidence(None, None, sp, pp, pc, qc, unlike, far, hasty_s, hasty_p, hidden, arrived, left, unlike_p)

    def _verdict_looks(self, image: np.ndarray | None, fl: FieldLook, s_net: np.ndarray, p_net: np.ndarray,
                       ze: np.ndarray, zq: np.ndarray, pc: np.ndarray, qc: np.ndarray, unlike: np.ndarray
                       ) -> dict[str, np.ndarray]:
        """The other looks at every field the first look (with the known looks: ``ze`` / ``zq``, the
        log-odds of empty) leaves less sure than :data:`SURE_LOOK`, not covered (``pc`` / ``qc``), each
        as it answers, whether or not it agrees with the first (the verdict weighs them all): the set
        head's (the nets' first answer ``s_net`` / ``p_net`` corrected by the set's own last layer), the
        own-frame look's (the frame's fields the first look is sure of, :data:`EXAMPLE_SURE`, as its
        examples) and, for the points, the fine look's (the same examples, at twice the resolution).
        Keys ``s_own``, ``s_head``, ``p_own``, ``p_head``, ``p_fine``: (36,) or (49,) log-odds of empty,
        NaN where not asked."""
        out = {k: np.full(36, np.nan) for k in ("s_own", "s_head")}
        out.update({k: np.full(49, np.nan) for k in ("p_own", "p_head", "p_fine")})
        ask_s = (np.abs(ze) < SURE_LOOK) & (pc < COVERED)
        ask_p = (np.abs(zq) < SURE_LOOK) & (qc < COVERED)
        if fl.x_points is None:
            ask_p[:] = False
        rows_s, rows_p = np.flatnonzero(ask_s), np.flatnonzero(ask_p)
        if not len(rows_s) and not len(rows_p):
            return out
        states_s, states_p = _example_states(ze, zq, pc, qc, unlike)
        own_s, own_p = own_frame_look(self._cutter, fl, states_s, states_p, rows_s, rows_p,
                                      square_dist=square_distances(self._cal.reference))
        if len(rows_s):
            out["s_own"][rows_s] = -own_s[:, 0]
            corr = self._head_correction("squares", fl, rows_s) if SQUARE_HEAD else None
            if corr is not None:
                out["s_head"][rows_s] = s_net[rows_s] - corr[rows_s] / TEMPERATURE
        if len(rows_p):
            out["p_own"][rows_p] = -own_p[:, 0]
            corr = self._head_correction("points", fl, rows_p) if SET_HEAD else None
            if corr is not None:
                out["p_head"][rows_p] = p_net[rows_p] - corr[rows_p] / TEMPERATURE
            if FINE and image is not None:
                out["p_fine"][rows_p] = -fine_look(self._cutter, image, fl, states_p, rows_p)[:, 0]
        return out

    def _left_looks(self, image: np.ndarray | None, fl: FieldLook, ze: np.ndarray, zq: np.ndarray, pc: np.ndarray,
                    qc: np.ndarray, unlike: np.ndarray, looks: dict[str, np.ndarray], candidates: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
        """((49,), (49,)) the own-frame and the fine look's log-odds of empty for the leaving check: the
        verdict's looks (:meth:`_verdict_looks`) where they were taken, and at the ``candidates`` the
        first look was too sure to ask (:data:`LEFT_ASK`) taken here, by the same examples; NaN where
        neither. The verdict's own features stay as its looks took them."""
        own_p, fine_p = looks["p_own"], looks["p_fine"]
        todo = np.flatnonzero(candidates & ~np.isfinite(own_p)) if LEFT_ASK and fl.x_points is not None else []
        if not len(todo):
            return own_p, fine_p
        own_p, fine_p = own_p.copy(), fine_p.copy()
        states_s, states_p = _example_states(ze, zq, pc, qc, unlike)
        _, own = own_frame_look(self._cutter, fl, states_s, states_p, np.empty(0, np.int64), todo,
                                square_dist=square_distances(self._cal.reference))
        own_p[todo] = -own[:, 0]
        if FINE and image is not None:
            fine_p[todo] = -fine_look(self._cutter, image, fl, states_p, todo)[:, 0]
        return own_p, fine_p

    def _core_llr(self, fl: FieldLook) -> np.ndarray | None:
        """(36,) each square's colour log-odds (White against Black) by the plain disc (:data:`LIKE_CORE`:
        the median of a small disc at the square's centre, learned on the reference's robots); None
        without the reference's patches or without a robot of each colour in it."""
        ref = self._cal.reference
        if fl.x_squares is None or fl.x_ref_squares is None:
            return None
        if self._core_cache is None or self._core_cache[0] is not ref:
            state, colour = np.asarray(ref.square_state), np.asarray(ref.square_colour)
            white = [int(i) for i in np.flatnonzero((state == REF_OCCUPIED) & (colour == COLOUR_WHITE))]
            black = [int(i) for i in np.flatnonzero((state == REF_OCCUPIED) & (colour == COLOUR_BLACK))]
            model = (plain_model(fl.x_ref_squares, self._cutter.square_lean, white, black, CORE_RADIUS)
                     if white and black else None)
            self._core_cache = (ref, model)
        model = self._core_cache[1]
        if model is None:
            return None
        return model.llr(descriptors(fl.x_squares, self._cutter.square_lean, 0.0, CORE_RADIUS))

    def _likeness(self, fl: FieldLook | PixelLook) -> dict[str, np.ndarray]:
        """How like each field now is to the reference's fields of each kind, the field itself left out
        (the verdict's ``s_d_empty``, ``s_d_white``, ``s_d_black``, ``p_d_empty``, ``p_d_battery``): the
        least mean absolute difference of the normalised log colour (summed over the channels, blurred
        3x3, every other pixel) over the field's middle (a square's :data:`LIKE_SQUARE_RADIUS`, a
        point's battery reach) between its patch now and the reference patch of any other field the
        reference showed empty / holding a robot of each colour / a battery: this set's own looks
        under this light, beside the nets' examples (the nearest field of each kind only). NaN where
        the reference shows none of a kind or has no patches of its own."""
        ref = self._cal.reference
        out = {}
        cache = self._like_cache if self._like_cache is not None and self._like_cache[0] is ref else None
        refs = {} if cache is None else cache[1]
        for kind, x_now, x_ref, disc, n in (("s", fl.x_squares, fl.x_ref_squares, _LIKE_SQUARE_SAMPLE, 36),
                                            ("p", fl.x_points, fl.x_ref_points, _LIKE_POINT_SAMPLE, 49)):
            if kind == "s":
                state = np.asarray(ref.square_state)
                groups = {"empty": state == REF_EMPTY,
                          "white": (state == REF_OCCUPIED) & (ref.square_colour == COLOUR_WHITE),
                          "black": (state == REF_OCCUPIED) & (ref.square_colour == COLOUR_BLACK)}
            else:
                state = np.asarray(ref.point_state)
                groups = {"empty": state == REF_EMPTY, "battery": state == REF_OCCUPIED}
            if x_now is None or x_ref is None:
                for name in groups:
                    out[f"{kind}_d_{name}"] = np.full(n, np.nan)
                continue
            if kind not in refs:             # the reference's side: once per reference
                refs[kind] = np.ascontiguousarray(box_blurred(x_ref, 3)[:, :, disc].reshape(n, -1), np.float32)
            a = box_blurred(x_now, 3)[:, :, disc].reshape(n, -1).astype(np.float32)
            b = refs[kind]
            dist = compiled("mean_abs_distances") or mean_abs_distances_numpy
            d = dist(a, b) * 3                                                # (n, n): summed over the channels
            np.fill_diagonal(d, np.inf)
            for name, members in groups.items():
                best = np.where(members[None, :], d, np.inf).min(axis=1)
                out[f"{kind}_d_{name}"] = np.where(np.isfinite(best), best, np.nan)
        self._like_cache = (ref, refs)
        return out

    def _reading(self, fl: FieldLook, alignment: float, image: np.ndarray | None = None,
                 pixels: PixelChecks | None = None) -> BoardReading:
        ev = self._evidence(fl, image, pixels)
        self.last_evidence = ev
        sp, pp, pc, qc = ev.stage_squares, ev.stage_points, ev.covered_squares, ev.covered_points
        arrived = ev.arrived        # the arrival check's flags; under the verdict, those it vetoes
        against = np.zeros(36, bool)   # robots whose look is the other colour's (LIKE_VETO)
        board_like = np.zeros(36, bool)   # squares read empty on a board of a robot's colour (BOARD_VETO)
        if ev.squares is not None and self.judge:
            sp, pp = covered_on_top(*shared_verdict().judge(ev.squares, ev.points), pc, qc)
            if ARRIVED_AGREES:
                arrived = arrived & (pp[:, 1] < 0.5)     # the verdict sees the battery the check suspects
            if ARRIVED_OPEN and arrived.any():
                arrived = arrived & ~self._arrival_open(fl, arrived)
            left = ev.left
            if LEFT_REMEMBERED and np.any(left):
                left = left & ~self._as_remembered_battery(fl, np.asarray(left, bool), pp[:, 1] <= 0.5,
                                                           pixels.middle if pixels is not None else None)
            veto = ((ev.hidden if HIDDEN_VETO else False) | (arrived if ARRIVED_VETO else False)
                    | (left if LEFT_VETO else False))
            if np.any(veto):
                pp = np.where(np.asarray(veto)[:, None], 0.5 * pp + 0.25, pp)
            unvouched = ev.squares[:, SQUARE_FEATURES.index("s_known_colour")] == 0
            unsure = np.asarray(ev.far, bool) & unvouched if FAR_VETO else np.zeros(36, bool)
            white = sp[:, 1] >= sp[:, 2]                     # the colour read
            d_white = ev.squares[:, SQUARE_FEATURES.index("s_d_white")]
            d_black = ev.squares[:, SQUARE_FEATURES.index("s_d_black")]
            plain: list = []                                 # the plain disc's log-odds, taken once a frame

            def plain_disc() -> np.ndarray | None:
                if not plain:
                    plain.append(self._core_llr(fl))
                return plain[0]

            if LIKE_VETO:
                against = _looks_like_the_other(sp, d_white, d_black) & unvouched
                core = plain_disc() if LIKE_CORE and against.any() else None
                if core is not None:             # the plain disc must lean the other way too
                    against = against & np.where(white, core < 0, core > 0)
                unsure = unsure | against
            if WEAK_VETO:
                llr = ev.squares[:, SQUARE_FEATURES.index("s_llr")]
                toward = np.where(white, llr, -llr)
                weak = unvouched & (sp[:, 0] < 0.5) & (toward < WEAK_COLOUR)
                if WEAK_LIKE and weak.any():
                    # the likeness clearly of the colour read (the mirror of LIKE_VETO) and the colour model
                    # and the plain disc leaning the same way: two measures of the colour agree
                    agree = weak & (toward > 0) & _clearly_nearer(white, d_white, d_black)
                    if agree.any():
                        core = plain_disc()
                        agree = (agree & np.where(white, core > 0, core < 0)
                                 if core is not None else np.zeros(36, bool))
                    weak &= ~agree
                unsure = unsure | weak
            if unsure.any():
                robot = sp[:, 1] + sp[:, 2]
                sp = np.where(unsure[:, None], np.stack([sp[:, 0], 0.5 * robot, 0.5 * robot], axis=1), sp)
            if BOARD_VETO:
                f = {n: ev.squares[:, SQUARE_FEATURES.index(n)]
                     for n in ("sep_board", "s_toward", "s_d_empty", "s_d_white", "s_d_black")}
                colours, board = self._cal.colours, ev.board_colour
                # the robots of the board's colour: the colour nearer the board's
                nearer_white = board is not None and (colours.distance_to(board[None], colours.white)[0]
                                                      <= colours.distance_to(board[None], colours.black)[0])
                board_like = _board_like_empty(sp, f["sep_board"], f["s_toward"], f["s_d_empty"],
                                               f["s_d_white"] if nearer_white else f["s_d_black"])
                if board_like.any():
                    sp = np.where(board_like[:, None], 0.5 * sp + np.array([0.0, 0.25, 0.25]), sp)
        unlike, far, hasty_s, hasty_p = ev.unlike, ev.far, ev.hasty_squares, ev.hasty_points
        hidden, left, unlike_p = ev.hidden, ev.left, ev.unlike_points
        printed = np.where(pp[:, 1] > 0.5, fl.printed, np.nan)
        side_why = tuple(None if not (pp[i, 1] > 0.5) or not (1 - SIDE_SURE < fl.printed[i] < SIDE_SURE)
                         else "the camera cannot tell the side" for i in range(49))
        covered_s, covered_p = _under_a_hand(pc, qc)
        occluded = (len(covered_s) + len(covered_p)) / 85.0
        sconf = sp.max(axis=1)
        pconf = pp.max(axis=1)
        low_s = tuple(int(i) for i in np.flatnonzero(sconf < self.min_confidence))
        low_p = tuple(int(i) for i in np.flatnonzero(pconf < self.min_confidence))
        why_s, why_p = self._doubt_causes(low_s, low_p, sp, pp, pc, qc, unlike, far, hasty_s, hasty_p, hidden,
                                          arrived, left, unlike_p, against, board_like)
        common = dict(
            square_probs=sp, point_probs=pp, low_confidence_squares=low_s, low_confidence_points=low_p,
            occluded_fraction=occluded, alignment=alignment, printed_probs=printed, side_unknown_why=side_why,
            square_doubt_why=why_s, point_doubt_why=why_p,
        )
        if alignment < MIN_ALIGNMENT:
            hint = (" and the corner markers were not found again" if self._cal.method == "markers"
                    else "; calibrate again")
            return unreadable(
                f"the board is not where the calibration expects it (its fields match {max(alignment, 0):.0%}): "
                f"camera or board moved, board not in view, or a calibration from another set-up{hint}", **common)
        if occluded > OCCLUDED_BOARD:
            names = [square_name(i) for i in covered_s] + [point_name(i) for i in covered_p]
            return unreadable(
                f"something covers the board at {', '.join(names[:6])}{' ...' if len(names) > 6 else ''}: "
                "a hand or an object over the board?", **common)
        if low_s or low_p:
            names = [square_name(i) for i in low_s] + [point_name(i) for i in low_p]
            return unreadable("low confidence at " + ", ".join(names[:12]) + (" ..." if len(names) > 12 else ""),
                              **common)
        layout = BoardLayout(
            tuple(SQUARE_STATES[i] for i in sp.argmax(axis=1).tolist()),
            tuple(POINT_STATES[i] for i in pp.argmax(axis=1).tolist()),
        )
        return BoardReading(
            layout=layout, square_probs=sp, point_probs=pp,
            square_confidence=tuple(sconf.tolist()), point_confidence=tuple(pconf.tolist()),
            readable=True, occluded_fraction=occluded, alignment=alignment,
            printed_probs=printed, side_unknown_why=side_why, square_doubt_why=why_s, point_doubt_why=why_p,
        )

    def _doubt_causes(self, low_s, low_p, sp: np.ndarray, pp: np.ndarray, pc: np.ndarray, qc: np.ndarray,
                      unlike: np.ndarray, far: np.ndarray, hasty_s: np.ndarray, hasty_p: np.ndarray,
                      hidden: np.ndarray, arrived: np.ndarray, left: np.ndarray, unlike_p: np.ndarray,
                      against: np.ndarray, board_like: np.ndarray
                      ) -> tuple[tuple[str | None, ...], tuple[str | None, ...]]:
        """Why each doubtful square (``low_s``) and point (``low_p``) is doubtful, in words for the
        players: the rule that made it so (a robot that may hide a point, a look that changed as no
        content's does, ...), else what the classifier could not tell. ``far``: (36,) the robots of
        neither colour (:data:`FAR_COLOUR`); ``against``: (36,) the robots whose look is the other
        colour's (:data:`LIKE_VETO`); ``board_like``: (36,) the squares read empty on a board of a
        robot's colour (:data:`BOARD_VETO`); the rest as :meth:`_reading` has them."""
        why_s: list[str | None] = [None] * 36
        why_p: list[str | None] = [None] * 49
        for i in low_s:
            if pc[i] >= COVERED:
                why_s[i] = "something covers it (a hand or an object?)"
            elif unlike[i]:
                why_s[i] = "its middle changed as no empty square's did (a lamp's reflection, or a piece unlike this set's?)"
            elif hasty_s[i]:
                why_s[i] = "read as changed, but its look changed less than a robot coming or going changes it"
            elif board_like[i]:
                why_s[i] = ("read empty, but this board has the colour of one player's robots: the camera cannot "
                            "tell such a robot from the bare board")
            elif sp[i, 0] <= 1 - self.min_confidence:
                if far[i]:
                    why_s[i] = "a robot of neither player's colour as the camera sees it (a shadow or a reflection on it?)"
                elif against[i]:
                    why_s[i] = ("a robot whose colour reads as one player's while it looks like the other player's "
                                "robots (a piece beside it, or a shadow on it?)")
                else:
                    why_s[i] = f"a robot whose colour is unclear ({_share(sp[i, 1] / max(1 - sp[i, 0], 1e-9))} White's colour)"
            else:
                why_s[i] = f"the camera cannot tell whether a robot stands there ({_share(1 - sp[i, 0])} a robot)"
        hideable = self._hideable()
        robot = sp[:, 0] < 0.5
        for i in low_p:
            if qc[i] >= COVERED:
                why_p[i] = "something covers it (a hand or an object?)"
            elif hidden[i]:
                near = [square_name(int(s)) for s in np.flatnonzero(robot & hideable[:, i])]
                on = f" on {' or '.join(near)}" if near else " beside it"
                why_p[i] = f"the robot{on} may hide it from the camera (a camera higher above the board sees it)"
            elif hasty_p[i]:
                why_p[i] = "read as changed, but its look changed less than a battery coming or going changes it"
            elif arrived[i]:
                why_p[i] = ("read empty, but its middle changed as a battery arriving changes it, and no robot "
                            "beside it explains that (a battery the camera cannot make out?)")
            elif unlike_p[i]:
                why_p[i] = ("read empty, but it looks unlike this point empty by as much as a battery changes it "
                            "(a battery turned over, or one the camera cannot make out?)")
            elif left[i]:
                why_p[i] = ("read as a battery, but its middle changed as a battery leaving changes it, no robot "
                            "beside it explains that, and the frame's own looks see none (did its battery leave?)")
            else:
                why_p[i] = f"the camera cannot tell whether a battery stands there ({_share(pp[i, 1])} a battery)"
        return tuple(why_s), tuple(why_p)
