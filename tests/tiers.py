"""How many seeded cases a run checks.

``make test`` (and CI) runs every test on most of its seeds. The few seeds whose reference or
brute force alone takes seconds, and the tail of the longest seed ranges, are left to ``make
test-deep`` (``TENFOLD_DEEP=1``), which runs every seed: about a fifth of the deep run's time
(6 min 14 s against 4 min 49 s, both warm) for a few percent of its cases. Each test names what
it leaves out and why.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

DEEP = os.environ.get("TENFOLD_DEEP", "") == "1"


def seeds(every: Iterable[int], slow: Iterable[int] = (), first: int | None = None) -> list[int]:
    """All of ``every`` in a deep run; otherwise its first ``first`` (all if None), less ``slow``."""
    every = list(every)
    left_out = set(slow)
    if not left_out <= set(every[:first]):  # a seed named by mistake would leave nothing out
        raise ValueError(f"slow seeds {sorted(left_out - set(every[:first]))} are not among those run")
    if DEEP:
        return every
    return [seed for seed in every[:first] if seed not in left_out]
