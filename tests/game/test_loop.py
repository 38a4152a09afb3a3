"""The game loop on mock pins and a fake table: turns, slips, hands, buttons, undo, new game, win, resume."""

from __future__ import annotations

import random

import pytest

from companion.rules.engine import apply_turn, random_turn, status
from companion.referee.game import CHECK, OVER, PLAYING, SETUP
from companion.rules.moves import Turn
from companion.rules.options import OPTIONS
from companion.rules.position import Placement, Position

from .helpers import close, hold_both_confirms, make, play, press, ready, side


def diagonal_slip(pos: Position) -> Placement:
    """White's robot a1 set down on c4: no legal turn explains it."""
    return Placement((pos.white - {0}) | {20}, pos.black, pos.batteries)


def test_setup_waits_for_the_start_position_then_opens_a_game(tmp_path):
    pos = apply_turn(Position.start(), "a1-a2")
    comp, table = make(tmp_path, Placement.of(pos))
    try:
        comp.run_for(2.0)
        assert comp.phase == SETUP and comp.game_id is None
        assert comp.panel.state().status == "unreadable"
        assert any("waiting for the start position" in e.text for e in comp.log)
        table.board = Placement.of(Position.start())
        comp.run_for(1.5)
        assert comp.phase == PLAYING and comp.game_id == 1
        st = comp.panel.state()
        assert st.turn == "white" and st.status is None
        assert comp.journal.open_game().start_position == Position.start().to_string()
    finally:
        close(comp)


def test_legal_turns_are_journalled_then_green_and_the_turn_passes(game):
    comp, table = game
    r = random.Random(1)
    for ply in range(1, 7):
        pos = comp.referee.position
        turn = random_turn(pos, r)
        play(comp, table, turn)
        st = comp.panel.state()
        assert st.status == "accepted", comp.log[-1]
        assert st.led("green").lit
        assert st.turn == comp.referee.position.to_move.name.lower() != pos.to_move.name.lower()
        rec = comp.journal.game(comp.game_id)
        assert len(rec.turns) == ply
        assert rec.turns[-1].after == apply_turn(pos, turn).to_string()
        assert rec.turns[-1].before == pos.to_string()
    assert [e.kind for e in comp.log].count("accepted") == 6


def test_illegal_turn_red_buzzer_pointer_and_the_turn_stays(game):
    comp, table = game
    pos = comp.referee.position
    turn = Turn.parse("a1-a3")
    table.board = diagonal_slip(pos)
    comp.run_for(0.5)
    press(comp, "confirm_white")
    comp.run_for(0.3)
    st = comp.panel.state()
    assert st.status == "illegal" and st.led("red").lit
    assert st.buzzer != "off"
    assert st.pointer_targets, "the pointer shows the offending piece"
    assert st.turn == "white"
    assert comp.referee.position == pos
    rec = comp.journal.game(comp.game_id)
    assert rec.turns == () and len(rec.rejections) == 1 and rec.rejections[0].verdict == "rejected"
    # the player corrects the board and confirms again
    play(comp, table, turn)
    assert comp.panel.state().status == "accepted"
    assert comp.journal.game(comp.game_id).turns[0].turn == str(turn)


def test_a_hand_over_the_board_is_amber_with_the_reason_then_read_again(game):
    comp, table = game
    pos = comp.referee.position
    turn = random_turn(pos, random.Random(4))
    table.board = Placement.of(apply_turn(pos, turn))
    table.hand = True
    comp.run_for(0.5)
    press(comp, "confirm_white")
    comp.run_for(0.8)
    st = comp.panel.state()
    assert st.status == "unreadable" and st.led("amber").lit
    assert comp.log[-1].kind == "unreadable" and "hand" in comp.log[-1].text
    assert comp.referee.position == pos, "never a guess"
    table.hand = False  # the hand goes away: the same press is judged
    comp.run_for(0.6)
    assert comp.panel.state().status == "accepted"
    assert comp.journal.game(comp.game_id).turns[0].turn == str(turn)


