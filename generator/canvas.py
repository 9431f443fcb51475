"""A tiny vector scene (rectangles and text) and its two renderings: SVG text and PNG bytes.

Pictures are laid out once as a ``Scene``; ``to_svg`` and ``to_png`` draw the
same shapes at the same pixel positions, so both formats show the same thing.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from functools import lru_cache
from xml.sax.saxutils import escape, quoteattr


@dataclass(frozen=True)
class Rect:
    x: int
    y: int
    w: int
    h: int
    fill: str | None
    stroke: str | None = None
    stroke_width: int = 0
    css: str = ""  # SVG class, so a page's script can restyle the cell
    cell: int = -1  # board cell index (data-cell in SVG), -1 for none


@dataclass(frozen=True)
class Text:
    x: int
    y: int  # baseline
    text: str
    size: int = 12
    fill: str = "#222"
    anchor: str = "start"  # start | middle
    bold: bool = False


@dataclass
class Scene:
    width: int
    height: int
    background: str = "#ffffff"
    shapes: list[Rect | Text] = field(default_factory=list)

    def add(self, shape: Rect | Text) -> None:
        self.shapes.append(shape)

    def extend(self, other: "Scene", dx: int, dy: int) -> None:
        """Copy ``other``'s shapes in, shifted by (dx, dy)."""
        for s in other.shapes:
            if isinstance(s, Rect):
                self.add(Rect(s.x + dx, s.y + dy, s.w, s.h, s.fill, s.stroke, s.stroke_width, s.css, s.cell))
            else:
                self.add(Text(s.x + dx, s.y + dy, s.text, s.size, s.fill, s.anchor, s.bold))


FONT_FAMILY = "DejaVu Sans, Verdana, sans-serif"


def svg_shape(s: Rect | Text) -> str:
    if isinstance(s, Rect):
        attrs = f'x="{s.x}" y="{s.y}" width="{s.w}" height="{s.h}" fill="{s.fill or "none"}"'
        if s.stroke:
            attrs += f' stroke="{s.stroke}" stroke-width="{s.stroke_width}"'
        if s.css:
            attrs += f" class={quoteattr(s.css)}"
        if s.cell >= 0:
            attrs += f' data-cell="{s.cell}"'
        return f"<rect {attrs}/>"
    weight = ' font-weight="bold"' if s.bold else ""
    return (
        f'<text x="{s.x}" y="{s.y}" font-size="{s.size}" fill="{s.fill}" '
        f'text-anchor="{s.anchor}"{weight}>{escape(s.text)}</text>'
    )


def to_svg(scene: Scene, standalone: bool = True) -> str:
    """The scene as an SVG document (``standalone=False``: an element to inline in HTML)."""
    head = '<?xml version="1.0" encoding="UTF-8"?>\n' if standalone else ""
    body = "\n".join(svg_shape(s) for s in scene.shapes)
    return (
        f'{head}<svg xmlns="http://www.w3.org/2000/svg" width="{scene.width}" height="{scene.height}" '
        f'viewBox="0 0 {scene.width} {scene.height}" font-family="{FONT_FAMILY}">\n'
        f'<rect x="0" y="0" width="{scene.width}" height="{scene.height}" fill="{scene.background}"/>\n'
        f"{body}\n</svg>\n"
    )


@lru_cache(maxsize=None)
def _font(size: int, bold: bool):
    from PIL import ImageFont

    names = ("DejaVuSans-Bold.ttf",) if bold else ("DejaVuSans.ttf",)
    for name in names:
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            pass
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError):  # Pillow without FreeType: the fixed bitmap font
        return ImageFont.load_default()


def to_png(scene: Scene) -> bytes:
    """The scene drawn with Pillow (no cairo), as PNG bytes."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (scene.width, scene.height), scene.background)
    draw = ImageDraw.Draw(image)
    for s in scene.shapes:
        if isinstance(s, Rect):
            box = [s.x, s.y, s.x + s.w - 1, s.y + s.h - 1]
            draw.rectangle(box, fill=s.fill, outline=s.stroke, width=s.stroke_width if s.stroke else 0)
        else:
            font = _font(s.size, s.bold)
            try:
                draw.text((s.x, s.y), s.text, fill=s.fill, font=font, anchor="ms" if s.anchor == "middle" else "ls")
            except ValueError:  # a bitmap font takes no anchor: place its top-left by hand
                width = draw.textlength(s.text, font=font)
                draw.text((s.x - (width // 2 if s.anchor == "middle" else 0), s.y - s.size), s.text,
                          fill=s.fill, font=font)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()
