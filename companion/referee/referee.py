"""The referee: turns what the camera read into accepted or rejected turns.

One object makes every decision for ``netzwerk run``, ``netzwerk demo`` and
``netzwerk audit``:

* :meth:`Referee.judge` looks at a reading (a
  :class:`~companion.referee.reading.TableReading`: per-field probabilities
  from the camera, through :func:`companion.vision_bridge.table_reading`; or a
  plain board) and returns a :class:`Verdict` without
  changing anything: ``accepted`` (with the turn), ``rejected`` (with a
  diagnosis naming pieces and rules), ``unreadable`` (why, never a guess),
  ``question`` (two or more legal turns fit a doubtful reading: the players
  pick one, see below), ``unchanged`` or ``game-over``.
* :meth:`Referee.accept` makes an accepted verdict the new position (the
  caller writes its journal first), :meth:`Referee.undo` takes one back.
* With ``sides`` on (R-23, :mod:`companion.rules.sides`), an accepted verdict
  read from a camera that tells the batteries' sides carries a ``note`` when
  the batteries turned blank cannot be the energy the moves used (never a
  rejection) and ``turn_back``: the batteries the next player turns back.
  The sides of the last accepted board are kept (:attr:`Referee.sides_seen`);
  a side the camera cannot tell says nothing.

The rules are a prior on the reading: a field the camera is unsure of is
tried in every state the camera does not rule out (:data:`TRY_FLOOR`), each
board with its likelihood (the product of its fields' probabilities). The
legal ones (explained by a legal turn, or the unchanged board) that *rival*
the likeliest legal one (at least 1/``decisive`` as likely as it, or made of
states the camera gave at least ``min_field_prob`` each) decide: if they are
one board, that one is taken, provided the camera gave each of its unsure
fields' states at least ``min_field_prob`` (else the players are asked to
check the board); if several are, the referee asks rather than guesses: when
every one is a legal turn (at most :data:`MAX_CANDIDATES`), a ``question``
whose ``candidates`` are their accepted verdicts (the game loop shows them in
turn and a confirm press picks one; :meth:`Verdict.unasked` is the
``unreadable`` form for a caller with nobody to ask, as the audit); else
``unreadable``. A legal reading far less
likely than the likeliest is no reason to ask; one the camera thinks about as
likely always is, however low its fields' states: a board is never taken
because a likely-enough alternative was not tried. If no reading is legal,
it asks too: an unsure board is never called illegal. Where the turn found
needs an unsure field in the state the camera thought the less likely one
(often the count of 14 batteries forcing a doubtful empty point to hold
one), a field read nearly surely (:data:`NEAR_SURE`) may be the misread
instead: each such field is tried in its other states too, and a legal
board so found rivals the turn by the same rules (a battery the camera
missed at 0.988 beside a doubtful point was taken as a battery move
nobody made).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from typing import Sequence

import numpy as np

from ..rules.engine import GameStatus, apply_turn, status
from ..rules.errors import NotationError
from ..rules.explain import Explanation, Problem, explain
from ..rules.geometry import point_name, square_name
from ..rules.moves import Turn
from ..rules.position import BATTERY_COUNT, MAX_ROBOTS, Placement, Position
from ..rules.options import ORIGINAL, Rules
from ..rules.sides import Sides, check_sides
from .boards import differing_fields, differing_indices, point_state, square_state
from .reading import TableReading

ACCEPTED = "accepted"
REJECTED = "rejected"
UNREADABLE = "unreadable"
UNCHANGED = "unchanged"
GAME_OVER = "game-over"
QUESTION = "question"
VERDICT_KINDS = (ACCEPTED, REJECTED, UNREADABLE, UNCHANGED, GAME_OVER, QUESTION)
#: a question offers at most this many turns (more: unreadable, check the board)
MAX_CANDIDATES = 4
#: A state of an unsure field the camera gives less than this is not tried at all.
TRY_FLOOR = 0.001
#: The most boards one reading is tried as (the product of the states tried of its unsure fields, and
#: again for each nearly sure field tried in its other states, NEAR_SURE): a reading that needs more is
#: unreadable. The count of boards is what the work grows with, not the count of fields: a field the
#: camera gives one state only adds none. The worst readings within it are ten doubtful points each at
#: 50% on a board no legal turn makes: every reading of them with 14 batteries (up to 252) is asked of
#: the rules; 120 took 0.1 s on a 2-core x86 machine (the readings beside the likeliest are asked whether
#: a legal turn makes them, not why not: ``explain(diagnose=False)``; and the search stops once more legal
#: readings rival than a question offers). Until 6 December 2026 the bound was six unsure fields
#: (``max_uncertain``) whatever their states: a tall set under a tilted camera, whose rows of robots may
#: each hide the points behind them, had 7-8 (mostly points) and every turn of its game was unreadable;
#: the rules (14 batteries, a legal turn) settle most such boards (benchmarks/referee_anyset.py,
#: docs/readme-vision.md, "6 December, fifth session")
MAX_BOARDS = 1024
#: A legal reading at least 1/DECISIVE as likely as the likeliest legal one rivals it (the players
#: are asked), whatever the camera gave its fields' states (``Referee.decisive``). The likelihood is
#: the product of the doubtful fields' probabilities, and a doubtful field's leaning is no calibrated
#: probability: on design 14,800,008 camera 0, turn 9, two doubtful points both leaned the wrong way
#: (a battery at 81% where there was none, empty at 97.5% where one stood) and made the wrong board
#: 160 times likelier than the true one; with 50 it was accepted. With 1000 (one doubtful field: every
#: state tried, TRY_FLOOR, rivals) it is asked: benchmarks/referee_anyset.py --designs 25 --cameras 2
#: --turns 20 on blocks 14,800,000 (791 turns) 783 / 3 / 4 / 1 -> 779 / 8 / 4 / 0 (right / asked /
#: unreadable / wrong) and 15,100,000 (701 turns) 696 / 4 / 1 / 0 both (docs/readme-vision.md, "3
#: December, night")
DECISIVE = 1000.0
#: A field the camera read in its state with less than this (but at least the reader's own limit, so
#: not among the unsure fields) is tried in its other states too when the turn found needs an unsure
#: field in the state the camera thought the less likely one (the reader's points at 0.98-0.99 were
#: wrong 0.6% of the time, above 0.99 one in 34,800: docs/readme-vision.md). 0.999 since 6 December
#: (sixth session): a small blank battery beside a robot that had just arrived, read empty at 0.997, and
#: the point behind that robot doubtful made "F6-F7", a battery step nobody made (and White's win), the
#: only legal turn, and it was accepted (benchmarks/referee_anyset.py, design 19,500,011 camera 1); with
#: 0.999 the true turn rivals it and the players are asked. Right / asked / unreadable / wrong, 25 designs
#: x 2 cameras x 20 turns: 19,500,000 778 / 12 / 3 / 1 -> 778 / 13 / 3 / 0; 19,400,000 773 / 8 / 2 / 0 ->
#: 769 / 11 / 3 / 0; 19,300,000 717 / 8 / 5 / 0 -> 715 / 10 / 5 / 0 (docs/readme-vision.md, "6 December, sixth
#: session")
NEAR_SURE = 0.999

_SQUARE_STATES = ("empty", "white", "black")
_POINT_STATES = ("empty", "battery")


@dataclass(frozen=True)
class Verdict:
    """The referee's decision on one board."""

    kind: str
    position: Position  # the game's position if this verdict is acted on
    turn: Turn | None = None
    reason: str | None = None
    board: Placement | None = None  # the board as read (after the rules prior)
    status: GameStatus | None = None
    squares: tuple[int, ...] = ()  # where the panel should point
    points: tuple[int, ...] = ()
    confidences: dict = field(default_factory=dict, compare=False)
    # R-23 on an accepted verdict: the note (never a rejection), where it points, the batteries
    # left blank (the next player's to turn back) and the sides seen on the board
    note: str | None = None
    note_squares: tuple[int, ...] = ()
    note_points: tuple[int, ...] = ()
    turn_back: tuple[int, ...] = ()
    sides: dict = field(default_factory=dict, compare=False)
    before: Position | None = None  # the position judged (an accepted verdict): accept() plays it only there
    # a question: the accepted verdicts that fit the reading, most likely first (squares/points: where they differ)
    candidates: tuple["Verdict", ...] = ()
    unasked_reason: str | None = None

    @property
    def accepted(self) -> bool:
        return self.kind == ACCEPTED

    def line(self) -> str:
        """One readable line: the verdict and its turn or reason."""
        if self.kind == ACCEPTED:
            st = f" ({self.status.result})" if self.status is not None and self.status.over else ""
            note = f" -- note: {self.note}" if self.note else ""
            return f"accepted: {self.turn}{st}{note}"
        if self.kind == UNCHANGED:
            return "unchanged"
        if self.kind == QUESTION:
            return f"question: {' or '.join(str(c.turn) for c in self.candidates)}?"
        return f"{self.kind}: {self.reason}"

    def unasked(self) -> "Verdict":
        """A question as ``unreadable`` (check the fields, confirm again): for a caller with nobody to ask."""
        if self.kind != QUESTION:
            return self
        return replace(self, kind=UNREADABLE, reason=self.unasked_reason, candidates=(), unasked_reason=None)

    def to_json(self) -> dict:
        return {
            "verdict": self.kind,
            "turn": str(self.turn) if self.turn is not None else None,
            "reason": self.reason,
            "position": (
                f"{self.board.fields()} {self.position.to_move.value}"
                if self.board is not None and self.kind in (ACCEPTED, UNCHANGED, GAME_OVER)
                else (self.board.fields() if self.board is not None else None)
            ),
            "status": self.status.result if self.status is not None else None,
            "squares": [square_name(s) for s in self.squares],
            "points": [point_name(p) for p in self.points],
            "note": self.note,
            "turn_back": [point_name(p) for p in self.turn_back],
            **({"candidates": [str(c.turn) for c in self.candidates]} if self.kind == QUESTION else {}),
        }


