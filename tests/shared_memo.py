"""``functools.cache`` that the test workers of one run share.

The brute-force answers some tests need are asked for by tests that pytest-xdist may run in
different worker processes, often at the same time; each answer is computed once per run, by
the worker that claims it first, and kept as a file in the run's memo directory
(``conftest.py`` makes it before the workers start and removes it after the run). A worker
that finds an answer claimed waits for it, which is never longer than computing it again.
Outside a run with that directory it is a plain ``functools.cache``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import time

ENV = "TENFOLD_TEST_MEMO"
GIVE_UP = 600.0  # seconds to wait on another worker's claim (it may have died) before computing


def shared_cache(fn):
    """Memoise ``fn`` (JSON-valued, with arguments whose ``repr`` names them) for the run."""

    @functools.cache
    def wrapper(*args):
        folder = os.environ.get(ENV)
        if not folder or not os.path.isdir(folder):
            return fn(*args)
        key = hashlib.sha256(repr((fn.__module__, fn.__qualname__, args)).encode()).hexdigest()
        path = os.path.join(folder, f"{key}.json")
        claim = f"{path}.claim"
        start = time.monotonic()
        while not os.path.exists(path):
            try:
                os.close(os.open(claim, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:
                if time.monotonic() - start > GIVE_UP:
                    return fn(*args)
                time.sleep(0.01)
                continue
            try:
                if os.path.exists(path):  # finished between our look and our claim
                    break
                value = fn(*args)
                tmp = f"{path}.{os.getpid()}.tmp"  # written whole, then renamed: readers see all or nothing
                with open(tmp, "w", encoding="utf-8") as f:
                    json.dump({"value": value}, f)
                os.replace(tmp, path)
                return value
            finally:
                os.remove(claim)
        with open(path, encoding="utf-8") as f:
            return json.load(f)["value"]

    return wrapper
