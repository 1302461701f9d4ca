"""The dice reader measured on real, labelled photographs it was not tuned on.

The labelled set is ``byler-train`` (``../shared/dice-photos/byler-train``: 200 phone
photographs of pip D6 dice in a tray, 1,487 dice, each die's face and box; its README gives
source and licence). It is split by photograph, once and for all, into a part a developer may
tune on and a part only ever measured (:func:`held_out`): a photograph belongs to the held-out
part when the SHA-256 of its file name falls in the lowest fifth. The rule needs no list, and
a photograph added later falls on one side without moving the others.

:func:`evaluate` reads each photograph with a reader function and scores every labelled die
against the readings: read clean with the right face, read clean with a wrong face (the one
number that must stay near zero), flagged (``cocked`` or ``unreadable``), or missed (no
reading near it); readings near no labelled die are counted apart.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from .model import DieReading

HELD_OUT_FIFTHS = 1          # one fifth of the photographs is only ever measured
REPO = Path(__file__).resolve().parents[2]
DEFAULT_SET = REPO.parent / "shared" / "dice-photos" / "byler-train"

Reader = Callable[[np.ndarray], list[DieReading]]


class PhotoSetError(ValueError):
    """A labelled set that cannot be read: names the file and the key at fault."""


def held_out(name: str) -> bool:
    """True when photograph ``name`` (its file name) is in the part never tuned on."""
    digest = hashlib.sha256(Path(name).name.encode("utf-8")).digest()
    return digest[0] * 5 // 256 < HELD_OUT_FIFTHS


# Corrections to the tuning part's labels, each checked by eye on a 6x crop (the held-out
# part is measured as labelled: never corrected from what a reader says). photo: {die index:
# the face really up}; "add": dice the labels lack, (face, x, y, size).
TUNING_LABEL_FIXES: dict[str, dict[str, object]] = {
    "IMG_20191208_111246.jpg": {"faces": {0: "3"}},     # a blue die with three red pips
    "IMG_20191208_112342.jpg": {"faces": {16: "3"},     # a black die with three white pips
                                "add": [("3", 270.0, 151.0, 36.0)]},   # a teal 3, unlabelled
    "IMG_20191209_095954.jpg": {"faces": {2: "3"}},     # a teal die with three yellow pips
}


@dataclass(frozen=True)
class LabelledDie:
    face: str
    x: float
    y: float
    size: float          # the label box's side in pixels


@dataclass(frozen=True)
class LabelledPhoto:
    path: Path
    dice: tuple[LabelledDie, ...]


def load(folder: Path = DEFAULT_SET, part: str = "held_out") -> list[LabelledPhoto]:
    """The photographs of ``part`` (``held_out``, ``tune`` or ``all``) with their labels."""
    labels_path = folder / "labels.json"
    try:
        labels = json.loads(labels_path.read_text())
    except FileNotFoundError:
        raise PhotoSetError(f"{labels_path}: not found (see ../shared/dice-photos/README.md)") from None
    except json.JSONDecodeError as exc:
        raise PhotoSetError(f"{labels_path}: line {exc.lineno}: not JSON ({exc.msg})") from None
    if part not in ("held_out", "tune", "all"):
        raise PhotoSetError(f"part: held_out, tune or all, not {part!r}")
    out = []
    for name in sorted(labels):
        if part != "all" and held_out(name) != (part == "held_out"):
            continue
        entry = labels[name]
        dice = []
        for i, d in enumerate(entry.get("dice", [])):
            try:
                x0, y0, x1, y1 = (float(v) for v in d["box_xyxy"])
                dice.append(LabelledDie(str(d["face"]), float(d["x"]), float(d["y"]),
                                        max(x1 - x0, y1 - y0)))
            except (KeyError, TypeError, ValueError):
                raise PhotoSetError(f"{labels_path}: {name}: dice[{i}]: needs face, x, y and "
                                    "box_xyxy") from None
        fixes = TUNING_LABEL_FIXES.get(Path(name).name) if not held_out(name) else None
        if fixes:
            faces = fixes.get("faces", {})
            assert isinstance(faces, dict)
            dice = [LabelledDie(str(faces.get(i, d.face)), d.x, d.y, d.size) for i, d in enumerate(dice)]
            dice += [LabelledDie(*extra) for extra in fixes.get("add", [])]  # type: ignore[attr-defined]
        out.append(LabelledPhoto(folder / name, tuple(dice)))
    return out


IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")


def source_of(name: str) -> str:
    """The photograph a file of a YOLO-format export was made from: Roboflow names its copies
    ``SOURCE_jpg.rf.HASH.jpg``, several of one source in one set, so a set is split by source
    (every copy of a photograph on the same side)."""
    stem = Path(name).stem
    for mark in ("_jpg.rf.", "_jpeg.rf.", "_png.rf."):
        if mark in stem:
            return stem.split(mark)[0]
    return stem


def load_yolo(folder: Path, part: str = "held_out", exclude: Collection[str] = (),
              exclude_prefixes: tuple[str, ...] = ()) -> list[LabelledPhoto]:
    """The photographs of ``part`` of a labelled set in YOLO's format (as Roboflow exports it:
    ``[split/]images/NAME.jpg`` beside ``[split/]labels/NAME.txt``, one die a line, ``CLASS CX
    CY W H`` in fractions of the picture, class 0 the face 1 up to class 5 the face 6). Split
    like byler-train, by the SHA-256 of each photograph's source name (:func:`source_of`).
    ``exclude``: source names left out (Rune55 holds copies of byler-train's photographs,
    which the networks learned from: :func:`byler_sources`). ``exclude_prefixes``: sources
    whose names begin so are left out too (the other photographs of byler-train's sessions:
    :func:`byler_sessions`)."""
    if part not in ("held_out", "tune", "all"):
        raise PhotoSetError(f"part: held_out, tune or all, not {part!r}")
    images = sorted(p for p in folder.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES
                    and p.parent.name == "images")
    if not images:
        raise PhotoSetError(f"{folder}: no images/ folder of pictures (YOLO format)")
    out = []
    for image in images:
        source = source_of(image.name)
        if source in exclude or source.startswith(exclude_prefixes) or (
                part != "all" and held_out(source) != (part == "held_out")):
            continue
        label = image.parent.parent / "labels" / (image.stem + ".txt")
        try:
            lines = label.read_text().splitlines()
        except OSError as exc:
            raise PhotoSetError(f"{label}: cannot read it ({exc.strerror or exc})") from None
        h, w = _image_size(image)
        dice = []
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                c, cx, cy, bw, bh = line.split()
                face = int(c) + 1
                if not 1 <= face <= 6:
                    raise ValueError
                dice.append(LabelledDie(str(face), float(cx) * w, float(cy) * h,
                                        max(float(bw) * w, float(bh) * h)))
            except ValueError:
                raise PhotoSetError(f"{label}: line {n}: expected CLASS (0-5) CX CY W H, not "
                                    f"{line.strip()!r}") from None
        out.append(LabelledPhoto(image, tuple(dice)))
    return out


def byler_sources(folder: Path = DEFAULT_SET) -> set[str]:
    """The names (without suffix) of byler-train's photographs, where the set is."""
    try:
        return {Path(n).stem for n in json.loads((folder / "labels.json").read_text())}
    except (OSError, ValueError):
        return set()


