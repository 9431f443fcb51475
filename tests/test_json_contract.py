"""The JSON contract of every ``--json`` command and of ``tenfold serve``: the exact keys of each
answer, recursively, and the types of their values, as docs/json.md lists them.

``SHAPES`` and ``ALIASES`` are read from docs/json.md's tables, the one statement of the
contract: a key ending in ``?`` is one whose "present" column is not "always". Each command runs
on a small fixed input, a conditional key once with and once without.
Answers other tests already pin exactly are not repeated here, only the other side of them:
``replay`` without tokens (test_engine_reference.py), ``solve`` proven optimal (test_campaign.py),
``ten wins`` without a second-round move and ``ten solve``'s open keys (test_ten_cli.py), a level
file served as it was given (test_serve.py).
"""

from __future__ import annotations

import http.client
import json
import re
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

import export_fixtures as fx
from cli.api import Api, load_packs
from cli.main import app
from cli.http_server import make_server
from solver.level import parse_level, play_solution
from solver.moves import Placement, TokenUse, parse_moves
from test_campaign import open_level_data, pumpkin_level
from test_continuation import next_step_json
from test_serve import raw_exchange

runner = CliRunner()

DOC = Path(__file__).resolve().parents[1] / "docs" / "json.md"
EXAMPLE_POSITION = Path(__file__).resolve().parents[1] / "docs" / "examples" / "ten-position.json"

BASE = {
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "true": lambda v: v is True,
    "object": lambda v: isinstance(v, dict),
    "any": lambda v: True,
}


def problems(value, typ: str, path: str = "$") -> list[str]:
    """What in ``value`` breaks ``typ`` (docs/json.md's notation), each with its path; [] when none."""
    alternatives = [alt.strip() for alt in typ.split(" or ")]
    found = [_problems_of(value, alt, path) for alt in alternatives]
    if any(not p for p in found):
        return []
    if len(found) == 1:
        return found[0]
    return [f"{path}: {json.dumps(value)[:100]} is none of {typ}: " + "; ".join(p[0] for p in found)]


def _problems_of(value, alt: str, path: str) -> list[str]:
    if alt.startswith("array of "):
        if not isinstance(value, list):
            return [f"{path}: expected an array, got {json.dumps(value)[:60]}"]
        return [p for i, item in enumerate(value) for p in problems(item, alt[len("array of "):], f"{path}[{i}]")]
    if alt in BASE:
        return [] if BASE[alt](value) else [f"{path}: expected {alt}, got {json.dumps(value)[:60]}"]
    if alt.startswith('"') and alt.endswith('"'):
        return [] if value == alt[1:-1] else [f"{path}: expected {alt}, got {json.dumps(value)[:60]}"]
    name = alt.strip("`")
    if name in ALIASES:
        return problems(value, ALIASES[name], path)
    shape = SHAPES[name]  # (an unknown name is a KeyError: a typo in a table)
    if not isinstance(value, dict):
        return [f"{path}: expected an object ({name}), got {json.dumps(value)[:60]}"]
    types = {key.rstrip("?"): typ for key, typ in shape.items()}
    required = {key for key in shape if not key.endswith("?")}
    out = [f"{path}: {name} lacks key {key!r}" for key in sorted(required - set(value))]
    for key, item in value.items():
        if key in types:
            out += problems(item, types[key], f"{path}.{key}")
        elif "*" not in types:
            out.append(f"{path}: {name} has no key {key!r}")
    return out


def assert_shape(data, typ: str, has: tuple[str, ...] = (), lacks: tuple[str, ...] = ()) -> None:
    """``data`` is of type ``typ``, with the conditional top-level keys ``has`` and without ``lacks``."""
    found = problems(data, typ)
    assert not found, "\n".join(found)
    assert all(key in data for key in has), (has, sorted(data))
    assert not any(key in data for key in lacks), (lacks, sorted(data))


