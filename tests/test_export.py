"""tenfold export: canonical json, Tiled maps (read back by pytiled-parser and pytmx), svg and png pictures."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

import export_fixtures as fx
from cli.main import app
from solver.level import parse_level, parse_level_or_pack, parse_pack, play_solution
from solver.moves import parse_moves

runner = CliRunner()
KIND_OF_CHAR = {".": "empty", "#": "tile", "S": "stone", "P": "pumpkin"}


@pytest.fixture(scope="module")
def pack_file(tmp_path_factory) -> Path:
    return fx.write_json(tmp_path_factory.mktemp("src") / "pack.json", fx.pack())


@pytest.fixture(scope="module")
def pack(pack_file):
    return parse_pack(json.loads(pack_file.read_text()))


SHIPPED = sorted(p.name for p in (Path(__file__).resolve().parents[1] / "levels").glob("*.json"))


@pytest.fixture(scope="module", params=["fixture", *SHIPPED])
def any_pack_file(request, pack_file) -> Path:
    """The hand-made fixture pack, then every pack shipped in levels/."""
    if request.param == "fixture":
        return pack_file
    return Path(__file__).resolve().parents[1] / "levels" / request.param


@pytest.fixture(scope="module")
def any_pack(any_pack_file):
    return parse_pack(json.loads(any_pack_file.read_text()))


def export(*args: str):
    result = runner.invoke(app, ["export", *map(str, args)])
    return result


def exported(pack_file: Path, out: Path, fmt: str, *extra: str) -> Path:
    result = export(pack_file, "--format", fmt, "--out", out, *extra)
    assert result.exit_code == 0, result.output
    return out


def test_json_export_is_canonical_and_valid(pack_file, pack, tmp_path):
    out = exported(pack_file, tmp_path / "json", "json")
    for level in pack.levels:
        data = json.loads((out / f"{level.id.replace(' ', '_')}.json").read_text())
        assert data == level.to_json()
        again = parse_level(data)  # schema and the rest of the checks
        assert again.board == level.board and again.trays == level.trays
    h1 = json.loads((out / "h1.json").read_text())
    assert h1["grade"] == "easy" and h1["stars"] == [10, 40, 80]  # unknown fields are kept


def _tiled_kinds(tiled_map) -> dict[int, str]:
    tileset_first_gid, tileset = next(iter(tiled_map.tilesets.items()))
    return {tileset_first_gid + tile_id: tile.properties["kind"] for tile_id, tile in tileset.tiles.items()}


@pytest.mark.parametrize("fmt", ["tmj", "tmx"])
def test_tiled_maps_load_in_pytiled_parser_cell_by_cell(any_pack_file, any_pack, tmp_path, fmt):
    import pytiled_parser

    pack = any_pack
    out = exported(any_pack_file, tmp_path / fmt, fmt)
    assert (out / "tenfold-tiles.png").is_file()
    for level in pack.levels:
        tiled_map = pytiled_parser.parse_map(out / f"{level.id.replace(' ', '_')}.{fmt}")
        assert (tiled_map.map_size.width, tiled_map.map_size.height) == (10, 10)
        kinds = _tiled_kinds(tiled_map)
        assert len(set(kinds.values())) == 4  # empty, tile, stone, pumpkin: distinct tiles
        board = next(layer for layer in tiled_map.layers if layer.name == "board")
        for r, row in enumerate(level.board.rows()):
            for c, ch in enumerate(row):
                assert kinds[board.data[r][c]] == KIND_OF_CHAR[ch], (level.id, r, c)
        trays = next(layer for layer in tiled_map.layers if layer.name == "trays")
        pieces = [(o.properties["tray"], o.properties["slot"], o.name) for o in trays.tiled_objects]
        assert pieces == [(t, i, p) for t, tray in enumerate(level.spelled_trays) for i, p in enumerate(tray)]
        props = tiled_map.properties
        assert props["limit"] == level.limit and props["tokens"] == level.tokens
        assert json.loads(props["goals"]) == level.goals
        if level.best:
            assert props["best_score"] == level.best["score"]
        assert props["level_id"] == level.id and props["pack_id"] == pack.id


def test_tmx_loads_in_pytmx_cell_by_cell(any_pack_file, any_pack, tmp_path):
    import pytmx

    pack = any_pack
    out = exported(any_pack_file, tmp_path / "tmx", "tmx")
    for level in pack.levels:
        tmx = pytmx.TiledMap(str(out / f"{level.id.replace(' ', '_')}.tmx"))
        board = tmx.get_layer_by_name("board")
        layer_index = tmx.layers.index(board)
        for r, row in enumerate(level.board.rows()):
            for c, ch in enumerate(row):
                assert tmx.get_tile_properties(c, r, layer_index)["kind"] == KIND_OF_CHAR[ch], (level.id, r, c)
        names = [o.name for o in tmx.get_layer_by_name("trays")]
        assert names == [p for tray in level.spelled_trays for p in tray]
        assert tmx.properties["limit"] == level.limit
        if level.best:
            assert tmx.properties["best_score"] == level.best["score"]


def test_single_level_export_and_level_option(pack_file, pack, tmp_path):
    out = exported(pack_file, tmp_path / "one" / "s1.tmj", "tmj", "--level", "s1")
    data = json.loads(out.read_text())
    assert [p["value"] for p in data["properties"] if p["name"] == "level_id"] == ["s1"]
    assert (out.parent / "tenfold-tiles.png").is_file()
    assert data["layers"][0]["data"].count(3) == 4  # the Sultan's four stones
    assert "compression" not in json.dumps(data["layers"][0])  # CSV (a plain array), never compressed


def _svg_size(path: Path) -> tuple[int, int]:
    root = ET.parse(path).getroot()
    return int(root.get("width")), int(root.get("height"))


def test_svg_and_png_pictures(pack_file, pack, tmp_path):
    from PIL import Image

    from generator.picture import COLOURS, level_picture

    svg = exported(pack_file, tmp_path / "h1.svg", "svg", "--level", "h1")
    png = exported(pack_file, tmp_path / "h1.png", "png", "--level", "h1")
    level = pack.level("h1")
    scene = level_picture(level)
    assert _svg_size(svg) == (scene.width, scene.height)
    rects = ET.parse(svg).getroot().findall("{http://www.w3.org/2000/svg}rect")
    assert len(rects) >= 101  # background, grid and 100 cells at least
    with Image.open(png) as image:
        image.load()
        assert image.format == "PNG" and image.size == (scene.width, scene.height)
        # the stone in the top-left cell, drawn in the stone colour
        cell = next(s for s in scene.shapes if getattr(s, "fill", None) == COLOURS["S"])
        rgb = image.convert("RGB").getpixel((cell.x + cell.w // 2, cell.y + cell.h // 2))
        assert "#%02x%02x%02x" % rgb == COLOURS["S"]


def test_solution_strip_has_a_frame_per_move(pack_file, pack, tmp_path):
    from PIL import Image

    plain = exported(pack_file, tmp_path / "plain.png", "png", "--level", "h1")
    strip = exported(pack_file, tmp_path / "strip.png", "png", "--level", "h1", "--solution")
    svg = exported(pack_file, tmp_path / "strip.svg", "svg", "--level", "h1", "--solution")
    with Image.open(plain) as a, Image.open(strip) as b:
        assert b.size[1] > a.size[1]
        assert b.size == _svg_size(svg)
    text = svg.read_text()
    moves = pack.level("h1").solution
    assert f"solution: {len(moves)} moves" in text
    for i, move in enumerate(moves, 1):
        assert f"{i}. {move.piece} at {move.row},{move.col}" in text


def test_export_whole_pack_writes_one_file_per_level(pack_file, pack, tmp_path):
    out = exported(pack_file, tmp_path / "pngs", "png")
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{lv.id.replace(' ', '_')}.png" for lv in pack.levels)


def test_export_single_level_file(tmp_path):
    src = fx.write_json(tmp_path / "level.json", fx.halloween_level("solo"))
    out = exported(src, tmp_path / "solo.json", "json")
    assert parse_level_or_pack(json.loads(out.read_text())).id == "solo"


@pytest.mark.parametrize(
    "args, message",
    [
        (["--format", "gif"], "--format"),
        (["--format", "svg", "--level", "nope"], "no level with id 'nope'"),
        (["--format", "png", "--solution"], "has no solution"),
    ],
)
def test_export_bad_input_is_one_line_exit_2(pack_file, tmp_path, args, message):
    result = export(pack_file, "--out", tmp_path / "x", *args)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists() or not any((tmp_path / "x").iterdir())


def test_export_malformed_file_is_exit_2(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "tenfold.level/1", "id": "x"')
    result = export(bad, "--format", "json", "--out", tmp_path / "o.json")
    assert result.exit_code == 2 and "invalid JSON" in result.output
    data = fx.halloween_level()
    data["board"][3] = "..X......."
    bad.write_text(json.dumps(data))
    result = export(bad, "--format", "tmx", "--out", tmp_path / "o.tmx")
    assert result.exit_code == 2 and "board" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("pack", ["halloween-2026.json", "sultan-2026.json"])
@pytest.mark.parametrize("with_solution", [False, True])
def test_every_text_fits_the_picture(pack, with_solution):
    """No fact beside the board runs off the picture (the goals line of a Halloween level did),
    measured with the font the PNG draws in."""
    from PIL import Image, ImageDraw

    from generator.canvas import Text, _font
    from generator.picture import level_picture

    draw = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    levels = parse_pack(json.loads((Path(__file__).parents[1] / "levels" / pack).read_text())).levels
    for level in levels:
        scene = level_picture(level, with_solution=with_solution)
        for shape in scene.shapes:
            if isinstance(shape, Text) and shape.anchor == "start":
                right = shape.x + draw.textlength(shape.text, font=_font(shape.size, shape.bold))
                assert right <= scene.width, (level.id, shape.text, right, scene.width)


@pytest.mark.parametrize("fmt", ["json", "tmj", "tmx"])
def test_solution_strip_is_for_pictures_only(tmp_path, fmt):
    src = fx.write_json(tmp_path / "pack.json", fx.pack())
    result = CliRunner().invoke(app, ["export", str(src), "--format", fmt, "--out", str(tmp_path / "o"), "--solution"])
    assert result.exit_code == 2 and "--solution" in result.output and "svg and png only" in result.output
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("fmt", ["json", "tmj", "tmx", "svg", "png"])
@pytest.mark.parametrize("fault", ["overlap", "not in the tray", "past the trays"])
def test_a_stored_solution_the_rules_refuse_is_not_exported(tmp_path, fmt, fault):
    """A game client is never sent a solution that breaks the rules: every format refuses the pack,
    naming the file, the level and the move as verify does, and writes nothing (json, tmj and tmx
    carry the moves as they are)."""
    data = fx.pack()
    solution = data["levels"][1]["solution"]  # s1: the Sultan level
    bad = {"overlap": 1, "not in the tray": 2, "past the trays": len(solution)}[fault]
    if fault == "overlap":
        solution[bad] = {**solution[0]}  # the first move's spot, taken since
    elif fault == "not in the tray":
        solution[bad] = {**solution[bad], "piece": "1x1"}  # neither tray deals it
    else:
        solution.append({**solution[-1]})
    src = fx.write_json(tmp_path / "pack.json", data)
    for extra in ([], ["--level", "s1"]):
        out = tmp_path / ("one." + fmt if extra else "all")
        result = CliRunner().invoke(app, ["export", str(src), "--format", fmt, "--out", str(out), *extra])
        assert result.exit_code == 2, result.output
        assert result.output.startswith(f"error: {src}: level s1: solution[{bad}]: illegal: ")  # as verify
        assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output
        assert not out.exists() and not (tmp_path / "tileset.png").exists()
    # the same pack, the level's solution fixed, exports
    data["levels"][1]["solution"] = fx.pack()["levels"][1]["solution"]
    fx.write_json(src, data)
    assert CliRunner().invoke(app, ["export", str(src), "--format", fmt, "--out", str(tmp_path / "all")]).exit_code == 0


@pytest.mark.parametrize("fmt", ["tmj", "tmx"])
def test_tiled_maps_name_pieces_as_the_level_does_and_keep_its_grade(tmp_path, fmt):
    """A level spelling pieces as masks keeps them so in the map (trays, reserve, solution, the
    tray objects), as its json export does; grade, difficulty and stars are map properties."""
    import pytiled_parser

    data = {"format": "tenfold.level/1", "id": "spelled", "variant": "sudoku", "mode": "classic",
            "board": ["." * 10] * 10, "trays": [["#/#", ".#/.#", "2x2"]], "reserve": ["###", "1x1"],
            "goals": [{"score": 1}], "tokens": 1,
            "solution": [{"piece": "#/#", "row": 0, "col": 0}, {"piece": ".#/.#", "row": 5, "col": 5}],
            "grade": "medium", "difficulty": 0.4125, "stars": [1, 5, 9]}
    src = fx.write_json(tmp_path / "level.json", data)
    out = exported(src, tmp_path / f"spelled.{fmt}", fmt)
    tiled_map = pytiled_parser.parse_map(out)
    props = tiled_map.properties
    assert json.loads(props["trays"]) == data["trays"] and json.loads(props["reserve"]) == data["reserve"]
    assert json.loads(props["solution"]) == data["solution"]
    assert (props["grade"], props["difficulty"], json.loads(props["stars"])) == ("medium", 0.4125, [1, 5, 9])
    objects = next(layer for layer in tiled_map.layers if layer.name == "trays").tiled_objects
    assert [o.name for o in objects] == data["trays"][0] == [o.properties["piece"] for o in objects]
    level = parse_level(data)
    assert play_solution(level, parse_moves(json.loads(props["solution"]))).ok


def test_tray_slots_fit_a_levels_own_wide_pieces():
    """A mask may be 10 cells wide: the Tiled tray objects of one tray never overlap."""
    from generator.tiled import tray_objects

    data = {"format": "tenfold.level/1", "id": "wide", "variant": "halloween", "mode": "campaign",
            "board": ["." * 10] * 10, "trays": [["#" * 10, "3x3", "#/#/#/#/#/#/#"]], "goals": [{"score": 1}]}
    objects = tray_objects(parse_level(data))
    spans = sorted((o["x"], o["x"] + o["width"]) for o in objects)
    assert all(right <= left for (_, right), (left, _) in zip(spans, spans[1:])), spans
    tops = sorted((o["y"], o["y"] + o["height"]) for o in objects)
    assert len({top for top, _ in tops}) == 1  # one tray, one row


def test_an_unknown_format_is_named_before_the_solution_strip(tmp_path):
    """``--format bmp --solution`` said --solution was for svg and png only ('a bmp file carries
    the solution's moves as they are'), as if bmp were a format (a docs audit)."""
    src = fx.write_json(tmp_path / "pack.json", fx.pack())
    for extra in ([], ["--solution"]):
        result = CliRunner().invoke(app, ["export", str(src), "--format", "bmp", "--out", str(tmp_path / "o"), *extra])
        assert result.exit_code == 2, result.output
        assert result.output == "error: --format: expected one of json, tmj, tmx, svg, png, got 'bmp'\n"
        assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("first, second, clash", [("a/b", "a_b", ""), ("hidden", ".hidden", ""),
                                                   ("Lvl", "lvl", " (on file systems that ignore case)")])
def test_two_levels_that_would_share_a_file_are_refused(tmp_path, first, second, clash):
    """Level ids map to file names (``export.file_stem``): two that map to one name, or to names
    that differ in case alone (one file on macOS and Windows), are refused before anything is
    written, naming both levels."""
    data = fx.pack()
    data["levels"] = [fx.halloween_level(first), fx.halloween_level(second)]
    src = fx.write_json(tmp_path / "pack.json", data)
    for fmt in ("json", "svg"):
        result = export(src, "--format", fmt, "--out", tmp_path / "out")
        assert result.exit_code == 2, result.output
        name = f"{second.lstrip('.').replace('/', '_')}.{fmt}"
        assert result.output == f"error: levels {first!r} and {second!r} would both be written to {name}{clash}\n"
        assert not (tmp_path / "out").exists()
    data["levels"][1]["id"] = "other"
    assert exported(fx.write_json(tmp_path / "pack.json", data), tmp_path / "out", "json").is_dir()


def test_one_levels_file_named_for_another_format_is_refused(tmp_path):
    """``--format svg --out x.png`` wrote an svg into x.png (a picture no viewer opens): a name
    with another format's extension is refused before anything is written; one with an extension
    of no format of ours (or none) is the user's to choose."""
    src = fx.write_json(tmp_path / "level.json", fx.halloween_level("solo"))
    for fmt, name in (("svg", "x.png"), ("json", "x.tmj"), ("tmx", "x.JSON")):
        result = export(src, "--format", fmt, "--out", tmp_path / name)
        suffix = name.partition(".")[2]
        assert result.exit_code == 2 and result.output == (
            f"error: --out: {tmp_path / name} names a .{suffix} file, but --format is {fmt}: give a .{fmt} name "
            f"(or --format {suffix.lower()})\n"), result.output
        assert not (tmp_path / name).exists()
    for name in ("x.SVG", "x.picture", "x"):
        assert "<svg " in exported(src, tmp_path / name, "svg").read_text()


