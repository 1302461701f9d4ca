"""The printable sheets (vision.sheets): exact physical scale in the PNG (pixels, pHYs) and
in the PDF (structure, MediaBox, vector rectangles that agree with the PNG), markers that
OpenCV detects at the right id and size, and errors that name what is wrong."""

from __future__ import annotations

import math
import re
import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import sheets as S
from vision.config import CHARUCO, MM_PER_IN, AnchorConfig, PieceConfig, TableConfig

DPI = 300
LETTER_PX = (3300, 2550)        # rows, columns at 300 DPI

TABLE = TableConfig(
    anchors=(AnchorConfig(0, 1.2, 1.2, 1.5), AnchorConfig(1, 20.8, 1.2, 1.5),
             AnchorConfig(2, 20.8, 28.8, 1.5), AnchorConfig(3, 1.2, 28.8, 2.0)),
    pieces=(PieceConfig(12, 0.625, 30, name="Oso (captain) \\ 1"),
            PieceConfig(13, 0.875, 40, name="Yuki"),
            PieceConfig(14, 1.125, 50)))


@pytest.fixture(scope="module")
def default_dir(tmp_path_factory) -> tuple[Path, list[Path]]:
    out = tmp_path_factory.mktemp("sheets-default")
    return out, S.write_sheets(out)


@pytest.fixture(scope="module")
def table_dir(tmp_path_factory) -> tuple[Path, list[Path]]:
    out = tmp_path_factory.mktemp("sheets-table")
    return out, S.write_sheets(out, TABLE)


def _gray(path: Path) -> np.ndarray:
    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    assert img is not None and img.ndim == 2, path
    return img


# -- PDF ------------------------------------------------------------------------------------

def _pdf_objects(data: bytes) -> dict[int, bytes]:
    """Checks the file's structure (header, EOF, startxref, xref offsets, stream lengths) and
    returns its objects' bodies by number."""
    assert data.startswith(b"%PDF-1.4\n")
    assert data.endswith(b"%%EOF\n")
    m = re.search(rb"startxref\n(\d+)\n%%EOF\n$", data)
    assert m, "no startxref"
    xref = int(m.group(1))
    assert data[xref:xref + 5] == b"xref\n"
    head = re.match(rb"xref\n0 (\d+)\n", data[xref:])
    size = int(head.group(1))
    table = data[xref + head.end():]
    entries = [table[20 * i:20 * (i + 1)] for i in range(size)]
    assert entries[0] == b"0000000000 65535 f \n"
    objects = {}
    for num in range(1, size):
        entry = entries[num]
        assert re.fullmatch(rb"\d{10} 00000 n \n", entry), entry
        offset = int(entry[:10])
        start = f"{num} 0 obj\n".encode()
        assert data[offset:offset + len(start)] == start, (num, data[offset:offset + 20])
        end = data.index(b"\nendobj\n", offset)
        objects[num] = data[offset + len(start):end]
    trailer = table[20 * size:]
    assert trailer.startswith(b"trailer\n")
    assert re.search(rb"/Size %d\b" % size, trailer)
    root = int(re.search(rb"/Root (\d+) 0 R", trailer).group(1))
    assert b"/Type /Catalog" in objects[root]
    for num, body in objects.items():
        sm = re.match(rb"<< /Length (\d+) >>\nstream\n", body)
        if sm:
            length = int(sm.group(1))
            assert body[sm.end() + length:] == b"\nendstream", num
    return objects


def _pdf_pages(data: bytes) -> list[tuple[list[float], bytes]]:
    """(MediaBox, content stream) of each page, in the Pages tree's order."""
    objects = _pdf_objects(data)
    pages_obj = next(b for b in objects.values() if b"/Type /Pages" in b)
    kids = [int(k) for k in re.findall(rb"(\d+) 0 R", re.search(rb"/Kids \[(.*?)\]",
                                                                     pages_obj).group(1))]
    count = int(re.search(rb"/Count (\d+)", pages_obj).group(1))
    assert count == len(kids) == sum(1 for b in objects.values()
                                      if re.search(rb"/Type /Page\b(?!s)", b))
    out = []
    for kid in kids:
        page = objects[kid]
        box = [float(v) for v in re.search(rb"/MediaBox \[(.*?)\]", page).group(1).split()]
        content = objects[int(re.search(rb"/Contents (\d+) 0 R", page).group(1))]
        stream = re.match(rb"<< /Length (\d+) >>\nstream\n", content)
        out.append((box, content[stream.end():stream.end() + int(stream.group(1))]))
    return out


