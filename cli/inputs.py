"""Reading a command's inputs: a file argument or ``-`` (stdin), capped in size and read as
UTF-8; JSON, moves and boards from them; and output paths checked before anything is written."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import Any

from cli.console import is_terminal, say
from solver.board import SIZE, Board, parse_board
from solver.errors import FormatError, clipped
from solver.jsontext import load_json
from solver.moves import Move, parse_moves


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
        if is_terminal(sys.stdin):  # (else a command that waits for it looks hung)
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
