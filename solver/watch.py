"""What a long search reports to, and what can stop it: a command's live status line and Ctrl-C.

The searches call ``tick`` at the clock checks they already make (the compiled campaign search
every 4,096 nodes, the reference one every 1,024) with the nodes searched so far and the best
final score known (``None`` before the first); when a watcher returns True the search stops and
answers as when its time runs out (``proof: bound``, the best line found so far).
"""

from __future__ import annotations

from typing import Callable, Optional

Watcher = Callable[[int, Optional[int]], Optional[bool]]

WATCHERS: list[Watcher] = []

# Nodes the caller of a compiled search counted before it (the reference search hands the
# compiled one its subtrees), so that every tick of one solve counts from the same start.
node_base = 0

# Compiled searches running (nested calls count): an exception raised into one (a
# KeyboardInterrupt from a signal handler) cannot unwind through it cleanly, so handlers
# leave stopping it to the watchers while this is non-zero.
in_compiled = 0


def tick(nodes: int, best: int | None) -> bool:
    """Tell every watcher; True when one asks the search to stop."""
    stop = False
    for watch in WATCHERS:
        stop = bool(watch(node_base + nodes, best)) or stop
    return stop
