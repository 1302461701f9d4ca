"""A dice profile: what one tower's camera has learned. The empty tray, the kinds of dice
taught (faces, shape, size, example crops of each face) and the colours taught.

On disk: ``NAME.yaml`` plus a folder ``NAME.d/`` beside it holding the images (the empty
tray's mean as PNG, each taught face as a 64x64 greyscale PNG crop). The YAML carries a
version (``dice_profile: 1``); anything damaged or missing is named with the file, the key
path and the line. Format: ``docs/vision.md``.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import re
import struct
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np
import yaml

from .model import DiceError, ProfileError

if TYPE_CHECKING:
    from .segment import Background, Blob

VERSION = 1
# How the taught colours were measured (the YAML's ``colour_measure``; a profile saved before it
# was kept has none: 1). 1: a die's brightness and hue (log B/G, log R/G) as ratios to the empty
# tray under it. 2 (since 2026-12-06): the hue is the die's own, in the frame balanced to the
# empty tray's light; the brightness stays a ratio to the tray under it. On a patterned tray
# (another renderer's pink and purple camouflage) the tray's own hue changes from patch to
# patch, and a die's ratio to it with it: green D12s and ivory pip dice were named black. The
# light's colour, which the ratio was to cancel, is the same over a tray: the frame's balance
# to the empty tray cancels it. On the 36 tuning towers of five renderers (bench/tower_sets.py
# tuning, and 20 more rendered for it), colours named right 99.58 -> 99.87 %, 97.86 -> 98.51 %
# and 98.12 % either way (docs/vision.md, "A die's own hue"). A profile keeps the measure its
# colours were taught with (teaching more colours into it included).
COLOUR_MEASURE = 2
MIN_EXAMPLES = 3  # a face is known when it has been seen this many times
PATCH_FACTOR = 0.68  # the compared disc, over the radius of a disc of the top face's area
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
READY_FILE = "examples.npz"  # the examples' crops, ready to use (in PROFILE.d/)

PIPS = "d6pips"
# Kinds the games use, with their faces (a new kind is declared with its faces when taught)
KNOWN_KINDS: dict[str, tuple[str, ...]] = {
    PIPS: tuple("123456"),
    "d12": tuple(str(i) for i in range(1, 13)),
    "kotd": ("CLAW", "HEART", "ENERGY", "FAME", "DESTRUCTION", "POWER"),
    "spawn": ("TILE_UNDER_YOU", "POWER_UP_ON_SPAWN", "TILE_ON_SPAWN", "TILE_ON_SPAWN_2",
              "NO_SPAWN", "NO_SPAWN_2"),
}
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")


@dataclass
class KindModel:
    name: str
    faces: tuple[str, ...]
    shape: str | None = None  # "square" | "round", from the examples
    size_px: float | None = None  # sqrt of a flat die's silhouette area
    # the compared disc of the top face: the median of ``patch_radii``, or (a profile taught
    # before they were kept) the first picture's, which every picture is cut at
    patch_radius_px: float | None = None
    # each taught picture's own disc (PATCH_FACTOR times the radius of a disc of its top face's
    # area), in the order taught; its crop is cut at it. One picture whose die was found in
    # pieces or with its shadow no longer sets the scale of every picture and every read
    patch_radii: list[float] = field(default_factory=list)
    examples: dict[str, list[np.ndarray]] = field(default_factory=dict)  # face -> crops
    sizes: list[float] = field(default_factory=list)
    shapes: list[str] = field(default_factory=list)
    sharpness: list[float] = field(default_factory=list)  # of each taught picture's die
    # how likely the tilt network (vision/dice/tilt.py) found each taught picture's die
    # tilted: flat dice as this tower's camera shows them (DiceReader: a tower whose flat dice
    # look tilted needs more to call one tilted). A die taught from a throw is one the reader
    # did not call tilted (the tower offers no other): its answer is, if anything, low
    leaning: list[float] = field(default_factory=list)
    # whether the tilt rules (tiltrules.outline_tilted) call each taught picture's die tilted by
    # its outline: flat dice as this tower's camera shows them, to the rules (with ``sizes``
    # and ``shapes``: reader.rules_share; a tower whose flat dice the rules call tilted needs
    # more of the network to confirm them)
    looks_tilted: list[bool] = field(default_factory=list)
    colours: list[str] = field(default_factory=list)  # the colours it was taught in
    # the examples' edge-direction features at every turn (features.gradient_bank), in the
    # order of ``examples`` (faces, then crops): worked out when first needed, or read ready
    # from PROFILE.d/examples.npz; None when not yet worked out or an example was added
    _gradients: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False,
                                                            compare=False)
    # the examples' taught-face vectors (vision/dice/taught.py), the same order; None when
    # not yet worked out, an example was added, or the network is missing
    _vectors: np.ndarray | None = field(default=None, repr=False, compare=False)
    _alike: tuple[int, float | None] | None = field(default=None, repr=False, compare=False)

    # what teaching a picture changes in a kind (:meth:`Profile.add_example`): every field but
    # its name and faces, and the caches worked out from them
    TAUGHT = ("shape", "size_px", "patch_radius_px", "patch_radii", "examples", "sizes",
              "shapes", "sharpness", "leaning", "looks_tilted", "colours")

    def taught_state(self) -> dict:
        """A copy of what teaching a picture changes (:meth:`restore` puts it back: the
        camera tower's undo of a picture taught)."""
        return {name: _copied(getattr(self, name)) for name in self.TAUGHT}

    def restore(self, state: dict) -> None:
        for name in self.TAUGHT:
            setattr(self, name, _copied(state[name]))
        self._gradients = self._vectors = self._alike = None

    def example_crops(self) -> tuple[list[str], list[np.ndarray]]:
        """Every example as (faces, crops), faces repeated: the order the features use."""
        faces, crops = [], []
        for face, cs in self.examples.items():
            for crop in cs:
                faces.append(face)
                crops.append(crop)
        return faces, crops

    def gradients(self) -> tuple[np.ndarray, np.ndarray]:
        """:func:`features.gradient_bank` of the examples (full and coarse: N x turns x
        features)."""
        from .features import gradient_bank
        _, crops = self.example_crops()
        if self._gradients is None or len(self._gradients[0]) != len(crops):
            self._gradients = gradient_bank(np.stack(crops) if crops
                                            else np.zeros((0, 64, 64), np.uint8))
        return self._gradients

    def vectors(self) -> np.ndarray | None:
        """The examples' taught-face vectors (N x 64, :mod:`vision.dice.taught`), or None
        without the network."""
        from .taught import shipped_for_pictures
        _, crops = self.example_crops()
        if self._vectors is None or len(self._vectors) != len(crops):
            net = shipped_for_pictures()
            if net is None:
                return None
            self._vectors = net.embed(crops)
        return self._vectors

    def pictures_alike(self) -> float | None:
        """How alike this kind's taught pictures of one face are to the taught-face vectors:
        the median likeness (cosine) of every two pictures of the same face. Low where the
        tower's camera or light shows a face differently from picture to picture (its top
        face found wrongly: a dark die's shadow or side taken for it). None without the
        network, or without a face taught twice."""
        bank = self.vectors()
        if bank is None or not len(bank):
            return None
        if self._alike is not None and self._alike[0] == len(bank):
            return self._alike[1]  # worked out for these pictures (a read asks for each die)
        faces = np.array(self.example_crops()[0])
        upper = np.triu_indices(len(faces), 1)  # every two pictures once, then those of a face
        same = faces[upper[0]] == faces[upper[1]]
        pairs = (bank @ bank.T)[upper][same]
        self._alike = (len(bank), float(np.median(pairs)) if len(pairs) else None)
        return self._alike[1]

    @property
    def usual_sharpness(self) -> float | None:
        """How sharp this tower's camera shows a die of this kind (the taught pictures'
        median): a die much blurrier than that is in a frame a person finds hard too."""
        return float(np.median(self.sharpness)) if self.sharpness else None

    @property
    def builtin(self) -> bool:
        return self.name == PIPS

    def missing(self, needed: int = MIN_EXAMPLES) -> dict[str, int]:
        """Faces that still need examples, with how many more (none for the pip D6)."""
        if self.builtin:
            return {}
        return {f: needed - len(self.examples.get(f, [])) for f in self.faces
                if len(self.examples.get(f, [])) < needed}


# a taught picture whose die was found this many times larger or smaller than the median
# of the pictures taught with it (ODD_FROM or more: one face, one colour), else of all its
# kind's pictures (once there are ODD_FROM), is pointed out to the player (`dice teach`, and
# the tower's teaching from throws): on the independent renderers' towers such pictures were
# dice found with their shadows or in pieces (docs/vision.md, "A kind's scale is its
# pictures' median")
ODD_SIZE = 1.25
ODD_FROM = 3


def odd_pictures(taught: list[tuple[str, float]], sizes: list[float]
                 ) -> list[tuple[str, float, float]]:
    """The pictures of ``taught`` (name, its die's size) whose die's size is ODD_SIZE or
    more times off the median of their own sizes (where there are ODD_FROM of them: a kind
    taught in two colours may come in two sizes), else of ``sizes`` (all of the kind's
    pictures), with that median."""
    ref = [size for _, size in taught] if len(taught) >= ODD_FROM else sizes
    if len(ref) < ODD_FROM:
        return []
    usual = float(np.median(ref))
    return [(path, size, usual) for path, size in taught
            if not usual / ODD_SIZE < size < usual * ODD_SIZE]


def _copied(value):
    """A copy of a kind's field deep enough that teaching the kind does not change it (its
    lists, and its examples' lists of crops; the crops themselves are never changed)."""
    if isinstance(value, dict):
        return {k: list(v) for k, v in value.items()}
    return list(value) if isinstance(value, list) else value


# A teaching picture in which the segmentation finds more than one part (the far end of a
# long soft shadow, cut off from the die by the shadow's dark core) is still taught where the
# die finder (vision/dice/pips.py, the tower's: it learned dice of every kind) sees a die in
# exactly one part, ONE_DIE_SCORE sure, nothing at all in the others, and the others lie
# beyond the die it sees (ONE_DIE_CLEAR of its size from its centre): pieces of one die (a
# dark die's symbol cut from its body) lie within it and stay refused (docs/vision.md, "A
# teaching picture's far shadow")
ONE_DIE_SCORE = 0.4
ONE_DIE_CLEAR = 0.9


def _the_one_die(frame: np.ndarray, parts: list[Blob]) -> list[Blob]:
    """``parts`` found in a teaching picture (``frame``, as they were found): the one part the
    die finder sees a die in, where it sees none in the others and they lie clear of that die;
    else ``parts`` as they are (refused: a second die, a die in pieces, the finder unsure).
    Looked at at the finder's own scale and at half of it (a die seen close)."""
    from .netrun import ModelError
    from .pips import WORK, Found, shipped_reader

    try:
        finder = shipped_reader(tower=True)
    except ModelError:
        return parts
    base = WORK / max(frame.shape[:2])
    best: dict[int, Found] = {}  # each part's surest die the finder sees in it
    for scale in (base, base / 2):
        for f in finder.find(frame, scale):
            for i, b in enumerate(parts):
                h, w = b.mask.shape
                x, y = int(f.x) - b.x0, int(f.y) - b.y0
                if 0 <= y < h and 0 <= x < w and b.mask[y, x] and (
                        i not in best or f.score > best[i].score):
                    best[i] = f
    if len(best) != 1:
        return parts
    (i, seen), = best.items()
    die = parts[i]
    if seen.score < ONE_DIE_SCORE:
        return parts
    for b in parts:
        ys, xs = np.nonzero(b.mask)
        if b is not die and np.hypot(xs + b.x0 - seen.x, ys + b.y0 - seen.y).min() \
                <= ONE_DIE_CLEAR * seen.size:
            return parts
    return [die]


def _check_name(what: str, name: str) -> None:
    if not isinstance(name, str) or not _NAME.match(name):
        raise DiceError(f"{what} {name!r}: use letters, digits, '_', '-' or '.' (up to 40)")


class Profile:
    """Configured once, then handed to :class:`vision.dice.DiceReader`."""

    def __init__(self) -> None:
        self.background: np.ndarray | None = None  # float32 BGR mean of the empty tray
        self.background_frames = 0
        # the camera's noise at each grey level (segment.noise_curve), from the empty-tray
        # frames added in one go (at least two); None where not known
        self.background_noise: list[float] | None = None
        # the blur every frame of this camera gets before dice are looked for in it
        # (segment.smoothing_for: a noisy camera's), decided with the noise; 0 in a profile
        # saved before it existed, whose examples were taught from frames as they were
        self.background_smoothing = 0.0
        # the empty tray's texture windows (segment.Background.window_stats) the ready file
        # kept, with the background they are of: used only while that is the background
        self._windows: tuple[np.ndarray, tuple[np.ndarray, np.ndarray]] | None = None
        # the tray() last built, with what it was built of (kept while they are the same)
        self._tray: tuple[tuple, tuple, Background] | None = None
        self._empty_frames: list[np.ndarray] = []  # those frames, while this profile is open
        self.kinds: dict[str, KindModel] = {PIPS: KindModel(PIPS, KNOWN_KINDS[PIPS])}
        self.colours: dict[str, list[np.ndarray]] = {}
        # how the colours are measured (COLOUR_MEASURE): a profile taught before keeps its own
        self.colour_measure = COLOUR_MEASURE
        self.path: Path | None = None

    @property
    def own_hue(self) -> bool:
        """Whether a die's hue is measured as its own (COLOUR_MEASURE 2), not against the tray
        under it (1): as its taught colours were."""
        return self.colour_measure >= 2

    @property
    def image_size(self) -> tuple[int, int] | None:
        if self.background is None:
            return None
        return self.background.shape[1], self.background.shape[0]

    # ------------------------------------------------------------ teaching

    def add_background(self, frame: np.ndarray, name: str = "frame") -> None:
        """Fold one empty-tray frame into the background (a running mean). Two or more
        frames added to an open profile also measure the camera's noise (what tells the
        tray's weave from noise: segment.Background)."""
        from .segment import Background, check_frame, noise_curve, smoothing_for

        if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3:
            raise DiceError(f"{name}: not a colour image")
        if self.background is not None:
            check_frame(frame, Background(self.background), name)
        else:
            check_frame(frame, Background(frame.astype(np.float32)), name)
        f = frame.astype(np.float32)
        if self.background is None:
            self.background, self.background_frames = f, 1
        else:
            n = self.background_frames
            self.background = (self.background * n + f) / (n + 1)
            self.background_frames = n + 1
        self._empty_frames.append(frame)
        noise = noise_curve(self._empty_frames)
        if noise is not None:
            self.background_noise = noise
            if not any(m.sizes for m in self.kinds.values()):
                # decided before any die is taught: the pictures taught are smoothed so,
                # and a tray taken again later (another light) leaves them as they were
                self.background_smoothing = smoothing_for(noise, self.background)

    def tray(self) -> Background:
        """The empty tray as the reader sees it (its noise too, where known)."""
        from .segment import Background

        if self.background is None:
            raise DiceError("the profile has no empty tray yet: run `dice background` first")
        kept = self._windows
        windows = kept[1] if kept and kept[0] is self.background else None
        made_of = (self.background, self.background_noise, windows)
        settings = (self.background_frames, self.background_smoothing)
        # built once for the tray as it is: each teaching picture asks for it (a noisy
        # camera's tray is blurred in the building, its texture worked out once used)
        if self._tray is None or self._tray[1] != settings or any(
                a is not b for a, b in zip(self._tray[0], made_of)):
            self._tray = (made_of, settings, Background(
                self.background, self.background_noise, self.background_frames,
                windows=windows, smoothing=self.background_smoothing))
        return self._tray[2]

    def kind(self, kind: str, faces: list[str] | None = None) -> KindModel:
        """The kind's model; a kind the games use is created on first use, a new one needs
        its ``faces``."""
        if kind in self.kinds:
            model = self.kinds[kind]
            if faces and tuple(faces) != model.faces:
                raise DiceError(f"kind {kind!r} already has faces {', '.join(model.faces)}")
            return model
        _check_name("kind", kind)
        if faces is None:
            if kind not in KNOWN_KINDS:
                raise DiceError(f"unknown kind {kind!r}: known kinds are "
                                f"{', '.join(sorted(set(KNOWN_KINDS) | set(self.kinds)))}; "
                                f"a new kind needs its faces (--faces A,B,C)")
            faces = list(KNOWN_KINDS[kind])
        if len(faces) < 2 or len(set(faces)) != len(faces):
            raise DiceError(f"kind {kind!r}: faces must be two or more different names")
        for f in faces:
            _check_name(f"kind {kind!r} face", f)
        model = KindModel(kind, tuple(faces))
        self.kinds[kind] = model
        return model

    def add_example(self, kind: str, face: str, frame: np.ndarray, colour: str | None = None,
                    name: str = "frame", faces: list[str] | None = None,
                    at: tuple[float, float] | None = None) -> None:
        """One labelled example: ``frame`` shows the tray with exactly one die of ``kind``,
        ``face`` on top, resting flat. With ``at`` (x, y in pixels) the frame may hold other
        dice too: the example is the die whose centre is nearest ``at`` (teaching from a
        throw, the camera tower)."""
        from .features import body_feature, face_crop, sharpness
        from .segment import shape_of, teaching_parts

        model = self.kind(kind, faces)
        if face not in model.faces:
            raise DiceError(f"kind {kind!r} has no face {face!r} (faces: "
                            f"{', '.join(model.faces)})")
        if colour is not None:
            _check_name("colour", colour)
        if self.background is None:
            raise DiceError("the profile has no empty tray yet: run `dice background` first")
        lit, blobs, gain = teaching_parts(frame, self.tray(), name)  # lit: as they were found
        if at is None and len(blobs) > 1:
            blobs = _the_one_die(lit, blobs)
        if at is not None and blobs:
            near = min(blobs, key=lambda b: math.hypot(b.cx - at[0], b.cy - at[1]))
            if math.hypot(near.cx - at[0], near.cy - at[1]) > near.size:
                raise DiceError(f"{name}: no die at ({at[0]:.0f}, {at[1]:.0f})")
            blobs = [near]
        if len(blobs) != 1:
            raise DiceError(f"{name}: {len(blobs)} dice found; a teaching image shows exactly "
                            f"one die (and nothing else) on the empty tray"
                            + (" (where it shows one, the die was found in pieces, as a dark "
                               "die on a dark tray is: more light or a lighter tray helps)"
                               if blobs else ""))
        b = blobs[0]
        shape = shape_of(b.circularity, b.rectangularity)
        model.sizes.append(b.size)
        model.shapes.append(shape)
        model.sharpness.append(sharpness(b))
        from .tiltrules import outline_tilted
        model.looks_tilted.append(outline_tilted(b, shape))
        from .tilt import shipped as tilt_network
        from .tilt import tilt_input
        net = tilt_network()
        if net is not None:
            model.leaning.append(float(net.tilted([tilt_input(lit, b)])[0]))
        # the shape most of its pictures show; where as many show each, the first picture's
        # (over the set of shapes, a tie went by the string hash's seed: the same pictures
        # taught in another process could give the kind another shape)
        model.shape = max(model.shapes, key=model.shapes.count)
        model.size_px = float(np.median(model.sizes))
        if not model.builtin:
            own = PATCH_FACTOR * math.sqrt(b.top_area / math.pi)
            if model.patch_radius_px is None or model.patch_radii:
                model.patch_radii.append(own)
                model.patch_radius_px = float(np.median(model.patch_radii))
            else:  # taught before each picture's disc was kept: its pictures' scale stays
                own = model.patch_radius_px
            crop = face_crop(b, own)
            model.examples.setdefault(face, []).append(np.clip(crop * 2.55, 0, 255)
                                                       .astype(np.uint8))
            model._gradients = None
            model._vectors = None
            model._alike = None
        if colour is not None:
            self.colours.setdefault(colour, []).append(
                body_feature(lit, self.background, gain, b, frame, self.own_hue))
            if colour not in model.colours:
                model.colours.append(colour)

    def missing(self, kind: str) -> dict[str, int]:
        if kind not in self.kinds:
            return self.kind(kind).missing()  # raises for an unknown kind
        return self.kinds[kind].missing()

    # ------------------------------------------------------------ files

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        if self.background is None:
            raise DiceError(f"{path}: nothing to save (no empty tray yet)")
        folder = path.with_suffix(".d")
        folder.mkdir(parents=True, exist_ok=True)
        rel = folder.name
        bg_file = folder / "background.png"
        bg8 = np.clip(self.background + 0.5, 0, 255).astype(np.uint8)
        bg_ready = (f"{rel}/background.png", _write_png(bg_file, bg8), bg8)
        kinds = {}
        ready: list[tuple[str, bytes, np.ndarray]] = []  # each example: file, bytes, crop
        gradients = []  # each kind's examples' features (full, coarse), in the same order
        vectors: list[np.ndarray | None] = []  # and their taught-face vectors
        for k, m in self.kinds.items():
            entry: dict = {"faces": list(m.faces)}
            if m.shape:
                entry["shape"] = m.shape
                entry["sizes_px"] = [round(float(s), 2) for s in m.sizes]
                entry["shapes"] = list(m.shapes)
                if m.sharpness:
                    entry["sharpness"] = [round(float(v), 4) for v in m.sharpness]
                if m.leaning:
                    entry["leaning"] = [round(float(v), 4) for v in m.leaning]
                if m.looks_tilted:
                    entry["looks_tilted"] = [bool(v) for v in m.looks_tilted]
            if m.patch_radius_px:
                entry["patch_radius_px"] = round(float(m.patch_radius_px), 3)
            if m.patch_radii:
                entry["patch_radii_px"] = [round(float(r), 3) for r in m.patch_radii]
            if m.colours:
                entry["colours"] = list(m.colours)
            if m.examples:
                ex = {}
                for face, crops in m.examples.items():
                    files = []
                    for i, crop in enumerate(crops):
                        f = folder / k / f"{_safe(face)}-{i}.png"
                        f.parent.mkdir(exist_ok=True)
                        ready.append((f"{rel}/{k}/{f.name}", _write_png(f, crop), crop))
                        files.append(f"{rel}/{k}/{f.name}")
                    ex[face] = files
                entry["examples"] = ex
                gradients.append(m.gradients())
                vectors.append(m.vectors())
            if k != PIPS or m.shape:
                kinds[k] = entry
        data = {"dice_profile": VERSION,
                "image_size": [self.background.shape[1], self.background.shape[0]],
                "background": {"file": f"{rel}/background.png",
                               "frames": self.background_frames,
                               **({"noise": self.background_noise}
                                  if self.background_noise is not None else {}),
                               **({"smoothing": self.background_smoothing}
                                  if self.background_smoothing else {})},
                **({"colour_measure": self.colour_measure} if self.colour_measure != 1 else {}),
                "colours": {c: [[round(float(v), 4) for v in f] for f in fs]
                            for c, fs in self.colours.items()},
                "kinds": kinds}
        text = ("# Dice profile (docs/vision.md): written by `python -m vision dice`\n"
                + yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
        _write_ready(folder / READY_FILE, ready, bg_ready, gradients, _parsed(text, data),
                     vectors, self.background_smoothing)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
        self.path = path
        return path

    @classmethod
    def load(cls, path: str | Path) -> Profile:
        return _Loader(Path(path)).load()


def _safe(face: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", face)


def _write_png(path: Path, img: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".png", img)
    if not ok:
        raise DiceError(f"{path}: cannot encode the image")
    # whole or not at all: the YAML still on disk names this file while a save runs
    tmp = path.with_name(path.name + ".tmp")
    data = buf.tobytes()
    tmp.write_bytes(data)
    os.replace(tmp, path)
    return data


def _digest(files: list[tuple[str, bytes]]) -> str:
    h = hashlib.sha256()
    for rel, data in files:
        h.update(rel.encode("utf-8") + b"\0" + len(data).to_bytes(8, "little") + data)
    return h.hexdigest()


def _parsed(text: str, data: dict) -> tuple[str, str] | None:
    """(the digest of the profile's text, its values as JSON), kept in the ready file: a
    `dice read` of a profile whose text is still this one takes its values from there, four
    times quicker than parsing the YAML (about 4 ms of a read). None where JSON would not
    give back exactly what the YAML does."""
    js = json.dumps(data, ensure_ascii=False)
    if json.loads(js) != data or yaml.load(text, Loader=_YAML_LOADER) != data:
        return None
    return _text_digest(text), js


def _text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _stat_of(path: Path | str) -> tuple[int, int, int]:
    """What says a file is the one written: its size, and when it was last changed (its
    change time no one can set back: a file written again, or copied, has another)."""
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns


def _write_ready(path: Path, ready: list[tuple[str, bytes, np.ndarray]],
                 background: tuple[str, bytes, np.ndarray],
                 gradients: list[tuple[np.ndarray, np.ndarray]],
                 parsed: tuple[str, str] | None = None,
                 vectors: list[np.ndarray | None] | None = None,
                 smoothing: float = 0.0) -> None:
    """The empty tray, the examples' crops and their features in one file beside their PNGs,
    with the digest of those PNGs: a `dice read` loads them at once instead of decoding every
    picture and working out its features (the PNGs stay what a person opens and what counts:
    a picture whose PNG changed is decoded, and its features worked out again)."""
    from .features import GRAD_COARSE_DIM, GRAD_DIM, GRAD_TURNS
    from .segment import tray_windows
    crops = (np.stack([c for _, _, c in ready]) if ready
             else np.zeros((0, 64, 64), np.uint8))
    # the full features are only gathered a few at a time: half size; the coarse ones are
    # all multiplied at every read: as they are used
    grads = (np.concatenate([g for g, _ in gradients]) if gradients
             else np.zeros((0, GRAD_TURNS, GRAD_DIM), np.float32)).astype(np.float16)
    coarse = (np.concatenate([c for _, c in gradients]) if gradients
              else np.zeros((0, GRAD_TURNS, GRAD_COARSE_DIM), np.float32)).astype(np.float32)
    base = path.parent.parent  # the profile's YAML is there: the files are named from it
    stats = np.array([_stat_of(base / r) for r in [r for r, _, _ in ready] + [background[0]]],
                     np.int64).reshape(-1, 3)
    arrays = {"digest": np.array(_digest([(r, d) for r, d, _ in ready])), "stats": stats,
              "files": np.array([r for r, _, _ in ready], dtype=str), "crops": crops,
              "gradients": grads, "gradients_coarse": coarse,
              "background_digest": np.array(_digest([background[:2]])),
              "background": background[2], "background_file": np.array(background[0]),
              # the texture windows of that very picture, as a reader loads it (smoothed
              # as the reader smooths it: that smoothing kept with them)
              "background_windows": np.stack(tray_windows(background[2].astype(np.float32),
                                                          smoothing)),
              "background_smoothing": np.array(smoothing, np.float64)}
    if parsed:
        arrays["profile_digest"], arrays["profile_values"] = map(np.array, parsed)
    if vectors and all(v is not None for v in vectors):
        from .taught import model_id
        arrays["vectors"] = np.concatenate([v for v in vectors if v is not None]
                                           ).astype(np.float32)
        arrays["vectors_model"] = np.array(model_id())
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, **arrays)  # type: ignore[arg-type]  # (the stubs take a name for allow_pickle)
    os.replace(tmp, path)


def _rows(js: list[int]) -> slice | list[int]:
    """Rows ``js`` of an array as a slice where they follow each other (as a saved profile's
    kinds' do: a view, where a list of rows copies 4.5 MB of features at every load)."""
    if js and js == list(range(js[0], js[0] + len(js))):
        return slice(js[0], js[0] + len(js))
    return js


_LOCAL_HEADER = struct.Struct("<4s22xHH")  # a zip member's local header: signature, ...,
# the lengths of its name and of its extra field (the data follows them)
_NPY_HEADER_MAX = 4096  # bytes: np.savez writes a few dozen
# the header np.save writes for a plain array: {'descr': '<f2', 'fortran_order': False,
# 'shape': (72, 36, 576), } (numpy parses it with ast.literal_eval: with the features' copies
# that views now avoid, about 1 ms of a `dice read`'s profile load, for its 15 arrays)
_NPY_PLAIN = re.compile(r"\{'descr': '([<>|=][A-Za-z][0-9]*)', 'fortran_order': (True|False), "
                        r"'shape': \(((?:[0-9]+, ?)*[0-9]*)\), \}\s*")


def _npy_header(head: io.BytesIO) -> tuple[tuple[int, ...], bool, np.dtype]:
    """(shape, Fortran order, dtype) of the .npy header at ``head``'s start, which is left
    after it. A plain array's header is parsed directly, any other by numpy. ValueError for
    one that is not a header (numpy raised SyntaxError or tokenize's TokenError for some)."""
    start = head.tell()
    version = np.lib.format.read_magic(head)
    if version in ((1, 0), (2, 0)):
        size_format = "<H" if version == (1, 0) else "<I"
        (length,) = struct.unpack(size_format, head.read(struct.calcsize(size_format)))
        text = head.read(length)
        plain = _NPY_PLAIN.fullmatch(text.decode("latin1")) if len(text) == length else None
        if plain is not None:
            shape = tuple(int(n) for n in plain.group(3).replace(" ", "").split(",") if n)
            return shape, plain.group(2) == "True", np.dtype(plain.group(1))
    head.seek(start)
    version = np.lib.format.read_magic(head)
    try:
        if version == (1, 0):
            return np.lib.format.read_array_header_1_0(head)
        return np.lib.format.read_array_header_2_0(head)
    except Exception as exc:  # noqa: BLE001 - numpy lets ast's and tokenize's errors out
        raise ValueError(f"not an array header ({type(exc).__name__})") from None


def _read_stored_npz(path: Path) -> dict[str, np.ndarray]:
    """The arrays of an uncompressed ``.npz`` (as ``np.savez`` writes it), each read straight
    into its array and its member's CRC-32 checked as ``np.load`` checks it. ``np.load``
    reads a member in many small pieces: on a profile's 5.7 MB it took 3.3 ms of a `dice
    read`. Raises ValueError (or zipfile.BadZipFile) for anything else: a damaged file, a
    compressed member, an array of objects."""
    out = {}
    with zipfile.ZipFile(path) as z, open(path, "rb") as f:
        for info in z.infolist():
            if info.compress_type != zipfile.ZIP_STORED or not info.filename.endswith(".npy"):
                raise ValueError(f"{info.filename}: not a stored array")
            f.seek(info.header_offset)
            magic, name_len, extra_len = _LOCAL_HEADER.unpack(f.read(_LOCAL_HEADER.size))
            if magic != b"PK\x03\x04":
                raise ValueError(f"{info.filename}: no local header")
            f.seek(name_len + extra_len, os.SEEK_CUR)
            head = io.BytesIO(f.read(min(info.file_size, _NPY_HEADER_MAX)))
            shape, fortran, dtype = _npy_header(head)
            if dtype.hasobject:
                raise ValueError(f"{info.filename}: objects")
            header = head.getbuffer()[:head.tell()]
            # the array's own (aligned) memory, filled from the file
            arr = np.empty(shape, dtype, order="F" if fortran else "C")
            raw = (memoryview(arr.reshape(-1, order="A").view(np.uint8))  # type: ignore[arg-type]
                   if arr.size else memoryview(b""))
            if len(header) + len(raw) != info.file_size:
                raise ValueError(f"{info.filename}: its size is not its array's")
            f.seek(info.header_offset + _LOCAL_HEADER.size + name_len + extra_len + len(header))
            if raw.nbytes and f.readinto(raw) != raw.nbytes:
                raise ValueError(f"{info.filename}: truncated")
            if zlib.crc32(raw, zlib.crc32(header)) != info.CRC:
                raise ValueError(f"{info.filename}: damaged (CRC-32)")
            out[info.filename[:-4]] = arr
    return out


_F16_INF = 0x7C00  # float16 +inf's bits: a non-negative finite float16's are fewer


class _Loader:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.root_node: yaml.Node | None = None
        self._ready: dict[str, np.ndarray] | None = None
        self._stats: dict[str, tuple[int, ...]] | None = None  # the ready file's, by file
        self._folder = str(path.parent)

    def fail(self, problem: str, keys: tuple = ()) -> ProfileError:
        return ProfileError(str(self.path), problem, ".".join(map(str, keys)), self._line(keys))

    def _line(self, keys: tuple) -> int | None:
        node, line = self.root_node, None
        if node is None:
            return None
        line = node.start_mark.line + 1
        for k in keys:
            if isinstance(node, yaml.MappingNode):
                for kn, vn in node.value:
                    if kn.value == str(k):
                        node, line = vn, kn.start_mark.line + 1
                        break
                else:
                    return line
            elif isinstance(node, yaml.SequenceNode) and isinstance(k, int) \
                    and k < len(node.value):
                node = node.value[k]
                line = node.start_mark.line + 1
            else:
                return line
        return line

    def get(self, mapping: dict, key: str, typ, keys: tuple):
        if not isinstance(mapping, dict) or key not in mapping:
            raise self.fail(f"missing key {key!r}", keys)
        v = mapping[key]
        if typ is float and isinstance(v, int) and not isinstance(v, bool):
            v = float(v)
        if not isinstance(v, typ) or isinstance(v, bool) and typ is not bool:
            raise self.fail(f"expected {getattr(typ, '__name__', typ)}, got {v!r}",
                            keys + (key,))
        return v

    def numbers(self, mapping: dict, key: str, keys: tuple) -> list[float]:
        """A list of numbers (the error names the entry that is not one)."""
        values = self.get(mapping, key, list, keys)
        for i, v in enumerate(values):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise self.fail(f"expected a number, got {v!r}", keys + (key, i))
        return [float(v) for v in values]

    def image(self, rel: str, keys: tuple, flags: int) -> np.ndarray:
        return self.decode(rel, keys, self.read(rel, keys), flags)

    def read(self, rel: str, keys: tuple) -> bytes:
        f = self.path.parent / rel
        try:
            return f.read_bytes()
        except OSError as exc:
            raise self.fail(f"cannot read {f} ({exc.strerror or exc})", keys) from None

    def decode(self, rel: str, keys: tuple, data: bytes, flags: int) -> np.ndarray:
        f = self.path.parent / rel
        img = cv2.imdecode(np.frombuffer(data, np.uint8), flags) if data else None
        if img is None:
            raise self.fail(f"{f} is not a readable image (damaged or truncated, "
                            f"{len(data)} bytes)", keys)
        return img

    def load(self) -> Profile:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ProfileError(str(self.path), "no such profile (create it with "
                               "`python -m vision dice background`)") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ProfileError(str(self.path), f"cannot read ({exc})") from None
        ready = self._ready_values(text)
        if ready is not None:
            try:
                return self._build(ready)
            except ProfileError:
                pass  # named again below, with its line
        return self._build(self._parse(text))

    def _ready_values(self, text: str) -> dict | None:
        """The profile's values as the ready file keeps them, if its text is the one saved
        with it (else None: the YAML is parsed)."""
        z = self._ready_file()
        digest, values = z.get("profile_digest"), z.get("profile_values")
        if digest is None or values is None or str(digest) != _text_digest(text):
            return None
        try:
            data = json.loads(str(values))
        except ValueError:
            return None
        return data if isinstance(data, dict) else None

    def _parse(self, text: str):
        try:
            # parsed once (libyaml's parser where PyYAML has it: the camera tower loads a
            # profile at every `dice read`), the values built from the nodes that name lines
            loader = _YAML_LOADER(text)
            try:
                self.root_node = loader.get_single_node()
                return loader.construct_document(self.root_node) if self.root_node else None
            finally:
                loader.dispose()
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            raise ProfileError(str(self.path), f"not valid YAML ({getattr(exc, 'problem', exc)})",
                               line=mark.line + 1 if mark else None) from None

    def _build(self, data) -> Profile:
        if not isinstance(data, dict):
            raise self.fail("not a dice profile (expected a mapping with dice_profile: 1)")
        version = data.get("dice_profile")
        if version != VERSION:
            raise self.fail(f"unsupported version {version!r} (this reader knows "
                            f"dice_profile: {VERSION})", ("dice_profile",))
        known = {"dice_profile", "image_size", "background", "colour_measure", "colours", "kinds"}
        for k in data:
            if k not in known:
                raise self.fail(f"unknown key {k!r}", (k,))
        p = Profile()
        size = self.get(data, "image_size", list, ())
        if len(size) != 2 or not all(isinstance(v, int) and v > 0 for v in size):
            raise self.fail(f"expected [width, height], got {size!r}", ("image_size",))
        bgd = self.get(data, "background", dict, ())
        bg_rel = self.get(bgd, "file", str, ("background",))
        bg_keys = ("background", "file")
        bg_data = None if self.unchanged(bg_rel, bg_keys) else self.read(bg_rel, bg_keys)
        bg = self.ready_background(bg_rel, bg_data)
        bg_ready = bg is not None
        if bg is None:  # (its bytes read once)
            bg = self.decode(bg_rel, bg_keys, bg_data if bg_data is not None
                             else self.read(bg_rel, bg_keys), cv2.IMREAD_COLOR)
        if (bg.shape[1], bg.shape[0]) != tuple(size):
            raise self.fail(f"the background image is {bg.shape[1]}x{bg.shape[0]}, "
                            f"image_size says {size[0]}x{size[1]}", ("background", "file"))
        p.background = bg.astype(np.float32)
        p.background_frames = self.get(bgd, "frames", int, ("background",))
        if "noise" in bgd:
            from .segment import NOISE_LEVELS

            noise = self.numbers(bgd, "noise", ("background",))
            if len(noise) != NOISE_LEVELS or min(noise) < 0:
                raise self.fail(f"expected {NOISE_LEVELS} spreads of no less than 0 (one for each "
                                f"sixteenth of the grey levels), got {len(noise)}", ("background", "noise"))
            p.background_noise = noise
        if "smoothing" in bgd:
            from .segment import SMOOTH_MAX

            smoothing = bgd["smoothing"]
            if isinstance(smoothing, bool) or not isinstance(smoothing, (int, float)) \
                    or not 0 <= smoothing <= SMOOTH_MAX:
                raise self.fail(f"expected a blur of 0 to {SMOOTH_MAX} pixels, got "
                                f"{smoothing!r}", ("background", "smoothing"))
            p.background_smoothing = float(smoothing)
        windows = (self.ready_windows(bg.shape[0], bg.shape[1], p.background_smoothing)
                   if bg_ready else None)
        if windows is not None:
            p._windows = (p.background, windows)
        colours = data.get("colours") or {}
        if not isinstance(colours, dict):
            raise self.fail("expected a mapping of colour names", ("colours",))
        # a profile saved before the measure was kept measured its colours the first way; one
        # with no colour taught yet takes today's
        measure = data.get("colour_measure", 1 if colours else COLOUR_MEASURE)
        if isinstance(measure, bool) or not isinstance(measure, int) \
                or not 1 <= measure <= COLOUR_MEASURE:
            raise self.fail(f"expected 1 to {COLOUR_MEASURE} (how the colours were measured), "
                            f"got {measure!r}", ("colour_measure",))
        p.colour_measure = measure
        for c, feats in colours.items():
            keys = ("colours", c)
            if not isinstance(feats, list) or not feats:
                raise self.fail("expected a list of colour samples", keys)
            arr = []
            for i, f in enumerate(feats):
                if not (isinstance(f, list) and len(f) == 3 and
                        all(isinstance(v, (int, float)) for v in f)):
                    raise self.fail(f"expected three numbers, got {f!r}", keys + (i,))
                arr.append(np.array(f, np.float32))
            p.colours[str(c)] = arr
        kinds = data.get("kinds") or {}
        if not isinstance(kinds, dict):
            raise self.fail("expected a mapping of kinds", ("kinds",))
        wanted: list[tuple[str, tuple, bytes, KindModel, str]] = []  # each example file
        for k, entry in kinds.items():
            k = str(k)
            keys = ("kinds", k)
            faces = [str(f) for f in self.get(entry, "faces", list, keys)]
            try:
                m = p.kind(k, faces if k not in p.kinds else None)
            except DiceError as exc:
                raise self.fail(str(exc), keys) from None
            for key in entry:
                if key not in ("faces", "shape", "sizes_px", "shapes", "sharpness", "leaning",
                               "looks_tilted", "patch_radius_px", "patch_radii_px", "colours",
                               "examples"):
                    raise self.fail(f"unknown key {key!r}", keys + (key,))
            if "shape" in entry:
                m.shape = self.get(entry, "shape", str, keys)
                if m.shape not in ("square", "round"):
                    raise self.fail(f"shape must be square or round, not {m.shape!r}",
                                    keys + ("shape",))
                m.sizes = self.numbers(entry, "sizes_px", keys)
                m.shapes = [str(v) for v in self.get(entry, "shapes", list, keys)]
                if not m.sizes:
                    raise self.fail("empty list", keys + ("sizes_px",))
                m.size_px = float(np.median(m.sizes))
                if "sharpness" in entry:  # profiles taught before it was kept have none
                    m.sharpness = self.numbers(entry, "sharpness", keys)
                if "leaning" in entry:  # nor this
                    m.leaning = self.numbers(entry, "leaning", keys)
                    if not all(0.0 <= v <= 1.0 for v in m.leaning):
                        raise self.fail("a leaning is from 0 to 1", keys + ("leaning",))
                if "looks_tilted" in entry:  # nor this
                    looks = self.get(entry, "looks_tilted", list, keys)
                    for i, v in enumerate(looks):
                        if not isinstance(v, bool):
                            raise self.fail(f"expected true or false, got {v!r}",
                                            keys + ("looks_tilted", i))
                    m.looks_tilted = list(looks)
            if "patch_radius_px" in entry:
                m.patch_radius_px = self.get(entry, "patch_radius_px", float, keys)
            if "colours" in entry:  # profiles taught before it was kept have none
                m.colours = [str(c) for c in self.get(entry, "colours", list, keys)]
                unknown = [c for c in m.colours if c not in p.colours]
                if unknown:
                    raise self.fail(f"colour {unknown[0]!r} is not among the profile's "
                                    f"colours", keys + ("colours",))
            ex = entry.get("examples") or {}
            if ex and m.patch_radius_px is None:
                raise self.fail("examples without patch_radius_px", keys)
            if "patch_radii_px" in entry:  # profiles taught before they were kept have none
                m.patch_radii = self.numbers(entry, "patch_radii_px", keys)
                taught = sum(len(f) for f in ex.values() if isinstance(f, list))
                if len(m.patch_radii) != taught or min(m.patch_radii, default=1.0) <= 0:
                    raise self.fail(f"expected {taught} radii over 0 pixels (one for each "
                                    f"example), got {m.patch_radii!r}", keys + ("patch_radii_px",))
            for face, files in ex.items():
                face = str(face)
                fk = keys + ("examples", face)
                if face not in m.faces:
                    raise self.fail(f"kind {k!r} has no face {face!r}", fk)
                if not isinstance(files, list):
                    raise self.fail("expected a list of image files", fk)
                for i, rel in enumerate(files):
                    wanted.append((str(rel), fk + (i,), b"", m, face))
        # each picture's bytes are read (to compare them with the ready file's) unless none
        # changed since the ready file was written
        if not all([self.unchanged(rel, keys_i) for rel, keys_i, _, _, _ in wanted]):
            wanted = [(rel, keys_i, self.read(rel, keys_i), m, face)
                      for rel, keys_i, _, m, face in wanted]
            crops = self.ready([(rel, data) for rel, _, data, _, _ in wanted])
        else:
            crops = self.ready([(rel, None) for rel, _, _, _, _ in wanted])
        grads = self.ready_gradients(len(wanted)) if crops is not None else None
        for j, (rel, keys_i, data, m, face) in enumerate(wanted):
            crop = crops[j] if crops is not None else self.decode(
                rel, keys_i, data or self.read(rel, keys_i), cv2.IMREAD_GRAYSCALE)
            if crop.shape != (64, 64):
                raise self.fail(f"{rel} is {crop.shape[1]}x{crop.shape[0]}, a face "
                                f"example is 64x64", keys_i)
            m.examples.setdefault(face, []).append(crop)
        if grads is not None:
            self.place_gradients(p, wanted, grads)
            vectors = self.ready_vectors(len(wanted))
            if vectors is not None:
                self.place_vectors(p, wanted, vectors)
        p.path = self.path
        return p

    @staticmethod
    def kind_rows(p: Profile, wanted: list) -> list[tuple[KindModel, list[int]]]:
        """Each kind with its rows of the ready file, where the file's order is the order the
        kind's examples were read in (faces, then crops), as the features need it (a kind
        whose rows are not in that order has none: its features are worked out again)."""
        rows: dict[str, list[int]] = {}
        for j, (_, _, _, m, _) in enumerate(wanted):
            rows.setdefault(m.name, []).append(j)
        return [(p.kinds[name], js) for name, js in rows.items()
                if [wanted[j][4] for j in js] == p.kinds[name].example_crops()[0]]

    @classmethod
    def place_gradients(cls, p: Profile, wanted: list,
                        grads: tuple[np.ndarray, np.ndarray]) -> None:
        """Each kind's ready features (:meth:`kind_rows`)."""
        for m, js in cls.kind_rows(p, wanted):
            rows = _rows(js)
            m._gradients = (grads[0][rows], grads[1][rows])

    @classmethod
    def place_vectors(cls, p: Profile, wanted: list, vectors: np.ndarray) -> None:
        """Each kind's ready taught-face vectors (:meth:`kind_rows`)."""
        for m, js in cls.kind_rows(p, wanted):
            m._vectors = vectors[_rows(js)]

    def ready_vectors(self, n: int) -> np.ndarray | None:
        """The examples' taught-face vectors saved ready, if the file has them for all ``n``,
        worked out by the network this reader has (else they are worked out again)."""
        from .taught import EMBED_DIM, model_id
        z = self._ready_file()
        v, mid = z.get("vectors"), z.get("vectors_model")
        if v is None or mid is None or str(mid) != model_id() or v.shape != (n, EMBED_DIM) \
                or v.dtype != np.float32 or not np.isfinite(v).all():
            return None
        return v

    def _ready_file(self) -> dict[str, np.ndarray]:
        """The arrays of PROFILE.d/examples.npz, read once ({} when missing or damaged: the
        PNGs are still there)."""
        if self._ready is None:
            path = self.path.with_suffix(".d") / READY_FILE
            try:
                self._ready = _read_stored_npz(path)
            except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
                self._ready = {}
        return self._ready

    def unchanged(self, rel: str, keys: tuple) -> bool:
        """Whether the file ``rel`` is the one the ready file was written with (its size and
        times as then: :func:`_stat_of`), so its bytes need not be read to compare them. A
        file that cannot be read is named."""
        try:  # (a string path: a profile has a hundred pictures to look at)
            now = _stat_of(os.path.join(self._folder, rel))
        except OSError as exc:
            raise self.fail(f"cannot read {self.path.parent / rel} ({exc.strerror or exc})",
                            keys) from None
        if self._stats is None:
            z = self._ready_file()
            stats, files = z.get("stats"), z.get("files")
            self._stats = {}
            if stats is not None and files is not None and stats.ndim == 2 \
                    and stats.shape == (len(files) + 1, 3):
                names = [str(r) for r in files] + [str(z.get("background_file", ""))]
                self._stats = {n: tuple(int(v) for v in row) for n, row in zip(names, stats)}
        return self._stats.get(rel) == now

    def ready_windows(self, height: int, width: int, smoothing: float = 0.0
                      ) -> tuple[np.ndarray, np.ndarray] | None:
        """The ready background's texture windows (kept with it, from it, smoothed by
        ``smoothing``), if the file has them whole."""
        from .segment import window_count

        z = self._ready_file()
        w = z.get("background_windows")
        kept = z.get("background_smoothing")  # (none in a file written before it existed)
        if w is None or w.dtype != np.float64 or w.shape != (2, window_count(height, width)) \
                or not np.isfinite(w).all() \
                or (0.0 if kept is None or kept.shape != () else float(kept)) != smoothing:
            return None
        return w[0], w[1]

    def ready_background(self, rel: str, data: bytes | None) -> np.ndarray | None:
        """The empty tray saved ready, if it is exactly this PNG's picture (``data``: its
        bytes; None where the file is unchanged since the ready file was written)."""
        z = self._ready_file()
        if "background" not in z or (
                str(z.get("background_file")) != rel if data is None
                else str(z.get("background_digest")) != _digest([(rel, data)])):
            return None
        bg = np.asarray(z["background"], np.uint8)
        return bg if bg.ndim == 3 and bg.shape[2] == 3 else None

    def ready_gradients(self, n: int) -> tuple[np.ndarray, np.ndarray] | None:
        """The examples' features saved ready (with crops that are exactly the files'), if
        the file has them for all ``n`` and of the shapes this reader uses."""
        from .features import GRAD_COARSE_DIM, GRAD_DIM, GRAD_TURNS
        z = self._ready_file()
        g, c = z.get("gradients"), z.get("gradients_coarse")
        if g is None or c is None or g.shape != (n, GRAD_TURNS, GRAD_DIM) \
                or c.shape != (n, GRAD_TURNS, GRAD_COARSE_DIM) or c.dtype != np.float32 \
                or not np.isfinite(c).all() or g.dtype != np.float16 \
                or (g.size and int(g.view(np.uint16).max()) >= _F16_INF):
            # (the features are never negative: a float16 of its sign bit or of all its
            # exponent bits set, inf or nan, is not theirs; read in one pass, no copy)
            return None
        return g, c

    def ready(self, files: list[tuple[str, bytes | None]]) -> np.ndarray | None:
        """The crops saved ready beside the examples, if they are of exactly these files
        (else None: each is decoded). The files' bytes, or None for all where none changed
        since the ready file was written."""
        z = self._ready_file()
        unchanged = all(d is None for _, d in files)
        if not files or "crops" not in z or (not unchanged and str(z.get("digest")) != _digest(
                [(r, d) for r, d in files if d is not None])) \
                or [str(f) for f in z.get("files", [])] != [r for r, _ in files]:
            return None
        crops = np.asarray(z["crops"], np.uint8)
        return crops if crops.shape == (len(files), 64, 64) else None