def test_a_hand_that_stays_times_out_and_the_player_presses_again(game):
    comp, table = game
    pos = comp.referee.position
    turn = random_turn(pos, random.Random(5))
    table.board = Placement.of(apply_turn(pos, turn))
    table.hand = True
    press(comp, "confirm_white")
    comp.run_for(comp.timings.confirm_timeout + 0.5)
    assert comp.pending is None and comp.panel.state().status == "unreadable"
    assert "press confirm again" in comp.log[-1].text
    table.hand = False
    comp.run_for(0.5)
    assert comp.referee.position == pos  # nothing happens without a press
    press(comp, "confirm_white")
    comp.run_for(0.3)
    assert comp.panel.state().status == "accepted"


def test_the_wrong_players_button_is_ignored(game):
    comp, table = game
    pos = comp.referee.position
    table.board = Placement.of(apply_turn(pos, random_turn(pos, random.Random(6))))
    comp.run_for(0.5)
    press(comp, "confirm_black")
    st = comp.panel.state()
    assert st.led("amber").mode.value == "blinking"  # the short wrong-player flash
    comp.run_for(0.5)
    assert comp.pending is None and comp.referee.position == pos
    rec = comp.journal.game(comp.game_id)
    assert rec.turns == () and rec.rejections == ()


def test_pressing_with_nothing_moved_is_unchanged_not_a_turn(game):
    comp, _ = game
    press(comp, "confirm_white")
    comp.run_for(0.3)
    assert comp.log[-1].kind == "unchanged" and comp.panel.state().status == "unreadable"
    assert comp.journal.game(comp.game_id).turns == ()


def test_undo_takes_back_and_waits_for_the_board_to_be_put_back(game):
    comp, table = game
    start = comp.referee.position
    t1 = random_turn(start, random.Random(7))
    play(comp, table, t1)
    press(comp, "undo", hold=2.2)
    comp.run_for(0.5)
    assert comp.phase == CHECK and comp.referee.position == start
    st = comp.panel.state()
    assert st.status == "unreadable" and st.pointer_targets and st.turn == "white"
    rec = comp.journal.game(comp.game_id)
    assert rec.turns == () and rec.history[0].undone_at is not None
    table.board = Placement.of(start)
    comp.run_for(0.5)
    assert comp.phase == PLAYING and comp.panel.state().status is None
    t2 = random_turn(start, random.Random(8))
    play(comp, table, t2)
    assert [t.turn for t in comp.journal.game(comp.game_id).turns] == [str(t2)]


def test_undo_with_nothing_to_take_back_only_blinks(game):
    comp, _ = game
    press(comp, "undo", hold=2.2)
    comp.run_for(0.2)
    assert comp.phase == PLAYING and comp.log[-1].text == "nothing to take back"


def test_new_game_abandons_the_game_and_waits_for_the_start_position(game):
    comp, table = game
    play(comp, table, random_turn(comp.referee.position, random.Random(9)))
    hold_both_confirms(comp)
    comp.run_for(0.5)
    assert comp.phase == CHECK and comp.panel.state().turn is None
    assert comp.game_id == 1
    table.board = Placement.of(Position.start())
    comp.run_for(0.5)
    assert comp.phase == PLAYING and comp.game_id == 2
    games = comp.journal.games()
    assert [g.result for g in games] == ["abandoned", None]


def _play_to_the_end(comp, table, seed: int, limit: int = 300) -> None:  # noqa: ANN001
    from companion.hints.players import GreedyPlayer

    player = GreedyPlayer()
    r = random.Random(seed)
    for _ in range(limit):
        if comp.phase == OVER:
            return
        play(comp, table, player.choose(comp.referee.position, comp.rules, r), settle=0.35)
    raise AssertionError("no result")


def test_win_pattern_game_closed_then_a_new_game(game):
    comp, table = game
    _play_to_the_end(comp, table, seed=1)
    st = comp.panel.state()
    final = status(comp.referee.position)
    assert st.win == final.winner.name.lower()
    rec = comp.journal.game(comp.game_id)
    assert rec.finished and rec.result == final.result
    assert comp.log[-1].kind == "win"
    # confirm presses do nothing now
    n = len(comp.log)
    press(comp, "confirm_white")
    press(comp, "confirm_black")
    comp.run_for(0.5)
    assert comp.phase == OVER and all(e.kind in ("undo",) for e in comp.log[n:])
    hold_both_confirms(comp)
    comp.run_for(0.3)
    assert comp.phase == CHECK and comp.panel.state().win is None
    table.board = Placement.of(Position.start())
    comp.run_for(0.5)
    assert comp.phase == PLAYING and comp.game_id == rec.id + 1


