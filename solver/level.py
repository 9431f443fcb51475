"""Level and pack files (RULES.md §3): load, validate, play a solution.

Loading checks the JSON Schema in ``levels/schema/`` first (``schema.py``), then what a
schema cannot say (piece ids, the Sultan's four stones, the mode). Unknown
fields are kept and written back unchanged.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .board import Board, parse_board
from .deals import ScriptedDeals
from .engine import Game, Streak
from .errors import FormatError, TenfoldError, clipped
from .jsontext import gc_paused, json_copy, json_kind
from .moves import REDEAL_KINDS, Move, Placement, TokenUse, parse_moves
from .pieces import canonical_ids
from .schema import validate_schema
from .spelling import SpelledDeals, respell_tray, spell_moves, spelled_tray_at
from .variants import Variant, find_variant

LEVEL_FORMAT = "tenfold.level/1"
PACK_FORMAT = "tenfold.pack/1"


@dataclass
class Level:
    id: str
    variant: Variant
    mode: str
    board: Board
    trays: list[list[str]]
    goals: list[dict[str, Any]]
    reserve: list[str] = field(default_factory=list)
    limit: int = 0
    tokens: int = 0
    solution: list[Move] | None = None
    best: dict[str, Any] | None = None
    raw: dict[str, Any] = field(default_factory=dict)
    # the trays and reserve as the file spells their pieces, where it spells one other than by its
    # canonical id (a mask such as "#/#" for 2x1, or with a blank border); None when it does not
    spelled: tuple[list[list[str]], list[str]] | None = None

    @property
    def piece_count(self) -> int:
        return sum(len(t) for t in self.trays)

    @property
    def score_goal(self) -> int | None:
        goals = [g["score"] for g in self.goals if "score" in g]
        return max(goals) if goals else None

    @property
    def redeals(self) -> bool:
        """Whether its tokens can draw from its reserve (reroll, swap, refresh): the compiled
        search and the CP-SAT model leave those moves out."""
        return self.tokens > 0 and bool(self.reserve) and bool(self.variant.token_kinds & REDEAL_KINDS)

    @property
    def needs_pumpkins(self) -> bool:
        """A goal asks for every pumpkin cleared."""
        return any(g.get("pumpkins") for g in self.goals)

    @property
    def needs_all_placed(self) -> bool:
        """A goal asks for every piece of every tray placed."""
        return any(g.get("place_all") for g in self.goals)

    def new_game(self) -> Game:
        return Game.dealt(self.variant, ScriptedDeals(self.trays, self.reserve), self.board, self.tokens, Streak())

    def moves_json(self, moves: list[Move]) -> list[dict[str, Any]]:
        """The moves' JSON, each piece named as the level's file spells the tray piece it acts on
        (``spelling.spell_moves``)."""
        if self.spelled is None:
            return [m.to_json() for m in moves]
        game, tray, deals = self._spelled_start()
        return spell_moves(game, tray, moves, deals)

    def illegal_move(self, moves: list[Move], index: int, game: Game, err: TenfoldError) -> str:
        """``illegal: why``, the engine's refusal of ``moves[index]`` (played up to it on
        ``game``) as verify, export and render say it, naming the tray it lists as the level's file
        spells its pieces (the move's piece is named as the move spells it already)."""
        why = str(err)
        if self.spelled is not None and game.tray is not None:
            shadow, tray, deals = self._spelled_start()
            why = respell_tray(why, list(game.tray), spelled_tray_at(shadow, tray, moves, index, deals))
        return f"illegal: {why}"

    def _spelled_start(self) -> tuple[Game, list[str], SpelledDeals]:
        """A new game dealt in the file's spelling, its first tray as the file spells it, and
        the deals (what ``spelling.spell_moves`` walks a line from)."""
        deals = SpelledDeals(*self.spelled)
        game = Game.dealt(self.variant, deals, self.board, self.tokens, Streak())
        return game, deals.take(), deals

    def goals_met(self, game: Game, ignore_score: bool = False) -> bool:
        for goal in self.goals:
            if "score" in goal and not ignore_score and game.final_score < goal["score"]:
                return False
            if goal.get("pumpkins") and game.board.pumpkins:
                return False
            if goal.get("place_all") and not game.finished:
                return False
        return True

    @property
    def spelled_trays(self) -> list[list[str]]:
        """The trays as the level's file names their pieces (a mask stays a mask)."""
        return self.trays if self.spelled is None else self.spelled[0]

    @property
    def spelled_reserve(self) -> list[str]:
        """The reserve as the level's file names its pieces."""
        return self.reserve if self.spelled is None else self.spelled[1]

    def to_json(self) -> dict[str, Any]:
        # the file's fields in its order, but for those written anew below, which are not copied
        written = {"format", "id", "variant", "mode", "board", "trays", "limit", "tokens", "goals",
                   *(["reserve"] if self.reserve else []), *(["solution"] if self.solution is not None else []),
                   *(["best"] if self.best is not None else [])}
        out = {key: None if key in written else json_copy(item) for key, item in self.raw.items()}
        out.update(
            {
                "format": LEVEL_FORMAT,
                "id": self.id,
                "variant": self.variant.name,
                "mode": self.mode,
                "board": self.board.rows(),
                "trays": [list(t) for t in self.spelled_trays],
                "limit": self.limit,
                "tokens": self.tokens,
                "goals": json_copy(self.goals),
            }
        )
        if self.reserve:
            out["reserve"] = list(self.spelled_reserve)
        if self.solution is not None:
            out["solution"] = self._solution_json()
        if self.best is not None:
            out["best"] = dict(self.best)
        return out

    def _solution_json(self) -> list[dict[str, Any]]:
        """The solution's moves as the level spells them, each keeping the fields the file gave
        it beyond a move's own (RULES.md §3: unknown fields are kept) while the solution is
        the file's."""
        moves = self.moves_json(self.solution)
        given = self.raw.get("solution")
        if (isinstance(given, list) and len(given) == len(moves)
                and parse_moves(given, "solution") == self.solution):
            moves = [{**extra, **move} for extra, move in zip(given, moves)]
        return moves


def pick_level(item: Level | Pack, level_id: str, source: str = "the file") -> Level:
    """The level ``--level level_id`` names: one of a pack's, or a single level if it is that one."""
    if isinstance(item, Pack):
        try:
            return item.level(level_id)
        except FormatError as err:
            raise FormatError(f"--level: {err}") from None
    if item.id != level_id:
        raise FormatError(f"--level: {source} holds the single level {item.id!r}, not {level_id!r}")
    return item


def parse_level(data: Any, where: str = "level") -> Level:
    if isinstance(data, dict) and "format" not in data and where != "level":
        data = {"format": LEVEL_FORMAT, **data}  # levels inside a pack may omit it
    board = None
    if isinstance(data, dict) and isinstance(data.get("board"), list):
        # before the schema, whose pattern error would not name the column and character
        board = parse_board(data["board"], f"{where}: field board")
    validate_schema(data, "level", where)
    assert board is not None  # the schema asks for a board, a list
    variant = find_variant(data["variant"])
    try:
        mode = variant.mode(data["mode"])
    except TenfoldError as err:
        raise FormatError(f"{where}: field mode: {err}") from None
    if mode.players > 1:  # (Battle Matrix: clears drop tiles on the other board, which a level has not)
        raise FormatError(f"{where}: field mode: {mode.name} is a mode of {mode.players} boards; a level is one "
                          "board (the same game without the opponent is the variant's default mode)")
    if mode.target is not None:  # (Sprint to 5,000: the game ends at the placement that reaches it)
        raise FormatError(f"{where}: field mode: {mode.name} ends the game at the placement that reaches "
                          f"{mode.target:,} points, which a level's goals and limit say instead (the variant's "
                          f"default mode with the goal {{\"score\": {mode.target}}})")
    if problem := mode.stones_problem(board.stones.bit_count()):
        raise FormatError(f"{where}: field board: {problem}")
    try:
        trays = [canonical_ids(tray, f"field trays[{t}]") for t, tray in enumerate(data["trays"])]
        reserve = canonical_ids(data.get("reserve", []), "field reserve")
    except TenfoldError as err:
        raise FormatError(f"{where}: {err}") from None
    try:
        variant.check_tokens(data.get("tokens"), "field tokens")
    except TenfoldError as err:
        raise FormatError(f"{where}: {err}") from None
    pieces = sum(len(t) for t in trays)
    limit = data.get("limit", pieces)
    solution = None
    if data.get("solution") is not None:
        solution = parse_moves(data["solution"], f"{where}: field solution")
    return Level(
        id=data["id"],
        variant=variant,
        mode=mode.name,
        board=board,
        trays=trays,
        goals=[dict(g) for g in data["goals"]],
        reserve=reserve,
        limit=limit,
        tokens=data.get("tokens", mode.tokens),
        solution=solution,
        best=data.get("best"),
        raw=json_copy(data),
        spelled=None if (trays, reserve) == (data["trays"], data.get("reserve", [])) else
        ([list(t) for t in data["trays"]], list(data.get("reserve", []))),
    )


@dataclass
class Pack:
    id: str
    title: str
    generator: dict[str, Any]
    levels: list[Level]
    raw: dict[str, Any] = field(default_factory=dict)

    def find(self, level_id: str) -> Level | None:
        """The level of that id, or None (by a table of the ids, built at the first call: a
        pack's levels are not changed once it is loaded)."""
        return self._by_id.get(level_id)

    def level(self, level_id: str) -> Level:
        found = self.find(level_id)
        if found is None:
            raise FormatError(f"pack {self.id}: no level with id {level_id!r}")
        return found

    @cached_property
    def _by_id(self) -> dict[str, Level]:
        return {level.id: level for level in reversed(self.levels)}  # the first of an id, as a scan finds

    def to_json(self) -> dict[str, Any]:
        out = json_copy(self.raw)
        with gc_paused():
            levels = [lv.to_json() for lv in self.levels]
        out.update(
            {
                "format": PACK_FORMAT,
                "id": self.id,
                "title": self.title,
                "generator": json_copy(self.generator),
                "levels": levels,
            }
        )
        return out


def parse_pack(data: Any, where: str = "pack") -> Pack:
    validate_schema(data, "pack", where)
    with gc_paused():
        levels = [parse_level(lv, f"{where}: levels[{i}]") for i, lv in enumerate(data["levels"])]
    seen: set[str] = set()
    for i, lv in enumerate(levels):
        if lv.id in seen:
            raise FormatError(f"{where}: levels[{i}]: duplicate level id {lv.id!r}")
        seen.add(lv.id)
    # the levels' own raw copies hold theirs: to_json writes each level from its Level
    raw = {key: [] if key == "levels" else json_copy(item) for key, item in data.items()}
    return Pack(data["id"], data["title"], dict(data["generator"]), levels, raw)


def parse_level_or_pack(data: Any, where: str = "file") -> Level | Pack:
    if isinstance(data, dict) and data.get("format") == PACK_FORMAT:
        return parse_pack(data, where)
    if isinstance(data, dict) and data.get("format") == LEVEL_FORMAT:
        return parse_level(data, where)
    expected = f"{LEVEL_FORMAT!r} or {PACK_FORMAT!r}"
    if not isinstance(data, dict):
        raise FormatError(f"{where}: expected a JSON object with a field format ({expected}), "
                          f"got a JSON {json_kind(data)}")
    if "format" not in data:
        raise FormatError(f"{where}: field format: missing (expected {expected})")
    raise FormatError(f"{where}: field format: expected {expected}, got {clipped(json.dumps(data['format']))}")


@dataclass
class Replay:
    """The result of playing a move list on a level."""

    ok: bool  # every move legal, within the limit, and every goal holds at the end
    score: int  # final score (placements plus tokens left)
    placements: int
    problem: str = ""  # why not ok: the refused move's (``at``), or the goals' at the end
    game: Game | None = None
    at: int | None = None  # the refused move's index in the list, from 0 as in its JSON

    def named(self, field: str) -> str:
        """The problem as the file's field says where: ``solution[1]: illegal: ...`` (the
        move's index in the list, as a parse error names it), ``solution: goals not met ...``."""
        return f"{field}: {self.problem}" if self.at is None else f"{field}[{self.at}]: {self.problem}"


def removals_before_last_placement(moves: list[Move]) -> list[Move]:
    """The line with the removals that follow its last placement moved just before it.

    The searches may end a line by removing the pumpkins left (``CampaignSearch._search``);
    after the last tray's last piece a reader may hold the game over, so lines are written
    with those removals first. It is the same game: a tile still there after the last
    placement lies in no zone that placement completes and under none of its cells, so
    emptying it first changes neither the placement nor its clears, and the tray then still
    holds the piece a removal may need.
    """
    last = max((i for i, m in enumerate(moves) if isinstance(m, Placement)), default=None)
    if last is None or last == len(moves) - 1:
        return moves
    tail = moves[last + 1:]
    if not all(isinstance(m, TokenUse) and m.token == "remove" for m in tail):
        return moves
    return moves[:last] + tail + [moves[last]]


def play_moves(level: Level, moves: list[Move]) -> Replay:
    """Play ``moves`` through the engine from the level's start, the goals not judged: ``ok``
    and no ``problem`` when every move is legal within the limit (``game`` is then the game
    after them), else the first move refused and why (``game`` as it was before that move)."""
    game = level.new_game()
    placed = 0
    for i, move in enumerate(moves):
        if isinstance(move, Placement):
            placed += 1
            if placed > level.limit:
                why = (f"one more than the level's trays hold ({level.piece_count} "
                       f"piece{'s' * (level.piece_count != 1)})"
                       if placed > level.piece_count else f"past the limit of {level.limit}")
                return Replay(False, game.final_score, placed - 1, f"placement {placed} is {why}", game, i)
        try:
            game.apply(move)
        except TenfoldError as err:  # the placements made: not this one
            made = placed - isinstance(move, Placement)
            return Replay(False, game.final_score, made, level.illegal_move(moves, i, game, err), game, i)
    return Replay(True, game.final_score, placed, "", game)


def play_solution(level: Level, moves: list[Move], ignore_score: bool = False) -> Replay:
    """Replay ``moves`` through the engine and judge them against the level's goals and limit.

    With ``ignore_score`` the score goal is not judged (as for ``best.score``).
    """
    played = play_moves(level, moves)
    if played.problem:
        return played
    game, placed = played.game, played.placements
    if not level.goals_met(game, ignore_score=ignore_score):
        unmet = [g for g in level.goals if not _goal_holds(level, g, game, ignore_score)]
        return Replay(False, game.final_score, placed, f"goals not met at the end: {json.dumps(unmet)}", game)
    return Replay(True, game.final_score, placed, "", game)


def _goal_holds(level: Level, goal: dict[str, Any], game: Game, ignore_score: bool = False) -> bool:
    single = Level(level.id, level.variant, level.mode, level.board, level.trays, [goal])
    return single.goals_met(game, ignore_score)
