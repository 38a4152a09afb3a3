"""The game journal: every game, accepted turn, rejected attempt and event, in SQLite.

One file (by default ``$STATE_DIRECTORY/journal.sqlite``, see
:mod:`companion.config`), opened in WAL mode with ``synchronous=FULL``: every
public write method commits its transaction before it returns, so once
:meth:`Journal.record_turn` has returned the turn survives a crash, a SIGKILL or a
power cut (the referee lights "accepted" only after that).

Nothing is ever deleted: an undone turn is marked as taken back, a game replaced
by a new one is marked abandoned. A file that is not a journal (not SQLite, another
program's database, a newer schema, damaged pages) gives a :class:`JournalError`
naming the file and is never modified; :func:`set_aside` moves such a file out of
the way so that a fresh journal can be started without losing it.

Positions and turns are strings (docs/rules.md, section 5); the journal checks that
positions parse and that each turn starts from the position the game is in, not
that turns are legal (that is the referee's job).
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Sequence

from fileio.paths import FileRefused, read_bytes

from ..rules.errors import NotationError
from ..rules.position import Position

SCHEMA_VERSION = 1
# PRAGMA application_id: "NZWK" -- marks the file as a Netzwerk journal.
APPLICATION_ID = 0x4E5A574B
SQLITE_HEADER = b"SQLite format 3\x00"

#: The largest id SQLite can store (a 64-bit signed integer).
MAX_GAME_ID = 2**63 - 1

RESULTS = ("white wins", "black wins", "abandoned")
VERDICTS = ("rejected", "unreadable")
#: The event that tags a game played by ``netzwerk demo`` (simulated players, not a real game).
DEMO_EVENT = "demo"
STATUS_ONGOING = "ongoing"
STATUS_FINISHED = "finished"

_SCHEMA = """
CREATE TABLE games (
    id             INTEGER PRIMARY KEY,
    started_at     TEXT NOT NULL,
    ended_at       TEXT,
    white          TEXT,
    black          TEXT,
    rules          TEXT NOT NULL,          -- JSON list of option names
    start_position TEXT NOT NULL,
    status         TEXT NOT NULL CHECK (status IN ('ongoing', 'finished')),
    result         TEXT CHECK (result IS NULL OR result IN ('white wins', 'black wins', 'abandoned')),
    reason         TEXT
);
CREATE TABLE turns (
    id          INTEGER PRIMARY KEY,
    game_id     INTEGER NOT NULL REFERENCES games(id),
    ply         INTEGER NOT NULL CHECK (ply >= 1),
    before      TEXT NOT NULL,
    after       TEXT NOT NULL,
    turn        TEXT NOT NULL,
    at          TEXT NOT NULL,
    confidences TEXT,                      -- JSON, as the reading gave it
    undone_at   TEXT                       -- set when the turn was taken back
);
CREATE UNIQUE INDEX turns_in_force ON turns(game_id, ply) WHERE undone_at IS NULL;
CREATE INDEX turns_by_game ON turns(game_id, id);
CREATE TABLE rejections (
    id        INTEGER PRIMARY KEY,
    game_id   INTEGER NOT NULL REFERENCES games(id),
    ply       INTEGER NOT NULL,            -- the ply that was attempted
    at        TEXT NOT NULL,
    verdict   TEXT NOT NULL CHECK (verdict IN ('rejected', 'unreadable')),
    after     TEXT,                        -- the position read, or NULL
    diagnosis TEXT NOT NULL
);
CREATE INDEX rejections_by_game ON rejections(game_id, id);
CREATE TABLE events (
    id      INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    at      TEXT NOT NULL,
    kind    TEXT NOT NULL,
    detail  TEXT                           -- JSON or NULL
);
CREATE INDEX events_by_game ON events(game_id, id);
"""


class JournalError(Exception):
    """The journal cannot be opened or a write is refused; the message names the file."""


# -- record types ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """An accepted turn. ``undone_at`` is set when it was taken back (kept as history)."""

    ply: int
    before: str
    after: str
    turn: str
    at: str
    confidences_json: str | None = None
    undone_at: str | None = None

    @property
    def confidences(self) -> Any:
        """The reading's confidences as recorded (a fresh copy), or None."""
        return None if self.confidences_json is None else json.loads(self.confidences_json)

    @property
    def in_force(self) -> bool:
        return self.undone_at is None