def run(*args, code: int = 0):
    """A command's stdout, one JSON value on one line."""
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == code, result.output
    assert result.stdout.endswith("\n") and result.stdout.count("\n") == 1, result.stdout[:200]
    return json.loads(result.stdout)


def write(tmp_path: Path, name: str, data) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


# ---------------------------------------------------------------- docs/json.md

def doc_tables(text: str) -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    """docs/json.md's shapes (a heading #### `name` and the table under it, ``?`` on each key
    whose "present" is not "always") and aliases (a heading #### `name`: type)."""
    shapes: dict[str, dict[str, str]] = {}
    aliases: dict[str, str] = {}
    current = None
    for line in text.splitlines():
        if line.startswith("#"):
            current = None
            heading = re.fullmatch(r"#### `(\w+)`(?::\s*(.+))?", line.strip())
            if heading and heading.group(2):
                aliases[heading.group(1)] = heading.group(2).strip()
            elif heading:
                current = shapes.setdefault(heading.group(1), {})
        elif current is not None and line.startswith("| `"):
            key, typ, present = (cell.strip() for cell in line.strip().strip("|").split("|")[:3])
            current[key.strip("`") + ("" if present == "always" else "?")] = " ".join(typ.split())
    return shapes, aliases


SHAPES, ALIASES = doc_tables(DOC.read_text(encoding="utf-8"))


def test_docs_json_md_tables_are_readable():
    """Every shape the tests below check is in the document, and every type there is one the
    checker reads (a typo in a table fails here, not as a puzzling mismatch)."""
    assert {"replay", "play", "tray_answer", "expert_hint", "solve", "solve_pack_item", "grading", "verdict",
            "ten_wins", "ten_solve", "ten_play", "generate", "health", "pack_list", "level", "solution",
            "error"} <= set(SHAPES)
    assert set(ALIASES) == {"move"}
    for typ in [*ALIASES.values(), *(t for keys in SHAPES.values() for t in keys.values())]:
        for alt in typ.split(" or "):
            alt = alt.removeprefix("array of ").removeprefix("array of ")
            assert alt in BASE or alt.startswith('"') or alt.strip("`") in SHAPES or alt.strip("`") in ALIASES, alt


def test_each_move_is_its_own_shape():
    moves = {"placement": Placement("2x1", 3, 4), "rotate": TokenUse("rotate", piece="1x3", turns=1),
             "remove": TokenUse("remove", row=2, col=7), "swap": TokenUse("swap", piece="3x3"),
             "redeal": TokenUse("reroll")}
    for name, move in moves.items():
        data = move.to_json()
        assert_shape(data, f"`{name}`")
        assert_shape(data, "`move`")
        assert [other for other in moves if not problems(data, f"`{other}`")] == [name]
    assert_shape(TokenUse("refresh").to_json(), "`redeal`")


# ---------------------------------------------------------------- replay, play

def test_replay_with_tokens_says_neither_tokens_nor_final_score(tmp_path):
    """The text adds the tokens left and the final score with their bonus; the JSON keeps its three keys."""
    level = fx.sultan_level()
    out = run("replay", "--rules", "arabic", "--mode", "sultan", "--tokens", "2", "--board", "/".join(level["board"]),
              "--moves", write(tmp_path, "moves.json", level["solution"]), "--json")
    assert_shape(out, "`replay`")


def test_play_has_reached_only_in_a_mode_with_a_target():
    assert_shape(run("play", "--rules", "sudoku", "--mode", "sprint", "--seed", 1, "--trays", 2, "--json"),
                 "`play`", has=("reached",))
    assert_shape(run("play", "--rules", "arabic", "--seed", 1, "--trays", 2, "--json"), "`play`", lacks=("reached",))


# ---------------------------------------------------------------- tray, hint

COLUMN = "/".join(["#########."] * 3 + [(".#.#.#.#.#" if r % 2 else "#.#.#.#.#.") for r in range(3, 10)])
NINE = "/".join(["#########."] * 10)  # column 9 open
CHECKERS = "/".join(["#.#.#.#.#."] * 10)