def test_undo_after_a_win_reopens_the_game(game):
    comp, table = game
    _play_to_the_end(comp, table, seed=1)
    gid = comp.game_id
    winning = comp.referee.history[-1]
    assert comp.phase == OVER and comp.panel.state().win is not None
    press(comp, "undo", hold=2.2)
    comp.run_for(0.3)
    assert comp.phase == CHECK and comp.referee.position == winning.before
    assert comp.panel.state().win is None and comp.game_id == gid
    assert any("reopened" in e.text for e in comp.log)
    rec = comp.journal.game(gid)
    assert not rec.finished and rec.position == winning.before.to_string()
    table.board = Placement.of(winning.before)
    comp.run_for(0.5)
    assert comp.phase == PLAYING and comp.panel.state().turn == winning.before.to_move.name.lower()
    play(comp, table, winning.turn, settle=0.35)  # the same winning turn, confirmed again
    assert comp.phase == OVER and comp.journal.game(gid).finished


def test_resume_after_restart_and_a_board_that_no_longer_matches(tmp_path):
    comp, table = make(tmp_path)
    ready(comp)
    r = random.Random(11)
    for _ in range(3):
        play(comp, table, random_turn(comp.referee.position, r))
    pos = comp.referee.position
    close(comp)
    # while the companion was down, someone moved a robot off its square
    board = Placement.of(pos)
    robot = min(board.white)
    free = next(s for s in range(36) if s not in board.white and s not in board.black)
    tampered = Placement((board.white - {robot}) | {free}, board.black, board.batteries)
    comp2, table2 = make(tmp_path, tampered, calibration="fake")
    try:
        comp2.run_for(1.0)
        assert comp2.game_id == 1 and comp2.referee.position == pos
        assert comp2.phase == CHECK
        st = comp2.panel.state()
        assert st.status == "unreadable" and st.led("amber").lit
        first = min(robot, free)
        assert [t.name for t in st.pointer_targets] == [f"{'abcdef'[first % 6]}{first // 6 + 1}"]
        assert "does not match the journal" in comp2.log[-1].text
        assert st.turn == side(comp2)
        table2.board = Placement.of(pos)
        comp2.run_for(0.5)
        assert comp2.phase == PLAYING and comp2.panel.state().status is None
        play(comp2, table2, random_turn(pos, r))
        assert len(comp2.journal.game(1).turns) == 4
    finally:
        close(comp2)


def test_resume_then_the_turn_made_before_the_crash_is_confirmed(tmp_path):
    comp, table = make(tmp_path)
    ready(comp)
    pos = comp.referee.position
    turn = random_turn(pos, random.Random(12))
    table.board = Placement.of(apply_turn(pos, turn))  # moved, then the power went
    close(comp)
    comp2, table2 = make(tmp_path, table.board, calibration="fake")
    try:
        comp2.run_for(1.0)
        assert comp2.phase == CHECK
        press(comp2, f"confirm_{side(comp2)}")
        comp2.run_for(0.4)
        assert comp2.phase == PLAYING and comp2.panel.state().status == "accepted"
        assert comp2.journal.game(1).turns[0].turn == str(turn)
    finally:
        close(comp2)


def test_hint_and_control_show_on_the_pointer_and_change_nothing(game):
    comp, _ = game
    pos = comp.referee.position
    press(comp, "control")
    comp.run_for(0.2)
    st = comp.panel.state()
    assert comp.log[-1].kind == "control"
    assert {t.kind for t in st.pointer_targets} == {"point"} and len(st.pointer_targets) == len(comp.log[-1].points)
    press(comp, "hint")
    comp.run_for(0.2)
    assert comp.log[-1].kind == "hint"
    hinted = Turn.parse(comp.log[-1].turn)
    apply_turn(pos, hinted)  # a legal turn
    st = comp.panel.state()
    assert st.pointer_targets[0].kind == "square" and st.pointer_targets[0].blink
    assert len(st.pointer_targets) == 2 * (len(hinted.robot_moves) + len(hinted.battery_moves))
    assert comp.referee.position == pos and comp.journal.game(comp.game_id).turns == ()


