"""The expert policy for endless play: plan the whole tray, then hand out its moves.

For the tray in hand every end state is enumerated (``solver.enumerate``)
and valued as ``points * w_points + evaluation(board)``
(``solver.evaluate``). The best few candidates then get a lookahead: the
same sampled next trays (drawn with an RNG seeded from the policy seed and
the position, so a decision depends only on them) are solved for each
candidate, and a candidate is worth its points plus an estimate of the
expected best next-tray value over the variant's supply (a tray that cannot
be placed costs ``death``). The estimate is stratified
(``solver.lookahead``): trays are split by how many bulky pieces (3x3, X5)
they hold, the rare strata with two or three of them, where the game-ending
trays are, get a floor of the rounds, and the stratum means are combined
with their exact probabilities, so the estimate stays unbiased while the
trays that end games are seen in every lookahead (``stratified=False``:
plain draws from the supply, their mean). A next-tray end state is valued
like a root one plus, with ``leaf_hazard``, ``death`` times the exact
chance that the tray after it deals a hard piece (3x3, 1x5, 5x1, an L5)
that has no spot on that board (``lookahead.blocked_hazard``): a second
step of danger at the price of a few array operations, where the feature
weight ``hard_blocked`` alone (-40) is far below a likely death (a blocked
3x3 ends about one tray in eight, 0.12 x 3000). Sampling is anytime:
whole rounds (one sampled tray for every candidate) run until ``samples``
rounds or the time budget is used up, and only complete rounds count.
Measured (bench/tune_results.json, ``manual``): Halloween, 20 games at the
2,000-tray cap with fixed rounds, 14/20 with plain sampling, 12/20
stratified, 14/20 plain with the leaf hazard, 15/20 stratified with the
leaf hazard (shortest game 1,365 trays instead of 232); the differences are
within the noise of 20 games. Sudoku: 20/20 either way. Each variant's
default is the measured one (``VARIANT_DEFAULTS``): Arabic, whose
Sultan's Labyrinth figure was measured with plain sampling, keeps it.

Survival term (``survival``, ``solver.survival``): the best ``survival``
end states by evaluation also pay ``survival_death`` times the exact chance
that the next tray cannot be placed, summed over every multiset of three
shapes the supply deals (2,600 in Halloween, about 0.4 ms a board). Inside
the lookahead a sampled tray that does not fit then counts 0 and each
candidate pays the exact chance instead: the same expectation without the
sampling noise. Why: each Halloween death of the self-play benchmark could
have been avoided one tray earlier (some end state of the tray before let
the fatal tray go down, checked by exhaustive search), and the state chosen
there lost to a few per cent of the next trays, the best other one to as
few or fewer (the figures: ``survival``'s docstring, from
bench/tune_results.json), a difference 16 sampled trays cannot see.

Halloween's defaults (``VARIANT_DEFAULTS``): the survival term on the 32
best end states at a death cost of -20,000, a stronger lookahead, 48
rounds on 8 candidates (16 on 6 elsewhere), and leaf survival (below).
The first two, before leaf survival, judged by ``bench/selfplay.py
--risk`` (the exact chance of an unplaceable next tray after every tray,
summed: the expected number of game overs). On the 20 benchmark games
(2,000-tray cap, fixed rounds): 19/20 at the cap (15/20 before; seed 2042
ended at 742 trays), 3.04 expected game overs in 38,742 trays, 0.079 per
1,000 against 0.126 before. The 8-game probe that picked it had shown
0.024 against 0.124 (the survival term alone: 0.110): most of the risk
sits in rare stretches where every end state is risky (94 % in the worst
1 % of positions), so 8,000 trays overstate a gain. The stronger
lookahead without the term was not measured. The price is time: about
175 ms a tray on average with fixed rounds (median about 30 ms: the
lookahead runs only when the board is tight; p99 about 2 s), so with a
clock (``play --time-limit 0.3``, the default until 2026-12-06) the lookahead
stops early on the tightest boards.

Leaf survival (``leaf_survival``, Halloween's default 4): the survival term
one tray deeper. When some lookahead candidate has a nonzero chance of an
unplaceable next tray (``leaf_survival_gate``), each lookahead leaf (a
candidate after a sampled tray) is worth the best of its 4 best end states,
each paying the death cost times its own exact chance; the leaf hazard,
its approximation, is then left out. A candidate's value then carries the
expected chance of a game over on the tray after next as well as on the
next one. With the clock it runs only when the budget affords
``MIN_DEEP_ROUNDS`` rounds of it, judged by the root's measured costs (a
deep round costs several plain ones), so play with a clock of 0.3 s a tray
mostly keeps the plain leaves (deep on 7 of the 49 decisions that looked
ahead in a 300-tray game, seed 91; 24 of 55 at 1 s); fixed-rounds play
(the benchmarks) always runs it when gated open. On the 20 benchmark games (2,000-tray cap, fixed
rounds): 20/20 at the cap (19/20 without it), 2.36 expected game overs in
40,000 trays, 0.059 per 1,000 against 0.079; seed 2042, which had ended at
742 trays, reaches the cap. By that risk the 20/20 is partly luck: 2.36
expected game overs means 20 games all reach the cap about 9 % of the time
(exp(-2.36)). It costs about 270 ms a tray on average instead of 175
(per-game means 246-297 ms; the median stays 28 ms, p99 2.4 s). The 36-tray
probes of risky stretches that came first are biased towards any change
(the stretches were picked by the old policy's bad luck: a reseeded old
policy also escaped most of them) and are not the evidence.

Tokens: when the tray cannot be placed, the cheapest rescue is taken:
the single rotate or remove whose tray then has the best value, else a
reroll (Arabic), a swap of the piece that blocks (Sudoku) or a refresh,
else the fewest rotates/removes ``TraySearch.rescue`` finds. With more than ``keep_tokens``
tokens, an Arabic rotation is spent when it raises the tray's value by more than the token's end bonus.

``ExpertPolicy`` is a ``Policy``: it returns one move per call and keeps
the rest of the plan keyed on the game state it expects, so any other
state (a new tray, a different game) is planned afresh.
"""