@pytest.mark.parametrize("args, has_tokens, kinds", [
    (["tray", "--rules", "halloween", "--board", COLUMN, "--tray", "3x1"], False, ["placement"]),
    (["tray", "--rules", "halloween", "--board", COLUMN, "--tray", "#/#/#"], False, ["placement"]),
    (["tray", "--rules", "halloween", "--board", COLUMN, "--tray", "3x3"], False, None),
    (["tray", "--rules", "halloween", "--board", COLUMN, "--tray", "3x1", "--method", "cpsat"], False, ["placement"]),
    (["tray", "--rules", "arabic", "--board", NINE, "--tray", "3x1", "--tokens", "1"], True, ["placement"]),
    (["tray", "--rules", "arabic", "--board", NINE, "--tray", "1x3", "--tokens", "1"], True, ["rotate", "placement"]),
    (["tray", "--rules", "sudoku", "--board", NINE, "--tray", "1x2", "--tokens", "3"], True, ["remove", "placement"]),
    (["tray", "--rules", "arabic", "--board", CHECKERS, "--tray", "2x2", "--tokens", "1"], True, None),
    (["hint", "--rules", "halloween", "--board", COLUMN, "--tray", "3x1"], False, ["placement"]),
    (["hint", "--rules", "arabic", "--board", NINE, "--tray", "1x3", "--tokens", "1"], True, ["rotate", "placement"]),
], ids=["fits", "mask", "no-fit", "cpsat", "tokens-unused", "rotate", "remove", "no-rescue", "hint", "hint-rotate"])
def test_tray_answer(args, has_tokens, kinds):
    """tray and hint --policy best: tokens_used only when tokens were given; a rescue's plan holds
    its token uses (and no safe first moves); not placeable: nulls."""
    out = run(*args, "--json")
    assert_shape(out, "`tray_answer`", **({"has": ("tokens_used",)} if has_tokens else {"lacks": ("tokens_used",)}))
    if kinds is None:
        assert (out["placeable"], out["best_score"], out["plan"], out["safe_moves"]) == (False, None, None, [])
    else:
        assert [[k for k in ("placement", "rotate", "remove") if not problems(m, f"`{k}`")][0]
                for m in out["plan"]] == kinds
        assert (out["safe_moves"] == []) == (kinds[0] != "placement")
    if "#/#/#" in args:
        assert {m["piece"] for m in out["plan"] + out["safe_moves"]} == {"#/#/#"}


@pytest.mark.parametrize("args, placeable", [
    (["--rules", "halloween", "--board", COLUMN, "--tray", "3x1"], True),
    (["--rules", "arabic", "--board", NINE, "--tray", "1x3", "--tokens", "1"], True),
    (["--rules", "halloween", "--board", COLUMN, "--tray", "3x3"], False),
], ids=["fits", "rotate", "no-fit"])
def test_expert_hint(args, placeable):
    """Every key always (tokens_used too, unlike the best plan's answer); value null when not placeable."""
    out = run("hint", *args, "--policy", "expert", "--time-limit", "0", "--json")
    assert_shape(out, "`expert_hint`")
    assert out["placeable"] is placeable and (out["value"] is None) == (not placeable)
    assert (out["plan"] is None) == (out["best_score"] is None) == (not placeable)


# ---------------------------------------------------------------- solve, verify

INFEASIBLE = {k: v for k, v in pumpkin_level(goals=[{"pumpkins": True}], trays=[["2x2"]], id="none").items()
              if k not in ("solution", "best")}
PACK = {"format": "tenfold.pack/1", "id": "p", "title": "t", "generator": {"seed": 1, "version": "x"},
        "levels": [pumpkin_level(id="good"), INFEASIBLE,
                   pumpkin_level(id="bad", best={"score": 12, "proof": "optimal"}),
                   {**open_level_data(), "goals": [{"score": 90}]}]}


