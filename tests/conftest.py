"""Run-wide set-up: the memo directory the test workers share (``shared_memo``)."""

from __future__ import annotations

import os
import shutil
import tempfile

from shared_memo import ENV


def pytest_configure(config):
    if not os.environ.get("PYTEST_XDIST_WORKER") and ENV not in os.environ:
        # the controller, before it starts the workers (they inherit the variable)
        os.environ[ENV] = tempfile.mkdtemp(prefix="tenfold-memo-")
        config._tenfold_memo = os.environ[ENV]


def pytest_unconfigure(config):
    folder = getattr(config, "_tenfold_memo", None)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)
        del os.environ[ENV]