@dataclass(frozen=True)
class AcceptedTurn:
    before: Position
    turn: Turn
    after: Position
    sides_before: Sides = field(default_factory=dict)  # the sides seen on ``before``


@dataclass
class Referee:
    """Referees one game.  ``min_field_prob``: a board is taken from a doubtful
    reading only when the camera gave each of its unsure fields' states at least
    this probability, and every legal reading made of such states rivals it
    (every state down to :data:`TRY_FLOOR` is tried); ``decisive``: a legal
    reading at least 1/decisive as likely as the likeliest rivals it too,
    however low its states (rivals make a question, never a guess);
    ``max_uncertain``: more unsure fields than this make the board unreadable, as do more boards to try
    than ``max_boards`` (:data:`MAX_BOARDS`).
    ``sides``: R-23 on (notes and the batteries to turn back on accepted verdicts)."""

    rules: Rules = ORIGINAL
    position: Position = field(default_factory=Position.start)
    min_field_prob: float = 0.12
    max_uncertain: int = 10
    max_boards: int = MAX_BOARDS
    decisive: float = DECISIVE
    history: list[AcceptedTurn] = field(default_factory=list)
    sides: bool = True
    sides_seen: dict = field(default_factory=dict)  # the sides of the last accepted board
    # the status of the positions last asked about (the current one, a judged turn's), by identity
    _statuses: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    # -- state ------------------------------------------------------------
    @property
    def status(self) -> GameStatus:
        return self._status_of(self.position)

    def _status_of(self, position: Position) -> GameStatus:
        """``status(position, rules)``, kept for the few positions last asked about (a position and
        the rules are immutable: the current position's status is asked for by every judgement and
        every view of the game, an accepted turn's again once it is the current position)."""
        key = id(position)
        kept = self._statuses.get(key)
        if kept is not None and kept[0] is position and kept[1] is self.rules:
            return kept[2]
        st = status(position, self.rules)
        if len(self._statuses) >= 4:
            self._statuses.clear()
        self._statuses[key] = (position, self.rules, st)
        return st

    def accept(self, verdict: Verdict) -> Position:
        """Make an accepted verdict the game's new position."""
        if verdict.kind != ACCEPTED or verdict.turn is None:
            raise ValueError(f"only an accepted verdict can be played, not {verdict.kind!r}")
        before = self.position
        if verdict.before != before:  # never trust a stale verdict: its turn was checked on another position
            raise ValueError(f"the verdict {verdict.turn} was judged on another position: judge the board again")
        after = verdict.position  # the turn was played on ``before`` once, when it was judged
        self.history.append(AcceptedTurn(before, verdict.turn, after, dict(self.sides_seen)))
        self.position = after
        self.sides_seen = dict(verdict.sides)
        return after

    def see_sides(self, reading: TableReading) -> None:
        """R-23: take the battery sides of a reading of the current board (the start position
        at the start of a game, the board put back after an undo) as those of the last accepted board."""
        self.sides_seen = reading.sides_of(self.position.batteries) if self.sides else {}

    def undo(self) -> AcceptedTurn | None:
        """Take back the last accepted turn (the board must be put back)."""
        if not self.history:
            return None
        last = self.history.pop()
        self.position = last.before
        self.sides_seen = dict(last.sides_before)
        return last

    def replay(self, turns: Sequence[Turn | str]) -> None:
        """Play recorded turns (resuming from a journal)."""
        for t in turns:
            turn = Turn.parse(t) if isinstance(t, str) else t
            before = self.position
            self.position = apply_turn(before, turn, self.rules)
            self.history.append(AcceptedTurn(before, turn, self.position))

    # -- judging ----------------------------------------------------------
    def judge_board(self, board: Placement | Position) -> Verdict:
        """Judge a board read with full confidence (tests, the CLI, a typed-in board)."""
        return self._decide([(Placement.of(board), 1.0, 1.0)], uncertain=(), confidences={}, camera=False)

    def judge(self, reading: TableReading | Placement | Position) -> Verdict:
        """Judge what the camera read.  Pure: nothing changes until :meth:`accept`."""
        if isinstance(reading, (Placement, Position)):
            return self.judge_board(reading)
        sp, pp = reading.square_probs, reading.point_probs
        confidences = reading.confidences()
        if sp is None or pp is None:
            return self._unreadable(reading.reason or "the board could not be read", confidences)
        low_s = reading.unsure_squares
        low_p = reading.unsure_points
        if not reading.readable and not (low_s or low_p):
            return self._unreadable(reading.reason or "the board could not be read", confidences)
        if not reading.readable and not reading.only_unsure:
            return self._unreadable(reading.reason or "the board could not be read", confidences)
        n_unsure = len(low_s) + len(low_p)
        if n_unsure > self.max_uncertain and not reading.readable and reading.reason \
                and not reading.reason.startswith("low confidence"):
            # the reader says why it saw nothing (a black frame, the board moved): say that
            return self._unreadable(reading.reason, confidences)
        boards = _boards(sp, pp, low_s, low_p)
        if n_unsure > self.max_uncertain or boards > self.max_boards:
            names = [square_name(s) for s in low_s] + [point_name(p) for p in low_p]
            return _camera_says(self._unreadable(
                f"{n_unsure} fields cannot be read with confidence ({', '.join(names[:8])}"
                f"{' ...' if n_unsure > 8 else ''}): fix the board or the light",
                confidences,
                squares=low_s,
                points=low_p,
            ), reading)
        candidates = list(self._candidates(sp, pp, low_s, low_p))
        verdict = self._decide(candidates, uncertain=(low_s, low_p), confidences=confidences)
        if verdict.kind == ACCEPTED and _on_a_minority(verdict.board, sp, pp, low_s, low_p):
            # the turn needs a state the camera thought the less likely one: the board may rather hold
            # a misread among the fields read nearly surely (see NEAR_SURE); try each of them too
            near = [("s", s) for s in range(36) if s not in low_s and max(sp[s]) < NEAR_SURE] \
                + [("p", p) for p in range(49) if p not in low_p and max(pp[p]) < NEAR_SURE]
            if near and boards * len(near) > self.max_boards:
                # too many boards to try the nearly sure fields: the turn is not taken untried
                names = [square_name(s) for s in low_s] + [point_name(p) for p in low_p]
                return _camera_says(self._unreadable(
                    f"low confidence at {', '.join(names)}, and the turn found needs one of those fields in the "
                    "state the camera thought the less likely one: check the board and confirm again",
                    confidences, squares=low_s, points=low_p), reading)
            if near:
                more = [c for f in near for c in self._candidates(sp, pp, low_s, low_p, flip=f)]
                verdict = self._decide(sorted(candidates + more, key=lambda c: -c[1]),
                                       uncertain=(low_s, low_p), confidences=confidences)
        if verdict.kind == QUESTION:
            return _camera_says(replace(verdict, candidates=tuple(self._with_sides(c, reading)
                                                                  for c in verdict.candidates)), reading)
        return _camera_says(self._with_sides(verdict, reading), reading)

    def _with_sides(self, verdict: Verdict, reading: TableReading) -> Verdict:
        """R-23 on an accepted verdict: the note and the batteries to turn back (never a rejection)."""
        if not self.sides or verdict.kind != ACCEPTED or verdict.turn is None or verdict.board is None:
            return verdict
        seen = reading.sides_of(verdict.board.batteries)
        if not seen:
            return verdict
        check = check_sides(self.position, verdict.turn, self.sides_seen, seen, self.rules)
        return replace(verdict, note=check.note, note_squares=check.squares, note_points=check.points,
                       turn_back=check.left_blank, sides=seen)

    def _candidates(self, sp, pp, low_s: Sequence[int], low_p: Sequence[int], flip: tuple[str, int] | None = None):
        """Boards the reading may show, most likely first: (board, likelihood, the lowest probability
        the camera gave a state of an unsure field in it). Every state down to :data:`TRY_FLOOR`.
        ``flip`` (``("s", square)`` or ``("p", point)``): only the boards with that field, read surely
        otherwise, in one of its other states (each a state of an unsure field here)."""
        base_sq = np.asarray(sp).argmax(axis=1).tolist()  # the first of equal maxima, as max() takes it
        base_pt = np.asarray(pp).argmax(axis=1).tolist()
        options: list[list[tuple[str, int, int, float]]] = []
        for s in low_s:
            options.append([("s", s, k, float(sp[s][k])) for k in _tried(sp[s], base_sq[s])])
        for p in low_p:
            options.append([("p", p, k, float(pp[p][k])) for k in _tried(pp[p], base_pt[p])])
        if flip is not None:
            kind, i = flip
            probs, base = (sp, base_sq) if kind == "s" else (pp, base_pt)
            opts = [(kind, i, k, float(probs[i][k])) for k in range(len(probs[i]))
                    if k != base[i] and probs[i][k] >= TRY_FLOOR]
            if not opts:
                return []
            options.append(opts)
        out = []
        for combo in itertools.product(*options):
            sq = list(base_sq)
            pt = list(base_pt)
            like, weakest = 1.0, 1.0
            for kind, i, k, prob in combo:
                if kind == "s":
                    sq[i] = k
                else:
                    pt[i] = k
                like *= prob
                weakest = min(weakest, prob)
            out.append((_placement(sq, pt), like, weakest))
        out.sort(key=lambda c: -c[1])
        return out

    def _decide(self, candidates: list[tuple[Placement, float, float]], *, uncertain, confidences: dict,
                camera: bool = True) -> Verdict:
        pos = self.position
        current = Placement.of(pos)
        game = self._status_of(pos)
        low_s, low_p = uncertain if uncertain else ((), ())
        unsure = bool(low_s or low_p)
        results: list[tuple[Placement, float, str, Explanation | None, float]] = []
        best = 0.0                 # the likeliest legal reading's likelihood so far
        legal: set[Placement] = set()               # the legal readings so far (each a rival)
        for board, like, weakest in candidates:      # most likely first
            if best and like * self.decisive < best and weakest < self.min_field_prob:
                continue           # neither nearly as likely as the likeliest legal reading nor on states
                                   # the camera gives min_field_prob: no rival of it
            if board == current:
                results.append((board, like, UNCHANGED, None, weakest))
            elif game.over:
                results.append((board, like, GAME_OVER, None, weakest))
            elif unsure and not _plausible_counts(board):
                continue
            else:
                # only the first reading's diagnosis is ever said (below): the others need whether
                # a legal turn makes them, which is a small part of the work (explain, diagnose)
                ex = _stack_refused(board, self.rules) or explain(pos, board, self.rules, diagnose=not results)
                results.append((board, like, ACCEPTED if ex.legal else REJECTED, ex, weakest))
            if results[-1][2] != REJECTED:
                best = best or like
                legal.add(board)
                if len(legal) > MAX_CANDIDATES and not game.over:
                    break          # more legal readings rival than a question offers: unreadable, whatever
                                   # the readings still untried are (the first two, which it names, are in)

        if not unsure:
            board, _, kind, ex, _ = results[0]
            if camera and kind == REJECTED and not _plausible_counts(board):
                # No player can make such a board (issues 5 and 10: "not 14 batteries" is amber):
                # a piece off the grid, or a hand or an object the camera took for pieces.
                return self._unreadable(
                    f"the board cannot be read with confidence: {_count_problems(board)} "
                    "(a piece off the grid, or something over the board?); check the board and confirm again",
                    confidences,
                )
            return self._verdict(kind, board, ex, confidences)

        names = [square_name(s) for s in low_s] + [point_name(p) for p in low_p]
        # the legal readings that rival the likeliest (the loop above left out the others): at least
        # 1/decisive as likely as it, or on states the camera gave at least min_field_prob each
        good = [r for r in results if r[2] in (ACCEPTED, UNCHANGED, GAME_OVER)]
        distinct = {r[0] for r in good}
        if game.over and good:
            # After the end nothing is accepted, however the unsure fields read: the final
            # board ("unchanged") if every reading is it, else a clear "game over" (readings whose
            # states the camera gave at least min_field_prob, where there are such).
            seen = [r for r in good if r[4] >= self.min_field_prob] or good
            pick = next((r for r in seen if r[2] == GAME_OVER), seen[0])
            return self._verdict(pick[2], pick[0], None, confidences)
        if len(distinct) == 1:
            board, _, kind, ex, weakest = good[0]
            if weakest >= self.min_field_prob:
                return self._verdict(kind, board, ex, confidences)
            return self._unreadable(
                f"low confidence at {', '.join(names)}: the only legal reading of those fields is one the camera "
                "thinks unlikely; check the board and confirm again",
                confidences,
                squares=low_s,
                points=low_p,
            )
        if len(distinct) > 1:
            a, b = good[0][0], next(r[0] for r in good if r[0] != good[0][0])
            diff = differing_fields(a, b)
            why = (f"unsure at {', '.join(names)}: the board could be read as more than one legal position "
                   f"(they differ at {', '.join(diff)})")
            unasked = self._unreadable(f"{why}; check those fields and confirm again", confidences,
                                       squares=low_s, points=low_p)
            if camera and all(r[2] == ACCEPTED for r in good) and len(good) <= MAX_CANDIDATES:
                return self._question(why, good, unasked, confidences)
            return unasked
        why = ""
        if results:
            first = results[0]
            if first[3] is not None and first[3].diagnosis:
                why = f"; as read it would be illegal ({first[3].diagnosis})"
        return self._unreadable(
            f"low confidence at {', '.join(names)} and no reading of those fields is a legal turn{why}: "
            "check the board and confirm again",
            confidences,
            squares=low_s,
            points=low_p,
        )

    def _question(self, why: str, good: list, unasked: Verdict, confidences: dict) -> Verdict:
        """Two or more legal turns fit: their accepted verdicts, for the players to pick one."""
        candidates = tuple(self._verdict(ACCEPTED, board, ex, confidences) for board, _, _, ex, _ in good)
        squares, points = differing_indices([c.board for c in candidates if c.board is not None])
        turns = " or ".join(str(c.turn) for c in candidates)
        return Verdict(QUESTION, self.position, reason=f"{why}: which turn was it, {turns}?", status=self.status,
                       squares=squares, points=points, confidences=confidences, candidates=candidates,
                       unasked_reason=unasked.reason)

    def _verdict(self, kind: str, board: Placement, ex: Explanation | None, confidences: dict) -> Verdict:
        pos = self.position
        if kind == UNCHANGED:
            return Verdict(UNCHANGED, pos, board=board, status=self._status_of(pos), confidences=confidences,
                           reason="the board is the same as after the last accepted turn")
        if kind == GAME_OVER:
            st = self._status_of(pos)
            return Verdict(GAME_OVER, pos, board=board, status=st, confidences=confidences,
                           reason=f"the game is over ({st.result}: {st.reason}); set up the start position for a new game")
        assert ex is not None
        if kind == ACCEPTED:
            assert ex.turn is not None
            after = apply_turn(pos, ex.turn, self.rules)
            return Verdict(ACCEPTED, after, turn=ex.turn, board=board, status=self._status_of(after),
                           confidences=confidences, before=pos)
        return Verdict(REJECTED, pos, reason=ex.diagnosis, board=board, status=self._status_of(pos),
                       squares=ex.squares, points=ex.points, confidences=confidences)

    def _unreadable(self, reason: str, confidences: dict, squares=(), points=()) -> Verdict:
        return Verdict(UNREADABLE, self.position, reason=reason, status=self._status_of(self.position),
                       squares=tuple(squares), points=tuple(points), confidences=confidences)


