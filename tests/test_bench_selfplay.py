"""bench/selfplay.py's configuration names: the named ones, ``variant:mode`` and ``every-mode``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import selfplay  # noqa: E402

from solver.variants import VARIANTS  # noqa: E402


def test_every_mode_names_each_mode_of_each_variant_once():
    names = selfplay.expand_configs("every-mode,sultan")
    expected = [f"{v.name}:{m}" for v in VARIANTS.values() for m in v.modes]
    assert sorted(names[:-1]) == sorted(expected) and len(names) == len(expected) + 1
    assert names[-1] == "sultan"
    for name in names[:-1]:
        variant, mode = selfplay.resolve_config(name)
        assert f"{variant}:{mode}" == name


def test_named_and_variant_mode_configurations_agree():
    assert selfplay.resolve_config("sultan") == ("arabic", "sultan")
    assert selfplay.resolve_config("arabic") == ("arabic", "standard")  # the variant's default mode
    assert selfplay.resolve_config("sudoku:") == ("sudoku", "classic")
    # the alias plays the very same games (4 seeded stones, 3 tokens)
    a = selfplay.run_config("sultan", 2, 5, "greedy", 0.0, 91, progress=False)
    b = selfplay.run_config("arabic:sultan", 2, 5, "greedy", 0.0, 91, progress=False)
    assert (a["trays"], a["score_median"]) == (b["trays"], b["score_median"])
    c = selfplay.run_config("arabic:standard", 2, 5, "greedy", 0.0, 91, progress=False)
    assert c["trays"] != a["trays"] or c["score_median"] != a["score_median"]  # no stones there


@pytest.mark.parametrize("bad, named", [("nope:endless", "unknown variant 'nope'"),
                                        ("arabic:bogus", "no mode 'bogus'")])
def test_unknown_configuration_exits_2_before_playing(bad, named):
    run = subprocess.run([sys.executable, str(BENCH / "selfplay.py"), "--only", f"halloween,{bad}",
                          "--games", "1", "--cap", "1"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert named in run.stderr and repr(bad) in run.stderr
    assert "self-play" not in run.stdout and "Traceback" not in run.stderr