def test_solve(tmp_path):
    """Proven infeasible (nulls), cut short by the node limit (bound; solvable true, or null for a
    goal between the best line and the bound), a pack (an id each), one level of a pack (none)."""
    infeasible = run("solve", write(tmp_path, "none.json", INFEASIBLE), "--json")
    assert_shape(infeasible, "`solve`")
    assert infeasible == {"solvable": False, "best_score": None, "proof": "infeasible", "bound": None,
                          "solution": None}
    cut = ["--time-limit", "3600", "--node-limit", "5000", "--json"]
    found = run("solve", write(tmp_path, "open.json", open_level_data()), *cut)
    assert_shape(found, "`solve`")
    assert found["proof"] == "bound" and found["solvable"] is True and found["solution"]
    goal = found["best_score"] + 1
    assert goal <= found["bound"]
    unknown = run("solve", write(tmp_path, "open90.json", {**open_level_data(), "goals": [{"score": goal}]}), *cut)
    assert_shape(unknown, "`solve`")
    assert (unknown["solvable"], unknown["proof"], unknown["solution"]) == (None, "bound", None)
    pack = write(tmp_path, "pack.json", PACK)
    listed = run("solve", pack, *cut)
    assert_shape(listed, "array of `solve_pack_item`")
    assert [item["id"] for item in listed] == [lv["id"] for lv in PACK["levels"]]
    assert_shape(run("solve", pack, "--level", "none", "--json"), "`solve`", lacks=("grading",))
    # --grade: a grading for a solvable level, null for the others
    graded = run("solve", pack, "--level", "good", "--grade", "--json")
    assert_shape(graded, "`solve`", has=("grading",))
    assert graded["grading"] is not None
    none = run("solve", pack, "--level", "none", "--grade", "--json")
    assert_shape(none, "`solve`", has=("grading",))
    assert none["grading"] is None
    graded_pack = run("solve", pack, *cut, "--grade")
    assert all("grading" in item for item in graded_pack)
    assert_shape(graded_pack, "array of `solve_pack_item`")


def test_solve_after(tmp_path):
    """Proven optimal part way along the level's line, infeasible after a move that strands its
    pumpkins, and cut short by the node limit on an open level."""
    level = fx.halloween_level("after")
    path = write(tmp_path, "after.json", level)
    line = level["solution"]
    on = run("solve", path, "--after", write(tmp_path, "on.json", line[:1]), "--json")
    assert_shape(on, "`solve_after`")
    assert on["proof"] == "optimal" and on["after"]["moves"] == 1
    replay = play_solution(parse_level(level), parse_moves(line[:1] + on["solution"]))
    assert replay.ok and replay.score == on["best_score"], replay.problem
    none = run("solve", write(tmp_path, "none.json", INFEASIBLE), "--after", write(tmp_path, "empty.json", []),
               "--json")
    assert_shape(none, "`solve_after`")
    assert (none["solvable"], none["proof"], none["solution"]) == (False, "infeasible", None)
    cut = run("solve", write(tmp_path, "open.json", open_level_data()), "--after", write(tmp_path, "empty.json", []),
              "--node-limit", "5000", "--json")
    assert_shape(cut, "`solve_after`")
    assert cut["proof"] == "bound" and cut["after"] == {"moves": 0, "placed": 0, "score": 0, "tokens": 0}