def test_tiled_maps_carry_every_goal_and_claim_and_lay_trays_out_below_the_board():
    """What an importer reads off a map, worked out by hand for one level: the goals and the best
    claim as typed properties (a bool is ``true`` in .tmx, as Tiled writes it), each tray piece a
    rectangle its mask's size (columns x rows of 32 px), below the board's 320 px and a row per
    tray; ``nextobjectid`` above every object's id (Tiled gives a new object that id); the
    tileset's image size that of the picture written beside the map."""
    import io

    from PIL import Image

    from generator.tiled import level_to_tmj, tileset_png, tmx_text

    board = ["." * 10] * 7 + ["#########."] * 2 + ["SP#######."]
    data = {"format": "tenfold.level/1", "id": "props", "variant": "halloween", "mode": "campaign",
            "board": board, "trays": [["###", "#/#"], ["2x2"]], "goals": [{"pumpkins": True}, {"score": 5}],
            "best": {"score": 40, "proof": "optimal", "bound": 40}}
    level = parse_level(data)
    tmj = level_to_tmj(level, "pk")
    props = {p["name"]: (p["type"], p["value"]) for p in tmj["properties"]}
    assert props["goal_score"] == ("int", 5) and props["goal_pumpkins"] == ("bool", True)
    assert props["best_score"] == ("int", 40) and props["best_bound"] == ("int", 40)
    assert props["best_proof"] == ("string", "optimal") and props["pack_id"] == ("string", "pk")
    assert "goal_place_all" not in props
    objects = next(layer for layer in tmj["layers"] if layer["name"] == "trays")["objects"]
    assert [(o["name"], o["width"], o["height"]) for o in objects] == [("###", 96, 32), ("#/#", 32, 64),
                                                                        ("2x2", 64, 64)]
    assert tmj["nextobjectid"] > max(o["id"] for o in objects)
    assert all(o["y"] >= 320 for o in objects)
    first, second = [o for o in objects if o["y"] == objects[0]["y"]], [o for o in objects if o["name"] == "2x2"]
    assert len(first) == 2 and all(o["y"] + o["height"] <= second[0]["y"] for o in first)
    png = Image.open(io.BytesIO(tileset_png()))
    tileset = tmj["tilesets"][0]
    assert (tileset["imagewidth"], tileset["imageheight"]) == png.size == (4 * 32, 32)
    root = ET.fromstring(tmx_text(level, "pk"))
    tmx_props = {p.get("name"): (p.get("type"), p.get("value")) for p in root.find("properties")}
    assert tmx_props["goal_pumpkins"] == ("bool", "true") and tmx_props["goal_score"] == ("int", "5")
    assert tmx_props["best_bound"] == ("int", "40")
    assert int(root.get("nextobjectid")) > max(int(o.get("id")) for o in root.iter("object"))
    assert [(o.get("width"), o.get("height")) for o in root.iter("object")] == [("96", "32"), ("32", "64"),
                                                                                ("64", "64")]
    image = root.find("tileset").find("image")
    assert (int(image.get("width")), int(image.get("height"))) == png.size