def byler_sessions(folder: Path = DEFAULT_SET) -> tuple[str, ...]:
    """The sessions byler-train's photographs were taken in, as name prefixes (``IMG_`` and
    the date: its names are a phone's ``IMG_YYYYMMDD_HHMMSS``). Rune55 holds other
    photographs of those sessions (the original set's other splits): the same tray and dice
    moments apart, so neither another camera's nor fit to learn from beside byler's held-out
    part."""
    return _sessions_of(byler_sources(folder))


def _sessions_of(names: Collection[str]) -> tuple[str, ...]:
    return tuple(sorted({n[:13] for n in names if re.fullmatch(r"IMG_\d{8}_\d{6}", n)}))


def load_other_camera(folder: Path, part: str = "held_out", byler: Path = DEFAULT_SET
                      ) -> list[LabelledPhoto]:
    """:func:`load_yolo` of a set from other cameras (Rune55), byler-train's photographs and
    the other photographs of its sessions left out (:func:`byler_sources`,
    :func:`byler_sessions`)."""
    names = byler_sources(byler)
    return load_yolo(folder, part, exclude=names, exclude_prefixes=_sessions_of(names))


def _image_size(path: Path) -> tuple[int, int]:
    frame = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if frame is None:
        raise PhotoSetError(f"{path}: not an image OpenCV can read")
    return frame.shape[0], frame.shape[1]


