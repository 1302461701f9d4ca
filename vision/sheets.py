"""Printable marker sheets at exact physical scale (``python -m vision markers``).

Three sheets, each written as one vector PDF (a page per sheet page) and as one PNG per page:

* **toppers**: a round topper for each piece's base: the base's cut line (a thin grey circle),
  the piece's marker in the middle with a white quiet zone one module wide all round inside
  the circle, a tick on the cut line over the marker's top edge, the id inside the circle
  under the marker and ``id 12, 30 mm`` (and the piece's name) under the circle;
* **anchors**: each anchor's marker at its side with a one-module white border, crop marks at
  the border's corners, a tick over its top edge and where it goes on the pitch
  (``id 2 at x 20.8", y 28.8"; top edge towards y = 0``); the page recommends 6 anchors
  (with 4 and no camera file a misplaced one cannot be noticed);
* **charuco**: the calibration board :data:`vision.config.CHARUCO` (1" squares), turned a
  quarter if it only fits that way.

Every page has a title, a note and a **1-inch check line** (a bar exactly 1" long between
the outer edges of its end ticks): measure it after printing; print at 100 % / actual size,
never "fit to page".

One layout, two renderers: :func:`layout_sheet` places everything in inches on the page
(origin the page's top-left corner, x right, y down, as the printed sheet is read), then
:func:`pdf_bytes` draws the pages as vector PDF (a marker is filled rectangles, one per run of
black modules, exact at any printer resolution; points are exact: 72 per inch) and
:func:`rasterise` / :func:`png_bytes` draws the same items as pixels (default 300 DPI, with a
``pHYs`` chunk so viewers and printers know the physical size). The PDF is written here (PDF
1.4, the standard Helvetica font, no library).

**Default toppers** (no table, or a table without pieces): ids 10 to 29 for each base size
30, 40 and 50 mm (60 toppers: cut the ones your miniatures need), in the table's dictionary
(``DICT_4X4_50`` without a table), leaving out ids the table's anchors use. The side is
:func:`topper_side_in`: the largest multiple of 1/16" whose marker keeps its one-module quiet
zone 1 mm inside the cut circle (corner to centre + one module <= the base's radius - 1 mm,
room for scissors). For the 4x4 dictionaries (6 modules across with the border) that is
**30 mm: 5/8" (0.625"), 40 mm: 13/16" (0.8125"), 50 mm: 1 1/16" (1.0625")**, 0.53 of the
base's diameter. (At
0.7 of the diameter the marker's corners would lie at 99 % of the radius, on the cut line,
with no white around them.) A table's own pieces are drawn at their ``side_in``, and refused
(ValueError) when their marker and quiet zone do not fit inside their base.
"""

from __future__ import annotations

import math
import os
import re
import struct
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from vision.config import (
    CHARUCO,
    MM_PER_IN,
    AnchorConfig,
    CharucoSpec,
    PieceConfig,
    TableConfig,
)

Paper = Literal["letter", "a4"]
Align = Literal["left", "center", "right"]

PAPERS: dict[str, tuple[float, float]] = {"letter": (8.5, 11.0),
                                          "a4": (210 / MM_PER_IN, 297 / MM_PER_IN)}
MARGIN_IN = 0.5
SHEETS = ("toppers", "anchors", "charuco")
# With 4 anchors and no camera file any layout fits exactly; 6 leave the fit something to
# check (vision.measure: the anchor layout's error).
RECOMMENDED_ANCHORS = 6
DEFAULT_TOPPER_IDS = tuple(range(10, 30))
DEFAULT_BASES_MM = (30, 40, 50)
DEFAULT_DICTIONARY = TableConfig().dictionary
PT_PER_IN = 72.0
SIXTEENTH = 1 / 16
DPI_RANGE = (50, 1200)

# sizes (points for type, inches for the rest)
TITLE_PT = 13.0
NOTE_PT = 8.0
LABEL_PT = 7.0
NAME_PT = 6.5
INNER_PT = 5.5
CAP = 0.718                      # Helvetica's cap height, in em
HAIR_IN = 0.5 / PT_PER_IN        # cut lines, crop marks
TICK_W_IN = 0.75 / PT_PER_IN     # the "top edge" ticks
CUT_GRAY = 0.55
GAP_IN = 0.15                    # between items
CHECK_BAR_IN = 0.02              # the check line's bar and ticks
CHECK_TICK_IN = 0.16
CROP_GAP_IN = 0.06
CROP_LEN_IN = 0.15
HEADER_IN = 0.6                  # title and note, from the top margin
FOOTER_IN = 0.32                 # the check line, above the bottom margin


