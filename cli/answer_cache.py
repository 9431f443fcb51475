"""A SQLite cache of hint answers, so a repeated question is a lookup.

Keys are the canonical question (rules, board text, tray, streak, tokens)
plus a stamp of the solver's source, so answers from an older solver are
never served (nor kept: opening the cache deletes them). The answers kept
are at most ``max_bytes`` of keys and JSON: a put past it drops the least
recently used until the rest fit (players' positions are new without end, so
a cache that kept them all grew a server's disk without end). Safe to share
between the server's threads.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any


@lru_cache(maxsize=None)
def solver_stamp() -> str:
    """A hash of the sources answers are made from, the solver's and the command line's (which
    puts a level hint's answer together, ``cli/api.py``), subpackages included: it changes
    whenever an answer might."""
    digest = hashlib.sha256()
    for package in ("solver", "cli"):
        for name, source in _sources(resources.files(package), package):
            digest.update(name.encode())
            digest.update(source)
    return digest.hexdigest()[:16]


def _sources(folder, prefix: str):
    """(path, bytes) of every .py file under ``folder``, in name order."""
    for item in sorted(folder.iterdir(), key=lambda f: f.name):
        if item.is_dir() and item.name != "__pycache__":
            yield from _sources(item, f"{prefix}/{item.name}")
        elif item.name.endswith(".py"):
            yield f"{prefix}/{item.name}", item.read_bytes()


def default_db_path() -> Path:
    try:
        from platformdirs import user_data_dir

        return Path(user_data_dir("tenfold", appauthor=False)) / "answers.sqlite3"
    except ImportError:
        return Path.home() / ".local" / "share" / "tenfold" / "answers.sqlite3"


DEFAULT_MB = 512  # the answers kept by default, in MiB of keys and JSON (about 2 KB an answer; the files take
# up to about twice that, with SQLite's indexes, page slack and write-ahead log: WAL_MOST)
MAX_MB = 1 << 20


NEXT_USE = "(SELECT COALESCE(MAX(used), 0) + 1 FROM answers)"  # the order of uses (a hit or a put)
SCHEMA = (
    "CREATE INDEX IF NOT EXISTS answers_by_use ON answers (used)",
    # the size of the answers kept, kept by the database itself: servers sharing the file all see it
    "CREATE TABLE IF NOT EXISTS kept (bytes INTEGER NOT NULL)",
    # one row: (an aggregate is a row even of no rows, so the WHERE stands outside it)
    "INSERT INTO kept (bytes) SELECT (SELECT COALESCE(SUM(size), 0) FROM answers) "
    "WHERE NOT EXISTS (SELECT 1 FROM kept)",
    # (a cache opened before that fix gained a row of 0 at each opening; the triggers moved every row alike,
    # so the first holds the size)
    "DELETE FROM kept WHERE rowid != (SELECT MIN(rowid) FROM kept)",
    "CREATE TRIGGER IF NOT EXISTS kept_put AFTER INSERT ON answers BEGIN "
    "UPDATE kept SET bytes = bytes + NEW.size; END",
    "CREATE TRIGGER IF NOT EXISTS kept_changed AFTER UPDATE OF size ON answers BEGIN "
    "UPDATE kept SET bytes = bytes - OLD.size + NEW.size; END",
    "CREATE TRIGGER IF NOT EXISTS kept_gone AFTER DELETE ON answers BEGIN "
    "UPDATE kept SET bytes = bytes - OLD.size; END",
)
COMPACT_BYTES = 8 << 20  # free pages past this (and past a quarter of the file) after opening: VACUUM
WAL_MOST = 64 << 20  # the write-ahead log is cut back to this after each checkpoint (or to a quarter of the
# cache's size, if less), and checkpointed at that size or SQLite's 1,000 pages (4 MB), whichever is less: a
# small cache's log took 4 MB beside a database of 1.3 MB at --cache-mb 1 (an audit)


class AnswerCache:
    def __init__(self, path: Path | str, max_bytes: int = DEFAULT_MB << 20):
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), check_same_thread=False, timeout=2)  # locked longer: no cache
        prefix = solver_stamp() + ":"
        with self._lock:
            self._write_ahead()
            log_most = min(WAL_MOST, max(max_bytes // 4, 64 << 10))
            self._db.execute(f"PRAGMA journal_size_limit={log_most}")
            page = self._db.execute("PRAGMA page_size").fetchone()[0]
            self._db.execute(f"PRAGMA wal_autocheckpoint={max(16, min(1000, log_most // page))}")
            with self._db:
                # one opening at a time: servers opening one new file at once each added its columns
                # (duplicate column name) outside a transaction (sqlite3 begins none before DDL)
                self._db.execute("BEGIN IMMEDIATE")
                self._db.execute("CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, answer TEXT NOT NULL, "
                                 "hits INTEGER NOT NULL DEFAULT 0, used INTEGER NOT NULL DEFAULT 0, "
                                 "size INTEGER NOT NULL DEFAULT 0)")
                columns = {row[1] for row in self._db.execute("PRAGMA table_info(answers)")}
                for column in ("used", "size"):  # (a cache made before they were kept)
                    if column not in columns:
                        self._db.execute(f"ALTER TABLE answers ADD COLUMN {column} INTEGER NOT NULL DEFAULT 0")
                for statement in SCHEMA:
                    self._db.execute(statement)
                self._db.execute("DELETE FROM answers WHERE substr(key, 1, ?) != ?", (len(prefix), prefix))
                self._evict()  # (a smaller size asked for than the cache holds)
            self._compact()
        self.hits = 0
        self.misses = 0
        self._closed = False  # closed as the server stops: a request still running skips it

    def _write_ahead(self) -> None:
        """The write-ahead log on: the change takes the file alone, and SQLite answers a second
        server making it at the same moment 'database is locked' at once, without waiting as it
        does for a write (four servers opening one new file: an audit). So it is tried again,
        for as long as any lock is waited for (the connection's 2 s)."""
        deadline = time.monotonic() + 2
        while True:
            try:
                self._db.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as err:
                if "locked" not in str(err) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    def _compact(self) -> None:
        """Give the disk back what a large deletion when opening freed (another version's answers,
        or a smaller size): SQLite reuses free pages but never shrinks its file by itself. A
        cache another process holds open is left as it is."""
        page = self._db.execute("PRAGMA page_size").fetchone()[0]
        free = self._db.execute("PRAGMA freelist_count").fetchone()[0] * page
        pages = self._db.execute("PRAGMA page_count").fetchone()[0] * page
        if free > COMPACT_BYTES and 4 * free > pages:
            try:
                self._db.execute("VACUUM")
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.OperationalError:  # (busy: another server uses it)
                pass

    @staticmethod
    def key(question: dict[str, Any]) -> str:
        return solver_stamp() + ":" + json.dumps(question, sort_keys=True, separators=(",", ":"))

    def get(self, question: dict[str, Any], again: bool = False) -> Any | None:
        """The cached answer, or None. The cache only saves work: a database that fails (locked
        by another process past the timeout, damaged, of another shape) is a miss, with a note.
        ``again``: a second look for a request whose first was counted a miss; found now, it
        counts as a hit instead."""
        key = self.key(question)
        try:
            row = self._execute("SELECT answer FROM answers WHERE key = ?", (key,))
            answer = None if row is None else json.loads(row[0])
            if row is not None and not isinstance(answer, dict):  # (every answer the server keeps is one)
                raise ValueError(f"a cached answer is a JSON {type(answer).__name__}, not an object")
        except (sqlite3.Error, ValueError) as err:
            self._note("read", err)
            answer = None
        if answer is None:
            if not again:
                self.misses += 1
            return None
        if again:  # its first look was counted a miss
            self.misses -= 1
        self.hits += 1
        try:  # (the hit counter is for the curious; a failure to write either costs the answer nothing)
            self._execute(f"UPDATE answers SET hits = hits + 1, used = {NEXT_USE} WHERE key = ?", (key,), write=True)
        except sqlite3.Error as err:
            self._note("count a hit in", err)
        return answer

    def put(self, question: dict[str, Any], answer: Any) -> None:
        """Keep the answer, then drop the least recently used ones if the cache is past its size; a
        database that fails is noted and the answer served all the same."""
        key, text = self.key(question), json.dumps(answer)
        size = len(key.encode()) + len(text.encode())
        try:
            with self._using(write=True) as db:
                if db is None:
                    return
                db.execute(f"INSERT INTO answers (key, answer, used, size) VALUES (?, ?, {NEXT_USE}, ?) ON CONFLICT "
                           "(key) DO UPDATE SET answer = excluded.answer, used = excluded.used, size = excluded.size",
                           (key, text, size))
                self._evict()
        except sqlite3.Error as err:
            self._note("write", err)

    def _evict(self) -> None:
        """If the cache is past its size, drop the least recently used answers until the rest
        fit (the lock and a write transaction held by the caller, so that servers sharing the
        file evict one at a time). A put past the size so drops about as much as it adds: each
        put's share of the work, where dropping a tenth of the cache at once held every request
        for 190-300 ms at 200,000 answers."""
        total = self._db.execute("SELECT bytes FROM kept").fetchone()[0]
        if total <= self.max_bytes:
            return
        doomed = []
        oldest = self._db.execute("SELECT key, size FROM answers ORDER BY used")
        for key, size in oldest:
            if total <= self.max_bytes:
                break
            doomed.append((key,))
            total -= size
        oldest.close()
        self._db.executemany("DELETE FROM answers WHERE key = ?", doomed)

    def _execute(self, sql: str, args: tuple, write: bool = False) -> tuple | None:
        """``sql`` on the database (``_using``): a read's first row, or None."""
        with self._using(write) as db:
            if db is None:
                return None
            row = db.execute(sql, args).fetchone()
        return None if write else row

    @contextmanager
    def _using(self, write: bool) -> Iterator[sqlite3.Connection | None]:
        """The database, one request at a time (a write in a transaction of its own); None once
        the cache is closed (as the server stops, a request still running skips it)."""
        with self._lock:
            if self._closed:
                yield None
            elif write:
                with self._db:
                    yield self._db
            else:
                yield self._db

    def _note(self, what: str, err: Exception) -> None:
        sys.stderr.write(f"note: cannot {what} the answer cache ({type(err).__name__}: {err}); "
                         "answering without it\n")  # one write: connections' threads write at once

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._db.close()