@dataclass(frozen=True, slots=True)
class RejectionRecord:
    """A confirm press that did not give an accepted turn."""

    ply: int
    at: str
    verdict: str  # "rejected" | "unreadable"
    diagnosis: str
    after: str | None = None


@dataclass(frozen=True, slots=True)
class EventRecord:
    at: str
    kind: str
    detail_json: str | None = None

    @property
    def detail(self) -> Any:
        return None if self.detail_json is None else json.loads(self.detail_json)


@dataclass(frozen=True, slots=True)
class GameSummary:
    id: int
    started_at: str
    ended_at: str | None
    white: str | None
    black: str | None
    rules: tuple[str, ...]
    status: str  # "ongoing" | "finished"
    result: str | None
    reason: str | None
    turns: int  # accepted turns in force
    rejections: int
    damaged: str | None = None  # why the game cannot be loaded (``Journal.game`` refuses it), or None
    demo: bool = False  # played by ``netzwerk demo``


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A whole game as journalled. ``turns`` holds the turns in force, in ply order;
    ``history`` every accepted turn including the ones taken back, in recording order."""

    id: int
    started_at: str
    ended_at: str | None
    white: str | None
    black: str | None
    rules: tuple[str, ...]
    start_position: str
    status: str
    result: str | None
    reason: str | None
    turns: tuple[TurnRecord, ...]
    history: tuple[TurnRecord, ...]
    rejections: tuple[RejectionRecord, ...]
    events: tuple[EventRecord, ...]

    @property
    def position(self) -> str:
        """The position the game is in (after the last turn in force)."""
        return self.turns[-1].after if self.turns else self.start_position

    @property
    def finished(self) -> bool:
        return self.status == STATUS_FINISHED

    @property
    def demo(self) -> bool:
        """Played by ``netzwerk demo`` (tagged by a ``demo`` event)."""
        return any(e.kind == DEMO_EVENT for e in self.events)


# -- helpers ----------------------------------------------------------------


def now_iso() -> str:
    """Times are stored as ISO 8601 in UTC with milliseconds (they sort as text)."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _iso(at: datetime | str | None) -> str:
    if at is None:
        return now_iso()
    if isinstance(at, datetime):
        if at.tzinfo is None:
            at = at.replace(tzinfo=timezone.utc)
        return at.astimezone(timezone.utc).isoformat(timespec="milliseconds")
    if isinstance(at, str):
        try:
            parsed = datetime.fromisoformat(at)
        except ValueError:
            raise JournalError(f"bad time {at!r}: expected an ISO 8601 date and time") from None
        return _iso(parsed)
    raise JournalError(f"bad time {at!r}: expected a datetime or an ISO 8601 string")


def _canonical_position(text: str, what: str) -> str:
    try:
        return Position.from_string(text).to_string()
    except NotationError as exc:
        raise JournalError(f"bad {what}: {exc}") from None