def test_a_scenes_svg_and_png_draw_the_same_cells_and_its_text_as_written():
    """``generator.canvas``: a rectangle x, y, w, h covers pixels x to x + w - 1 and y to y + h - 1
    in the PNG, as in the SVG; the SVG is XML whatever the text says (``<`` and ``&`` escaped),
    and a rectangle of board cell 0 carries data-cell="0" (the page's script finds every cell);
    the four tiles of the Tiled tileset picture are four colours."""
    import io

    from PIL import Image

    from generator.canvas import Rect, Scene, Text, to_png, to_svg
    from generator.tiled import tileset_png

    scene = Scene(12, 12, "#ffffff")
    scene.add(Rect(2, 3, 4, 5, "#ff0000", cell=0))
    image = Image.open(io.BytesIO(to_png(scene))).convert("RGB")
    inside = {(x, y) for x in range(2, 6) for y in range(3, 8)}
    for x in range(12):
        for y in range(12):
            assert image.getpixel((x, y)) == ((255, 0, 0) if (x, y) in inside else (255, 255, 255)), (x, y)
    scene.add(Text(1, 11, "a<b & c>d"))
    root = ET.fromstring(to_svg(scene))
    rect = [e for e in root if e.tag.endswith("rect")][-1]
    assert (rect.get("x"), rect.get("y"), rect.get("width"), rect.get("height")) == ("2", "3", "4", "5")
    assert rect.get("data-cell") == "0"
    assert [e.text for e in root if e.tag.endswith("text")] == ["a<b & c>d"]
    tiles = Image.open(io.BytesIO(tileset_png())).convert("RGB")
    assert len({tiles.getpixel((i * 32 + 16, 16)) for i in range(4)}) == 4
    wide = Scene(200, 40, "#ffffff")
    wide.add(Text(100, 30, "MMMM", size=20, fill="#000000", anchor="middle", bold=True))
    assert 'viewBox="0 0 200 40"' in to_svg(wide)
    moved = Scene(200, 40)
    moved.extend(wide, 0, 0)
    assert moved.shapes == wide.shapes  # bold, anchor and all
    ink = Image.open(io.BytesIO(to_png(wide))).convert("L").point(lambda v: 255 if v < 128 else 0).getbbox()
    assert ink is not None and abs((ink[0] + ink[2]) / 2 - 100) <= 3, ink  # centred on x = 100


