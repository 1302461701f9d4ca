"""Camera calibration from views of a board: the project's ChArUco board (:data:`CHARUCO`)
by default, any other ChArUco board or a plain chessboard (:class:`CharucoSpec`).

* :func:`detect_board` finds the board's chessboard corners in one image;
* :func:`calibrate` turns at least :data:`MIN_VIEWS` views into a :class:`CameraConfig`
  (``cv2.calibrateCamera``). Whether k3 is free follows from the views
  (:func:`k3_decision`): only when they reach the image's corners and pin k3 down (its
  standard deviation from the fit well under its size); otherwise it is fixed at 0, since
  a free k3 then fits noise at the image corners with the same RMS;
* :func:`coverage` / :func:`coverage_warning` say how much of the image the corners covered
  (a calibration is only trustworthy where the board was seen);
* :func:`calibrate_images` does all of it for image files, :func:`calibrate_live` for a
  camera (any object with ``read() -> (ok, frame)``, such as ``cv2.VideoCapture``), keeping
  a frame only when the board's pose differs enough from the views already kept.

Errors are :class:`CalibrationError` (a ``ValueError``) with a message meant for the user.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from vision.config import CHARUCO, CameraConfig, CharucoSpec

MIN_VIEWS = 8            # refuse to calibrate from fewer
K3_MIN_VIEWS = 12        # a free k3 needs at least this many views ...
K3_SIGNIFICANCE = 3.0    # ... and |k3| at least this many of its standard deviations
MIN_CORNERS = 6          # a view with fewer chessboard corners is not used
GOOD_COVERAGE = 0.75     # below this, warn (fraction of a 4x4 grid of image cells)
GRID = 4

Progress = Callable[[int, int], None]


class CalibrationError(ValueError):
    """Calibration is impossible or refused; the message says why and what to do."""


@dataclass(frozen=True, eq=False)
class BoardView:
    """The board's chessboard corners found in one image: ``corners`` (n, 1, 2) float32
    pixels and ``ids`` (n, 1) int32 (the board's corner numbers)."""

    corners: np.ndarray
    ids: np.ndarray
    image_size: tuple[int, int]
    source: str = ""

    def __len__(self) -> int:
        return len(self.ids)


# --------------------------------------------------------------------------------------
# Detection


@functools.lru_cache(maxsize=4)
def _detector(spec: CharucoSpec) -> tuple[cv2.aruco.CharucoBoard, cv2.aruco.CharucoDetector]:
    board = spec.board()
    return board, cv2.aruco.CharucoDetector(board)


def detect_board(image: np.ndarray, spec: CharucoSpec = CHARUCO,
                 source: str = "") -> BoardView | None:
    """The board's corners in ``image`` (BGR or grey), or None when fewer than
    :data:`MIN_CORNERS` are found."""
    if image is None or image.size == 0:
        return None
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    h, w = gray.shape[:2]
    if spec.kind == "chessboard":
        return _detect_chessboard(gray, spec, source)
    _, detector = _detector(spec)
    corners, ids, _, _ = detector.detectBoard(gray)
    if ids is None or len(ids) < MIN_CORNERS:
        return None
    return BoardView(np.asarray(corners, np.float32).reshape(-1, 1, 2),
                     np.asarray(ids, np.int32).reshape(-1, 1), (int(w), int(h)), source)


def _detect_chessboard(gray: np.ndarray, spec: CharucoSpec, source: str) -> BoardView | None:
    """A plain chessboard's inner corners (all of them, or none: a chessboard without
    markers cannot say which corner is which when part of it is hidden)."""
    pattern = spec.inner_corners
    found, corners = cv2.findChessboardCornersSB(gray, pattern, flags=cv2.CALIB_CB_ACCURACY)
    if not found:
        found, corners = cv2.findChessboardCorners(gray, pattern, flags=cv2.CALIB_CB_ADAPTIVE_THRESH
                                                   | cv2.CALIB_CB_NORMALIZE_IMAGE
                                                   | cv2.CALIB_CB_FAST_CHECK)
        if not found:
            return None
        corners = cv2.cornerSubPix(gray, corners, (5, 5), (-1, -1),
                                   (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 40, 0.01))
    n = pattern[0] * pattern[1]
    h, w = gray.shape[:2]
    return BoardView(np.asarray(corners, np.float32).reshape(-1, 1, 2),
                     np.arange(n, dtype=np.int32).reshape(-1, 1), (int(w), int(h)), source)


# --------------------------------------------------------------------------------------
# Coverage

_ROWS = ("top", "upper middle", "lower middle", "bottom")
_COLS = ("left", "centre-left", "centre-right", "right")


def _cells(views: Iterable[BoardView], image_size: tuple[int, int]) -> np.ndarray:
    w, h = image_size
    seen = np.zeros((GRID, GRID), bool)
    for v in views:
        pts = v.corners.reshape(-1, 2)
        cx = np.clip((pts[:, 0] / w * GRID).astype(int), 0, GRID - 1)
        cy = np.clip((pts[:, 1] / h * GRID).astype(int), 0, GRID - 1)
        seen[cy, cx] = True
    return seen


def coverage(views: Sequence[BoardView], image_size: tuple[int, int]) -> float:
    """The fraction of a 4x4 grid of image cells in which some view had a corner."""
    return float(_cells(views, image_size).mean())


def _region_names(seen: np.ndarray) -> list[str]:
    """Plain names of the unseen parts of the image: corners, edges, centre."""
    last = GRID - 1
    names: list[str] = []
    for (r, c), name in (((0, 0), "top-left corner"), ((0, last), "top-right corner"),
                         ((last, 0), "bottom-left corner"),
                         ((last, last), "bottom-right corner")):
        if not seen[r, c]:
            names.append(name)
    edges = (("top edge", [(0, c) for c in range(1, last)]),
             ("bottom edge", [(last, c) for c in range(1, last)]),
             ("left edge", [(r, 0) for r in range(1, last)]),
             ("right edge", [(r, last) for r in range(1, last)]),
             ("centre", [(r, c) for r in range(1, last) for c in range(1, last)]))
    for name, cells in edges:
        missing = [rc for rc in cells if not seen[rc]]
        if len(missing) == len(cells):
            names.append(name)
        else:
            names += [f"{_ROWS[r]} {_COLS[c]} part" for r, c in missing]
    return names


def coverage_warning(views: Sequence[BoardView], image_size: tuple[int, int]) -> str | None:
    """A warning naming where the board was never seen, when coverage is below
    :data:`GOOD_COVERAGE`; None otherwise."""
    seen = _cells(views, image_size)
    frac = float(seen.mean())
    if frac >= GOOD_COVERAGE:
        return None
    names = _region_names(seen)
    return (f"the board was never seen in the {', the '.join(names)} of the image "
            f"(coverage {frac:.0%}): the calibration may be wrong there; show the board "
            "there too")


# --------------------------------------------------------------------------------------
# Calibration


def k3_decision(views: Sequence[BoardView], image_size: tuple[int, int], k3: float,
                k3_sigma: float) -> tuple[bool, str]:
    """(free, why): k3 is left free only when the views can pin it down: at least
    :data:`K3_MIN_VIEWS` of them, every corner of the image reached (k3 acts mostly
    there), and the free fit's k3 at least :data:`K3_SIGNIFICANCE` standard deviations
    from 0. Otherwise a free k3 only fits noise (the RMS barely changes) and bends the
    camera where the board never went."""
    seen = _cells(views, image_size)
    corners_seen = all(seen[r, c] for r, c in ((0, 0), (0, GRID - 1), (GRID - 1, 0),
                                               (GRID - 1, GRID - 1)))
    if len(views) < K3_MIN_VIEWS:
        return False, f"fixed at 0: {len(views)} views (a free k3 needs {K3_MIN_VIEWS} or more)"
    if not corners_seen:
        return False, "fixed at 0: the board never reached every corner of the image"
    if not np.isfinite(k3_sigma) or abs(k3) < K3_SIGNIFICANCE * k3_sigma:
        return False, (f"fixed at 0: the views do not pin it down (k3 {k3:.3g} ± "
                       f"{k3_sigma:.2g})")
    return True, f"free: the views pin it down (k3 {k3:.3g} ± {k3_sigma:.2g})"


def calibrate(views: Sequence[BoardView], image_size: tuple[int, int], *,
              spec: CharucoSpec = CHARUCO, fix_k3: bool | None = None,
              progress: Progress | None = None,
              decision: dict | None = None) -> CameraConfig:
    """Intrinsics and distortion (k1, k2, p1, p2, k3) from board views.

    Raises :class:`CalibrationError` with fewer than :data:`MIN_VIEWS` usable views (a
    view is usable with at least :data:`MIN_CORNERS` corners). ``fix_k3``: None (the
    default) lets the views decide (:func:`k3_decision`); True or False forces it. The
    decision and its reason are written into ``decision`` (keys ``k3``, ``k3_reason``)
    when given. ``progress(done, total)`` is called as views are prepared and once more
    when the solve is over. The result's ``reprojection_error_px`` is the RMS
    reprojection error, ``views`` the number used."""
    usable = [v for v in views if v is not None and len(v) >= MIN_CORNERS]
    total = len(usable) + 1
    if len(usable) < MIN_VIEWS:
        raise CalibrationError(
            f"{len(usable)} view{'' if len(usable) == 1 else 's'} with the board found: at "
            f"least {MIN_VIEWS} are needed; show the board in more places and angles")
    w, h = int(image_size[0]), int(image_size[1])
    obj_pts, img_pts = [], []
    for i, v in enumerate(usable):
        if tuple(v.image_size) != (w, h):
            where = f" ({v.source})" if v.source else ""
            raise CalibrationError(
                f"a view{where} is {v.image_size[0]}x{v.image_size[1]} but the calibration is "
                f"for {w}x{h}: all views must come from the same camera and resolution")
        obj = spec.object_points(v.ids)
        obj_pts.append(np.asarray(obj, np.float32).reshape(-1, 1, 3))
        img_pts.append(np.asarray(v.corners, np.float32).reshape(-1, 1, 2))
        if progress:
            progress(i + 1, total)
    if len(obj_pts) < MIN_VIEWS:
        raise CalibrationError(
            f"{len(obj_pts)} views with the board found: at least {MIN_VIEWS} are needed; "
            "show the board in more places and angles")
    if fix_k3 is None:
        rms, k, dist, _, _, std, _, _ = cv2.calibrateCameraExtended(
            obj_pts, img_pts, (w, h), None, None)
        dist = np.asarray(dist).ravel()
        std = np.asarray(std).ravel()
        free, why = k3_decision(usable, (w, h), float(dist[4]), float(std[8]))
        if not free:
            rms, k, dist, _, _ = cv2.calibrateCamera(obj_pts, img_pts, (w, h), None, None,
                                                     flags=cv2.CALIB_FIX_K3)
    else:
        free, why = (not fix_k3), ("fixed at 0 (asked)" if fix_k3 else "free (asked)")
        rms, k, dist, _, _ = cv2.calibrateCamera(obj_pts, img_pts, (w, h), None, None,
                                                 flags=cv2.CALIB_FIX_K3 if fix_k3 else 0)
    if decision is not None:
        decision.update(k3="free" if free else "fixed", k3_reason=why)
    if progress:
        progress(total, total)
    if not np.all(np.isfinite(k)) or not np.all(np.isfinite(dist)):
        raise CalibrationError("the calibration did not converge: use sharper images of the "
                               "board, seen at several angles")
    cam = CameraConfig.from_arrays((w, h), k, np.asarray(dist).ravel(), rms, len(obj_pts))
    bad = cam.validate()
    if bad:
        raise CalibrationError(f"the calibration gave an impossible camera ({bad[1]}): use "
                               "more views of the board, at several angles")
    return cam


def _report(cam: CameraConfig, views: Sequence[BoardView], image_size: tuple[int, int],
            **extra) -> dict:
    warnings = list(extra.pop("warnings", []))
    note = coverage_warning(views, image_size)
    if note:
        warnings.append(note)
    if cam.reprojection_error_px is not None and cam.reprojection_error_px > 1.0:
        warnings.append(f"the reprojection error is {cam.reprojection_error_px:.2f} px (more "
                        "than 1 px): blurred images or a board that is not flat?")
    return {"views": len(views), "rms_px": cam.reprojection_error_px,
            "coverage": round(coverage(views, image_size), 3), **extra,
            "warnings": warnings}


def _read_image(path: Path) -> tuple[np.ndarray | None, str]:
    """(image, "") or (None, why) for a file that cannot be read as an image."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None, "no such file"
    except IsADirectoryError:
        return None, "a directory, not an image"
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc})"
    if not data:
        return None, "empty file"
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if img is None or img.size == 0:
        return None, "not an image, or a corrupt one"
    return img, ""


def _not_enough(n_views: int, n_images: int, spec: CharucoSpec) -> CalibrationError:
    if n_views == 0:
        return CalibrationError(
            f"the board was not found in any of the {n_images} image"
            f"{'' if n_images == 1 else 's'}: expected {spec.describe()}; for another board "
            "give its --board, --squares, --square, --marker and --dictionary")
    return CalibrationError(
        f"{n_views} view{'' if n_views == 1 else 's'} with the board found (in {n_images} "
        f"images, looking for {spec.describe()}): at least {MIN_VIEWS} are needed; show the "
        "board in more places and angles")


def calibrate_images(paths: Sequence[str | Path], spec: CharucoSpec = CHARUCO,
                     progress: Progress | None = None, *,
                     fix_k3: bool | None = None) -> tuple[CameraConfig, dict]:
    """Calibrate from image files. Files that cannot be read (missing, empty, corrupt)
    or whose size differs from the first image's are refused, every such file named
    in the :class:`CalibrationError`; images in which the board is not found are skipped
    and listed in the report.

    ``progress(done, total)`` follows the images read. Returns the camera and a report:
    ``images``, ``views``, ``skipped`` (file names without the board), ``rms_px``,
    ``coverage`` and ``warnings`` (sentences for the user)."""
    files = [Path(p) for p in paths]
    if not files:
        raise CalibrationError("no images given: take at least "
                               f"{MIN_VIEWS} pictures of the calibration board")
    unreadable: list[str] = []
    size: tuple[int, int] | None = None
    first = ""
    views: list[BoardView] = []
    skipped: list[str] = []
    for i, path in enumerate(files):
        img, why = _read_image(path)
        if img is None:
            unreadable.append(f"{path} ({why})")
        else:
            h, w = img.shape[:2]
            if size is None:
                size, first = (w, h), str(path)
            elif (w, h) != size:
                raise CalibrationError(
                    f"{path} is {w}x{h} but {first} is {size[0]}x{size[1]}: all images "
                    "must come from the same camera at the same resolution")
            view = detect_board(img, spec, str(path))
            if view is None:
                skipped.append(str(path))
            else:
                views.append(view)
        if progress:
            progress(i + 1, len(files))
    if unreadable:
        raise CalibrationError(
            f"{len(unreadable)} image file{'' if len(unreadable) == 1 else 's'} could not be "
            f"read: {'; '.join(unreadable)}")
    assert size is not None
    if len(views) < MIN_VIEWS:
        raise _not_enough(len(views), len(files), spec)
    decision: dict = {}
    cam = calibrate(views, size, spec=spec, fix_k3=fix_k3, decision=decision)
    warnings = []
    if skipped:
        warnings.append(f"the board was not found in {len(skipped)} image"
                        f"{'' if len(skipped) == 1 else 's'}: {', '.join(skipped)}")
    return cam, _report(cam, views, size, images=len(files), skipped=skipped,
                        board=spec.describe(), **decision, warnings=warnings)


# --------------------------------------------------------------------------------------
# Live


class FrameSource(Protocol):
    def read(self) -> tuple[bool, np.ndarray | None]: ...


def board_signature(view: BoardView, spec: CharucoSpec = CHARUCO) -> np.ndarray | None:
    """Where the board's four outer corners appear (4, 2), divided by the image diagonal:
    from the homography between the board plane and the image. Two views whose signatures
    are close show the board in about the same pose. None if it cannot be computed."""
    if len(view) < 4:
        return None
    obj = spec.object_points(view.ids)
    hmat, _ = cv2.findHomography(np.asarray(obj, np.float64).reshape(-1, 3)[:, :2],
                                 np.asarray(view.corners, np.float64).reshape(-1, 2))
    if hmat is None:
        return None
    bw, bh = spec.squares_x * spec.square_in, spec.squares_y * spec.square_in
    outline = np.array([[0, 0], [bw, 0], [bw, bh], [0, bh]], np.float64).reshape(-1, 1, 2)
    pts = cv2.perspectiveTransform(outline, hmat).reshape(4, 2)
    w, h = view.image_size
    return pts / float(np.hypot(w, h))


@dataclass
class _LiveState:
    views: list[BoardView] = field(default_factory=list)
    signatures: list[np.ndarray] = field(default_factory=list)
    frames: int = 0
    without_board: int = 0
    similar: int = 0


def calibrate_live(capture: FrameSource | int, n_views: int = 20,
                   spec: CharucoSpec = CHARUCO, *, min_change: float = 0.06,
                   max_frames: int = 3000, progress: Progress | None = None,
                   on_frame: Callable[[np.ndarray, BoardView | None, bool], None] | None = None,
                   should_stop: Callable[[], bool] | None = None,
                   fix_k3: bool | None = None) -> tuple[CameraConfig, dict]:
    """Calibrate from a live camera: ``capture`` is a device index (opened with
    ``cv2.VideoCapture``) or anything with ``read() -> (ok, frame)``.

    A frame is kept as a view when the board is found and its pose differs from every
    view already kept: the mean displacement of the board's outer corners (see
    :func:`board_signature`) is at least ``min_change`` of the image diagonal. Stops at
    ``n_views`` views, at the end of the stream, after ``max_frames`` frames or when
    ``should_stop()`` says so; then calibrates (at least :data:`MIN_VIEWS` views needed).
    ``progress(kept, n_views)`` is called for each view kept; ``on_frame(frame, view,
    kept)`` for every frame (to show it). Returns like :func:`calibrate_images`."""
    opened = None
    if isinstance(capture, int):
        opened = cv2.VideoCapture(capture)
        if not opened.isOpened():
            raise CalibrationError(f"camera {capture} could not be opened")
        source: FrameSource = opened
    else:
        source = capture
    state = _LiveState()
    size: tuple[int, int] | None = None
    try:
        while len(state.views) < n_views and state.frames < max_frames:
            if should_stop and should_stop():
                break
            ok, frame = source.read()
            if not ok or frame is None:
                break
            state.frames += 1
            h, w = frame.shape[:2]
            if size is None:
                size = (w, h)
            elif (w, h) != size:
                raise CalibrationError(f"the camera's frame size changed from {size[0]}x"
                                       f"{size[1]} to {w}x{h} during calibration")
            view = detect_board(frame, spec, f"frame {state.frames}")
            kept = False
            if view is None:
                state.without_board += 1
            else:
                sig = board_signature(view, spec)
                if sig is not None and all(
                        float(np.linalg.norm(sig - s, axis=1).mean()) >= min_change
                        for s in state.signatures):
                    state.views.append(view)
                    state.signatures.append(sig)
                    kept = True
                    if progress:
                        progress(len(state.views), n_views)
                else:
                    state.similar += 1
            if on_frame:
                on_frame(frame, view, kept)
    finally:
        if opened is not None:
            opened.release()
    if size is None:
        raise CalibrationError("no frames came from the camera")
    if len(state.views) < MIN_VIEWS:
        if not state.views:
            raise CalibrationError(
                f"the board was not found in any of the {state.frames} frames: expected "
                f"{spec.describe()}")
        raise CalibrationError(
            f"{len(state.views)} view{'' if len(state.views) == 1 else 's'} with the board "
            f"found: at least {MIN_VIEWS} are needed; show the board in more places and angles")
    decision: dict = {}
    cam = calibrate(state.views, size, spec=spec, fix_k3=fix_k3, decision=decision)
    return cam, _report(cam, state.views, size, frames=state.frames,
                        without_board=state.without_board, similar=state.similar,
                        board=spec.describe(), **decision)
