"""``solver.jitcache``: a compiled function whose callee (in another module) changed runs the new
callee once the package's cache is cleared; sources that did not change keep their cache."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from solver.jitcache import STAMP_FILE, compiled_sources, purge_stale, sources_stamp

CALLEE = "import numba as nb\n\n\n@nb.njit(cache=True)\ndef f(x):\n    return x + {add}\n"
CALLER = "import numba as nb\n\nfrom .a import f\n\n\n@nb.njit(cache=True)\ndef g(x):\n    return f(x) * 10\n"


def _package(root: Path) -> Path:
    package = root / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text(CALLEE.format(add=1))
    (package / "b.py").write_text(CALLER)
    (package / "plain.py").write_text("X = 1\n")
    return package


def _run_caller(root: Path, **env: str) -> int:
    """g(1) in a fresh interpreter, after clearing the package's cache if its sources changed
    (with ``env`` added to the environment, NUMBA_CACHE_DIR taken out unless given)."""
    import os

    code = ("import sys; from pathlib import Path; from solver.jitcache import purge_stale; "
            f"purge_stale(Path({str(root / 'pkg')!r})); sys.path.insert(0, {str(root)!r}); "
            "from pkg.b import g; print(g(1))")
    repo = Path(__file__).resolve().parent.parent
    environ = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"} | env
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=repo,
                         env=environ)
    return int(out.stdout)


def test_a_changed_callee_in_another_module_is_compiled_again(tmp_path):
    package = _package(tmp_path)
    assert _run_caller(tmp_path) == 20
    assert any(p.suffix == ".nbc" for p in (package / "__pycache__").iterdir())  # the cache was written
    (package / "a.py").write_text(CALLEE.format(add=2))
    assert _run_caller(tmp_path) == 30


def test_a_changed_callee_is_compiled_again_wherever_numba_caches(tmp_path):
    """Not only in the tree: in NUMBA_CACHE_DIR when it is set, and in numba's user-wide folder
    where the tree cannot be written (its ``__pycache__`` a file here). Until 2026-12-06 the caller
    in another module kept running the old callee from those (a mutation audit's mutants of a
    compiled module, run with NUMBA_CACHE_DIR, had not run at all)."""
    given = _package(tmp_path / "given")
    assert _run_caller(tmp_path / "given", NUMBA_CACHE_DIR=str(tmp_path / "cache")) == 20
    assert any(p.suffix == ".nbc" for p in (tmp_path / "cache").rglob("*"))
    assert not (given / "__pycache__").exists()  # numba cached there alone
    (given / "a.py").write_text(CALLEE.format(add=2))
    assert _run_caller(tmp_path / "given", NUMBA_CACHE_DIR=str(tmp_path / "cache")) == 30

    wide = _package(tmp_path / "wide")
    (wide / "__pycache__").write_text("a file where numba's folder would be")
    assert _run_caller(tmp_path / "wide", XDG_CACHE_HOME=str(tmp_path / "xdg")) == 20
    assert any(p.suffix == ".nbc" for p in (tmp_path / "xdg" / "numba").rglob("*"))
    (wide / "a.py").write_text(CALLEE.format(add=3))
    assert _run_caller(tmp_path / "wide", XDG_CACHE_HOME=str(tmp_path / "xdg")) == 40


def test_only_compiled_modules_count_and_an_unchanged_package_keeps_its_cache(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)  # (the stamp goes where numba caches: here, the tree)
    package = _package(tmp_path)
    assert [p.name for p in compiled_sources(package)] == ["a.py", "b.py"]
    assert purge_stale(package)  # no stamp yet
    assert (package / "__pycache__" / STAMP_FILE).read_text() == sources_stamp(package)
    kept = package / "__pycache__" / "b.g-6.py311.nbi"
    kept.write_bytes(b"index")
    (package / "plain.py").write_text("X = 2\n")  # no numba: not part of the stamp
    assert not purge_stale(package)
    assert kept.exists()
    before = sources_stamp(package)
    (package / "b.py").write_text(CALLER + "\n")
    assert sources_stamp(package) != before
    assert purge_stale(package)
    assert not kept.exists()
    assert not purge_stale(package)


def _dispatchers(module) -> list:
    """The compiled functions a module defines."""
    import numba.core.registry

    return [value for value in vars(module).values()
            if isinstance(value, numba.core.registry.CPUDispatcher) and value.py_func.__module__ == module.__name__]


def test_the_stamp_covers_exactly_the_modules_that_define_compiled_functions():
    import importlib
    import pkgutil

    import solver

    defining = set()
    for info in pkgutil.walk_packages(solver.__path__, "solver."):
        if _dispatchers(importlib.import_module(info.name)):
            defining.add(info.name)
    package = Path(solver.__file__).parent
    assert defining == {f"solver.{p.stem}" for p in compiled_sources(package)}
    assert "solver.campaign_pending_jit" in defining  # compiles through the search's ``_borrowing`` alone


def test_compiled_functions_read_constants_only_from_compiled_modules():
    """Numba freezes a global's value into the cache: one a compiled function reads from a module
    outside the stamp (one without compiled functions) would go stale when that module changed."""
    import ast
    import importlib

    package = Path(__file__).resolve().parent.parent / "solver"
    compiled = {p.stem for p in compiled_sources(package)}
    reads = 0
    for stem in sorted(compiled):
        module = importlib.import_module(f"solver.{stem}")
        origin = {}  # imported name -> the module it comes from
        for node in ast.parse((package / f"{stem}.py").read_text()).body:
            if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
                for alias in node.names:
                    origin[alias.asname or alias.name] = node.module.split(".")[0]
        for function in _dispatchers(module):
            for name in function.py_func.__code__.co_names:
                read = getattr(module, name, None)
                if name in origin and not callable(read) and not isinstance(read, type(module)):
                    reads += 1
                    assert origin[name] in compiled, (stem, function.py_func.__name__, name, origin[name])
    assert reads > 0  # the search reads _PARTNER_CHOICES from the pumpkin tests' module


def test_compile_seconds_counts_compiling_once_and_not_running():
    """The expert's time limit leaves out compile_seconds: it grows while numba compiles (a
    callee compiled inside its caller's compile counts once, not twice) and not while compiled
    code runs or a compiled function is called again."""
    import time

    import numba

    from solver.jitcache import compile_seconds

    @numba.njit(cache=False)
    def inner(x):
        return x + 1

    @numba.njit(cache=False)
    def outer(x):
        return inner(x) * 2

    before = compile_seconds()
    t0 = time.perf_counter()
    assert outer(1) == 4  # compiles both, inner inside outer's compile
    wall = time.perf_counter() - t0
    compiled = compile_seconds() - before
    assert 0 < compiled <= wall  # nested: counted once, so no more than the wall time
    again = compile_seconds()
    for _ in range(1000):
        outer(2)
    assert compile_seconds() == again


FIRST_COMPILE = """
import os
import numba
from numba.core import event
from solver.jitcache import on_first_compile

