"""``tenfold serve``: the command that serves ``cli.api`` over HTTP (``cli.http_server``): its
options, the answer cache it opens, and its stop on Ctrl-C or SIGTERM."""

from __future__ import annotations

import gc
import signal
import sqlite3
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Annotated, Optional
from urllib.parse import urlsplit

import typer

from cli.answer_cache import DEFAULT_MB, MAX_MB, AnswerCache, default_db_path
from cli.api import Api, load_packs
from cli.common import cli_errors, naming_option
from cli.http_server import make_server
from cli.inputs import refuse_empty
from cli.options import int_option
from solver.errors import FormatError, RulesError, clipped


def check_origin(origin: str) -> None:
    """``--cors-origin``: ``*`` or a web origin, scheme://host[:port] with no path."""
    parts = urlsplit(origin)
    if origin != "*" and not (parts.scheme in ("http", "https") and parts.netloc and not parts.path
                              and not parts.query and not parts.fragment and origin.isascii() and " " not in origin):
        raise RulesError(f"--cors-origin: expected * or an origin like http://localhost:8080 "
                         f"(scheme, host and port, no path), got {clipped(repr(origin))}")


def default_packs_dir() -> Path:
    return Path(str(resources.files("levels")))


@cli_errors
def serve(
    host: Annotated[str, typer.Option(help="address to bind (loopback unless told otherwise)")] = "127.0.0.1",
    port: Annotated[int, int_option(help="TCP port (0: any free port)", min=0, max=65535)] = 8765,
    packs: Annotated[Optional[str], typer.Option(help="folder of pack files (default: the shipped levels)")] = None,
    db: Annotated[Optional[str], typer.Option(help="SQLite answer cache (default: under the user's data dir)")] = None,
    cache_mb: Annotated[int, int_option(
        help=f"MiB of answers the cache keeps, 1 to {MAX_MB:,}: past it the least recently used go",
        min=1, max=MAX_MB)] = DEFAULT_MB,
    verbose: Annotated[bool, typer.Option("--verbose", help="log every request to stderr")] = False,
    cors_origin: Annotated[Optional[str], typer.Option(
        "--cors-origin", help="let web pages of this origin (e.g. http://localhost:8080, or *) call the API "
                              "from a browser (default: none)")] = None,
) -> None:
    """Serve levels, solutions and hints as an HTTP JSON API."""
    # a service manager's stop is Ctrl-C from the start: before the server runs, it ends the
    # command as an interrupt (exit 130) and leaves no new cache behind
    stops = _Stops()
    previous = signal.getsignal(signal.SIGTERM)
    if previous != signal.SIG_IGN:  # (ignored as the process started: it stays ignored, as in every command)
        signal.signal(signal.SIGTERM, stops)
    previous_int = signal.getsignal(signal.SIGINT)
    try:
        _serve(host, port, packs, db, cache_mb, verbose, cors_origin, stops)
    finally:
        signal.signal(signal.SIGTERM, previous)
        signal.signal(signal.SIGINT, previous_int)