@pytest.mark.parametrize("count", [2, 4], ids=["all-kept", "some-rejected"])
def test_generate(tmp_path, count):
    """The summary is the written pack's: its id, levels, grades and limits; the pack's bytes are
    those the run without --json writes. Seed 1's first two Sultan candidates are kept, and two of
    the first six turned down."""
    from collections import Counter

    named = f"{tmp_path}/./a.json"  # reported as named (a Path would drop the "./")
    summary = run("generate", "sultan", "--count", count, "--seed", 1, "--out", named, "--json")
    assert_shape(summary, "`generate`")
    plain = runner.invoke(app, ["generate", "sultan", "--count", str(count), "--seed", "1",
                                "--out", str(tmp_path / "b.json")])
    assert plain.exit_code == 0, plain.output
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    pack = json.loads((tmp_path / "a.json").read_text())
    limits = sorted(lv["limit"] for lv in pack["levels"])
    assert summary["out"] == named and summary["id"] == pack["id"]
    assert plain.stdout.startswith(f"wrote {tmp_path / 'b.json'}: {count} levels from ")
    assert summary["levels"] == len(pack["levels"]) == count
    assert summary["per_grade"] == {g: Counter(lv["grade"] for lv in pack["levels"])[g]
                                    for g in ("easy", "medium", "hard", "expert")}
    assert (summary["limits"]["min"], summary["limits"]["max"]) == (limits[0], limits[-1])
    assert summary["candidates"] == count + sum(r["count"] for r in summary["rejected"])
    assert bool(summary["rejected"]) == (count == 4)
    assert summary["proof_nodes_mean"] == round(sum(lv["measurements"]["proof_nodes"]
                                                    for lv in pack["levels"]) / count, 1)
    for reason in summary["rejected"]:
        assert f"{reason['count']:>5}  {reason['reason']}" in plain.stdout  # the closing table's line


def test_verify(tmp_path):
    """An array of verdicts, one per level (one for a single level too): ok, fail and open."""
    verdicts = run("verify", write(tmp_path, "pack.json", PACK), "--time-limit", "0.3", "--json", code=1)
    assert_shape(verdicts, "array of `verdict`")
    assert [(v["id"], v["status"]) for v in verdicts] == [("good", "ok"), ("none", "fail"), ("bad", "fail"),
                                                        ("open", "open")]
    single = run("verify", write(tmp_path, "good.json", pumpkin_level(id="good")), "--json")
    assert_shape(single, "array of `verdict`")
    assert [v["status"] for v in single] == ["ok"]


# ---------------------------------------------------------------- ten

# A second-round position (both rows empty): black wins by lifting its 3 from (1, -2) to (2, -1).
SECOND_ROUND = {
    "format": "tenfold.ten/1", "variant": "open", "to_move": "black", "rows": {"white": [], "black": []},
    "tiles": [{"x": x, "y": y, "colour": colour, "value": value} for x, y, colour, value in [
        (0, 0, "white", 1), (0, -1, "black", 1), (-1, -1, "white", 3), (0, 1, "black", 3), (1, -1, "white", 3),
        (1, 0, "black", 2), (0, 2, "white", 2), (1, -2, "black", 3), (-1, 1, "white", 2), (-1, 2, "black", 2)]],
}


def hidden(position: dict, stacks: dict, **extra) -> dict:
    data = {k: v for k, v in position.items() if k != "rows"}
    return {**data, "variant": "hidden", "stacks": stacks, **extra}


def test_verify_stopped_by_ctrl_c_prints_the_verdicts_so_far(tmp_path, monkeypatch):
    """A Ctrl-C while the second level is re-proven: the first level's verdict, as JSON, then
    exit 130 (a big-pack audit's verify --json, stopped after 118 of 1,000 levels, printed
    nothing), and the count on stderr, which --json left out."""
    import cli.campaign_cmds
    from solver import watch

    real = cli.campaign_cmds.verify_level
    seen = []

    def verify_level(level, time_limit):
        seen.append(level.id)
        if len(seen) == 2:
            watch.WATCHERS[-1].handle(2, None)  # the SIGINT handler, as a Ctrl-C calls it
        return real(level, time_limit)

    monkeypatch.setattr(cli.campaign_cmds, "verify_level", verify_level)
    result = runner.invoke(app, ["verify", write(tmp_path, "pack.json", PACK), "--time-limit", "0.3", "--json"])
    assert result.exit_code == 130, result.output
    verdicts = json.loads(result.stdout)
    assert_shape(verdicts, "array of `verdict`")
    assert [v["id"] for v in verdicts] == [PACK["levels"][0]["id"]]
    whole = runner.invoke(app, ["verify", write(tmp_path, "one.json", PACK["levels"][0]), "--time-limit", "0.3",
                                "--json"])
    assert json.loads(whole.stdout) == verdicts
    assert "1 level: " in whole.stderr and "interrupted: verified 1 of" in result.stderr


