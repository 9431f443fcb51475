"""Big-pack benchmark: what loading and writing a pack costs a level, as packs grow.

    .venv/bin/python bench/packs.py [--sizes 1000,10000] [--repeats 5] [--seed 2026]

A pack of N levels is the shipped packs' levels (Halloween and Sultan), drawn at random with the
seed and given new ids, written to a temporary file. Each size is read and parsed (what
``solve``, ``verify``, ``export`` and ``serve`` do first) and written back as JSON (what
``export --format json`` and ``generate`` do), ``--repeats`` times, in CPU seconds; the figures
are per level (median and p99 of the runs), with the peak memory of one load.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import machine, percentile  # noqa: E402

from solver.jsontext import load_json  # noqa: E402
from solver.level import parse_pack  # noqa: E402


def pack_text(size: int, seed: int) -> str:
    rng = random.Random(seed)
    levels = [level for name in ("halloween-2026.json", "sultan-2026.json")
              for level in json.loads((ROOT / "levels" / name).read_text("utf-8"))["levels"]]
    chosen = [{**rng.choice(levels), "id": f"L{i:06d}"} for i in range(size)]
    return json.dumps({"format": "tenfold.pack/1", "id": "big", "title": f"{size} levels",
                       "generator": {"seed": seed, "version": "bench"}, "levels": chosen}, indent=2)


def cpu(call) -> tuple[float, object]:
    start = time.process_time()
    out = call()
    return time.process_time() - start, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000", help="pack sizes, comma-separated")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    print(f"packs benchmark  seed={args.seed}  repeats={args.repeats}  machine: {machine()}")
    for size in (int(s) for s in args.sizes.split(",")):
        text = pack_text(size, args.seed)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "pack.json"
            path.write_text(text, "utf-8")
            loads, writes = [], []
            for _ in range(args.repeats):
                seconds, pack = cpu(lambda path=path: parse_pack(load_json(path.read_text("utf-8"), "pack"), "pack"))
                loads.append(seconds / size)
                seconds, _ = cpu(lambda pack=pack: json.dumps(pack.to_json(), indent=2, ensure_ascii=False))
                writes.append(seconds / size)
                del pack
        tracemalloc.start()
        pack = parse_pack(load_json(text, "pack"), "pack")
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        del pack
        us = 1e6
        print(f"{size:>7,} levels ({len(text) / 1e6:5.1f} MB):"
              f" load median {sorted(loads)[len(loads) // 2] * us:6.1f} us/level"
              f"  p99 {percentile(loads, 0.99) * us:6.1f}  write median {sorted(writes)[len(writes) // 2] * us:6.1f}"
              f"  p99 {percentile(writes, 0.99) * us:6.1f}  peak memory of a load {peak / size / 1024:5.1f} KB/level")


if __name__ == "__main__":
    main()