def _serve(host: str, port: int, packs: str | None, db: str | None, cache_mb: int, verbose: bool,
           cors_origin: str | None, stops: _Stops) -> None:
    if cors_origin is not None:
        check_origin(cors_origin)
    refuse_empty(host, "--host", "an address to bind, such as 127.0.0.1 (or 0.0.0.0 for every interface)")
    try:  # a name the system cannot be given (bytes that are not text: the socket module raises a TypeError)
        host.encode("utf-8")
    except UnicodeError:
        raise FormatError(f"--host: {host!r} is not text; expected an address to bind, such as 127.0.0.1") from None
    for name, value, expected in (("--packs", packs, "a folder of pack files"), ("--db", db, "an SQLite file")):
        if value is not None:
            refuse_empty(value, name, expected)
    with naming_option("--packs"):  # a path the file system refuses (too long a name): the option named
        loaded = load_packs(Path(packs) if packs is not None else default_packs_dir())
    gc.freeze()  # the packs live as long as the server: its collections need not walk them again
    db_path = Path(db) if db is not None else default_db_path()
    with naming_option("--db"):
        new_db = not db_path.exists()
        new_folders = [f for f in (db_path.parent, *db_path.parent.parents) if not f.exists()]  # deepest first

    def leave_nothing_behind() -> None:
        """A server that never ran leaves no empty cache, nor the folders made for it."""
        if new_db:
            for leftover in (db_path, Path(f"{db_path}-journal"), Path(f"{db_path}-wal"), Path(f"{db_path}-shm")):
                try:
                    leftover.unlink()
                except OSError:  # none made (or none can be: a file where a folder should be)
                    pass
        for folder in new_folders:
            try:
                folder.rmdir()
            except OSError:
                break

    cache = None
    try:
        cache = _open_cache(db_path, new_db, cache_mb << 20)
        server = make_server(Api(loaded, cache), host, port, verbose=verbose, cors_origin=cors_origin)
        stop = threading.Event()
        accepting = threading.Thread(target=server.accept_until, args=(stop,), name="accept", daemon=True)
    except BaseException as err:  # a cache path or port the user can fix, or an interrupt: nothing left
        if cache is not None:
            cache.close()
        leave_nothing_behind()
        if isinstance(err, OSError):
            raise FormatError(f"cannot listen on {host}:{port}: {err.strerror or err}") from None
        raise
    try:
        bound_host, bound_port = server.server_address[:2]
        kept = f"cache: {db_path}, up to {cache_mb:,} MiB" if cache is not None else "no cache"
        typer.echo(f"serving {len(loaded)} packs on http://{bound_host}:{bound_port}  ({kept})",
                   err=True)
        # Connections are taken on a thread of their own, which a signal never interrupts: an
        # interrupt in socketserver's loop closes the connection it was starting, whose thread
        # may already be answering it (a concurrency audit: cut-off answers, 'Bad file
        # descriptor', 9 stops in 10 under load). The main thread only waits, so a signal's
        # KeyboardInterrupt lands here; it runs no compiled code, so Ctrl-C stops it at once, as
        # SIGTERM does. (The command's own handler, watch.interrupt, would hold it back while any
        # compiled search runs, a hint's in a connection's thread, and raise it in that thread.)
        signal.signal(signal.SIGINT, stops)
        with stops.held():  # the thread started whole
            accepting.start()
        while accepting.is_alive():
            accepting.join(0.5)
        failed = True  # the accepting loop ended by itself: its error is above
    except KeyboardInterrupt:
        failed = False
    finally:
        stop.set()  # the accepting loop ends at its next poll, a tenth of a second at most
        if accepting.is_alive():
            accepting.join()
        server.refuse_waiting()
        server.server_close()  # no new connections while the last answers go out
        dropped = server.finish(stops.drop)
        if dropped:
            print(f"note: stopped without waiting for {dropped} request(s) under way", file=sys.stderr)
        if cache is not None:
            cache.close()  # its write-ahead files folded in (a dropped request's thread then skips it)
        typer.echo("stopped", err=True)
    if failed:  # not a clean stop, for whatever restarts the service (exit 1)
        typer.echo("error: the server stopped: its loop that takes connections failed (above)", err=True)
        raise typer.Exit(1)


def _open_cache(db_path: Path, new_db: bool, max_bytes: int) -> AnswerCache | None:
    """The answer cache at ``db_path``, or None: a file there that SQLite cannot use (damaged,
    not a database, locked past the timeout) is left as it is and the server answers without a
    cache, with a note, as it does when the cache fails while serving (it only saves work).
    Where no cache can be made at all (a folder that cannot be made, no permission), the path
    is the user's to fix: an error naming --db."""
    try:
        return AnswerCache(db_path, max_bytes)
    except (sqlite3.Error, OSError) as err:
        if new_db or not db_path.is_file():
            named = isinstance(err, OSError) and err.filename and err.strerror
            why = f"{err.filename}: {err.strerror}" if named else err
            if isinstance(err, FileExistsError) and err.filename and Path(err.filename).exists():
                why = f"{err.filename} is a file, not a folder"  # a folder of the path (mkdir: "File exists")
            raise FormatError(f"--db: cannot open {db_path}: {why}") from None
        print(f"note: cannot use the answer cache {db_path} ({type(err).__name__}: {err}); serving without "
              f"a cache (the file is left as it is)", file=sys.stderr)
        return None


class _Stops:
    """SIGTERM from the start, and SIGINT once serving: the first is the main thread's
    KeyboardInterrupt, and any later one only sets ``drop`` (stop waiting for the answers under
    way). One handler for both, and for every signal, from the start: a second one raised as a
    KeyboardInterrupt too landed in the stop's cleanup, 0.2-0.4 ms after the first, and left the
    cache open (a re-audit: 11 in 100)."""

    def __init__(self) -> None:
        self.count = 0
        self.drop = threading.Event()
        self._held = False
        self._pending = 0

    def __call__(self, signum, frame) -> None:
        if self._held:
            self._pending += 1
            return
        self.count += 1
        if self.count == 1:
            raise KeyboardInterrupt
        self.drop.set()

    @contextmanager
    def held(self) -> Iterator[None]:
        """The signals that come meanwhile taken after it: an interrupt inside ``Thread.start``
        left the accepting thread not yet started (its ident unset), to run later on a closed
        socket (a re-audit: a traceback in 18 of 40 starts)."""
        self._held = True
        try:
            yield
        finally:
            self._held = False
            pending, self._pending = self._pending, 0
            if pending:
                self.count += pending
                if self.count > 1:
                    self.drop.set()
                if self.count == pending:  # the first of them: the stop
                    raise KeyboardInterrupt


def register(app: typer.Typer) -> None:
    app.command()(serve)
