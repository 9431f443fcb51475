"""Ctrl-C (and serve's SIGTERM) at any moment: a KeyboardInterrupt Python can unwind, the line
``interrupted`` and exit 130, never a traceback or a crash (``solver.watch.interrupt``).

An interrupt fuzz (505 runs of every long command, the signal at random moments) found three
ways it went wrong: raised inside a numba kernel's call back into Python, it surfaced as a
SystemError or a segmentation fault (``play --policy expert``, 14 of 60 runs); raised while the
command's modules loaded, it printed their traceback (every command, in its first ~0.3 s);
and ``serve`` took SIGTERM only once it served, so one during its start-up killed it."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app
from solver import watch
from solver.board import Board
from solver.engine import Streak
from solver.enumerate_jit import enumerate_tray_jit
from solver.variants import find_variant
from tiers import DEEP

# SIGHUP takes SIGTERM's path (cli.entry.STOP_SIGNALS, the same handler): the slow whole-process
# tests send it in a deep run only (about 7 s of make test's 5 minutes); every in-process stop test,
# and the signal ignored from the start, send both.
TERM_AND_HUP = [signal.SIGTERM, *([signal.SIGHUP] if DEEP else [])]

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


def test_ctrl_c_during_compiled_kernels_is_a_keyboard_interrupt():
    """SIGINT at random moments of a loop of compiled tray enumerations, which spends nearly all
    its time inside the kernel: every time the handler ran in numba's callback into Python
    (unpickling the returned arrays' dtype), where a KeyboardInterrupt became 'SystemError:
    CPUDispatcher(...) returned a result with an exception set' (all 400 of 400 trials with
    Python's own handler). With ``watch.interrupt`` each one is a KeyboardInterrupt, raised
    once the kernel has returned, and the trace function it used is gone."""
    assert threading.current_thread() is threading.main_thread()
    variant, board, tray = find_variant("halloween"), Board(0, 0, 0), ["3x3", "1x5", "L5-nw"]
    enumerate_tray_jit(variant, board, Streak(), tray)  # compiled (or loaded) before the clock
    previous = signal.signal(signal.SIGINT, lambda signum, frame: watch.interrupt(frame))
    rng = random.Random(2026)
    outcomes = []
    try:
        for _ in range(60):
            timer = threading.Timer(rng.uniform(0, 0.01), os.kill, (os.getpid(), signal.SIGINT))
            try:
                timer.start()
                end = time.perf_counter() + 0.05
                while time.perf_counter() < end:
                    enumerate_tray_jit(variant, board, Streak(), tray)
                timer.join()
                time.sleep(0.01)  # (a signal is handled at the next line at the latest)
                outcomes.append("not interrupted")
            except KeyboardInterrupt:
                outcomes.append("KeyboardInterrupt")
            except SystemError as err:
                outcomes.append(f"SystemError: {err}")
            timer.join()
            assert sys.gettrace() is None
    finally:
        signal.signal(signal.SIGINT, previous)
    assert outcomes == ["KeyboardInterrupt"] * 60, sorted(set(outcomes))


# Frames whose file lies in a numba folder, as numba's compiler and callbacks are to watch.interrupt
FAKE_NUMBA = compile('''
def compile_step(then):
    return then()

def compiler(then):
    result = compile_step(then)   # the interrupt must not land here (nor in compile_step)
    return result
''', os.path.join("site-packages", "numba", "core", "fake.py"), "exec")


def test_an_interrupt_inside_numba_waits_for_its_caller():
    """Where numba's frames are on the stack (its compiler, which calls llvmlite, itself no numba
    frame), the interrupt is raised at the next line of the frame that called numba, not in
    anything numba called: one raised in the compiler left it broken ('RuntimeError: no
    compiled object yet' on the next compile, seen interrupting a first run's compile)."""
    fake: dict = {}
    exec(FAKE_NUMBA, fake)
    reached = []

    def llvmlite_like():  # a frame numba called, outside numba's folder
        watch.interrupt(sys._getframe())  # as a SIGINT handler run here would
        reached.append("llvmlite went on")
        return 1

    def caller():
        try:
            value = fake["compiler"](llvmlite_like)
            reached.append(f"numba returned {value}")
            reached.append("a second line")  # never: the interrupt comes at the line above
        except KeyboardInterrupt:
            reached.append("KeyboardInterrupt in the caller")

    caller()
    assert reached == ["llvmlite went on", "KeyboardInterrupt in the caller"]
    assert sys.gettrace() is None and not watch._armed
    try:  # outside numba, at once
        watch.interrupt(sys._getframe())
        raised = False
    except KeyboardInterrupt:
        raised = True
    assert raised


@pytest.mark.parametrize("landing, argv", [("raised", ["--version"]), ("swallowed", ["--version"]),
                                           ("wrapped", ["--version"]), ("raised", ["serve", "--port", "0"]),
                                           ("sigterm", ["serve", "--port", "0"]), ("sigterm", ["--version"]),
                                           ("sighup", ["--version"])])
def test_ctrl_c_while_the_commands_load_says_interrupted(landing, argv):
    """A Ctrl-C while ``cli.main`` and what it imports (numpy, numba, OR-Tools) load: the
    console script's entry (``cli.entry``) says so and exits 130, no traceback. Made to land
    there by an import hook that interrupts the import of ``cli.main``; the interrupt fuzz also
    saw one swallowed by the import machinery (a module lock's callback: the command then ran
    to the end) and one wrapped in a RuntimeError (raised while a class was made). ``serve``
    takes a SIGTERM there as a Ctrl-C (an audit: it ended silently, 143, in its first ~0.7 s), and
    so does every command, SIGHUP too (a later audit: they ended silently, 143 and 129)."""
    code = """