def _json_or_none(value: Any, what: str) -> str | None:
    if value is None:
        return None
    try:
        return json.dumps(value, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise JournalError(f"{what} cannot be stored as JSON: {exc}") from None


def default_journal_path(env: dict[str, str] | None = None) -> Path:
    """``$STATE_DIRECTORY/journal.sqlite`` (the service), else ``~/.local/state/netzwerk/journal.sqlite``."""
    env = os.environ if env is None else env
    state = env.get("STATE_DIRECTORY", "")
    if state:
        # systemd passes a colon-separated list when several StateDirectory= are set.
        return Path(state.split(":")[0]) / "journal.sqlite"
    return Path("~/.local/state/netzwerk").expanduser() / "journal.sqlite"


def set_aside(path: str | os.PathLike[str]) -> Path:
    """Rename an unusable journal (and its -wal/-shm files) to ``NAME.broken-TIMESTAMP``.

    Returns the new name of the main file. Nothing is deleted.
    """
    path = Path(path)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    target = path.with_name(f"{path.name}.broken-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.broken-{stamp}-{n}")
    try:
        for suffix in ("-wal", "-shm"):
            side = path.with_name(path.name + suffix)
            if side.exists():
                side.rename(target.with_name(target.name + suffix))
        path.rename(target)
    except OSError as exc:
        raise JournalError(f"cannot set aside journal {path}: {exc.strerror or exc}") from None
    return target


# -- the journal ----------------------------------------------------------------


class Journal:
    """The SQLite game journal. ``Journal(path)`` creates the file (and its directory)
    if needed; ``Journal(path, create=False)`` only opens an existing one;
    ``readonly=True`` opens an existing one for reading (the ``games`` command).

    Not thread-safe: use one ``Journal`` per thread.
    """

    def __init__(self, path: str | os.PathLike[str], *, create: bool = True, readonly: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self._conn: sqlite3.Connection | None = None
        if readonly:
            create = False
        self._check_file(create)
        try:
            self._conn = self._connect()
            self._prepare()
        except sqlite3.Error as exc:
            self.close()
            raise self._error(exc) from None
        except JournalError:
            self.close()
            raise

    # -- opening ---------------------------------------------------------
    def _check_file(self, create: bool) -> None:
        path = self.path
        if path.is_dir():
            raise JournalError(f"journal {path} is a directory, not a file")
        if not path.exists():
            if not create:
                raise JournalError(f"no journal at {path}")
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise JournalError(f"cannot create the directory of journal {path}: {exc.strerror or exc}") from None
            return
        try:
            head = read_bytes(path, "journal", head=len(SQLITE_HEADER))
        except FileRefused as exc:
            raise JournalError(str(exc)) from None
        if head and head != SQLITE_HEADER:
            raise JournalError(f"{path} is not a Netzwerk journal (not an SQLite database); it was left untouched")

    def _connect(self) -> sqlite3.Connection:
        if self.readonly:
            uri = self.path.resolve().as_uri() + "?mode=ro"
            conn = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=10.0)
        else:
            conn = sqlite3.connect(str(self.path), isolation_level=None, timeout=10.0)
        return conn

    def _prepare(self) -> None:
        conn = self._require()
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if app_id != APPLICATION_ID:
            if tables or app_id != 0 or version != 0:
                raise JournalError(
                    f"{self.path} is an SQLite database of another program, not a Netzwerk journal; "
                    "it was left untouched"
                )
            if self.readonly:
                raise JournalError(f"{self.path} is an empty database, not a Netzwerk journal")
            # A new (empty) file: create the schema.
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("BEGIN IMMEDIATE")
            for statement in _split_sql(_SCHEMA):
                conn.execute(statement)
            conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
            conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            conn.execute("COMMIT")
            return
        if version > SCHEMA_VERSION:
            raise JournalError(
                f"journal {self.path} has schema version {version}, newer than this program's "
                f"{SCHEMA_VERSION}: update the Netzwerk Companion"
            )
        if version < 1:
            raise JournalError(f"journal {self.path} has no schema version: it is damaged")
        check = [row[0] for row in conn.execute("PRAGMA quick_check(1)").fetchall()]
        if check != ["ok"]:
            detail = [line.strip("* ") for line in check[0].splitlines() if line.strip("* ")]
            raise JournalError(
                f"journal {self.path} is damaged ({detail[-1] if detail else 'integrity check failed'}); "
                "it was left untouched"
            )
        if not self.readonly:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            self._probe_write(conn, version)
        conn.execute("PRAGMA foreign_keys=ON")

    def _probe_write(self, conn: sqlite3.Connection, version: int) -> None:
        """Refuse now, not at the first turn, a journal this process cannot write (SQLite opens a file
        it may not write read-only without saying so): a write of the unchanged schema version, rolled back."""
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.execute(f"PRAGMA user_version={int(version)}")
            finally:
                conn.execute("ROLLBACK")
        except sqlite3.OperationalError as exc:
            raise JournalError(f"journal {self.path} cannot be written ({exc}): check the permissions of the "
                               "file and its folder, or give another --journal") from None

    def _require(self) -> sqlite3.Connection:
        if self._conn is None:
            raise JournalError(f"journal {self.path} is closed")
        return self._conn

    def _error(self, exc: sqlite3.Error) -> JournalError:
        text = str(exc)
        if isinstance(exc, sqlite3.DatabaseError) and (
            "not a database" in text or "malformed" in text or "corrupt" in text
        ):
            return JournalError(f"journal {self.path} is damaged or not a journal ({text}); it was left untouched")
        return JournalError(f"journal {self.path}: {text}")

    def close(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            finally:
                self._conn = None

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transactions ----------------------------------------------------
    def _write(self, fn, *args):
        """Run ``fn(conn, *args)`` in one IMMEDIATE transaction, committed before returning."""
        if self.readonly:
            raise JournalError(f"journal {self.path} is open read-only")
        conn = self._require()
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                result = fn(conn, *args)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            return result
        except sqlite3.Error as exc:
            if conn.in_transaction:  # a COMMIT that failed (a full disk) may leave it open: the next write retries
                try:
                    conn.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
            raise self._error(exc) from None

    def _read(self, fn, *args):
        conn = self._require()
        try:
            conn.execute("BEGIN")
            try:
                return fn(conn, *args)
            finally:
                conn.execute("COMMIT")
        except sqlite3.Error as exc:
            raise self._error(exc) from None

    # -- writing -----------------------------------------------------------
    def new_game(
        self,
        rules_options: Iterable[str],
        start_position: str,
        players: tuple[str | None, str | None] | None = None,
        at: datetime | str | None = None,
    ) -> int:
        """Start a game and return its id. A game still ongoing is closed as abandoned."""
        rules = () if isinstance(rules_options, str) else tuple(rules_options)
        if isinstance(rules_options, str) or not all(isinstance(r, str) and r.strip() for r in rules):
            raise JournalError(f"rules options must be a list of option names, not {rules_options!r}")
        start = _canonical_position(start_position, "start position")
        white, black = players if players is not None else (None, None)
        for who in (white, black):
            if who is not None and (not isinstance(who, str) or "\n" in who):
                raise JournalError(f"bad player name {who!r}")
        when = _iso(at)

        def op(conn: sqlite3.Connection) -> int:
            for (old,) in conn.execute("SELECT id FROM games WHERE status = 'ongoing'").fetchall():
                conn.execute(
                    "UPDATE games SET status='finished', result='abandoned', reason=?, ended_at=? WHERE id=?",
                    ("a new game was started", when, old),
                )
                conn.execute(
                    "INSERT INTO events(game_id, at, kind, detail) VALUES (?, ?, 'abandoned', NULL)", (old, when)
                )
            cur = conn.execute(
                "INSERT INTO games(started_at, white, black, rules, start_position, status) "
                "VALUES (?, ?, ?, ?, ?, 'ongoing')",
                (when, white, black, json.dumps(list(rules)), start),
            )
            return int(cur.lastrowid)

        return self._write(op)

    def record_turn(
        self,
        game_id: int,
        before: str,
        after: str,
        turn: str,
        confidences: Any = None,
        at: datetime | str | None = None,
    ) -> TurnRecord:
        """Record an accepted turn; committed (fsynced) when this returns.

        ``before`` must be the position the game is in. Returns the stored record.
        """
        before_c = _canonical_position(before, "position before the turn")
        after_c = _canonical_position(after, "position after the turn")
        if not isinstance(turn, str) or not turn.split():
            raise JournalError(f"bad turn string {turn!r}: it is empty")
        turn_c = " ".join(turn.split())
        conf = _json_or_none(confidences, "the confidences")
        when = _iso(at)

        def op(conn: sqlite3.Connection) -> TurnRecord:
            self._ongoing(conn, game_id)
            current, ply = self._current(conn, game_id)
            if current != before_c:
                raise JournalError(
                    f"game {game_id} is in position {current!r}, not {before_c!r}: turn {turn_c!r} not recorded"
                )
            conn.execute(
                "INSERT INTO turns(game_id, ply, before, after, turn, at, confidences) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (game_id, ply + 1, before_c, after_c, turn_c, when, conf),
            )
            return TurnRecord(ply + 1, before_c, after_c, turn_c, when, conf)

        return self._write(op)

    def record_rejection(
        self,
        game_id: int,
        verdict: str,
        diagnosis: str,
        after: str | None = None,
        at: datetime | str | None = None,
    ) -> RejectionRecord:
        """Record a confirm press that was not accepted: ``verdict`` "rejected" (an
        illegal turn; ``after`` the position read) or "unreadable" (``after`` None)."""
        if verdict not in VERDICTS:
            raise JournalError(f"bad verdict {verdict!r}: expected one of {', '.join(VERDICTS)}")
        if not isinstance(diagnosis, str) or not diagnosis.strip():
            raise JournalError("a rejection needs a diagnosis")
        after_c = None if after is None else _canonical_position(after, "position read")
        when = _iso(at)

        def op(conn: sqlite3.Connection) -> RejectionRecord:
            self._ongoing(conn, game_id)
            _, ply = self._current(conn, game_id)
            conn.execute(
                "INSERT INTO rejections(game_id, ply, at, verdict, after, diagnosis) VALUES (?, ?, ?, ?, ?, ?)",
                (game_id, ply + 1, when, verdict, after_c, diagnosis),
            )
            return RejectionRecord(ply + 1, when, verdict, diagnosis, after_c)

        return self._write(op)

    def record_event(self, game_id: int, kind: str, detail: Any = None, at: datetime | str | None = None) -> EventRecord:
        """Record something that happened in a game (e.g. "resumed", "board-mismatch")."""
        if not isinstance(kind, str) or not kind.strip():
            raise JournalError(f"bad event kind {kind!r}")
        det = _json_or_none(detail, "the event detail")
        when = _iso(at)

        def op(conn: sqlite3.Connection) -> EventRecord:
            self._game_row(conn, game_id)
            conn.execute(
                "INSERT INTO events(game_id, at, kind, detail) VALUES (?, ?, ?, ?)", (game_id, when, kind, det)
            )
            return EventRecord(when, kind, det)

        return self._write(op)

    def undo_last_turn(self, game_id: int, at: datetime | str | None = None) -> TurnRecord:
        """Take back the last turn in force (kept as history, marked undone); returns it.

        The turn that won a game can be taken back too (a winning turn confirmed
        by mistake): the game is reopened (event ``reopened`` with the result it
        had), as long as no later game has been started since. A game that was
        abandoned stays closed.
        """
        when = _iso(at)

        def op(conn: sqlite3.Connection) -> TurnRecord:
            game = self._game_row(conn, game_id)
            reopen = game[7] != STATUS_ONGOING
            if reopen:
                result = game[8]
                if result not in ("white wins", "black wins"):
                    self._ongoing(conn, game_id)  # raises: an abandoned game takes no more turns
                later = conn.execute(
                    "SELECT id FROM games g WHERE id > ? AND NOT EXISTS "
                    "(SELECT 1 FROM events e WHERE e.game_id = g.id AND e.kind = ?) LIMIT 1",
                    (game_id, DEMO_EVENT),
                ).fetchone()
                if later is not None:
                    raise JournalError(f"game {game_id} is finished ({result}) and game {later[0]} has been "
                                       "started since: its winning turn can no longer be taken back")
            row = conn.execute(
                "SELECT id, ply, before, after, turn, at, confidences FROM turns "
                "WHERE game_id=? AND undone_at IS NULL ORDER BY ply DESC LIMIT 1",
                (game_id,),
            ).fetchone()
            if row is None:
                if reopen:
                    raise JournalError(f"game {game_id} is finished ({game[8]}) and has no turn to take back")
                raise JournalError(f"game {game_id} has no turn to take back")
            if reopen:
                conn.execute("UPDATE games SET status='ongoing', result=NULL, reason=NULL, ended_at=NULL WHERE id=?",
                             (game_id,))
                conn.execute(
                    "INSERT INTO events(game_id, at, kind, detail) VALUES (?, ?, 'reopened', ?)",
                    (game_id, when, json.dumps({"result": game[8], "reason": game[9]}, sort_keys=True)),
                )
            conn.execute("UPDATE turns SET undone_at=? WHERE id=?", (when, row[0]))
            conn.execute(
                "INSERT INTO events(game_id, at, kind, detail) VALUES (?, ?, 'undo', ?)",
                (game_id, when, json.dumps({"ply": row[1], "turn": row[4]}, sort_keys=True)),
            )
            return TurnRecord(row[1], row[2], row[3], row[4], row[5], row[6], when)

        return self._write(op)

    def finish_game(self, game_id: int, result: str, reason: str, at: datetime | str | None = None) -> None:
        """Close a game: ``result`` "white wins", "black wins" or "abandoned"; ``reason`` says why."""
        if result not in RESULTS:
            raise JournalError(f"bad result {result!r}: expected one of {', '.join(RESULTS)}")
        if not isinstance(reason, str) or "\n" in reason:
            raise JournalError(f"bad reason {reason!r}")
        when = _iso(at)

        def op(conn: sqlite3.Connection) -> None:
            self._ongoing(conn, game_id)
            conn.execute(
                "UPDATE games SET status='finished', result=?, reason=?, ended_at=? WHERE id=?",
                (result, reason, when, game_id),
            )

        self._write(op)

    def add_finished_game(self, game: GameRecord, tag: str | None = None, reason: str | None = None) -> int:
        """Copy a whole game (from another journal) in as a new, finished game; returns its id.

        Its turns (also the ones taken back), rejections and events come along as they were;
        ``tag`` adds an event of that kind (``DEMO_EVENT`` for the demo). A game that was not
        over is closed as abandoned with ``reason``. No other game is touched: an ongoing game
        stays ongoing.
        """
        result = game.result if game.finished and game.result in RESULTS else "abandoned"
        why = game.reason if game.finished and game.result in RESULTS else (reason or "not finished")
        ended = game.ended_at or now_iso()
        _canonical_position(game.start_position, "start position")

        def op(conn: sqlite3.Connection) -> int:
            cur = conn.execute(
                "INSERT INTO games(started_at, ended_at, white, black, rules, start_position, status, result, reason) "
                "VALUES (?, ?, ?, ?, ?, ?, 'finished', ?, ?)",
                (game.started_at, ended, game.white, game.black, json.dumps(list(game.rules)), game.start_position,
                 result, why),
            )
            new_id = int(cur.lastrowid)
            for t in game.history:
                conn.execute(
                    "INSERT INTO turns(game_id, ply, before, after, turn, at, confidences, undone_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (new_id, t.ply, t.before, t.after, t.turn, t.at, t.confidences_json, t.undone_at),
                )
            for r in game.rejections:
                conn.execute(
                    "INSERT INTO rejections(game_id, ply, at, verdict, after, diagnosis) VALUES (?, ?, ?, ?, ?, ?)",
                    (new_id, r.ply, r.at, r.verdict, r.after, r.diagnosis),
                )
            for e in game.events:
                conn.execute("INSERT INTO events(game_id, at, kind, detail) VALUES (?, ?, ?, ?)",
                             (new_id, e.at, e.kind, e.detail_json))
            if tag is not None:
                conn.execute("INSERT INTO events(game_id, at, kind, detail) VALUES (?, ?, ?, NULL)",
                             (new_id, now_iso(), tag))
            return new_id

        return self._write(op)

    # -- reading -----------------------------------------------------------
    def open_game(self) -> GameRecord | None:
        """The game to resume (the latest one still ongoing), or None."""

        def op(conn: sqlite3.Connection) -> GameRecord | None:
            row = conn.execute("SELECT id FROM games WHERE status='ongoing' ORDER BY id DESC LIMIT 1").fetchone()
            return None if row is None else self._load(conn, row[0])

        return self._read(op)

    def game(self, game_id: int) -> GameRecord:
        return self._read(self._load, game_id)

    def games(self) -> list[GameSummary]:
        """Every game, oldest first."""

        def op(conn: sqlite3.Connection) -> list[GameSummary]:
            rows = conn.execute(
                "SELECT g.id, g.started_at, g.ended_at, g.white, g.black, g.rules, g.status, g.result, g.reason, "
                "(SELECT count(*) FROM turns t WHERE t.game_id=g.id AND t.undone_at IS NULL), "
                "(SELECT count(*) FROM rejections r WHERE r.game_id=g.id), "
                "EXISTS (SELECT 1 FROM events e WHERE e.game_id=g.id AND e.kind=?) "
                "FROM games g ORDER BY g.id",
                (DEMO_EVENT,),
            ).fetchall()
            summaries = []
            for r in rows:
                try:
                    rules, damaged = _rules_of(r[5], r[0]), None
                except JournalError as exc:
                    rules, damaged = (), str(exc)
                summaries.append(GameSummary(r[0], r[1], r[2], r[3], r[4], rules, r[6], r[7], r[8], r[9], r[10],
                                             damaged, bool(r[11])))
            return summaries

        return self._read(op)

    def current_position(self, game_id: int) -> str:
        def op(conn: sqlite3.Connection) -> str:
            return self._current(conn, game_id)[0]

        return self._read(op)

    # -- internals ---------------------------------------------------------
    def _game_row(self, conn: sqlite3.Connection, game_id: int) -> tuple:
        if isinstance(game_id, bool) or not isinstance(game_id, int):
            raise JournalError(f"bad game id {game_id!r}")
        if not 1 <= game_id <= MAX_GAME_ID:
            raise JournalError(f"no game {game_id} in journal {self.path}")
        row = conn.execute(
            "SELECT id, started_at, ended_at, white, black, rules, start_position, status, result, reason "
            "FROM games WHERE id=?",
            (game_id,),
        ).fetchone()
        if row is None:
            raise JournalError(f"no game {game_id} in journal {self.path}")
        return row

    def _ongoing(self, conn: sqlite3.Connection, game_id: int) -> tuple:
        row = self._game_row(conn, game_id)
        if row[7] != STATUS_ONGOING:
            raise JournalError(f"game {game_id} is finished ({row[8]}): it takes no more turns")
        return row

    def _current(self, conn: sqlite3.Connection, game_id: int) -> tuple[str, int]:
        """(current position, number of turns in force)."""
        row = self._game_row(conn, game_id)
        last = conn.execute(
            "SELECT after, ply FROM turns WHERE game_id=? AND undone_at IS NULL ORDER BY ply DESC LIMIT 1",
            (game_id,),
        ).fetchone()
        return (row[6], 0) if last is None else (last[0], last[1])

    def _load(self, conn: sqlite3.Connection, game_id: int) -> GameRecord:
        g = self._game_row(conn, game_id)
        history = tuple(
            TurnRecord(*r)
            for r in conn.execute(
                "SELECT ply, before, after, turn, at, confidences, undone_at FROM turns WHERE game_id=? ORDER BY id",
                (game_id,),
            )
        )
        turns = tuple(sorted((t for t in history if t.in_force), key=lambda t: t.ply))
        rejections = tuple(
            RejectionRecord(*r)
            for r in conn.execute(
                "SELECT ply, at, verdict, diagnosis, after FROM rejections WHERE game_id=? ORDER BY id", (game_id,)
            )
        )
        events = tuple(
            EventRecord(*r)
            for r in conn.execute("SELECT at, kind, detail FROM events WHERE game_id=? ORDER BY id", (game_id,))
        )
        return GameRecord(
            id=g[0],
            started_at=g[1],
            ended_at=g[2],
            white=g[3],
            black=g[4],
            rules=_rules_of(g[5], g[0]),
            start_position=g[6],
            status=g[7],
            result=g[8],
            reason=g[9],
            turns=turns,
            history=history,
            rejections=rejections,
            events=events,
        )


def _rules_of(text: Any, game_id: int) -> tuple[str, ...]:
    """A game's ``rules`` column (a JSON list of option names), or :class:`JournalError` if it is damaged."""
    try:
        value = json.loads(text) if isinstance(text, (str, bytes)) else None
    except (ValueError, RecursionError):
        value = None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        shown = text if not isinstance(text, str) or len(text) <= 40 else text[:40] + "..."
        raise JournalError(f"game {game_id} is damaged: its rules {shown!r} are not a JSON list of option names")
    return tuple(value)


def _split_sql(script: str) -> Sequence[str]:
    """The statements of a schema script (no ';' inside statements), comments removed."""
    lines = [line.split("--", 1)[0] for line in script.splitlines()]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]
