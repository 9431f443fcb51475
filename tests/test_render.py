"""tenfold render: a static offline page, opened in headless Chromium, renders every level and steps."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

import export_fixtures as fx
from cli.main import app
from generator.frames import solution_frames
from solver.level import parse_pack
from solver.moves import TokenUse

CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("render")
    src = fx.write_json(folder / "pack.json", fx.pack())
    result = CliRunner().invoke(app, ["render", str(src), "--out", str(folder / "site")])
    assert result.exit_code == 0, result.output
    return folder / "site" / "index.html"


def chromium() -> str:
    path = shutil.which("chromium")
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed (.ci/run installs Debian's chromium package)")
        pytest.skip("chromium is not installed")
    return path


def dump_dom(page: Path, tmp_path: Path) -> str:
    profile = tmp_path / "profile"
    run = subprocess.run(
        [chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout


def with_clicks(page: Path, clicks: str, tmp_path: Path) -> Path:
    """A copy of the page that clicks its buttons once it has loaded."""
    copy = tmp_path / "clicked.html"
    copy.write_text(page.read_text().replace("</body>", f"<script>{clicks}</script>\n</body>"))
    return copy


def section(dom: str, level_id: str) -> str:
    match = re.search(rf'<section class="level" id="level-{re.escape(level_id)}".*?</section>', dom, re.S)
    assert match, level_id
    return match.group(0)


def cell_classes(section_html: str) -> list[str]:
    stepper = section_html[section_html.index('class="stepper"'):]
    found = {}
    for rect in re.findall(r"<rect [^>]*data-cell[^>]*>", stepper):
        cell = int(re.search(r'data-cell="(\d+)"', rect).group(1))
        found[cell] = re.search(r'class="([^"]*)"', rect).group(1)
    return [found[i] for i in range(100)]


def test_page_is_offline_and_complete(site):
    text = site.read_text()
    assert not re.search(r'(src|href)="(https?:)?//', text)  # nothing fetched from a network
    assert re.sub(r'xmlns="http://www.w3.org/2000/svg"', "", text).count("http") == 0
    assert "Fixture &lt;pack&gt; &amp; friends" in text
    assert text.count('<section class="level"') == 3


def test_page_renders_in_chromium(site, tmp_path):
    dom = dump_dom(site, tmp_path)
    h1 = section(dom, "h1")
    assert "grade: easy" in h1 and "score ≥ 10" in h1 and "★★★ 80" in h1
    assert "step 0 / 6: start (score 0)" in h1  # the script ran
    assert "stars: ★★" in section(dom, "s1")
    assert "No solution recorded." in section(dom, "h2 no solution")
    assert h1.count("<svg") == 2  # the level picture and the step-through board


def test_buttons_step_through_the_solution(site, tmp_path):
    level = parse_pack(fx.pack()).level("h1")
    frames = solution_frames(level)
    clicks = """
      var s = document.getElementById("level-h1");
      var next = s.querySelector("button.next"), prev = s.querySelector("button.prev");
      for (var i = 0; i < 4; i++) next.click();
      prev.click();
      var t = document.getElementById("level-s1").querySelector("button.next");
      for (var j = 0; j < 20; j++) t.click();
    """
    dom = dump_dom(with_clicks(site, clicks, tmp_path), tmp_path)
    h1 = section(dom, "h1")
    assert 'data-step="3"' in h1
    assert f"step 3 / 6: {frames[3].caption} (score {frames[3].score})" in h1
    expected = "".join(frames[3].board.rows())
    kinds = [c.split()[0] for c in cell_classes(h1)]
    for ch, kind in zip(expected, kinds):
        assert kind == {".": "empty", "#": "tile", "S": "stone", "P": "pumpkin"}[ch] or (kind, ch) == ("cleared", ".")
    assert sum("placed" in c for c in cell_classes(h1)) == frames[3].placed.bit_count()
    s1 = section(dom, "s1")
    assert 'data-step="6"' in s1 and "next" in s1  # stops at the last move
    assert re.search(r'<button class="next" type="button" disabled', s1)


def test_render_takes_one_level_too(tmp_path):
    level = fx.pack()["levels"][0]
    src = fx.write_json(tmp_path / "level.json", level)
    result = CliRunner().invoke(app, ["render", str(src), "--out", str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "site" / "index.html").read_text()
    assert len(re.findall(r'<section class="level"', page)) == 1 and f'data-level="{level["id"]}"' in page



def test_a_stored_solution_the_rules_refuse_is_not_rendered(tmp_path):
    """A page never steps through a position the rules forbid: render refuses the pack in one
    line naming the file, the level and the move as verify does, and writes nothing."""
    data = fx.pack()
    solution = data["levels"][1]["solution"]
    solution[1] = {**solution[0]}  # the first move's spot, taken since
    src = fx.write_json(tmp_path / "pack.json", data)
    result = CliRunner().invoke(app, ["render", str(src), "--out", str(tmp_path / "site")])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1, result.output
    assert result.output.startswith(f"error: {src}: level s1: solution[1]: illegal: piece "), result.output
    verdict = CliRunner().invoke(app, ["verify", str(src), "--level", "s1"]).output  # the others take 30 s
    assert result.output.split("solution[1]: illegal: ")[1].strip() in verdict
    assert not (tmp_path / "site").exists()

def test_the_last_frame_shows_the_levels_score_with_its_tokens_bonus():
    """A Sultan solution that leaves a token: its frames count the token's bonus, as a level's
    score does at any moment (RULES.md 3), so the last one is the level's best (it was 100 short)."""
    pack = parse_pack(json.loads((Path(__file__).resolve().parents[1] / "levels" / "sultan-2026.json").read_text()))
    spare = [lv for lv in pack.levels if sum(isinstance(m, TokenUse) for m in lv.solution) < lv.tokens]
    assert spare
    for level in spare + pack.levels[:5]:
        frames = solution_frames(level)
        assert frames[-1].score == level.best["score"], level.id
        assert frames[0].score == 100 * level.tokens