import os, signal, sys, time
LANDING = %r
class InterruptTheImport:
    def find_spec(self, name, path=None, target=None):
        if name == "cli.main":
            try:
                os.kill(os.getpid(), {"sigterm": signal.SIGTERM, "sighup": signal.SIGHUP}.get(LANDING, signal.SIGINT))
                time.sleep(1)
            except KeyboardInterrupt as err:
                if LANDING == "raised":
                    raise
                if LANDING == "wrapped":
                    raise RuntimeError("Error calling __set_name__ on 'Field' instance") from err
        return None
from cli.entry import main
sys.meta_path.insert(0, InterruptTheImport())
sys.argv = ["tenfold", *%r]
main()
""" % (landing, argv)
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 130, done.stderr
    assert done.stderr == "interrupted: before the command started\n"
    assert done.stdout == ""


def test_an_interrupt_wrapped_or_outside_the_command_says_interrupted(monkeypatch, capsys):
    """A KeyboardInterrupt that escapes the command (typer building it) or comes wrapped in a
    RuntimeError (Python's, for one raised while a class is made): 'interrupted', exit 130."""
    import cli.entry as entry
    import cli.main

    for failure in (KeyboardInterrupt(), RuntimeError("Error calling __set_name__")):
        if isinstance(failure, RuntimeError):
            failure.__cause__ = KeyboardInterrupt()

        def run(failure=failure):
            raise failure

        monkeypatch.setattr(cli.main, "main", run)
        with pytest.raises(SystemExit) as done:
            run_entry(entry)
        assert done.value.code == 130
        assert capsys.readouterr().err == "interrupted\n"
    monkeypatch.setattr(cli.main, "main", lambda: (_ for _ in ()).throw(ValueError("a bug")))
    with pytest.raises(ValueError):  # anything else is not taken for an interrupt
        run_entry(entry)
    # and the command's start is not left behind for a later command run in-process (the hint's
    # time limit of every test after this one counted from the module's loading: a review)
    seen = []
    monkeypatch.setattr(cli.main, "main", lambda: seen.append(entry.STARTED))
    run_entry(entry)
    assert seen == [entry._LOADED] and entry.STARTED is None


def test_an_error_raised_while_an_interrupt_is_handled_says_interrupted(monkeypatch, capsys):
    """A Ctrl-C whose way out fails in turn (an error in a ``finally`` it passes through: Python
    chains the interrupt as that error's context, not its cause) is still the interrupt:
    'interrupted', exit 130, not the second error's traceback."""
    import cli.entry as entry
    import cli.main

    def run():
        try:
            raise KeyboardInterrupt
        finally:
            raise OSError(5, "Input/output error")

    monkeypatch.setattr(cli.main, "main", run)
    with pytest.raises(SystemExit) as done:
        run_entry(entry)
    assert done.value.code == 130
    assert capsys.readouterr().err == "interrupted\n"


def run_entry(entry) -> None:
    """The console script's ``main``, with the SIGINT handler it sets put back after."""
    previous = signal.getsignal(signal.SIGINT)
    try:
        entry.main()
    finally:
        signal.signal(signal.SIGINT, previous)


def test_the_console_script_runs_through_its_entry():
    """pyproject's ``tenfold`` script is ``cli.entry:main``, which handles Ctrl-C from the start."""
    text = (ROOT / "pyproject.toml").read_text()
    assert 'tenfold = "cli.entry:main"' in text
    done = subprocess.run([str(Path(sys.executable).with_name("tenfold")), "--version"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.startswith("tenfold "), done.stderr


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.parametrize("stop", [signal.SIGINT, *TERM_AND_HUP])
def test_play_interrupted_mid_game_says_interrupted(stop):
    """``play --policy expert`` spends its time in compiled kernels; Ctrl-C mid-game ends it with
    ``interrupted`` and exit 130 (it was a SystemError traceback or a segmentation fault in 14 of
    60 fuzz runs). SIGTERM and SIGHUP are taken as Ctrl-C (they killed it silently)."""
    tenfold = str(Path(sys.executable).with_name("tenfold"))
    proc = subprocess.Popen([tenfold, "play", "--rules", "halloween", "--seed", "21", "--policy", "expert",
                             "--trays", "100000"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # loaded and playing (a game of 100,000 trays does not end first): the process has used 3 s
    # of CPU, about thrice its start-up, however loaded the machine
    deadline = time.monotonic() + 120
    while cpu_seconds(proc.pid) < 3 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(stop)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err == "interrupted\n", err


@pytest.mark.parametrize("stop", TERM_AND_HUP)
def test_a_stop_sent_to_every_process_of_generate_with_workers_is_an_interrupt(tmp_path, stop):
    """``systemctl stop`` (and a terminal's hangup) signals every process of the command: the
    workers leave it to the parent, which keeps its results and says interrupted (a review: the
    workers died of it first, and the run ended as an error, exit 2)."""
    tenfold = str(Path(sys.executable).with_name("tenfold"))
    out = tmp_path / "p.json"
    partial = tmp_path / "p.json.partial.jsonl"
    proc = subprocess.Popen([tenfold, "generate", "halloween", "--count", "30", "--seed", "2", "--out", str(out),
                             "--workers", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None and (
            not partial.exists() or len(partial.read_text().splitlines()) < 3):
        time.sleep(0.05)
    os.killpg(proc.pid, stop)
    out_text, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.startswith("interrupted: ") and "the same command resumes" in err, err
    assert not out.exists() and len(partial.read_text().splitlines()) >= 3


@pytest.mark.parametrize("ignored, stop", [(signal.SIGHUP, signal.SIGINT), (signal.SIGINT, signal.SIGTERM)])
def test_a_signal_ignored_from_the_start_stays_ignored(ignored, stop):
    """``nohup tenfold ...``: SIGHUP ignored when the command starts stays ignored (a review: the
    command was interrupted when its terminal closed, as if without nohup); Ctrl-C still stops it.
    A script's background job (``tenfold ... &``) starts with Ctrl-C ignored, so that the
    terminal's Ctrl-C stops the script alone: it stays ignored, as Python leaves it (the command
    took it, and stopped); SIGTERM still stops the command as Ctrl-C would (a first attempt at
    this left SIGTERM killing it outright, 143)."""
    tenfold = str(Path(sys.executable).with_name("tenfold"))
    proc = subprocess.Popen([tenfold, "play", "--rules", "halloween", "--seed", "21", "--policy", "expert",
                             "--trays", "100000"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(ignored, signal.SIG_IGN))
    deadline = time.monotonic() + 120
    while cpu_seconds(proc.pid) < 3 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(ignored)
    time.sleep(1)
    assert proc.poll() is None  # still playing
    proc.send_signal(stop)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err == "interrupted\n", err


def test_the_console_script_leaves_ctrl_c_unblocked_when_done():
    """The block that keeps an ignored Ctrl-C ignored ends with the command (a review: it outlived
    it, so a program that ran the command in its process, and what it started after, never heard
    Ctrl-C again)."""
    code = ("import signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); sys.argv = ['tenfold', '--version']; "
            "from cli import entry\ntry:\n    entry.main()\nexcept SystemExit:\n    pass\n"
            "print(sorted(signal.pthread_sigmask(signal.SIG_BLOCK, [])))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0 and done.stdout.splitlines()[-1] == "[]", done


@pytest.mark.parametrize("blocked", [False, True])
def test_a_held_ctrl_c_is_delivered_to_the_handler_blocked_or_not(blocked):
    """``watch.ctrl_c_again`` (the worker pool's Ctrl-C held while it forks): by SIGINT, or by
    calling the handler where the console script keeps SIGINT blocked (it came as SIGTERM)."""
    code = ("import signal; from solver import watch; "
            f"{'signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}); ' if blocked else ''}"
            "signal.signal(signal.SIGINT, lambda s, f: print('taken', s == signal.SIGINT)); "
            "watch.ctrl_c_again(); print('after')")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0 and done.stdout == "taken True\nafter\n", done


def test_sigterm_once_the_command_is_done_ends_the_process():
    """After the command (the console script sets Ctrl-C to be ignored as the interpreter shuts
    down), SIGTERM ends the process as by default (a review: it followed Ctrl-C and was ignored)."""
    code = ("import os, signal; from cli import entry; entry.take_stops_as_ctrl_c(); "
            "signal.signal(signal.SIGINT, signal.SIG_IGN); os.kill(os.getpid(), signal.SIGTERM); "
            "import time; time.sleep(5); print('still here')")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == -signal.SIGTERM and done.stdout == "", done


def test_serve_takes_sigterm_while_it_starts(tmp_path, monkeypatch):
    """SIGTERM before the server runs (here while it loads the packs) ends ``serve`` as an
    interrupt: ``interrupted``, exit 130, no cache file made; the handler it set is put back.
    The handler used to be set only once it served, so such a SIGTERM killed the process."""
    import cli.serve_cmd as serve_cmd

    before = signal.getsignal(signal.SIGTERM)

    def load_packs_stopped(folder):
        handler = signal.getsignal(signal.SIGTERM)
        assert callable(handler), "SIGTERM is not handled yet: it would kill the process"
        handler(signal.SIGTERM, None)

    monkeypatch.setattr(serve_cmd, "load_packs", load_packs_stopped)
    result = runner.invoke(app, ["serve", "--port", "0", "--db", str(tmp_path / "cache.db")])
    assert result.exit_code == 130, result.output
    assert result.output == "interrupted\n"
    assert list(tmp_path.iterdir()) == []
    assert signal.getsignal(signal.SIGTERM) == before


def test_ctrl_c_before_the_command_runs_says_interrupted(monkeypatch):
    """A Ctrl-C while typer parses the options, before the command runs: typer turns it into a
    silent exit 130; the line ``interrupted`` is said (once, also after a command that said its
    own)."""
    import typer

    from cli import console
    from cli.main import OneLineErrors

    try:  # a command that said its own, before (the flag starts afresh with each command)
        console.interrupted("what it kept")
    except typer.Exit as done:
        assert done.exit_code == 130 and console.interrupt_said

    def invoke_interrupted(self, ctx):
        raise KeyboardInterrupt

    monkeypatch.setattr(OneLineErrors, "invoke", invoke_interrupted)
    result = runner.invoke(app, ["tray", "--rules", "halloween", "--tray", "1x1"])
    assert result.exit_code == 130
    assert result.output == "interrupted\n"