from __future__ import annotations

import hashlib
import math
import random
import time
from dataclasses import dataclass

import numpy as np

from . import watch
from .board import Board
from .engine import Game, Streak
from .jitcache import compile_seconds
from .lookahead import PlainTrays, StratifiedTrays, blocked_hazard
from .moves import Move, TokenUse
from .pieces import get_piece, turned_shapes
from .tray import TraySearch
from .variants import Variant

STAGE_TWO = 256  # end states re-scored with the connected-areas feature
# The search options, and each variant's own values where self-play measured them
# (bench/tune_results.json, ``manual``); an option given to ExpertPolicy wins over both.
# - stratified lookahead with the leaf hazard: Halloween 15/20 at the 2,000-tray cap (14/20
#   plain), Sudoku 20/20 (as plain). Arabic keeps plain sampling, the policy its Sultan's
#   Labyrinth figure (20 games, median 1,570 trays) was measured with.
# - Halloween's stronger lookahead (48 rounds, 8 candidates) with the survival term on the 32
#   best end states (death cost -20,000): 19/20 at the 2,000-tray cap (15/20 before), 0.079
#   expected game overs per 1,000 trays against 0.126 (see the module docstring).
# - and leaf survival on 4 end states per lookahead leaf: 20/20, 0.059 per 1,000 trays.
OPTION_DEFAULTS = {"samples": 16, "candidates": 6, "stratified": False, "leaf_hazard": False,
                   "survival": 0, "survival_death": None, "leaf_survival": 0, "leaf_survival_gate": 0.0}
VARIANT_DEFAULTS = {
    "halloween": {"stratified": True, "leaf_hazard": True, "samples": 48, "candidates": 8,
                  "survival": 32, "survival_death": -20000.0, "leaf_survival": 4},
    "sudoku": {"stratified": True, "leaf_hazard": True},
}


MIN_DEEP_ROUNDS = 12  # with the clock, leaf survival only when this many rounds fit the budget
_RAN: set[tuple[str, str]] = set()  # (step, variant) a decision of this process has run already


