"""The server's answer cache keeps at most its size of answers, the least recently used going
first (held to a plain model of that rule), and keeps no answer of another solver."""

from __future__ import annotations

import json
import random
import sqlite3
from collections import OrderedDict

import pytest
from typer.testing import CliRunner

from cli import answer_cache
from cli.answer_cache import AnswerCache, solver_stamp
from cli.main import app

runner = CliRunner()


def stored(path) -> dict[str, int]:
    """The keys in the database file and their sizes, read without the cache's code."""
    with sqlite3.connect(str(path)) as db:
        return dict(db.execute("SELECT key, size FROM answers"))


def kept_bytes(path) -> int:
    """The size the cache keeps of its answers, read without the cache's code (its one row)."""
    with sqlite3.connect(str(path)) as db:
        (row,) = db.execute("SELECT bytes FROM kept").fetchall()
    return row[0]


class LruModel:
    """The rule, written plainly: answers in order of last use (a put or a hit); past ``limit``
    bytes, the oldest go until the rest fit."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.items: OrderedDict[str, int] = OrderedDict()

    def use(self, key: str) -> None:
        self.items.move_to_end(key)

    def put(self, key: str, size: int) -> None:
        self.items[key] = size
        self.items.move_to_end(key)
        while sum(self.items.values()) > self.limit:
            self.items.popitem(last=False)


@pytest.mark.parametrize("servers", [1, 2])
def test_the_cache_keeps_its_size_and_drops_the_least_recently_used(tmp_path, servers):
    """Players' positions are new without end: a cache that kept every answer grew a server's
    disk without end (336 MB over 150,000 hint requests in a helper's audit). Two servers
    sharing the file (two connections, as two processes have) keep one size and one order of
    use: each kept its own count of both, and four went to twice the size (a review). A question
    put again (a solve of it that another server finished first) is a use, and its new size
    replaces the old in the size kept (neither was held by a test: a mutation audit)."""
    path = tmp_path / "cache.sqlite3"
    limit = 12_000
    caches = [AnswerCache(path, max_bytes=limit) for _ in range(servers)]
    model = LruModel(limit)
    rng = random.Random(2026)
    questions = [{"rules": "halloween", "board": f"board {i}", "tray": ["1x1"]} for i in range(300)]
    asked, answers = [], {}
    for step in range(900):
        cache = rng.choice(caches)
        if asked and rng.random() < 0.4:  # a question asked before: a hit if it is still kept
            question = rng.choice(asked)
            key = AnswerCache.key(question)
            answer = cache.get(question)
            assert (answer is not None) == (key in model.items)
            if answer is not None:
                assert answer == {"plan": question["board"], "pad": "x" * answers[key]}
                model.use(key)
        else:
            again = model.items and rng.random() < 0.3  # a question kept, put again, of another size
            question = rng.choice(asked) if again else questions[len(asked) % len(questions)]
            pad = rng.randint(50, 400) if again else len(question["board"]) * 20
            answer = {"plan": question["board"], "pad": "x" * pad}
            cache.put(question, answer)
            key = AnswerCache.key(question)
            model.put(key, len(key.encode()) + len(json.dumps(answer).encode()))
            answers[key] = pad
            asked.append(question)
        kept = stored(path)
        assert kept == dict(model.items)  # the same answers, the same sizes
        assert sum(kept.values()) <= limit
        assert kept_bytes(path) == sum(kept.values())
    assert len(model.items) < len(set(map(json.dumps, asked)))  # answers were dropped on the way
    for cache in caches:
        cache.close()


def test_opening_a_cache_gives_back_the_disk_a_large_deletion_freed(tmp_path):
    """SQLite reuses free pages but never shrinks its file: a cache of another version's answers
    (all deleted when it opens), or opened smaller, kept its size on disk (a review: a 421 MB
    file, and 363 MB of write-ahead log, for a cache of 20 MiB)."""
    path = tmp_path / "cache.sqlite3"
    cache = AnswerCache(path, max_bytes=64 << 20)
    for i in range(6000):
        cache.put({"q": i}, {"a": "w" * 2000})
    cache.close()
    assert path.stat().st_size > 12 << 20
    smaller = AnswerCache(path, max_bytes=1 << 20)
    assert sum(stored(path).values()) <= 1 << 20
    wal = tmp_path / "cache.sqlite3-wal"  # (the shrink's own pages, checkpointed and cut back after it)
    assert path.stat().st_size + (wal.stat().st_size if wal.exists() else 0) < 3 << 20
    assert smaller.get({"q": 5999}) == {"a": "w" * 2000}
    smaller.close()


def test_a_cache_opened_smaller_drops_down_to_its_new_size(tmp_path):
    path = tmp_path / "cache.sqlite3"
    cache = AnswerCache(path, max_bytes=1 << 20)
    for i in range(100):
        cache.put({"q": i}, {"a": "y" * 200})
    cache.close()
    full = stored(path)
    assert len(full) == 100
    smaller = AnswerCache(path, max_bytes=5_000)
    kept = stored(path)
    assert sum(kept.values()) <= 5_000
    assert set(kept) == {AnswerCache.key({"q": i}) for i in range(100 - len(kept), 100)}  # the newest
    assert smaller.get({"q": 99}) == {"a": "y" * 200} and smaller.get({"q": 0}) is None
    smaller.close()


def test_answers_of_another_solver_are_deleted_when_the_cache_opens(tmp_path):
    path = tmp_path / "cache.sqlite3"
    cache = AnswerCache(path)
    cache.put({"q": 1}, {"a": 1})
    cache.close()
    other = "0" * len(solver_stamp()) + ':{"q":1}'
    with sqlite3.connect(str(path)) as db:
        db.execute("INSERT INTO answers (key, answer, used, size) VALUES (?, ?, 1, 10)", (other, "{}"))
    assert len(stored(path)) == 2
    reopened = AnswerCache(path)
    assert list(stored(path)) == [AnswerCache.key({"q": 1})]
    assert reopened.get({"q": 1}) == {"a": 1}
    reopened.close()


def test_a_cache_made_before_sizes_were_kept_opens_and_is_bounded(tmp_path):
    """A cache file of the earlier table (key, answer, hits) gains the columns; its answers,
    another solver's, go."""
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(str(path)) as db:
        db.execute("CREATE TABLE answers (key TEXT PRIMARY KEY, answer TEXT NOT NULL, hits INTEGER NOT NULL DEFAULT 0)")
        db.execute("INSERT INTO answers (key, answer) VALUES ('0123456789abcdef:{}', '{}')")
    cache = AnswerCache(path, max_bytes=3_000)
    assert stored(path) == {}
    for i in range(40):
        cache.put({"q": i}, {"a": "z" * 100})
        assert 0 < sum(stored(path).values()) <= 3_000
    assert cache.get({"q": 39}) == {"a": "z" * 100}
    cache.close()


def test_serve_refuses_a_cache_size_out_of_range(tmp_path):
    for value in ("0", str(answer_cache.MAX_MB + 1)):
        result = runner.invoke(app, ["serve", "--port", "0", "--db", str(tmp_path / "c.sqlite3"),
                                     "--cache-mb", value])
        assert result.exit_code == 2
        assert "--cache-mb" in result.stderr
        assert not (tmp_path / "c.sqlite3").exists()


def test_the_size_kept_is_one_row_however_often_the_cache_opens(tmp_path):
    """Each opening added a row of 0 to the table of the size kept (an audit: five rows after five
    starts), eviction reading whichever row came first; a file that has them is mended."""
    path = tmp_path / "cache.sqlite3"
    for opening in range(5):
        cache = AnswerCache(path, max_bytes=1 << 20)
        cache.put({"q": opening}, {"a": "x" * (100 + opening)})
        cache.close()
    with sqlite3.connect(str(path)) as db:
        assert db.execute("SELECT bytes FROM kept").fetchall() == [(sum(stored(path).values()),)]
        db.executemany("INSERT INTO kept (bytes) VALUES (?)", [(0,), (-100000,)])  # as the bug left files
    AnswerCache(path).close()
    with sqlite3.connect(str(path)) as db:
        assert db.execute("SELECT bytes FROM kept").fetchall() == [(sum(stored(path).values()),)]


@pytest.mark.parametrize("mb", [1, 4])
def test_a_small_cache_takes_about_twice_its_size_on_disk_log_included(tmp_path, mb):
    """The write-ahead log grew to SQLite's 4 MB before a checkpoint whatever the cache's size: 5.6
    MB of files at --cache-mb 1 (an audit), where the docs say about twice."""
    path = tmp_path / "cache.sqlite3"
    wal = tmp_path / "cache.sqlite3-wal"
    cache = AnswerCache(path, max_bytes=mb << 20)
    rng = random.Random(mb)
    most = log_most = 0
    for i in range(4 * mb * 500):  # four times the cache's size, about 2 KB an answer
        cache.put({"q": i}, {"a": "w" * rng.randint(300, 4000)})
        log = wal.stat().st_size if wal.exists() else 0
        log_most = max(log_most, log)
        if i % 50 == 0:
            most = max(most, path.stat().st_size + log)
    cache.close()
    assert most <= 2 * (mb << 20), most
    # checkpointed at a quarter of the cache's size, after the put that crosses it (a few pages)
    assert log_most <= (mb << 20) / 4 + (64 << 10), log_most


def test_the_log_a_long_reader_let_grow_is_cut_back_after_the_next_checkpoint(tmp_path):
    """A reader that holds its snapshot (another server's long read) stops every checkpoint short,
    and the write-ahead log grows past its checkpoint size; once it is done, the next checkpoint
    cuts the file back to the cache's log size (SQLite alone keeps a log's largest size)."""
    path = tmp_path / "cache.sqlite3"
    wal = tmp_path / "cache.sqlite3-wal"
    cache = AnswerCache(path, max_bytes=1 << 20)
    log_most = (1 << 20) // 4
    cache.put({"q": -1}, {"a": "first"})
    reader = sqlite3.connect(str(path))
    reader.execute("BEGIN")
    assert reader.execute("SELECT COUNT(*) FROM answers").fetchone() == (1,)  # the snapshot, held
    for i in range(600):  # about 1.2 MB written while the reader holds on
        cache.put({"q": i}, {"a": "w" * 2000})
    grown = wal.stat().st_size
    assert grown > 2 * log_most, grown
    reader.rollback()
    reader.close()
    for i in range(600, 700):  # the checkpoints run through; a write then starts the log again
        cache.put({"q": i}, {"a": "w" * 2000})
    after = wal.stat().st_size  # (before closing, which checkpoints and removes the log)
    cache.close()
    assert after <= log_most, (grown, after)


def _open_and_put(path: str, barrier, i: int, errors) -> None:
    barrier.wait()
    try:
        cache = AnswerCache(path, max_bytes=1 << 20)
        cache.put({"i": i}, {"a": "x" * 100})
        cache.close()
    except Exception as err:  # noqa: BLE001 - any failure is the test's finding
        errors.put(f"{type(err).__name__}: {err}")


@pytest.mark.parametrize("old", [False, True])
def test_servers_opening_one_new_cache_at_once_all_open_it(tmp_path, old):
    """Four processes opening a new file at the same moment: some failed ('duplicate column name:
    used', each adding the columns outside a transaction; 'database is locked', turning the
    write-ahead log on), and served without a cache (14 failed openings in 30 trials of four).
    ``old``: a file made before answers' uses and sizes were kept, already in write-ahead mode,
    which only the transaction around adding the columns keeps whole (a mutation audit: a new
    file did not show it)."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    errors = context.Queue()
    for trial in range(15):
        path = str(tmp_path / f"cache{trial}.sqlite3")
        if old:
            with sqlite3.connect(path) as db:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("CREATE TABLE answers (key TEXT PRIMARY KEY, answer TEXT NOT NULL, "
                           "hits INTEGER NOT NULL DEFAULT 0)")
        barrier = context.Barrier(4)
        openers = [context.Process(target=_open_and_put, args=(path, barrier, i, errors)) for i in range(4)]
        for opener in openers:
            opener.start()
        for opener in openers:
            opener.join(30)
        assert [opener.exitcode for opener in openers] == [0] * 4
        assert errors.empty(), errors.get()
        assert len(stored(path)) == 4
        with sqlite3.connect(path) as db:
            assert db.execute("SELECT bytes FROM kept").fetchall() == [(sum(stored(path).values()),)]


@pytest.mark.parametrize("text", ["[1, 2]", "3", '"an answer"', "true", "null"])
def test_a_cached_answer_that_is_not_an_object_is_a_miss(tmp_path, capsys, text):
    """A row whose answer is valid JSON but no answer the server keeps (every one is an object) was
    served as it was (``POST /hint`` answered 200 with ``[1, 2]``). It is a miss, with a note, and
    the next put replaces it."""
    cache = AnswerCache(tmp_path / "cache.db")
    question = {"rules": "halloween", "tray": ["1x1"]}
    cache.put(question, {"placeable": True})
    with sqlite3.connect(str(tmp_path / "cache.db")) as db:
        changed = db.execute("UPDATE answers SET answer = ? WHERE key = ?", (text, AnswerCache.key(question)))
        assert changed.rowcount == 1
    assert cache.get(question) is None
    assert (cache.hits, cache.misses) == (0, 1)
    note = capsys.readouterr().err
    assert note.startswith("note: cannot read the answer cache (ValueError: a cached answer is a JSON "), note
    cache.put(question, {"placeable": False})
    assert cache.get(question) == {"placeable": False}
    cache.close()


def test_an_exact_fit_keeps_every_answer(tmp_path):
    """The cache's size is the most it keeps: answers that fill it exactly all stay."""
    path = tmp_path / "cache.sqlite3"
    answer = {"plan": "y" * 100}
    size = len(AnswerCache.key({"q": "a"}).encode()) + len(json.dumps(answer).encode())
    cache = AnswerCache(path, max_bytes=2 * size)
    cache.put({"q": "a"}, answer)
    cache.put({"q": "b"}, answer)
    assert sorted(stored(path)) == sorted(AnswerCache.key({"q": q}) for q in "ab")
    cache.put({"q": "c"}, answer)
    assert sorted(stored(path)) == sorted(AnswerCache.key({"q": q}) for q in "bc")
    cache.close()


def test_a_miss_and_a_closed_cache_say_nothing(tmp_path, capsys):
    """Notes are for a cache that fails: a plain miss, and a request still running as the server
    closes the cache, get none; the cache's folder is made where it is missing."""
    cache = AnswerCache(tmp_path / "made" / "here" / "cache.sqlite3")
    assert cache.get({"q": 1}) is None
    cache.put({"q": 1}, {"a": 1})
    assert cache.get({"q": 1}) == {"a": 1}
    cache.close()
    assert cache.get({"q": 1}) is None
    cache.put({"q": 2}, {"a": 2})
    assert capsys.readouterr().err == ""
    assert (tmp_path / "made" / "here" / "cache.sqlite3").is_file()
    assert (cache.hits, cache.misses) == (1, 2)  # (a closed cache's answer is a miss)


def test_a_cache_with_sizes_but_no_size_kept_starts_from_its_answers(tmp_path):
    """A file of the release that kept answers' sizes but not their sum: the sum starts as the
    sizes of the answers left once another solver's are gone, and the cache keeps to its size."""
    path = tmp_path / "cache.sqlite3"
    key = AnswerCache.key({"q": "kept"})
    with sqlite3.connect(str(path)) as db:
        db.execute("CREATE TABLE answers (key TEXT PRIMARY KEY, answer TEXT NOT NULL, hits INTEGER NOT NULL "
                   "DEFAULT 0, used INTEGER NOT NULL DEFAULT 0, size INTEGER NOT NULL DEFAULT 0)")
        db.execute("INSERT INTO answers VALUES ('0123456789abcdef:{}', '{}', 0, 1, 50000)")  # another solver's
        db.execute("INSERT INTO answers VALUES (?, '{}', 0, 2, 700)", (key,))
    cache = AnswerCache(path, max_bytes=3000)
    assert stored(path) == {key: 700} and kept_bytes(path) == 700
    for i in range(40):
        cache.put({"q": i}, {"a": "z" * 100})
        assert kept_bytes(path) == sum(stored(path).values()) <= 3000
    cache.close()
