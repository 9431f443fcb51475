"""Numba's on-disk cache, kept from going stale across modules.

Numba keys each compiled function's cache on its own source file alone: when a compiled
function calls one from another module and that one changes, the caller's cached machine code
still holds the old callee and keeps running it (the campaign search's modules call ``_pop64``
from ``evaluate_jit`` and the primitives in ``board_jit``, as ``survival`` does). So the
package's compiled modules (its files that define compiled functions) share one stamp, a hash
of all their sources: when it differs from the one their cache was built under, every cache
file in the package's ``__pycache__`` is deleted before anything is compiled or loaded, and
each function compiles afresh once. ``tests/test_jitcache.py`` shows a stale callee and this
clearing it.

Numba also freezes the globals a compiled function reads, so the constants compiled functions
read live in compiled modules, which the stamp covers (a test holds the package to that).

The stamp is kept in every folder numba may cache the package in (``cache_folders``): the
in-tree ``__pycache__`` (numba's default), ``NUMBA_CACHE_DIR``'s folder for the package when that
is set (numba then caches nowhere else), and numba's user-wide one (where it caches when it cannot
write beside the code). Until 2026-12-06 only the in-tree one was: with ``NUMBA_CACHE_DIR`` set, an
edited callee ran its old code in every caller of another module (a helper's mutation audit found
its mutants of ``campaign_tokens_jit`` had not run at all).

Where numba can write neither there nor in its user-wide folder (an install it may not write,
run by a service account whose home is missing or read-only), every import of a compiled
module failed ("cannot cache function ...: no locator available"), ``tenfold --version``
included. ``cache_fallback`` then names a folder of the user's own in the temporary folder,
one per stamp (so a changed install never loads an old cache), which ``solver/__init__``
hands numba as ``NUMBA_CACHE_DIR``.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import tempfile
import time
from pathlib import Path

STAMP_FILE = "numba-sources.stamp"
CACHE_SUFFIXES = (".nbi", ".nbc")


# a decorator line that compiles the function below it: numba's, or the search's own ``_borrowing``
_COMPILING = re.compile(rb"^@(?:nb\.)?n?jit\b|^@_borrowing\b", re.MULTILINE)


def _compiled(package: Path) -> list[tuple[Path, bytes]]:
    """The package's modules that define compiled functions, with their sources, in name order
    (each file read once)."""
    sources = ((path, path.read_bytes()) for path in sorted(package.glob("*.py")))
    return [(path, source) for path, source in sources if _COMPILING.search(source)]


def compiled_sources(package: Path) -> list[Path]:
    """The package's modules that define compiled functions, in name order."""
    return [path for path, _ in _compiled(package)]


def sources_stamp(package: Path) -> str:
    """A hash of the compiled modules' names and sources."""
    digest = hashlib.sha256()
    for path, source in _compiled(package):
        digest.update(path.name.encode() + b"\0" + source + b"\0")
    return digest.hexdigest()


def cache_folders(package: Path) -> list[tuple[Path, bool]]:
    """The folders numba may keep the package's cache in, each with whether numba would cache
    there now (``numba_cache``: a folder not there yet is made and stamped only then). Outside
    the tree, numba names the folder after the package's folder and a SHA-1 of its path (its
    ``_CacheLocator.get_suitable_cache_subpath``); the path as imported and the path with links
    resolved are both taken, as numba sees the one the module was imported by."""
    paths = dict.fromkeys([os.path.abspath(package), os.path.realpath(package)])
    names = [f"{os.path.basename(path)}_{hashlib.sha1(path.encode()).hexdigest()}" for path in paths]
    in_use = numba_cache(package)
    given = os.environ.get("NUMBA_CACHE_DIR")
    folders = [(Path(given) / name, in_use == "given") for name in names] if given else []
    folders.append((package / "__pycache__", in_use == "in tree"))
    folders += [(_user_cache() / name, in_use == "user-wide") for name in names]
    return folders