def test_ten_wins_a_second_round_move_says_where_from(tmp_path):
    out = run("ten", "wins", write(tmp_path, "second.json", SECOND_ROUND), "--json")
    assert_shape(out, "`ten_wins`")
    # black's 3 lifted from (1, -2) to (2, -1) makes the anti-diagonal 3 + 2 + 3 + 2
    move = {"x": 2, "y": -1, "value": 3, "from": {"x": 1, "y": -2},
            "runs": [[{"x": 2, "y": -1}, {"x": 1, "y": 0}, {"x": 0, "y": 1}, {"x": -1, "y": 2}]]}
    assert out == {"wins": [move], "threats": {"white": [], "black": [move]}}


ALL = {"1": 1, "2": 1, "3": 1}
NONE = {"1": 0, "2": 0, "3": 0}


@pytest.mark.parametrize("position, draws, pv_keys", [
    (json.loads(EXAMPLE_POSITION.read_text()), None, {"end"}),
    (SECOND_ROUND | {"to_move": "white"}, None, {"from"}),
    (hidden(json.loads(EXAMPLE_POSITION.read_text()), {"white": ALL, "black": ALL}), {"1", "2", "3"}, None),
    (hidden(json.loads(EXAMPLE_POSITION.read_text()), {"white": {"1": 1, "2": 0, "3": 1}, "black": ALL}),
     {"1", "3"}, None),
    (hidden(json.loads(EXAMPLE_POSITION.read_text()), {"white": ALL, "black": ALL}, drawn=2), None, set()),
    (hidden(SECOND_ROUND, {"white": NONE, "black": NONE}), None, {"from"}),
], ids=["open", "open-second-round", "hidden", "hidden-no-2", "hidden-drawn", "hidden-second-round"])
def test_ten_solve(tmp_path, position, draws, pv_keys):
    """best_by_draw only with hidden stacks, while placing, with no tile drawn; pv moves carry
    end (from an open row) or from (second round), never both, hidden stacks' second round too."""
    out = run("ten", "solve", write(tmp_path, "position.json", position), "--depth", "2", "--json")
    if draws is None:
        assert_shape(out, "`ten_solve`", lacks=("best_by_draw",))
    else:
        assert_shape(out, "`ten_solve`", has=("best_by_draw",))
        assert set(out["best_by_draw"]) == draws and out["pv"] == []
    assert (out["win_probability"] is None) == (position["variant"] == "open")
    if pv_keys is None:
        assert out["pv"] == []
    else:
        assert out["pv"] and all(set(m) - {"colour", "x", "y", "value"} == pv_keys for m in out["pv"])


@pytest.mark.parametrize("args, winner, end", [
    (["--seed", "1", "--max-plies", "4", "--depth", "1"], None, True),
    (["--seed", "1", "--max-plies", "4", "--depth", "1", "--variant", "hidden"], None, False),
    (["--seed", "3", "--max-plies", "40", "--depth", "2"], "white", True),
], ids=["open", "hidden", "won"])
def test_ten_play(args, winner, end):
    out = run("ten", "play", *args, "--json")
    assert_shape(out, "`ten_play`")
    assert out["winner"] == winner and out["result"] == (f"{winner} wins" if winner else
                                                         f"no result after {len(out['moves'])} moves")
    assert out["outcome"] == ("win" if winner else "unfinished")
    assert out["moves"] and all(("end" in m) == end and "from" not in m for m in out["moves"])