@dataclass
class Score:
    photos: int = 0
    dice: int = 0
    clean_right: int = 0
    clean_wrong: int = 0
    flagged: int = 0
    missed: int = 0
    extra_clean: int = 0      # clean readings near no labelled die
    read_ms: list[float] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)   # "photo: a 3 read clean as 5"

    def figures(self) -> dict[str, float | int]:
        n = max(self.dice, 1)
        times = sorted(self.read_ms) or [0.0]
        return {"photos": self.photos, "dice": self.dice,
                "clean_right_rate": round(self.clean_right / n, 4),
                "wrong_clean_rate": round(self.clean_wrong / n, 4),
                "flagged_rate": round(self.flagged / n, 4),
                "missed_rate": round(self.missed / n, 4),
                "extra_clean_readings": self.extra_clean,
                "read_ms_median": round(times[len(times) // 2], 1),
                "read_ms_p95": round(times[min(len(times) - 1, int(0.95 * len(times)))], 1)}


def match(dice: Sequence[LabelledDie], points: Sequence[tuple[float, float]]) -> list[int | None]:
    """For each labelled die in turn, the index of the nearest point (x, y) within half its box
    that no die before it took, or None: a point serves one die at most."""
    used: set[int] = set()
    out: list[int | None] = []
    for die in dice:
        best, best_d = None, die.size / 2
        for i, (x, y) in enumerate(points):
            d = math.hypot(x - die.x, y - die.y)
            if i not in used and d <= best_d:
                best, best_d = i, d
        if best is not None:
            used.add(best)
        out.append(best)
    return out


def score_photo(photo: LabelledPhoto, readings: Iterable[DieReading], score: Score) -> None:
    """Each labelled die takes the nearest reading within half its box (:func:`match`)."""
    readings = list(readings)
    matched = match(photo.dice, [(r.x, r.y) for r in readings])
    used = {i for i in matched if i is not None}
    score.photos += 1
    for die, best in zip(photo.dice, matched):
        score.dice += 1
        if best is None:
            score.missed += 1
            continue
        r = readings[best]
        if r.status != "clean":
            score.flagged += 1
        elif r.face == die.face:
            score.clean_right += 1
        else:
            score.clean_wrong += 1
            score.wrong.append(f"{photo.path.name}: a {die.face} at ({die.x:.0f}, {die.y:.0f}) "
                               f"read clean as {r.face}")
    score.extra_clean += sum(1 for i, r in enumerate(readings)
                             if i not in used and r.status == "clean")


def close_cuts(photos: Iterable[LabelledPhoto], share: float, side: int = 256
               ) -> Iterable[tuple[np.ndarray, LabelledPhoto]]:
    """Each labelled die photographed close: a square around it ``share`` of its side a die
    (1/3: the die a third of the picture), scaled to ``side`` pixels, with that die alone
    as its label (the dice around it, cut by the picture's edge, are not scored). Dice too
    near their photograph's edge for the square are left out."""
    for photo in photos:
        frame = cv2.imread(str(photo.path))
        if frame is None:
            raise PhotoSetError(f"{photo.path}: not an image OpenCV can read")
        h, w = frame.shape[:2]
        for k, die in enumerate(photo.dice):
            cut = int(die.size / share)
            x0, y0 = int(die.x - cut / 2), int(die.y - cut / 2)
            if x0 < 0 or y0 < 0 or x0 + cut > w or y0 + cut > h:
                continue
            k_ = side / cut
            image = cv2.resize(frame[y0:y0 + cut, x0:x0 + cut], (side, side),
                               interpolation=cv2.INTER_CUBIC)
            yield image, LabelledPhoto(photo.path.with_name(f"{photo.path.stem}-die{k}.png"), (
                LabelledDie(die.face, (die.x - x0) * k_, (die.y - y0) * k_, die.size * k_),))


def far_canvases(photos: Iterable[LabelledPhoto], times: int
                 ) -> Iterable[tuple[np.ndarray, LabelledPhoto]]:
    """Each photograph set in the middle of a canvas ``times`` as wide and as high, of the
    photograph's median colour: the same dice, small in a larger picture (a phone
    photograph of a table), labelled where they now lie."""
    for photo in photos:
        frame = cv2.imread(str(photo.path))
        if frame is None:
            raise PhotoSetError(f"{photo.path}: not an image OpenCV can read")
        h, w = frame.shape[:2]
        canvas = np.empty((h * times, w * times, 3), np.uint8)
        canvas[:] = np.median(frame.reshape(-1, 3), axis=0).astype(np.uint8)
        oy, ox = (canvas.shape[0] - h) // 2, (canvas.shape[1] - w) // 2
        canvas[oy:oy + h, ox:ox + w] = frame
        yield canvas, LabelledPhoto(photo.path, tuple(
            LabelledDie(d.face, d.x + ox, d.y + oy, d.size) for d in photo.dice))


def evaluate_images(reader: Reader, images: Iterable[tuple[np.ndarray, LabelledPhoto]],
                    extra: bool = False) -> Score:
    """:func:`evaluate` of pictures already made (:func:`close_cuts`). ``extra``: count the
    clean readings near no labelled die (not in close cuts: they are the cut neighbours)."""
    score = Score()
    for frame, photo in images:
        t0 = time.perf_counter()
        readings = reader(frame)
        score.read_ms.append((time.perf_counter() - t0) * 1000)
        before = score.extra_clean
        score_photo(photo, readings, score)
        if not extra:
            score.extra_clean = before
    return score


def evaluate(reader: Reader, photos: Iterable[LabelledPhoto]) -> Score:
    def images() -> Iterable[tuple[np.ndarray, LabelledPhoto]]:
        for photo in photos:
            frame = cv2.imread(str(photo.path))
            if frame is None:
                raise PhotoSetError(f"{photo.path}: not an image OpenCV can read")
            yield frame, photo

    return evaluate_images(reader, images(), extra=True)