class Ends(event.Listener):  # (registered first: numba tells its listeners in turn)
    def on_start(self, ev):
        pass
    def on_end(self, ev):
        print("a compile ended", flush=True)

event.register("numba:compile", Ends())
on_first_compile(lambda: print("first compile", flush=True))
print("before", flush=True)
child = os.fork()
if child == 0:  # a worker forked before the command's first compile compiles unheard
    numba.njit(cache=False)(lambda x: x - 1)(1)
    os._exit(0)
os.waitpid(child, 0)
print("child done", flush=True)
add_one = numba.njit(cache=False)(lambda x: x + 1)
assert add_one(1) == 2 and add_one(2.5) == 3.5  # three compiles: add_one twice (int, then float), double
assert numba.njit(cache=False)(lambda x: x * 2)(1) == 2
print("after", flush=True)
"""


def test_the_first_compile_of_a_process_is_told_once():
    """``on_first_compile``: once, as the process starts its first compile (before it ends);
    not for the compiles after it, nor in a process forked from it before it."""
    repo = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-c", FIRST_COMPILE], capture_output=True, text=True, check=True,
                         cwd=repo)
    lines = out.stdout.split("\n")
    ends = lines.count("a compile ended")
    assert lines[:4] == ["before", "a compile ended", "child done", "first compile"], out  # (the child's end)
    assert lines[4:] == ["a compile ended"] * (ends - 1) + ["after", ""] and ends >= 4, out


OBJECT_MODE = """
import sys
from solver.jitcache import on_first_compile
on_first_compile(lambda: print("told", flush=True))
sys.path.insert(0, sys.argv[1])
from clocked import tick
print(tick(2))
"""
CLOCKED = "import numba as nb\n\n\n@nb.njit(cache=True)\ndef tick(x):\n    with nb.objmode(now='float64'):\n" \
          "        now = 1.0\n    return x + now\n"


def test_a_warm_cache_is_not_told_of_an_object_mode_block(tmp_path):
    """An object-mode block (the campaign search reads its clock in one) is compiled at its first
    run in every process, from a warm cache too: solve, verify and generate said "compiling the
    solver's kernels" at every run on a terminal (a review). The cold run is told; the warm one,
    which compiles only that block, is not."""
    (tmp_path / "clocked.py").write_text(CLOCKED)
    repo = Path(__file__).resolve().parent.parent
    runs = [subprocess.run([sys.executable, "-c", OBJECT_MODE, str(tmp_path)], capture_output=True, text=True,
                           check=True, cwd=repo).stdout for _ in range(2)]
    assert runs == ["told\n3.0\n", "3.0\n"], runs


def test_a_command_on_a_terminal_says_it_is_compiling(monkeypatch, capsys, python_ctrl_c, stops_as_ctrl_c):
    """A cold cache compiled the kernels for about 40 s in silence (a solve of 120 nodes took 30 s,
    a progress bar stood still): a terminal is told, once; logs and pipes are not."""
    from cli import console
    from cli import main as cli_main

    monkeypatch.setattr(sys, "argv", ["tenfold", "--version"])
    for on_terminal in (False, True):
        told = []
        monkeypatch.setattr(cli_main, "on_first_compile", told.append)
        monkeypatch.setattr(console, "terminal", lambda: on_terminal)
        try:
            cli_main.main()
        except SystemExit as done:
            assert done.code in (0, None)
        assert len(told) == on_terminal
    capsys.readouterr()
    told[0]()  # as numba calls it, at the first compile
    said = capsys.readouterr().err  # (click drops the line-clearing escape off a real terminal)
    assert said.startswith("\r") and said.endswith(f"{cli_main.COMPILING}\n"), said
    assert cli_main.COMPILING.startswith("note: compiling the solver's kernels")


def _run_unwritable(root: Path, fallback: bool) -> subprocess.CompletedProcess:
    """g(1) in a fresh interpreter where numba can cache neither beside the package (its
    ``__pycache__`` is a file) nor in its user-wide folder ($XDG_CACHE_HOME is a file): as a
    read-only install run by a service account without a home. With ``fallback``, as
    ``solver/__init__`` does: ``cache_fallback``'s folder as NUMBA_CACHE_DIR."""
    import os

    code = ("import os, sys; from pathlib import Path; from solver.jitcache import cache_fallback; "
            f"folder = cache_fallback(Path({str(root / 'pkg')!r})) if {fallback!r} else None; "
            "print(folder); folder and os.environ.update(NUMBA_CACHE_DIR=str(folder)); "
            f"sys.path.insert(0, {str(root)!r}); from pkg.b import g; print(g(1))")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(XDG_CACHE_HOME=str(root / "not-a-folder"), TMPDIR=str(root / "tmp"))
    repo = Path(__file__).resolve().parent.parent
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=repo, env=env)


