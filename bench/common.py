"""Timing helpers for the benchmark scripts: medians, p99, and where they were measured."""

from __future__ import annotations

import platform
import statistics


def machine() -> str:
    return f"{platform.machine()} {platform.processor() or ''} python {platform.python_version()}".strip()


def summary(label: str, seconds: list[float]) -> str:
    ms = sorted(s * 1000 for s in seconds)
    p99 = ms[min(len(ms) - 1, int(round(0.99 * (len(ms) - 1))))]
    return f"{label:<28} n={len(ms):5d}  median {statistics.median(ms):9.3f} ms  p99 {p99:9.3f} ms  max {ms[-1]:9.3f} ms"
