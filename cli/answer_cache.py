"""A SQLite cache of hint answers, so a repeated question is a lookup.

Keys are the canonical question (rules, board text, tray, streak, tokens)
plus a stamp of the solver's source, so answers from an older solver are
never served. Safe to share between the server's threads.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import sys
import threading
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


class AnswerCache:
    def __init__(self, path: Path | str):
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), check_same_thread=False, timeout=2)  # locked longer: no cache
        with self._lock, self._db:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, answer TEXT NOT NULL, hits INTEGER NOT NULL DEFAULT 0)"
            )
        self.hits = 0
        self.misses = 0
        self._closed = False  # closed as the server stops: a request still running skips it

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
        try:  # the hit counter is for the curious: a failure to write it costs the answer nothing
            self._execute("UPDATE answers SET hits = hits + 1 WHERE key = ?", (key,), write=True)
        except sqlite3.Error as err:
            self._note("count a hit in", err)
        return answer

    def put(self, question: dict[str, Any], answer: Any) -> None:
        """Keep the answer; a database that fails is noted and the answer served all the same."""
        try:
            self._execute("INSERT OR REPLACE INTO answers (key, answer) VALUES (?, ?)",
                          (self.key(question), json.dumps(answer)), write=True)
        except sqlite3.Error as err:
            self._note("write", err)

    def _execute(self, sql: str, args: tuple, write: bool = False) -> tuple | None:
        """``sql`` on the database, one request at a time (a write in a transaction of its own):
        a read's first row, or None; nothing once the cache is closed (as the server stops, a
        request still running skips it)."""
        with self._lock:
            if self._closed:
                return None
            if write:
                with self._db:
                    self._db.execute(sql, args)
                return None
            return self._db.execute(sql, args).fetchone()

    def _note(self, what: str, err: Exception) -> None:
        sys.stderr.write(f"note: cannot {what} the answer cache ({type(err).__name__}: {err}); "
                         "answering without it\n")  # one write: connections' threads write at once

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._db.close()