def _stack_refused(board: Placement, rules: Rules) -> Explanation | None:
    """R-19: in a game without ``stacking`` a board read with a stack is a
    rejected turn, the pointer at the stack (not an input error)."""
    if not board.stacks:
        return None
    try:
        rules.check_position(board)
    except NotationError as exc:
        return Explanation(None, (Problem(str(exc), points=tuple(sorted(p for p, _ in board.stacks))),))
    return None


#: how many of the camera's causes a verdict's reason repeats (the rest: `netzwerk vision read`)
CAMERA_CAUSES = 4


def _camera_says(verdict: Verdict, reading: TableReading) -> Verdict:
    """An unreadable verdict or a question about unsure fields, with the camera's word on why it is
    unsure of them (``TableReading.doubts``: a robot that may hide a point, a robot's colour it cannot
    tell, ...) added to its reason: what the players can fix. Other verdicts as they are."""
    if verdict.kind not in (UNREADABLE, QUESTION) or not reading.doubts or not verdict.reason:
        return verdict
    said = [f"{name}: {why}" for name, why in reading.doubts[:CAMERA_CAUSES]]
    more = len(reading.doubts) - len(said)
    word = f" [camera: {'; '.join(said)}{f'; {more} more' if more else ''}]"
    return replace(verdict, reason=verdict.reason + word,
                   unasked_reason=verdict.unasked_reason and verdict.unasked_reason + word)