def test_a_board_tampered_between_turns_is_rejected_and_nothing_is_lost(game):
    comp, table = game
    r = random.Random(13)
    play(comp, table, random_turn(comp.referee.position, r))
    pos = comp.referee.position
    # between turns someone nudges a battery along a line, then Black makes a legal turn
    turn = random_turn(pos, r)
    after = Placement.of(apply_turn(pos, turn))
    bat = next(p for p in sorted(after.batteries) if p + 7 < 49 and p + 7 not in after.batteries
               and p not in pos.batteries ^ after.batteries)
    table.board = Placement(after.white, after.black, (after.batteries - {bat}) | {bat + 7})
    comp.run_for(0.5)
    press(comp, "confirm_black")
    comp.run_for(0.3)
    st = comp.panel.state()
    assert st.status == "illegal" and comp.log[-1].kind == "rejected" and st.turn == "black"
    assert comp.referee.position == pos and len(comp.journal.game(comp.game_id).turns) == 1
    table.board = after
    comp.run_for(0.5)
    press(comp, "confirm_black")
    comp.run_for(0.3)
    assert comp.panel.state().status == "accepted" and len(comp.journal.game(comp.game_id).turns) == 2


def test_live_watching_gauge_and_warning(tmp_path):
    comp, table = make(tmp_path, live_watch=True)
    try:
        ready(comp)
        pos = comp.referee.position
        full = comp.panel.state().gauge
        assert full is not None and full[0] == full[1] > 0
        # one legal robot move: the gauge drops by its cost
        table.board = Placement.of(apply_turn(pos, "a1-a3"))
        comp.run_for(0.5)
        value, maximum = comp.panel.state().gauge
        assert value == maximum - 2
        # a robot where no legal robot phase can bring it: amber blink + pointer
        table.board = Placement((pos.white - {0}) | {20}, pos.black, pos.batteries)  # a1 -> c4
        comp.run_for(0.5)
        assert comp.log[-1].kind == "warning"
        assert comp.panel.state().pointer_targets
    finally:
        close(comp)


def test_journal_refusing_a_turn_never_lights_accepted(game, monkeypatch):
    comp, table = game
    from companion.referee.journal import JournalError

    def broken(*a, **k):  # noqa: ANN002, ANN003
        raise JournalError("journal x: disk I/O error")

    monkeypatch.setattr(comp.journal, "record_turn", broken)
    pos = comp.referee.position
    play(comp, table, random_turn(pos, random.Random(14)))
    assert comp.panel.state().status == "unreadable"
    assert comp.referee.position == pos


def test_a_board_that_never_keeps_still_is_not_judged(tmp_path):
    from .helpers import TableCamera

    class Flicker(TableCamera):
        """Pieces still moving: the board changes every frame."""

        boards: tuple = ()

        def grab(self):  # noqa: ANN201
            if self.boards:
                self.table.board = self.boards[self.count % 2]
            return super().grab()

    from hardware.timing import ManualClock
    from .helpers import Table

    clock = ManualClock()
    table = Table(Placement.of(Position.start()))
    cam = Flicker(table, clock)
    comp, _ = make(tmp_path, source=cam, clock=clock)
    try:
        ready(comp)
        pos = comp.referee.position
        cam.boards = (Placement.of(apply_turn(pos, "a1-a2")), Placement.of(apply_turn(pos, "a1-a3")))
        press(comp, "confirm_white")
        comp.run_for(comp.timings.confirm_timeout + 0.5)
        assert comp.referee.position == pos and comp.log[-1].kind == "unreadable"
        assert "did not keep still" in comp.log[-1].text
    finally:
        close(comp)


def test_buttons_of_a_finished_game_do_nothing_while_waiting_for_the_start(game):
    comp, table = game
    play(comp, table, random_turn(comp.referee.position, random.Random(15)))
    hold_both_confirms(comp)
    comp.run_for(0.3)
    n_turns = len(comp.journal.game(1).turns)
    press(comp, "undo", hold=2.2)
    press(comp, "hint")
    press(comp, "confirm_black")
    comp.run_for(0.3)
    assert comp.phase == CHECK and len(comp.journal.game(1).turns) == n_turns == 1
    assert comp.pending is None


