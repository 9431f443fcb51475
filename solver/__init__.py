"""tenfold's rules engine and solvers.

numpy's OpenBLAS runs on one thread, set here before anything imports numpy (a value the caller
set is kept): its pool of one thread a core spun on the expert's matrix products without making
them any faster (bench/selfplay.py: the same wall time for 37 % more CPU), taking a core from
the other worker of ``generate --workers 2`` or from ``serve``'s other requests. Each process of
tenfold works on one core.

The compiled (numba) modules' cache is cleared here, before any of them is imported, whenever
their sources changed together (``solver.jitcache``)."""

import os
from pathlib import Path

for _threads in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
    os.environ.setdefault(_threads, "1")

from .jitcache import purge_stale

purge_stale(Path(__file__).resolve().parent)