def _first_run(step: str, variant: Variant) -> bool:
    """True the first time a decision of this process runs ``step`` for ``variant``: that run
    also loads compiled kernels and builds tables, so it is no guide to the step's cost."""
    key = (step, variant.name)
    if key in _RAN:
        return False
    _RAN.add(key)
    return True


def state_key(game: Game) -> tuple:
    return (game.variant.name, game.board.filled, game.board.stones,
            tuple(sorted(game.tray or ())), game.streak, game.tokens)


@dataclass
class Decision:
    """What the expert chose for one tray, for hints and benchmarks."""

    moves: list[Move]
    value: float | None  # points * w + evaluation (+ lookahead mean) of the chosen plan
    end_states: int
    rounds: int  # lookahead rounds completed
    candidates: int
    deep: int = 0  # leaf survival: end states per lookahead leaf scored by their death chance (0: off)


class ExpertPolicy:
    def __init__(self, time_limit: float = 0.3, seed: int = 0, samples: int | None = None,
                 candidates: int | None = None, weights: dict[str, float] | None = None,
                 keep_tokens: int = 3, danger_only: bool = True, death: float = -3000.0,
                 tight_empty: int = 60, clock: bool = True, stratified: bool | None = None,
                 leaf_hazard: bool | None = None, survival: int | None = None,
                 survival_death: float | None = None, leaf_survival: int | None = None,
                 leaf_survival_gate: float | None = None):
        self.time_limit = time_limit  # seconds per tray for the lookahead (when in danger); 0 = none
        # clock=False: every lookahead runs all its rounds on all its candidates, whatever the time,
        # so a seeded game is the same on any machine and under any load (benchmarks, tuning).
        self.clock = clock
        self.seed = seed
        self.weights = weights
        self.keep_tokens = keep_tokens
        self.danger_only = danger_only  # look ahead only when the board is getting tight
        # "tight": fewer empty cells than this (50 let Halloween seeds 2027/2029 slide into
        # a dead end before the lookahead started), a hard piece blocked, or isolated cells
        self.tight_empty = tight_empty
        self.death = death
        # Left None, these take the variant's measured value (VARIANT_DEFAULTS, OPTION_DEFAULTS).
        # samples: lookahead rounds; candidates: end states looked ahead from;
        # stratified: next trays stratified by bulky pieces (solver.lookahead), else plain supply draws;
        # leaf_hazard: lookahead leaves also pay death x the chance that the tray after holds a
        # blocked hard piece;
        # survival: the best this many end states (by evaluation) also pay ``survival_death``
        # (None: ``death``) times the exact chance that the next tray cannot be placed
        # (solver.survival); 0 = off. Games without tokens only: with one, a stuck tray is rescued.
        # leaf_survival: with the survival term, each lookahead leaf (a candidate after a sampled tray)
        # is worth the best of its this many best end states, each paying ``survival_death`` times
        # its exact chance of an unplaceable tray after it: the survival term one tray deeper;
        # 0 = off. leaf_survival_gate: only when some candidate's own chance exceeds this.
        self._given = {name: value for name, value in (
            ("samples", samples), ("candidates", candidates), ("stratified", stratified),
            ("leaf_hazard", leaf_hazard), ("survival", survival), ("survival_death", survival_death),
            ("leaf_survival", leaf_survival), ("leaf_survival_gate", leaf_survival_gate))
            if value is not None}
        self._plan: dict[tuple, Move] = {}
        self._weights: dict[str, dict[str, float]] = {}

    # -- the Policy interface ----------------------------------------------
    def __call__(self, game: Game) -> Move | None:
        key = state_key(game)
        move = self._plan.get(key)
        if move is not None:
            return move
        decision = self.decide(game)
        self._plan = _plan_keys(game, decision.moves)
        if decision.moves:
            return decision.moves[0]
        # the tray cannot all go down: the game ends only when no piece fits (RULES.md §1), so
        # place the pieces that still do, the most points first
        from .policy import greedy  # the policy table registers this class: imported late

        return greedy(game)

    def option(self, name: str, variant: Variant):
        """A search option for this variant: the one given, else the variant's measured default."""
        if name in self._given:
            return self._given[name]
        return VARIANT_DEFAULTS.get(variant.name, {}).get(name, OPTION_DEFAULTS[name])

    def lookahead_options(self, variant: Variant) -> tuple[bool, bool]:
        """(stratified, leaf_hazard) for this variant."""
        return self.option("stratified", variant), self.option("leaf_hazard", variant)

    # -- planning ------------------------------------------------------------
    def weights_for(self, variant: Variant) -> dict[str, float]:
        if self.weights is not None:
            return self.weights
        if variant.name not in self._weights:
            from .evaluate import load_weights

            self._weights[variant.name] = load_weights(variant)
        return self._weights[variant.name]

    def decide(self, game: Game) -> Decision:
        """The plan for the rest of the current tray (token moves included)."""
        from .enumerate_jit import enumerate_tray_jit

        start = time.perf_counter()
        compiling = compile_seconds()  # compiling (a cold cache: after an install) is not thinking time
        tray = list(game.tray or ())
        if not tray:
            return Decision([], None, 0, 0, 0)
        variant, board = game.variant, game.board
        if _first_run("root", variant):  # load the kernels on a tray of one 1x1 first, so that the
            self._values(enumerate_tray_jit(variant, Board(), game.streak, ["1x1"]), 0)  # timing below: the work
        began = time.perf_counter()
        states = enumerate_tray_jit(variant, board, game.streak, tray)
        if len(states) == 0:
            return Decision(self._rescue(game), None, 0, 0, 0)
        order, values = self._values(states, board.stones)
        # a guess at what one lookahead tray costs: the enumeration and its values, not the
        # survival term below, which a lookahead tray does not repeat
        self._root_cost = time.perf_counter() - began
        chances = None  # with the survival term: death chances of order[:len(chances)]
        if self.option("survival", variant) and game.tokens == 0:
            order, values, chances = self._with_survival(states, order, values, board.stones)
        if game.tokens > self.keep_tokens and "rotate" in variant.token_kinds:
            turn = self._rotation_gain(game, values[0])
            if turn is not None:
                return Decision([turn], None, len(states), 0, 0)
        chosen, value, rounds, n_cand, deep = order[0], values[0], 0, 1, 0
        # the time limit counts from the start, loading the kernels included (a hint's answer
        # took the limit plus about 0.3 s of loading in a new process: a docs audit), less any
        # compiling (a cold numba cache compiles for seconds: the first hint after an install
        # had no time left to look ahead)
        deadline = start + (compile_seconds() - compiling) + self.time_limit if self.time_limit > 0 else None
        if deadline is not None and (not self.danger_only or self._in_danger(states, order[0], board.stones)):
            chosen, value, rounds, n_cand, deep = self._lookahead(game, states, order, values, deadline, chances)
        return Decision(list(states.plan(chosen)), float(value), len(states), rounds, n_cand, deep)

    def _values(self, states, stones: int, death: float = 0.0):
        """(indices best first, their values) for the best ``STAGE_TWO`` end states; with
        ``death``, each value also carries ``death`` times the chance that the following tray
        holds a hard piece with no spot (``lookahead.blocked_hazard``)."""
        from .evaluate import FEATURES, features_bulk, weight_vector

        weights = self.weights_for(states.variant)
        w = weight_vector(weights)
        base = states.points * weights["points"]
        comp = FEATURES.index("components")
        w_cheap = w.copy()
        w_cheap[comp] = 0.0
        cheap = base + features_bulk(states.variant, states.lo, states.hi, stones, False) @ w_cheap
        if len(states) > STAGE_TWO:
            top = np.argpartition(-cheap, STAGE_TWO - 1)[:STAGE_TWO]
        else:
            top = np.arange(len(states))
        feats = features_bulk(states.variant, states.lo[top], states.hi[top], stones, True)
        full = base[top] + feats @ w
        if death:
            full = full + death * blocked_hazard(states.variant, feats)
        # stable order: value, then enumeration order, so equal values pick the same plan
        rank = np.lexsort((top, -full))
        return top[rank], full[rank]

    def _survival_death(self, variant: Variant) -> float:
        cost = self.option("survival_death", variant)
        return self.death if cost is None else cost

    def _with_survival(self, states, order, values, stones: int):
        """The best ``survival`` states re-valued with the death cost times their exact chance of
        an unplaceable next tray, re-ranked (ties by the previous order); the rest keep theirs.
        Also returns the chances of the new order's first states, as many as the lookahead's
        candidates or the re-valued ones, whichever is more, so the lookahead reuses them."""
        from .survival import death_chance

        variant = states.variant
        k = min(self.option("survival", variant), len(order))
        n = min(max(k, self.option("candidates", variant)), len(order))
        if _first_run("survival", variant):  # it builds the tables, loads the kernel: not timed below
            death_chance(variant, states.lo[order[:1]], states.hi[order[:1]], stones)
        began = time.perf_counter()
        chances = death_chance(variant, states.lo[order[:n]], states.hi[order[:n]], stones)
        self._chance_cost = (time.perf_counter() - began) / max(n, 1)  # seconds per board
        valued = values[:k] + self._survival_death(variant) * chances[:k]
        rank = np.concatenate([np.lexsort((np.arange(k), -valued)), np.arange(k, n)])
        return (np.concatenate([order[:n][rank], order[n:]]),
                np.concatenate([valued[rank[:k]], values[k:]]), chances[rank])

    def _leaf_with_survival(self, states, stones: int, k: int) -> float:
        """A lookahead leaf's value: the best of its ``k`` best end states, each paying the death
        cost times its exact chance of an unplaceable next tray (the root's survival term)."""
        from .survival import death_chance

        order, values = self._values(states, stones)
        top = order[:k]
        chances = death_chance(states.variant, states.lo[top], states.hi[top], stones)
        return float(np.max(values[:len(top)] + self._survival_death(states.variant) * chances))

    def _in_danger(self, states, index: int, stones: int) -> bool:
        from .evaluate import FEATURES, features_bulk

        f = features_bulk(states.variant, states.lo[index:index + 1], states.hi[index:index + 1], stones, True)[0]
        feats = dict(zip(FEATURES, f))
        return feats["empty"] < self.tight_empty or feats["hard_blocked"] > 0 or feats["isolated"] > 1

    def _lookahead(self, game: Game, states, order, values, deadline: float, chances=None):
        from .enumerate_jit import enumerate_tray_jit
        from .board import Board

        variant = game.variant
        weights = self.weights_for(variant)
        # as many candidates as one round can afford, so that at least one round completes
        candidates = self.option("candidates", variant)
        if self.clock:
            affordable = int((deadline - time.perf_counter()) / (1.5 * self._root_cost + 1e-4))
        else:
            affordable, deadline = candidates, math.inf
        picks = list(order[: min(candidates, affordable)])
        if len(picks) < 2:
            return order[0], values[0], 0, 1, 0
        stratified, leaf_hazard = self.lookahead_options(variant)
        rng = random.Random(_position_seed(self.seed, game))
        sampler = (StratifiedTrays if stratified else PlainTrays)(variant, rng.randrange(1 << 62),
                                                                  self.option("samples", variant))
        death = self.death if game.tokens == 0 else self.death / 4
        # the survival term one tray deeper, when a candidate is at risk already and (with the
        # clock) the budget affords MIN_DEEP_ROUNDS rounds of such leaves
        deep = 0
        if chances is not None and float(np.max(chances[:len(picks)])) > self.option("leaf_survival_gate", variant):
            deep = self.option("leaf_survival", variant)
            if deep and self.clock:
                per_round = len(picks) * (1.5 * self._root_cost + deep * self._chance_cost)
                if (deadline - time.perf_counter()) / per_round < MIN_DEEP_ROUNDS:
                    deep = 0
        # with the survival term, a sampled tray that does not fit counts 0 and each candidate pays
        # the exact chance of such a tray instead: the same expectation without the sampling noise
        stuck = death if chances is None else 0.0
        sums = np.zeros((sampler.strata, len(picks)))  # per stratum, per candidate
        counts = np.zeros(sampler.strata)
        rounds = 0
        slowest = 0.0
        explored = 0  # end states the lookahead has enumerated: what a live status counts (hint's)
        for stratum in sampler.schedule:
            tray = sampler.draw(stratum)
            row = np.zeros(len(picks))
            for j, i in enumerate(picks):
                began = time.perf_counter()
                if began + slowest > deadline:
                    break
                board = Board(states.filled(i), game.board.stones, 0)
                nxt = enumerate_tray_jit(variant, board, states.streak(i), tray)
                explored += len(nxt)
                watch.tick(explored, None)
                if len(nxt) == 0:
                    row[j] = stuck
                elif deep:
                    row[j] = self._leaf_with_survival(nxt, game.board.stones, deep)
                else:
                    _, vals = self._values(nxt, game.board.stones, death if leaf_hazard else 0.0)
                    row[j] = vals[0]
                slowest = max(slowest, time.perf_counter() - began)
            else:
                sums[stratum] += row
                counts[stratum] += 1
                rounds += 1
                continue
            break
        if rounds == 0:
            return order[0], values[0], 0, len(picks), 0
        base = states.points[picks] * weights["points"]
        score = base + sampler.estimate(sums, counts)
        if chances is not None:
            score = score + self._survival_death(variant) * chances[:len(picks)]
        best = int(np.argmax(score))
        return picks[best], score[best], rounds, len(picks), deep

    def _rotation_gain(self, game: Game, best_value: float) -> TokenUse | None:
        from .enumerate_jit import enumerate_tray_jit

        variant = game.variant
        bonus = variant.token_bonus * self.weights_for(variant)["points"]
        tray = list(game.tray or ())
        best_gain, best_move = bonus, None
        for piece in dict.fromkeys(tray):
            for turned, turns in turned_shapes(piece):
                rotated = list(tray)
                rotated[rotated.index(piece)] = turned
                states = enumerate_tray_jit(variant, game.board, game.streak, rotated)
                if len(states) == 0:
                    continue
                _, vals = self._values(states, game.board.stones)
                if vals[0] - best_value > best_gain:
                    best_gain, best_move = vals[0] - best_value, TokenUse("rotate", piece=piece, turns=turns)
        return best_move

    def _rescue(self, game: Game) -> list[Move]:
        """Token moves that let the tray go down, cheapest first; [] when none can."""
        from .enumerate_jit import enumerate_tray_jit

        if game.tokens <= 0:
            return []
        variant, tray = game.variant, list(game.tray or ())
        kinds = variant.token_kinds
        single = self._best_single_token(game)
        if single is not None:
            return [single]
        if game.can_draw(1) and "swap" in kinds:
            # swap out the piece without which the rest still fits, biggest first
            for piece in sorted(dict.fromkeys(tray), key=lambda p: -get_piece(p).size):
                rest = list(tray)
                rest.remove(piece)
                if not rest or len(enumerate_tray_jit(variant, game.board, game.streak, rest)):
                    return [TokenUse("swap", piece=piece)]
        if game.can_draw(len(tray)) and kinds & {"reroll", "refresh"}:  # every piece of the tray anew
            return [TokenUse("reroll" if "reroll" in kinds else "refresh")]
        if kinds & {"rotate", "remove"}:  # one token too: a removal after a placement
            rescued = TraySearch(variant, game.board, game.streak).rescue(tray, game.tokens)
            if rescued is not None:
                return _leading_tokens(rescued[1])
        return []

    def _best_single_token(self, game: Game) -> TokenUse | None:
        """The rotate or remove after which the whole tray fits with the best value."""
        from .board import Board
        from .enumerate_jit import enumerate_tray_jit
        from .pieces import placements

        variant, board, tray = game.variant, game.board, list(game.tray or ())
        options: list[tuple[TokenUse, Board, list[str]]] = []
        if "rotate" in variant.token_kinds:
            for piece in dict.fromkeys(tray):
                for turned, turns in turned_shapes(piece):
                    rotated = list(tray)
                    rotated[rotated.index(piece)] = turned
                    options.append((TokenUse("rotate", piece=piece, turns=turns), board, rotated))
        if "remove" in variant.token_kinds:
            useful = 0  # tiles that are the only blocker of some spot
            occupied = board.occupied
            for piece in set(tray):
                for spot in placements(piece):
                    blocked = spot.mask & occupied
                    if blocked and blocked & (blocked - 1) == 0 and not blocked & board.stones:
                        useful |= blocked
            while useful:
                bit = useful & -useful
                useful ^= bit
                cell = bit.bit_length() - 1
                cleared = Board(board.filled & ~bit, board.stones, board.pumpkins & ~bit)
                options.append((TokenUse("remove", row=cell // 10, col=cell % 10), cleared, tray))
        best, best_value = None, None
        for move, after, pieces in options:
            states = enumerate_tray_jit(variant, after, game.streak, pieces)
            if len(states):
                _, values = self._values(states, after.stones)
                if best_value is None or values[0] > best_value:
                    best, best_value = move, values[0]
        return best


def _leading_tokens(plan: list[Move]) -> list[Move]:
    """The token moves a rescue starts with (the expert re-plans the placements after them);
    the whole plan when it places a piece before spending."""
    lead = []
    for move in plan:
        if not isinstance(move, TokenUse):
            break
        lead.append(move)
    return lead or list(plan)


def _position_seed(seed: int, game: Game) -> int:
    text = f"{seed}|{game.variant.name}|{game.board.filled}|{game.board.stones}|{sorted(game.tray or ())}"
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")


def _plan_keys(game: Game, moves: list[Move]) -> dict[tuple, Move]:
    """The state each planned move expects before it, replayed on a deal-less copy."""
    sim = Game(game.variant, game.board, game.streak, game.tokens, list(game.tray or ()), None)
    keys: dict[tuple, Move] = {}
    for move in moves:
        keys[state_key(sim)] = move
        if isinstance(move, TokenUse) and move.token in ("reroll", "swap", "refresh"):
            break  # the tray after a draw is unknown: plan again then
        sim.apply(move)
    return keys


def hint(variant: Variant, board, pieces: list[str], streak: int = 0, tokens: int = 0,
         time_limit: float = 1.0, seed: int = 0, fixed_rounds: bool = False,
         started: float | None = None) -> dict:
    """The expert's whole plan for one tray, token moves included, within ``time_limit`` seconds.

    Looks ahead on every position (not only tight ones) while the budget lasts: 85 % of
    ``time_limit`` from ``started`` (a ``time.perf_counter()``: the command's start, so that its
    loading counts too; default: now), loading the compiled kernels and the enumeration
    included (compiling them, after an install, is not counted), so the rest covers
    the last round and the bookkeeping. ``fixed_rounds``: every lookahead runs all its rounds whatever the
    clock, so the same input gets the same plan on any machine (``time_limit`` is then unused,
    but for 0: no lookahead). ``ms`` counts from ``started``.
    """
    start = time.perf_counter() if started is None else started
    game = Game(variant, board, Streak.carried_in(streak), tokens, list(pieces), None)
    moves: list[Move] = []
    last: Decision | None = None
    while game.tray:
        left = time_limit * 0.85 - (time.perf_counter() - start)
        budget = max(left, 1e-6) if time_limit > 0 else 0.0  # 0: no lookahead, fixed rounds or not (as play)
        policy = ExpertPolicy(time_limit=budget, seed=seed, danger_only=False, clock=not fixed_rounds)
        last = policy.decide(game)
        if not last.moves:
            break
        for move in last.moves:
            game.apply(move)
        moves.extend(last.moves)
    placed = not game.tray
    return {
        "placeable": placed,
        "best_score": game.score if placed else None,
        "plan": [m.to_json() for m in moves] if placed else None,
        "tokens_used": tokens - game.tokens,
        "end_states": last.end_states if last else 0,
        "lookahead_rounds": last.rounds if last else 0,
        "value": round(last.value, 6) if last and last.value is not None else None,  # 126.8, not 126.80000000000001
        "ms": round(1000 * (time.perf_counter() - start), 1),
    }
