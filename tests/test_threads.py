"""Each tenfold process works on one core: numpy's OpenBLAS runs on one thread (its pool of one
thread a core spun on the expert's matrix products, for no speed: ``solver/__init__.py``), and
a caller who asks for more threads gets them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CODE = ("import os, cli.main, numpy as np; from solver.expert import ExpertPolicy; "
        "a = np.ones((4000, 12)); a @ np.ones(12); print(len(os.listdir('/proc/self/task')))")


def _threads(**env: str) -> int:
    """The threads of a fresh process that loaded the command line and numpy and multiplied."""
    clean = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parent.parent, env={**clean, **env})
    return int(out.stdout)


def test_numpy_runs_on_one_thread_unless_the_caller_asks_for_more():
    two = min(2, len(os.sched_getaffinity(0)))  # (OpenBLAS takes no more threads than the cores it may use)
    assert _threads() == 1
    assert _threads(OPENBLAS_NUM_THREADS="2") == two
    assert _threads(OMP_NUM_THREADS="2") == two  # OpenBLAS reads it after its own: that is left unset too