def test_captions_name_pieces_as_the_level_does():
    from solver.level import parse_level

    data = {"format": "tenfold.level/1", "id": "spelled", "variant": "sudoku", "mode": "classic",
            "board": ["." * 10] * 10, "trays": [[".#/.#", "2x2"]], "goals": [{"score": 1}],
            "solution": [{"piece": "2x1", "row": 0, "col": 0}, {"piece": "2x2", "row": 5, "col": 5}]}
    captions = [frame.caption for frame in solution_frames(parse_level(data))]
    assert [c.split(" +")[0] for c in captions[1:]] == [".#/.# at 0,0", "2x2 at 5,5"]


def test_a_big_pack_is_cut_into_linked_pages(tmp_path, monkeypatch):
    """A pack of more than PAGE_LEVELS levels (200; 5 here, to be quick) is written as pages of
    that many (index.html, page-2.html, ...): every level once, in the pack's order, each page
    linking to the others and saying which levels it holds (one page of 10,000 levels was
    210 MB)."""
    import generator.render

    monkeypatch.setattr(generator.render, "PAGE_LEVELS", 5)
    PAGE_LEVELS = 5
    count = 2 * PAGE_LEVELS + 2
    levels = [fx.halloween_level(f"L{i:04d}") for i in range(count)]
    src = fx.write_json(tmp_path / "big.json", {**fx.pack("big"), "levels": levels})
    result = CliRunner().invoke(app, ["render", str(src), "--out", str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    assert "and 2 more pages" in result.output
    names = ["index.html", "page-2.html", "page-3.html"]
    assert sorted(p.name for p in (tmp_path / "site").iterdir()) == sorted(names)
    seen = []
    for number, name in enumerate(names, 1):
        page = (tmp_path / "site" / name).read_text()
        seen += re.findall(r'<section class="level" id="level-([^"]+)"', page)
        first, last = (number - 1) * PAGE_LEVELS + 1, min(number * PAGE_LEVELS, count)
        assert f"levels {first:,} to {last:,}: page {number} of 3" in page
        links = re.findall(r'<a href="([^"]+)">', page)
        assert links == [n for n in names if n != name]
        frames = json.loads(re.search(r'id="tenfold-frames">(.*?)</script>', page, re.S).group(1))
        assert sorted(frames) == sorted(re.findall(r'<section class="level" id="level-([^"]+)"', page))
    assert seen == [lv["id"] for lv in levels]
    # rendered again into the same folder, a smaller pack takes the pages past its last with it
    # (they named the other pack and linked to these); other files there are left be
    (tmp_path / "site" / "page-notes.html").write_text("mine")
    (tmp_path / "site" / "page-9.html").mkdir()
    for name in ("page-0.html", "page-1.html", "page-02.html"):  # names render never writes
        (tmp_path / "site" / name).write_text("mine")
    smaller = fx.write_json(tmp_path / "small.json", {**fx.pack("small"), "levels": levels[:PAGE_LEVELS + 1]})
    result = CliRunner().invoke(app, ["render", str(smaller), "--out", str(tmp_path / "site")])
    assert result.exit_code == 0 and "and 1 more page (" in result.output, result.output
    mine = ["page-0.html", "page-02.html", "page-1.html", "page-9.html", "page-notes.html"]
    assert sorted(p.name for p in (tmp_path / "site").iterdir()) == sorted(["index.html", "page-2.html", *mine])
    assert "page 2 of 2" in (tmp_path / "site" / "page-2.html").read_text()
    result = CliRunner().invoke(app, ["render", str(fx.write_json(tmp_path / "one.json", levels[0])),
                                      "--out", str(tmp_path / "site")])
    assert result.exit_code == 0 and sorted(p.name for p in (tmp_path / "site").iterdir()) == sorted(
        ["index.html", *mine])



def test_each_frame_outlines_the_cells_placed_and_tints_the_cells_cleared():
    """A solution frame marks the move's cells (outlined) and the cells it cleared (tinted, where
    they are empty now). Worked out by hand: ``##`` at row 0, col 8 completes row 0, whose 8
    tiles and the piece's 2 cells clear; then ``#`` at 5,5 clears nothing."""
    from generator.picture import CLEARED_FILL, COLOURS, PLACED_OUTLINE, board_scene
    from solver.level import parse_level

    data = {"format": "tenfold.level/1", "id": "f", "variant": "halloween", "mode": "campaign",
            "board": ["########.."] + ["." * 10] * 9, "trays": [["##", "#"]], "goals": [{"score": 1}],
            "solution": [{"piece": "##", "row": 0, "col": 8}, {"piece": "#", "row": 5, "col": 5}]}
    frames = solution_frames(parse_level(data))
    row0 = sum(1 << c for c in range(10))
    assert [(f.placed, f.cleared) for f in frames] == [(0, 0), ((1 << 8) | (1 << 9), row0), (1 << 55, 0)]
    cells = [s for s in board_scene(frames[1].board, 10, frames[1].placed, frames[1].cleared, tagged=True).shapes
             if s.cell >= 0]
    assert [s.cell for s in cells] == list(range(100))
    assert {s.fill for s in cells[:10]} == {CLEARED_FILL} and {s.fill for s in cells[10:]} == {COLOURS["."]}
    assert [s.cell for s in cells if s.stroke == PLACED_OUTLINE] == [8, 9]
    assert all(s.css == "empty" for s in cells)


def test_a_token_frames_caption_names_what_the_token_did():
    """A rotate's caption names the piece and its quarter turns (x1 and x3 are other moves), a
    remove's the cell, a swap's the piece."""
    from generator.frames import Frame
    from solver.board import parse_board

    board = parse_board(["." * 10] * 10)
    assert Frame(board, TokenUse("rotate", "L3-nw", 1)).caption == "token rotate L3-nw x1"
    assert Frame(board, TokenUse("rotate", "L3-nw", 3)).caption == "token rotate L3-nw x3"
    assert Frame(board, TokenUse("remove", row=3, col=4)).caption == "token remove 3,4"
    assert Frame(board, TokenUse("swap", "2x2")).caption == "token swap 2x2"


def test_the_packs_and_levels_own_text_is_escaped(tmp_path):
    """Every text the pack file gives is shown as text: the pack id, a grade, a level id (in its
    heading, its attributes and as a key of the frames' JSON, which sits in a <script>)."""
    data = fx.pack()
    data["id"] = "p<b>&q"
    data["levels"][0]["id"] = 'x"</script><i>'
    data["levels"][0]["grade"] = "<u>easy</u>"
    src = fx.write_json(tmp_path / "pack.json", data)
    result = CliRunner().invoke(app, ["render", str(src), "--out", str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "site" / "index.html").read_text()
    assert "<b>" not in page and "<u>" not in page and "<i>" not in page
    assert "<code>p&lt;b&gt;&amp;q</code>" in page and "grade: &lt;u&gt;easy&lt;/u&gt;" in page
    assert 'data-level="x&quot;&lt;/script&gt;&lt;i&gt;"' in page
    assert page.count("</script>") == 2  # the frames' and the script's own ends
    frames = json.loads(re.search(r'id="tenfold-frames">(.*?)</script>', page, re.S).group(1))
    assert 'x"</script><i>' in frames


def test_each_page_of_a_cut_pack_counts_the_whole_pack(tmp_path, monkeypatch):
    """The line under the heading counts the pack's levels (12), on every page of a pack cut
    into pages of 5; the pages line says which of them the page holds."""
    import generator.render

    monkeypatch.setattr(generator.render, "PAGE_LEVELS", 5)
    levels = [fx.halloween_level(f"L{i:04d}") for i in range(12)]
    src = fx.write_json(tmp_path / "big.json", {**fx.pack("big"), "levels": levels})
    result = CliRunner().invoke(app, ["render", str(src), "--out", str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    for name in ("index.html", "page-2.html", "page-3.html"):
        assert "</code> · 12 levels</p>" in (tmp_path / "site" / name).read_text(), name


def test_each_frame_counts_the_moves_points_and_the_tokens_left():
    """A caption's ``+N`` is that move's points, not the score so far, and each frame holds the
    tokens left after its move. Worked out by hand from RULES.md (Arabic, standard: 3 tokens,
    +100 for each one left): ``1x2`` at 0,8 completes row 0, 2 cells + 100 for one zone = 102
    (no flow bonus: no turn before it cleared); the removal spends a token and scores nothing; the
    ``1x1`` scores 1 cell. Each frame's score is the points so far plus 100 per token left."""
    from solver.level import parse_level

    data = {"format": "tenfold.level/1", "id": "t", "variant": "arabic", "mode": "standard",
            "board": ["########.."] + ["." * 10] * 4 + ["....." + "#" + "...."] + ["." * 10] * 4,
            "trays": [["1x2", "1x1"]], "goals": [{"score": 1}],
            "solution": [{"piece": "1x2", "row": 0, "col": 8}, {"token": "remove", "row": 5, "col": 5},
                         {"piece": "1x1", "row": 9, "col": 9}]}
    frames = solution_frames(parse_level(data))
    assert [f.caption for f in frames] == ["start", "1x2 at 0,8 +102", "token remove 5,5", "1x1 at 9,9 +1"]
    assert [f.points for f in frames] == [0, 102, 0, 1]
    assert [f.tokens for f in frames] == [3, 3, 2, 2]
    assert [f.score for f in frames] == [300, 402, 302, 303]


def test_a_level_without_a_solution_is_named_when_its_frames_are_asked_for():
    """``solution_frames`` of a level with no stored solution names the level (a library caller's
    pack of many levels; render and export check first and say so themselves)."""
    from solver.errors import RulesError
    from solver.level import parse_level

    data = {"format": "tenfold.level/1", "id": "bare", "variant": "halloween", "mode": "campaign",
            "board": ["." * 10] * 10, "trays": [["1x1"]], "goals": [{"score": 1}]}
    with pytest.raises(RulesError, match="^level bare: has no solution"):
        solution_frames(parse_level(data))
