"""Levels as Tiled maps (.tmj JSON and .tmx XML) for game-engine importers (Godot YATI, SuperTiled2Unity).

One map per level: a 10x10 tile layer ``board`` (CSV data, uncompressed), an
object layer ``trays`` with one rectangle object per tray piece, and the
level's rules as custom map properties. The tileset is embedded in the map;
its picture is one small PNG (``TILESET_IMAGE``) written beside the map.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

from solver.bitboard import SIZE
from solver.board import EMPTY, PUMPKIN, STONE, TILE
from solver.level import LEVEL_FORMAT, Level
from solver.pieces import get_piece, largest_side

TILE_PX = 32
FIRST_GID = 1
TILESET_IMAGE = "tenfold-tiles.png"
TILED_VERSION = "1.10"
# Tile kinds in tileset order: local id i has gid FIRST_GID + i. Empty cells get a tile too.
TILE_KINDS = (("empty", EMPTY), ("tile", TILE), ("stone", STONE), ("pumpkin", PUMPKIN))
GID_OF_CHAR = {ch: FIRST_GID + i for i, (_, ch) in enumerate(TILE_KINDS)}
PIECE_SLOT = 5  # tiles a tray slot spans, enough for the widest canonical piece (slot_span: a level's own)
TRAY_TOP = (SIZE + 1) * TILE_PX  # trays lie below the board


# ---------------------------------------------------------------------------
# What goes in the map, independent of the file format


def board_gids(level: Level) -> list[int]:
    """Row-major gids of the board, 100 of them."""
    return [GID_OF_CHAR[ch] for row in level.board.rows() for ch in row]


def map_properties(level: Level, pack_id: str | None = None) -> list[tuple[str, str, Any]]:
    """(name, Tiled type, value) for each custom map property."""
    props: list[tuple[str, str, Any]] = [
        ("format", "string", LEVEL_FORMAT),
        ("level_id", "string", level.id),
        ("variant", "string", level.variant.name),
        ("mode", "string", level.mode),
        ("limit", "int", level.limit),
        ("tokens", "int", level.tokens),
        ("goals", "string", json.dumps(level.goals)),
        ("trays", "string", json.dumps(level.spelled_trays)),
    ]
    if pack_id is not None:
        props.append(("pack_id", "string", pack_id))
    for goal in level.goals:
        if "score" in goal:
            props.append(("goal_score", "int", goal["score"]))
        if goal.get("pumpkins"):
            props.append(("goal_pumpkins", "bool", True))
        if goal.get("place_all"):
            props.append(("goal_place_all", "bool", True))
    if level.reserve:
        props.append(("reserve", "string", json.dumps(level.spelled_reserve)))
    best = level.best or {}
    if best.get("score") is not None:
        props.append(("best_score", "int", best["score"]))
    if best.get("proof"):
        props.append(("best_proof", "string", best["proof"]))
    if best.get("bound") is not None:
        props.append(("best_bound", "int", best["bound"]))
    if level.solution is not None:
        props.append(("solution", "string", json.dumps(level.moves_json(level.solution))))
    # what the generator adds (a level file may carry more fields: kept, not exported)
    if isinstance(level.raw.get("grade"), str):
        props.append(("grade", "string", level.raw["grade"]))
    if isinstance(level.raw.get("difficulty"), (int, float)) and not isinstance(level.raw["difficulty"], bool):
        props.append(("difficulty", "float", level.raw["difficulty"]))
    if "stars" in level.raw:
        props.append(("stars", "string", json.dumps(level.raw["stars"])))
    return props



def slot_span(level: Level) -> int:
    """Tiles a tray slot spans: ``PIECE_SLOT``, or a level's own larger piece (a mask may be 10
    wide), so no piece overlaps the next slot."""
    return max(PIECE_SLOT, largest_side(p for tray in level.trays for p in tray))


def tray_objects(level: Level) -> list[dict[str, Any]]:
    """One rectangle per tray piece: tray t, slot i, in a row per tray below the board."""
    objects = []
    span = slot_span(level)
    for t, tray in enumerate(level.spelled_trays):
        for i, pid in enumerate(tray):
            piece = get_piece(pid)
            objects.append({
                "id": len(objects) + 1,
                "name": pid,
                "type": "piece",
                "x": i * (span + 1) * TILE_PX,
                "y": TRAY_TOP + t * (span + 1) * TILE_PX,
                "width": piece.width * TILE_PX,
                "height": piece.height * TILE_PX,
                "properties": [("tray", "int", t), ("slot", "int", i), ("piece", "string", pid),
                               ("mask", "string", piece.mask_text)],
            })
    return objects


# ---------------------------------------------------------------------------
# .tmj


def _json_props(props: list[tuple[str, str, Any]]) -> list[dict[str, Any]]:
    return [{"name": n, "type": t, "value": v} for n, t, v in props]


def _json_tileset() -> dict[str, Any]:
    return {
        "firstgid": FIRST_GID, "name": "tenfold", "tilewidth": TILE_PX, "tileheight": TILE_PX,
        "tilecount": len(TILE_KINDS), "columns": len(TILE_KINDS), "margin": 0, "spacing": 0,
        "image": TILESET_IMAGE, "imagewidth": TILE_PX * len(TILE_KINDS), "imageheight": TILE_PX,
        "tiles": [{"id": i, "type": kind, "properties": _json_props([("kind", "string", kind)])}
                  for i, (kind, _) in enumerate(TILE_KINDS)],
    }


def level_to_tmj(level: Level, pack_id: str | None = None) -> dict[str, Any]:
    objects = tray_objects(level)
    return {
        "type": "map", "version": TILED_VERSION, "tiledversion": "1.10.2",
        "orientation": "orthogonal", "renderorder": "right-down", "infinite": False,
        "width": SIZE, "height": SIZE, "tilewidth": TILE_PX, "tileheight": TILE_PX,
        "compressionlevel": -1, "nextlayerid": 3, "nextobjectid": len(objects) + 1,
        "properties": _json_props(map_properties(level, pack_id)),
        "tilesets": [_json_tileset()],
        "layers": [
            {"id": 1, "name": "board", "type": "tilelayer", "x": 0, "y": 0, "width": SIZE, "height": SIZE,
             "opacity": 1, "visible": True, "data": board_gids(level)},
            {"id": 2, "name": "trays", "type": "objectgroup", "x": 0, "y": 0, "opacity": 1, "visible": True,
             "draworder": "topdown",
             "objects": [{**o, "rotation": 0, "visible": True, "properties": _json_props(o["properties"])}
                         for o in objects]},
        ],
    }


def tmj_text(level: Level, pack_id: str | None = None) -> str:
    return json.dumps(level_to_tmj(level, pack_id), indent=1) + "\n"


# ---------------------------------------------------------------------------
# .tmx


def _xml_props(parent: ET.Element, props: list[tuple[str, str, Any]]) -> None:
    holder = ET.SubElement(parent, "properties")
    for name, kind, value in props:
        attrs = {"name": name}
        if kind != "string":
            attrs["type"] = kind
        attrs["value"] = ("true" if value else "false") if kind == "bool" else str(value)
        ET.SubElement(holder, "property", attrs)


def tmx_text(level: Level, pack_id: str | None = None) -> str:
    objects = tray_objects(level)
    root = ET.Element("map", {
        "version": TILED_VERSION, "tiledversion": "1.10.2", "orientation": "orthogonal",
        "renderorder": "right-down", "width": str(SIZE), "height": str(SIZE),
        "tilewidth": str(TILE_PX), "tileheight": str(TILE_PX), "infinite": "0",
        "nextlayerid": "3", "nextobjectid": str(len(objects) + 1),
    })
    _xml_props(root, map_properties(level, pack_id))
    tileset = ET.SubElement(root, "tileset", {
        "firstgid": str(FIRST_GID), "name": "tenfold", "tilewidth": str(TILE_PX), "tileheight": str(TILE_PX),
        "tilecount": str(len(TILE_KINDS)), "columns": str(len(TILE_KINDS)),
    })
    ET.SubElement(tileset, "image", {"source": TILESET_IMAGE, "width": str(TILE_PX * len(TILE_KINDS)),
                                     "height": str(TILE_PX)})
    for i, (kind, _) in enumerate(TILE_KINDS):
        tile = ET.SubElement(tileset, "tile", {"id": str(i), "type": kind})
        _xml_props(tile, [("kind", "string", kind)])
    layer = ET.SubElement(root, "layer", {"id": "1", "name": "board", "width": str(SIZE), "height": str(SIZE)})
    data = ET.SubElement(layer, "data", {"encoding": "csv"})
    gids = board_gids(level)
    data.text = "\n" + ",\n".join(",".join(map(str, gids[r * SIZE:(r + 1) * SIZE])) for r in range(SIZE)) + "\n"
    group = ET.SubElement(root, "objectgroup", {"id": "2", "name": "trays"})
    for o in objects:
        fields = ("id", "name", "type", "x", "y", "width", "height")
        obj = ET.SubElement(group, "object", {k: str(o[k]) for k in fields})
        _xml_props(obj, o["properties"])
    ET.indent(root, space=" ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


# ---------------------------------------------------------------------------
# the tileset picture


def tileset_png() -> bytes:
    """The four tiles side by side, TILE_PX square each."""
    from .canvas import Rect, Scene, to_png
    from .picture import COLOURS, GRID

    scene = Scene(TILE_PX * len(TILE_KINDS), TILE_PX, GRID)
    for i, (_, ch) in enumerate(TILE_KINDS):
        scene.add(Rect(i * TILE_PX + 1, 1, TILE_PX - 2, TILE_PX - 2, COLOURS[ch]))
    return to_png(scene)