# -- the layout ---------------------------------------------------------------------------

Rect = tuple[float, float, float, float]   # x0, y0, x1, y1 in inches, y down


@dataclass(frozen=True)
class Fill:
    """Filled axis-aligned rectangles (one PDF path, one ``f``): a marker's black module
    runs, the board's squares, a bar or a tick. ``gray`` 0 is black, 1 white."""

    rects: tuple[Rect, ...]
    gray: float = 0.0


@dataclass(frozen=True)
class Ring:
    """A stroked circle (a topper's cut line)."""

    cx: float
    cy: float
    r: float
    width: float
    gray: float = CUT_GRAY


@dataclass(frozen=True)
class Text:
    """One line of Helvetica: ``y`` is the baseline; ``x`` the left end, middle or right
    end as ``align`` says."""

    x: float
    y: float
    size_pt: float
    text: str
    align: Align = "left"


Item = Fill | Ring | Text


@dataclass(frozen=True)
class Placement:
    """Where a marker was put: its black square's centre (inches on the page), its side, and
    how far it was turned (degrees clockwise; only the ChArUco board is ever turned)."""

    dictionary: str
    id: int
    cx: float
    cy: float
    side_in: float
    rotation: int = 0


@dataclass(frozen=True)
class Page:
    sheet: str
    number: int
    count: int
    width_in: float
    height_in: float
    items: tuple[Item, ...]
    markers: tuple[Placement, ...]


# -- markers ------------------------------------------------------------------------------

def _dictionary(name: str):
    import cv2

    if not name.startswith("DICT_") or not hasattr(cv2.aruco, name):
        raise ValueError(f"{name!r} is not an ArUco dictionary")
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))


def marker_modules(dictionary: str) -> int:
    """Modules across a marker of ``dictionary``, its black border included (6 for 4x4)."""
    return int(_dictionary(dictionary).markerSize) + 2


def _check_id(dictionary: str, marker_id: int, what: str) -> None:
    size = int(_dictionary(dictionary).bytesList.shape[0])
    if not 0 <= marker_id < size:
        raise ValueError(f"{what}: marker id {marker_id} is not in {dictionary} "
                         f"(ids 0 to {size - 1})")


def _bits(dictionary: str, marker_id: int) -> np.ndarray:
    """The marker as modules, border included: True where black, row 0 the top edge."""
    n = marker_modules(dictionary)
    img = _dictionary(dictionary).generateImageMarker(marker_id, n, borderBits=1)
    return np.asarray(img) < 128


def _marker_rects(dictionary: str, marker_id: int, x0: float, y0: float, side: float
                  ) -> list[Rect]:
    """One rectangle per horizontal run of black modules; the edges are ``x0 + side*k/n``,
    the same expression on both sides of a shared edge, so runs meet exactly."""
    bits = _bits(dictionary, marker_id)
    n = bits.shape[0]
    xs = [x0 + side * k / n for k in range(n + 1)]
    ys = [y0 + side * k / n for k in range(n + 1)]
    rects: list[Rect] = []
    for r in range(n):
        c = 0
        while c < n:
            if bits[r, c]:
                start = c
                while c < n and bits[r, c]:
                    c += 1
                rects.append((xs[start], ys[r], xs[c], ys[r + 1]))
            else:
                c += 1
    return rects


def _quiet_fits(side_in: float, base_mm: float, modules: int) -> bool:
    return side_in / math.sqrt(2) + side_in / modules <= base_mm / MM_PER_IN / 2 + 1e-9


def max_topper_side_in(base_mm: float, dictionary: str = DEFAULT_DICTIONARY) -> float:
    """The largest side whose marker and one-module quiet zone lie inside a ``base_mm``
    circle."""
    return base_mm / MM_PER_IN / 2 / (1 / math.sqrt(2) + 1 / marker_modules(dictionary))


CUT_MARGIN_MM = 1.0   # white left between the quiet zone's corners and the cut line


def topper_side_in(base_mm: float, dictionary: str = DEFAULT_DICTIONARY) -> float:
    """The default toppers' side: the largest 1/16" whose marker and quiet zone stay
    ``CUT_MARGIN_MM`` inside the cut line (scissors are not exact)."""
    fit = max_topper_side_in(base_mm - 2 * CUT_MARGIN_MM, dictionary)
    return math.floor(fit / SIXTEENTH + 1e-9) * SIXTEENTH


