"""The test workers' shared memo computes each answer once per run, and never waits forever."""

from __future__ import annotations

import shared_memo
from shared_memo import ENV, shared_cache


def counting(log):
    def square(n):
        with open(log, "a", encoding="utf-8") as f:
            f.write(f"{n}\n")
        return {"square": n * n}
    return square


def test_a_second_worker_reads_the_first_ones_answer(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV, str(tmp_path / "memo"))
    (tmp_path / "memo").mkdir()
    log = tmp_path / "calls"
    # two wrappers of the same function stand for two workers (each has its own functools.cache)
    first, second = shared_cache(counting(log)), shared_cache(counting(log))
    assert first(3) == second(3) == {"square": 9}
    assert second(4) == first(4) == {"square": 16}
    assert log.read_text().split() == ["3", "4"]
    assert sorted(p.suffix for p in (tmp_path / "memo").iterdir()) == [".json", ".json"]  # no claims left


def test_an_abandoned_claim_is_computed_after_the_wait(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV, str(tmp_path))
    monkeypatch.setattr(shared_memo, "GIVE_UP", 0.05)
    log = tmp_path / "calls"
    square = shared_cache(counting(log))
    square(5)  # learn the answer's file name from the first call
    answer = next(tmp_path.glob("*.json"))
    answer.unlink()
    claim = answer.with_name(answer.name + ".claim")
    claim.touch()  # a worker that claimed the answer and died
    assert shared_cache(counting(log))(5) == {"square": 25}
    assert log.read_text().split() == ["5", "5"]


def test_without_the_directory_it_is_a_plain_cache(tmp_path, monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    log = tmp_path / "calls"
    square = shared_cache(counting(log))
    assert square(2) == square(2) == {"square": 4}
    assert shared_cache(counting(log))(2) == {"square": 4}
    assert log.read_text().split() == ["2", "2"]
