"""serve's answer cache (``cli.answer_cache``): a put and a hit on a full cache, where each put
past the size drops the least recently used answers. Prints the median, p99 and the longest
(an eviction or a write-ahead log checkpoint holds the cache's lock, and so every request).

    .venv/bin/python bench/cache.py [--answers 200000] [--puts 100000] [--answer-bytes 200] [--seed 2026]

The cache is sized to hold ``--answers`` answers of about ``--answer-bytes`` of JSON (plus their
keys); it is filled, then ``--puts`` new answers each push out the oldest, and as many hits ask
for answers still kept, in a seeded random order. One thread, a file in a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import machine, summary  # noqa: E402

from cli.answer_cache import AnswerCache  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--answers", type=int, default=200_000)
    parser.add_argument("--puts", type=int, default=100_000)
    parser.add_argument("--answer-bytes", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    print(f"answer cache benchmark  seed={args.seed}  answers kept={args.answers:,}  puts past full={args.puts:,}"
          f"  machine: {machine()}")
    rng = random.Random(args.seed)
    answer = {"plan": "x" * args.answer_bytes}
    entry = len(AnswerCache.key({"q": 10**9}).encode()) + len(json.dumps(answer).encode())
    with tempfile.TemporaryDirectory() as folder:
        cache = AnswerCache(Path(folder) / "cache.sqlite3", max_bytes=args.answers * entry)
        t0 = time.perf_counter()
        for i in range(args.answers):
            cache.put({"q": i}, answer)
        filled = time.perf_counter() - t0
        puts, hits = [], []
        for i in range(args.answers, args.answers + args.puts):
            t = time.perf_counter()
            cache.put({"q": i}, answer)
            puts.append(time.perf_counter() - t)
            wanted = {"q": rng.randrange(i - args.answers // 2, i + 1)}  # (the newer half: still kept)
            t = time.perf_counter()
            found = cache.get(wanted)
            hits.append(time.perf_counter() - t)
            assert found == answer, wanted
        size = sum(f.stat().st_size for f in Path(folder).iterdir())
        cache.close()
    print(f"filled with {args.answers:,} answers in {filled:.1f} s; files {size / 2**20:.1f} MiB "
          f"for {args.answers * entry / 2**20:.1f} MiB of answers")
    print(summary("put past full", puts))
    print(summary("hit", hits))


if __name__ == "__main__":
    main()
