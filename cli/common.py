"""What every command shares: error handling, reading inputs, printing JSON."""

from __future__ import annotations

import errno
import functools
import json
import math
import os
import re
import secrets
import signal
import stat
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, TextIO

import typer
from typer.core import TyperGroup

from cli.entry import EXIT_INTERRUPTED  # (defined where nothing else is loaded yet)
from solver import watch
from solver.board import SIZE, Board, parse_board
from solver.errors import MESSAGE_MOST, FormatError, RulesError, TenfoldError, clipped
from solver.jsontext import load_json
from solver.level import level_tokens_most
from solver.moves import Move, parse_moves
from solver.variants import Mode, Variant, find_variant

EXIT_BAD_INPUT = 2
STATUS_EVERY = 0.25  # seconds between redraws of a search's live status line
MAX_TOKENS = level_tokens_most()  # the most tokens an option takes: a level file's cap on "tokens"
MAX_STREAK = 1000  # the longest streak carried in
# the arguments one command may read from stdin (- for each); ``path``: the file argument
STDIN_OPTIONS = ("path", "board", "moves", "deals", "after")


def cli_errors(func: Callable) -> Callable:
    """Turn bad input into one line on stderr and exit code 2 — never a traceback."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            stdin = [name for name in STDIN_OPTIONS if kwargs.get(name) == "-"]
            if len(stdin) > 1:  # the first to read it would leave nothing for the next
                raise FormatError(f"{' and '.join('the file argument' if n == 'path' else '--' + n for n in stdin)}"
                                  ": each reads - (stdin), "
                                  "which only one input can; give the others a file")
            return func(*args, **kwargs)
        except TenfoldError as err:
            say(f"error: {clipped(str(err), MESSAGE_MOST)}")
            raise typer.Exit(EXIT_BAD_INPUT) from None
        except BrokenPipeError:  # the reader left (``| head``): it has what it wanted
            quiet_stdout()
            raise typer.Exit(1) from None
        except OSError as err:  # a path that cannot be read or written
            where = f" {clipped(str(err.filename), 120)}:" if err.filename else ""
            if err.filename == "stdout":  # (cli.main names it): what it holds is dropped, not tried again at exit
                quiet_stdout()
            say(f"error:{where} {err.strerror or err}")
            raise typer.Exit(EXIT_BAD_INPUT) from None
        except KeyboardInterrupt:  # Ctrl-C where the command keeps nothing
            interrupted()

    return wrapper


def _a_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def say(line: str) -> None:
    """A line on stderr, where it can still be written: a terminal that hung up fails the write
    (EIO), and the exit code is then all the command can tell (it was a traceback)."""
    try:
        typer.echo(line, err=True)
    except (OSError, ValueError):  # (ValueError: stderr closed by Python itself)
        pass


def quiet_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's last flush of a closed pipe is silent
    (Python's documented way out of a broken pipe)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no file descriptor (a test's captured stdout)
        pass


_INTEGER = re.compile(r"[+-]?[0-9]+")
_DIGITS_MOST = 100  # an option's integer (none of whose ranges comes near)
_NUMBER = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]?inf", re.IGNORECASE)


def int_option(*decls: str, help: str, min: int | None = None, max: int | None = None) -> Any:
    """An option whose value is an integer spelled as one, within ``min``..``max``: typer's own
    integers (pydantic's lax mode, from typer 0.29) took ``1.0``, ``1_0`` and `` 2`` as 1, 10
    and 2. Typer shows the range in the help but leaves a parser's value unchecked: checked here."""
    def parse(value: Any) -> int:
        if isinstance(value, int):  # a default
            return value
        text = str(value)
        if not _INTEGER.fullmatch(text):
            raise typer.BadParameter(f"expected an integer, got {clipped(repr(text), 80)}")
        expected = (f"{min:,} to {max:,}" if min is not None and max is not None else f"{min:,} or more"
                    if min is not None else f"{max:,} or less" if max is not None else "an integer")
        significant = text.lstrip("+-").lstrip("0") or "0"
        if len(significant) > _DIGITS_MOST:  # (past Python's limit for int(), 4,300 digits, its own message)
            raise typer.BadParameter(f"expected {expected}, got an integer of {len(significant):,} digits")
        number = int(significant) * (-1 if text.startswith("-") else 1)
        if (min is not None and number < min) or (max is not None and number > max):
            raise typer.BadParameter(f"expected {expected}, got {number}")
        return number
    return typer.Option(*decls, help=help, parser=parse, min=min, max=max)


def float_option(*decls: str, help: str) -> Any:
    """An option whose value is a number written as one (``2``, ``0.5``, ``1e3``, ``inf``), as
    ``int_option``'s are: typer's (pydantic's lax mode) took ``1_0`` as 10 and ``infinity``."""
    def parse(value: Any) -> float:
        if isinstance(value, (int, float)):  # a default
            return float(value)
        text = str(value)
        if not _NUMBER.fullmatch(text):
            raise typer.BadParameter(f"expected a number, got {clipped(repr(text), 80)}")
        number = float(text)
        # (a float rounds 1e-400 to 0 and 1e400 to inf: a range check would then quote a number not typed)
        mantissa = text.lower().partition("e")[0]
        if (math.isinf(number) and "inf" not in mantissa) or (number == 0 and re.search("[1-9]", mantissa)):
            raise typer.BadParameter("expected 0, inf, or a number from about 5e-324 to 1.79e308 in size, "
                                     f"got {clipped(text, 80)}")
        return number
    return typer.Option(*decls, help=help, parser=parse)


def check_seconds(value: float | None, allow_zero: bool = False, allow_inf: bool = False,
                  name: str = "--time-limit") -> None:
    """A time limit: a number of seconds above 0 (or 0, where it means "no lookahead"), ``inf``
    only where it means "no limit"; never nan, which no clock compares to."""
    if value is None:
        return
    if math.isnan(value) or value < 0 or (value == 0 and not allow_zero) or (math.isinf(value) and not allow_inf):
        expected = ("a number of seconds " if allow_inf else "a finite number of seconds ") + (
            "0 or more" if allow_zero else "above 0")
        raise RulesError(f"{name}: expected {expected}{', or inf for no limit' if allow_inf else ''}, "
                         f"got {number_text(value)}")


def number_text(value: float) -> str:
    """A number for a message as a person writes it: ``-0``, ``1000``, ``0.5``, ``1e-05``, ``inf``
    (Python's shortest spelling that reads back the same, less a whole number's ``.0``)."""
    text = repr(value)
    return text.removesuffix(".0")


def check_streak_and_tokens(streak: int, tokens: int | None, rules: str) -> None:
    """``--streak`` and ``--tokens`` (None: the mode's) within 0..``MAX_STREAK`` and 0..``MAX_TOKENS``,
    and no tokens for a variant that has none (the server checks its request fields itself)."""
    for name, value, high in (("--streak", streak, MAX_STREAK), ("--tokens", tokens, MAX_TOKENS)):
        if value is not None and not 0 <= value <= high:
            raise RulesError(f"{name}: expected 0 to {high:,}, got {value}")
    variant_arg(rules).check_tokens(tokens, "--tokens")


def read_text_arg(value: str, what: str) -> str:
    """``-`` is stdin (one input of a command may take it: ``cli_errors``); an existing file
    path is read; anything else is an error. A leading byte-order mark (some editors write
    one) is dropped."""
    what = clipped(what or "the file argument", 80)
    if not value.strip():
        raise FormatError(f"{what}: empty; expected a file name, or - for stdin")
    if value == "-":
        if sys.stdin is None:  # (descriptor 0 closed: Python has no stdin at all)
            raise FormatError(f"{what}: - reads stdin, which is closed; give a file")
        if _a_terminal(sys.stdin):  # (else a command that waits for it looks hung)
            say(f"{what}: reading from the terminal (-: stdin); end with Ctrl-D")
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:  # (a text stream alone: a test's)
            return sys.stdin.read().removeprefix("\ufeff")
        return _decoded(_capped(stream, "stdin", what), "stdin", what)
    path = Path(value)
    shown = clipped(repr(value), 80)
    try:
        with open(path, "rb") as fh:
            return _decoded(_capped(fh, shown, what), shown, what)
    except FileNotFoundError:
        raise FormatError(f"{what}: no such file {shown}") from None
    except IsADirectoryError:
        raise FormatError(f"{what}: {shown} is a folder, not a file") from None
    except OSError as err:
        raise FormatError(f"{what}: cannot read {shown}: {err.strerror or err}") from None


INPUT_MOST = 1 << 30  # bytes an input may hold (a pack of 100,000 levels, generate's most, takes about 300 MB)
INPUT_EXPECTED = "expected a level, pack, board, moves, deals or position file"


def _capped(stream, shown: str, what: str) -> bytes | bytearray:
    """All of ``stream`` up to ``INPUT_MOST`` bytes; more is an error (``/dev/zero`` filled memory).
    A file's size is known at once; a pipe, a device or a terminal is read as it comes (each
    read returns what one read of it gives, so a terminal's Ctrl-D ends it)."""
    most = f"{INPUT_MOST >> 30} GiB" if INPUT_MOST % (1 << 30) == 0 else f"{INPUT_MOST:,} bytes"
    too_big = FormatError(f"{what}: cannot read {shown}: more than {most}; {INPUT_EXPECTED}")
    try:
        info = os.fstat(stream.fileno())
    except (OSError, AttributeError, ValueError):  # (no descriptor: a test's stdin)
        info = None
    if info is not None and stat.S_ISREG(info.st_mode):
        if info.st_size > INPUT_MOST:
            raise too_big
        return stream.read()
    read = getattr(stream, "read1", stream.read)
    data = bytearray()  # (grown in place: a list of chunks joined would hold it twice)
    while chunk := read(1 << 20):
        data += chunk
        if len(data) > INPUT_MOST:
            raise too_big
    return data


def _decoded(data: bytes | bytearray, shown: str, what: str) -> str:
    """UTF-8 text (a leading byte-order mark dropped)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise FormatError(f"{what}: cannot read {shown}: {err}") from None


def read_json_arg(value: str, what: str) -> Any:
    return load_json(read_text_arg(value, what), what)


def read_moves_arg(value: str, option: str) -> tuple[list[Move], str]:
    """The move list a file argument holds (``-``: stdin), and how messages name it: the option
    and the file (``--moves m.json: moves[1]: field 'row' must be an integer``), as a level
    file's messages name the file."""
    data, where = read_named_json(value, option)
    return parse_moves(data, f"{where}: moves"), where


def read_named_json(value: str, option: str) -> tuple[Any, str]:
    """The JSON a file argument holds (``-``: stdin), and how messages name it: the option and
    the file (``--moves m.json``)."""
    where = f"{option} {source_name(value)}"
    return load_json(read_text_arg(value, option), where), where


def source_name(value: str) -> str:
    """How messages name an input file argument: ``stdin`` for ``-``."""
    return "stdin" if value == "-" else value


def refuse_missing_path(value: str, what: str) -> None:
    """A ``FormatError`` when ``value`` is not a file but reads as a path (a folder, a name
    with a suffix like ``.json``, or one starting ``/``, ``./``, ``../`` or ``~``), which board
    text of ten rows never does: better than reporting a missing file as a board of the wrong
    size."""
    refuse_empty(value, what, "a file or board text")
    path = Path(value)
    if is_file(path):
        return
    if is_dir(path):
        raise FormatError(f"{what}: {clipped(repr(value), 80)} is a folder, not a file")
    if value.count("/") == 9:  # ten rows: board text, whose own errors say more
        return
    if value.startswith(("/", "./", "../", "~")) or path.suffix[1:].isalpha():
        raise FormatError(f"{what}: no such file {clipped(repr(value), 80)}")


def is_file(path: Path) -> bool:
    """Whether ``path`` can be read as an input file: a file, or a device or pipe (``/dev/null``,
    ``/dev/stdin``, the ``<(...)`` of a shell), not a folder; False for a name the file system
    refuses (too long, say), which ``Path.exists`` raises for."""
    try:
        return path.exists() and not path.is_dir()
    except OSError:
        return False


def is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False


def refuse_empty(value: str, what: str, expected: str) -> None:
    """A ``FormatError`` for an empty (or blank) option value, saying what it should hold."""
    if not value.strip():
        raise FormatError(f"{what}: empty; expected {expected}")


def out_path(value: str, what: str = "--out") -> Path:
    """An output path option: an empty one is refused (a Path would read it as the working folder),
    and ``-``, which inputs read as stdin (output goes to files only)."""
    refuse_empty(value, what, "a path")
    if value == "-":
        raise FormatError(f"{what}: expected a file or folder name (output is written to files, not to stdout)")
    if _stream_path(value) and not is_dir(Path(value)) and (os.path.isfile(value) or not os.path.exists(value)):
        # /dev/stdout, stdout sent to a file: that file would be replaced (a device: refused as one, later)
        raise FormatError(f"{what}: {clipped(repr(value), 80)} is a stream of this process (/dev/stdout, /dev/fd, "
                          "/proc), which leads to another file (where stdout goes, say); expected a file or folder "
                          "name (output is written to files, not to a stream)")
    return Path(value)


STREAM_FILES = ("/dev/stdin", "/dev/stdout", "/dev/stderr")  # a process's streams, and the folders of them:
STREAM_FOLDERS = ("/dev/fd", "/proc")


def _a_stream(path: str) -> bool:
    return path in STREAM_FILES or any(path == f or path.startswith(f + "/") for f in STREAM_FOLDERS)


def _stream_path(value: str) -> bool:
    """Whether ``value`` names a stream of the process (``/dev/stdout``, ``/dev/fd/N``, anything in
    /proc) as it is followed, a folder and a link at a time (a link's target read before the rest:
    a resolved /proc/self/fd/1 is the file it leads to); /dev/shm and other folders of /dev hold files."""
    pending = [part for part in value.split("/") if part]  # (not abspath: a link is followed before a ..)
    reached, links = ("/" if value.startswith("/") else os.getcwd()), 0
    while pending:
        name = pending.pop(0)
        if name == ".":
            continue
        if name == "..":
            reached = os.path.dirname(reached)
            continue
        place = os.path.join(reached, name)
        if _a_stream(place):
            return True
        if not os.path.islink(place):
            reached = place
            continue
        links += 1
        if links > 40:  # a loop of links: the writing names it
            return False
        target = os.readlink(place)
        pending = [part for part in target.split("/") if part] + pending
        if target.startswith("/"):
            reached = "/"
    return False


def board_arg(value: str | None, what: str = "--board") -> Board:
    """Inline one-line board text, or a file holding board text; default empty."""
    if value is None:
        return Board()
    refuse_empty(value, what, f"{SIZE} rows of {SIZE} characters (leave the option out for an empty board)")
    if value != "-":
        refuse_missing_path(value, what)
    if is_file(Path(value)) or value == "-":
        return parse_board(read_text_arg(value, what), what)
    return board_text_arg(value, what)


def board_text_arg(value: str, what: str) -> Board:
    """Board text given inline; where it is not ten rows it may have been meant as a file name
    (``boards/b1``), so the error says that no such file exists either."""
    try:
        return parse_board(value, what)
    except FormatError as err:
        if value.count("/") == SIZE - 1 or "\n" in value:
            raise
        raise FormatError(f"{err} (nor is {clipped(repr(value), 80)} a file)") from None


def mode_arg(variant: Variant, name: str | None) -> Mode:
    """``--mode``: one of the variant's modes (None: its default)."""
    try:
        return variant.mode(name)
    except RulesError as err:
        raise RulesError(f"--mode: {err}") from None


def variant_arg(name: str) -> Variant:
    """``--rules``: a variant's name."""
    try:
        return find_variant(name)
    except RulesError as err:
        raise RulesError(f"--rules: {err}") from None


def emit_json(data: Any) -> None:
    typer.echo(json.dumps(data, sort_keys=False))


@contextmanager
def naming_option(what: str) -> Iterator[None]:
    """A file-system error inside (one that names a path: a folder that cannot be made, a file
    that cannot be written) as bad input of option ``what``, which the bare error left unsaid."""
    try:
        yield
    except OSError as err:
        if err.filename is None:
            raise
        raise FormatError(f"{what}: {clipped(str(err.filename), 120)}: {err.strerror or err}") from None


def write_atomically(path: Path, text: str) -> None:
    """Write to a temporary file beside ``path``, then rename: never a half-written file."""
    write_files_atomically({Path(path): text.encode("utf-8")})


def refuse_file_in_path(path: Path) -> None:
    """An ``OSError`` naming the nearest existing folder of ``path`` when it is a file (else the
    folders to create would fail with a bare "File exists")."""
    for folder in path.parents:
        if folder.exists():
            if not folder.is_dir():
                raise OSError(errno.ENOTDIR, "is a file, not a folder", str(folder))
            return


def write_files_atomically(files: Mapping[Path, bytes | Callable[[], bytes] | None]) -> None:
    """Write several files all or none, each given as its bytes or as a function that makes them
    (called as the file is written, so that many big files need not all be in memory at once;
    an error it raises undoes the writing as any other does), or as None for a file to remove
    with them (where there is one): each goes to a temporary file beside its place, and only
    when every one is written (and flushed to the disk) are they renamed into place, each old
    file kept aside (a second link to it) until all are; a failure on the way (a full disk, a
    file that may not be replaced, Ctrl-C) undoes the renames already done, restores the old
    files and removes the folders it created. Each place holds its old file or its new one at
    every moment, a kill included (SIGKILL or a power cut then leaves some places new, the
    others old, and the temporary files). A place that is a folder is refused before anything is
    written; a place that is a symbolic link is written through (the file it points to is
    replaced, the link kept). An error names the place, never a temporary file."""
    places = {Path(os.path.realpath(path)) if Path(path).is_symlink() else Path(path): data
              for path, data in files.items() if data is not None}
    # a file to remove is one where there is one (a link: the link itself), and none written here
    # (through a link to it); a folder is left be
    written = {_located(path) for path in places}
    removed = [Path(path) for path, data in files.items() if data is None and _located(Path(path)) not in written
               and (Path(path).is_symlink() or Path(path).is_file())]
    for path in places:
        if path.is_dir():
            raise OSError(errno.EISDIR, "is a folder, not a file", str(path))
        if path.exists() and not path.is_file():  # a device or a pipe: a rename would replace it
            raise OSError(errno.EINVAL, "is not a regular file (a device or a pipe); expected a file to write",
                          str(path))
        refuse_file_in_path(path)
    created: list[Path] = []  # folders made here, outermost first
    staged: list[tuple[str, Path]] = []
    moved: list[tuple[Path, str | None]] = []  # (place, where its old file was set aside)
    done = False
    # Each step is noted before it is taken, so that a Ctrl-C (a KeyboardInterrupt between any
    # two steps) finds it in the lists the cleanup below undoes; undoing a step not yet taken
    # fails quietly.
    try:
        for path, data in places.items():
            with _naming(path):
                for folder in reversed(path.parents):
                    if not folder.exists():
                        created.append(folder)
                        folder.mkdir(exist_ok=True)  # exist_ok: made meanwhile by another
                tmp = _temporary(path)
                staged.append((tmp, path))
                with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as fh:
                    fh.write(data if isinstance(data, bytes) else data())
                    fh.flush()
                    os.fsync(fh.fileno())  # on the disk before its name is: a crash leaves no empty file
                os.chmod(tmp, _new_file_mode(path))
        for tmp, path in staged:
            with _naming(path):
                old = tmp + ".old" if path.exists() else None
                moved.append((path, old))
                if old:
                    _keep_aside(path, old)
                os.replace(tmp, path)  # (atomic: the place never lacks a file)
        for path in removed:  # set aside as a replaced file is, so that a failure puts it back
            with _naming(path):
                old = _temporary(path) + ".old"
                moved.append((path, old))
                try:
                    os.replace(path, old)
                except FileNotFoundError:  # removed meanwhile: nothing to remove, nor to put back
                    moved.pop()
        for folder in {path.parent for _, path in staged} | {path.parent for path in removed}:
            _quietly(_sync_folder, folder)  # the renames on the disk too
        done = True
    finally:
        if not done:
            for path, old in reversed(moved):  # back as it was, as far as the file system lets
                if old and os.path.exists(old):
                    _quietly(_put_back, old, path)
                elif not old:
                    _quietly(os.unlink, path)
        for tmp, _ in staged:
            _quietly(os.unlink, tmp)
        for _, old in moved:
            if old and done:
                _quietly(os.unlink, old)
        if not done:
            for folder in reversed(created):
                _quietly(os.rmdir, folder)


TEMPORARY_NAME_MOST = 200  # bytes of a place's name kept in its temporary files' names (a name holds 255)


def _temporary(path: Path) -> str:
    """A new temporary file's name beside ``path``: ``.NAME.HEX.tmp`` (and its ``.old``) within a
    file name's 255 bytes, however long NAME is."""
    name = os.fsdecode(os.fsencode(path.name)[:TEMPORARY_NAME_MOST])
    return str(path.parent / f".{name}.{secrets.token_hex(6)}.tmp")


def _keep_aside(path: Path, old: str) -> None:
    """The file at ``path`` also at ``old`` (a hard link), so that replacing ``path`` leaves no
    moment without a file there; where the file system has no hard links, moved there."""
    try:
        os.link(path, old, follow_symlinks=False)
    except OSError as err:
        if err.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.EXDEV):
            raise
        os.replace(path, old)


