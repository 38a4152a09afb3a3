"""``netzwerk games list|show ID|export ID``: the games in the journal.

The journal is ``--journal PATH``, else the ``[journal] path`` of ``--config FILE``
(default ``/etc/netzwerk/config.toml`` when it exists, the file the service reads),
else the default journal path (``$STATE_DIRECTORY/journal.sqlite`` or
``~/.local/state/netzwerk/journal.sqlite``). The journal is opened read-only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from fileio.atomic import atomic_write_text
from fileio.paths import FileRefused, writable_output

from ..config import ConfigError, load_config
from ..referee.journal import Journal, JournalError
from ..referee.journal_json import game_json, parse_game_id, rules_text, summary_json
from ..record import GameText, RecordError, format_record

SERVICE_CONFIG = Path("/etc/netzwerk/config.toml")


class _Usage(Exception):
    """Bad input: one line on stderr, exit 2."""


def register(subparsers: argparse._SubParsersAction) -> None:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--journal", metavar="PATH", help="the journal file (default: from the config)")
    common.add_argument(
        "--config",
        metavar="FILE",
        help=f"config file giving [journal] path (default: {SERVICE_CONFIG} if it exists)",
    )
    games = subparsers.add_parser(
        "games",
        help="list, show and export the games in the journal",
        description="The games in the journal: list them, show one, export one as a game record "
        "(format: docs/record-format.md).",
    )
    sub = games.add_subparsers(dest="games_command", metavar="ACTION")
    sub.required = True

    p = sub.add_parser("list", parents=[common], help="one line per game", description="One line per game, oldest first.")
    p.add_argument("--json", action="store_true", help="one JSON array of games")
    p.set_defaults(handler=_list)

    p = sub.add_parser(
        "show",
        parents=[common],
        help="a game's turns, rejected attempts and events",
        description="A game: headers, every turn in force, taken-back turns, rejected attempts and events.",
    )
    p.add_argument("id", metavar="ID", help="the game id (see `netzwerk games list`)")
    p.add_argument("--json", action="store_true", help="the whole game as one JSON object")
    p.set_defaults(handler=_show)

    p = sub.add_parser(
        "export",
        parents=[common],
        help="the game record (docs/record-format.md)",
        description="Write a game's record in the documented text format (docs/record-format.md).",
    )
    p.add_argument("id", metavar="ID", help="the game id")
    p.add_argument("--out", metavar="FILE", help="write to FILE instead of standard output")
    p.add_argument("--json", action="store_true", help="a JSON object with the record text and its fields")
    p.set_defaults(handler=_export)


# -- handlers ---------------------------------------------------------------------


def _run(fn, args: argparse.Namespace) -> int:
    try:
        return fn(args)
    except (_Usage, ConfigError, JournalError, RecordError) as exc:
        print(f"netzwerk games: {exc}", file=sys.stderr)
        return 2


def journal_path(journal: str | None, config: str | None) -> Path:
    """The journal of ``--journal``, else the ``[journal] path`` of ``--config`` (default: the service's
    config when it is readable), else the default journal path. Raises ConfigError."""
    if journal:
        return Path(journal).expanduser()
    config_file: str | Path | None = config
    if config_file is None and SERVICE_CONFIG.is_file() and os.access(SERVICE_CONFIG, os.R_OK):
        config_file = SERVICE_CONFIG
    return load_config(config_file).journal.path


def _open(args: argparse.Namespace) -> Journal:
    return Journal(journal_path(args.journal, args.config), readonly=True)


def _game_id(text: str) -> int:
    try:
        return parse_game_id(text)
    except ValueError as exc:
        raise _Usage(str(exc)) from None


def _export_target(args: argparse.Namespace, journal: Path) -> Path | None:
    """Where ``--out`` writes (None: standard output); never the journal, its -wal/-shm files or the config."""
    if not args.out:
        return None
    inputs = [journal, journal.with_name(journal.name + "-wal"), journal.with_name(journal.name + "-shm")]
    if args.config:
        inputs.append(Path(args.config))
    try:
        return writable_output(Path(args.out).expanduser(), "--out", inputs=inputs)
    except FileRefused as exc:
        raise _Usage(str(exc)) from None


def _list(args: argparse.Namespace) -> int:
    return _run(_list_inner, args)


def _list_inner(args: argparse.Namespace) -> int:
    with _open(args) as journal:
        games = journal.games()
    if args.json:
        print(json.dumps([summary_json(g) for g in games], indent=None))
        return 0
    if not games:
        print("no games in the journal")
        return 0
    for g in games:
        if g.damaged is not None:
            print(f"{g.id:>4}  {(g.started_at or '?')[:16].replace('T', ' ')}  {g.damaged}")
            continue
        players = f"{g.white or '?'} vs {g.black or '?'}"
        outcome = "ongoing" if g.status == "ongoing" else f"{g.result} ({g.reason})" if g.reason else g.result
        if g.demo:
            players += " (demo)"
        print(
            f"{g.id:>4}  {g.started_at[:16].replace('T', ' ')}  {players}  {rules_text(g.rules)}  "
            f"{g.turns} turn{'s' if g.turns != 1 else ''}, {g.rejections} rejected  {outcome}"
        )
    return 0


def _show(args: argparse.Namespace) -> int:
    return _run(_show_inner, args)


def _show_inner(args: argparse.Namespace) -> int:
    game_id = _game_id(args.id)
    with _open(args) as journal:
        game = journal.game(game_id)
    if args.json:
        print(json.dumps(game_json(game)))
        return 0
    outcome = "ongoing" if game.status == "ongoing" else f"{game.result} ({game.reason})" if game.reason else game.result
    demo = " -- a demo game (netzwerk demo)" if game.demo else ""
    print(f"game {game.id}: {game.white or '?'} (White) vs {game.black or '?'} (Black){demo}")
    print(f"started  {game.started_at}")
    if game.ended_at:
        print(f"ended    {game.ended_at}")
    print(f"rules    {rules_text(game.rules)}")
    print(f"start    {game.start_position}")
    print(f"status   {outcome}")
    print(f"position {game.position}")
    # One time line: turns (in force and taken back), rejections and events, in time order.
    entries: list[tuple[str, int, str]] = []
    for t in game.history:
        side = t.before.split()[-1]
        mark = "" if t.in_force else f"   [taken back {t.undone_at}]"
        entries.append((t.at, 0, f"{t.ply:>3}. {side}: {t.turn}{mark}"))
    for r in game.rejections:
        entries.append((r.at, 1, f"     {r.verdict} (ply {r.ply}): {r.diagnosis}"))
    for e in game.events:
        entries.append((e.at, 2, f"     event {e.kind}{_event_detail(e.kind, e.detail_json)}"))
    if entries:
        print()
    for at, _, text in sorted(entries, key=lambda x: (x[0], x[1])):
        print(f"{at[11:23]}  {text}")
    return 0


def _event_detail(kind: str, detail_json: str | None) -> str:
    """An event's detail for `games show`: a sentence for a player's choice, else its JSON."""
    if detail_json is None:
        return ""
    if kind == "chosen":
        try:
            d = json.loads(detail_json)
            return (f" (ply {int(d['ply'])}): a player chose {d['turn']} of {' or '.join(d['candidates'])}, "
                    f"unsure at {', '.join(d['fields'])}")
        except (ValueError, KeyError, TypeError):
            pass  # a detail written otherwise: shown as it is
    if kind == "sides":
        try:
            d = json.loads(detail_json)
            said = [f"note: {d['note']}"] if isinstance(d.get("note"), str) and d["note"] else []
            back = [p for p in d.get("turn_back") or () if isinstance(p, str)]
            if back:
                said.append(f"left blank: {', '.join(back)}")
            if said and isinstance(d["ply"], int):
                return f" (ply {d['ply']}, R-23): {'; '.join(said)}"
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
            pass
    return f" {detail_json}"


def _export(args: argparse.Namespace) -> int:
    return _run(_export_inner, args)


def _export_inner(args: argparse.Namespace) -> int:
    game_id = _game_id(args.id)
    with _open(args) as journal:
        out_path = _export_target(args, journal.path)
        game = journal.game(game_id)
    record = GameText.from_game(game)
    text = format_record(record)
    if args.json:
        sides = [{"ply": n.ply, "note": n.note, "turn_back": list(n.turn_back)} for n in record.sides]
        out = json.dumps({"id": game.id, "record": text, "turns": list(record.turns), "result": record.result,
                          "sides": sides})
        out += "\n"
    else:
        out = text
    if out_path is not None:
        try:
            atomic_write_text(out_path, out)
        except OSError as exc:
            raise _Usage(f"cannot write {args.out}: {exc.strerror or exc}") from None
    else:
        sys.stdout.write(out)
    return 0