def _pdf_black_mask(content: bytes, box: list[float], dpi: int) -> np.ndarray:
    """The black filled rectangles of a content stream, drawn as the PNG renderer does."""
    w_pt, h_pt = box[2], box[3]
    mask = np.zeros((round(h_pt / 72 * dpi), round(w_pt / 72 * dpi)), bool)
    gray, pending = None, []
    for line in content.decode("ascii").splitlines():
        parts = line.split()
        if parts[-1] == "re":
            pending.append([float(v) for v in parts[:4]])
        elif parts == ["f"]:
            if gray == 0:
                for x, y, w, h in pending:
                    x0, y0 = x / 72, (h_pt - y - h) / 72      # inches from the top-left
                    c0, r0 = S._px(x0, dpi), S._px(y0, dpi)
                    c1 = max(S._px(x0 + w / 72, dpi), c0 + 1)
                    r1 = max(S._px(y0 + h / 72, dpi), r0 + 1)
                    mask[r0:r1, c0:c1] = True
            pending = []
        elif len(parts) >= 2 and parts[1] == "g":
            gray = float(parts[0])
    return mask


@pytest.mark.parametrize("paper", ["letter", "a4"])
def test_pdf_structure_and_page_size(tmp_path, paper):
    files = S.write_sheets(tmp_path, TABLE, paper=paper, dpi=72)
    w_in, h_in = S.PAPERS[paper]
    expected = [0, 0, 612, 792] if paper == "letter" else [0, 0, 595.2756, 841.8898]
    for sheet in S.SHEETS:
        pdf = tmp_path / f"{sheet}.pdf"
        assert pdf in files
        pages = _pdf_pages(pdf.read_bytes())
        pngs = sorted(tmp_path.glob(f"{sheet}-*.png"))
        assert len(pages) == len(pngs) == len(S.layout_sheet(sheet, TABLE, paper=paper))
        for box, content in pages:
            assert box == pytest.approx(expected, abs=1e-4)
            assert box[2] == pytest.approx(w_in * 72, abs=1e-3)
            assert box[3] == pytest.approx(h_in * 72, abs=1e-3)
            assert b"(1 inch: measure this after printing) Tj" in content
        assert b"/BaseFont /Helvetica" in pdf.read_bytes()


def test_pdf_text_is_escaped_and_says_where_anchors_go(table_dir):
    out, _ = table_dir
    toppers = b"".join(c for _, c in _pdf_pages((out / "toppers.pdf").read_bytes()))
    assert b"(Oso \\(captain\\) \\\\ 1) Tj" in toppers
    assert b"(id 12, 30 mm) Tj" in toppers
    anchors = b"".join(c for _, c in _pdf_pages((out / "anchors.pdf").read_bytes()))
    assert b'id 2 at x 20.8", y 28.8";' in anchors
    assert b"top edge towards y = 0" in anchors
    # this table lays 4 anchors: the sheet recommends 6
    assert b"(This table has 4 anchors: lay 6 \\(the pitch's corners and the middle of its " \
        b"long sides\\), or a misplaced one cannot be noticed.) Tj" in anchors
    six = TableConfig(anchors=TABLE.anchors + (AnchorConfig(4, 1.2, 15, 1.5),
                                               AnchorConfig(5, 20.8, 15, 1.5)))
    texts = [i.text for page in S.layout_sheet("anchors", six) for i in page.items
             if isinstance(i, S.Text)]
    assert "With 6 anchors or more, a misplaced one shows: the camera widens its margin." in texts
    charuco = b"".join(c for _, c in _pdf_pages((out / "charuco.pdf").read_bytes()))
    assert b"Print at 100% \\(no fit-to-page\\). Check: squares must measure 1.00 inch" \
        in charuco


