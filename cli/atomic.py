"""Writing files all or none: each to a temporary file beside its place, renamed into place
only when every one is written, so that no reader ever sees a half-written file."""

from __future__ import annotations

import errno
import os
import secrets
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Mapping


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