def _on_a_minority(board: Placement | None, sp, pp, low_s: Sequence[int], low_p: Sequence[int]) -> bool:
    """Does ``board`` hold an unsure field in a state the camera gave less than even odds?"""
    if board is None:
        return False
    return any(sp[s][square_state(board, s)] < 0.5 for s in low_s) \
        or any(pp[p][point_state(board, p)] < 0.5 for p in low_p)


def _placement(sq: Sequence[int], pt: Sequence[int]) -> Placement:
    return Placement(
        frozenset(i for i, k in enumerate(sq) if k == 1),
        frozenset(i for i, k in enumerate(sq) if k == 2),
        frozenset(i for i, k in enumerate(pt) if k == 1),
    )


def _tried(row, base: int) -> list[int]:
    """The states of an unsure field that are tried: those the camera gives at least :data:`TRY_FLOOR`,
    and its likeliest (``base``, the first of equal maxima) whatever it is given."""
    return [k for k in range(len(row)) if row[k] >= TRY_FLOOR or k == base]


def _boards(sp, pp, low_s: Sequence[int], low_p: Sequence[int]) -> int:
    """How many boards :meth:`Referee._candidates` makes of a reading's unsure fields: the product of
    the counts of their states tried (:func:`_tried`)."""
    n = 1
    for probs, fields in ((sp, low_s), (pp, low_p)):
        for i in fields:
            n *= len(_tried(probs[i], int(np.argmax(probs[i]))))
    return n


def _plausible_counts(board: Placement) -> bool:
    return len(board.batteries) == BATTERY_COUNT and len(board.white) <= MAX_ROBOTS and len(board.black) <= MAX_ROBOTS


def _count_problems(board: Placement) -> str:
    out = []
    if len(board.batteries) != BATTERY_COUNT:
        out.append(f"{len(board.batteries)} batteries read, there are always {BATTERY_COUNT}")
    for label, robots in (("White", board.white), ("Black", board.black)):
        if len(robots) > MAX_ROBOTS:
            out.append(f"{len(robots)} {label} robots read, at most {MAX_ROBOTS} exist")
    return "; ".join(out)