def default_pieces(dictionary: str = DEFAULT_DICTIONARY, exclude: Iterable[int] = ()
                   ) -> tuple[PieceConfig, ...]:
    """Ids 10 to 29 for each base size 30, 40 and 50 mm (grouped by size), but ``exclude``."""
    skip = set(exclude)
    return tuple(PieceConfig(id=i, side_in=topper_side_in(b, dictionary), base_mm=b)
                 for b in DEFAULT_BASES_MM for i in DEFAULT_TOPPER_IDS if i not in skip)


# -- text ---------------------------------------------------------------------------------

# Helvetica's advance widths (1/1000 em), characters 32 to 126 (WinAnsiEncoding)
_HELVETICA = (
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
    333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
    556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584)


def _ascii(text: str) -> str:
    return "".join(ch if 32 <= ord(ch) <= 126 else "?" for ch in text)


def text_width_in(text: str, size_pt: float) -> float:
    """The width of ``text`` set in Helvetica at ``size_pt``, in inches."""
    return sum(_HELVETICA[ord(ch) - 32] for ch in _ascii(text)) / 1000 * size_pt / PT_PER_IN


def _cap_in(size_pt: float) -> float:
    return CAP * size_pt / PT_PER_IN


def _fit(text: str, size_pt: float, width_in: float) -> str:
    if text_width_in(text, size_pt) <= width_in:
        return text
    while text and text_width_in(text + "...", size_pt) > width_in:
        text = text[:-1]
    return text + "..."


def _num(v: float) -> str:
    return f"{v:.3f}".rstrip("0").rstrip(".")


# -- pages --------------------------------------------------------------------------------

def paper_size_in(paper: str) -> tuple[float, float]:
    if paper not in PAPERS:
        raise ValueError(f"paper {paper!r}: expected one of {', '.join(PAPERS)}")
    return PAPERS[paper]


def _check_line(w: float, h: float) -> list[Item]:
    """The 1-inch check line in the footer: a bar exactly 1" between the outer edges of its
    end ticks, and its label; a print-at-100% reminder at the right."""
    x, yc = MARGIN_IN, h - MARGIN_IN - CHECK_TICK_IN / 2
    b, t = CHECK_BAR_IN / 2, CHECK_TICK_IN / 2
    bar = Fill(((x, yc - b, x + 1.0, yc + b),
                (x, yc - t, x + CHECK_BAR_IN, yc + t),
                (x + 1.0 - CHECK_BAR_IN, yc - t, x + 1.0, yc + t)))
    base = yc + _cap_in(LABEL_PT) / 2
    return [bar, Text(x + 1.0 + 0.12, base, LABEL_PT, "1 inch: measure this after printing"),
            Text(w - MARGIN_IN, base, LABEL_PT,
                 "Print at 100% / actual size (no fit-to-page)", "right")]


def _frame(title: str, note: str, w: float, h: float, number: int, count: int,
           note2: str = "") -> list[Item]:
    if count > 1:
        title = f"{title} (page {number} of {count})"
    base = MARGIN_IN + 0.76 * TITLE_PT / PT_PER_IN     # the tallest glyphs, "(", at the margin
    items: list[Item] = [Text(MARGIN_IN, base, TITLE_PT, title),
                         Text(MARGIN_IN, base + 0.24, NOTE_PT,
                              _fit(note, NOTE_PT, w - 2 * MARGIN_IN))]
    if note2:
        items.append(Text(MARGIN_IN, base + 0.38, NOTE_PT,
                          _fit(note2, NOTE_PT, w - 2 * MARGIN_IN)))
    return items + _check_line(w, h)


@dataclass
class _Cell:
    """One item to place: its size, what it draws (relative to its top-left corner), the
    markers it holds, and the row it has to start (a new base size starts a new row)."""

    w: float
    h: float
    items: list[Item]
    markers: list[Placement]
    group: object = None


def _shift(item: Item, dx: float, dy: float) -> Item:
    if isinstance(item, Fill):
        return Fill(tuple((a + dx, b + dy, c + dx, d + dy) for a, b, c, d in item.rects),
                    item.gray)
    if isinstance(item, Ring):
        return Ring(item.cx + dx, item.cy + dy, item.r, item.width, item.gray)
    return Text(item.x + dx, item.y + dy, item.size_pt, item.text, item.align)


