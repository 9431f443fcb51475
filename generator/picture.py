"""Pictures of a level, laid out as a ``Scene``: the board, its trays and goals, and the solution strip."""

from __future__ import annotations

from solver.bitboard import SIZE, bb_cell
from solver.board import Board
from solver.level import Level
from solver.pieces import get_piece, largest_side

from .canvas import Rect, Scene, Text
from .frames import Frame, solution_frames

COLOURS = {".": "#e9e6df", "#": "#3b7dd8", "S": "#5a5a5a", "P": "#f08a24"}
CELL_CLASS = {".": "empty", "#": "tile", "S": "stone", "P": "pumpkin"}
PLACED_OUTLINE = "#d81b60"
CLEARED_FILL = "#fff3b0"
GRID = "#b8b2a7"
INK = "#222222"
MUTED = "#666666"

MARGIN = 16
CELL = 28  # board cell pitch in the level picture
FRAME_CELL = 14  # board cell pitch in the solution strip
TRAY_CELL = 10
FRAMES_PER_ROW = 6


def goals_text(level: Level) -> str:
    parts = []
    for goal in level.goals:  # (a goal's other fields, which the file may add, are not goals)
        if "score" in goal:
            parts.append(f"score ≥ {goal['score']}")
        parts += [text for key, text in (("pumpkins", "clear every pumpkin"), ("place_all", "place every piece"))
                  if key in goal]
    return ", ".join(parts)


def board_scene(board: Board, cell: int, placed: int = 0, cleared: int = 0, tagged: bool = False) -> Scene:
    """The 10x10 board, ``cell`` pixels a cell; ``placed`` cells outlined, ``cleared`` cells tinted.

    ``tagged``: each cell carries its kind as a class and its index, so a page script can restyle it.
    """
    size = SIZE * cell + 1
    scene = Scene(size, size)
    scene.add(Rect(0, 0, size, size, GRID))
    for r in range(SIZE):
        for c in range(SIZE):
            ch = board.char_at(r, c)
            bit = bb_cell(r, c)
            fill = CLEARED_FILL if ch == "." and cleared & bit else COLOURS[ch]
            outline = PLACED_OUTLINE if placed & bit else None
            scene.add(Rect(c * cell + 1, r * cell + 1, cell - 1, cell - 1, fill, outline, 2 if outline else 0,
                           CELL_CLASS[ch] if tagged else "", r * SIZE + c if tagged else -1))
    return scene


def piece_scene(piece_id: str, cell: int) -> Scene:
    piece = get_piece(piece_id)
    scene = Scene(piece.width * cell, piece.height * cell)
    for r, c in piece.cells:
        scene.add(Rect(c * cell, r * cell, cell - 1, cell - 1, COLOURS["#"]))
    return scene


def trays_scene(trays: list[list[str]], width: int) -> Scene:
    """Trays as boxes of up to 3 pieces, wrapped to ``width``; a slot is 5 cells square, or as
    wide and tall as a level's own larger piece (a mask may be 10 cells)."""
    span = max(5, largest_side(p for tray in trays for p in tray))
    slot = span * TRAY_CELL + 8
    box_w, box_h = 3 * slot + 8, slot + 22
    per_row = max(1, (width + 8) // (box_w + 8))
    rows = (len(trays) + per_row - 1) // per_row
    scene = Scene(width, rows * (box_h + 8))
    for t, tray in enumerate(trays):
        x0, y0 = (t % per_row) * (box_w + 8), (t // per_row) * (box_h + 8)
        scene.add(Rect(x0, y0, box_w, box_h, "#f7f5f0", GRID, 1))
        scene.add(Text(x0 + 6, y0 + 14, f"tray {t + 1}", 11, MUTED))
        for i, pid in enumerate(tray):
            piece = piece_scene(pid, TRAY_CELL)
            px = x0 + 4 + i * slot + (slot - piece.width) // 2
            py = y0 + 18 + (slot - piece.height) // 2
            scene.extend(piece, px, py)
    return scene


def text_width(text: str, size: int) -> int:
    """A generous width of ``text`` at font ``size`` in pixels (0.62 em a character: wider than
    the sans-serif fonts' average), for a layout that must not cut it off."""
    return int(len(text) * size * 0.62) + 1


def level_facts(level: Level) -> list[str]:
    facts = [f"{level.variant.name} · {level.mode}", f"goals: {goals_text(level)}",
             f"limit: {level.limit} placements", f"tokens: {level.tokens}"]
    if level.best and level.best.get("score") is not None:
        facts.append(f"best: {level.best['score']} ({level.best.get('proof', '?')})")
    if "grade" in level.raw:
        facts.append(f"grade: {level.raw['grade']}")
    return facts


def level_scene(level: Level) -> Scene:
    """Title, board, facts beside it, trays below."""
    board = board_scene(level.board, CELL)
    info_x = MARGIN + board.width + MARGIN
    facts = level_facts(level)
    width = info_x + max(230, max(text_width(fact, 12) for fact in facts) + MARGIN)
    trays = trays_scene(level.trays, width - 2 * MARGIN)
    top = MARGIN + 24
    height = top + board.height + MARGIN + trays.height + MARGIN
    scene = Scene(width, height)
    scene.add(Text(MARGIN, MARGIN + 14, f"level {level.id}", 18, INK, bold=True))
    scene.extend(board, MARGIN, top)
    for i, fact in enumerate(facts):
        scene.add(Text(info_x, top + 14 + i * 20, fact, 12, INK))
    scene.extend(trays, MARGIN, top + board.height + MARGIN)
    return scene


def strip_scene(frames: list[Frame]) -> Scene:
    """The board after each move, ``FRAMES_PER_ROW`` to a row, each with its move and running score."""
    board_px = SIZE * FRAME_CELL + 1
    frame_w, frame_h = board_px + 12, board_px + 40
    per_row = min(FRAMES_PER_ROW, len(frames))
    rows = (len(frames) + per_row - 1) // per_row
    scene = Scene(per_row * frame_w, rows * frame_h)
    for i, frame in enumerate(frames):
        x0, y0 = (i % per_row) * frame_w, (i // per_row) * frame_h
        scene.extend(board_scene(frame.board, FRAME_CELL, frame.placed, frame.cleared), x0, y0)
        label = f"{i}. {frame.caption}" if i else frame.caption
        scene.add(Text(x0, y0 + board_px + 14, label, 10, INK))
        scene.add(Text(x0, y0 + board_px + 28, f"score {frame.score}", 10, MUTED))
    return scene


def level_picture(level: Level, with_solution: bool = False) -> Scene:
    """The level picture; with ``with_solution``, the solution strip below it."""
    picture = level_scene(level)
    if not with_solution:
        return picture
    strip = strip_scene(solution_frames(level))
    width = max(picture.width, strip.width + 2 * MARGIN)
    scene = Scene(width, picture.height + 22 + strip.height + MARGIN)
    scene.extend(picture, 0, 0)
    scene.add(Text(MARGIN, picture.height + 14, f"solution: {len(level.solution or [])} moves", 13, INK, bold=True))
    scene.extend(strip, MARGIN, picture.height + 22)
    return scene
