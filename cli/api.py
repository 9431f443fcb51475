"""The HTTP JSON API of ``tenfold serve``, as one pure function: (method, path, body) -> Response.

No sockets here (``cli/http_server.py`` is the thin layer that has them), so
every route and every malformed request is testable directly. Bad input is a
400 whose JSON ``error`` names the problem; nothing a client sends raises.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable
from urllib.parse import parse_qs, unquote, urlsplit

from cli.answer_cache import AnswerCache
from cli.options import MAX_STREAK, MAX_TOKENS
from cli.tray_cmd import solve_tray
from solver.board import parse_board
from solver.deals import TRAY_SIZE
from solver.errors import MESSAGE_MOST, FormatError, TenfoldError, clipped
from solver.jsontext import json_kind, load_json
from solver.continuation import next_step, position_after, solve_position, spelled_rest
from solver.level import PACK_FORMAT, Level, Pack, parse_pack, play_solution
from solver.moves import Move, as_written, parse_moves
from solver.pieces import canonical_ids
from solver.spelling import respelled, spell_tray_answer
from solver.variants import find_variant

MAX_BODY = 64 * 1024


@dataclass
class Response:
    status: int
    body: Any  # JSON; None: no body (204)
    headers: dict[str, str] = field(default_factory=dict)


def error(status: int, message: str) -> Response:
    return Response(status, {"error": clipped(message, MESSAGE_MOST)})


class BadRequest(Exception):
    """A request problem the client can fix: becomes a 400."""


def load_packs(folder: Path) -> dict[str, Pack]:
    """Every pack file (``*.json`` with format tenfold.pack/1) directly in ``folder``, by pack id."""
    if not folder.is_dir():
        raise FormatError(f"--packs: {folder} is not a folder")
    try:
        names = os.listdir(folder)  # (a glob passes over a folder it may not read: "serving 0 packs")
    except OSError as err:
        raise FormatError(f"--packs: cannot read the folder {folder}: {err.strerror or err}") from None
    packs: dict[str, Pack] = {}
    where: dict[str, Path] = {}
    for path in sorted(folder / name for name in names if name.endswith(".json")):
        if path.is_dir():
            print(f"note: {path} is a folder, not a pack file; not served", file=sys.stderr)
            continue
        try:
            text = path.read_text(encoding="utf-8-sig")  # a byte-order mark dropped, as the CLI does
        except (OSError, UnicodeDecodeError) as err:
            raise FormatError(f"{path}: cannot read JSON: {err}") from None
        data = load_json(text, str(path))
        if not isinstance(data, dict) or data.get("format") != PACK_FORMAT:
            print(f"note: {path} is not a pack; not served", file=sys.stderr)
            continue
        pack = parse_pack(data, str(path))
        if pack.id in packs:
            raise FormatError(f"{path}: pack id {pack.id!r} is also the id of {where[pack.id]}")
        packs[pack.id], where[pack.id] = pack, path
    return packs


def _int_field(data: dict, name: str, default: int, most: int) -> int:
    value = data.get(name, default)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= most:
        raise BadRequest(f"field {name}: expected an integer 0 to {most:,}, got {clipped(json.dumps(value))}")
    return value


HINT_FIELDS = ("rules", "board", "tray", "streak", "tokens")
# options of tenfold hint and tray the server does not take: a request naming one is refused
UNSERVED_OPTIONS = ("policy", "method", "time_limit")
ROUTES = ("GET /health, GET /levels, GET /levels/{pack}, GET /levels/{pack}/{level}[/solution], "
          "POST /levels/{pack}/{level}/hint, POST /hint")
# the search nodes a level hint may take: a node budget, not a clock, so the same request gets the
# same answer on every machine. bench/continuation.py (2026-12-05, loop 34 ms): a median of 1-86 ms,
# p99 0.5-0.6 s, at most 1.2 s; four times as many proved 2-3 more positions of 60 at 3-4x the p99
LEVEL_HINT_NODES = 250_000
# where tokens left may redeal from the level's reserve, the readable search answers, at about 57 k
# nodes a second: the audit's 5-tray levels with a reserve took 4.4-4.8 s at 250,000 nodes
LEVEL_HINT_NODES_READABLE = 25_000


def _json_body(body: bytes, like: str) -> dict[str, Any]:
    """A request body's JSON object, or ``BadRequest`` naming the problem (``like``: what the
    message says an object of the route looks like)."""
    try:
        data = load_json(body.decode("utf-8-sig"), "body")  # a byte-order mark read past, as in files
    except UnicodeDecodeError:
        raise BadRequest("body: not UTF-8 text") from None
    except FormatError as err:
        raise BadRequest(str(err)) from None
    if not isinstance(data, dict):
        raise BadRequest(f"body: expected a JSON object like {like}, got {json_kind(data)}")
    return data


def parse_hint_request(body: bytes) -> tuple[dict[str, Any], list[str]]:
    """The canonical question of a POST /hint body (the cache's key) and its tray as the body
    spells it, or ``BadRequest`` naming the problem."""
    data = _json_body(body, '{"rules", "board", "tray"}')
    for name in ("rules", "board", "tray"):
        if name not in data:
            raise BadRequest(f"field {name}: missing")
    for name in UNSERVED_OPTIONS:
        if name in data:  # answered as if absent, the hint would mislead; a field it does not know is ignored
            raise BadRequest(f"field {name}: the server answers as tenfold tray does (the best plan, by search), "
                             f"not with tenfold hint's {name}; it reads {', '.join(HINT_FIELDS)} "
                             "(and passes over fields it does not know)")
    if not isinstance(data["rules"], str):
        raise BadRequest("field rules: expected a string: halloween, arabic or sudoku")
    try:
        variant = find_variant(data["rules"])
    except TenfoldError as err:
        raise BadRequest(f"field rules: {err}") from None
    if not isinstance(data["board"], (str, list)):
        raise BadRequest("field board: expected one-line board text (10 rows of 10 characters, / between rows)")
    try:
        board = parse_board(data["board"], "field board")
    except TenfoldError as err:
        raise BadRequest(str(err)) from None
    tray = data["tray"]
    if not isinstance(tray, list) or not 1 <= len(tray) <= TRAY_SIZE or not all(isinstance(p, str) for p in tray):
        raise BadRequest(f"field tray: expected a list of 1 to {TRAY_SIZE} piece ids, got {clipped(json.dumps(tray))}")
    pieces = canonical_ids(tray, "field tray")  # a TenfoldError is a 400 (Api.handle), as BadRequest is
    tokens = _int_field(data, "tokens", 0, MAX_TOKENS)
    variant.check_tokens(tokens, "field tokens")  # as tenfold tray refuses --tokens
    return ({"rules": variant.name, "board": board.text(), "tray": pieces,
             "streak": _int_field(data, "streak", 0, MAX_STREAK), "tokens": tokens}, tray)


def parse_level_hint_request(body: bytes) -> list[Move]:
    """The moves played so far of a POST /levels/{pack}/{level}/hint body, or ``BadRequest``."""
    data = _json_body(body, '{"moves": [...]}')
    if "moves" not in data:
        raise BadRequest("field moves: missing (the moves played so far, a list as a level's solution; "
                         "[] at the start)")
    try:
        return parse_moves(data["moves"], "field moves")
    except TenfoldError as err:
        raise BadRequest(str(err)) from None


def answer_level_hint(pack: Pack, level: Level, moves: list[Move]) -> dict[str, Any]:
    """The rest of the game from where ``moves`` leave the level (``tenfold solve --after``,
    within ``LEVEL_HINT_NODES``, or ``LEVEL_HINT_NODES_READABLE`` where the readable search
    answers), and its next step: the tokens and placement to play now."""
    try:
        position = position_after(level, moves, "field moves")
    except TenfoldError as err:
        raise BadRequest(str(err)) from None
    nodes = LEVEL_HINT_NODES if position.compiled else LEVEL_HINT_NODES_READABLE
    position, answer = solve_position(level, position, time_limit=math.inf, node_limit=nodes, hint=level.solution)
    rest = None if answer.solution is None else spelled_rest(level, position, answer.solution)
    best = None if answer.best_line is None else spelled_rest(level, position, answer.best_line)
    # what to play now: toward every goal where a line is known to win, else toward the best found
    # (every goal but the score met), so that a player in trouble still gets a move
    toward, spelled = (answer.solution, rest) if rest is not None else (answer.best_line, best)
    step = None if toward is None else spelled[:len(next_step(toward))]
    return {"pack": pack.id, "level": level.id, "after": position.to_json(), **answer.to_json(),
            "solution": rest, "best_line": best, "next": step}


def answer_hint(question: dict[str, Any]) -> dict[str, Any]:
    """Exactly what ``tenfold tray --json`` prints for the same question."""
    answer = solve_tray(question["rules"], parse_board(question["board"]), question["tray"],
                        question["streak"], question["tokens"], "search")
    return answer.to_json(with_tokens=question["tokens"] > 0)


PAGE_MOST = 100_000  # the most level ids one page may ask for


def pack_summary(pack: Pack, offset: int = 0, limit: int | None = None) -> dict[str, Any]:
    """A pack's id, title, level count and level ids, all of them or the page from ``offset``
    of at most ``limit`` (a client of a pack of 100,000 levels need not take every id at once)."""
    ids = [lv.id for lv in pack.levels[offset:None if limit is None else offset + limit]]
    return {"id": pack.id, "title": pack.title, "total": len(pack.levels), "offset": offset, "levels": ids}


def page_of(query: str) -> tuple[int, int | None]:
    """``offset`` and ``limit`` of a query string (``?offset=200&limit=100``): whole numbers,
    offset from 0 (default 0), limit 1 to ``PAGE_MOST`` (default: every id); other parameters
    (a browser's cache-buster) are passed over."""
    fields = parse_qs(query, keep_blank_values=True)
    page: list[int | None] = []
    for name, default, low, high in (("offset", 0, 0, 10**9 - 1), ("limit", None, 1, PAGE_MOST)):
        values = fields.get(name)
        if values is None:
            page.append(default)
            continue
        text = values[0] if len(values) == 1 else None
        digits = (text or "").lstrip("0") or "0"  # (leading zeros count towards Python's conversion limit)
        number = int(digits) if digits.isascii() and digits.isdigit() and len(digits) <= 10 else None
        if text is None or not text or number is None or not low <= number <= high:
            got = "given twice" if text is None else f"got {clipped(text)!r}"
            raise BadRequest(f"query {name}: expected a whole number {low} to {high:,}, {got}")
        page.append(number)
    return page[0], page[1]


class _InFlight:
    """A hint being solved: requests asking the same question meanwhile wait for its answer."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.answer: dict[str, Any] | None = None  # None once done: the solve failed


class Api:
    def __init__(self, packs: dict[str, Pack], cache: AnswerCache | None = None):
        self.packs = packs
        self.cache = cache
        self._in_flight: dict[str, _InFlight] = {}
        self._in_flight_lock = threading.Lock()

    def handle(self, method: str, target: str, body: bytes = b"") -> Response:
        """Answer one request; never raises."""
        try:
            return self._route(method.upper(), target, body)
        except BadRequest as err:
            return error(400, str(err))
        except TenfoldError as err:
            return error(400, str(err))
        except Exception as err:  # a bug, not the client's fault: answer, log, keep serving
            sys.stderr.write(f"error: {method} {target}: {type(err).__name__}: {err}\n")  # one write: threads
            return error(500, f"internal error: {type(err).__name__}")

    def _route(self, method: str, target: str, body: bytes) -> Response:
        path = urlsplit(target).path
        parts = [unquote(p) for p in path.split("/") if p]
        if parts == ["hint"] or (len(parts) == 4 and parts[0] == "levels" and parts[3] == "hint"):
            allowed = "POST"
        elif parts in ([], ["health"]) or (parts[0] == "levels" and (len(parts) < 4 or parts[3:] == ["solution"])):
            allowed = "GET"
        elif len(parts) == 4 and parts[0] == "levels":  # no such route, whatever the method
            return error(404, f"no such route: {clipped(path)} (did you mean /solution, or POST /hint?)")
        else:
            return error(404, f"no such route: {clipped(path)} (routes: {ROUTES})")
        allow = f"{allowed}, HEAD, OPTIONS" if allowed == "GET" else f"{allowed}, OPTIONS"
        if method == "OPTIONS":  # what the route takes (a browser's CORS preflight asks this)
            return Response(204, None, {"Allow": allow})
        if method == "HEAD" and allowed == "GET":
            method = "GET"  # the GET answer's status and headers: the socket layer sends no body
        if method != allowed:
            return Response(405, {"error": f"{method} {clipped(path)}: use {allowed}"}, {"Allow": allow})
        if parts == ["hint"]:
            return self._hint(body)
        if parts[:1] == ["levels"]:
            return self._levels(parts[1:], urlsplit(target).query, body)
        return Response(200, {"ok": True, "packs": len(self.packs)})

    def _levels(self, ids: list[str], query: str = "", body: bytes = b"") -> Response:
        if not ids:
            return Response(200, {"packs": [pack_summary(p) for p in self.packs.values()]})
        pack = self.packs.get(ids[0])
        if pack is None:
            return error(404, f"no pack with id {ids[0]!r}")
        if len(ids) == 1:
            return Response(200, pack_summary(pack, *page_of(query)))
        level = pack.find(ids[1])
        if level is None:
            return error(404, f"pack {pack.id!r} has no level with id {ids[1]!r}")
        if len(ids) == 2:
            return Response(200, level.to_json())
        if ids[2] == "hint":
            moves = parse_level_hint_request(body)
            question = {"pack": pack.id, "level": level.id, "level_json": self._level_digest(level),
                        "nodes": [LEVEL_HINT_NODES, LEVEL_HINT_NODES_READABLE],
                        # a move acts on the tray slot its spelling names, and the rest names the others so
                        "moves": [as_written(m) for m in moves]}
            answer, how = self._answer_once(question, lambda: answer_level_hint(pack, level, moves))
            return Response(200, answer, {"X-Tenfold-Cache": how})
        if level.solution is None:
            return error(404, f"level {level.id!r} of pack {pack.id!r} has no solution")
        replay = play_solution(level, level.solution)
        answer = {"pack": pack.id, "level": level.id, "solution": level.moves_json(level.solution),
                  "score": replay.score, "placements": replay.placements, "valid": replay.ok}
        if not replay.ok:
            answer["problem"] = replay.named("solution")  # as tenfold verify names it
        return Response(200, answer)

    def _hint(self, body: bytes) -> Response:
        question, spelled = parse_hint_request(body)
        # the cache keeps canonical answers (one per question, however the tray spells its
        # pieces); each response names the pieces as its request's tray does

        def respond(answer: dict[str, Any], cache: str) -> Response:
            if respelled(spelled):  # (checked first: a canonical request skips parsing the board)
                answer = spell_tray_answer(answer, find_variant(question["rules"]), parse_board(question["board"]),
                                           question["streak"], question["tokens"], spelled)
            return Response(200, answer, {"X-Tenfold-Cache": cache})

        return respond(*self._answer_once(question, lambda: answer_hint(question)))

    def _answer_once(self, question: dict[str, Any], solve: Callable[[], dict[str, Any]]) -> tuple[dict[str, Any], str]:
        """``solve()``, the answer to ``question`` (the cache's key), and where it came from: the
        cache (hit), another request's solve of the same question under way (shared), or a solve
        here (miss). A question asked again while it is being solved waits for that answer instead
        of solving it once more (threads share one core's worth of Python: each would slow the
        other)."""
        if self.cache is not None:
            cached = self.cache.get(question)
            if cached is not None:
                return cached, "hit"
        key = AnswerCache.key(question)
        with self._in_flight_lock:
            flight = self._in_flight.get(key)
            leader = flight is None
            if leader:
                flight = self._in_flight[key] = _InFlight()
        if not leader:
            flight.done.wait()
            if flight.answer is not None:
                return flight.answer, "shared"
            return solve(), "miss"  # the first solve failed: try again here
        how = "miss"
        try:
            # Another request's solve may have ended between the look in the cache above and
            # here (its answer kept, its flight gone): looked up again, not solved twice.
            again = self.cache.get(question, again=True) if self.cache is not None else None
            if again is not None:
                flight.answer, how = again, "hit"
            else:
                flight.answer = solve()
                if self.cache is not None:
                    self.cache.put(question, flight.answer)
        finally:
            with self._in_flight_lock:
                del self._in_flight[key]
            flight.done.set()
        return flight.answer, how

    @staticmethod
    def _level_digest(level: Level) -> str:
        """A hash of the level as served (its board, trays, goals and stored line): in a level
        hint's cache key, so that another file's level of the same ids is never answered from it."""
        text = json.dumps(level.to_json(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]