def test_pdf_circles_are_bezier_cut_lines_of_the_base(table_dir):
    out, _ = table_dir
    (_, content), = _pdf_pages((out / "toppers.pdf").read_bytes())
    rings = re.findall(rb"q ([\d.]+) G [\d.]+ w\n([\d.]+) ([\d.]+) m\n((?:.* c\n){4})h S Q",
                       content)
    assert len(rings) == len(TABLE.pieces)
    radii = []
    for _, x, y, curves in rings:
        first = curves.split(b"\n")[0].split()
        cx, top = float(first[4]), float(first[5])           # (cx, cy + r)
        radii.append(float(x) - cx)
        assert top - float(y) == pytest.approx(float(x) - cx, abs=1e-3)
    assert sorted(radii) == pytest.approx([p.base_mm / MM_PER_IN * 36 for p in TABLE.pieces],
                                          abs=1e-3)


@pytest.mark.parametrize("sheet", ["toppers", "charuco", "anchors"])
def test_pdf_rectangles_agree_with_the_png(table_dir, sheet):
    """One layout, two renderers: the PDF's black rectangles drawn at 300 DPI are the PNG's
    black pixels inside every marker (and the whole ChArUco board)."""
    out, _ = table_dir
    (box, content), = _pdf_pages((out / f"{sheet}.pdf").read_bytes())
    mask = _pdf_black_mask(content, box, DPI)
    png = _gray(out / f"{sheet}-1.png")
    assert mask.shape == png.shape
    (page,) = S.layout_sheet(sheet, TABLE)
    for m in page.markers:
        h = m.side_in / 2 * DPI + 3
        r0, r1 = int(m.cy * DPI - h), int(m.cy * DPI + h)
        c0, c1 = int(m.cx * DPI - h), int(m.cx * DPI + h)
        pdf_black, png_black = mask[r0:r1, c0:c1], png[r0:r1, c0:c1] == 0
        assert pdf_black.any()
        # equal, but for edges that fall on half a pixel (rounded from the PDF's points)
        kernel = np.ones((3, 3), np.uint8)
        edge = cv2.dilate(png_black.astype(np.uint8), kernel) != \
            cv2.erode(png_black.astype(np.uint8), kernel)
        assert not ((pdf_black != png_black) & ~edge).any(), (sheet, m.id)
        assert (pdf_black != png_black).mean() < 0.01, (sheet, m.id)


# -- PNG ------------------------------------------------------------------------------------

def _chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    out, pos = [], 8
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        (crc,) = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF, kind
        out.append((kind, body))
        pos += 12 + n
    return out


def test_png_has_phys_and_paper_size(default_dir):
    _, files = default_dir
    pngs = [f for f in files if f.suffix == ".png"]
    assert pngs and all(f.exists() for f in files)
    for png in pngs:
        chunks = _chunks(png.read_bytes())
        kinds = [k for k, _ in chunks]
        assert kinds[0] == b"IHDR" and kinds[-1] == b"IEND"
        assert kinds.count(b"pHYs") == 1 and kinds.index(b"pHYs") < kinds.index(b"IDAT")
        body = dict(chunks)[b"pHYs"]
        assert body == struct.pack(">IIB", 11811, 11811, 1)    # round(300 / 0.0254), metre
        assert _gray(png).shape == LETTER_PX


def test_png_a4_at_another_dpi(tmp_path):
    files = S.write_sheets(tmp_path, paper="a4", dpi=150, which={"charuco"})
    assert [f.name for f in files] == ["charuco.pdf", "charuco-1.png"]
    png = tmp_path / "charuco-1.png"
    assert _gray(png).shape == (round(297 / MM_PER_IN * 150), round(210 / MM_PER_IN * 150))
    assert dict(_chunks(png.read_bytes()))[b"pHYs"] == struct.pack(">IIB", 5906, 5906, 1)


