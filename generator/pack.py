"""Generate a pack: candidates in index order, graded, deduplicated, streamed to disk, resumable.

Candidate ``i`` of a pack is built from a seed derived from (kind, pack
seed, i) alone, so the result does not depend on the number of workers or
the backend; the assembler walks the results in index order and decides
which to keep. Every candidate result is appended to ``OUT.partial.jsonl``
as soon as it is known; a rerun with the same arguments reuses that file
and carries on where it stopped; an accepted result read back must still be
the level its seed builds, with a solution that replays to its best, or it
is proven anew (``_still_holds``). The command (``cli/generate_cmd.py``)
writes the finished pack atomically and removes the partial file.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import json
import os
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from solver.board import parse_board
from solver.errors import FormatError, RulesError, TenfoldError, clipped
from solver.level import PACK_FORMAT, parse_level, play_solution
from solver.pieces import get_piece
from solver.variants import rules_fingerprint
from solver.workers import answers_in_order, check_workers

from .grade import GRADE_NAMES, Measurements
from .recipes import (RECIPES, Recipe, Unbuildable, build_candidate, candidate_level, candidate_seed, finish_level,
                      grading_option, score_goals)

# Bumped whenever the same command and seed write a different pack (an interrupted run's
# partial results are then not resumed; a change of the rules as data, the variants and the
# piece table, does that by itself: solver.variants.rules_fingerprint): 2 = the campaign
# search's final-tray rule changed the proofs' node counts, and with them which candidates
# the grading keeps; 3 = that rule also drops lines that can no longer clear every pumpkin
# (node counts again); 4 = with one
# placement left, it must clear every pumpkin and use every pending placement at once; 5 = the
# bound counts only the pieces placeable before the limit (a few nodes fewer); 6 = a state
# known to meet no goal is pruned when reached again (node counts again); 7 = the pumpkin test
# also runs where one placement is left and it is the next tray's first; 8 = a state reached again
# is pruned when its points plus the most its lines added cannot beat the best; 9 = the start of
# the tray where lines end is dropped when some pumpkin can no longer be cleared in time; 10 = the
# winning-line count is memoised on the state and points (it stopped short, counting 0, on many),
# and an option whose grade turns on a count cut short is not taken; 11 = a level's images on the
# diagonals and under turns are duplicates too, not only its left-right and top-bottom mirrors;
# 12 = a candidate is kept when its proof ends within the node budget exactly (the search reads
# its count every 4,096 nodes, and up to 4,095 over were kept), and the budget is a parameter.
GENERATOR_VERSION = "12"
MAX_CANDIDATES_PER_LEVEL = 400
MAX_COUNT = 100_000  # levels in one pack
MAX_TRAYS = 12  # trays per level
MAX_PROOF_NODES = 10_000_000_000  # a candidate's proof budget (10^10 nodes: hours of search)


@dataclass
class PackReport:
    pack: dict[str, Any]
    per_grade: Counter = field(default_factory=Counter)
    rejected: Counter = field(default_factory=Counter)
    candidates: int = 0
    proof_nodes: list[int] = field(default_factory=list)  # of each kept level's proof
    proof_node_budget: int = 0  # of each candidate's proof
    proof_seconds: list[float] = field(default_factory=list)  # this machine's (or a resumed run's) time


# The eight symmetries of the square, as (transpose, across, down): the transpose (rows for
# columns) first, then a left-right and a top-bottom mirror. Each maps every variant's zone
# families onto themselves (rows and columns swap, and so do Sudoku's 2x5 and 5x2 boxes), so a
# level and its image, pieces turned with the board, play the same.
SYMMETRIES = [(transpose, across, down) for transpose in (False, True) for across in (False, True)
              for down in (False, True)]


def image_rows(rows: list[str], transpose: bool = False, across: bool = False, down: bool = False) -> list[str]:
    """Rows of text (a board, or a piece's mask) under one of the ``SYMMETRIES``."""
    grid = ["".join(column) for column in zip(*rows)] if transpose else list(rows)
    grid = grid[::-1] if down else grid
    return [row[::-1] for row in grid] if across else grid


def image_piece(piece_id: str, transpose: bool = False, across: bool = False, down: bool = False) -> str:
    """A piece's image, by id, under one of the ``SYMMETRIES``."""
    return get_piece("/".join(image_rows(get_piece(piece_id).mask_text.split("/"), transpose, across, down))).id


def level_key(level: dict[str, Any]) -> str:
    """Identity of a level up to its images under the eight symmetries of the square (mirrors
    left-right, top-bottom and on either diagonal, and turns) and to the order of the pieces
    inside a tray (any order may be placed): the smallest description."""
    rows = parse_board(level["board"]).rows()
    goals = json.dumps([g for g in level["goals"] if "score" not in g], sort_keys=True)
    images = []
    for symmetry in SYMMETRIES:
        trays = [sorted(image_piece(p, *symmetry) for p in tray) for tray in level["trays"]]
        images.append("/".join(image_rows(rows, *symmetry)) + json.dumps(trays) + goals + str(level.get("limit")))
    return min(images)


def _quotas(count: int, difficulty: str | None) -> dict[str, int]:
    if difficulty is not None:
        return {difficulty: count}
    base, extra = divmod(count, len(GRADE_NAMES))
    return {g: base + (1 if i < extra else 0) for i, g in enumerate(GRADE_NAMES)}


def _choose_option(candidate: dict[str, Any], quotas: dict[str, int], have: Counter) -> dict[str, Any] | None:
    """The goal option whose grade still has the most room (ties: easier grade first); an
    option whose grade is not settled (null) is never taken."""
    best = None
    for option in candidate["options"]:
        if option["grade"] is None:
            continue
        room = quotas.get(option["grade"], 0) - have[option["grade"]]
        if room <= 0:
            continue
        rank = (room, -GRADE_NAMES.index(option["grade"]))
        if best is None or rank > best[0]:
            best = (rank, option)
    return None if best is None else best[1]


class Shortfall(Exception):
    """Every candidate the run may judge (``MAX_CANDIDATES_PER_LEVEL`` a level) was judged and
    fewer than ``count`` levels were kept: valid input the recipe cannot fill (no pack is written;
    the partial file keeps the results)."""

    def __init__(self, found: int, count: int, candidates: int, rejected: Counter, budget: int) -> None:
        reasons = ", ".join(f"{n} {reason}" for reason, n in rejected.most_common())
        larger = "proof budget exceeded" in rejected and budget < MAX_PROOF_NODES
        super().__init__(f"only {found} of {count} levels found in {candidates} candidates ({reasons}); "
                         "fewer trays (--trays), another --difficulty or a smaller --count may fill a pack"
                         + (", and so may a larger --proof-nodes" if larger else ""))


class Interrupted(Exception):
    """``generate_pack`` stopped at the caller's request; ``kept`` candidate results are in the
    partial file, and the same call resumes from them."""

    def __init__(self, kept: int, partial: Path) -> None:
        super().__init__(f"{kept} candidates kept in {partial}")
        self.kept, self.partial = kept, partial


def _run_local(build: Callable[[int], dict[str, Any]], seeds: list[int], workers: int) -> Iterator[dict[str, Any]]:
    if workers <= 1:
        for seed in seeds:
            yield build(seed)
        return
    from solver.campaign_jit import warm_up

    # loaded (or compiled, once, where a terminal is told) before the fork: the workers inherit it,
    # where each compiled it on a cold cache, unheard, under a bar standing at 0 %
    warm_up()
    # a stop (the caller closing this) drops the candidates under way and those not started
    yield from answers_in_order(build, seeds, workers, name=lambda seed: f"the candidate of seed {seed}")


def _dask_client(scheduler: Any, connecting: Callable[[str], None] | None = None) -> Any:
    """A Dask client of ``scheduler`` (an address, or a client already made), connected before
    anything is written: a scheduler that cannot be reached is named, with the form expected.
    ``connecting`` hears that it connects: Dask tries for its connect timeout (30 s by default)
    before it gives up, which was half a minute of nothing on the terminal."""
    try:
        from distributed import Client
    except ImportError:  # pragma: no cover - depends on the environment
        raise RulesError("--backend dask needs the 'distributed' package (pip install distributed)") from None
    if isinstance(scheduler, Client):
        return scheduler
    if not str(scheduler).strip():  # Client("") would start a cluster of its own here
        raise RulesError("--scheduler: empty; expected a Dask scheduler's address, such as tcp://127.0.0.1:8786")
    if connecting is not None:
        import dask

        connecting(f"connecting to the Dask scheduler at {scheduler} (it gives up after "
                   f"{dask.config.get('distributed.comm.timeouts.connect')})")
    try:
        return Client(scheduler)
    except (OSError, ValueError, TypeError) as err:  # a malformed address, or none listening there
        why = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise RulesError(f"--scheduler: cannot reach {scheduler!r} ({why}); "
                         "expected a Dask scheduler's address, such as tcp://127.0.0.1:8786") from None


def _cluster_threads(client: Any) -> int:
    """The threads of a Dask cluster's workers (at least one): a batch keeps each of them busy.
    The batch size changes which candidates are built, never which are kept (``generate_pack``)."""
    try:
        return max(1, sum(client.nthreads().values()))
    except Exception:  # a scheduler that cannot say: one batch as for one worker
        return 1


def _run_dask(build: Callable[[int], dict[str, Any]], seeds: list[int], client: Any) -> Iterator[dict[str, Any]]:
    futures = client.map(build, seeds, pure=True)
    for future in futures:  # in index order
        yield future.result()


def generate_pack(
    kind: str,
    count: int,
    seed: int,
    out: Path,
    trays: int | None = None,
    difficulty: str | None = None,
    workers: int = 1,
    backend: str = "local",
    scheduler: Any = None,
    on_candidate: Callable[[int, dict[str, Any], int], None] | None = None,
    stop: Callable[[], bool] | None = None,
    note: Callable[[str], None] | None = None,
    proof_nodes: int | None = None,
    connecting: Callable[[str], None] | None = None,
) -> PackReport:
    """Generate a pack into ``report.pack``, appending every candidate's result to
    ``OUT.partial.jsonl`` as it comes (and resuming from that file). ``stop``, asked as each
    result comes in, ends the run with ``Interrupted``; the result in hand is not kept, since
    the stop may have cut its proof short (the solver's watchers are how a stop reaches it).
    ``trays`` and ``proof_nodes`` (the node budget of a candidate's proof) None: the recipe's
    defaults. Writing the pack and removing the partial file are the caller's
    (``cli/generate_cmd.py``), once the pack is in hand. ``note`` hears of another run's partial
    file found at ``OUT`` and moved aside (``_load_partial``); ``connecting``, that it connects to
    a Dask scheduler (progress, which the command shows on a terminal only)."""
    if kind not in RECIPES:
        raise RulesError(f"KIND: unknown level kind {clipped(repr(kind))} (expected one of {', '.join(RECIPES)})")
    if trays is None:
        trays = RECIPES[kind].default_trays
    if proof_nodes is None:
        proof_nodes = RECIPES[kind].node_budget
    if difficulty is not None and difficulty not in GRADE_NAMES:
        raise RulesError(f"--difficulty: expected one of {', '.join(GRADE_NAMES)}, got {difficulty!r}")
    if not 1 <= count <= MAX_COUNT:
        raise RulesError(f"--count: expected 1 to {MAX_COUNT:,}, got {count}")
    check_workers(workers)
    if not 1 <= trays <= MAX_TRAYS:
        raise RulesError(f"--trays: expected 1 to {MAX_TRAYS}, got {trays}")
    if not 1 <= proof_nodes <= MAX_PROOF_NODES:
        raise RulesError(f"--proof-nodes: expected 1 to {MAX_PROOF_NODES:,}, got {proof_nodes:,}")
    if backend not in ("local", "dask"):
        raise RulesError(f"--backend: expected local or dask, got {backend!r}")
    if backend == "dask" and scheduler is None:
        raise RulesError("--backend dask needs --scheduler ADDRESS")
    if backend != "dask" and scheduler is not None:
        raise RulesError("--scheduler: goes with --backend dask (the local backend has no scheduler)")
    if backend == "dask" and workers != 1:
        raise RulesError("--workers: the local backend's processes; with --backend dask the cluster's workers "
                         "build the candidates (start more of them there)")
    params = {"kind": kind, "count": count, "seed": seed, "trays": trays, "difficulty": difficulty,
              "proof_node_budget": proof_nodes, "version": GENERATOR_VERSION, "rules": rules_fingerprint()}
    build = functools.partial(build_candidate, kind, trays, node_budget=proof_nodes)
    client = _dask_client(scheduler, connecting) if backend == "dask" else None
    partial = Path(str(out) + ".partial.jsonl")
    partial.parent.mkdir(parents=True, exist_ok=True)
    resumed = _load_partial(partial, params, note)
    done = {i: r for i, r in (resumed or {}).items()
            if isinstance(r, dict) and r.get("seed") == candidate_seed(kind, seed, i) and _still_holds(kind, trays, r)}
    quotas = _quotas(count, difficulty)
    have: Counter = Counter()
    report = PackReport(pack={}, proof_node_budget=proof_nodes)
    chosen: list[tuple[dict[str, Any], dict[str, Any]]] = []
    keys: set[str] = set()
    batch = 4 * (_cluster_threads(client) if client is not None else max(1, workers))
    index = 0
    limit = count * MAX_CANDIDATES_PER_LEVEL
    with open(partial, "ab", buffering=0) as log:  # (unbuffered: nothing left to fail as it closes)
        if resumed is None:  # a header once: a run stopped before its first result leaves one
            _log(log, partial, {"params": params})
        while len(chosen) < count and index < limit:
            indices = list(range(index, min(index + batch, limit)))
            index = indices[-1] + 1
            todo = [i for i in indices if i not in done]
            seeds = [candidate_seed(kind, seed, i) for i in todo]
            if backend == "dask":
                fresh = _run_dask(build, seeds, client)
            else:
                fresh = _run_local(build, seeds, workers)
            for i, result in zip(todo, fresh):
                if stop is not None and stop():
                    fresh.close()
                    raise Interrupted(len(done), partial)
                done[i] = result
                _log(log, partial, {"index": i, "result": result})
            for i in indices:
                if len(chosen) >= count:
                    break
                result = done[i]
                report.candidates += 1
                reason = _accept(result, quotas, have, keys, chosen)
                if reason:
                    report.rejected[reason] += 1
                else:
                    report.proof_nodes.append(result["nodes"])
                    report.proof_seconds.append(result.get("seconds", 0.0))
                if on_candidate is not None:
                    on_candidate(i, result, len(chosen))
    if len(chosen) < count:
        raise Shortfall(len(chosen), count, limit, report.rejected, proof_nodes)
    order = sorted(range(len(chosen)), key=lambda k: (GRADE_NAMES.index(chosen[k][1]["grade"]),
                                                     chosen[k][1]["difficulty"], k))
    levels = []
    for n, k in enumerate(order, 1):
        candidate, option = chosen[k]
        levels.append(finish_level(candidate, option, f"{kind}-{n:03d}"))
        report.per_grade[option["grade"]] += 1
    recipe = RECIPES[kind]
    options = _options(recipe, trays, difficulty, proof_nodes)
    report.pack = {
        "format": PACK_FORMAT,
        "id": "-".join([kind, str(seed), *(o.replace(" ", "") for o in options)]),
        "title": {"sultan": "Sultan's Labyrinth", "halloween": "Halloween Challenge Campaign"}[kind]
        + f" ({', '.join([f'seed {seed}', *options])})",
        "generator": {
            "seed": seed,
            "version": GENERATOR_VERSION,
            "kind": kind,
            "variant": recipe.variant,
            "mode": recipe.mode,
            "trays": trays,
            "count": count,
            "difficulty": difficulty,
            "proof_node_budget": proof_nodes,
            "command": _command(kind, count, seed, trays, difficulty, proof_nodes),
        },
        "levels": levels,
    }
    return report


def _options(recipe: Recipe, trays: int, difficulty: str | None, proof_nodes: int) -> list[str]:
    """What sets a pack apart from its seed's default one, for its id and title: packs of one seed
    with other trays, a difficulty or another proof budget (which keeps other candidates) are other
    packs (a server holding two refused the second)."""
    options = []
    if trays != recipe.default_trays:
        options.append(f"{trays} trays")
    if difficulty:
        options.append(difficulty)
    if proof_nodes != recipe.node_budget:
        options.append(f"{proof_nodes} proof nodes")
    return options


def _command(kind: str, count: int, seed: int, trays: int, difficulty: str | None, proof_nodes: int) -> str:
    cmd = f"tenfold generate {kind} --count {count} --seed {seed} --trays {trays}"
    if difficulty:
        cmd += f" --difficulty {difficulty}"
    return cmd + f" --proof-nodes {proof_nodes} --out PACK.json"


def _accept(result, quotas, have, keys, chosen) -> str:
    """Keep the candidate if it fits; otherwise the reason it was turned down."""
    if result["status"] != "accepted":
        return result["reason"]
    option = _choose_option(result, quotas, have)
    if option is None:
        grades = sorted({o["grade"] for o in result["options"] if o["grade"] is not None})
        if not grades:
            return "grade not settled (line count cut short)"
        return "grade not wanted (" + ", ".join(grades) + ")"
    key = level_key(result["level"])
    if key in keys:
        return "duplicate (mirror images and turns included)"
    keys.add(key)
    have[option["grade"]] += 1
    chosen.append((result, option))
    return ""


def _still_holds(kind: str, trays: int, result: Any) -> bool:
    """Whether a resumed candidate result can be kept unproven again: an accepted level must be
    the level its seed builds, and its solution must replay (through the move applier) to its
    best score. A damaged or edited partial file fails this, and the candidate is proven anew.
    (The proof itself is not redone: that is the work a resume saves.)"""
    if not isinstance(result, dict) or result.get("status") not in ("accepted", "rejected"):
        return False
    if result["status"] == "rejected":  # as recipes._rejected writes it
        return (set(result) == {"seed", "status", "reason", "nodes"} and isinstance(result["reason"], str)
                and type(result["nodes"]) is int)
    try:
        built, _, _ = candidate_level(kind, trays, result["seed"])
        data = result["level"]
        if any(data.get(key) != value for key, value in built.to_json().items()):
            return False
        level = parse_level(data)
        replay = play_solution(level, level.solution, ignore_score=True)
        if not (replay.ok and replay.score == result["best"] == level.best["score"]):
            return False
        return _options_hold(result["options"], result["best"])
    except (TenfoldError, Unbuildable, KeyError, TypeError, AttributeError, ValueError):
        return False


def _options_hold(options: Any, best: int) -> bool:
    """The grading options as ``build_candidate`` writes them: one per score goal of the best,
    each grade and difficulty what the formula makes of the measurements. (The measurements
    themselves are trusted: remeasuring is a resume's saving.)"""
    goals = score_goals(best)
    if not isinstance(options, list) or len(options) != len(goals):
        return False
    return all(option == grading_option(goal, Measurements(**option["measurements"]))
               for goal, option in zip(goals, options))


# the command's spelling of each parameter
_OPTION_NAMES = {"kind": "KIND", "count": "--count", "seed": "--seed", "trays": "--trays",
                 "difficulty": "--difficulty", "proof_node_budget": "--proof-nodes"}


def _option_text(value: Any) -> str:
    return "(default)" if value is None else str(value)


def _log(log, path: Path, entry: dict[str, Any]) -> None:
    """A line of the partial file, written through at once; an error names the file (a full
    disk's or a file size limit's names none: "File too large" said neither file nor option)."""
    data = memoryview((json.dumps(entry) + "\n").encode("utf-8"))
    try:
        while data:
            data = data[log.write(data):]
    except OSError as err:
        raise OSError(err.errno, err.strerror or str(err), str(path)) from None


RENAME_EXCHANGE = 2  # renameat2(2)'s flag: two names change places at once
AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> None:
    """Files ``a`` and ``b`` change places, at once where the system can (Linux's renameat2), so
    that a kill leaves each under one of the two names; else by three renames, through a third
    name beside them that a kill between them would leave holding ``a``'s file."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.renameat2(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE) == 0:
            return
        if ctypes.get_errno() not in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):  # (a file system without it)
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()), str(a))
    except AttributeError:  # no renameat2 in this C library
        pass
    spare = a.with_name(f".{os.fsdecode(os.fsencode(a.name)[:200])}.{os.getpid()}.swap")
    os.replace(a, spare)
    os.replace(b, a)
    os.replace(spare, b)


def _partial_params(path: Path) -> Any:
    """The parameters a partial file's header names (None where it is no partial file)."""
    if not path.is_file():  # (a pipe would wait for ever)
        return None
    try:
        with open(path, "rb") as fh:
            header = json.loads(fh.readline().decode("utf-8", errors="replace") or "null")
    except (OSError, json.JSONDecodeError):
        return None
    return header.get("params") if isinstance(header, dict) else None


def _load_partial(path: Path, params: dict[str, Any],
                  note: Callable[[str], None] | None = None) -> dict[int, dict[str, Any]] | None:
    """Results of an earlier, interrupted run with the same parameters (maybe none yet); None
    when there is no such run to resume (no file, an empty one, or another run's). Another
    run's results are moved aside to ``OUT.partial.jsonl.prev`` (replacing an older one there),
    and ``note`` hears where: hours of proofs are not thrown away for a mistyped seed. Where the
    ``.prev`` holds this run's own results (the command run again after a mistyped one), the two
    files change places and this run resumes."""
    aside = path.with_name(path.name + ".prev")
    if not path.exists():
        if _partial_params(aside) != params:
            return None
        os.replace(aside, path)  # this run's, set aside by another run that has since finished or gone
        if note is not None:
            note(f"{aside} held this run's results, set aside by another run: back at {path}, and resumed")
        return _load_partial(path, params, note)
    if not path.is_file():  # a folder, a device or a pipe (whose reading would wait for ever)
        raise FormatError(f"--out: {path} exists and is not a partial file of tenfold generate (not a regular "
                          "file); move it away or choose another --out")
    raw = path.read_bytes()
    lines = raw.decode("utf-8", errors="replace").splitlines()
    try:
        header = json.loads(lines[0]) if lines else {}
    except json.JSONDecodeError:
        header = None
    theirs = header.get("params") if isinstance(header, dict) else None
    if lines and not isinstance(theirs, dict):  # a file of something else: not ours to delete
        raise FormatError(f"--out: {path} exists and is not a partial file of tenfold generate (its first line "
                          "is not the header of one); move it away or choose another --out")
    if theirs != params:
        ours_aside = _partial_params(aside) == params  # set aside by a mistyped run, this one run again
        if len(lines) < 2:
            os.unlink(path)  # no results (an empty file, a header alone): nothing to keep
            return _load_partial(path, params, note)  # (and this run's at .prev are taken back)
        if ours_aside:
            _exchange(path, aside)
            if note is not None:
                note(f"{path} held {len(lines) - 1} candidate results of another run, and {aside} this run's: "
                     "they changed places, and this run resumes")
            return _load_partial(path, params, note)
        if aside.exists() and not aside.is_file():
            raise FormatError(f"--out: {aside}, where another run's results would be set aside, is not a "
                              "file; move it away or choose another --out")
        os.replace(path, aside)
        if note is not None:
            if any(theirs.get(key) != params[key] for key in ("version", "rules")):
                differ = (f"a generator version or rule set other than this one's (version "
                          f"{_option_text(theirs.get('version'))}, now {params['version']}; this one cannot resume it)")
            else:
                differ = "another run (" + ", ".join(
                    f"{_OPTION_NAMES.get(key, key)} {_option_text(theirs.get(key))} (now {_option_text(value)})"
                    for key, value in params.items() if theirs.get(key) != value) + ")"
            note(f"{path} held {len(lines) - 1} candidate results of {differ}: moved to {aside}; "
                 "to resume that run, run its command again")
        return None
    if raw and not raw.endswith(b"\n"):  # a last line cut short: dropped, so the next result starts a line
        raw = raw[:raw.rfind(b"\n") + 1]
        with open(path, "r+b") as fh:
            fh.truncate(len(raw))
        lines = raw.decode("utf-8", errors="replace").splitlines()
    done: dict[int, dict[str, Any]] = {}
    for line in lines[1:]:
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut short by an interruption (or damaged): its candidate is built again
        if isinstance(entry, dict) and isinstance(entry.get("index"), int) and "result" in entry:
            done[entry["index"]] = entry["result"]  # (a header again, as older runs wrote: skipped)
    return done
