"""A pack as static HTML pages: every level's picture, grade, goals, stars and a solution step-through.

Everything is inline (SVG, CSS, script): a page works offline from a file. A pack of up to
``PAGE_LEVELS`` levels is one page, ``index.html``; a bigger one is cut into pages of that many
(``index.html``, ``page-2.html``, ...), each linking to the others (a page of 10,000 levels,
210 MB, was more than a browser would open).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from functools import partial
from typing import Any

from solver.bitboard import SIZE
from solver.jsontext import json_value
from solver.level import Level, Pack

from .canvas import to_svg
from .frames import solution_frames
from .picture import COLOURS, CLEARED_FILL, PLACED_OUTLINE, board_scene, goals_text, level_scene

STEP_CELL = 24
PAGE_LEVELS = 200
PAGE_NAME = re.compile(r"page-(?:[2-9]|[1-9][0-9]+)\.html")  # the pages page_name writes but the first

STYLE = f"""
body {{ font-family: DejaVu Sans, Verdana, sans-serif; margin: 24px; color: #222; background: #faf9f6; }}
.level {{ border: 1px solid #ddd; background: #fff; padding: 12px 16px; margin-bottom: 24px; }}
.level h2 {{ margin: 0 0 8px 0; }}
.facts span {{ margin-right: 16px; }}
.row {{ display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }}
.stepper button {{ font-size: 14px; padding: 4px 12px; }}
.stepper .caption {{ margin-left: 12px; font-family: monospace; }}
.empty {{ fill: {COLOURS['.']}; }} .tile {{ fill: {COLOURS['#']}; }}
.stone {{ fill: {COLOURS['S']}; }} .pumpkin {{ fill: {COLOURS['P']}; }}
.cleared {{ fill: {CLEARED_FILL}; }}
.placed {{ stroke: {PLACED_OUTLINE}; stroke-width: 2; }}
.pages a, .pages strong {{ margin-right: 8px; }}
"""

# Steps a level's board through its frames: each frame is 100 cell characters,
# the cells placed and cleared by the move, a caption and the running score.
SCRIPT = """
(function () {
  var KIND = {".": "empty", "#": "tile", "S": "stone", "P": "pumpkin"};
  var DATA = JSON.parse(document.getElementById("tenfold-frames").textContent);
  function show(section, step) {
    var frames = DATA[section.dataset.level];
    step = Math.max(0, Math.min(frames.length - 1, step));
    section.dataset.step = String(step);
    var f = frames[step];
    var cells = section.querySelectorAll(".stepper rect[data-cell]");
    for (var i = 0; i < cells.length; i++) {
      var k = Number(cells[i].dataset.cell);
      var cls = KIND[f.board.charAt(k)];
      if (cls === "empty" && f.cleared.indexOf(k) >= 0) cls = "cleared";
      if (f.placed.indexOf(k) >= 0) cls += " placed";
      cells[i].setAttribute("class", cls);
    }
    section.querySelector(".caption").textContent =
      "step " + step + " / " + (frames.length - 1) + ": " + f.caption + " (score " + f.score + ")";
    section.querySelector("button.prev").disabled = step === 0;
    section.querySelector("button.next").disabled = step === frames.length - 1;
  }
  var sections = document.querySelectorAll("section.level[data-level]");
  for (var s = 0; s < sections.length; s++) {
    (function (section) {
      if (!DATA[section.dataset.level]) return;
      section.querySelector("button.prev").onclick = function () { show(section, Number(section.dataset.step) - 1); };
      section.querySelector("button.next").onclick = function () { show(section, Number(section.dataset.step) + 1); };
      show(section, 0);
    })(sections[s]);
  }
})();
"""


def _cells(mask: int) -> list[int]:
    return [i for i in range(SIZE * SIZE) if mask >> i & 1]


def frames_data(level: Level) -> list[dict[str, Any]] | None:
    if level.solution is None:
        return None
    return [
        {"board": "".join(f.board.rows()), "placed": _cells(f.placed), "cleared": _cells(f.cleared),
         "caption": f.caption, "score": f.score}
        for f in solution_frames(level)
    ]


def field_text(value: Any) -> str:
    """A level field shown as it reads: text as it is, any other value as JSON spells it."""
    return value if isinstance(value, str) else json_value(value)


def stars_text(stars: Any) -> str:
    """``stars`` as the pack gives it: a count, a list of score thresholds, or anything else as JSON."""
    if isinstance(stars, bool):
        return json.dumps(stars)
    if isinstance(stars, int):
        return "★" * stars if 0 <= stars <= 10 else str(stars)
    if isinstance(stars, list) and all(isinstance(s, (int, float)) and not isinstance(s, bool) for s in stars):
        return "  ".join(f"{'★' * (i + 1)} {s}" for i, s in enumerate(stars))
    return json.dumps(stars, ensure_ascii=False)


def stepper_svg(level: Level) -> str:
    """The board of the step-through: each cell carries its index so the script can restyle it."""
    return to_svg(board_scene(level.board, STEP_CELL, tagged=True), standalone=False)


def level_section(level: Level, has_frames: bool) -> str:
    e = html.escape
    facts = [f"<span>{e(level.variant.name)} · {e(level.mode)}</span>"]
    if "grade" in level.raw:
        facts.append(f"<span class=\"grade\">grade: {e(field_text(level.raw['grade']))}</span>")
    facts.append(f"<span class=\"goals\">goals: {e(goals_text(level))}</span>")
    if "stars" in level.raw:
        facts.append(f"<span class=\"stars\">stars: {e(stars_text(level.raw['stars']))}</span>")
    facts.append(f"<span>limit: {level.limit}</span><span>tokens: {level.tokens}</span>")
    if level.best and level.best.get("score") is not None:
        facts.append(f"<span>best: {level.best['score']} ({e(str(level.best.get('proof', '?')))})</span>")
    if has_frames:
        stepper = (
            '<div class="stepper"><h3>Solution</h3>'
            f"{stepper_svg(level)}"
            '<div><button class="prev" type="button">&#9664; prev</button> '
            '<button class="next" type="button">next &#9654;</button>'
            '<span class="caption">step 0</span></div></div>'
        )
    else:
        stepper = '<div class="stepper"><p>No solution recorded.</p></div>'
    return (
        f'<section class="level" id="level-{e(level.id)}" data-level="{e(level.id)}" data-step="0">\n'
        f"<h2>Level {e(level.id)}</h2>\n<p class=\"facts\">{''.join(facts)}</p>\n"
        f'<div class="row"><div class="picture">{to_svg(level_scene(level), standalone=False)}</div>\n'
        f"{stepper}</div>\n</section>"
    )


def pack_page(pack: Pack, levels: list[Level] | None = None, nav: str = "") -> str:
    """The page of ``levels`` (default: every level of the pack), with ``nav`` (links to the
    other pages of a pack cut into pages) under its heading."""
    levels = pack.levels if levels is None else levels
    frames = {lv.id: frames_data(lv) for lv in levels}
    data = json.dumps({k: v for k, v in frames.items() if v is not None}, separators=(",", ":"))
    data = data.replace("<", "\\u003c")  # the JSON sits in a <script>: no "</script>" inside
    title = html.escape(pack.title or pack.id)
    sections = "\n".join(level_section(lv, frames[lv.id] is not None) for lv in levels)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        f"<h1>{title}</h1>\n<p>pack <code>{html.escape(pack.id)}</code> · {len(pack.levels)} levels</p>\n{nav}"
        f"{sections}\n"
        f'<script type="application/json" id="tenfold-frames">{data}</script>\n'
        f"<script>{SCRIPT}</script>\n</body>\n</html>\n"
    )


def page_name(number: int) -> str:
    """The file of page ``number`` (from 1) of a pack cut into pages."""
    return "index.html" if number == 1 else f"page-{number}.html"


def pack_pages(pack: Pack) -> dict[str, Callable[[], str]]:
    """The pack's pages, {file name: a function that makes its text}: ``index.html`` alone up to
    ``PAGE_LEVELS`` levels (``pack_page``), else a page of ``PAGE_LEVELS`` levels each, whose
    navigation names the levels it holds and links to every page."""
    count = max(1, -(-len(pack.levels) // PAGE_LEVELS))
    if count == 1:
        return {"index.html": partial(pack_page, pack)}
    return {page_name(n): partial(_cut_page, pack, n, count) for n in range(1, count + 1)}


def _cut_page(pack: Pack, number: int, count: int) -> str:
    start = (number - 1) * PAGE_LEVELS
    levels = pack.levels[start:start + PAGE_LEVELS]
    links = " ".join(f"<strong>{n}</strong>" if n == number else f'<a href="{page_name(n)}">{n}</a>'
                     for n in range(1, count + 1))
    nav = (f'<p class="pages">levels {start + 1:,} to {start + len(levels):,}: page {number} of {count} · '
           f"{links}</p>\n")
    return pack_page(pack, levels, nav)