def _detect(img: np.ndarray, dictionary: str):
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    det = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary)), params)
    corners, ids, _ = det.detectMarkers(img)
    assert ids is not None
    return [(int(i), c.reshape(4, 2)) for i, c in zip(ids.ravel(), corners)]


def _check_markers(img: np.ndarray, page: S.Page, dpi: int = DPI) -> None:
    """Every placed marker is detected once, at its place, with its id, exactly side x dpi
    pixels wide (to a pixel), top edge up."""
    found = _detect(img, page.markers[0].dictionary)
    assert len(found) == len(page.markers)
    for m in page.markers:
        centre = np.array([m.cx, m.cy]) * dpi
        near = [(i, c) for i, c in found if np.linalg.norm(c.mean(axis=0) - centre) < 3]
        assert len(near) == 1, m
        marker_id, corners = near[0]
        assert marker_id == m.id
        want = m.side_in * dpi
        edges = [np.linalg.norm(corners[k] - corners[(k + 1) % 4]) for k in range(4)]
        assert all(abs(e - want) <= 1 for e in edges), (m, edges)
        # the black square's bounding box in pixels
        (x0, y0), (x1, y1) = corners.min(axis=0).astype(int) - 3, \
            corners.max(axis=0).astype(int) + 4
        black = img[y0:y1, x0:x1] < 128
        rows, cols = np.flatnonzero(black.any(axis=1)), np.flatnonzero(black.any(axis=0))
        assert abs(cols[-1] - cols[0] + 1 - want) <= 1 and abs(rows[-1] - rows[0] + 1 - want) <= 1
        # corner 0 (the marker's top-left) is the top-left one on the page: top edge up
        assert np.argmin(corners.sum(axis=1)) == 0


def test_default_toppers_are_detected_at_exact_size(default_dir):
    out, _ = default_dir
    pages = S.layout_sheet("toppers")
    assert sum(len(p.markers) for p in pages) == 60
    assert len(sorted(out.glob("toppers-*.png"))) == len(pages)
    for page in pages[:2]:      # 30 and 40 mm bases (the 50 mm ones are drawn the same way)
        _check_markers(_gray(out / f"toppers-{page.number}.png"), page)


def test_table_toppers_ticks_and_labels(table_dir):
    out, _ = table_dir
    (page,) = S.layout_sheet("toppers", TABLE)
    img = _gray(out / "toppers-1.png")
    _check_markers(img, page)
    rings = [i for i in page.items if isinstance(i, S.Ring)]
    for m, piece in zip(page.markers, TABLE.pieces):
        ring = next(r for r in rings if (r.cx, r.cy) == (m.cx, m.cy))
        assert ring.r == pytest.approx(piece.base_mm / MM_PER_IN / 2)
        col = round(m.cx * DPI)
        # the top tick crosses the cut line over the marker's top edge
        assert img[round((m.cy - ring.r) * DPI), col] < 64
        assert img[round((m.cy - ring.r - 0.04) * DPI), col] < 64
        # the quiet zone (every point within one module of the black square, up to the cut
        # line: on the 50 mm base it reaches it at the corners) is white
        module = m.side_in / S.marker_modules("DICT_4X4_50") * DPI
        half = m.side_in / 2 * DPI
        r0, c0 = round((m.cy - ring.r) * DPI) - 4, round((m.cx - ring.r) * DPI) - 4
        n = round(2 * ring.r * DPI) + 8
        ys, xs = np.mgrid[r0:r0 + n, c0:c0 + n]
        dx = np.maximum(np.abs(xs + 0.5 - m.cx * DPI) - half, 0)
        dy = np.maximum(np.abs(ys + 0.5 - m.cy * DPI) - half, 0)
        dist = np.hypot(dx, dy)
        inside = np.hypot(xs + 0.5 - m.cx * DPI, ys + 0.5 - m.cy * DPI) < ring.r * DPI - 3.5
        quiet = (dist > 1.5) & (dist < module - 1) & inside
        assert quiet.sum() > 4 * half * module * 0.9
        assert (img[r0:r0 + n, c0:c0 + n][quiet] == 255).all()
        # and the cut line lies just beyond it, at the base's radius
        assert ring.r * DPI - (half * math.sqrt(2) + module) < 0.1 * DPI
        texts = [t.text for t in page.items if isinstance(t, S.Text)
                 if abs(t.x - m.cx) < 1e-9]
        assert f"id {piece.id}, {piece.base_mm:g} mm" in texts and str(piece.id) in texts