def _put_back(old: str, path: Path) -> None:
    """The file kept aside at ``old`` back at ``path``; where ``path`` was not yet replaced (still
    the same file: a rename between two links to it does nothing), the spare link removed."""
    os.replace(old, path)
    if os.path.exists(old) and os.path.samefile(old, path):
        os.unlink(old)


def _sync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _located(path: Path) -> Path:
    """Where ``path`` names a file: its folder resolved, its own name kept (a link is not followed)."""
    return Path(os.path.realpath(path.parent)) / path.name


@contextmanager
def _naming(path: Path):
    """An ``OSError`` inside names ``path`` (not a temporary file, nor nothing: a full disk's
    error names no file)."""
    try:
        yield
    except OSError as err:
        raise OSError(err.errno, err.strerror or str(err), str(path)) from None


def _quietly(call, *args) -> None:
    try:
        call(*args)
    except OSError:
        pass


def _new_file_mode(path: Path) -> int:
    """The mode a plain open() would give: the old file's (a temporary file is made new), else 0o666 less the umask."""
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0o022)
        os.umask(umask)
        return 0o666 & ~umask


def progress(iterable=None, length: int | None = None, label: str = ""):
    """A progress bar on stderr; off a terminal (a pipe, a log file) nothing at all, where typer's
    bar would still print its label."""
    return typer.progressbar(iterable, length=length, label=label, file=sys.stderr, hidden=not terminal())