def _flow(cells: Sequence[_Cell], w: float, h: float
          ) -> list[list[tuple[_Cell, float, float]]]:
    """Cells left to right in rows, rows top to bottom, pages as needed: (cell, x, y)."""
    left, right = MARGIN_IN, w - MARGIN_IN
    top, bottom = MARGIN_IN + HEADER_IN, h - MARGIN_IN - FOOTER_IN
    rows: list[list[_Cell]] = []
    x = right + 1
    for cell in cells:
        if x + cell.w > right + 1e-9 or (rows and rows[-1][-1].group != cell.group):
            rows.append([])
            x = left
        rows[-1].append(cell)
        x += cell.w + GAP_IN
    pages: list[list[tuple[_Cell, float, float]]] = [[]]
    y = top
    for row in rows:
        rh = max(c.h for c in row)
        if y + rh > bottom + 1e-9 and pages[-1]:
            pages.append([])
            y = top
        x = left
        for cell in row:
            pages[-1].append((cell, x, y))
            x += cell.w + GAP_IN
        y += rh + GAP_IN
    return pages


def _check_cell(cell: _Cell, w: float, h: float, what: str, paper: str) -> None:
    room_w = w - 2 * MARGIN_IN
    room_h = h - 2 * MARGIN_IN - HEADER_IN - FOOTER_IN
    if cell.w > room_w + 1e-9 or cell.h > room_h + 1e-9:
        raise ValueError(f"{what} does not fit on a {paper} page ({_num(cell.w)}\" x "
                         f"{_num(cell.h)}\"; at most {_num(room_w)}\" x {_num(room_h)}\")")


def _paginate(sheet: str, title: str, note: str, cells: Sequence[_Cell], w: float, h: float,
              note2: str = "") -> list[Page]:
    placed = _flow(cells, w, h)
    pages = []
    for n, content in enumerate(placed, 1):
        items = _frame(title, note, w, h, n, len(placed), note2)
        markers = []
        used = max(x + cell.w for cell, x, _ in content) - MARGIN_IN
        dx = (w - 2 * MARGIN_IN - used) / 2      # the block centred across the page
        for cell, x, y in content:
            x += dx
            items += [_shift(i, x, y) for i in cell.items]
            markers += [Placement(m.dictionary, m.id, m.cx + x, m.cy + y, m.side_in,
                                  m.rotation) for m in cell.markers]
        pages.append(Page(sheet, n, len(placed), w, h, tuple(items), tuple(markers)))
    return pages


def _topper_cell(piece: PieceConfig, dictionary: str, what: str) -> _Cell:
    _check_id(dictionary, piece.id, what)
    n = marker_modules(dictionary)
    if not _quiet_fits(piece.side_in, piece.base_mm, n):
        raise ValueError(
            f"{what} (marker {piece.id}): a {_num(piece.side_in)}\" marker does not fit a "
            f"{piece.base_mm:g} mm base with its white quiet zone inside the cut line (at "
            f"most {_num(max_topper_side_in(piece.base_mm, dictionary))}\")")
    d = piece.base_mm / MM_PER_IN
    r, s, m = d / 2, piece.side_in, piece.side_in / n
    label = f"id {piece.id}, {piece.base_mm:g} mm"
    name = _fit(_ascii(piece.name), NAME_PT, max(d, 1.0)) if piece.name else ""
    tick_out = 0.07
    width = max(d, text_width_in(label, LABEL_PT), text_width_in(name, NAME_PT))
    cx, cy = width / 2, tick_out + r
    items: list[Item] = [Ring(cx, cy, r, HAIR_IN)]
    items.append(Fill(tuple(_marker_rects(dictionary, piece.id, cx - s / 2, cy - s / 2, s))))
    gap = r - s / 2 - m                     # white between the quiet zone and the cut line
    tick_in = min(0.08, gap * 0.6)
    items.append(Fill(((cx - TICK_W_IN / 2, cy - r - tick_out,
                        cx + TICK_W_IN / 2, cy - r + tick_in),)))
    cap = _cap_in(INNER_PT)
    if gap >= cap + 0.05:                   # the id inside, under the quiet zone
        items.append(Text(cx, cy + s / 2 + m + (gap + cap) / 2, INNER_PT, str(piece.id),
                          "center"))
    y = tick_out + d + 0.05 + _cap_in(LABEL_PT)
    items.append(Text(cx, y, LABEL_PT, label, "center"))
    if name:
        y += 0.04 + _cap_in(NAME_PT) + 0.03
        items.append(Text(cx, y, NAME_PT, name, "center"))
    return _Cell(width, y + 0.04, items, [Placement(dictionary, piece.id, cx, cy, s)],
                 group=piece.base_mm)