def test_anchors_are_detected_at_exact_size_with_crop_marks(table_dir):
    out, _ = table_dir
    pages = S.layout_sheet("anchors", TABLE)
    assert sorted(m.id for p in pages for m in p.markers) == [0, 1, 2, 3]
    for page in pages:
        img = _gray(out / f"anchors-{page.number}.png")
        _check_markers(img, page)
        for m in page.markers:
            q = m.side_in * (1 + 2 / S.marker_modules("DICT_4X4_50")) / 2   # white border
            # crop marks start CROP_GAP outside each corner of the white border
            for sx in (-1, 1):
                for sy in (-1, 1):
                    x = m.cx + sx * (q + S.CROP_GAP_IN + 0.05)
                    y = m.cy + sy * q
                    assert img[round(y * DPI), round(x * DPI)] < 64
            # the white border is white
            ring = img[round((m.cy - q) * DPI) + 2:round((m.cy - m.side_in / 2) * DPI) - 2,
                       round((m.cx - q) * DPI) + 2:round((m.cx + q) * DPI) - 2]
            assert (ring == 255).all()


def test_charuco_png_is_detected_with_every_corner(default_dir):
    out, _ = default_dir
    img = _gray(out / "charuco-1.png")
    board = CHARUCO.board()
    corners, ids, _, marker_ids = cv2.aruco.CharucoDetector(board).detectBoard(img)
    inner = (CHARUCO.squares_x - 1) * (CHARUCO.squares_y - 1)
    assert ids is not None and sorted(ids.ravel().tolist()) == list(range(inner))
    assert len(marker_ids) == len(board.getIds())
    # neighbouring corners are one square (1 inch = 300 px) apart
    pos = dict(zip(ids.ravel().tolist(), corners.reshape(-1, 2)))
    per_row = CHARUCO.squares_x - 1
    for k in range(inner):
        if k % per_row != per_row - 1:
            assert abs(np.linalg.norm(pos[k + 1] - pos[k]) - DPI * CHARUCO.square_in) <= 1
        if k + per_row < inner:
            assert abs(np.linalg.norm(pos[k + per_row] - pos[k]) - DPI) <= 1


def test_charuco_matches_opencvs_own_drawing(default_dir):
    out, _ = default_dir
    img = _gray(out / "charuco-1.png")
    (page,) = S.layout_sheet("charuco")
    board_fill = page.items[-1]
    assert isinstance(board_fill, S.Fill)
    x0 = min(r[0] for r in board_fill.rects)
    y0 = min(r[1] for r in board_fill.rects)
    x1 = max(r[2] for r in board_fill.rects)
    y1 = max(r[3] for r in board_fill.rects)
    crop = img[S._px(y0, DPI):S._px(y1, DPI), S._px(x0, DPI):S._px(x1, DPI)]
    if page.markers[0].rotation == 90:          # turned a quarter clockwise to fit the page
        crop = cv2.rotate(crop, cv2.ROTATE_90_COUNTERCLOCKWISE)
    w, h = CHARUCO.squares_x * DPI, CHARUCO.squares_y * DPI
    assert crop.shape == (h, w)
    theirs = CHARUCO.board().generateImage((w, h), marginSize=0, borderBits=1) < 128
    ours = crop < 128
    # the same but for edges on half pixels (OpenCV rounds the markers' 37.5 px offsets and
    # 32.14 px modules its own way)
    kernel = np.ones((3, 3), np.uint8)
    edge = cv2.dilate(ours.astype(np.uint8), kernel) != cv2.erode(ours.astype(np.uint8), kernel)
    assert not ((ours != theirs) & ~edge).any()
    assert (ours != theirs).mean() < 0.01