def test_numba_caches_in_a_folder_of_the_users_own_where_it_could_write_none(tmp_path):
    """A helper's audit: a read-only install run by a user without a writable home failed every
    command ("cannot cache function '_pop64': no locator available"), --version too."""
    package = _package(tmp_path)
    (package / "__pycache__").write_text("a file where numba's folder would be")
    (tmp_path / "not-a-folder").write_text("")
    (tmp_path / "tmp").mkdir()
    bare = _run_unwritable(tmp_path, fallback=False)
    assert bare.returncode != 0 and "no locator available" in bare.stderr  # what numba alone does
    for _ in range(2):  # compiled, then loaded from that folder's cache
        done = _run_unwritable(tmp_path, fallback=True)
        assert done.returncode == 0, done.stderr
        folder, answer = done.stdout.split()
        assert answer == "20"
        assert Path(folder).parent == tmp_path / "tmp" and Path(folder).name.startswith("tenfold-numba-")
        assert Path(folder).stat().st_mode & 0o777 == 0o700
        assert any(p.suffix == ".nbc" for p in Path(folder).rglob("*"))


def test_the_cache_fallback_takes_no_folder_open_to_others(tmp_path, monkeypatch):
    """Numba loads pickles from its cache: a folder at the fallback's name that others may write
    is not used (the next name is, and with every name taken none: numba then fails as before),
    nor is one when numba has a place of its own."""
    import tempfile

    import solver.jitcache as jitcache

    package = _package(tmp_path)
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert jitcache.cache_fallback(package) is None  # its __pycache__ can be written
    monkeypatch.setattr(jitcache, "_can_write", lambda folder: False)
    folder = jitcache.cache_fallback(package)
    assert folder is not None and folder.parent == tmp_path
    folder.chmod(0o777)
    assert jitcache.cache_fallback(package) == folder.with_name(folder.name + "-1")  # the next name
    folder.rmdir()
    folder.symlink_to(tmp_path)  # (a link: another user's to follow)
    assert jitcache.cache_fallback(package) == folder.with_name(folder.name + "-1")
    for tried in range(1, jitcache.FALLBACK_NAMES):  # every name taken: none
        taken = folder.with_name(f"{folder.name}-{tried}")
        taken.mkdir(exist_ok=True)
        taken.chmod(0o777)
    assert jitcache.cache_fallback(package) is None
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert jitcache.cache_fallback(package) is None
