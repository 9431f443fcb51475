"""Board evaluation for endless play: measured features, weighted per variant.

Features of a board (stones count as occupied, so they shape every feature):

* ``empty``       empty cells
* ``isolated``    empty cells with no empty edge-neighbour
* ``fit_3x3``, ``fit_1x5``, ``fit_5x1``, ``fit_L5``  placements left for the
  hardest pieces (L5 sums its four turns)
* ``hard_blocked`` how many of those seven hardest shapes have no placement
* ``near_lines``  rows/columns missing 1-2 cells; ``near_regions`` the same
  for Sudoku regions (0 elsewhere)
* ``components``  connected empty areas
* ``roughness``   empty/occupied edge transitions, the board's rim counting
  as occupied
* ``two_3x3``     1 when two 3x3 squares fit side by side (two disjoint
  placements: their top-left corners 3 or more rows or columns apart), else 0;
  a tray of two 3x3 needs it unless a clear opens the second spot

The value of an end-of-tray state is ``points * weight["points"] + sum of
weight[f] * f``; weights per variant live in ``solver/weights.json`` and are
tuned by ``bench/tune.py``. ``board_features`` is the readable reference;
``features_bulk`` is the numba kernel the expert runs on thousands of
boards at once, tested against it.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

from .bitboard import BB_ALL, Bitboard, isolated_empty
from .pieces import placements
from .variants import Variant

FEATURES = ("empty", "isolated", "fit_3x3", "fit_1x5", "fit_5x1", "fit_L5", "hard_blocked",
            "near_lines", "near_regions", "components", "roughness", "two_3x3")
HARD_PIECES = ("3x3", "1x5", "5x1", "L5-nw", "L5-ne", "L5-sw", "L5-se")
WEIGHTS_FILE = Path(__file__).with_name("weights.json")


# ---------------------------------------------------------------------------
# weights

@lru_cache(maxsize=None)
def _weights_file() -> dict:
    return json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))


def load_weights(variant: Variant) -> dict[str, float]:
    """The checked-in weights for the variant (``points`` plus one per feature)."""
    data = _weights_file()["variants"][variant.name]
    return {key: float(data.get(key, 0.0)) for key in ("points",) + FEATURES}


def weight_vector(weights: dict[str, float]) -> np.ndarray:
    return np.array([weights.get(f, 0.0) for f in FEATURES], dtype=np.float64)


# ---------------------------------------------------------------------------
# the reference, on Python ints

def _components(empty: Bitboard) -> int:
    from .bitboard import spread

    count = 0
    while empty:
        area = empty & -empty
        while True:
            grown = (area | spread(area)) & empty
            if grown == area:
                break
            area = grown
        empty &= ~area
        count += 1
    return count


def board_features(variant: Variant, filled: Bitboard, stones: Bitboard) -> dict[str, int]:
    occupied = filled | stones
    empty = BB_ALL & ~occupied
    fits = {p: sum(1 for s in placements(p) if not s.mask & occupied) for p in HARD_PIECES}
    rough = 0
    for cell in range(100):
        row, col = divmod(cell, 10)
        here = empty >> cell & 1
        for r, c in ((row, col + 1), (row + 1, col)):
            there = empty >> (r * 10 + c) & 1 if r < 10 and c < 10 else 0
            rough += here != there
        if row == 0:
            rough += here
        if col == 0:
            rough += here
    squares = [s for s in placements("3x3") if not s.mask & occupied]
    two_3x3 = int(any(abs(a.row - b.row) >= 3 or abs(a.col - b.col) >= 3 for a in squares for b in squares))
    near_lines = sum(1 for z in variant.lines if 1 <= (z & empty).bit_count() <= 2)
    near_regions = sum(1 for z in variant.regions if 1 <= (z & empty).bit_count() <= 2)
    return {
        "empty": empty.bit_count(),
        "isolated": isolated_empty(occupied),
        "fit_3x3": fits["3x3"],
        "fit_1x5": fits["1x5"],
        "fit_5x1": fits["5x1"],
        "fit_L5": sum(fits[p] for p in HARD_PIECES[3:]),
        "hard_blocked": sum(1 for n in fits.values() if n == 0),
        "near_lines": near_lines,
        "near_regions": near_regions,
        "components": _components(empty),
        "roughness": rough,
        "two_3x3": two_3x3,
    }


# ---------------------------------------------------------------------------
# the bulk kernel

@lru_cache(maxsize=None)
def region_tables(variant: Variant) -> tuple[np.ndarray, np.ndarray]:
    low = (1 << 64) - 1
    lo = np.array([z & low for z in variant.regions] or [0], dtype=np.uint64)
    hi = np.array([z >> 64 for z in variant.regions] or [0], dtype=np.uint64)
    return lo[: len(variant.regions)], hi[: len(variant.regions)]


def features_bulk(variant: Variant, lo: np.ndarray, hi: np.ndarray, stones: Bitboard,
                  with_components: bool = True) -> np.ndarray:
    """(n, len(FEATURES)) float64 features of n boards given as uint64 word pairs."""
    from .evaluate_jit import features_kernel

    r_lo, r_hi = region_tables(variant)
    low = (1 << 64) - 1
    return features_kernel(lo, hi, np.uint64(stones & low), np.uint64(stones >> 64),
                           r_lo, r_hi, with_components)