def _check_bar_px(img: np.ndarray, page_h_in: float, dpi: int) -> int:
    yc = page_h_in - S.MARGIN_IN - S.CHECK_TICK_IN / 2
    row = img[round(yc * dpi)]
    start = S._px(S.MARGIN_IN, dpi)
    assert row[start] == 0 and row[start - 1] == 255
    run = np.flatnonzero(row[start:] != 0)[0]
    # its ticks: as tall as CHECK_TICK_IN at both ends
    for col in (start, start + run - 1):
        column = img[:, col]
        dark = np.flatnonzero(column[round((yc - 0.2) * dpi):round((yc + 0.2) * dpi)] == 0)
        assert abs(len(dark) - S.CHECK_TICK_IN * dpi) <= 1
    return run


def test_every_page_has_a_one_inch_check_line(default_dir, table_dir):
    for _out, files in (default_dir, table_dir):
        for png in (f for f in files if f.suffix == ".png"):
            assert abs(_check_bar_px(_gray(png), 11.0, DPI) - DPI) <= 1, png
    (page,) = S.layout_sheet("charuco", paper="a4")
    img = S.rasterise(page, 600)
    assert abs(_check_bar_px(img, page.height_in, 600) - 600) <= 1
    assert any(isinstance(i, S.Text) and i.text == "1 inch: measure this after printing"
               for i in page.items)


# -- layout ---------------------------------------------------------------------------------

def test_default_topper_sides():
    assert [S.topper_side_in(b) for b in (30, 40, 50)] == [0.625, 0.8125, 1.0625]
    pieces = S.default_pieces()
    assert len(pieces) == 60
    for base in S.DEFAULT_BASES_MM:
        assert [p.id for p in pieces if p.base_mm == base] == list(range(10, 30))
    for p in pieces:
        assert p.validate() is None
        assert (p.side_in * 16) == int(p.side_in * 16)
        # the quiet zone fits 1 mm inside the cut line, and 1/16" more would not
        n = S.marker_modules("DICT_4X4_50")
        r = (p.base_mm - 2 * S.CUT_MARGIN_MM) / MM_PER_IN / 2
        assert p.side_in / math.sqrt(2) + p.side_in / n <= r
        s = p.side_in + 1 / 16
        assert s / math.sqrt(2) + s / n > r
    # a table's anchors keep their ids off the default toppers
    table = TableConfig(anchors=(AnchorConfig(10, 1, 1, 2), AnchorConfig(11, 20, 1, 2),
                                 AnchorConfig(12, 20, 28, 2)))
    ids = {m.id for p in S.layout_sheet("toppers", table) for m in p.markers}
    assert ids == set(range(13, 30))


def _bbox(item) -> tuple[float, float, float, float]:
    if isinstance(item, S.Fill):
        xs = [v for r in item.rects for v in (r[0], r[2])]
        ys = [v for r in item.rects for v in (r[1], r[3])]
        return min(xs), min(ys), max(xs), max(ys)
    if isinstance(item, S.Ring):
        e = item.r + item.width / 2
        return item.cx - e, item.cy - e, item.cx + e, item.cy + e
    w = S.text_width_in(item.text, item.size_pt)
    x = item.x - {"left": 0, "center": w / 2, "right": w}[item.align]
    return x, item.y - item.size_pt / 72 * 0.75, x + w, item.y + item.size_pt / 72 * 0.22


@pytest.mark.parametrize("paper", ["letter", "a4"])
@pytest.mark.parametrize("table", [None, TABLE], ids=["default", "table"])
def test_everything_inside_the_margins_and_nothing_overlaps(paper, table):
    for sheet in S.SHEETS:
        if sheet == "anchors" and table is None:
            continue
        pages = S.layout_sheet(sheet, table, paper=paper)
        assert [p.number for p in pages] == list(range(1, len(pages) + 1))
        for page in pages:
            assert (page.width_in, page.height_in) == S.PAPERS[paper]
            for item in page.items:
                x0, y0, x1, y1 = _bbox(item)
                assert x0 >= S.MARGIN_IN - 1e-9 and y0 >= S.MARGIN_IN - 1e-9, (sheet, item)
                assert x1 <= page.width_in - S.MARGIN_IN + 1e-9, (sheet, item)
                assert y1 <= page.height_in - S.MARGIN_IN + 1e-9, (sheet, item)
            if sheet == "toppers":
                rings = [i for i in page.items if isinstance(i, S.Ring)]
                for a in rings:
                    for b in rings:
                        if a is not b:
                            assert math.dist((a.cx, a.cy), (b.cx, b.cy)) > a.r + b.r + 0.1


