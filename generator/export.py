"""Export a level or pack to the files game clients and designers use: json, tmj, tmx, svg, png.

``export_plan`` is pure: it returns {path: the function that makes the file's bytes}, and the CLI
makes each file as it writes it (a pack's files are never all in memory at once).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import partial
from pathlib import Path

from solver.errors import FormatError
from solver.level import Level, Pack, pick_level
from solver.schema import validate_schema

from . import tiled
from .canvas import to_png, to_svg
from .frames import solution_frames
from .picture import level_picture

FORMATS = ("json", "tmj", "tmx", "svg", "png")


def check_format(fmt: str) -> None:
    if fmt not in FORMATS:
        raise FormatError(f"--format: expected one of {', '.join(FORMATS)}, got {fmt!r}")


def level_json(level: Level) -> str:
    """The canonical level file, checked against the level schema before it is written."""
    data = level.to_json()
    validate_schema(data, "level", f"level {level.id}")
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def level_bytes(level: Level, fmt: str, with_solution: bool = False, pack_id: str | None = None) -> bytes:
    """One level in ``fmt``; ``with_solution`` adds the solution strip to svg and png pictures."""
    check_format(fmt)
    if fmt == "json":
        return level_json(level).encode("utf-8")
    if fmt == "tmj":
        return tiled.tmj_text(level, pack_id).encode("utf-8")
    if fmt == "tmx":
        return tiled.tmx_text(level, pack_id).encode("utf-8")
    if fmt == "svg":
        return to_svg(level_picture(level, with_solution)).encode("utf-8")
    return to_png(level_picture(level, with_solution))  # png


def file_stem(level_id: str) -> str:
    """A file name for a level id: anything but letters, digits, ``.``, ``_`` and ``-`` becomes ``_``."""
    stem = re.sub(r"[^A-Za-z0-9._-]", "_", level_id).lstrip(".")
    return stem or "level"


def export_plan(item: Level | Pack, fmt: str, out: Path, with_solution: bool = False,
                level_id: str | None = None) -> dict[Path, Callable[[], bytes]]:
    """What to write where: {path: a function that makes its bytes}.

    A level, or a pack with ``level_id``, goes to the file ``out``. A pack
    without ``level_id`` gives one file per level in the folder ``out``,
    named by level id. Tiled maps bring the tileset picture they refer to,
    written beside them. What makes the export fail (a format, a level
    without the solution asked for, a solution the rules refuse, two levels
    to one file) fails here, before any file is made.
    """
    check_format(fmt)
    pack_id = item.id if isinstance(item, Pack) else None
    if isinstance(item, Pack) and level_id is None:
        if not item.levels:
            raise FormatError(f"pack {item.id}: has no levels to export")
        targets = {}
        by_name: dict[str, Level] = {}  # (names that differ in case alone are one file on macOS and Windows)
        for level in item.levels:
            path = out / f"{file_stem(level.id)}.{fmt}"
            other = by_name.setdefault(path.name.lower(), level)
            if other is not level:
                raise FormatError(f"levels {other.id!r} and {level.id!r} would both be written to {path.name}"
                                  + ("" if file_stem(other.id) == file_stem(level.id) else
                                     " (on file systems that ignore case)"))
            targets[path] = level
    else:
        targets = {out: item if level_id is None else pick_level(item, level_id)}
    for level in targets.values():
        if with_solution and level.solution is None:
            raise FormatError(f"--solution: level {level.id} has no solution")
        if level.solution is not None:
            solution_frames(level)  # a client is never sent a solution the rules refuse: names the move
    files = {path: partial(level_bytes, level, fmt, with_solution, pack_id) for path, level in targets.items()}
    if fmt in ("tmj", "tmx"):
        tileset = next(iter(files)).parent / tiled.TILESET_IMAGE
        if tileset in files:
            raise FormatError(f"{tileset}: is the tileset picture's name; choose another --out")
        files[tileset] = tiled.tileset_png
    return files
