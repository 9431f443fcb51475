"""A SQLite cache of hint answers, so a repeated question is a lookup.

Keys are the canonical question (rules, board text, tray, streak, tokens)
plus a stamp of the solver's source, so answers from an older solver are
never served. Safe to share between the server's threads.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any


@lru_cache(maxsize=None)
def solver_stamp() -> str:
    """A hash of the solver package's source: it changes whenever an answer might."""
    digest = hashlib.sha256()
    files = sorted((f for f in resources.files("solver").iterdir() if f.name.endswith(".py")), key=lambda f: f.name)
    for f in files:
        digest.update(f.name.encode())
        digest.update(f.read_bytes())
    return digest.hexdigest()[:16]


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
        self._db = sqlite3.connect(str(path), check_same_thread=False, timeout=10)
        with self._lock, self._db:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, answer TEXT NOT NULL, hits INTEGER NOT NULL DEFAULT 0)"
            )
        self.hits = 0
        self.misses = 0

    @staticmethod
    def key(question: dict[str, Any]) -> str:
        return solver_stamp() + ":" + json.dumps(question, sort_keys=True, separators=(",", ":"))

    def get(self, question: dict[str, Any]) -> Any | None:
        key = self.key(question)
        with self._lock, self._db:
            row = self._db.execute("SELECT answer FROM answers WHERE key = ?", (key,)).fetchone()
            if row is None:
                self.misses += 1
                return None
            self._db.execute("UPDATE answers SET hits = hits + 1 WHERE key = ?", (key,))
            self.hits += 1
        return json.loads(row[0])

    def put(self, question: dict[str, Any], answer: Any) -> None:
        with self._lock, self._db:
            self._db.execute("INSERT OR REPLACE INTO answers (key, answer) VALUES (?, ?)",
                             (self.key(question), json.dumps(answer)))

    def close(self) -> None:
        with self._lock:
            self._db.close()
