"""Timing helpers for the benchmark scripts: medians, p99, and where they were measured."""

from __future__ import annotations

import os
import platform
import statistics
import time
from pathlib import Path


def cpu_model() -> str:
    """The CPU's model name (Linux's /proc/cpuinfo; else what ``platform`` knows, maybe nothing)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def loop_ms(n: int = 10**6, repeats: int = 3) -> float:
    """The fastest of ``repeats`` runs of a fixed pure-Python loop of ``n`` additions, in ms: a
    rough speed of this machine at this moment, so that figures from different days (or a busy
    shared host) can be compared."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        total = 0
        for i in range(n):
            total += i
        best = min(best, time.perf_counter() - t0)
    return best * 1000


def machine() -> str:
    cpu = cpu_model() or "unknown CPU"
    return (f"{platform.machine()} {cpu}, {os.cpu_count()} cores, python {platform.python_version()},"
            f" 10^6-addition loop {loop_ms():.0f} ms")


def percentile(values: list[float], q: float) -> float:
    """The value at fraction ``q`` of the sorted values (nearest rank): ``q=0.99`` is the p99."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def summary(label: str, seconds: list[float]) -> str:
    ms = sorted(s * 1000 for s in seconds)
    p99 = percentile(ms, 0.99)
    median = statistics.median(ms)
    return f"{label:<34} n={len(ms):5d}  median {median:9.3f} ms  p99 {p99:9.3f} ms  max {ms[-1]:9.3f} ms"