def echo_above_progress(text: str) -> None:
    """A line of output while a progress bar is drawn: the bar's line is cleared first (it is
    drawn again at its next step), so that the two do not share a line of the terminal."""
    if terminal():
        sys.stderr.write("\r\033[K")
        sys.stderr.flush()
    typer.echo(text)


class SearchStatus:
    """A one-line live status of a level's search: seconds, nodes and the best score so far,
    redrawn in place at most every ``every`` seconds; ``close`` erases it. A ``watch.WATCHERS``
    entry; a node count that falls means a new search began (``solve --method auto``: CP-SAT
    after the search), and adds on.
    CP-SAT's ticks count no nodes: while none are counted the line shows the seconds alone (and
    a best if one was given), not "0.0 M nodes"."""

    def __init__(self, label: str, stream: TextIO, clock=time.monotonic, every: float = STATUS_EVERY,
                 scores: bool = True) -> None:
        self.label, self.stream, self.clock, self.every = label, stream, clock, every
        self.scores = scores  # False: a search with no score to show (Ten's)
        self.start = self.shown = clock()
        self.base = self.last = 0
        self.best: int | None = None
        self.width = 0

    def __call__(self, nodes: int, best: int | None) -> None:
        if nodes < self.last:
            self.base += self.last
        self.last = nodes
        if best is not None and (self.best is None or best > self.best):
            self.best = best
        now = self.clock()
        if now - self.shown < self.every:
            return
        self.shown = now
        text = f"{self.label}: {now - self.start:.1f} s"
        if self.base + nodes:
            text += f", {(self.base + nodes) / 1e6:.1f} M nodes"
            if self.scores:
                text += f", best {'-' if self.best is None else self.best}"
        elif self.best is not None:
            text += f", best {self.best}"
        self.stream.write("\r" + text.ljust(self.width))
        self.stream.flush()
        self.width = len(text)

    def close(self) -> None:
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()