def test_what_makes_an_export_fail_fails_in_the_plan_before_any_file_is_made(pack, tmp_path):
    """``export_plan`` refuses what would fail before it hands out a single file maker: a level
    without the solution --solution asks for is named there (as ``--solution: level ID has no
    solution``), not found later by the picture it would have drawn."""
    from generator.export import export_plan
    from solver.errors import FormatError

    for level_id in (None, "h2 no solution"):
        with pytest.raises(FormatError, match=r"^--solution: level h2 no solution has no solution$"):
            export_plan(pack, "png", tmp_path / "o", with_solution=True, level_id=level_id)
    result = export(fx.write_json(tmp_path / "pack.json", fx.pack()), "--format", "svg", "--out", tmp_path / "o",
                    "--solution")
    assert result.exit_code == 2
    assert result.output == "error: --solution: level h2 no solution has no solution\n"
    assert not (tmp_path / "o").exists()


def test_a_level_id_of_dots_alone_gets_a_visible_file_name(tmp_path):
    """``file_stem`` drops leading dots (no hidden files); an id of dots alone would leave no
    name at all (the file ``.json``, hidden): such a level is written as ``level.EXT``."""
    data = fx.pack()
    data["levels"] = [fx.halloween_level("..."), fx.halloween_level("h1")]
    out = exported(fx.write_json(tmp_path / "pack.json", data), tmp_path / "out", "json")
    assert sorted(p.name for p in out.iterdir()) == ["h1.json", "level.json"]
    assert json.loads((out / "level.json").read_text())["id"] == "..."


def test_the_line_on_stdout_lists_up_to_four_files_and_counts_more(pack_file, tmp_path):
    """docs/cli.md: the line lists the files written, up to four, and counts more with their
    folder. The fixture pack's three levels as Tiled maps are four files with the tile set."""
    result = export(pack_file, "--format", "tmj", "--out", tmp_path / "maps")
    assert result.exit_code == 0, result.output
    names = ["h1.tmj", "s1.tmj", "h2_no_solution.tmj", "tenfold-tiles.png"]
    assert result.output == f"wrote 4 files: {', '.join(str(tmp_path / 'maps' / n) for n in names)}\n"
    data = fx.pack()
    data["levels"].append(fx.halloween_level("h3"))
    result = export(fx.write_json(tmp_path / "five.json", data), "--format", "tmj", "--out", tmp_path / "five")
    assert result.exit_code == 0 and result.output == f"wrote 5 files to {tmp_path / 'five'}\n", result.output
