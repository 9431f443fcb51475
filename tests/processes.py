"""Reading a child process's lines with a deadline, for the tests that start ``tenfold serve``."""

from __future__ import annotations

import queue
import subprocess
import threading
import time


def lines_until(proc: subprocess.Popen, needle: str, seconds: float = 60.0) -> list[str]:
    """``proc``'s stderr lines up to the first that holds ``needle`` (that one included). A read
    that blocks (the line went elsewhere, or never comes) cannot hang the test: past ``seconds``
    the process is killed and the test fails with what it said."""
    said: queue.Queue[str] = queue.Queue()

    def read() -> None:  # stops at the line, so that what reads stderr next reads the rest
        while True:
            line = proc.stderr.readline()
            said.put(line)
            if not line or needle in line:
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    lines: list[str] = []
    deadline = time.monotonic() + seconds
    while not lines or (lines[-1] and needle not in lines[-1]):
        try:
            lines.append(said.get(timeout=max(0.0, deadline - time.monotonic())))
        except queue.Empty:
            proc.kill()
            reader.join()
            lines.extend(said.queue)
            raise AssertionError(f"no line holding {needle!r} within {seconds} s; stderr said {lines!r}") from None
    reader.join()
    assert needle in lines[-1], f"stderr ended before a line holding {needle!r}: {lines!r}"
    return lines
