"""``tenfold export`` (level files for game clients and pictures) and ``tenfold render`` (the HTML page of a
pack or a level)."""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Callable, Optional

import typer

from cli.atomic import write_files_atomically
from cli.common import cli_errors, naming_option
from cli.inputs import out_path, read_json_arg, source_name
from generator.export import FORMATS, check_format, export_plan
from generator.render import PAGE_LEVELS, PAGE_NAME, pack_pages
from solver.errors import FormatError, RulesError
from solver.level import Pack, parse_level_or_pack

PICTURES = ("svg", "png")  # the formats --solution draws into


@cli_errors
def export(
    source: Annotated[str, typer.Argument(help="a level or pack JSON file (- for stdin)",
                                          metavar="LEVEL_OR_PACK.json")],
    fmt: Annotated[str, typer.Option("--format", help=" | ".join(FORMATS))],
    out: Annotated[str, typer.Option(help="the file to write; for a whole pack, the folder")],
    level: Annotated[Optional[str], typer.Option(help="export only this level of a pack")] = None,
    solution: Annotated[bool, typer.Option("--solution", help="svg/png: add the board after each move")] = False,
) -> None:
    """Export a level (or every level of a pack) as json, a Tiled map (tmj, tmx) or a picture (svg, png)."""
    check_format(fmt)  # said first: --solution's refusal named the format as if it were one
    if solution and fmt not in PICTURES:
        raise FormatError(f"--solution: draws the solution's boards, for {' and '.join(PICTURES)} only "
                          f"(a {fmt} file carries the solution's moves as they are)")
    raw_out, out = out, out_path(out)  # Path drops a trailing slash, which asks for a folder
    name = source_name(source)
    item = parse_level_or_pack(read_json_arg(source, name), name)
    if isinstance(item, Pack) and level is None:
        if out.exists() and not out.is_dir():
            raise FormatError(f"--out: {out} is {_kind(out)}; a whole pack needs a folder (or pass --level)")
        if not out.exists() and out.suffix[1:].lower() in FORMATS:  # it made a folder named pack.json
            raise FormatError(f"--out: {raw_out} names a {out.suffix} file; a whole pack is written as a file per "
                              "level into a folder: give the folder (or pass --level)")
    elif out.is_dir() or raw_out.endswith(("/", "\\")):
        raise FormatError(f"--out: {raw_out} is a folder; one level needs a file name")
    elif out.suffix[1:].lower() in FORMATS and out.suffix[1:].lower() != fmt:  # an svg in x.png: a broken picture
        raise FormatError(f"--out: {raw_out} names a {out.suffix} file, but --format is {fmt}: give a .{fmt} "
                          f"name (or --format {out.suffix[1:].lower()})")
    with naming_source(name):
        files = export_plan(item, fmt, out, solution, level)
    if source != "-":
        refuse_overwriting(files, Path(source))
    with naming_option("--out"), naming_source(name):
        write_files_atomically(files)
    typer.echo(f"wrote {len(files)} file{'s' if len(files) != 1 else ''}: {', '.join(str(p) for p in files)}"
               if len(files) <= 4 else f"wrote {len(files)} files to {out}")


def refuse_overwriting(files: dict, source: Path) -> None:
    """A ``FormatError`` when a file to write is the source being exported (it would be lost)."""
    for path in files:
        if path.exists() and source.exists() and os.path.samefile(path, source):
            raise FormatError(f"--out: {path} is the file being exported; choose another name")


@cli_errors
def render(
    source: Annotated[str, typer.Argument(help="a pack or level JSON file (- for stdin)",
                                          metavar="PACK_OR_LEVEL.json")],
    out: Annotated[str, typer.Option(help="folder for index.html")],
) -> None:
    """Write a static, offline HTML page of a pack or one level.

    The page shows each level's picture, grades, goals and stars, and steps through its solution."""
    out = out_path(out)
    name = source_name(source)
    item = parse_level_or_pack(read_json_arg(source, name), name)
    if not isinstance(item, Pack):  # one level: a page of its own
        item = Pack(item.id, f"level {item.id}", {}, [item])
    if not item.levels:  # (as export and solve refuse one: a page of nothing is no preview)
        raise FormatError(f"{name}: field levels: pack {item.id!r} has no levels to render")
    if out.exists() and not out.is_dir():
        raise FormatError(f"--out: {out} is {_kind(out)}, expected a folder")
    pages: dict[Path, Callable[[], bytes] | None] = {
        out / name: (lambda make=make: make().encode("utf-8")) for name, make in pack_pages(item).items()}
    # an earlier render's pages past this one's last go with the writing: they would link to these
    stale = {page: None for page in (out.glob("page-*.html") if out.is_dir() else ())
             if PAGE_NAME.fullmatch(page.name) and page not in pages}
    with naming_option("--out"), naming_source(name):
        write_files_atomically({**pages, **stale})
    more = len(pages) - 1
    typer.echo(f"wrote {out / 'index.html'}" + (f" and {more} more page{'s' if more > 1 else ''} "
                                                  f"({PAGE_LEVELS} levels a page)" if more else ""))


@contextmanager
def naming_source(name: str):
    """A refused move of a level's stored solution, found as its file is made, names the file it
    came from (as verify's one line per file does)."""
    try:
        yield
    except RulesError as err:
        raise RulesError(f"{name}: {err}") from None


def _kind(path: Path) -> str:
    """What ``path``, which is not a folder, is: a file, or a device or pipe (``/dev/null``)."""
    return "a file" if path.is_file() else "not a folder but a device or a pipe"


def register(app: typer.Typer) -> None:
    app.command()(export)
    app.command()(render)
