"""tenfold's rules engine and solvers.

The compiled (numba) modules' cache is cleared here, before any of them is imported, whenever
their sources changed together (``solver.jitcache``)."""

from pathlib import Path

from .jitcache import purge_stale

purge_stale(Path(__file__).resolve().parent)
