"""The amber question, end to end on the fake table: two legal turns fit a doubtful reading, the
panel shows them in turn, a confirm press takes the one shown, the journal records the choice."""

from __future__ import annotations

from companion.cli import main
from companion.referee.game import CHECK, PLAYING
from companion.rules.engine import apply_turn
from companion.rules.position import Placement, Position

from .helpers import play, press

START = Position.start()
# b1 doubtful between White (read) and empty, b2 between empty (read) and White, on the board after
# c1-c3: both "c1-c3" and "b1-b2 c1-c3" are legal turns, "c1-c3" the likelier
DOUBT = {1: 0, 7: 1}


def pointer(comp) -> list[str]:
    return [str(t) for t in comp.panel.state().pointer_targets]


def ask(comp, table) -> None:
    table.board = Placement.of(apply_turn(START, "c1-c3"))
    table.unsure = dict(DOUBT)
    comp.run_for(0.5)
    press(comp, "confirm_white")
    comp.run_for(0.4)


def show_next(comp) -> None:
    """Let the loop run until it shows the next candidate."""
    index = comp.question.index
    for _ in range(100):
        comp.run_for(0.1)
        if comp.question.index != index:
            return
    raise AssertionError("the question never showed the next candidate")


def test_the_player_picks_the_turn_shown(game, capsys) -> None:
    comp, table = game
    ask(comp, table)
    q = comp.question
    assert q is not None and comp.step == "asking" and not comp.referee.history
    assert [str(c.turn) for c in q.candidates] == ["c1-c3", "b1-b2 c1-c3"]
    st = comp.panel.state()
    assert st.status == "unreadable" and st.turn == "white"  # amber, White still to move
    assert pointer(comp) == ["c1*", "c3"] and st.gauge == (1, 2)  # the first candidate, 1 of 2
    entry = [e for e in comp.log if e.kind == "question"][-1]
    assert entry.squares == (1, 7) and "b1, b2" in entry.text

    show_next(comp)
    assert pointer(comp) == ["b1*", "b2", "c1*", "c3"] and comp.panel.state().gauge == (2, 2)
    show_next(comp)
    assert pointer(comp) == ["c1*", "c3"], "after the last candidate the first comes again"
    show_next(comp)

    press(comp, "confirm_white")
    comp.run_for(0.2)
    assert comp.question is None and comp.phase == PLAYING
    assert [str(t.turn) for t in comp.referee.history] == ["b1-b2 c1-c3"]
    assert comp.panel.state().status == "accepted" and comp.panel.state().turn == "black"
    game_record = comp.journal.game(comp.game_id)
    assert [t.turn for t in game_record.turns] == ["b1-b2 c1-c3"]
    chosen = [e.detail for e in game_record.events if e.kind == "chosen"]
    assert chosen == [{"ply": 1, "turn": "b1-b2 c1-c3", "candidates": ["c1-c3", "b1-b2 c1-c3"],
                       "fields": ["b1", "b2"]}]
    assert [e.kind for e in comp.log].count("chosen") == 1

    capsys.readouterr()
    assert main(["games", "show", str(comp.game_id), "--journal", str(comp.journal.path)]) == 0
    out = capsys.readouterr().out
    assert "event chosen (ply 1): a player chose b1-b2 c1-c3 of c1-c3 or b1-b2 c1-c3, unsure at b1, b2" in out
    assert "event question" in out


def test_the_first_candidate_taken_at_once(game) -> None:
    comp, table = game
    ask(comp, table)
    press(comp, "confirm_white")
    comp.run_for(0.2)
    assert [str(t.turn) for t in comp.referee.history] == ["c1-c3"]
    table.unsure = None
    play(comp, table, "c6-c4")  # the game goes on
    assert len(comp.referee.history) == 2


def test_a_changed_board_drops_the_question(game) -> None:
    comp, table = game
    ask(comp, table)
    assert comp.question is not None
    table.unsure = None  # the player straightens b1 and b2: the camera is sure now
    comp.run_for(0.6)
    assert comp.question is None and comp.step == "idle" and not comp.referee.history
    assert comp.panel.state().gauge is None and not pointer(comp)
    assert "dropped" in [e for e in comp.log if e.kind == "question"][-1].text
    press(comp, "confirm_white")
    comp.run_for(0.5)
    assert [str(t.turn) for t in comp.referee.history] == ["c1-c3"]
    assert not [e for e in comp.journal.game(comp.game_id).events if e.kind == "chosen"]


def test_hint_waits_and_undo_drops_a_question(game) -> None:
    comp, table = game
    play(comp, table, "c1-c3")
    # Black: c6-c4, b6 doubtful between Black (read) and empty, b5 between empty (read) and Black
    table.board = Placement.of(apply_turn(comp.referee.position, "c6-c4"))
    table.unsure = {31: 0, 25: 2}
    comp.run_for(0.5)
    press(comp, "confirm_black")
    comp.run_for(0.4)
    assert comp.question is not None
    assert [str(c.turn) for c in comp.question.candidates] == ["c6-c4", "b6-b5 c6-c4"]
    hints = len([e for e in comp.log if e.kind == "hint"])
    press(comp, "hint")
    comp.run_for(0.2)
    assert len([e for e in comp.log if e.kind == "hint"]) == hints, "no hint while a question is open"
    press(comp, "undo", hold=2.1)
    comp.run_for(0.2)
    assert comp.question is None and comp.phase == CHECK and not comp.referee.history
    assert comp.panel.state().gauge is None


def test_the_demo_player_puts_the_board_right_when_no_candidate_is_their_turn(game) -> None:
    """None of the turns shown is the one made (the camera misread d2): confirming would take a
    turn nobody made. The demo's player puts the pieces back instead -- the question is dropped,
    nothing is accepted -- and makes the turn again, which is judged afresh."""
    from companion.demo import answer

    comp, table = game
    ask(comp, table)
    made = Placement.of(apply_turn(START, "c1-c3 d1-d2"))
    assert made not in [c.board for c in comp.question.candidates]
    said: list[str] = []

    def put_back() -> None:
        table.board = Placement.of(START)
        table.unsure = None

    assert answer(comp, comp.panel, made, "white", said.append, put_back) is False
    assert comp.question is None and comp.step == "idle" and not comp.referee.history
    assert not [e for e in comp.journal.game(comp.game_id).events if e.kind == "chosen"]
    assert "none of the turns shown is the one made" in said[-1]
    play(comp, table, "c1-c3 d1-d2")  # the turn made again, read right this time
    assert [str(t.turn) for t in comp.referee.history] == ["c1-c3 d1-d2"]


def test_the_demo_player_confirms_the_candidate_that_is_their_turn(game) -> None:
    from companion.demo import answer

    comp, table = game
    ask(comp, table)
    made = Placement.of(apply_turn(START, "b1-b2 c1-c3"))
    said: list[str] = []
    assert answer(comp, comp.panel, made, "white", said.append, put_back=lambda: None) is True
    assert [str(t.turn) for t in comp.referee.history] == ["b1-b2 c1-c3"] and comp.question is None
    assert "b1-b2 c1-c3" in said[-1]