class Interrupt:
    """Ctrl-C while a search runs: the first press asks it to stop and answer with what it has
    (a ``bound`` answer with the best line so far, as when its time runs out); a second one
    aborts (a KeyboardInterrupt: "interrupted", exit 130), except inside a compiled search, which
    stops by itself at its next clock check. A ``watch.WATCHERS`` entry and the SIGINT handler."""

    def __init__(self) -> None:
        self.requested = False

    def __call__(self, nodes: int, best: int | None) -> bool:
        return self.requested

    def handle(self, signum, frame) -> None:
        if self.requested and not watch.in_compiled:
            watch.interrupt(frame)
        self.requested = True


def terminal() -> bool:
    """Whether stderr is a terminal (not when it is closed: None, or a file that fails)."""
    return _a_terminal(sys.stderr)


@contextmanager
def live_status(label: str, status: bool = True, scores: bool = True):
    """A ``SearchStatus`` on stderr for the block when ``status`` and stderr is a terminal (like
    the progress bars: logs and pipes get nothing)."""
    line = SearchStatus(label, sys.stderr, every=STATUS_EVERY, scores=scores) if status and terminal() else None
    if line is not None:
        watch.WATCHERS.append(line)
    try:
        yield
    finally:
        if line is not None:
            watch.WATCHERS.remove(line)
            line.close()


