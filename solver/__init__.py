"""tenfold's rules engine and solvers.

numpy's OpenBLAS runs on one thread, set here before anything imports numpy (where the caller
set OPENBLAS_NUM_THREADS or OMP_NUM_THREADS, theirs is kept): its pool of a thread a core spun on
the expert's matrix products without making them any faster (bench/selfplay.py: the same wall
time for 37 % more CPU), taking a core from the other worker of ``generate --workers 2`` or from
``serve``'s other requests. Each process of tenfold works on one core.

The compiled (numba) modules' cache is cleared here, before any of them is imported, whenever
their sources changed together, and given a folder of its own where numba could write none
(``solver.jitcache``)."""

import os
from pathlib import Path

_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")  # OpenBLAS reads the first before the second
if not any(name in os.environ for name in _THREADS):
    os.environ.update(dict.fromkeys(_THREADS, "1"))

from .jitcache import cache_fallback, purge_stale  # noqa: E402 (after the thread setting above)

_PACKAGE = Path(os.path.abspath(__file__)).parent  # (as imported: numba names its folders by this path)
if (_cache := cache_fallback(_PACKAGE)) is not None:  # (before numba reads its settings)
    os.environ["NUMBA_CACHE_DIR"] = str(_cache)
purge_stale(_PACKAGE)
