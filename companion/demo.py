"""``netzwerk demo``: a whole game refereed by the companion, no Pi needed.

Two simulated players play a game on the synthetic camera's table: legal turns
chosen by an engine player (the hints' ``greedy`` player when it is there,
else the engine's random legal turns), a few deliberate slips (a robot put one
square off, then corrected), a hand over the board at a confirm press, a press
of the wrong player's button, hint, control and an undo. They turn the batteries
they draw on to their blank side and turn them back before their next turn
(R-23), now and then forgetting one, turning the wrong one or forgetting to turn
one back: the companion notes it on the accepted turn and points at the
batteries left blank. The players move the
pieces one at a time (the live-watching gauge follows them) and press their
confirm buttons on mock pins. The companion is the same
:class:`companion.referee.game.Companion` as ``netzwerk run``: the same ``tick``, on a
virtual clock. The virtual panel is drawn in the terminal as the game runs;
at the end come the accepted/rejected log and the game record.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, TextIO

from .cameras import SimCamera
from .drawing import terminal_board
from .rules.engine import apply_turn, random_turn
from .rules.explain import explain
from .referee.game import OVER, PLAYING, Companion, LogEntry, LoopTimings
from .rules.geometry import CORNERS, point_name, square_name
from .referee.journal import DEMO_EVENT, Journal
from .referee.view import Spectator
from .rules.moves import Turn
from .rules.position import Placement, Position
from .record import GameText, format_record
from .rules.options import Rules
from .rules.sides import paying_batteries

# the hint a player follows is bounded by its board evaluations, not by time: a seed plays the same
# game on a busy machine (the time budget only guards against a search that would not end)
DEMO_TIMINGS = LoopTimings(stable_seconds=0.3, confirm_timeout=6.0, camera_timeout=5.0, poll_interval=0.15,
                           calibration_retry=0.5, hint_budget=60.0, hint_nodes=20_000)
WATCHED_PLIES = 4  # the first turns are played one piece at a time (the gauge follows); later ones at once
MAX_PLIES = 120


@dataclass
class DemoResult:
    game_id: int
    result: str
    plies: int
    counts: dict[str, int]
    record: str
    seconds: float
    renders: int
    frames_read: int
    verdict_ms: list[float] = field(default_factory=list)


class _Out:
    def __init__(self, stream: TextIO, color: bool, pause: float) -> None:
        self.stream = stream
        self.color = color
        self.pause = pause

    def __call__(self, text: str = "") -> None:
        self.stream.write(text + "\n")
        self.stream.flush()

    def wait(self, factor: float = 1.0) -> None:
        if self.pause > 0:
            time.sleep(self.pause * factor)


def _player(rules: Rules) -> Callable[[Position, random.Random], Turn]:
    try:
        from .hints.players import GreedyPlayer

        greedy = GreedyPlayer()

        def choose(pos: Position, rng: random.Random) -> Turn:
            return greedy.choose(pos, rules, rng)

        choose.name = "greedy"  # type: ignore[attr-defined]
        return choose
    except ImportError:  # pragma: no cover - the hints package is part of the distribution
        def choose(pos: Position, rng: random.Random) -> Turn:
            return random_turn(pos, rng, rules)

        choose.name = "random"  # type: ignore[attr-defined]
        return choose


def _steps(pos: Position, turn: Turn, rules: Rules) -> list[Placement]:
    """The boards a player passes through: after each robot move, then after each battery move."""
    boards = []
    white, black, bats = set(pos.white), set(pos.black), set(pos.batteries)
    own, enemy = (white, black) if pos.to_move.name == "WHITE" else (black, white)
    for m in turn.robot_moves:
        own.discard(m.src)
        enemy.discard(m.dst)
        own.add(m.dst)
        boards.append(Placement(frozenset(white), frozenset(black), frozenset(bats)))
    for m in turn.battery_moves:
        bats.discard(m.src)
        bats.add(m.dst)
        boards.append(Placement(frozenset(white), frozenset(black), frozenset(bats)))
    final = Placement.of(apply_turn(pos, turn, rules))
    if boards[-1] != final:  # pragma: no cover - the engine and this walk agree on legal turns
        boards.append(final)
    return boards


def slip_of(pos: Position, turn: Turn, rules: Rules, rng: random.Random) -> tuple[Placement, str] | None:
    """The board after ``turn`` with one moved robot set down on a neighbouring square instead
    (diagonally or one too far): a board the referee must call illegal."""
    after = Placement.of(apply_turn(pos, turn, rules))
    color = pos.to_move
    moved = [m.dst for m in turn.robot_moves if m.dst in after.robots(color)]
    sources = {m.src for m in turn.robot_moves}
    rng.shuffle(moved)
    for sq in moved:
        f, r = sq % 6, sq // 6
        options = [(df, dr) for df in (-1, 0, 1) for dr in (-1, 0, 1) if (df, dr) != (0, 0)]
        rng.shuffle(options)
        for df, dr in options:
            nf, nr = f + df, r + dr
            if not (0 <= nf < 6 and 0 <= nr < 6):
                continue
            to = nr * 6 + nf
            if to in after.white or to in after.black or to in sources:
                continue
            own = (after.robots(color) - {sq}) | {to}
            board = Placement(own, after.black, after.batteries) if color.name == "WHITE" else \
                Placement(after.white, own, after.batteries)
            if not explain(pos, board, rules).legal:
                return board, f"{square_name(sq)} set down on {square_name(to)} instead"
    return None


# -- the players' battery sides (R-23) -------------------------------------------------------------

FORGET_TURN = "forget-turn"  # a battery drawn on stays printed side up
WRONG_TURN = "wrong-turn"    # a battery no moved robot stands beside is turned instead of one drawn on
FORGET_BACK = "forget-back"  # a blank battery is not turned back before the turn


def turned_for(pos: Position, turn: Turn, rules: Rules, rng: random.Random,
               habit: str | None = None, blank: frozenset[int] = frozenset()) -> tuple[frozenset[int], str | None]:
    """The batteries a player turns to their blank side for the robot moves of ``turn`` (the ones
    that pay them, :func:`companion.rules.sides.paying_batteries`), and what went wrong: with
    ``habit`` FORGET_TURN one of them stays printed, with WRONG_TURN one is swapped for a battery no
    moved robot stands beside and that was not ``blank`` at the last accepted board."""
    pay = list(dict.fromkeys(paying_batteries(pos, turn, rules)))
    if habit == FORGET_TURN and pay:
        p = rng.choice(pay)
        pay.remove(p)
        return frozenset(pay), f"forgets to turn {point_name(p)} to its blank side"
    if habit == WRONG_TURN and pay:
        beside = {c for m in turn.robot_moves for c in CORNERS[m.src]}
        far = [p for p in sorted(pos.batteries) if p not in beside and p not in blank]
        if far:
            wrong, right = rng.choice(far), rng.choice(pay)
            pay.remove(right)
            pay.append(wrong)
            return frozenset(pay), f"turns {point_name(wrong)} instead of {point_name(right)}"
    return frozenset(pay), None


def blank_steps(turn: Turn, blank: frozenset[int], turned: frozenset[int]) -> list[frozenset[int]]:
    """The blank batteries on each board of :func:`_steps`: the turned ones from the first robot move
    on; a battery moved in the battery phase keeps its side."""
    now = set(blank) | set(turned)
    out = [frozenset(now) for _ in turn.robot_moves]
    for m in turn.battery_moves:
        if m.src in now:
            now.discard(m.src)
            now.add(m.dst)
        out.append(frozenset(now))
    return out


def answer(companion: Companion, panel, board: Placement, side: str, say: Callable[[str], None],  # noqa: ANN001
           put_back: Callable[[], None]) -> bool:
    """An amber question: the player watches the candidates and confirms when the panel shows the
    turn they made (``board``): True. When none of them is it, confirming would take a turn
    they did not make: they put the pieces back as they stood before the turn (``put_back``),
    a board other than the one asked about, so the question is dropped: False, the turn is to
    be made again."""
    question = companion.question
    assert question is not None
    for _ in range(len(question.candidates)):
        if companion.question is None:
            return False
        if companion.question.shown.board == board:
            say(f"  (the player confirms when the pointer shows their turn: {companion.question.shown.turn})")
            press(panel, f"confirm_{side}")
            companion.run_for(0.2)
            return True
        companion.run_for(companion.timings.question_seconds)
    say("  (none of the turns shown is the one made: the player puts the pieces back as they stood and makes "
        "the turn again)")
    put_back()
    companion.run_for(4 * companion.timings.stable_seconds + companion.timings.poll_interval)
    if companion.question is not None:
        raise RuntimeError("the question was not dropped when the pieces were put back")
    return False


def press(panel, name: str, hold: float = 0.12) -> None:  # noqa: ANN001
    """Press a button on the mock pins (held ``hold`` seconds of the panel's clock)."""
    pin = panel.button_pin(name)
    pin.drive_low()
    panel.clock.advance(hold)
    pin.drive_high()
    panel.clock.advance(0.05)


def run_demo(*, seed: int = 1, fast: bool = False, options: tuple[str, ...] = (), out: TextIO | None = None,
             color: bool | None = None, journal_path: Path | None = None, show_panel: bool = True,
             max_plies: int = MAX_PLIES, camera_seed: int = 1, save_to: Journal | None = None,
             sides: bool = True, side_slips: dict[int, str] | None = None,
             spectator: Spectator | None = None) -> DemoResult:
    """Play the demo game; returns what happened. Prints to ``out`` (stdout).

    ``sides``: R-23 refereed (the players turn batteries either way); ``side_slips``: per ply, a
    slip of the batteries' sides (FORGET_TURN, WRONG_TURN, FORGET_BACK; default a few).

    ``spectator``: an onlooker of the game loop (the web page, :mod:`companion.referee.view`).

    ``save_to``: a journal the game is copied into at the end, tagged as a demo
    (the game itself is played on ``journal_path``, by default a temporary journal,
    so that it never meets a real game of ``save_to``).
    """
    from hardware.mockpins import MockPanelFactory
    from hardware.panel import Panel
    from hardware.timing import ManualClock
    from hardware.virtual import VirtualPanel

    stream = out if out is not None else sys.stdout
    color = (stream.isatty() if hasattr(stream, "isatty") else False) if color is None else color
    say = _Out(stream, color, 0.0 if fast else 0.12)
    rules = Rules.from_names(options)
    rng = random.Random(seed)
    side_rng = random.Random(seed + 7919)  # the sides' slips draw apart: the game's own draws stay as they were
    choose = _player(rules)
    t_start = time.perf_counter()

    tmp = None
    if journal_path is None:
        tmp = tempfile.TemporaryDirectory(prefix="netzwerk-demo-")
        journal_path = Path(tmp.name) / "journal.sqlite"
    clock = ManualClock()
    panel = Panel(None, MockPanelFactory(), clock=clock)
    virtual = VirtualPanel(panel)
    camera = SimCamera(seed=camera_seed, clock=clock.now)
    journal = Journal(journal_path)

    def on_log(entry: LogEntry) -> None:
        if entry.kind in ("accepted", "rejected", "unreadable", "unchanged", "win", "undo", "hint", "control",
                          "warning", "new-game", "check", "setup", "camera", "energy", "note", "sides", "question",
                          "chosen"):
            say(f"  {_paint(entry.kind, color)} {entry.line().strip()[len(entry.kind):].strip()}")

    companion = Companion(panel, camera, journal, rules=rules, timings=DEMO_TIMINGS, live_watch=True, on_log=on_log,
                          sides=sides, spectator=spectator)

    def show(title: str = "") -> None:
        if not show_panel:
            return
        if title:
            say(f"  -- {title}")
        say(virtual.render_text(color=color, summary=False))
        say.wait(2)

    def board_view(board: Placement | Position, marks=()) -> None:
        if show_panel and not fast:
            say(terminal_board(board, marks_squares=marks, color=color))

    try:
        say(f"Netzwerk Companion demo: seed {seed}, rules {rules.name}, players: {choose.name} vs {choose.name}, "
            f"camera setup {camera_seed}")
        say("The synthetic camera looks at the table; buttons are pressed on mock pins; the companion is the")
        say("same game loop as `netzwerk run`.\n")
        companion.start()
        for attempt in range(4):
            companion.run_for(2.5)
            if companion.phase == PLAYING:
                break
            camera.move_lamp(camera.seed + 1000)
            say(f"  (the camera cannot be calibrated under this light: the lamp is moved, setup {camera.seed})")
        if companion.phase != PLAYING:
            raise RuntimeError("the companion did not get ready: " + "; ".join(e.text for e in companion.log[-3:]))
        show("ready: White's turn LED is lit")

        ply = 0
        tries: dict[int, int] = {}
        stopped = None
        events = {2: "control", 3: "slip", 5: "hand", 6: "wrong-button", 7: "undo", 8: "hint", 10: "slip"}
        habits = dict({2: FORGET_TURN, 4: WRONG_TURN, 5: FORGET_BACK, 9: FORGET_TURN} if side_slips is None
                      else side_slips)
        did_undo = False
        while companion.phase != OVER and ply < max_plies:
            pos = companion.referee.position
            side = pos.to_move.name.lower()
            ply = len(companion.referee.history) + 1
            tries[ply] = tries.get(ply, 0) + 1
            if tries[ply] > 3:
                stopped = (f"the camera could not read the board of turn {ply} after 3 tries "
                           f"(try another --camera-seed: another table and lamp)")
                say(f"  ({stopped}; the demo stops here)")
                break
            if tries[ply] > 1:
                say("  (the players straighten the pieces and try again)")
                camera.refresh()
            event = events.pop(ply, None)
            habit = habits.pop(ply, None)
            turn = choose(pos, rng)
            say(f"\n{ply:>3}. {pos.to_move.label} to move")
            # first the batteries left blank are turned back (one forgotten now and then)
            blank_before = camera.scene.blank
            kept = frozenset()
            if habit == FORGET_BACK and blank_before:
                kept = frozenset({side_rng.choice(sorted(blank_before))})
                say(f"  (the player forgets to turn {point_name(next(iter(kept)))} back to its printed side)")
            if kept != blank_before:
                camera.show(camera.scene.board, blank=kept)
                companion.run_for(0.35)
            if event == "control":
                press(panel, "control")
                companion.run_for(0.2)
                show(f"control: the pointer walks over the batteries {pos.to_move.label} controls")
            if event == "hint":
                press(panel, "hint")
                companion.run_for(0.2)
                hint_turns = [e.turn for e in companion.log if e.kind == "hint" and e.turn]
                if hint_turns:
                    turn = Turn.parse(hint_turns[-1])
                    say(f"  the player follows the hint: {turn}")
                show("hint: the pointer shows the suggested moves, one after the other")
            if event == "slip":
                slip = slip_of(pos, turn, rules, rng)
                if slip is not None:
                    board, what = slip
                    say(f"  (the player slips: {what})")
                    camera.show(board)
                    companion.run_for(0.5)
                    press(panel, f"confirm_{side}")
                    companion.run_for(0.3)
                    show("illegal: red, buzzer, the pointer at the piece")
                    board_view(board, companion.log[-1].squares)
            # the player moves the pieces one by one, turning the batteries drawn on to their blank side
            turned, side_slip = turned_for(pos, turn, rules, side_rng, habit, blank_before)
            if side_slip:
                say(f"  (the player {side_slip})")
            steps = _steps(pos, turn, rules)
            blanks = blank_steps(turn, kept, turned)
            blanks += [blanks[-1]] * (len(steps) - len(blanks))
            shown = list(zip(steps, blanks))
            for board, blank in shown if ply <= WATCHED_PLIES else shown[-1:]:
                camera.show(board, blank=blank)
                companion.run_for(0.35)
            if event == "wrong-button":
                other = "black" if side == "white" else "white"
                say(f"  ({other} presses their confirm button by mistake: ignored, amber blinks)")
                press(panel, f"confirm_{other}")
                companion.run_for(0.1)
            if event == "hand":
                say("  (a hand is still over the board at the press)")
                camera.show(camera.scene.board, hand=True)
                companion.run_for(0.2)
                press(panel, f"confirm_{side}")
                companion.run_for(0.6)
                show("unreadable: amber until the hand is gone")
                camera.show(camera.scene.board, hand=False)
                companion.run_for(0.6)
            else:
                press(panel, f"confirm_{side}")
                companion.run_for(0.2)
            if companion.question is not None:
                answer(companion, panel, Placement.of(apply_turn(pos, turn, rules)), side, say,
                       put_back=lambda: camera.show(pos, blank=kept))
            if event in ("slip", "hand") or not fast and ply <= 2:
                show("after the press")
            if event == "undo" and len(companion.referee.history) < ply:
                events[ply] = event  # no turn was taken (the pieces were put back): the undo follows the next try
            elif event == "undo" and not did_undo and companion.phase != OVER:
                did_undo = True
                say("  (the player changes their mind: undo held for 2 s)")
                press(panel, "undo", hold=2.1)
                companion.run_for(0.2)
                show("undo: amber and the pointer until the board is put back")
                camera.show(pos, blank=kept)
                companion.run_for(0.6)
            say.wait()
        companion.run_for(1.0)
        if companion.phase == OVER:
            show("the win pattern")
        game = journal.game(companion.game_id)  # type: ignore[arg-type]
        text = format_record(GameText.from_game(game))
        counts: dict[str, int] = {}
        for e in companion.log:
            counts[e.kind] = counts.get(e.kind, 0) + 1
        say("\n== The log: accepted / rejected / unreadable ==")
        for e in companion.log:
            if e.kind in ("accepted", "rejected", "unreadable", "unchanged", "undo", "win", "note"):
                say("  " + (f"{e.ply:>3}. " if e.ply else "     ") + e.line().strip())
        say("\n== The record (netzwerk games export) ==")
        say(text.rstrip())
        seconds = time.perf_counter() - t_start
        result = game.result or "*"
        if not game.result and stopped is None:
            stopped = f"stopped after {max_plies} plies (no result)"
        say(f"\n{len(game.turns)} turns accepted, {len(game.rejections)} rejected or unreadable attempts; "
            f"result: {result if game.result else stopped}; "
            f"{camera.renders} frames rendered, {companion.frames_read} read, {seconds:.1f} s.")
        if save_to is not None:
            saved = save_to.add_finished_game(game, tag=DEMO_EVENT, reason=stopped or "the demo stopped")
            say(f"Saved in the journal {save_to.path} as game {saved}, tagged as a demo: "
                f"netzwerk games show {saved}")
        return DemoResult(companion.game_id or 0, result, len(game.turns), counts, text, seconds, camera.renders,
                          companion.frames_read, [t * 1000 for t in companion.verdict_times])
    finally:
        companion.close()
        virtual.close()
        panel.close()
        journal.close()
        camera.close()
        if tmp is not None:
            tmp.cleanup()


_COLORS = {"accepted": "\x1b[1;92m", "rejected": "\x1b[1;91m", "unreadable": "\x1b[1;93m", "warning": "\x1b[1;93m",
           "win": "\x1b[1;95m"}


def _paint(kind: str, color: bool) -> str:
    text = f"{kind:>10}"
    if color and kind in _COLORS:
        return _COLORS[kind] + text + "\x1b[0m"
    return text
