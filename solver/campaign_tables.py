"""A campaign level's rules as the arrays the compiled search reads (``_Tables``), and the
per-variant and per-piece parts of them kept for the next level."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .bitboard import BB_ALL
from .bounds import (_families, add_events, completions_bound, event_costs, events_limits,
                     paying_zones, reachable_pieces, zones_per_piece)
from .enumerate_jit import split, zone_tables
from .level import Level
from .pieces import SHAPE_CACHE, get_piece, placements, turned_shapes


_EVENT_ENTRIES = 1 << 22  # the emptied-budget tables' size cap (int32 entries)


class _Tables:
    """The level's rules as arrays for ``_search``."""

    def __init__(self, level: Level) -> None:
        variant = level.variant
        trays = [tuple(sorted(t)) for t in level.trays]
        pieces = {p for t in trays for p in t}
        turned = {p: list(turned_shapes(p)) for p in pieces} if level.tokens and "rotate" in variant.token_kinds else {}
        ids = sorted(pieces | {q for shapes in turned.values() for q, _ in shapes})
        self.ids = ids
        index = {p: i for i, p in enumerate(ids)}
        # the distinct shapes each tray piece turns into (a rotate token), and how far it turns
        self.rot_n = np.zeros(max(len(ids), 1), np.int64)
        self.rot_g = np.zeros((max(len(ids), 1), 3), np.int64)
        self.turns = {}
        for p, shapes in turned.items():
            self.rot_n[index[p]] = len(shapes)
            for r, (q, t) in enumerate(shapes):
                self.rot_g[index[p], r] = index[q]
                self.turns[p, q] = t
        n_trays = len(trays)
        width = max((len(t) for t in trays), default=1)
        self.tray_len = np.array([len(t) for t in trays], np.int64)
        self.tray_piece = np.zeros((max(n_trays, 1), max(width, 1)), np.int64)
        self.tray_group = np.zeros((max(n_trays, 1), max(width, 1)), np.int64)
        for t, tray in enumerate(trays):
            for j, p in enumerate(tray):
                self.tray_piece[t, j] = index[p]
                self.tray_group[t, j] = sum(1 << q for q in range(len(tray)) if tray[q] == p)
        self.piece_size = np.array([get_piece(p).size for p in ids] or [0], np.int64)
        self._remaining(variant, trays, level.limit)
        self._events(variant, trays, level.board.stones)
        zones = variant.zones
        zone_id = {z: i for i, z in enumerate(zones)}
        spot_w = max((len(placements(p)) for p in ids), default=1)
        touch_w = 1 + max((_spot_tables(variant, p)[2].shape[1] for p in ids), default=0)
        self.spot_lo = np.zeros((max(len(ids), 1), spot_w), np.uint64)
        self.spot_hi = np.zeros((max(len(ids), 1), spot_w), np.uint64)
        self.spot_touch = np.full((max(len(ids), 1), spot_w, touch_w), -1, np.int64)
        for g, p in enumerate(ids):
            lo, hi, touch = _spot_tables(variant, p)
            self.spot_lo[g, :len(lo)] = lo
            self.spot_hi[g, :len(hi)] = hi
            self.spot_touch[g, :touch.shape[0], :touch.shape[1]] = touch
        self._anchor_tables(ids)
        families = _families(variant, level.board.stones)
        self.fam_count = np.array([len(z) for z, _ in families], np.int64)
        self.fam_refill = np.array([r for _, r in families], np.int64)
        self.fam_zone = np.zeros((max(len(families), 1), 16), np.int64)
        for f, (fz, _) in enumerate(families):
            for a, z in enumerate(fz):
                self.fam_zone[f, a] = zone_id[z]
        self.zone_lo, self.zone_hi, self.zone_region = zone_tables(variant)
        assert len(zones) <= 64, "the zone sets are one uint64"
        self.cell_zones = np.array([sum(1 << i for i, z in enumerate(zones) if z >> c & 1) for c in range(100)],
                                   np.uint64)
        runs = 2 * sum(len(t) for t in trays) + 2  # a streak run plus the pieces left
        self.pts = _points_table(variant, runs)
        self.paying = np.array([paying_zones(variant, run) for run in range(runs)], np.int64)

    def _anchor_tables(self, ids) -> None:
        """Per piece: its cells as offsets from the anchor (the top-left cell of its box), the
        anchors where it fits inside the board, the spot index of each anchor, and per cell the
        anchors whose spot covers it; the bitboard move generator's tables."""
        n = max(len(ids), 1)
        width = max((get_piece(p).size for p in ids), default=1)
        self.offs = np.zeros((n, width), np.int64)
        self.offs_n = np.zeros(n, np.int64)
        self.spot_of = np.full((n, 100), -1, np.int64)
        self.anchor_lo = np.zeros(n, np.uint64)
        self.anchor_hi = np.zeros(n, np.uint64)
        self.cover_lo = np.zeros((n, 100), np.uint64)
        self.cover_hi = np.zeros((n, 100), np.uint64)
        for g, p in enumerate(ids):
            offs, spot_of, anchor_lo, anchor_hi, cover_lo, cover_hi = _anchor_rows(p)
            self.offs_n[g] = len(offs)
            self.offs[g, :len(offs)] = offs
            self.spot_of[g] = spot_of
            self.anchor_lo[g], self.anchor_hi[g] = anchor_lo, anchor_hi
            self.cover_lo[g] = cover_lo
            self.cover_hi[g] = cover_hi

    def _remaining(self, variant, trays, limit) -> None:
        """For tray ``t`` with unplaced slots ``left``: the pieces a line can still place (that
        tray's unplaced ones and the later trays' up to the placement limit), as their count,
        prefix sums of their sizes largest first, and their zone caps largest first; and how
        many trays can still end within the limit. The bound's lookups."""
        n_trays = max(len(trays), 1)
        masks = 1 << max((len(t) for t in trays), default=0)
        total = sum(len(t) for t in trays)
        self.rem_n = np.zeros((n_trays, masks), np.int64)
        self.rem_cells = np.zeros((n_trays, masks, total + 1), np.int64)
        self.rem_caps = np.zeros((n_trays, masks, total + 1), np.int64)
        self.rem_ends = np.zeros((n_trays, masks), np.int64)
        # (t, left) -> the caps of the pieces placeable at most, largest first (the events tables)
        self.placeable_caps: dict[tuple[int, int], tuple[int, ...]] = {}
        before = 0  # the placements made before tray t
        for t, tray in enumerate(trays):
            for left in range(1 << len(tray)):
                placed = before + len(tray) - left.bit_count()
                unplaced = [p for j, p in enumerate(tray) if left >> j & 1]
                pieces, ends = reachable_pieces(unplaced, trays[t + 1:], limit - placed)
                sizes = sorted((get_piece(p).size for p in pieces), reverse=True)
                caps = sorted((zones_per_piece(variant, p) for p in pieces), reverse=True)
                self.placeable_caps[t, left] = tuple(caps[:max(0, min(len(pieces), limit - placed))])
                self.rem_n[t, left] = len(pieces)
                self.rem_cells[t, left, 1:len(sizes) + 1] = np.cumsum(sizes, dtype=np.int64)
                self.rem_caps[t, left, :len(caps)] = caps
                self.rem_ends[t, left] = ends
            before += len(tray)

    def _events(self, variant, trays, stones) -> None:
        """``ev[t - ev_from, left]``: ``bounds.events_bound``'s table for the pieces a line can
        still place from tray ``t`` with slots ``left`` unplaced (the largest caps, as many as
        placements are left), on one grid for the whole level (as many completions and emptied
        cells as any state can reach). Built for the last trays, as many as fit in
        ``_EVENT_ENTRIES`` (a long level's first trays then use the count bound alone);
        ``ev_from`` is past the last tray where the budget does not apply."""
        costs = event_costs(variant, stones.bit_count())
        self.ev_from = len(trays)
        self.ev = np.zeros((1, 1, 1, 1), np.int32)
        if costs is None or not trays:
            return
        pieces = [p for t in trays for p in t]
        cells = sum(get_piece(p).size for p in pieces)
        c_lim, e_lim = events_limits(costs, tuple(zones_per_piece(variant, p) for p in pieces))
        c_max = min(c_lim, completions_bound(variant, BB_ALL & ~stones, stones, cells))
        e_max = min(e_lim, 100 + cells)
        masks = self.rem_n.shape[1]
        keep = min(len(trays), _EVENT_ENTRIES // (masks * (c_max + 1) * (e_max + 1)))
        if keep == 0:
            return
        self.ev_from = len(trays) - keep
        self.ev = np.zeros((keep, masks, c_max + 1, e_max + 1), np.int32)
        for t in range(self.ev_from, len(trays)):
            for left in range(1 << len(trays[t])):
                caps = self.placeable_caps[t, left]
                self.ev[t - self.ev_from, left] = _events_grid(variant, stones.bit_count(), caps, c_max, e_max)


# The parts of the tables that depend on the variant and the pieces alone, kept for the next
# level (a pack, the generator's candidates, the tests' hundreds of levels). ``_Tables`` copies
# them into the level's arrays, except the points table, which levels share and only read.

@lru_cache(maxsize=SHAPE_CACHE)
def _spot_tables(variant, piece_id: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per spot of the piece (in ``placements`` order): its mask's low and high words, and the
    zones it touches (ascending, -1 after the last)."""
    spots = placements(piece_id)
    touched = [[i for i, z in enumerate(variant.zones) if z & s.mask] for s in spots]
    touch = np.full((len(spots), max((len(t) for t in touched), default=0)), -1, np.int64)
    lo = np.zeros(len(spots), np.uint64)
    hi = np.zeros(len(spots), np.uint64)
    for k, s in enumerate(spots):
        lo[k], hi[k] = split(s.mask)
        touch[k, :len(touched[k])] = touched[k]
    return lo, hi, touch


@lru_cache(maxsize=SHAPE_CACHE)
def _anchor_rows(piece_id: str) -> tuple:
    """The piece's row of ``_anchor_tables``: cell offsets, spot index per anchor, anchors (low,
    high words) and per cell the anchors covering it (low, high words)."""
    piece = get_piece(piece_id)
    offs = np.array([r * 10 + c for r, c in piece.cells], np.int64)
    spot_of = np.full(100, -1, np.int64)
    anchors = 0
    cover = [0] * 100
    for k, spot in enumerate(placements(piece_id)):
        a = spot.row * 10 + spot.col
        anchors |= 1 << a
        spot_of[a] = k
        for r, c in piece.cells:
            cover[a + r * 10 + c] |= 1 << a
    words = [split(m) for m in cover]
    anchor_lo, anchor_hi = split(anchors)
    return (offs, spot_of, anchor_lo, anchor_hi, np.array([w[0] for w in words], np.uint64),
            np.array([w[1] for w in words], np.uint64))


@lru_cache(maxsize=64)
def _points_table(variant, runs: int) -> np.ndarray:
    """``clear_points(lines, regions, run)`` for runs below ``runs``; the bound may ask for
    every zone at once. Shared by the levels that ask for it: never written to."""
    every = range(len(variant.zones) + 1)
    return np.array([[[variant.clear_points(lines, regions, run) for run in range(runs)]
                      for regions in every] for lines in every], np.int64)


@lru_cache(maxsize=256)
def _events_grid(variant, stones: int, caps: tuple[int, ...], c_max: int, e_max: int) -> np.ndarray:
    """``bounds.events_bound``'s table for pieces with these caps, on a (c_max + 1, e_max + 1)
    grid (``_Tables._events`` copies it into the level's table). Built on the table of all
    but the last cap, which the levels' cap lists (largest first) share."""
    if not caps:
        return np.zeros((c_max + 1, e_max + 1), np.int64)
    return add_events(_events_grid(variant, stones, caps[:-1], c_max, e_max), caps[-1],
                      event_costs(variant, stones))
