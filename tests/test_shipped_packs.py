"""The packs in levels/: every claim re-proven, every solution replayed independently."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from level_reference import reference_check
from generator.pack import level_key
from solver.level import parse_pack
from solver.verify import verify_level

PACKS = sorted((Path(__file__).resolve().parents[1] / "levels").glob("*.json"))


def test_packs_are_shipped():
    kinds = {json.loads(p.read_text())["generator"]["kind"] for p in PACKS}
    assert {"sultan", "halloween"} <= kinds


@pytest.mark.parametrize("path", PACKS, ids=lambda p: p.name)
def test_pack_levels_hold_their_claims(path):
    raw = json.loads(path.read_text())
    pack = parse_pack(raw, path.name)
    assert len(pack.levels) >= 30
    assert len({level_key(lv) for lv in raw["levels"]}) == len(raw["levels"])
    grades = {lv["grade"] for lv in raw["levels"]}
    assert grades == {"easy", "medium", "hard", "expert"}
    for level, data in zip(pack.levels, raw["levels"]):
        if raw["generator"]["kind"] == "sultan":
            assert sum(row.count("S") for row in data["board"]) == 4
            assert data["tokens"] == 3 and {"place_all": True} in data["goals"]
        ok, why, score = reference_check(data)
        assert ok, f"{data['id']}: {why}"
        assert score == data["best"]["score"] and data["best"]["proof"] == "optimal"
        verdict = verify_level(level, time_limit=60)
        assert verdict.ok, f"{data['id']}: {verdict.problems}"