class _LearningReader:
    """The fake reader plus vision's learn_bare hook: records what the companion teaches it."""

    def __init__(self, fail: bool = False) -> None:
        from .helpers import FakeReader

        self.inner = FakeReader()
        self.fail = fail
        self.taught: list = []
        self.companion = None  # the loop, to see what it has shown when it teaches
        self.shown: list = []  # (the last log line's kind, the turn LED) at each lesson

    def read(self, image):
        return self.inner.read(image)

    def learn_bare(self, image, layout):
        self.taught.append(layout)
        if self.companion is not None:
            self.shown.append((self.companion.log[-1].kind, self.companion.panel.state().turn))
        if self.fail:
            raise RuntimeError("reference full")
        return 1


@pytest.mark.parametrize("fail", [False, True])
def test_an_accepted_turn_teaches_the_camera_the_bare_board(tmp_path, fail):
    """After each accepted turn the reader learns the bare squares of the new position; its failure never stops the game."""
    from companion.vision_bridge import layout_from_position

    reader = _LearningReader(fail=fail)
    comp, table = make(tmp_path, make_reader=lambda cal: reader)
    reader.companion = comp
    try:
        ready(comp)
        assert comp.phase == PLAYING
        play(comp, table, "a1-a2")
        assert comp.panel.state().status == "accepted"
        assert reader.taught == [layout_from_position(comp.referee.position)]
        assert any("bare board was not learned" in e.text for e in comp.log) == fail
        play(comp, table, "a6-a5")
        assert len(reader.taught) == 2 and comp.panel.state().status == "accepted"
        # the reader reads the frame again to learn: only once the verdict is out (the log, the next turn's LED)
        assert reader.shown == [("accepted", "black"), ("accepted", "white")]
    finally:
        close(comp)


def test_an_accepted_turn_is_played_once(game, monkeypatch):
    """The referee plays an accepted turn when it judges it; accepting it does not play it again."""
    import companion.referee.referee as referee_module

    comp, table = game
    calls: list[str] = []
    real = referee_module.apply_turn

    def counted(pos, turn, rules=None):
        calls.append(str(turn))
        return real(pos, turn, rules) if rules is not None else real(pos, turn)

    monkeypatch.setattr(referee_module, "apply_turn", counted)
    play(comp, table, "c1-c3")
    assert len(comp.referee.history) == 1
    assert calls == ["c1-c3"]


def test_a_request_for_a_new_game_with_options_that_are_not_rules_is_refused_the_game_goes_on(game):
    """Companion.request is the loop's door for the web page: a bad request is refused, never a
    traceback from the loop (the page checks too)."""
    comp, table = game
    for bad in [("new_game", ("nope",), "white"), ("new_game", "stacking", "white"), ("new_game", (1,), "white"),
                ("new_game", ("stacking",), "purple")]:
        assert comp.request(bad) is False
        comp.run_for(0.2)
    assert comp.phase == PLAYING and comp.game_id == 1 and not any(e.kind == "new-game" and "new game:" in e.text
                                                                    for e in comp.log)
    assert comp.request(("new_game", ("must-capture",), "black"))
    comp.run_for(0.2)
    assert comp.game_id == 2 and comp.rules.names() == ["must-capture"]  # the table shows the start position
    assert comp.referee.position.to_move.name == "BLACK"


def test_a_new_game_event_the_inbox_would_refuse_is_said_in_the_log_and_the_game_goes_on(game):
    """The loop checks a new game's options as the inbox and the page do (rules.options.new_game_choice)."""
    comp, table = game
    comp.inbox.put(("new_game", ("stacking",), "white"))
    comp.inbox.put(("new_game", ("fly",), "white"))
    comp.run_for(0.2)
    said = [e.text for e in comp.log if e.kind == "new-game" and e.text.startswith("no new game: ")]
    assert said == ["no new game: the option stacking cannot be refereed from the camera yet: "
                    "the camera does not yet report how many batteries stand on a point",
                    f"no new game: unknown rule option 'fly': known options are {', '.join(OPTIONS)}"]
    assert comp.phase == PLAYING and comp.game_id == 1 and comp.rules.names() == []
