"""The generator: proven levels, independent replays, determinism, resume, dedup, Dask."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from typer.testing import CliRunner

from level_reference import reference_check
import reference_rules as ref
from cli.generate_cmd import limits_line, trays_reached
from cli.main import app
from generator.grade import GRADE_NAMES, LINES_CAP, Measurements, grade_of, settled_grade
from generator.pack import GENERATOR_VERSION, _accept, generate_pack, image_piece, level_key
from solver.board import parse_board
from solver.errors import FormatError, RulesError
from solver.level import parse_pack
from solver.variants import rules_fingerprint
from solver.verify import verify_level

KIND, COUNT, SEED, TRAYS = "halloween", 3, 11, 2


def pack_text(tmp_path, name, **kw) -> str:
    out = tmp_path / f"{name}.json"
    report = generate_pack(KIND, COUNT, SEED, out, TRAYS, **kw)
    return json.dumps(report.pack, indent=1)


@pytest.fixture(scope="module")
def base_pack(tmp_path_factory):
    return pack_text(tmp_path_factory.mktemp("gen"), "base")


def test_every_level_is_proven_and_replays_independently(base_pack):
    pack = json.loads(base_pack)
    parsed = parse_pack(pack)
    assert len(parsed.levels) == COUNT
    for level, raw in zip(parsed.levels, pack["levels"]):
        verdict = verify_level(level, time_limit=60)
        assert verdict.ok, verdict.problems
        ok, why, score = reference_check(raw)
        assert ok, f"{raw['id']}: {why}"
        assert score == raw["best"]["score"]
        assert raw["best"]["proof"] == "optimal"
        assert raw["grade"] in GRADE_NAMES
        assert raw["stars"][0] <= raw["stars"][1] <= raw["stars"][2] == raw["best"]["score"]
        assert sum(row.count("P") for row in raw["board"]) >= 2


def test_pack_is_ordered_by_grade_and_has_no_duplicates(base_pack):
    levels = json.loads(base_pack)["levels"]
    ranks = [(GRADE_NAMES.index(lv["grade"]), lv["difficulty"]) for lv in levels]
    assert ranks == sorted(ranks)
    assert len({level_key(lv) for lv in levels}) == len(levels)
    assert [lv["id"] for lv in levels] == [f"{KIND}-{n:03d}" for n in range(1, COUNT + 1)]


def test_same_seed_same_bytes_with_more_workers(base_pack, tmp_path):
    """The same pack from two workers; the closing table's levels per grade are the pack's."""
    report = generate_pack(KIND, COUNT, SEED, tmp_path / "two.json", TRAYS, workers=2)
    assert json.dumps(report.pack, indent=1) == base_pack
    assert dict(report.per_grade) == dict(Counter(lv["grade"] for lv in report.pack["levels"]))


def test_dask_backend_gives_the_same_pack(base_pack, tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(processes=False, n_workers=1, threads_per_worker=2,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        assert pack_text(tmp_path, "dask", backend="dask", scheduler=client) == base_pack


def stopped_run(out, after: int):
    """Run the base pack's generation into ``out`` and stop it once candidate ``after`` is done;
    the partial file it leaves."""
    class Stop(Exception):
        pass

    def stop(index, result, accepted):
        if index >= after:
            raise Stop

    with pytest.raises(Stop):
        generate_pack(KIND, COUNT, SEED, out, TRAYS, on_candidate=stop)
    return out.parent / (out.name + ".partial.jsonl")


def generate_counting_builds(out, base_pack: str, monkeypatch) -> list[int]:
    """Run the base pack's command to ``out`` (resuming what is there); it must write the base
    pack. Returns the seeds of the candidates it built (not resumed)."""
    import generator.pack as pack_module

    built = []
    real_build = pack_module.build_candidate
    monkeypatch.setattr(pack_module, "build_candidate",
                        lambda kind, trays, seed, **kw: built.append(seed) or real_build(kind, trays, seed, **kw))
    report = generate_pack(KIND, COUNT, SEED, out, TRAYS)
    assert json.dumps(report.pack, indent=1) == base_pack
    return built


def test_interrupted_run_resumes_to_the_same_pack(base_pack, tmp_path):
    out = tmp_path / "resume.json"
    partial = stopped_run(out, 2)
    assert len(partial.read_text().splitlines()) >= 3
    report = generate_pack(KIND, COUNT, SEED, out, TRAYS)
    assert json.dumps(report.pack, indent=1) == base_pack


def test_a_resume_rebuilds_only_what_it_cannot_trust(base_pack, tmp_path, monkeypatch):
    """A partial file whose last line was cut short, one result with a grade the measurements do
    not give, and one filed under another candidate's seed: a resume keeps every other result
    (not proving them again), rebuilds those three, writes whole lines after the cut one, and
    ends with the same pack."""
    out = tmp_path / "cut.json"
    partial = stopped_run(out, 5)
    lines = partial.read_text().splitlines()
    entries = [json.loads(line) for line in lines[1:]]
    accepted = [e for e in entries if e["result"]["status"] == "accepted"]
    assert len(entries) >= 6 and len(accepted) >= 2
    accepted[0]["result"]["options"][0]["grade"] = "expert" if accepted[0]["result"]["options"][0][
        "grade"] != "expert" else "easy"
    accepted[1]["result"]["seed"] += 1
    tampered = {accepted[0]["index"], accepted[1]["index"]}
    text = lines[0] + "\n" + "".join(json.dumps(e) + "\n" for e in entries)
    cut = len(text) - 40  # the last line loses its end
    partial.write_text(text[:cut])
    built = generate_counting_builds(out, base_pack, monkeypatch)
    from generator.recipes import candidate_seed

    rebuilt = {i for i, e in enumerate(entries) if candidate_seed(KIND, SEED, e["index"]) in built}
    assert tampered | {entries[-1]["index"]} <= {entries[i]["index"] for i in rebuilt}
    assert len(rebuilt) == 3  # the three, and no other result already there
    for line in partial.read_text().splitlines()[1:]:
        json.loads(line)  # every line whole: nothing written onto the cut one


def test_mirror_images_are_duplicates():
    pairs = {"L3-nw": "L3-ne", "L3-sw": "L3-se", "L5-nw": "L5-ne", "T4-e": "T4-w", "T4-n": "T4-n",
             "X5": "X5", "1x4": "1x4", "3x2": "3x2"}
    for a, b in pairs.items():
        assert image_piece(a, across=True) == b and image_piece(b, across=True) == a
    board = ["#........."] + [".........."] * 8 + ["....S....."]
    level = {"board": board, "trays": [["L3-nw", "1x2", "T4-e"]], "goals": [{"pumpkins": True}], "limit": 3}
    mirror = {"board": [r[::-1] for r in board], "trays": [["L3-ne", "1x2", "T4-w"]],
              "goals": [{"pumpkins": True}], "limit": 3}
    other = dict(level, limit=2)
    assert level_key(level) == level_key(mirror)
    assert level_key(level) != level_key(other)
    upside = {"board": board[::-1], "trays": [["T4-e", "L3-sw", "1x2"]], "goals": [{"pumpkins": True}], "limit": 3}
    turned = {"board": [r[::-1] for r in board[::-1]], "trays": [["1x2", "T4-w", "L3-se"]],
              "goals": [{"pumpkins": True}], "limit": 3}
    assert level_key(upside) == level_key(turned) == level_key(level)
    # on the diagonal: the tile at (0, 0) stays, the stone at (9, 4) goes to (4, 9); an L3-nw keeps
    # its cells, a 1x2 stands up, a T4 pointing east points south
    diagonal = {"board": ["#........."] + [".........."] * 3 + [".........S"] + [".........."] * 5,
                "trays": [["L3-nw", "2x1", "T4-s"]], "goals": [{"pumpkins": True}], "limit": 3}
    assert level_key(diagonal) == level_key(level)
    assert level_key(dict(level, trays=[["1x2", "T4-e", "L3-nw"]])) == level_key(level)  # a tray's order
    assert level_key(dict(level, trays=[["L3-sw", "1x2", "T4-e"]])) != level_key(level)  # not an image


# The eight symmetries of the square, in the test's own terms: a cell (row, col) is transposed
# first, then mirrored top-bottom, then left-right; the pieces' cells come from reference_rules.
SQUARE = [(t, a, d) for t in (False, True) for a in (False, True) for d in (False, True)]


def image_cell(row: int, col: int, symmetry) -> tuple[int, int]:
    transpose, across, down = symmetry
    if transpose:
        row, col = col, row
    return (9 - row if down else row), (9 - col if across else col)


def image_id(piece: str, symmetry) -> str:
    """The piece whose cells are ``piece``'s image, from the reference's table."""
    cells = [image_cell(r, c, symmetry) for r, c in ref.piece_cells(piece)]
    top, left = min(r for r, _ in cells), min(c for _, c in cells)
    cells = sorted((r - top, c - left) for r, c in cells)
    return next(p for p in ref.SHAPES if list(ref.piece_cells(p)) == cells)


def image_move(move: dict, symmetry) -> dict:
    """A move's image: a placement's cells mapped (its anchor the top-left of their box), a
    removal's cell, a swapped or turned piece (a mirror turns the other way: an odd count of
    reflections); a redeal of the whole tray is itself."""
    if move.get("token") == "remove":
        row, col = image_cell(move["row"], move["col"], symmetry)
        return dict(move, row=row, col=col)
    if move.get("token") in ("reroll", "refresh"):
        return move
    if move.get("token") == "swap":
        return dict(move, piece=image_id(move["piece"], symmetry))
    if move.get("token") == "rotate":
        turns = move["turns"] if sum(symmetry) % 2 == 0 else 4 - move["turns"]
        return dict(move, piece=image_id(move["piece"], symmetry), turns=turns)
    cells = [image_cell(move["row"] + r, move["col"] + c, symmetry) for r, c in ref.piece_cells(move["piece"])]
    return {"piece": image_id(move["piece"], symmetry), "row": min(r for r, _ in cells),
            "col": min(c for _, c in cells)}


def image_level(data: dict, symmetry) -> dict:
    rows = parse_board(data["board"]).rows()
    board = [[""] * 10 for _ in range(10)]
    for r in range(10):
        for c in range(10):
            ir, ic = image_cell(r, c, symmetry)
            board[ir][ic] = rows[r][c]
    image = dict(data, board=["".join(row) for row in board],
                 trays=[[image_id(p, symmetry) for p in tray] for tray in data["trays"]])
    if "reserve" in data:
        image["reserve"] = [image_id(p, symmetry) for p in data["reserve"]]
    return image


def redeal_level(seed: int) -> dict:
    """Sudoku or Arabic, a dense board, trays of bulky and small pieces, one or two tokens and a
    reserve of small pieces to redeal from (a metamorphic audit's generator, 2026-12-05)."""
    from random_boards import MODES, dress
    from solver.variants import find_variant

    rng = random.Random(f"images-redeal-{seed}")
    name = ("sudoku", "arabic")[seed % 2]
    grid = [["#" if rng.random() < rng.uniform(0.5, 0.8) else "." for _ in range(10)] for _ in range(10)]
    n_pumpkins = dress(rng, find_variant(name), grid, zones=(1, 5), stones=(0, 1, 2), pumpkins=(0, 1))
    bulky = ["3x3", "L5-nw", "L5-se", "2x3", "1x5", "5x1", "2x2"]
    small = ["1x1", "1x2", "2x1", "1x3", "3x1", "L3-ne"]
    trays = [[rng.choice(bulky + small) for _ in range(rng.choice((2, 3)))] for _ in range(rng.randint(1, 2))]
    pieces = sum(map(len, trays))
    goals = ([{"pumpkins": True}] if n_pumpkins and rng.random() < 0.5 else []) + [{"score": 1}]
    return {"format": "tenfold.level/1", "id": f"rd{seed}", "variant": name, "mode": MODES[name],
            "board": ["".join(r) for r in grid], "trays": trays, "goals": goals,
            "limit": rng.randint(max(1, pieces - 1), pieces), "tokens": rng.choice((1, 2)),
            "reserve": [rng.choice(small) for _ in range(rng.randint(2, 4))]}


def test_the_generators_images_of_pieces_are_the_references():
    for piece in ref.SHAPES:
        for symmetry in SQUARE:
            assert image_piece(piece, *symmetry) == image_id(piece, symmetry), (piece, symmetry)
    assert {image_id("2x3", s) for s in SQUARE} == {"2x3", "3x2"}  # a diagonal turns a piece on its side
    assert {image_id("L5-nw", s) for s in SQUARE} == {"L5-nw", "L5-ne", "L5-sw", "L5-se"}


def image_levels():
    """Levels with pumpkins, stones and limits of every variant, Arabic and Sudoku levels whose
    rotate and remove tokens the search spends, and levels that redeal from a reserve (the image's
    reserve is the reserve's image)."""
    from test_campaign_jit import big_spend_level, pumpkin_level, random_spend_level
    # random_spend_level(4) and big_spend_level(42, 28) turn an L5 or a 2x3 a quarter on their best
    # lines; redeal_level's seeds reroll (1, 25), swap (10, 14) or refresh (30) on theirs
    return ([pumpkin_level(seed).raw for seed in range(18)] + [random_spend_level(seed).raw for seed in range(12)]
            + [big_spend_level(seed).raw for seed in (42, 28)] + [redeal_level(seed) for seed in (1, 10, 14, 25, 30)])


@pytest.mark.parametrize("index", range(37))
def test_a_levels_images_play_the_same(index):
    """What makes an image a duplicate: each of the seven images under the square's symmetries
    (pieces turned with the board) has the level's proven answer, its best line's image replays on
    it to the same score, and the images share the level's key."""
    from solver.campaign import solve_level
    from solver.level import parse_level, play_solution
    from solver.moves import parse_moves

    data = image_levels()[index]
    level = parse_level(data)
    answer = solve_level(level, time_limit=60)
    assert answer.proof in ("optimal", "infeasible")
    line = level.moves_json(answer.best_line) if answer.best_line is not None else None
    for symmetry in SQUARE[1:]:
        image = image_level(data, symmetry)
        assert level_key(image) == level_key(data), symmetry
        parsed = parse_level(image)
        got = solve_level(parsed, time_limit=60)
        assert (got.solvable, got.best_score, got.proof) == (answer.solvable, answer.best_score, answer.proof), \
            symmetry
        if line is not None:
            replay = play_solution(parsed, parse_moves([image_move(m, symmetry) for m in line]), ignore_score=True)
            assert replay.ok and replay.score == answer.best_score, (symmetry, replay.problem)


def test_a_run_whose_candidates_run_out_exits_1_and_names_the_rejections(tmp_path, monkeypatch):
    """Valid input the recipe cannot fill (an audit's generate sultan --trays 12: 800 candidates,
    6.7 minutes, then exit 2 and a Python dict) is no bad input: exit 1, no pack written, the
    rejections counted in words as the closing table counts them (here two candidates a level and
    hard asked: seed 1's first two grade as others)."""
    import generator.pack

    monkeypatch.setattr(generator.pack, "MAX_CANDIDATES_PER_LEVEL", 2)
    out = tmp_path / "p.json"
    result = CliRunner().invoke(app, ["generate", "sultan", "--count", "1", "--seed", "1", "--difficulty", "hard",
                                      "--out", str(out)])
    assert result.exit_code == 1, result.output
    assert "error: only 0 of 1 levels found in 2 candidates (1 grade not wanted (" in result.output
    assert "fewer trays (--trays)" in result.output and "Traceback" not in result.output
    assert "--proof-nodes" not in result.output  # no candidate went over its budget
    assert not out.exists()
    result = CliRunner().invoke(app, ["generate", "sultan", "--count", "1", "--seed", "1", "--proof-nodes", "1",
                                      "--out", str(out)])
    assert result.exit_code == 1 and "2 proof budget exceeded" in result.output, result.output
    assert result.output.rstrip().endswith("and so may a larger --proof-nodes")
    monkeypatch.setattr(generator.pack, "MAX_PROOF_NODES", 1)  # no larger budget to suggest
    result = CliRunner().invoke(app, ["generate", "sultan", "--count", "1", "--seed", "1", "--proof-nodes", "1",
                                      "--out", str(out)])
    assert result.exit_code == 1 and "2 proof budget exceeded" in result.output, result.output
    assert "--proof-nodes" not in result.output


def test_grades_follow_the_measurements():
    def m(r, g, w, n=1000):
        return Measurements(r, g, w, False, n)

    order = [grade_of(m(0.9, 1.0, 1000)), grade_of(m(0.02, 0.6, 100)), grade_of(m(0.0, 0.3, 20)),
             grade_of(m(0.0, 0.0, 1, 10**6))]
    assert order == ["easy", "medium", "hard", "expert"]


def test_a_grade_a_cut_short_count_could_change_is_not_settled():
    """A count cut short is a floor: the whole count is any number from it to the cap (the formula
    does not look past the cap). The grade is settled exactly when every such count gives the
    same one, enumerated here count by count on 600 seeded measurements."""
    rng = random.Random(5)
    seen = Counter()
    for _ in range(600):
        floor = rng.choice([0, 1, 2, rng.randrange(1000), rng.randrange(100)])
        capped = rng.random() < 0.8
        m = Measurements(round(rng.random() ** 3, 4), round(rng.random() ** 2, 4), floor, capped,
                         rng.choice([10, 10**3, 10**5, 10**6]))
        possible = {grade_of(Measurements(m.random_win_share, m.greedy_win_share, n, True, m.proof_nodes))
                    for n in range(floor, LINES_CAP + 1)} if capped else {grade_of(m)}
        expected = possible.pop() if len(possible) == 1 else None
        assert settled_grade(m) == expected, m
        seen[expected is None, capped] += 1
    assert seen[True, True] >= 50 and seen[False, True] >= 50 and seen[False, False] >= 50, seen


def test_a_pack_never_takes_an_option_whose_grade_is_not_settled():
    def result(*grades):
        return {"status": "accepted", "level": {"board": ["." * 10] * 10, "trays": [], "goals": [],
                                                "limit": len(grades)},
                "options": [{"grade": g, "goal": 1} for g in grades]}

    quotas = dict.fromkeys(GRADE_NAMES, 1)
    have, keys, chosen = Counter(), set(), []
    assert _accept(result(None, None), quotas, have, keys, chosen) == "grade not settled (line count cut short)"
    assert _accept(result(None, "hard", None), quotas, have, keys, chosen) == ""
    assert [option["grade"] for _, option in chosen] == ["hard"] and have == Counter(hard=1)
    assert _accept(result("hard", None), quotas, have, keys, chosen) == "grade not wanted (hard)"


@pytest.mark.parametrize("args, word", [
    (["generate", "pyramids", "--count", "1", "--seed", "1", "--out", "x.json"], "kind"),
    (["generate", "halloween", "--count", "1", "--seed", "1", "--out", "x.json", "--difficulty", "insane"],
     "difficulty"),
    (["generate", "halloween", "--count", "0", "--seed", "1", "--out", "x.json"], "count"),
    (["generate", "halloween", "--count", str(10 ** 20), "--seed", "1", "--out", "x.json"], "--count: expected 1 to"),
    (["generate", "sultan", "--count", "1", "--seed", "1", "--trays", "0", "--out", "x.json"], "--trays: expected 1"),
    (["generate", "sultan", "--count", "1", "--seed", "1", "--workers", "0", "--out", "x.json"], "--workers"),
    (["generate", "sultan", "--count", "1", "--seed", "1", "--out", "."], "is a folder"),
    # a trailing slash asks for a folder: refused before the run (it wrote a file named zz)
    (["generate", "sultan", "--count", "1", "--seed", "1", "--out", "zz/"], "--out: zz/ is a folder"),
])
def test_generate_rejects_bad_arguments(args, word, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert word in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "x.json").exists() and not (tmp_path / "zz").exists()


def test_trays_reached_counts_the_trays_a_line_of_the_limit_starts():
    trays = [["1x1", "1x2", "1x3"], ["2x2", "3x3"], ["1x5"]]  # slots 0-2, 3-4, 5
    assert [trays_reached(trays, limit) for limit in range(0, 8)] == [0, 1, 1, 1, 2, 2, 3, 3]


def test_the_closing_table_shows_limits_that_cut_levels_short():
    three = [["1x1", "1x2", "1x3"]] * 3  # 9 pieces
    levels = [{"trays": three, "limit": 2}, {"trays": three, "limit": 7}, {"trays": three, "limit": 4}]
    assert limits_line(levels) == "placement limits 2-7 (median 4) of 9 pieces: lines reach at most tray 3 of 3"
    assert limits_line([{"trays": three, "limit": 9}]) is None  # every piece placed: nothing to say
    assert limits_line([{"trays": three, "limit": 9}, {"trays": three[:2], "limit": 1}]) == (
        "placement limits 1-9 (median 5) of 6/9 pieces: lines reach at most tray 3 of 3")


def test_generate_to_an_unwritable_place_is_exit_2(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    result = CliRunner().invoke(app, ["generate", "halloween", "--count", "1", "--seed", "1", "--trays", "2",
                                      "--out", str(blocker / "pack.json")])
    assert result.exit_code == 2
    assert "Traceback" not in result.output and "error:" in result.output


@pytest.mark.parametrize("workers", [1, 2])
def test_stop_keeps_the_results_before_it_and_resumes_to_the_same_pack(base_pack, tmp_path, workers):
    """``stop`` (how Ctrl-C reaches the generator) ends the run with ``Interrupted``; the result
    in hand when it is asked is dropped, since the stop may have cut its proof short. With
    workers, those under way are killed (``solver/workers.py``), and the resumed run is the same
    pack."""
    from generator.pack import Interrupted

    out = tmp_path / "stopped.json"
    asked = []
    with pytest.raises(Interrupted) as stopped:
        generate_pack(KIND, COUNT, SEED, out, TRAYS, workers=workers,
                      stop=lambda: asked.append(1) or len(asked) == 3)
    partial = tmp_path / "stopped.json.partial.jsonl"
    assert stopped.value.kept == 2 and stopped.value.partial == partial
    lines = partial.read_text().splitlines()
    assert len(lines) == 3 and [json.loads(line)["index"] for line in lines[1:]] == [0, 1]
    assert not out.exists()
    report = generate_pack(KIND, COUNT, SEED, out, TRAYS, workers=workers)
    assert json.dumps(report.pack, indent=1) == base_pack


def test_runs_stopped_before_their_first_result_resume_to_the_same_pack(base_pack, tmp_path):
    """Two runs stopped before any result (a Ctrl-C at once, or a Dask scheduler that never
    answers) wrote the partial file's header twice, and every later run then failed on it
    (KeyError, a traceback). One header now; a file an older run left so is read past it."""
    from generator.pack import Interrupted

    out = tmp_path / "early.json"
    partial = tmp_path / "early.json.partial.jsonl"
    for _ in range(2):
        with pytest.raises(Interrupted) as stopped:
            generate_pack(KIND, COUNT, SEED, out, TRAYS, stop=lambda: True)
        assert stopped.value.kept == 0
    assert len(partial.read_text().splitlines()) == 1
    partial.write_text(partial.read_text() * 2)  # as an older run left it
    report = generate_pack(KIND, COUNT, SEED, out, TRAYS)
    assert json.dumps(report.pack, indent=1) == base_pack


def test_a_resumed_result_that_no_longer_holds_is_proven_anew(base_pack, tmp_path):
    """A reviewer edited an accepted line of the partial file (a stone row, best + 1000) and the
    resumed run packed it with exit 0. A resumed level must be the one its seed builds and its
    solution must replay to its best, a rejection as the generator writes one; edited ones are
    proven again, so the pack is the same."""
    from generator.pack import Interrupted

    out = tmp_path / "edited.json"
    partial = tmp_path / "edited.json.partial.jsonl"
    with pytest.raises(Interrupted):
        generate_pack(KIND, COUNT, SEED, out, TRAYS, stop=lambda: len(partial.read_text().splitlines()) > 6)
    lines = [json.loads(line) for line in partial.read_text().splitlines()]
    accepted = [e for e in lines[1:] if e["result"]["status"] == "accepted"]
    assert len(accepted) >= 5
    accepted[0]["result"]["level"]["board"][0] = "SSSSSSSSSS"
    accepted[1]["result"]["best"] += 1000
    accepted[1]["result"]["level"]["best"]["score"] += 1000
    accepted[2]["result"]["level"]["solution"][0]["row"] += 1
    # rejections without their reason (a KeyError once), or with one that is not text
    accepted[3]["result"] = {"seed": accepted[3]["result"]["seed"], "status": "rejected"}
    accepted[4]["result"] = {"seed": accepted[4]["result"]["seed"], "status": "rejected", "reason": [1], "nodes": 0}
    partial.write_text("".join(json.dumps(e) + "\n" for e in lines))
    report = generate_pack(KIND, COUNT, SEED, out, TRAYS)
    assert json.dumps(report.pack, indent=1) == base_pack
    logged = Counter(json.loads(line)["index"] for line in partial.read_text().splitlines()[1:])
    assert all(logged[e["index"]] == 2 for e in accepted[:5])  # those five were proven again
    assert all(logged[e["index"]] == 1 for e in accepted[5:])  # the others were not


@pytest.mark.parametrize("stop", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_cli_generate_ctrl_c_exits_130_and_keeps_the_partial_file(base_pack, tmp_path, monkeypatch, stops_as_ctrl_c,
                                                                  stop):
    """Ctrl-C, and SIGTERM or SIGHUP as the console script takes them (they killed the process
    silently), keep the results so far for the same command to resume."""
    import os
    import signal

    import generator.pack as pack_module

    real = pack_module.build_candidate
    built = []

    def build_then_ctrl_c(*args, **kw):
        result = real(*args, **kw)
        built.append(result)
        if len(built) == 2:
            os.kill(os.getpid(), getattr(signal, stop))
        return result

    monkeypatch.setattr(pack_module, "build_candidate", build_then_ctrl_c)
    out = tmp_path / "cli.json"
    args = ["generate", KIND, "--count", str(COUNT), "--seed", str(SEED), "--trays", str(TRAYS), "--out", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 130, result.output
    partial = f"{out}.partial.jsonl"
    assert f"interrupted: 1 candidate results kept in {partial}; the same command resumes" in result.stderr
    assert not out.exists() and len(open(partial).read().splitlines()) == 2
    monkeypatch.setattr(pack_module, "build_candidate", real)
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert out.read_text() == base_pack + "\n" and not os.path.exists(partial)
    shown = limits_line(json.loads(base_pack)["levels"])
    assert shown is not None and shown in result.stdout  # halloween limits fall before the last piece


def test_a_scheduler_without_the_dask_backend_is_refused(tmp_path):
    with pytest.raises(RulesError, match="--scheduler: goes with --backend dask"):
        generate_pack(KIND, COUNT, SEED, tmp_path / "p.json", TRAYS, scheduler="tcp://127.0.0.1:1")
    assert not list(tmp_path.iterdir())  # nothing written, not even a partial file


def test_the_dask_backend_refuses_local_workers_and_says_it_is_connecting(tmp_path):
    """``--workers`` is the local backend's (an auditor's ``--backend dask --workers 2`` passed in
    silence); a scheduler that does not answer took Dask's connect timeout, 30 s by default, with
    nothing said: a line says it is connecting, and for how long it tries (the command draws it
    on a terminal only, as its progress bar: a log reads the error alone)."""
    import dask

    # distributed's own settings loaded first: a dask.config.set of a key under a section not yet
    # there removes the whole section on its way out, and later clusters lose every default of it
    pytest.importorskip("distributed")
    with pytest.raises(RulesError, match="--workers: the local backend's processes; with --backend dask"):
        generate_pack(KIND, COUNT, SEED, tmp_path / "p.json", TRAYS, workers=2, backend="dask",
                      scheduler="tcp://127.0.0.1:1")
    heard = []
    with dask.config.set({"distributed.comm.timeouts.connect": "0.2s"}), \
            pytest.raises(RulesError, match="--scheduler: cannot reach 'tcp://127.0.0.1:1'"):
        generate_pack(KIND, COUNT, SEED, tmp_path / "p.json", TRAYS, backend="dask", scheduler="tcp://127.0.0.1:1",
                      connecting=heard.append)
    assert heard == ["connecting to the Dask scheduler at tcp://127.0.0.1:1 (it gives up after 0.2s)"]
    assert not list(tmp_path.iterdir())  # nothing written, not even a partial file


def test_a_packs_id_and_title_name_its_non_default_options(base_pack):
    """Packs of one seed with other trays (or a difficulty) are other packs: a server holding two
    used to refuse the second for its id."""
    from generator.pack import _options
    from generator.recipes import RECIPES

    pack = json.loads(base_pack)
    assert (pack["id"], pack["title"]) == (f"{KIND}-{SEED}-{TRAYS}trays", f"Halloween Challenge Campaign (seed {SEED}, "
                                                                       f"{TRAYS} trays)")
    recipe = RECIPES["sultan"]
    budget = recipe.node_budget
    assert _options(recipe, recipe.default_trays, None, budget) == []  # the shipped packs' ids: kind-seed
    assert _options(recipe, recipe.default_trays, "hard", budget) == ["hard"]
    assert _options(recipe, recipe.default_trays, None, budget + 1) == [f"{budget + 1} proof nodes"]


def test_another_runs_partial_file_is_moved_aside_with_a_note(tmp_path):
    """A run with another seed (a typo, say) at the same --out threw the first run's results away
    without a word: they are now kept as OUT.partial.jsonl.prev, and the note says so and how
    the two runs differ. An older generator's results (which only that version can resume) are
    moved aside too, with a note naming its version (an audit: they were deleted without a
    word), and a file that is no partial file at all is refused, untouched."""
    from generator.pack import Interrupted

    out = tmp_path / "typo.json"
    partial = stopped_run(out, 2)
    before = partial.read_text()
    notes = []
    with pytest.raises(Interrupted):
        generate_pack(KIND, COUNT, SEED + 1, out, TRAYS, stop=lambda: True, note=notes.append)
    aside = tmp_path / "typo.json.partial.jsonl.prev"
    assert aside.read_text() == before
    assert len(notes) == 1 and str(aside) in notes[0] and f"--seed {SEED} (now {SEED + 1})" in notes[0]
    assert f"{len(before.splitlines()) - 1} candidate results" in notes[0]
    header = json.loads(partial.read_text().splitlines()[0])
    assert header["params"]["seed"] == SEED + 1  # the new run's own file
    aside.unlink()  # (else the run below would resume from it: the next test)
    old = json.loads(before.splitlines()[0])
    old["params"]["version"] = str(int(old["params"]["version"]) - 1)
    partial.write_text(json.dumps(old) + "\n" + "".join(line + "\n" for line in before.splitlines()[1:]))
    older = partial.read_text()
    notes.clear()
    with pytest.raises(Interrupted):
        generate_pack(KIND, COUNT, SEED, out, TRAYS, stop=lambda: True, note=notes.append)
    assert aside.read_text() == older
    assert len(notes) == 1 and f"version {old['params']['version']}, now {GENERATOR_VERSION}" in notes[0]
    assert "cannot resume" in notes[0] and str(aside) in notes[0]
    for text in ("not json, no newline at the end", '{"a header": "of something else"}\n{"x": 1}\n'):
        partial.write_text(text)
        with pytest.raises(FormatError, match="is not a partial file of tenfold generate"):
            generate_pack(KIND, COUNT, SEED, out, TRAYS, stop=lambda: True, note=notes.append)
        assert partial.read_text() == text and not out.exists()


@pytest.mark.parametrize("typo_results", [False, True, "gone"])
def test_the_first_command_run_again_after_a_typo_resumes_its_results(base_pack, tmp_path, monkeypatch,
                                                                    typo_results):
    """A helper's audit: a run, a run with a mistyped seed at the same --out (the first one's
    results set aside to .prev), then the first command again, which moved the typo's file
    onto .prev: the first run's results were lost. Now the files change places (the typo's
    results kept at .prev) and the first run resumes, to the same pack, proving only what it
    had not; with none of the typo's results, its file goes and the first run's comes back, as
    they do where the typo's file is gone (its run finished: a review found them left at .prev)."""
    from generator.pack import Interrupted
    from generator.recipes import candidate_seed

    out = tmp_path / "again.json"
    partial = stopped_run(out, 3)
    first = partial.read_text()
    aside = tmp_path / "again.json.partial.jsonl.prev"

    class Stop(Exception):
        pass

    def stop(index, result, accepted):
        raise Stop

    if typo_results:  # stopped once its first candidate is done
        with pytest.raises(Stop):
            generate_pack(KIND, COUNT, SEED + 1, out, TRAYS, on_candidate=stop)
    else:  # stopped before any
        with pytest.raises(Interrupted):
            generate_pack(KIND, COUNT, SEED + 1, out, TRAYS, stop=lambda: True)
    typo = partial.read_text()
    assert aside.read_text() == first and (len(typo.splitlines()) > 1) == bool(typo_results)
    if typo_results == "gone":
        partial.unlink()
    built = generate_counting_builds(out, base_pack, monkeypatch)
    earlier = [json.loads(line)["index"] for line in first.splitlines()[1:]]
    assert len(earlier) >= 3 and not {candidate_seed(KIND, SEED, i) for i in earlier} & set(built)  # resumed
    if typo_results is True:
        assert aside.read_text() == typo  # the typo's results, kept in their turn
    else:
        assert not aside.exists()


def test_results_under_other_rules_are_not_resumed(base_pack, tmp_path, monkeypatch):
    """A partial file whose rules fingerprint is not today's (written before a change of the
    rules' data) is set aside, not resumed: every candidate is built again, to the same pack."""
    out = tmp_path / "rules.json"
    partial = stopped_run(out, 3)
    lines = partial.read_text().splitlines()
    header = json.loads(lines[0])
    assert header["params"]["rules"] == rules_fingerprint()
    header["params"]["rules"] = "0" * 16
    partial.write_text(json.dumps(header) + "\n" + "".join(line + "\n" for line in lines[1:]))
    built = generate_counting_builds(out, base_pack, monkeypatch)
    from generator.recipes import candidate_seed

    earlier = [json.loads(line)["index"] for line in lines[1:]]
    assert len(earlier) >= 3 and {candidate_seed(KIND, SEED, i) for i in earlier} <= set(built)  # none kept
    aside = tmp_path / "rules.json.partial.jsonl.prev"  # set aside, as another run's results are
    assert aside.read_text() == json.dumps(header) + "\n" + "".join(line + "\n" for line in lines[1:])


def test_the_rules_fingerprint_follows_the_rules_data(monkeypatch):
    """A change to a variant's points, supply, modes or zones changes the fingerprint."""
    from solver.variants import Mode, VARIANTS

    halloween, arabic, sudoku = VARIANTS["halloween"], VARIANTS["arabic"], VARIANTS["sudoku"]
    today = rules_fingerprint()
    changes = [(halloween, "streak_bonus", halloween.streak_bonus + 2),
               (arabic, "supply", arabic.supply[1:]),
               (arabic, "modes", {**arabic.modes, "marathon": Mode("marathon", 4)}),
               (sudoku, "regions", sudoku.regions[:-1]),
               (sudoku, "cell_points", 1)]
    seen = {today}
    for variant, name, value in changes:
        with monkeypatch.context() as patch:
            patch.setattr(variant, name, value)
            changed = rules_fingerprint()
        assert changed not in seen, name
        seen.add(changed)
    assert rules_fingerprint() == today


def test_a_proof_budget_keeps_exactly_the_candidates_proven_within_it(monkeypatch):
    """--proof-nodes N keeps a candidate when its proof ends within N nodes, exactly: the search
    reads its node count every 4,096 nodes, so a budget of 10 kept proofs of 115 nodes. A
    complete proof's node count does not depend on the budget, so over seeded candidates each one
    proven in n nodes is kept, the same level, with a budget of n, and turned down with n - 1.
    (The grading after the proof, nine tenths of a candidate's time, is left out.)"""
    from generator import recipes
    from generator.recipes import build_candidate, candidate_seed

    from generator.grade import Measurements

    monkeypatch.setattr(recipes, "measure", lambda level, goals, nodes, seed: [
        Measurements(random_win_share=0.0, greedy_win_share=0.0, winning_lines=1, winning_lines_capped=False,
                     proof_nodes=nodes) for _ in goals])
    proven = 0
    for index in range(60):
        seed = candidate_seed(KIND, 5, index)
        free = build_candidate(KIND, TRAYS, seed, 200_000)
        if free["status"] != "accepted":
            continue
        proven += 1
        n = free["nodes"]
        kept = build_candidate(KIND, TRAYS, seed, n)
        assert {**kept, "seconds": 0} == {**free, "seconds": 0}, index
        tight = build_candidate(KIND, TRAYS, seed, n - 1) if n > 1 else None
        if tight is not None:
            assert tight["status"] == "rejected" and tight["reason"] == "proof budget exceeded", (index, n)
    assert proven >= 30


def test_proof_nodes_through_the_cli_sets_the_budget_and_is_recorded(tmp_path):
    """A designer trades time for longer levels with --proof-nodes: every kept level's proof is
    within it, the pack records it (its id and title too: other candidates are kept, so it is
    another pack), its recorded command writes the same bytes, and a budget out of range is one
    line, exit 2, nothing written."""
    import shlex

    runner = CliRunner()
    out = tmp_path / "small.json"
    result = runner.invoke(app, ["generate", KIND, "--count", "2", "--seed", "3", "--trays", "3",
                                 "--proof-nodes", "300", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    pack = json.loads(out.read_text())
    assert summary["proof_node_budget"] == pack["generator"]["proof_node_budget"] == 300
    assert all(lv["measurements"]["proof_nodes"] <= 300 for lv in pack["levels"])
    assert any(r["reason"] == "proof budget exceeded" for r in summary["rejected"])
    assert pack["id"] == f"{KIND}-3-3trays-300proofnodes" and "300 proof nodes" in pack["title"]
    command = shlex.split(pack["generator"]["command"])
    assert "--proof-nodes" in command and command[command.index("--proof-nodes") + 1] == "300"
    again = tmp_path / "again.json"
    result = runner.invoke(app, [str(again) if w == "PACK.json" else w for w in command[1:]])
    assert result.exit_code == 0, result.output
    assert again.read_bytes() == out.read_bytes()
    default = json.loads(runner.invoke(app, ["generate", KIND, "--count", "1", "--seed", "3", "--trays", "3",
                                             "--out", str(tmp_path / "d.json"), "--json"]).stdout)
    assert default["proof_node_budget"] == 400_000 and default["id"] == f"{KIND}-3-3trays"
    for bad in ("0", "10000000001"):
        result = runner.invoke(app, ["generate", KIND, "--count", "1", "--seed", "3", "--proof-nodes", bad,
                                     "--out", str(tmp_path / "bad.json")])
        assert result.exit_code == 2 and result.output.startswith("error: --proof-nodes: expected 1 to "), result.output
        assert len(result.output.strip().splitlines()) == 1
        assert not list(tmp_path.glob("bad.json*"))


def test_a_run_with_another_proof_budget_does_not_resume_the_first(tmp_path):
    """Results proven within another budget are other results (a rejection may be an acceptance
    now): the partial file is moved aside, and the note names --proof-nodes."""
    from generator.pack import Interrupted

    out = tmp_path / "budget.json"
    stopped_run(out, 2)
    notes = []
    with pytest.raises(Interrupted):
        generate_pack(KIND, COUNT, SEED, out, TRAYS, stop=lambda: True, note=notes.append, proof_nodes=1000)
    assert len(notes) == 1 and "--proof-nodes 400000 (now 1000)" in notes[0], notes


@pytest.mark.parametrize("atomic", [True, False])
def test_two_partial_files_change_places_whole(tmp_path, monkeypatch, atomic):
    """``_exchange`` (the typo run's and this run's partial files): on Linux one renameat2 call,
    so a kill leaves each file under one of the two names (a review: a kill between three renames
    left the other run's results under a hidden third name); without it, three renames."""
    import ctypes
    import os

    import generator.pack as pack_module

    a, b = tmp_path / "p.json.partial.jsonl", tmp_path / "p.json.partial.jsonl.prev"
    a.write_text("this run's")
    b.write_text("the other run's")
    real_replace = os.replace
    replaced = []
    monkeypatch.setattr(os, "replace", lambda *args: replaced.append(args) or real_replace(*args))
    if not atomic:
        monkeypatch.setattr(ctypes, "CDLL", lambda *args, **kwargs: object())  # a C library without it
    pack_module._exchange(a, b)
    assert (a.read_text(), b.read_text()) == ("the other run's", "this run's")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([a.name, b.name])
    assert len(replaced) == (0 if atomic else 3)


def test_a_candidates_construction_line_wins_it_on_the_reference_rules():
    """The construction's line (the proof's hint) wins the candidate level it builds, judged on the
    reference rules: every pumpkin cleared and every piece placed where the level asks, within its
    limit; each Halloween level has 2 to 5 pumpkins, each Sultan level 4 stones. (A limit cut
    before the placement that clears the last pumpkin makes candidates the proof then rejects;
    the packs built here are compared only with themselves.)"""
    from generator.recipes import Unbuildable, candidate_level, candidate_seed

    built = 0
    for kind, trays in (("halloween", 2), ("halloween", 5), ("sultan", 1), ("sultan", 2)):
        for index in range(30):
            try:
                level, line, _ = candidate_level(kind, trays, candidate_seed(kind, 7, index))
            except Unbuildable:
                continue
            built += 1
            data = level.to_json()
            data["solution"] = [move.to_json() for move in line]
            ok, why, _ = reference_check(data)
            assert ok, (kind, trays, index, why)
            pieces = sum(len(tray) for tray in data["trays"])
            assert 1 <= data["limit"] <= pieces and len(line) <= data["limit"], (kind, index)
            pumpkins = sum(row.count("P") for row in data["board"])
            if kind == "halloween":
                assert 2 <= pumpkins <= 5 and {"pumpkins": True} in data["goals"], (index, data)
            else:
                assert pumpkins == 0 and sum(row.count("S") for row in data["board"]) == 4, (index, data)
                assert {"place_all": True} in data["goals"] and data["limit"] == pieces, (index, data)
    assert built >= 100, built


def test_score_goals_stars_and_quotas_follow_the_documented_rules():
    """docs/rules-choices.md: a score goal is 30/50/70/85/100 % of the proven best, max(1,
    ceil(fraction x best)); the stars are [goal, midpoint rounded up, best]; without
    --difficulty a pack's levels are spread evenly over the four grades, the easier ones first
    where the count does not divide. Worked out here in exact fractions."""
    import math
    from fractions import Fraction

    from generator.pack import _choose_option, _quotas
    from generator.recipes import finish_level, score_goals

    for best in [1, 2, 3, 7, 10, 20, 33, 100, 101, 997, 2345]:
        expected = [max(1, math.ceil(Fraction(p, 100) * best)) for p in (30, 50, 70, 85, 100)]
        assert score_goals(best) == expected, best
    assert score_goals(7) == [3, 4, 5, 6, 7] and score_goals(20) == [6, 10, 14, 17, 20]
    candidate = {"level": {"goals": [{"pumpkins": True}]}, "best": 9}
    for goal, stars in ((3, [3, 6, 9]), (4, [4, 7, 9]), (9, [9, 9, 9]), (8, [8, 9, 9])):
        level = finish_level(candidate, {"goal": goal, "grade": "hard", "difficulty": 0.8, "measurements": {}},
                             "x-001")
        assert level["stars"] == stars and level["goals"] == [{"pumpkins": True}, {"score": goal}], goal
        assert (level["id"], level["grade"], level["difficulty"]) == ("x-001", "hard", 0.8)
    assert candidate["level"]["goals"] == [{"pumpkins": True}]  # the candidate is left as it was
    for count, split in ((1, [1, 0, 0, 0]), (3, [1, 1, 1, 0]), (4, [1, 1, 1, 1]), (6, [2, 2, 1, 1]),
                         (32, [8, 8, 8, 8]), (35, [9, 9, 9, 8])):
        assert _quotas(count, None) == dict(zip(GRADE_NAMES, split)), count
        assert _quotas(count, "hard") == {"hard": count}
    # the option whose grade has the most room; on a tie, the easier grade; a full grade never
    options = {"options": [{"grade": g, "goal": n} for n, g in enumerate(GRADE_NAMES, 1)]}
    quotas = dict.fromkeys(GRADE_NAMES, 2)
    assert _choose_option(options, quotas, Counter())["grade"] == "easy"
    assert _choose_option(options, quotas, Counter(easy=1, medium=1))["grade"] == "hard"
    assert _choose_option(options, quotas, Counter(easy=2, medium=2, hard=2, expert=1))["grade"] == "expert"
    assert _choose_option(options, quotas, Counter(easy=2, medium=2, hard=2, expert=2)) is None


def test_a_candidate_with_just_enough_clearable_tiles_gets_a_pumpkin_on_each(monkeypatch):
    """A Halloween candidate needs at least 2 pumpkins, on starting tiles its line clears: with
    exactly 2 such tiles it is built, a pumpkin on each; with 1 it is turned down."""
    from generator import recipes
    from generator.construct import construct
    from solver.variants import find_variant

    real = None
    for attempt in range(50):
        real = construct(find_variant("halloween"), random.Random(attempt), 2, 3, 0.85)
        if real is not None and sum(bin(m).count("1") for m in real.cleared_originals) >= 2:
            break
    cells = [c for c in range(100) if any(m >> c & 1 for m in real.cleared_originals)]
    for keep in (cells[:2], cells[:1]):
        kept = sum(1 << c for c in keep)
        built = type(real)(real.board, real.trays, real.line, [m & kept for m in real.cleared_originals])
        monkeypatch.setattr(recipes, "construct", lambda *args, built=built: built)
        if len(keep) == 2:
            level, _, _ = recipes.candidate_level("halloween", 2, 1)
            assert level.board.pumpkins == kept
        else:
            with pytest.raises(recipes.Unbuildable, match="too few clearable tiles"):
                recipes.candidate_level("halloween", 2, 1)


def test_a_resumed_result_must_be_the_level_its_seed_builds_field_by_field():
    """``_still_holds``: an accepted result read back is kept only when every field the seed's
    construction fixes is as built and it has one grading option per goal fraction: a limit,
    tokens, trays or goals edited in the partial file (the solution still replaying), or an
    option lost, makes it proven anew."""
    import copy

    from generator.pack import _still_holds
    from generator.recipes import build_candidate, candidate_seed

    result = next(r for r in (build_candidate(KIND, TRAYS, candidate_seed(KIND, SEED, i)) for i in range(20))
                  if r["status"] == "accepted")
    assert _still_holds(KIND, TRAYS, result)
    pieces = sum(len(tray) for tray in result["level"]["trays"])
    edits = [("limit", pieces + 1), ("tokens", 1), ("trays", result["level"]["trays"] + [["1x1"]]),
             ("goals", [{"pumpkins": True}, {"place_all": True}])]
    for key, value in edits:
        edited = copy.deepcopy(result)
        edited["level"][key] = value
        assert not _still_holds(KIND, TRAYS, edited), key
    edited = copy.deepcopy(result)
    edited["level"]["best"]["score"] += 1  # a claim the solution does not reach
    assert not _still_holds(KIND, TRAYS, edited)
    edited = copy.deepcopy(result)
    del edited["options"][-1]  # one grading option a goal fraction: a line lost its last
    assert not _still_holds(KIND, TRAYS, edited)


def test_a_pack_turns_down_a_candidate_whose_level_it_already_holds_in_a_mirror():
    """``_accept``: a level kept once, the same level mirrored comes again (another candidate seed
    may build it): turned down as a duplicate, its grade's count unchanged; another level is kept."""
    board = ["#........."] + [".........."] * 8 + ["....S....."]

    def result(board, trays, grade="easy"):
        return {"status": "accepted", "options": [{"grade": grade, "goal": 1}],
                "level": {"board": board, "trays": trays, "goals": [{"pumpkins": True}], "limit": 3}}

    quotas = dict.fromkeys(GRADE_NAMES, 5)
    have, keys, chosen = Counter(), set(), []
    assert _accept(result(board, [["L3-nw", "1x2", "T4-e"]]), quotas, have, keys, chosen) == ""
    mirrored = result([r[::-1] for r in board], [["T4-w", "L3-ne", "1x2"]], "hard")
    assert _accept(mirrored, quotas, have, keys, chosen) == "duplicate (mirror images and turns included)"
    assert have == Counter(easy=1) and len(chosen) == 1
    assert _accept(result(board, [["L3-sw", "1x2", "T4-e"]], "hard"), quotas, have, keys, chosen) == ""
    assert have == Counter(easy=1, hard=1) and len(chosen) == 2


def test_a_run_stops_judging_at_the_candidate_that_fills_the_pack(base_pack, tmp_path):
    """The closing table's candidate count is the candidates judged up to the one that filled the
    pack, not the rest of the batch they were built in: the last one heard brought the pack to
    COUNT levels, every one before it left room."""
    heard = []
    report = generate_pack(KIND, COUNT, SEED, tmp_path / "count.json", TRAYS,
                           on_candidate=lambda index, result, accepted: heard.append((index, accepted)))
    assert json.dumps(report.pack, indent=1) == base_pack
    assert [i for i, _ in heard] == list(range(len(heard))) and report.candidates == len(heard)
    assert heard[-1][1] == COUNT and all(accepted < COUNT for _, accepted in heard[:-1])
    assert report.candidates == COUNT + sum(report.rejected.values())


def _hand_made_report(levels: int = 4):
    """A run's report made by hand: (the first ``levels`` of) four levels of one tray of three
    pieces, limits 2, 3, 1, 3; two easy, then two hard."""
    from generator.pack import PackReport

    tray = [["1x1", "1x2", "1x3"]]
    pack = {"id": "halloween-7", "title": "Halloween pack 7",
            "levels": [{"trays": tray, "limit": n} for n in (2, 3, 1, 3)][:levels]}
    rejected = Counter()
    rejected["duplicate (mirror images and turns included)"] += 1  # inserted first, the least frequent
    rejected["proof budget exceeded"] += 5
    rejected["grade not wanted (hard)"] += 2
    per_grade = Counter(easy=min(levels, 2), hard=max(levels - 2, 0))
    return PackReport(pack, per_grade, rejected, levels + 8, [100, 200, 300, 404][:levels],
                      400_000, [0.5, 1.0, 2.0, 4.5][:levels])


def test_the_json_summary_counts_a_hand_made_report():
    """docs/json.md's ``generate``: every grade counted (0 for the ones not kept), the median of
    four limits is the mean of the middle two, proof means (not medians) over the levels, this
    run's seconds to 3 decimals, rejections most frequent first."""
    from pathlib import Path

    from cli.generate_cmd import summary_json

    summary = summary_json(_hand_made_report(), Path("out/p.json"), 12.34567)
    assert summary == {
        "out": "out/p.json", "id": "halloween-7", "levels": 4, "candidates": 12,
        "per_grade": {"easy": 2, "medium": 0, "hard": 2, "expert": 0},
        "limits": {"min": 1, "median": 2.5, "max": 3},
        "proof_nodes_mean": 251.0, "proof_node_budget": 400_000, "proof_seconds_mean": 2.0, "seconds": 12.346,
        "rejected": [{"reason": "proof budget exceeded", "count": 5}, {"reason": "grade not wanted (hard)", "count": 2},
                     {"reason": "duplicate (mirror images and turns included)", "count": 1}]}
    assert list(summary) == ["out", "id", "levels", "candidates", "per_grade", "limits", "proof_nodes_mean",
                             "proof_node_budget", "proof_seconds_mean", "seconds", "rejected"]  # the table's order


def test_the_closing_table_of_a_hand_made_report():
    """The closing table says the same figures: levels (one level, two levels) and candidates,
    each grade's count, the mean proof effort in nodes and seconds, the run's time, the limits,
    and the rejections most frequent first."""
    from pathlib import Path

    from cli.generate_cmd import closing_table

    assert closing_table(_hand_made_report(), Path("out/p.json"), 12.34567).splitlines() == [
        "wrote out/p.json: 4 levels from 12 candidates",
        "grade     levels",
        "easy           2",
        "medium         0",
        "hard           2",
        "expert         0",
        "proof effort: mean 251 nodes (budget 400,000), 2.00 s per accepted level",
        "run time: 12.3 s for 12 candidates (resumed ones take none)",
        "placement limits 1-3 (median 2.5) of 3 pieces: lines reach at most tray 1 of 1",
        "rejected candidates:",
        "      5  proof budget exceeded",
        "      2  grade not wanted (hard)",
        "      1  duplicate (mirror images and turns included)",
    ]
    assert closing_table(_hand_made_report(2), Path("p.json")).startswith("wrote p.json: 2 levels from 10 ")
    assert closing_table(_hand_made_report(1), Path("p.json")).startswith("wrote p.json: 1 level from 9 ")


def test_a_shortfall_prints_no_json_and_its_notes_and_error_go_to_stderr(tmp_path, monkeypatch):
    """docs/json.md: a generate whose candidates run out prints no JSON, one ``error:`` line and
    exit 1; docs/cli.md: notes go to stderr. stdout stays empty, with --json or without."""
    import cli.generate_cmd
    from generator.pack import Shortfall

    def runs_out(*args, note, **kw):
        note("a note from the run")
        raise Shortfall(0, 1, 2, Counter({"grade not wanted (hard)": 2}), 400_000)

    monkeypatch.setattr(cli.generate_cmd, "generate_pack", runs_out)
    for extra in ([], ["--json"]):
        result = CliRunner().invoke(app, ["generate", "halloween", "--count", "1", "--seed", "1",
                                          "--out", str(tmp_path / "p.json"), *extra])
        assert result.exit_code == 1 and result.stdout == "", result.output
        lines = result.stderr.splitlines()
        assert lines[0] == "note: a note from the run" and len(lines) == 2, lines
        assert lines[1].startswith("error: only 0 of 1 levels found in 2 candidates (2 grade not wanted (hard))")
        assert not (tmp_path / "p.json").exists()


def test_the_connecting_line_is_drawn_on_a_terminal_only(monkeypatch, capsys):
    """docs/cli.md: on a terminal a line says generate is connecting to the Dask scheduler; off
    one (a log, a pipe), nothing: a log reads the error alone."""
    import cli.console
    from cli.generate_cmd import _on_a_terminal

    monkeypatch.setattr(cli.console, "terminal", lambda: False)
    _on_a_terminal("connecting to the Dask scheduler at tcp://127.0.0.1:1")
    assert capsys.readouterr() == ("", "")
    monkeypatch.setattr(cli.console, "terminal", lambda: True)
    _on_a_terminal("connecting to the Dask scheduler at tcp://127.0.0.1:1")
    said = capsys.readouterr()
    assert said.out == "" and said.err.endswith("connecting to the Dask scheduler at tcp://127.0.0.1:1\n")