def _anchor_cell(anchor: AnchorConfig, dictionary: str, what: str) -> _Cell:
    _check_id(dictionary, anchor.id, what)
    n = marker_modules(dictionary)
    s = anchor.side_in
    q = s + 2 * s / n                        # the marker and its one-module white border
    c = CROP_GAP_IN + CROP_LEN_IN
    sentence = (f"id {anchor.id} at x {_num(anchor.x_in)}\", y {_num(anchor.y_in)}\"; "
                "top edge towards y = 0")
    lines = [sentence]
    if text_width_in(sentence, LABEL_PT) > q + 2 * c:
        head, tail = sentence.split("; ")
        lines = [head + ";", tail]
    width = max([q + 2 * c] + [text_width_in(t, LABEL_PT) for t in lines])
    x0, y0 = (width - q) / 2, c              # the white square's top-left corner
    x1, y1 = x0 + q, y0 + q
    h = HAIR_IN / 2
    crops = []
    for cx in (x0, x1):
        for cy in (y0, y1):
            sx = -1 if cx == x0 else 1
            sy = -1 if cy == y0 else 1
            a, b = cx + sx * CROP_GAP_IN, cx + sx * c          # horizontal, along the edge
            crops.append((min(a, b), cy - h, max(a, b), cy + h))
            a, b = cy + sy * CROP_GAP_IN, cy + sy * c          # vertical
            crops.append((cx - h, min(a, b), cx + h, max(a, b)))
    mx = width / 2
    tick = (mx - TICK_W_IN / 2, y0 - CROP_GAP_IN - 0.1, mx + TICK_W_IN / 2, y0 - CROP_GAP_IN)
    items: list[Item] = [Fill(tuple(_marker_rects(dictionary, anchor.id, x0 + s / n, y0 + s / n,
                                                  s))),
                         Fill(tuple(crops) + (tick,))]
    y = y1 + c
    for t in lines:
        y += _cap_in(LABEL_PT) + 0.05
        items.append(Text(mx, y, LABEL_PT, t, "center"))
    return _Cell(width, y + 0.04, items,
                 [Placement(dictionary, anchor.id, mx, y0 + q / 2, s)])