@contextmanager
def searching(label: str, status: bool = True, scores: bool = True):
    """Run a search block that Ctrl-C stops gently (yields the ``Interrupt``), with a
    ``live_status``."""
    interrupt = Interrupt()
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, interrupt.handle) if main_thread else None
    watch.WATCHERS.append(interrupt)
    try:
        with live_status(label, status, scores):
            yield interrupt
    finally:
        watch.WATCHERS.remove(interrupt)
        if main_thread:
            signal.signal(signal.SIGINT, previous)


def interrupted(what: str = "") -> None:
    """Say what an interrupted command got done, and exit 130."""
    global interrupt_said
    interrupt_said = True
    say(f"interrupted: {what}" if what else "interrupted")
    raise typer.Exit(EXIT_INTERRUPTED)


interrupt_said = False  # whether ``interrupted`` spoke (typer's own exit 130 for Ctrl-C says nothing)


class FlagsGroup(TyperGroup):
    """A command group whose help shows a flag (``--json``, ``--help``) as a flag: typer 0.29
    writes ``--json <bool>``, as if it took a value, which ``--json true`` then refuses."""

    def get_params(self, ctx):
        return _flags_take_no_value(super().get_params(ctx))

    def get_command(self, ctx, name):
        command = super().get_command(ctx, name)
        if command is not None:
            _flags_take_no_value(command.get_params(ctx))
        return command


def _flags_take_no_value(params: list) -> list:
    for param in params:
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""  # (the help's type column: empty)
    return params
