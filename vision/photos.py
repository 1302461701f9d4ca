"""Real photographs of printed marker boards, measured against the boards' documented geometry.

Renders are exact; photographs are not (paper, print, lens, compression). A photo set is a
directory with a ``photos.yaml`` manifest (``tests/data/real/``, see its README for where
each photograph comes from and under which licence)::

    boards:
      charuco_5x7: {kind: charuco, size: [5, 7], square_m: 0.04, marker_m: 0.02,
                    dictionary: DICT_6X6_250}
      grid_5x7: {kind: grid, size: [5, 7], marker_m: 0.04, separation_m: 0.01,
                 dictionary_file: tutorial_dict.yml}
    cameras:
      tutorial: tutorial_camera_charuco.yml        # OpenCV FileStorage intrinsics
    photos:
      - {file: img_00.jpg, board: charuco_5x7, camera: tutorial}

Every marker's place on the board follows from the board's documented geometry (OpenCV's
own board layout for those parameters): that is the ground truth. Some markers play the
anchors (:func:`anchor_choice`: the four outermost, and with six the middle of the long
sides), every other marker is a piece on the table, and every pair of pieces is a distance
whose truth is known. :func:`evaluate` measures them all through :class:`Measurer` and
tallies the errors against the reported uncertainty, and the verdicts near 2", 4" and 8".
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import cv2
import numpy as np
import yaml

from .config import MM_PER_IN, AnchorConfig, CameraConfig, DetectorConfig, PieceConfig, TableConfig
from .detect import Detection
from .measure import Measurer, VisionError, read_image
from .verdict import BOUNDARIES, TOO_CLOSE, entering_verdict, verdict

M_PER_IN = MM_PER_IN / 1000.0
# Each pair is also looked at as if its bases were sized so that its true edge distance lay
# this far from a boundary (the measured one moves with it): every pair tests the verdicts
# right at 2", 4" and 8", not only the few that happen to lie there.
BOUNDARY_OFFSETS_IN = tuple(np.round(np.linspace(-0.12, 0.12, 25), 4))


class PhotoSetError(ValueError):
    """A photo manifest or file that cannot be used; names the file and the key."""


@dataclass(frozen=True)
class Board:
    name: str
    kind: Literal["charuco", "grid"]
    size: tuple[int, int]
    dictionary: Any                   # cv2.aruco.Dictionary
    markers: dict[int, tuple[float, float, float]]   # id -> centre x, y and side (inches)
    description: str


@dataclass(frozen=True)
class Photo:
    file: Path
    board: Board
    camera: CameraConfig | None


REPO = Path(__file__).resolve().parent.parent
# Where the photographs may be: this checkout's tests/data/real (its README and manifest are
# committed, the photographs are fetched, not committed), or the project's shared folder
# beside the checkout, where a copy of that whole folder can be kept for every machine.
PHOTO_DIRS = (REPO / "tests" / "data" / "real", REPO.parent / "shared" / "vision-photos")


def photo_dir() -> Path:
    """The first of :data:`PHOTO_DIRS` holding the photographs its manifest names (else the
    first, whose README says how to bring them)."""
    for root in PHOTO_DIRS:
        try:
            load_photos(root)
        except ValueError:
            continue
        return root
    return PHOTO_DIRS[0]


def _fail(path: Path, key: str, message: str) -> PhotoSetError:
    return PhotoSetError(f"{path}: {key}: {message}")


def read_opencv_camera(path: Path, size: tuple[int, int] | None = None) -> CameraConfig:
    """An OpenCV FileStorage camera file (``camera_matrix``, ``distortion_coefficients``,
    ``image_width``/``image_height``) as a :class:`CameraConfig`."""
    fs = cv2.FileStorage(str(path), cv2.FILE_STORAGE_READ)
    if not fs.isOpened():
        raise PhotoSetError(f"{path}: not an OpenCV camera file")
    try:
        k = fs.getNode("camera_matrix").mat()
        dist = fs.getNode("distortion_coefficients").mat()
        w = fs.getNode("image_width").real() or (size[0] if size else 0)
        h = fs.getNode("image_height").real() or (size[1] if size else 0)
    finally:
        fs.release()
    if k is None or dist is None or not w or not h:
        raise PhotoSetError(f"{path}: needs camera_matrix, distortion_coefficients, "
                            "image_width and image_height")
    return CameraConfig.from_arrays((int(w), int(h)), k, np.asarray(dist).ravel())


def _dictionary(root: Path, spec: dict, where: str) -> tuple[Any, str]:
    if "dictionary_file" in spec:
        path = root / str(spec["dictionary_file"])
        fs = cv2.FileStorage(str(path), cv2.FILE_STORAGE_READ)
        d = cv2.aruco.Dictionary()
        if not fs.isOpened() or not d.readDictionary(fs.root()):
            raise _fail(root / "photos.yaml", f"{where}.dictionary_file",
                        f"{path.name} is not an OpenCV dictionary file")
        return d, f"the {d.markerSize}x{d.markerSize} dictionary in {path.name}"
    name = str(spec.get("dictionary", ""))
    try:
        return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name)), name
    except AttributeError:
        raise _fail(root / "photos.yaml", f"{where}.dictionary",
                    f"{name!r} is not an OpenCV dictionary") from None


def make_board(root: Path, name: str, spec: dict) -> Board:
    where = f"boards.{name}"
    try:
        kind = spec["kind"]
        nx, ny = (int(v) for v in spec["size"])
        d, dname = _dictionary(root, spec, where)
        if kind == "charuco":
            sq, mk = float(spec["square_m"]), float(spec["marker_m"])
            board = cv2.aruco.CharucoBoard((nx, ny), sq, mk, d)
            desc = (f"ChArUco {nx} x {ny} squares of {sq * 1000:g} mm, markers "
                    f"{mk * 1000:g} mm, {dname}")
        elif kind == "grid":
            mk, sep = float(spec["marker_m"]), float(spec["separation_m"])
            board = cv2.aruco.GridBoard((nx, ny), mk, sep, d)
            desc = f"grid of {nx} x {ny} markers of {mk * 1000:g} mm, {sep * 1000:g} mm apart, {dname}"
        else:
            raise _fail(root / "photos.yaml", f"{where}.kind", f"{kind!r}: charuco or grid")
    except KeyError as exc:
        raise _fail(root / "photos.yaml", where, f"missing key {exc.args[0]!r}") from None
    markers = {}
    for marker_id, pts in zip(np.asarray(board.getIds()).ravel(), board.getObjPoints()):
        pts = np.asarray(pts, np.float64).reshape(4, 3)[:, :2] / M_PER_IN
        side = float(np.mean(np.linalg.norm(pts - np.roll(pts, -1, axis=0), axis=1)))
        markers[int(marker_id)] = (float(pts[:, 0].mean()), float(pts[:, 1].mean()), side)
    return Board(name, kind, (nx, ny), d, markers, desc)


def load_photos(root: str | Path) -> list[Photo]:
    """The photo set in ``root`` (its ``photos.yaml``); PhotoSetError names what is wrong."""
    root = Path(root)
    manifest = root / "photos.yaml"
    try:
        data = yaml.safe_load(manifest.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PhotoSetError(f"{manifest}: no such file") from None
    except yaml.YAMLError as exc:
        raise PhotoSetError(f"{manifest}: not YAML ({exc})") from None
    boards = {n: make_board(root, n, b) for n, b in (data.get("boards") or {}).items()}
    cameras = {n: read_opencv_camera(root / str(f)) for n, f in (data.get("cameras") or {}).items()}
    photos = []
    for i, p in enumerate(data.get("photos") or []):
        if p.get("board") not in boards:
            raise _fail(manifest, f"photos[{i}].board", f"{p.get('board')!r} is not a board")
        cam = p.get("camera")
        if cam is not None and cam not in cameras:
            raise _fail(manifest, f"photos[{i}].camera", f"{cam!r} is not a camera")
        path = root / str(p["file"])
        if not path.is_file():
            raise _fail(manifest, f"photos[{i}].file", f"{path.name}: no such file")
        photos.append(Photo(path, boards[p["board"]], cameras.get(cam) if cam else None))
    return photos


def anchor_choice(board: Board, n: int) -> tuple[int, ...]:
    """``n`` (4 or 6) markers to play the anchors: the four outermost (furthest along the
    board's diagonals) and, with six, the two nearest the middle of the long sides."""
    pts = {i: (x, y) for i, (x, y, _) in board.markers.items()}
    xs = [p[0] for p in pts.values()]
    ys = [p[1] for p in pts.values()]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    chosen: list[int] = []
    for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
        chosen.append(min((i for i in pts if i not in chosen),
                          key=lambda i: (-(sx * pts[i][0] + sy * pts[i][1]), i)))
    if n == 6:
        if y1 - y0 >= x1 - x0:
            targets = [(x0, (y0 + y1) / 2), (x1, (y0 + y1) / 2)]
        else:
            targets = [((x0 + x1) / 2, y0), ((x0 + x1) / 2, y1)]
        for tx, ty in targets:
            chosen.append(min((i for i in pts if i not in chosen),
                              key=lambda i: (math.hypot(pts[i][0] - tx, pts[i][1] - ty), i)))
    elif n != 4:
        raise ValueError(f"{n} anchors: 4 or 6")
    return tuple(chosen)


def inside_anchors(board: Board, anchors: tuple[int, ...]) -> list[int]:
    """The markers inside the anchors' outline (on a table the pitch lies within the
    anchors; nothing is measured by extrapolating beyond them)."""
    hull = cv2.convexHull(np.array([board.markers[a][:2] for a in anchors], np.float32))
    return [i for i, (x, y, _) in sorted(board.markers.items())
            if i not in anchors and cv2.pointPolygonTest(hull, (float(x), float(y)), True) >= -1e-6]


def board_table(board: Board, anchors: tuple[int, ...], *, max_error_in: float = 0.05,
                refinement: str = "contour") -> TableConfig:
    """The board as a table: the chosen markers anchors, every marker inside them a piece
    on a base just larger than its marker (at the table's height: the board is flat)."""
    anc = tuple(AnchorConfig(i, *board.markers[i]) for i in anchors)
    pieces = tuple(PieceConfig(i, board.markers[i][2], round(board.markers[i][2] * MM_PER_IN + 1, 3),
                               0.0, f"m{i}") for i in inside_anchors(board, anchors))
    return TableConfig(dictionary="DICT_4X4_50", anchors=anc, pieces=pieces,
                       max_error_in=max_error_in, min_anchors=min(4, len(anc)),
                       detector=DetectorConfig(refinement=refinement))  # type: ignore[arg-type]


def detect(image: np.ndarray, board: Board, refinement: str = "contour") -> list[Detection]:
    """The board's markers in a photo, with the measurement's detector settings (the
    dictionary may be a custom one, which a table file cannot name)."""
    from .detect import parameters

    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    cfg = DetectorConfig(refinement=refinement)  # type: ignore[arg-type]
    params = parameters(cfg, (gray.shape[1], gray.shape[0]))
    corners, ids, _ = cv2.aruco.ArucoDetector(board.dictionary, params).detectMarkers(gray)
    if ids is None:
        return []
    return [Detection(int(i), tuple((float(x), float(y)) for x, y in c.reshape(4, 2)))  # type: ignore[arg-type]
            for c, i in zip(corners, ids.ravel())]


@dataclass
class Tally:
    photos: int = 0
    markers_expected: int = 0
    markers_found: int = 0
    errors: list[float] = field(default_factory=list)
    uncertainties: list[float] = field(default_factory=list)
    within_1u: int = 0
    within_2u: int = 0
    verdicts: int = 0
    confident_wrong: int = 0          # as the measuring view shows them (entered with a margin)
    confident_wrong_bare: int = 0     # by the bare 2u rule, for comparison
    too_close: int = 0
    refused: list[str] = field(default_factory=list)
    warnings: set[str] = field(default_factory=set)

    def figures(self) -> dict[str, Any]:
        e = sorted(self.errors)
        n = len(e)
        p95 = e[min(n - 1, int(math.ceil(0.95 * n)) - 1)] if e else float("nan")
        return {"photos": self.photos, "pairs": n,
                "detection_rate": round(self.markers_found / max(1, self.markers_expected), 4),
                "median_error_in": round(statistics.median(e), 5) if e else float("nan"),
                "p95_error_in": round(p95, 5),
                "max_error_in": round(e[-1], 5) if e else float("nan"),
                "within_1u": round(self.within_1u / max(1, n), 4),
                "within_2u": round(self.within_2u / max(1, n), 4),
                "median_uncertainty_in": round(statistics.median(self.uncertainties), 5)
                if self.uncertainties else float("nan"),
                "boundary_verdicts": self.verdicts,
                "confident_wrong": self.confident_wrong,
                "confident_wrong_bare_2u": self.confident_wrong_bare,
                "too_close_share": round(self.too_close / max(1, self.verdicts), 4),
                "frames_refused": len(self.refused)}


def measure_photo(photo: Photo, n_anchors: int = 6, *, with_camera: bool = True,
                  moved: dict[int, tuple[float, float]] | None = None,
                  refinement: str = "contour"):
    """One photo measured as a table; ``moved`` shifts anchors in the table file (inches),
    as a misplaced anchor would. Returns (measurement, table, detections)."""
    board = photo.board
    image = read_image(photo.file)
    table = board_table(board, anchor_choice(board, n_anchors), refinement=refinement)
    if moved:
        table = replace(table, anchors=tuple(
            replace(a, x_in=a.x_in + moved[a.id][0], y_in=a.y_in + moved[a.id][1])
            if a.id in moved else a for a in table.anchors))
    camera = photo.camera if with_camera else None
    dets = detect(image, board, refinement)
    m = Measurer(table, camera).measure_detections(dets)
    return m, table, dets


def tally_pairs(m, board: Board, table: TableConfig, tally: Tally) -> None:
    # edge distances differ from centre ones by the radii, the same for truth and measurement:
    # the error is the centre distance's
    for d in m.distances:
        (xa, ya, _), (xb, yb, _) = board.markers[d.a][:3], board.markers[d.b][:3]
        true_centre = math.hypot(xa - xb, ya - yb)
        err = d.center_in - true_centre
        tally.errors.append(abs(err))
        tally.uncertainties.append(d.uncertainty_in)
        tally.within_1u += abs(err) <= d.uncertainty_in
        tally.within_2u += abs(err) <= 2 * d.uncertainty_in
        for b in BOUNDARIES:
            for off in BOUNDARY_OFFSETS_IN:
                truth = b + off
                tally.verdicts += 1
                shown = entering_verdict(truth + err, d.uncertainty_in, b)
                if shown == TOO_CLOSE:
                    tally.too_close += 1
                elif (shown == "within") != (truth <= b):
                    tally.confident_wrong += 1
                bare = verdict(truth + err, d.uncertainty_in, b)
                if bare != TOO_CLOSE and (bare == "within") != (truth <= b):
                    tally.confident_wrong_bare += 1


def evaluate(photos: list[Photo], n_anchors: int = 6, *, with_camera: bool = True,
             refinement: str = "contour") -> Tally:
    tally = Tally()
    for photo in photos:
        tally.photos += 1
        try:
            m, table, dets = measure_photo(photo, n_anchors, with_camera=with_camera,
                                           refinement=refinement)
        except VisionError as exc:
            tally.refused.append(f"{photo.file.name}: {exc}")
            continue
        # every marker OpenCV's own detector (default settings) finds must be found
        gray = cv2.cvtColor(read_image(photo.file), cv2.COLOR_BGR2GRAY)
        _, ids, _ = cv2.aruco.ArucoDetector(photo.board.dictionary).detectMarkers(gray)
        theirs = set() if ids is None else {int(i) for i in ids.ravel()}
        tally.markers_expected += len(theirs)
        tally.markers_found += len(theirs & {d.id for d in dets})
        tally.warnings.update(m.warnings)
        tally_pairs(m, photo.board, table, tally)
    return tally
