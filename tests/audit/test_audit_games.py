"""Whole recorded games, refereed photo by photo (the expected verdicts come from the engine)."""

from __future__ import annotations

import pytest
from audit_scenario import CAPTURE_IGNORED, SLIPS, Shot

from companion.referee.audit import START, ImageVerdict, run_audit
from companion.rules.engine import apply_turn, status
from companion.rules.explain import explain
from companion.rules.moves import Turn
from companion.rules.position import Placement, Position
from companion.record import parse_record
from companion.referee.referee import ACCEPTED, GAME_OVER, REJECTED, UNCHANGED, UNREADABLE

GAMES = ("default_game", "capture_game")


@pytest.fixture(scope="module")
def audits(request):
    """Each game audited once for this module."""
    out = {}
    for name in GAMES:
        game = request.getfixturevalue(name)
        out[name] = (game, run_audit(game.folder, rules=game.rules))
    return out


def matches(shot: Shot, item: ImageVerdict) -> bool:
    """Is the verdict on a photo the one the engine expects?

    Exact, with one allowance the referee's design makes: a photo whose reading
    has unsure fields is never called illegal -- an illegal board read with an
    unsure field is ``unreadable`` naming the diagnosis "as read" (amber, the
    player checks the board and confirms again); after the win, the final board
    read with an unsure field is "game over" rather than "unchanged".
    """
    v = item.verdict
    unsure = bool(v.confidences.get("unsure"))
    if shot.expect == ACCEPTED:
        return v.kind == ACCEPTED and v.position == shot.after
    if shot.expect == REJECTED:
        return v.kind == REJECTED or (unsure and v.kind == UNREADABLE and "as read it would be illegal" in v.reason)
    if shot.expect == UNCHANGED and unsure:
        return v.kind in (UNCHANGED, GAME_OVER)
    return v.kind == shot.expect


@pytest.mark.parametrize("name", GAMES)
def test_verdict_by_verdict(audits, name):
    game, res = audits[name]
    assert res.verdicts[0].kind == START
    assert len(res.verdicts) == len(game.shots) + 1
    wrong = [(item.image, shot.note, shot.expect, item.line())
             for shot, item in zip(game.shots, res.verdicts[1:]) if not matches(shot, item)]
    assert not wrong
    # a slip read with confidence is called illegal, with the engine's diagnosis naming pieces
    slips = [(s, i) for s, i in zip(game.shots, res.verdicts[1:]) if s.expect == REJECTED]
    rejected = [(s, i) for s, i in slips if i.kind == REJECTED]
    assert rejected
    for shot, item in slips:
        if not item.verdict.confidences.get("unsure"):
            assert item.kind == REJECTED
    for shot, item in rejected:
        assert item.verdict.reason == explain(shot.before, shot.board, game.rules).diagnosis
        assert item.verdict.squares or item.verdict.points


@pytest.mark.parametrize("name", GAMES)
def test_the_game_covers_every_case(audits, name):
    game, res = audits[name]
    notes = {s.note for s in game.shots}
    assert set(SLIPS) <= notes and "hand" in notes
    kinds = {i.kind for i in res.verdicts}
    assert {ACCEPTED, REJECTED, UNREADABLE, GAME_OVER} <= kinds
    if "must-capture" in game.rules.options:
        ignored = [(s, i) for s, i in zip(game.shots, res.verdicts[1:]) if s.note == CAPTURE_IGNORED]
        assert ignored
        for shot, item in ignored:
            # legal in the original rules, illegal under must-capture
            assert explain(shot.before, shot.board).legal
            assert item.kind == REJECTED and "must-capture" in item.verdict.reason


@pytest.mark.parametrize("name", GAMES)
def test_whole_game_invariants(audits, name):
    """Never accept a turn other than the one played, never call a legal turn or a hand illegal."""
    game, res = audits[name]
    for shot, item in zip(game.shots, res.verdicts[1:]):
        v = item.verdict
        if v.kind == ACCEPTED:
            assert shot.expect == ACCEPTED
            assert v.position == shot.after  # the board the played turn makes ...
            assert apply_turn(shot.before, v.turn, game.rules) == shot.after  # ... and a turn that makes it
        if shot.expect == ACCEPTED:
            assert v.kind != REJECTED
        if shot.hand:
            assert v.kind not in (REJECTED, ACCEPTED)
        if shot.note == "after the win":
            assert v.kind in (UNCHANGED, GAME_OVER)


@pytest.mark.parametrize("name", GAMES)
def test_record_and_result(audits, name):
    game, res = audits[name]
    played = [s.turn for s in game.shots if s.expect == ACCEPTED]
    last = [s for s in game.shots if s.expect == ACCEPTED][-1].after
    assert res.final == last
    st = status(last, game.rules)
    assert st.over and res.result == st.result
    record = parse_record(res.record_text())
    assert record.result == st.result and record.termination == st.reason
    assert record.rules == tuple(game.rules.names())
    # the recorded turns make the same boards as the turns played
    pos = Position.start()
    for recorded, turn in zip(record.turns, played, strict=True):
        assert Placement.of(apply_turn(pos, Turn.parse(recorded), game.rules)) == \
            Placement.of(apply_turn(pos, Turn.parse(turn), game.rules))
        pos = apply_turn(pos, Turn.parse(turn), game.rules)


def test_after_rejected_the_next_photo_is_judged_against_the_last_accepted(audits):
    game, res = audits["default_game"]
    items = res.verdicts[1:]
    for k, (shot, item) in enumerate(zip(game.shots, items)):
        if item.kind in (REJECTED, UNREADABLE) and k + 1 < len(items):
            nxt = items[k + 1].verdict
            assert nxt.kind == ACCEPTED  # the corrected board / the hand taken away
            assert game.shots[k + 1].before == shot.before


def test_every_verdict_kind_occurs(audits):
    kinds = {i.kind for _, res in audits.values() for i in res.verdicts}
    assert kinds == {START, ACCEPTED, REJECTED, UNREADABLE, UNCHANGED, GAME_OVER}
