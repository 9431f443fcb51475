"""The campaign question as a time-stepped CP-SAT model: a second method to ``campaign.solve_level``.

Step ``t`` (0 .. limit-1) places one piece or is stopped; once stopped, every
later step is. Placements come in order, so tray ``k`` owns a fixed window of
steps and a step may only place a piece of its window's tray (any order
inside it). Per step: token removals of ordinary tiles before the placement,
cell occupancy after the placement, a zone-complete literal per zone, the
clears, the variant's points (looked up from ``variant.clear_points`` by the
run of clearing placements before the step), the Arabic flow bonus when a
window is filled, and pumpkin survival for the pumpkins goal. An Arabic
rotation is a separate choice at the step: place a turned shape of a tray
piece for one token. Unspent tokens add ``token_bonus`` each.

Tokens that draw from the reserve (reroll, swap, refresh) are not modelled:
a level that could use them gets an honest ``bound`` answer.

The model shares with the search the piece table, the variant's zones and
scoring hooks, and the admissible counting bound (``root_bound``, from
``bounds``, the search's start bound) that a cut-short answer reports; the
plan found is replayed through the rules engine before it is returned, so
the two methods check each other's lines and best scores.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from dataclasses import dataclass

from ortools.sat.python import cp_model

from . import watch
from .bitboard import Bitboard, cell_col, cell_row, scan_cells
from .bounds import clear_points_bound, reachable_pieces
from .campaign import PROOF_BOUND, PROOF_INFEASIBLE, PROOF_OPTIMAL, CampaignAnswer, solvable_verdict
from .engine import has_complete_zone
from .errors import RulesError
from .level import Level, play_solution, removals_before_last_placement
from .moves import REDEAL_KINDS, Move, Placement, TokenUse
from .pieces import Spot, get_piece, placements, rotate_cw, turned_shapes
from .tray_cpsat import SEED


@dataclass(frozen=True)
class _Option:
    """A way to put down a tray piece: as it is, or turned ``turns`` quarter turns for a token."""

    piece: str
    shape: str
    turns: int = 0


def solve_level_cpsat(level: Level, time_limit: float = 30.0, hint: list[Move] | None = None) -> CampaignAnswer:
    """The level's best score (RULES.md §3 ``best.score``) by CP-SAT, with proof status and a checked line.

    ``hint``, a legal line such as the search's best, is given to the solver as a starting point.
    """
    start = time.perf_counter()
    goal = level.score_goal
    leaves_out = level.redeals  # moves this model leaves out: its answers there are bounds
    model = _CampaignModel(level)
    if model.impossible:
        seconds = time.perf_counter() - start
        return CampaignAnswer(False, None, PROOF_INFEASIBLE, None, None, None, 0, seconds, True)
    if hint:
        model.add_hint(hint)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = SEED
    # building the model (a second or more on a long level) counts against the limit too
    solver.parameters.max_time_in_seconds = max(0.001, time_limit - (time.perf_counter() - start))
    # No LP: its relaxation of the clear points is weak, and without it proofs came sooner
    # on seeded small levels (infeasible pumpkin goals most of all).
    solver.parameters.linearization_level = 0
    status = watch.solve_cpsat(solver, model.model)
    seconds = time.perf_counter() - start
    nodes = solver.num_branches

    best = line = None
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        line = removals_before_last_placement(model.line(solver))  # as every answer is written
        best = round(solver.objective_value)
        replay = play_solution(level, line, ignore_score=True)
        if not replay.ok or replay.score != best:
            raise RulesError(
                f"CP-SAT campaign model disagrees with the rules engine on level {level.id!r}: "
                f"model score {best}, replay {'score ' + str(replay.score) if replay.ok else replay.named('line')}"
            )
    proven = status in (cp_model.OPTIMAL, cp_model.INFEASIBLE) and not leaves_out
    if proven:
        proof = PROOF_OPTIMAL if best is not None else PROOF_INFEASIBLE
        bound = best
    else:
        proof = PROOF_BOUND
        if leaves_out:
            bound = root_bound(level)
        elif status == cp_model.INFEASIBLE:  # cannot happen without redeals; kept for safety
            bound = None
        elif status == cp_model.FEASIBLE:
            # without the LP the solver's own bound is loose: the counting bound may be tighter
            bound = min(math.floor(solver.best_objective_bound + 1e-6), root_bound(level))
        else:  # UNKNOWN: stopped before a first line, its objective bound is not one (CP-SAT says 0)
            bound = root_bound(level)
        if best is not None and bound == best:  # an admissible bound met by a replayed line:
            proven, proof = True, PROOF_OPTIMAL  # proven, redeals left out of the model or not
        elif best is not None and bound is not None:
            bound = max(bound, best)
    solvable = solvable_verdict(best, goal, proven, bound)
    return CampaignAnswer(solvable, best, proof, bound, line if solvable else None, line, nodes, seconds, proven)


def root_bound(level: Level) -> int:
    """Admissible upper bound on the best score with every token kind, reserve draws included."""
    variant = level.variant
    pieces, trays_ending = reachable_pieces([], level.trays, level.limit)
    if level.tokens and variant.token_kinds & REDEAL_KINDS:
        pieces += list(level.reserve)
    cells = sum(sorted((get_piece(p).size for p in pieces), reverse=True)[: level.limit])
    clears = clear_points_bound(variant, level.board.filled, level.board.stones, pieces, 0,
                                has_complete_zone(variant, level.board.filled, level.board.stones),
                                count=level.limit)
    flow = variant.flow_bonus * trays_ending if clears else 0
    return level.tokens * variant.token_bonus + cells * variant.cell_points + clears + flow


def _run_cap(variant, steps: int, max_lines: int, max_regions: int) -> int:
    """The smallest run length past which clear points no longer change (Arabic 0, Halloween 1)."""
    def row(r):
        return [variant.clear_points(nl, nr, r) for nl in range(max_lines + 1) for nr in range(max_regions + 1)]

    cap = steps
    while cap > 0 and all(row(r) == row(cap - 1) for r in range(cap - 1, steps + 1)):
        cap -= 1
    return cap


class _CampaignModel:
    def __init__(self, level: Level):
        self.level = level
        self.model = m = cp_model.CpModel()
        variant = level.variant
        board = level.board
        stones = board.stones
        trays = [[get_piece(p).id for p in tray] for tray in level.trays]
        n_pieces = sum(len(t) for t in trays)
        steps = self.steps = min(level.limit, n_pieces)
        need_all = level.needs_all_placed
        need_pumpkins = level.needs_pumpkins
        self.impossible = need_all and steps < n_pieces
        if self.impossible:
            return
        kinds = variant.token_kinds if level.tokens > 0 else frozenset()
        can_remove = "remove" in kinds
        bonus = variant.token_bonus

        # The fixed window of steps each tray occupies.
        tray_of_step: list[int] = []
        for k, tray in enumerate(trays):
            tray_of_step += [k] * len(tray)
        tray_of_step = tray_of_step[:steps]
        first_step = {k: tray_of_step.index(k) for k in set(tray_of_step)}
        options: list[list[_Option]] = []
        for tray in trays:
            opts = []
            for pid in dict.fromkeys(tray):
                opts.append(_Option(pid, pid))
                if "rotate" in kinds:
                    opts.extend(_Option(pid, shape, turns) for shape, turns in turned_shapes(pid))
            options.append(opts)

        # Most cells placed by the end of step t: earlier trays whole, the largest of the current.
        budget = []
        for t in range(steps):
            k = tray_of_step[t]
            before = sum(get_piece(p).size for tray in trays[:k] for p in tray)
            sizes = sorted((get_piece(p).size for p in trays[k]), reverse=True)
            budget.append(before + sum(sizes[: t - first_step[k] + 1]))

        n_lines = len(variant.lines)
        zones = [
            (i >= n_lines, z & ~stones, (z & ~board.occupied).bit_count())
            for i, z in enumerate(variant.zones)
            if z & ~stones
        ]
        # A zone can complete at step t only if the cells placed so far can fill its gaps
        # (clears and removals only open more gaps).
        live = [[zi for zi, (_, _, missing) in enumerate(zones) if missing <= budget[t]] for t in range(steps)]
        # Cells that may be empty when step t places its piece, and that may hold a tile.
        may_empty: list[Bitboard] = []
        may_fill: list[Bitboard] = []
        empty_now = ~board.occupied & ~stones & ((1 << 100) - 1)
        if can_remove:
            empty_now |= board.filled
        filled_now = board.filled
        for t in range(steps + 1):
            may_empty.append(empty_now)
            may_fill.append(filled_now)
            if t == steps:
                break
            for zi in live[t]:
                empty_now |= zones[zi][1]
            k = tray_of_step[t]
            for opt in options[k]:
                for spot in placements(opt.shape):
                    if spot.mask & ~may_empty[t] == 0:
                        filled_now |= spot.mask

        self.x: list[list[tuple[_Option, Spot, cp_model.IntVar]]] = []
        self.rm: list[dict[int, cp_model.IntVar]] = []
        self.active = []
        token_spent = []
        objective = []
        occupied: dict[int, object] = {c: board.filled >> c & 1 for c in range(100) if not stones >> c & 1}
        pumpkins: dict[int, object] = {c: 1 for c in scan_cells(board.pumpkins)} if need_pumpkins else {}
        max_lines = max_regions = 0
        step_rows = []
        for t in range(steps):
            k = tray_of_step[t]
            row = []
            for opt in options[k]:
                for spot in placements(opt.shape):
                    if spot.mask & ~may_empty[t] == 0:
                        row.append((opt, spot, m.new_bool_var(f"x{t}_{opt.shape}_{opt.piece}_{spot.row}_{spot.col}")))
            step_rows.append(row)
            for _, spot, _ in row:
                touched = [z for z in zones if z[1] & spot.mask]
                max_lines = max(max_lines, sum(not r for r, _, _ in touched))
                max_regions = max(max_regions, sum(r for r, _, _ in touched))
        # zones already complete at the start clear with the first placement, touched or not
        max_lines += sum(not r for r, _, missing in zones if missing == 0)
        max_regions += sum(r for r, _, missing in zones if missing == 0)
        run_cap = _run_cap(variant, steps, max_lines, max_regions)

        clears_at = []
        completions, cells_placed = [], []
        run = m.new_constant(0)
        for t in range(steps):
            k = tray_of_step[t]
            row = step_rows[t]
            self.x.append(row)
            active = m.new_bool_var(f"active{t}")
            m.add(sum(lit for _, _, lit in row) == active)
            if need_all:
                m.add(active == 1)
            if t > 0:
                m.add_implication(active, self.active[-1])
            self.active.append(active)
            token_spent += [lit for opt, _, lit in row if opt.turns]
            objective += [variant.cell_points * spot.mask.bit_count() * lit for _, spot, lit in row]

            covering: dict[int, list] = {}
            touching: list[list] = [[] for _ in zones]
            for _, spot, lit in row:
                for c in scan_cells(spot.mask):
                    covering.setdefault(c, []).append(lit)
                for zi, (_, zmask, _) in enumerate(zones):
                    if zmask & spot.mask:
                        touching[zi].append(lit)
            # Removals before the placement. One that neither frees a cell for it nor stops a
            # zone it touches from completing changes nothing yet, so it may as well wait
            # (until the end, where only a pumpkin is worth removing): only these are modelled.
            removals = self._removals(t, may_fill[t] if can_remove else 0, occupied, active)
            for c, v in removals.items():
                if t == 0 and any(missing == 0 and zmask >> c & 1 for _, zmask, missing in zones):
                    continue  # it may stop a zone complete from the start from clearing
                reasons = list(covering.get(c, ()))
                for zi in live[t]:
                    if zones[zi][1] >> c & 1:
                        reasons += touching[zi]
                m.add_bool_or([v.negated()] + reasons)
            token_spent += list(removals.values())
            placed = {}
            for c, before in occupied.items():
                if not covering.get(c) and c not in removals and isinstance(before, int):
                    placed[c] = before
                    continue
                v = m.new_bool_var(f"placed{t}_{c}")
                m.add(v == before - removals.get(c, 0) + sum(covering.get(c, ())))
                placed[c] = v

            complete = {}
            for zi in live[t]:
                _, zmask, missing = zones[zi]
                cells = [placed[c] for c in scan_cells(zmask)]
                if any(isinstance(p, int) and p == 0 for p in cells):
                    continue
                v = m.new_bool_var(f"complete{t}_{zi}")
                lits = [p for p in cells if not isinstance(p, int)]
                m.add_bool_and(lits).only_enforce_if(v)
                m.add_implication(v, active)
                if t > 0 or missing > 0:
                    # after a clear no zone is complete: only the step's piece can complete one
                    m.add_bool_or([v.negated()] + touching[zi])
                m.add_bool_or([v, active.negated()] + [p.negated() for p in lits])
                complete[zi] = v

            after = {}
            for c, p in placed.items():
                through = [v for zi, v in complete.items() if zones[zi][1] >> c & 1]
                if not through:
                    after[c] = p
                    cleared = None
                else:
                    cleared = m.new_bool_var(f"cleared{t}_{c}")
                    for v in through:
                        m.add_implication(v, cleared)
                    m.add_bool_or([cleared.negated()] + through)
                    after[c] = p - cleared  # a complete zone's cells are all placed
                if c in pumpkins:
                    pumpkins[c] = self._survives(f"pumpkin{t}_{c}", pumpkins[c], [removals.get(c), cleared])
            occupied = after

            lines = m.new_int_var(0, max_lines, f"lines{t}")
            regions = m.new_int_var(0, max_regions, f"regions{t}")
            m.add(lines == sum(v for zi, v in complete.items() if not zones[zi][0]))
            m.add(regions == sum(v for zi, v in complete.items() if zones[zi][0]))
            clears = m.new_bool_var(f"clears{t}")
            if complete:
                m.add_max_equality(clears, list(complete.values()))
            else:
                m.add(clears == 0)
            clears_at.append(clears)
            # Redundant, for the relaxation: a placement completes at most the zones it touches
            # (besides zones complete from the start), and (over the whole line) every completion
            # needs its zone's gaps filled, each placed cell serving at most one zone per family.
            initial = sum(1 for zi in complete if t == 0 and zones[zi][2] == 0)
            m.add(sum(complete.values()) <= initial + sum(
                sum(1 for _, zmask, _ in zones if zmask & spot.mask) * lit for _, spot, lit in row))
            completions += [zones[zi][2] * v for zi, v in complete.items() if zones[zi][2]]
            cells_placed += [spot.mask.bit_count() * lit for _, spot, lit in row]
            table = [
                (r, nl, nr, variant.clear_points(nl, nr, r))
                for r in range(min(t, run_cap) + 1)
                for nl in range(max_lines + 1)
                for nr in range(max_regions + 1)
            ]
            points = m.new_int_var(min(p for *_, p in table), max(p for *_, p in table), f"points{t}")
            m.add_allowed_assignments([run, lines, regions, points], table)
            objective.append(points)
            if t + 1 < steps:
                nxt = m.new_int_var(0, min(t + 1, run_cap), f"run{t + 1}")
                if run_cap:
                    grow = m.new_bool_var(f"grow{t}")  # clears and the run is still below the cap
                    m.add(run < run_cap).only_enforce_if(grow)
                    m.add(run >= run_cap).only_enforce_if(grow.negated())
                    m.add(nxt == run + 1).only_enforce_if(clears, grow)
                    m.add(nxt == run_cap).only_enforce_if(clears, grow.negated())
                m.add(nxt == 0).only_enforce_if(clears.negated())
                run = nxt

        # Each tray piece goes down at most once (copies of a piece are interchangeable).
        for k, tray in enumerate(trays):
            window = [t for t in range(steps) if tray_of_step[t] == k]
            for pid, count in Counter(tray).items():
                uses = [lit for t in window for opt, _, lit in self.x[t] if opt.piece == pid]
                if len(window) > count:
                    m.add(sum(uses) <= count)

        # Arabic flow: a tray that empties having cleared, after a tray that cleared.
        if variant.flow_bonus:
            tray_cleared = []
            for k in range(len(trays)):
                window = [t for t in range(steps) if tray_of_step[t] == k]
                if not window:
                    break
                v = m.new_bool_var(f"tray_cleared{k}")
                m.add_max_equality(v, [clears_at[t] for t in window])
                tray_cleared.append(v)
                last = first_step[k] + len(trays[k]) - 1
                if k == 0 or last >= steps:
                    continue
                flow = m.new_bool_var(f"flow{k}")
                parts = [tray_cleared[k - 1], v, self.active[last]]
                m.add_bool_and(parts).only_enforce_if(flow)
                m.add_bool_or([flow] + [p.negated() for p in parts])
                objective.append(variant.flow_bonus * flow)

        # Removals after the last placement only matter for the pumpkins goal.
        trailing = self._removals(steps, (may_fill[steps] & board.pumpkins) if can_remove and need_pumpkins else 0,
                                  occupied, None)
        token_spent += list(trailing.values())
        for c, alive in pumpkins.items():
            m.add(alive - trailing.get(c, 0) <= 0)  # none left at the end

        spent = sum(token_spent)
        m.add(spent <= level.tokens)
        families = 4 if variant.regions else 2
        m.add(sum(completions) <= families * sum(cells_placed))
        m.maximize(sum(objective) + bonus * (level.tokens - spent))

    def _removals(self, t: int, removable: Bitboard, occupied: dict, active) -> dict[int, cp_model.IntVar]:
        """Token removals at step t (before its placement), or after the last step when ``active`` is None."""
        m = self.model
        removals = {}
        for c in scan_cells(removable):
            before = occupied.get(c, 0)
            if isinstance(before, int) and before == 0:
                continue
            v = m.new_bool_var(f"remove{t}_{c}")
            m.add(v <= before)
            if active is not None:
                m.add_implication(v, active)  # a removal with no placement after it waits for the end
            removals[c] = v
        self.rm.append(removals)
        return removals

    def _survives(self, name: str, alive, killers: list) -> object:
        """A pumpkin still there after this step: it was, and it was neither removed nor cleared."""
        killers = [k for k in killers if k is not None]
        if not killers:
            return alive
        m = self.model
        v = m.new_bool_var(name)
        m.add(v <= alive)
        for k in killers:
            m.add(v + k <= 1)
        m.add(v >= alive - sum(killers))
        return v

    # ------------------------------------------------------------------
    def add_hint(self, moves: list[Move]) -> None:
        """Hint the placements and removals of a legal line; other lines are ignored."""
        replay = play_solution(self.level, moves, ignore_score=True)
        if not replay.ok:
            return
        chosen = set()
        t = 0
        turned: dict[str, _Option] = {}
        for move in moves:
            if isinstance(move, Placement):
                if t >= self.steps:
                    return
                opt = turned.pop(move.piece, None) or _Option(move.piece, move.piece)
                lit = next((lit for o, spot, lit in self.x[t]
                            if o == opt and (spot.row, spot.col) == (move.row, move.col)), None)
                if lit is None:
                    return
                chosen.add(lit.index)
                t += 1
            elif move.token == "rotate":
                shape = rotate_cw(get_piece(move.piece), move.turns).id
                turns = next(k for k in (1, 2, 3) if rotate_cw(get_piece(move.piece), k).id == shape)
                turned[shape] = _Option(move.piece, shape, turns)
            elif move.token == "remove":
                cell = move.row * 10 + move.col
                removals = self.rm[t] if t < len(self.rm) else {}
                if cell in removals:
                    chosen.add(removals[cell].index)
            else:
                return  # reserve draws are not modelled
        for row in self.x:
            for _, _, lit in row:
                self.model.add_hint(lit, lit.index in chosen)
        for removals in self.rm:
            for v in removals.values():
                self.model.add_hint(v, v.index in chosen)

    def line(self, solver: cp_model.CpSolver) -> list[Move]:
        moves: list[Move] = []
        for t in range(self.steps + 1):
            for c in sorted(self.rm[t]):
                if solver.boolean_value(self.rm[t][c]):
                    moves.append(TokenUse("remove", row=cell_row(c), col=cell_col(c)))
            if t == self.steps:
                break
            chosen = next(((opt, spot) for opt, spot, lit in self.x[t] if solver.boolean_value(lit)), None)
            if chosen is None:
                continue
            opt, spot = chosen
            if opt.turns:
                moves.append(TokenUse("rotate", piece=opt.piece, turns=opt.turns))
            moves.append(Placement(opt.shape, spot.row, spot.col))
        return moves
