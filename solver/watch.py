"""What a long search reports to, and what can stop it: a command's live status line and Ctrl-C.

The searches call ``tick`` at the clock checks they already make (the compiled campaign search
every 4,096 nodes, the reference one every 1,024, Ten's every 16) with the nodes
searched so far and the best final score known (``None`` before the first, and always for
Ten); when a watcher returns True the search stops and answers as when its time runs out
(``proof: bound``, the best line found so far; Ten's deepest finished depth). A CP-SAT
solve run through ``solve_cpsat`` ticks them every ``CPSAT_TICK`` seconds, with no node count.
"""

from __future__ import annotations

import select
import signal
import socket
import sys
import threading
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

CPSAT_TICK = 0.1  # seconds between a CP-SAT solve's ticks

# A Ctrl-C that came while a compiled search ran (``in_compiled``) and that no watcher took: it
# stops the search at its next clock check, and is raised as a KeyboardInterrupt once the
# search has returned (``compiled_done``).
interrupt_pending = False
_armed = False  # a KeyboardInterrupt waits for the next line outside numba (_raise_at_next_line)


def interrupt(frame) -> None:
    """Ctrl-C's KeyboardInterrupt, from a SIGINT handler given the ``frame`` it interrupted,
    raised where Python can unwind it.

    A kernel compiled by numba calls back into Python code while it runs (to unpickle a
    constant, such as the dtype of an array it returns), and a signal handler often runs
    there: an exception raised in that callback is not unwound through the compiled code, which
    then fails with a SystemError or crashes the process (a segmentation fault, seen when
    ``play`` was interrupted). Numba's compiler, interrupted, can fail later in the same way
    (``RuntimeError: no compiled object yet``). So wherever numba's code is on the stack, the
    interrupt is raised instead at the next line of Python outside it: once the kernel has
    returned (or compiled). Inside a compiled search (``in_compiled``) it stops the search at
    its next clock check (``tick``) and is raised once the search has returned."""
    global interrupt_pending
    if in_compiled:
        interrupt_pending = True
    else:
        outermost = _outermost_numba(frame)
        if outermost is None:
            raise KeyboardInterrupt
        _raise_at_next_line(outermost.f_back)


def ctrl_c_again() -> None:
    """A Ctrl-C held back, delivered now to what takes it, on the main thread, by calling its
    handler as a SIGINT would (a SIGINT raised again would not come where the console script
    keeps Ctrl-C ignored: blocked, ``cli.entry.keep_ctrl_c_ignored``, and the stop held came as
    SIGTERM or SIGHUP)."""
    handler = signal.getsignal(signal.SIGINT)
    if handler == signal.SIG_DFL:
        raise KeyboardInterrupt
    if callable(handler):
        handler(signal.SIGINT, sys._getframe(1))


def compiled_done() -> None:
    """After a compiled search returns (``in_compiled`` counted down): a Ctrl-C it held back."""
    global interrupt_pending
    if interrupt_pending and not in_compiled:
        interrupt_pending = False
        raise KeyboardInterrupt


def _numba_frame(frame) -> bool:
    return "/numba/" in frame.f_code.co_filename.replace("\\", "/")


def _outermost_numba(frame):
    """The outermost of numba's frames among ``frame`` and those that called it (its compiler,
    or a callback from compiled code into Python: the compiled code itself has no frame), or
    None. Whatever numba called (llvmlite, in its compiler) must not be interrupted either."""
    outermost = None
    while frame is not None:
        if _numba_frame(frame):
            outermost = frame
        frame = frame.f_back
    return outermost


def _raise_at_next_line(frame) -> None:
    """KeyboardInterrupt at the next line (or return) of ``frame`` or a frame that called it, as
    a debugger stops: a trace function on each (and a global one, without which CPython calls
    none of them), all removed when it fires."""
    global _armed
    if _armed:  # (a second Ctrl-C before the first was raised)
        return
    _armed = True
    previous = sys.gettrace()
    kept = []
    while frame is not None:
        kept.append((frame, frame.f_trace))
        frame = frame.f_back

    def fire(frame, event, arg):
        global _armed
        _armed = False
        sys.settrace(previous)
        for traced, trace in kept:
            traced.f_trace = trace
        raise KeyboardInterrupt

    for traced, _ in kept:
        traced.f_trace = fire
    sys.settrace(previous or (lambda frame, event, arg: None))


def tick(nodes: int, best: int | None) -> bool:
    """Tell every watcher; True when one asks the search to stop."""
    stop = interrupt_pending
    for watch in WATCHERS:
        stop = bool(watch(node_base + nodes, best)) or stop
    return stop


def taken_as_ctrl_c() -> list[int]:
    """SIGTERM and SIGHUP where the command takes them as Ctrl-C (``cli.entry.as_ctrl_c``, which
    marks itself so)."""
    return [s for s in (signal.SIGTERM, signal.SIGHUP) if getattr(signal.getsignal(s), "ctrl_c", False)]


def solve_cpsat(solver, model):
    """``solver.solve(model)`` for a CP-SAT solver, stopped as the searches are: the watchers are
    ticked every ``CPSAT_TICK`` seconds (without a node count), and when one asks to stop, or on
    Ctrl-C, the solve stops gracefully with the best so far, as when its time runs out. Python's
    SIGINT handler then runs as usual, so a command's ``Interrupt`` sees the Ctrl-C (and with no
    handler of the caller's, a KeyboardInterrupt follows the solve).

    CP-SAT would otherwise catch SIGINT itself and stop as if its time had run out, which no
    caller could tell apart; and when its solve ends it sets SIGINT to the system default
    rather than putting back the handler it replaced, so that after a solve in a server's
    thread a Ctrl-C killed the process outright. So CP-SAT never handles SIGINT here. On the
    main thread with a Python SIGINT handler, that handler's low-level part writes the signal
    to a wakeup socket that a helper thread watches. Off the main thread (or with no Python
    handler) Ctrl-C is left to the process's own handling, and only the watchers stop the
    solve."""
    done = threading.Event()
    reader, writer = socket.socketpair()  # the wakeup fd, and how the helper hears the solve is done
    writer.setblocking(False)
    catch = threading.current_thread() is threading.main_thread() and callable(signal.getsignal(signal.SIGINT))
    solver.parameters.catch_sigint_signal = False
    stops = [signal.SIGINT, *taken_as_ctrl_c()]

    def watch_the_solve() -> None:
        while not done.is_set():
            ready = select.select([reader], [], [], CPSAT_TICK)[0]
            woken = reader.recv(64) if ready else b""
            if not done.is_set() and (any(s in woken for s in stops) or tick(0, None)):
                solver.stop_search()  # again at each tick: a stop before the solve began is lost

    previous = signal.set_wakeup_fd(writer.fileno()) if catch else None
    helper = threading.Thread(target=watch_the_solve, name="cpsat-watch", daemon=True)
    helper.start()
    try:
        status = solver.solve(model)
    finally:
        if catch:
            signal.set_wakeup_fd(previous)
        done.set()
        writer.send(b"\0")
        helper.join()
        reader.close()
        writer.close()
    from ortools.sat.python import cp_model  # loaded already by the caller, which built the model

    if status == cp_model.MODEL_INVALID:  # never read as "no solution": a bad parameter or model is our mistake
        raise ValueError(f"CP-SAT refused the model: {model.validate() or 'invalid solver parameters'}")
    return status