def _charuco_page(spec: CharucoSpec, w: float, h: float, paper: str) -> Page:
    board = spec.board()
    sq = spec.square_in
    bw, bh = spec.squares_x * sq, spec.squares_y * sq
    room_w = w - 2 * MARGIN_IN
    top, bottom = MARGIN_IN + HEADER_IN, h - MARGIN_IN - FOOTER_IN
    room_h = bottom - top
    if bw <= room_w + 1e-9 and bh <= room_h + 1e-9:
        rotation = 0
    elif bh <= room_w + 1e-9 and bw <= room_h + 1e-9:
        rotation = 90
    else:
        raise ValueError(f"the {_num(bw)}\" x {_num(bh)}\" ChArUco board does not fit on a "
                         f"{paper} page")
    pw, ph = (bw, bh) if rotation == 0 else (bh, bw)
    ox, oy = MARGIN_IN + (room_w - pw) / 2, top + (room_h - ph) / 2

    def place(u0: float, v0: float, u1: float, v1: float) -> Rect:
        """Board inches (u right, v down) to page inches; turned a quarter clockwise (the
        board's top edge to the right) when it fits only that way."""
        if rotation == 0:
            return (ox + u0, oy + v0, ox + u1, oy + v1)
        return (ox + (bh - v1), oy + u0, ox + (bh - v0), oy + u1)

    marker_squares = set()
    corners = board.getObjPoints()
    ids = [int(i) for i in np.asarray(board.getIds()).ravel()]
    rects: list[Rect] = []
    markers = []
    for mid, pts in zip(ids, corners):
        pts = np.asarray(pts, dtype=np.float64)
        u0, v0 = float(pts[:, 0].min()), float(pts[:, 1].min())
        marker_squares.add((int(u0 // sq), int(v0 // sq)))
        side = spec.marker_in
        rects += [place(*r) for r in _marker_rects(spec.dictionary, mid, u0, v0, side)]
        cu, cv = u0 + side / 2, v0 + side / 2
        cx, cy = (ox + cu, oy + cv) if rotation == 0 else (ox + bh - cv, oy + cu)
        markers.append(Placement(spec.dictionary, mid, cx, cy, side, rotation))
    us = [k * sq for k in range(spec.squares_x + 1)]
    vs = [k * sq for k in range(spec.squares_y + 1)]
    for j in range(spec.squares_y):
        for i in range(spec.squares_x):
            if (i + j) % 2 == 0 and (i, j) not in marker_squares:
                rects.append(place(us[i], vs[j], us[i + 1], vs[j + 1]))
    title = (f"ChArUco calibration board: {spec.squares_x} x {spec.squares_y} squares of "
             f"{_num(sq)} in, markers {_num(spec.marker_in)} in, {spec.dictionary}")
    note = ("Print at 100% (no fit-to-page). Check: squares must measure "
            f"{sq:.2f} inch. Glue it flat on card.")
    items = _frame(title, note, w, h, 1, 1) + [Fill(tuple(rects))]
    return Page("charuco", 1, 1, w, h, tuple(items), tuple(markers))


def layout_sheet(sheet: str, table: TableConfig | None = None, *, paper: Paper = "letter"
                 ) -> list[Page]:
    """The pages of one sheet (``toppers``, ``anchors`` or ``charuco``), laid out in inches.
    Raises ValueError naming the piece/anchor and its id when a marker is not in the
    dictionary, does not fit its base or does not fit the page."""
    w, h = paper_size_in(paper)
    if sheet == "charuco":
        return [_charuco_page(CHARUCO, w, h, paper)]
    dictionary = table.dictionary if table is not None else DEFAULT_DICTIONARY
    _dictionary(dictionary)
    if sheet == "toppers":
        if table is not None and table.pieces:
            named = [(p, f"pieces[{i}]") for i, p in enumerate(table.pieces)]
        else:
            used = [a.id for a in table.anchors] if table is not None else []
            named = [(p, f"default topper {p.id} ({p.base_mm:g} mm)")
                     for p in default_pieces(dictionary, used)]
        cells = []
        for piece, what in named:
            cell = _topper_cell(piece, dictionary, what)
            _check_cell(cell, w, h, f"{what} (marker {piece.id})", paper)
            cells.append(cell)
        return _paginate("toppers", f"Base toppers ({dictionary})",
                         "Cut on the grey circle and glue on the base; the tick marks the "
                         "marker's top edge (the miniature's front).", cells, w, h)
    if sheet == "anchors":
        if table is None:
            raise ValueError("the anchors sheet needs a table file (where the anchors go)")
        if not table.anchors:
            raise ValueError("the table has no anchors to print")
        cells = []
        for i, anchor in enumerate(table.anchors):
            what = f"anchors[{i}]"
            cell = _anchor_cell(anchor, dictionary, what)
            _check_cell(cell, w, h, f"{what} (marker {anchor.id})", paper)
            cells.append(cell)
        n = len(table.anchors)
        advice = (f"This table has {n} anchors: lay 6 (the pitch's corners and the middle of "
                  f"its long sides), or a misplaced one cannot be noticed."
                  if n < RECOMMENDED_ANCHORS else
                  "With 6 anchors or more, a misplaced one shows: the camera widens its margin.")
        return _paginate("anchors", f"Anchor markers ({dictionary})",
                         "Cut on the crop marks, keeping the white border. Lay each square to "
                         "the pitch at its place, its tick (top edge) towards y = 0.",
                         cells, w, h, advice)
    raise ValueError(f"sheet {sheet!r}: expected one of {', '.join(SHEETS)}")


# -- PDF ----------------------------------------------------------------------------------

def _pt(v: float) -> str:
    s = f"{v:.4f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def pdf_escape(text: str) -> str:
    """A PDF literal string's body: backslashes and parentheses escaped, ASCII only."""
    return _ascii(text).replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _pdf_content(page: Page) -> bytes:
    H = page.height_in

    def X(v: float) -> str:
        return _pt(v * PT_PER_IN)

    def Y(v: float) -> str:
        return _pt((H - v) * PT_PER_IN)

    out: list[str] = []
    for item in page.items:
        if isinstance(item, Fill):
            if not item.rects:
                continue
            out.append(f"{_pt(item.gray)} g")
            for x0, y0, x1, y1 in item.rects:
                out.append(f"{X(x0)} {Y(y1)} {_pt((x1 - x0) * PT_PER_IN)} "
                           f"{_pt((y1 - y0) * PT_PER_IN)} re")
            out.append("f")
        elif isinstance(item, Ring):
            cx, cy, r = item.cx * PT_PER_IN, (H - item.cy) * PT_PER_IN, item.r * PT_PER_IN
            k = 0.5522847498307936 * r
            p = _pt
            out.append(f"q {p(item.gray)} G {p(item.width * PT_PER_IN)} w")
            out.append(f"{p(cx + r)} {p(cy)} m")
            out.append(f"{p(cx + r)} {p(cy + k)} {p(cx + k)} {p(cy + r)} {p(cx)} {p(cy + r)} c")
            out.append(f"{p(cx - k)} {p(cy + r)} {p(cx - r)} {p(cy + k)} {p(cx - r)} {p(cy)} c")
            out.append(f"{p(cx - r)} {p(cy - k)} {p(cx - k)} {p(cy - r)} {p(cx)} {p(cy - r)} c")
            out.append(f"{p(cx + k)} {p(cy - r)} {p(cx + r)} {p(cy - k)} {p(cx + r)} {p(cy)} c")
            out.append("h S Q")
        else:
            width = text_width_in(item.text, item.size_pt)
            x = item.x - {"left": 0.0, "center": width / 2, "right": width}[item.align]
            out.append(f"0 g BT /F1 {_pt(item.size_pt)} Tf {X(x)} {Y(item.y)} Td "
                       f"({pdf_escape(item.text)}) Tj ET")
    return ("\n".join(out) + "\n").encode("ascii")


def pdf_bytes(pages: Sequence[Page], title: str = "") -> bytes:
    """A PDF 1.4 file, one page per :class:`Page`: MediaBox the paper in points, markers and
    bars as filled rectangles, cut lines as Bezier circles, text in the standard Helvetica."""
    if not pages:
        raise ValueError("no pages to write")
    objs: dict[int, bytes] = {}
    kids = [5 + 2 * i for i in range(len(pages))]
    objs[1] = (b"<< /Type /Catalog /Pages 2 0 R "
               b"/ViewerPreferences << /PrintScaling /None >> >>")
    objs[2] = (f"<< /Type /Pages /Kids [{' '.join(f'{k} 0 R' for k in kids)}] "
               f"/Count {len(pages)} >>").encode("ascii")
    objs[3] = (b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica "
               b"/Encoding /WinAnsiEncoding >>")
    objs[4] = (f"<< /Title ({pdf_escape(title)}) "
               f"/Producer (Tabletop Companion vision.sheets) >>").encode("ascii")
    for kid, page in zip(kids, pages):
        box = f"[0 0 {_pt(page.width_in * PT_PER_IN)} {_pt(page.height_in * PT_PER_IN)}]"
        objs[kid] = (f"<< /Type /Page /Parent 2 0 R /MediaBox {box} "
                     f"/Resources << /Font << /F1 3 0 R >> >> /Contents {kid + 1} 0 R >>"
                     ).encode("ascii")
        content = _pdf_content(page)
        objs[kid + 1] = (f"<< /Length {len(content)} >>\nstream\n".encode("ascii") + content
                         + b"\nendstream")
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for num in range(1, len(objs) + 1):
        offsets.append(len(out))
        out += f"{num} 0 obj\n".encode("ascii") + objs[num] + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode("ascii")
    out += b"".join(f"{o:010d} 00000 n \n".encode("ascii") for o in offsets)
    out += (f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R /Info 4 0 R >>\n"
            f"startxref\n{xref}\n%%EOF\n").encode("ascii")
    return bytes(out)


# -- PNG ----------------------------------------------------------------------------------

def _px(v: float, dpi: float) -> int:
    return math.floor(v * dpi + 0.5)


def page_size_px(page: Page, dpi: int) -> tuple[int, int]:
    """(width, height) in pixels: the paper's size times the DPI, rounded."""
    return _px(page.width_in, dpi), _px(page.height_in, dpi)


def rasterise(page: Page, dpi: int = 300) -> np.ndarray:
    """The page as an 8-bit grey image (255 white). A rectangle covers the pixels whose
    centres it covers (edges rounded to the nearest pixel edge, at least one pixel), so a
    marker of side s is s x dpi pixels wide to within one pixel."""
    import cv2

    wpx, hpx = page_size_px(page, dpi)
    img = np.full((hpx, wpx), 255, np.uint8)
    font = cv2.FONT_HERSHEY_SIMPLEX
    (_, ref_h), _ = cv2.getTextSize("H", font, 1.0, 1)
    for item in page.items:
        if isinstance(item, Fill):
            value = round(item.gray * 255)
            for x0, y0, x1, y1 in item.rects:
                c0, r0 = _px(x0, dpi), _px(y0, dpi)
                c1, r1 = max(_px(x1, dpi), c0 + 1), max(_px(y1, dpi), r0 + 1)
                img[max(r0, 0):max(r1, 0), max(c0, 0):max(c1, 0)] = value
        elif isinstance(item, Ring):
            sh = 16
            cv2.circle(img, (round(item.cx * dpi * sh), round(item.cy * dpi * sh)),
                       round(item.r * dpi * sh), round(item.gray * 255),
                       max(1, round(item.width * dpi)), cv2.LINE_AA, 4)
        else:
            text = _ascii(item.text)
            em = item.size_pt / PT_PER_IN * dpi
            thick = max(1, round(em * 0.08))
            scale = CAP * em / ref_h
            (tw, _), _ = cv2.getTextSize(text, font, scale, thick)
            want = text_width_in(text, item.size_pt) * dpi
            if tw > want > 0:               # no wider than the PDF's Helvetica
                scale *= want / tw
                (tw, _), _ = cv2.getTextSize(text, font, scale, thick)
            x = item.x * dpi - {"left": 0.0, "center": tw / 2, "right": tw}[item.align]
            cv2.putText(img, text, (round(x), round(item.y * dpi)), font, scale, 0, thick,
                        cv2.LINE_AA)
    return img


def png_chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    """A PNG's chunks as (type, data), checking the signature and every CRC."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    chunks, pos = [], 8
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        if zlib.crc32(kind + body) & 0xFFFFFFFF != crc:
            raise ValueError(f"PNG chunk {kind!r} has a bad CRC")
        chunks.append((kind, body))
        pos += 12 + length
    return chunks


def _chunk(kind: bytes, body: bytes) -> bytes:
    return (struct.pack(">I", len(body)) + kind + body
            + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))


def with_dpi(png: bytes, dpi: float) -> bytes:
    """``png`` with a pHYs chunk right after IHDR (any other pHYs dropped): pixels per metre
    ``round(dpi / 0.0254)`` both ways, unit 1 (the metre)."""
    ppm = round(dpi / 0.0254)
    phys = _chunk(b"pHYs", struct.pack(">IIB", ppm, ppm, 1))
    out = bytearray(png[:8])
    for kind, body in png_chunks(png):
        if kind == b"pHYs":
            continue
        out += _chunk(kind, body)
        if kind == b"IHDR":
            out += phys
    return bytes(out)


def png_bytes(page: Page, dpi: int = 300) -> bytes:
    import cv2

    ok, buf = cv2.imencode(".png", rasterise(page, dpi), [cv2.IMWRITE_PNG_COMPRESSION, 6])
    if not ok:
        raise ValueError(f"could not encode the {page.sheet} page {page.number} as PNG")
    return with_dpi(buf.tobytes(), dpi)


# -- files --------------------------------------------------------------------------------

def _write(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def write_sheets(out_dir: str | Path, table: TableConfig | None = None, *,
                 paper: Paper = "letter", dpi: int = 300,
                 which: Iterable[str] | None = None) -> list[Path]:
    """Write the sheets to ``out_dir`` (made if missing): ``<sheet>.pdf`` and
    ``<sheet>-<page>.png`` for each sheet in ``which`` (``toppers``, ``anchors``,
    ``charuco``; by default all three, anchors only with a table). Returns the files
    written, in order. Everything is laid out and checked before anything is written; a
    bad input (an id not in the dictionary, a marker too big for its base or page, an
    unwritable directory, a bad paper, DPI or sheet name) raises ValueError naming it.
    PNG pages left over from an earlier, longer sheet (``<sheet>-<n>.png``) are removed."""
    if which is None:
        sheets = ["toppers"] + (["anchors"] if table is not None else []) + ["charuco"]
    else:
        wanted = set(which)
        unknown = sorted(wanted - set(SHEETS))
        if unknown:
            raise ValueError(f"sheet(s) {', '.join(map(repr, unknown))}: expected "
                             f"{', '.join(SHEETS)}")
        sheets = [s for s in SHEETS if s in wanted]
    if isinstance(dpi, bool) or not isinstance(dpi, int) or \
            not DPI_RANGE[0] <= dpi <= DPI_RANGE[1]:
        raise ValueError(f"dpi {dpi!r}: expected a whole number from {DPI_RANGE[0]} to "
                         f"{DPI_RANGE[1]}")
    paper_size_in(paper)
    layouts = [(s, layout_sheet(s, table, paper=paper)) for s in sheets]

    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".sheets-write-test"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise ValueError(f"cannot write the sheets to {out}: {exc.strerror or exc}") from None

    titles = {"toppers": "Base toppers", "anchors": "Anchor markers",
              "charuco": "ChArUco calibration board"}
    written: list[Path] = []
    try:
        for sheet, pages in layouts:
            path = out / f"{sheet}.pdf"
            _write(path, pdf_bytes(pages, f"{titles[sheet]} - Tabletop Companion"))
            written.append(path)
            for page in pages:
                path = out / f"{sheet}-{page.number}.png"
                _write(path, png_bytes(page, dpi))
                written.append(path)
            stale = re.compile(rf"{sheet}-(\d+)\.png")
            for old in out.iterdir():
                match = stale.fullmatch(old.name)
                if match and int(match.group(1)) > len(pages):
                    old.unlink()
    except OSError as exc:
        raise ValueError(f"cannot write the sheets to {out}: {exc}") from None
    return written
