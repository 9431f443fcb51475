"""The tray question as a CP-SAT model: an independent second method to ``tray.TraySearch``.

One step per piece. A boolean per (step, piece, spot) chooses the placement;
cell occupancy is tracked per step before the placement, after it, and after
the clears; a zone-complete literal per step and zone, and a cell is cleared
when some complete zone holds it. The variant's points are the objective,
looked up in a table built from ``variant.clear_points`` over (consecutive
clearing placements before the step, lines completed, regions completed).

Only the piece table and the variant's zone masks and scoring hooks are
shared with the search; the move applier (``settle``) and the search are not
used, so the two methods can check each other.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ortools.sat.python import cp_model

from . import watch
from .bitboard import CELLS, SIZE, scan_cells
from .board import Board
from .errors import CpsatTimeout, RulesError
from .moves import Placement
from .pieces import Spot, get_piece, placements
from .tray import TrayAnswer
from .variants import Variant

SEED = 20240603  # fixed, with one worker, so every run gives the same plan


@dataclass
class CpsatTrayResult:
    placeable: bool
    best_score: int | None
    plan: list[Placement] | None
    optimal: bool  # OPTIMAL, or INFEASIBLE proven; False when the time limit cut the solve short
    points_proven: bool  # the points alone proven (with ``tie_break``, the health may still not be)


def cpsat_tray(
    variant: Variant,
    board: Board,
    pieces: list[str],
    streak: int = 0,
    time_limit: float = 30.0,
    tie_break: bool = False,
) -> CpsatTrayResult:
    """Most points for placing every piece of the tray, and a plan, by CP-SAT.

    ``streak`` is the number of consecutive clearing placements before the tray
    (S > 0 also means the previous turn cleared, for the flow bonus). When the
    time limit stops the solver before a proof, ``optimal`` is False and the
    answer is the best plan found, or not placeable if none was found. With
    ``tie_break``, plans with equal points are ranked like the search's: more
    empty cells, then fewer isolated empty cells (a second solve, among the
    plans with the proven points); ``optimal`` then means both are proven.
    """
    if streak < 0:
        raise RulesError(f"streak must be 0 or more, got {streak}")
    ids = [get_piece(p).id for p in pieces]
    if not ids:
        return CpsatTrayResult(True, 0, [], True, True)
    deadline = time.perf_counter() + time_limit
    model = _TrayModel(variant, board, ids, streak)
    model.model.maximize(model.points)
    solver = _solver(time_limit)
    status = watch.solve_cpsat(solver, model.model)
    optimal = status in (cp_model.OPTIMAL, cp_model.INFEASIBLE)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return CpsatTrayResult(False, None, None, optimal, optimal)
    points, plan = solver.value(model.points), model.plan(solver)
    points_proven = optimal
    if tie_break and optimal:
        # Lexicographic: the points proven first, then the health among the plans scoring them,
        # from this plan. One weighted objective took over 60 s to prove on an empty board
        # (L5-nw, 5x1, 3x3) where the two solves take 1.4 s.
        model.keep_points(points, solver)
        model.maximise_health()
        solver = _solver(max(0.0, deadline - time.perf_counter()))
        status = watch.solve_cpsat(solver, model.model)
        optimal = status == cp_model.OPTIMAL
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            plan = model.plan(solver)
    return CpsatTrayResult(True, points, plan, optimal, points_proven)


def cpsat_safe_moves(
    variant: Variant, board: Board, pieces: list[str], time_limit: float = 30.0
) -> list[Placement]:
    """Every first placement after which the rest of the tray can still be placed.

    One feasibility model, solved again with each safe first move found so far
    forbidden, until it is infeasible. ``time_limit`` is the seconds for all the
    solves together; raises ``CpsatTimeout`` if they do not end within it.
    """
    ids = [get_piece(p).id for p in pieces]
    if not ids:
        return []
    deadline = time.perf_counter() + time_limit
    model = _TrayModel(variant, board, ids, 0, scoring=False)
    safe = []
    while True:
        solver = _solver(max(0.0, deadline - time.perf_counter()))
        # Many small feasibility solves: presolve costs more than it saves here, and the last
        # plan's later steps (hinted) often fit another first move. 188 safe moves on an empty
        # board: 6.4 s instead of 20.9 s; 120 seeded test trays: 23 s instead of 35 s.
        solver.parameters.cp_model_presolve = False
        status = watch.solve_cpsat(solver, model.model)
        if status == cp_model.INFEASIBLE:
            return sorted(safe, key=lambda m: (m.piece, m.row, m.col))
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            raise CpsatTimeout(f"listed {len(safe)} safe first moves, not yet all, within {time_limit:.3g} s")
        first = model.plan(solver)[0]
        safe.append(first)
        model.forbid_first(first.piece, first.row, first.col)
        model.hint_plan(solver, from_step=1)  # the plan after its first move


def cpsat_answer(
    variant: Variant, board: Board, pieces: list[str], streak: int = 0, tokens: int = 0,
    time_limit: float = 30.0,
) -> TrayAnswer:
    """What ``tenfold tray --method cpsat`` reports, in the search's ``TrayAnswer`` form.

    Ties on points are broken like the search (more empty cells, then fewer
    isolated empty cells). Token rescues are not modelled. ``time_limit`` is the
    seconds for the whole answer, the safe first moves included; ``CpsatTimeout``
    when it runs out first.
    """
    start = time.perf_counter()
    result = cpsat_tray(variant, board, pieces, streak, time_limit, tie_break=True)
    if not result.optimal:
        raise CpsatTimeout(f"CP-SAT proved the best points, {result.best_score}, but not the board health among "
                           f"the plans scoring them within {time_limit:g} s" if result.points_proven else
                           f"CP-SAT proved no best plan within {time_limit:g} s")
    if not result.placeable:
        if tokens > 0:
            raise RulesError("--tokens: the tray does not fit, and --method cpsat does not model token rescues; "
                             "use --method search")
        return TrayAnswer(False, None, None)
    planned = time.perf_counter() - start
    try:
        safe = cpsat_safe_moves(variant, board, pieces, max(0.0, time_limit - planned))
    except CpsatTimeout as err:
        raise CpsatTimeout(f"CP-SAT proved the best plan in {planned:.1f} s of {time_limit:g}, then {err}") from None
    return TrayAnswer(True, result.best_score, result.plan, safe)


def _solver(time_limit: float) -> cp_model.CpSolver:
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = SEED
    solver.parameters.max_time_in_seconds = time_limit
    return solver


def _neighbour_cells(cell: int) -> list[int]:
    row, col = divmod(cell, SIZE)
    return [
        r * SIZE + c
        for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
        if 0 <= r < SIZE and 0 <= c < SIZE
    ]


class _TrayModel:
    def __init__(self, variant: Variant, board: Board, ids: list[str], streak: int, scoring: bool = True):
        self.model = m = cp_model.CpModel()
        stones = board.stones
        steps = len(ids)
        free_cells = [c for c in range(CELLS) if not stones >> c & 1]
        n_lines = len(variant.lines)
        # Zones that can count: a zone made only of stones never does. Clears only
        # empty cells, so a zone missing more cells than the pieces placed so far
        # can fill is not complete at that step (nor at all, past the last step).
        sizes = sorted((get_piece(p).size for p in ids), reverse=True)
        budget = [sum(sizes[: t + 1]) for t in range(steps)]
        zones = [
            (i >= n_lines, list(scan_cells(z & ~stones)), (z & ~board.occupied).bit_count())
            for i, z in enumerate(variant.zones)
            if z & ~stones and (z & ~board.occupied).bit_count() <= budget[-1]
        ]
        zones_of_cell: dict[int, list[int]] = {c: [] for c in free_cells}
        for zi, (_, cells, _) in enumerate(zones):
            for c in cells:
                zones_of_cell[c].append(zi)
        # A filled cell in no zone that can complete stays filled for the whole tray.
        stuck = board.occupied
        for c in free_cells:
            if zones_of_cell[c]:
                stuck &= ~(1 << c)

        # x[t]: (piece index, spot, literal) candidates for step t.
        self.x: list[list[tuple[int, Spot, cp_model.IntVar]]] = []
        for t in range(steps):
            blocked = board.occupied if t == 0 else stuck
            row = []
            for i, pid in enumerate(ids):
                for spot in placements(pid):
                    if not spot.mask & blocked:
                        row.append((i, spot, m.new_bool_var(f"x{t}_{i}_{spot.row}_{spot.col}")))
            self.x.append(row)
            m.add_exactly_one(lit for _, _, lit in row)
        for i in range(len(ids)):
            m.add_exactly_one(lit for row in self.x for j, _, lit in row if j == i)
        # Equal pieces are interchangeable: the earlier copy goes down first.
        step_of = [
            sum(t * lit for t, row in enumerate(self.x) for j, _, lit in row if j == i)
            for i in range(len(ids))
        ]
        for i in range(len(ids)):
            for j in range(i + 1, len(ids)):
                if ids[i] == ids[j]:
                    m.add(step_of[i] < step_of[j])

        # Streak: run[t] = consecutive clearing placements directly before step t.
        run_values = [[streak]]
        for t in range(1, steps):
            run_values.append(sorted({0} | {r + 1 for r in run_values[-1]}))
        max_lines, max_regions = n_lines, len(variant.regions)

        occupied = {c: board.filled >> c & 1 for c in free_cells}  # before step t: int or expression
        step_points = []
        clears = []
        run = m.new_constant(streak)
        for t in range(steps):
            covering: dict[int, list] = {c: [] for c in free_cells}
            touching: list[list] = [[] for _ in zones]
            for _, spot, lit in self.x[t]:
                for zi in {zi for c in scan_cells(spot.mask) for zi in zones_of_cell[c]}:
                    touching[zi].append(lit)
                for c in scan_cells(spot.mask):
                    covering[c].append(lit)
            # after the placement (before clears); the equality also forbids overlaps
            placed = {}
            for c in free_cells:
                v = m.new_bool_var(f"placed{t}_{c}")
                m.add(v == occupied[c] + sum(covering[c]))
                placed[c] = v
            complete = []
            for zi, (_, cells, missing) in enumerate(zones):
                v = m.new_bool_var(f"complete{t}_{zi}")
                if missing > budget[t]:
                    m.add(v == 0)
                elif t > 0 or missing > 0:
                    # Only a zone already complete before the tray can complete
                    # without the step's piece touching it.
                    m.add_bool_or([v.negated()] + touching[zi])
                m.add_bool_and([placed[c] for c in cells]).only_enforce_if(v)
                m.add_bool_or([v] + [placed[c].negated() for c in cells])
                complete.append(v)
            after = {}
            for c in free_cells:
                through = [complete[zi] for zi in zones_of_cell[c]]
                if not through:
                    after[c] = placed[c]
                    continue
                cleared = m.new_bool_var(f"cleared{t}_{c}")
                for v in through:
                    m.add_implication(v, cleared)
                m.add_bool_or([cleared.negated()] + through)
                after[c] = placed[c] - cleared  # a complete zone's cells are all placed
            occupied = after
            if not scoring:
                continue

            lines = m.new_int_var(0, max_lines, f"lines{t}")
            regions = m.new_int_var(0, max_regions, f"regions{t}")
            m.add(lines == sum(v for v, (is_region, _, _) in zip(complete, zones) if not is_region))
            m.add(regions == sum(v for v, (is_region, _, _) in zip(complete, zones) if is_region))
            cleared_any = m.new_bool_var(f"clears{t}")
            for v in complete:
                m.add_implication(v, cleared_any)
            m.add_bool_or([cleared_any.negated()] + complete)
            clears.append(cleared_any)

            table = [
                (r, nl, nr, variant.clear_points(nl, nr, r))
                for r in run_values[t]
                for nl in range(max_lines + 1)
                for nr in range(max_regions + 1)
            ]
            low, high = min(p for *_, p in table), max(p for *_, p in table)
            points = m.new_int_var(low, high, f"points{t}")
            m.add_allowed_assignments([run, lines, regions, points], table)
            step_points.append(points)

            if t + 1 < steps:
                nxt = m.new_int_var_from_domain(
                    cp_model.Domain.from_values(run_values[t + 1]), f"run{t + 1}"
                )
                m.add(nxt == run + 1).only_enforce_if(cleared_any)
                m.add(nxt == 0).only_enforce_if(cleared_any.negated())
                run = nxt

        self.final = occupied  # free cell -> 0/1 expression, occupied after the tray
        self.free_cells = free_cells
        if not scoring:
            return
        self.points = sum(step_points) + variant.cell_points * sum(get_piece(p).size for p in ids)
        if variant.flow_bonus and streak > 0:
            # The previous turn cleared: the flow bonus comes if this tray clears too.
            tray_cleared = m.new_bool_var("tray_cleared")
            m.add_max_equality(tray_cleared, clears)
            self.points += variant.flow_bonus * tray_cleared

    def keep_points(self, points: int, solver: cp_model.CpSolver) -> None:
        """Only plans scoring ``points`` from now on, starting from the one ``solver`` found."""
        self.model.add(self.points == points)
        self.hint_plan(solver)

    def maximise_health(self) -> None:
        """Most empty cells after the tray, then fewest isolated ones (the search's tie-break)."""
        m = self.model
        empty = {}
        for c in self.free_cells:
            v = m.new_bool_var(f"empty_{c}")
            m.add(v == 1 - self.final[c])
            empty[c] = v
        isolated = []
        for c in self.free_cells:
            # Only an upper bound is needed: the objective keeps ``iso`` false when it can be.
            iso = m.new_bool_var(f"isolated_{c}")
            open_neighbours = [empty[n] for n in _neighbour_cells(c) if n in empty]
            m.add_bool_or([iso, empty[c].negated()] + open_neighbours)
            isolated.append(iso)
        m.maximize(sum(empty.values()) * (CELLS + 1) - sum(isolated))

    def hint_plan(self, solver: cp_model.CpSolver, from_step: int = 0) -> None:
        """Hint the placements from ``from_step`` on as ``solver`` found them."""
        self.model.clear_hints()
        for row in self.x[from_step:]:
            for _, _, lit in row:
                self.model.add_hint(lit, solver.boolean_value(lit))

    def forbid_first(self, piece: str, row: int, col: int) -> None:
        for _, spot, lit in self.x[0]:
            if (spot.piece, spot.row, spot.col) == (piece, row, col):
                self.model.add(lit == 0)

    def plan(self, solver: cp_model.CpSolver) -> list[Placement]:
        moves = []
        for row in self.x:
            spot = next(spot for _, spot, lit in row if solver.boolean_value(lit))
            moves.append(Placement(spot.piece, spot.row, spot.col))
        return moves