def test_ten_play_a_draw(monkeypatch):
    """A game drawn by threefold repetition (rare in seeded games: none in 40 at depth 1) is
    ``outcome: draw`` with no winner: the CLI's reading of the game play_game returns."""
    import cli.ten_cmds
    from dataclasses import replace

    from solver.ten.play import play_game

    def drawn_game(*args, **kwargs):
        game = play_game(*args, **kwargs)
        return replace(game, winner=None, drawn=True)

    monkeypatch.setattr(cli.ten_cmds, "play_game", drawn_game)
    out = run("ten", "play", "--seed", "1", "--max-plies", "4", "--depth", "1", "--json")
    assert_shape(out, "`ten_play`")
    assert (out["outcome"], out["winner"], out["result"]) == ("draw", None, "draw by threefold repetition")


# ---------------------------------------------------------------- serve

@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A real server on loopback over the fixture pack and a pack of a level with a reserve and a
    best without bound but with a field of its own (no solution), and one whose solution fails;
    yields (host, port)."""
    folder = tmp_path_factory.mktemp("contract-packs")
    fx.write_json(folder / "fixture.json", fx.pack("fixture-pack"))
    broken = fx.halloween_level("broken")
    broken["solution"] = [broken["solution"][0]] + broken["solution"]
    reserve = {"format": "tenfold.level/1", "id": "reserve", "variant": "sudoku", "mode": "campaign",
               "board": ["." * 10] * 10, "trays": [["1x1"]], "reserve": ["2x2"], "tokens": 1,
               "goals": [{"score": 1}], "best": {"score": 210, "proof": "optimal", "by": "a designer"}}
    fx.write_json(folder / "contract.json", {"format": "tenfold.pack/1", "id": "contract", "title": "c",
                                             "generator": {"seed": 1, "version": "x"}, "levels": [broken, reserve]})
    httpd = make_server(Api(load_packs(folder), None), "127.0.0.1", 0)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd.server_address[:2]
    httpd.shutdown()
    httpd.server_close()


def exchange(address, method: str, path: str, body: bytes | None = None):
    conn = http.client.HTTPConnection(*address, timeout=30)
    try:
        conn.request(method, path, body=body)
        response = conn.getresponse()
        data = response.read()
    finally:
        conn.close()
    return response.status, (json.loads(data) if data else None), response


def test_serve_answers(served):
    """Each route's body (the health body is pinned exactly in test_serve.py), HEAD and OPTIONS
    without one."""
    for path, typ in [("/health", "`health`"), ("/levels", "`pack_list`"), ("/levels/contract", "`pack_summary`")]:
        status, body, _ = exchange(served, "GET", path)
        assert status == 200 and not problems(body, typ), (path, problems(body, typ))
    assert [p["id"] for p in exchange(served, "GET", "/levels")[1]["packs"]] == ["contract", "fixture-pack"]
    sultan = next(lv for lv in fx.pack()["levels"] if lv["id"] == "s1")
    _, level, _ = exchange(served, "GET", "/levels/fixture-pack/s1")  # an extra field (stars) kept; no best
    assert_shape(level, "`level`", has=("solution",), lacks=("reserve", "best"))
    assert set(level) == set(sultan) | {"limit"}
    _, level, _ = exchange(served, "GET", "/levels/contract/reserve")
    assert_shape(level, "`level`", has=("reserve", "best"), lacks=("solution",))
    assert set(level) == {key.rstrip("?") for key in SHAPES["level"]} - {"*", "solution"}  # no other field
    assert_shape(level["best"], "`best`", lacks=("bound",))
    assert level["best"]["by"] == "a designer"  # a field of the file's best, kept (a docs audit: the table had no *)
    _, level, _ = exchange(served, "GET", "/levels/contract/broken")
    assert_shape(level["best"], "`best`", has=("bound",))
    _, answer, _ = exchange(served, "GET", "/levels/fixture-pack/s1/solution")
    assert_shape(answer, "`solution`", lacks=("problem",))
    assert answer["valid"] is True
    _, answer, _ = exchange(served, "GET", "/levels/contract/broken/solution")
    assert_shape(answer, "`solution`", has=("problem",))
    assert answer["valid"] is False
    for method, status in (("HEAD", 200), ("OPTIONS", 204)):
        got, body, response = exchange(served, method, "/levels/contract")
        assert (got, body) == (status, None) and (method == "HEAD") == bool(response.getheader("Content-Type"))


def test_serve_level_hint(served):
    """On the stored line (its rest, and the next move of it), and at its end (nothing left)."""
    s1 = next(lv for lv in fx.pack()["levels"] if lv["id"] == "s1")
    line = s1["solution"]
    status, hint, _ = exchange(served, "POST", "/levels/fixture-pack/s1/hint", json.dumps({"moves": line[:1]}).encode())
    assert status == 200, hint
    assert_shape(hint, "`level_hint`")
    assert (hint["pack"], hint["level"], hint["solvable"]) == ("fixture-pack", "s1", True)  # (a bound: 10^6 nodes)
    replay = play_solution(parse_level(s1), parse_moves(line[:1] + hint["solution"]))
    assert replay.ok and replay.score == hint["best_score"], replay.problem
    assert hint["next"] == next_step_json(hint["solution"]) and hint["next"]
    status, done, _ = exchange(served, "POST", "/levels/fixture-pack/s1/hint", json.dumps({"moves": line}).encode())
    assert status == 200 and done["solution"] == [] and done["next"] == [], done
    assert_shape(done, "`level_hint`")


def test_serve_hint_is_a_tray_answer(served):
    question = {"rules": "arabic", "board": NINE, "tray": ["1x3"]}
    status, plain, response = exchange(served, "POST", "/hint", json.dumps(question).encode())
    assert status == 200 and response.getheader("X-Tenfold-Cache") == "miss"
    assert_shape(plain, "`tray_answer`", lacks=("tokens_used",))
    assert plain["placeable"] is False
    status, rescued, _ = exchange(served, "POST", "/hint", json.dumps({**question, "tokens": 1}).encode())
    assert_shape(rescued, "`tray_answer`", has=("tokens_used",))
    assert rescued == run("tray", "--rules", "arabic", "--board", NINE, "--tray", "1x3", "--tokens", "1", "--json")


def test_serve_errors_are_one_key(served):
    """The API's 400, 404 and 405, and the socket layer's 413: each {"error": ...}."""
    for method, path, body, status in [("GET", "/nowhere", None, 404), ("GET", "/levels/none", None, 404),
                                       ("GET", "/levels/contract/none", None, 404),
                                       ("GET", "/levels/fixture-pack/h2%20no%20solution/solution", None, 404),
                                       ("GET", "/hint", None, 405), ("POST", "/levels", b"{}", 405),
                                       ("POST", "/hint", b"[]", 400),
                                       ("POST", "/hint",
                                        json.dumps({"rules": "chess", "board": "", "tray": []}).encode(), 400)]:
        got, answer, _ = exchange(served, method, path, body)
        assert got == status and not problems(answer, "`error`"), (path, got, answer)
    got, answer = raw_exchange(*served, b"POST /hint HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n{}")
    assert got == 413 and not problems(answer, "`error`"), answer


def test_keys_come_in_the_order_their_table_lists_them(tmp_path):
    """docs/json.md: "Keys come in the order listed", read off the JSON text itself (json.loads
    keeps it); the shape checks above look at the keys, not at their order."""
    moves = write(tmp_path, "moves.json", [{"piece": "1x1", "row": 0, "col": 0}])
    for args, shape in ((["tray", "--rules", "halloween", "--tray", "1x1", "--json"], "tray_answer"),
                        (["replay", "--rules", "halloween", "--moves", moves, "--json"], "replay")):
        data = run(*args)
        listed = [key.rstrip("?") for key in SHAPES[shape]]
        assert list(data) == [key for key in listed if key in data], (shape, list(data))