def test_stale_pages_are_removed_and_which_selects(tmp_path):
    first = S.write_sheets(tmp_path, which={"toppers"})
    assert len(first) > 2 and (tmp_path / "toppers-2.png").exists()
    (tmp_path / "notes-2.png").write_bytes(b"mine")
    second = S.write_sheets(tmp_path, TABLE, which=["toppers"], dpi=100)
    assert [f.name for f in second] == ["toppers.pdf", "toppers-1.png"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes-2.png", "toppers-1.png",
                                                          "toppers.pdf"]


# -- errors ---------------------------------------------------------------------------------

def _table(**kw) -> TableConfig:
    return TableConfig(**{"anchors": TABLE.anchors, **kw})


@pytest.mark.parametrize("table, which, words", [
    (_table(pieces=(PieceConfig(60, 0.625, 30),)), {"toppers"},
     ["pieces[0]", "60", "DICT_4X4_50"]),
    (_table(pieces=(PieceConfig(5, 0.625, 30),), anchors=TABLE.anchors[:2]
            + (AnchorConfig(77, 5, 5, 2),)), {"anchors"}, ["anchors[2]", "77"]),
    (_table(pieces=(PieceConfig(12, 0.625, 30), PieceConfig(13, 0.8125, 30))), {"toppers"},
     ["pieces[1]", "13", "30 mm", "0.812", "quiet zone"]),
    (_table(anchors=TABLE.anchors + (AnchorConfig(9, 10, 10, 9.0),)), {"anchors"},
     ["anchors[4]", "9", "letter"]),
    (_table(pieces=(PieceConfig(12, 3.0, 200),)), {"toppers"}, ["pieces[0]", "12", "letter"]),
    (None, {"anchors"}, ["anchors", "table"]),
    (TABLE, {"toppers", "stickers"}, ["stickers"]),
])
def test_bad_input_names_the_item(tmp_path, table, which, words):
    with pytest.raises(ValueError) as err:
        S.write_sheets(tmp_path / "out", table, which=which)
    for word in words:
        assert word in str(err.value)
    assert not (tmp_path / "out").exists()        # checked before anything is written


def test_bad_paper_dpi_and_unwritable_directory(tmp_path):
    with pytest.raises(ValueError, match="paper 'legal'"):
        S.write_sheets(tmp_path, paper="legal")  # type: ignore[arg-type]
    for dpi in (0, 20, 5000, 300.0, True):
        with pytest.raises(ValueError, match="dpi"):
            S.write_sheets(tmp_path, dpi=dpi)  # type: ignore[arg-type]
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    for target in (blocker, blocker / "sub"):
        with pytest.raises(ValueError) as err:
            S.write_sheets(target, which={"charuco"})
        assert str(target) in str(err.value)
    assert list(tmp_path.iterdir()) == [blocker]


def test_with_dpi_replaces_an_existing_phys():
    _, buf = cv2.imencode(".png", np.zeros((4, 4), np.uint8))
    once = S.with_dpi(buf.tobytes(), 600)
    twice = S.with_dpi(once, 72)
    kinds = [k for k, _ in _chunks(twice)]
    assert kinds.count(b"pHYs") == 1
    assert dict(_chunks(twice))[b"pHYs"] == struct.pack(">IIB", round(72 / 0.0254),
                                                         round(72 / 0.0254), 1)
    assert (cv2.imdecode(np.frombuffer(twice, np.uint8), cv2.IMREAD_UNCHANGED) == 0).all()