def numba_cache(package: Path) -> str | None:
    """Where numba caches the package's compiled functions, as its locators choose: ``"given"``
    (``NUMBA_CACHE_DIR``), ``"in tree"`` (beside the code), ``"user-wide"``, or None where it can
    write none of them."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return "given"
    if _can_write(package / "__pycache__"):
        return "in tree"
    if _can_write(_user_cache()):
        return "user-wide"
    return None


def purge_stale(package: Path) -> bool:
    """Delete the package's numba cache files, in every folder of ``cache_folders``, where its
    compiled sources changed since they were written; True when it did anywhere. A folder that
    cannot be written is left alone (numba then caches elsewhere or not at all)."""
    stamp = sources_stamp(package)
    purged = False
    for folder, in_use in cache_folders(package):
        if in_use or folder.is_dir():
            purged |= _purge(folder, stamp)
    return purged


def _purge(cache: Path, stamp: str) -> bool:
    """The cache files in ``cache`` deleted and its stamp written, unless the stamp is there."""
    stamp_path = cache / STAMP_FILE
    try:
        if stamp_path.read_text(encoding="ascii") == stamp:
            return False
    except OSError:
        pass  # no stamp yet: whatever is cached predates it
    try:
        cache.mkdir(parents=True, exist_ok=True)
        for path in cache.iterdir():
            if path.suffix in CACHE_SUFFIXES:
                path.unlink(missing_ok=True)
        partial = cache / f"{STAMP_FILE}.{os.getpid()}.tmp"
        partial.write_text(stamp, encoding="ascii")
        os.replace(partial, stamp_path)
    except OSError:
        return False
    return True


def _can_write(folder: Path) -> bool:
    """Whether numba could cache in ``folder`` (its own test: make it, then a file in it)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True


def _user_cache() -> Path:
    """numba's user-wide cache folder on Linux (its appdirs: $XDG_CACHE_HOME or ~/.cache)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")) / "numba"


FALLBACK_NAMES = 16  # names tried in turn for the fallback folder


def cache_fallback(package: Path) -> Path | None:
    """A folder for numba's cache where it has none it can write (not ``package``'s
    ``__pycache__``, nor its user-wide folder, nor a ``NUMBA_CACHE_DIR`` given), else None:
    ``tenfold-numba-UID-STAMP`` in the temporary folder, made for the user alone. One found
    there that is not the user's alone (made by another, or open to others) is not used (numba
    loads pickles from it): the next name is tried, ``...-1`` to ``...-15``."""
    if numba_cache(package) is not None:
        return None
    uid = os.getuid()
    name = f"tenfold-numba-{uid}-{sources_stamp(package)[:16]}"
    for tried in range(FALLBACK_NAMES):  # (a name another user took first: the next one)
        folder = Path(tempfile.gettempdir()) / (f"{name}-{tried}" if tried else name)
        try:
            folder.mkdir(mode=0o700, exist_ok=True)
            info = os.lstat(folder)
        except OSError:
            continue
        if stat.S_ISDIR(info.st_mode) and info.st_uid == uid and not info.st_mode & 0o077:
            return folder
    return None


# --- time spent compiling -------------------------------------------------

def on_first_compile(callback) -> None:
    """Call ``callback()`` once, as this process starts its first compile of a function (a cache
    miss: after an install or an edit), in the thread that compiles; never in a process forked
    from this one (a worker's compiles are its parent's to speak of, or not). An object-mode block
    (the campaign search's clock) is compiled at its first run in every process and never cached
    (tens of ms): it is no sign of an install, and is passed over."""
    from numba.core import event
    from numba.core.dispatcher import LiftedCode

    owner, fired = os.getpid(), []

    class _First(event.Listener):
        def on_start(self, ev) -> None:
            if not fired and os.getpid() == owner and not isinstance(ev.data.get("dispatcher"), LiftedCode):
                fired.append(True)
                callback()

        def on_end(self, ev) -> None:
            pass

    event.register("numba:compile", _First())


_compiling = {"depth": 0, "began": 0.0, "seconds": 0.0, "installed": False}


def compile_seconds() -> float:
    """Seconds this process has spent compiling numba functions so far (cache misses: after an
    install or an edit). Loading a cached function is not compiling and is not counted, so a
    time limit that leaves this out still counts everything a warm cache costs. Nested compiles
    (a callee compiled inside its caller's) count once."""
    if not _compiling["installed"]:
        from numba.core import event

        class _Clock(event.Listener):
            def on_start(self, ev) -> None:
                if _compiling["depth"] == 0:
                    _compiling["began"] = time.perf_counter()
                _compiling["depth"] += 1

            def on_end(self, ev) -> None:
                _compiling["depth"] -= 1
                if _compiling["depth"] == 0:
                    _compiling["seconds"] += time.perf_counter() - _compiling["began"]

        event.register("numba:compile", _Clock())
        _compiling["installed"] = True
    return _compiling["seconds"] + (time.perf_counter() - _compiling["began"] if _compiling["depth"] else 0.0)
