"""Pip dice read without teaching: small networks learned from real photographs (and renders).

The finder looks at the photograph resized to :data:`WORK` pixels on its long side and says,
every :data:`STRIDE` pixels, how likely a die's centre is there and how big the die is. Each
die found is cut out (a square :data:`CROP_SCALE` times its size, scaled to :data:`CROP`
pixels) and the face classifier says which face is up, or that no die is there. A face is
``clean`` when the classifier is at least as sure as the threshold set on photographs the
networks never learned from (``models/threshold.json``); a die found but not read that surely
is ``unreadable``, with its likeliest faces kept for a person to pick from.

The face classifier learned dice seen from above and from the side (a webcam on a desk).
A second one, ``models/faces-above.npz``, learned only from above: it is surer of a die in a
top-down photograph, and sure of the wrong face of a die seen from the side. Its face is
clean too when the first one names the same face with at least :data:`ABOVE_AGREE`
(threshold.json's ``above``).

``scripts/train_dice.py`` (``make train-dice``) trains both and writes ``models/``; the
networks run in ONNX Runtime, else in OpenCV's dnn, else with numpy (:mod:`vision.dice.netrun`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache, partial
from pathlib import Path

import cv2
import numpy as np

from .model import MAX_LIKELY, DieReading
from .netrun import ModelError, Net, Runnable, load

WORK = 320           # the finder's image: this many pixels on the long side
STRIDE = 4           # one finder cell every 4 pixels of that image
CROP = 48            # the classifier's crop, pixels
CROP_SCALE = 1.4     # the crop's side in die sizes
FACES = ("1", "2", "3", "4", "5", "6")
KIND = "d6pips"
MODELS = Path(__file__).resolve().parent / "models"
VIEWS = 3            # each die classified from three crops (see PipReader.classify)
# the second view's crop, over the first's. A wider crop takes in the pips of touching dice
# and the views disagree on dice a person reads; one too near the first no longer checks the
# first. Chosen on the tuning sets: the real photographs kept apart, twenty webcam setups of
# bench/webcam_renderer.py (9010-9029, 2,000 dice), the independent renderer's tuning towers
# read without a profile (right / wrong faces):
#   1.1:  94.1 % / 0  | 38.7 % / 3.8 % | 88.7 % / 1.2 %
#   1.15: 93.6 % / 0  | 36.4 % / 3.1 % | 86.4 % / 1.0 %
#   1.2:  91.4 % / 0  | 33.6 % / 2.7 % | 85.6 % / 1.2 %
#   1.3:  84.4 % / 0  | 29.5 % / 2.1 % | 83.1 % / 1.0 %
# 1.15: most of the real photographs' gain, and fewer wrong faces than 1.1 where the dice are
# seen from the side
WIDER = 1.15
# the face classifier the reader with a profile asks about the pip dice its count leaves
# unsure (vision/dice/reader.py, ``_second_look``): the one it was tuned with, which learned
# real photographs from above and this project's renders from above and from the side.
# ``faces.npz`` went on to learn webcam renders and a second real set, for photographs read
# without a profile; asked in the tower, it read more side faces of dice under a tilted camera
# as their tops (docs/vision.md, "The face classifier learned webcam renders and Rune55")
TOWER_FACES = "faces-tower.npz"
# and the die finder it cuts a part of several dice with (vision/dice/reader.py, ``_guided``):
# the one it was tuned with. ``finder.npz`` went on to learn webcam renders and a second real
# set (docs/vision.md, "The finder learned webcam renders and Rune55"); the tower's towers
# were not read with it, so the tower keeps this one (with its score, threshold.json's
# ``tower``'s ``find_score``)
TOWER_FINDER = "finder-tower.npz"
FIND_THRESHOLD = 0.3   # the finder's least score for a peak (threshold.json's find_score keeps)
# how sure the classifier of all views must be of the face the classifier of views from above
# reads clean, for it to count (chosen on the tuning photographs kept apart and on webcam
# renders bench/webcam_renderer.py seeds 9000-9002: at 0.15 the webcam renders had 8 wrong
# faces in 323 dice, 6 from 0.25 to 0.35, and the photographs kept apart lost 2 to 5 of 173)
ABOVE_AGREE = 0.3
# a die the finder scores under its calibrated find_score (threshold.json) but from
# FIND_THRESHOLD is read, clean only this sure (the classifier of all views alone). On the
# tuning sets (webcam renders 9010-9029, the real photographs kept apart): dice missed 278 ->
# 174 of 713 and 36.4 % -> 37.9 % read right, wrong faces 3.1 % unchanged; clean as any die
# (0 instead of 0.9): 43.6 % right but 4.5 % wrong. The photographs kept apart: unchanged.
WEAK_CLEAN = 0.9


# The finder over a pyramid (PipReader.find_read), chosen on the tuning sets: the real
# photographs' tuning part, whole and cut close around each die (realphotos.close_cuts: the
# die a third of the picture, and three fifths), webcam renders 9010-9029, the independent
# renderer's tuning towers read without a profile. The whole photographs, webcam renders and
# towers read as before to the last die; cut close, read right and wrong:
#   a third:        tuning 1.8 % / 8.9 % -> 93.3 % / 0.17 %; held out 0.4 % / 9.0 % -> 88.7 % / 0
#   three fifths:   tuning 2.8 % / 15.1 % -> 88.2 % / 2.1 %; held out 1.5 % / 17.7 % -> 88.0 % / 1.1 %
# (GROUP was added after a first measure on the held-out photographs, where a coarser die
# took 18 dice of one photograph for its pips: see GROUP.)
LEVELS = 4                 # the finest level and three coarser, each half the last
LEAST_LEVEL = 24           # a coarser level's image is at least this many pixels long
LEVEL_SIZES = (20.0, 64.0) # the dice a level keeps, in its pixels (the finest: up to 64;
#                            the coarsest: from 20 up): the finder learned 10 to 45
COARSE_SCORE = 0.6         # the finder's least score for a die of a coarser level
COARSE_PAD = 0.25          # the margin around the frame at coarser levels, of its long side
SAME_DIE = 0.6             # a die the finest level found at this share of its size or more
PIP_OF_DIE = 0.33          # the finest level's dice this much smaller than a die are its pips
# a die's pips are seldom what the finest level is sure is a die (at most one at 0.8 and more
# in the tuning photographs' close cuts; a die of a tray: 0.79 at the median): a coarser
# level's die with GROUP of them inside is a group of dice
GROUP, GROUP_SCORE = 3, 0.8
# Unless they are its pips: each smaller than PIP_OF_DIE of the coarser die, each read as a
# die showing 1 (PipReader._pips_of_one_die). A die showing 3 to 6 photographed close, or
# cut by the frame's edge, has pips the finest level is that sure of, and each was read as
# a die showing 1 where the die itself was dropped as a group. On the tuning sets (read
# right / wrong / faces read clean where no die is): Rune55's kept-apart tuning photographs
# (695; docs/vision.md) 69.9 % / 1.49 % / 58 -> 70.5 % / 1.24 % / 24; byler-train's kept
# apart cut close to three fifths 91.9 % / 0.54 % -> 92.4 % / 0 (a 5 read as five 1s, three
# of them clean); byler-train's kept apart whole, cut to a third and in canvases, webcam
# renders 9010-9029 and the independent renderer's towers 8200-8202 without a profile:
# unchanged to the die.
# A coarser die the classifier is not sure of hid the finest level's dice on it as its pips,
# and was not read either: a group of small dice a coarser level took for one die was lost
# whole (on a webcam render, six dice on a desk, all read right by the finest level, and
# none reported). Now such a die is dropped where one of those dice reads as another face
# than 1 (PipReader._without_groups). On the tuning sets (right / wrong / dice missed):
# webcam renders 9010-9029 62.9 % / 1.96 % / 88 -> 65.0 % / 1.96 % / 67; Rune55's kept-apart
# tuning photographs 70.5 % / 1.24 % / 339 -> 72.8 % / 1.28 % / 244; byler-train's kept apart
# set in a canvas three times as wide 35.5 % -> 59.7 %, none wrong; byler-train's kept apart
# whole and cut close, and the independent renderer's towers 8200-8202 without a profile:
# unchanged to the die.
# And such a die, not a group, is reported unsure (a player sets it) where it was lost with
# its pips: Rune55's kept-apart tuning photographs, dice missed 244 -> 223 (those 21 flagged
# now; 4 more readings, unsure, where no die is); the other tuning sets unchanged.
# A coarser level's die the finder is less sure of than COARSE_SCORE still counts where the
# finest level's dice on it are all its pips (_pips_only) and the classifier is WEAK_CLEAN sure
# of its face (a die filling a third of the picture or more, whose pips the finest level took
# for dice showing 1). Chosen on the tuning parts of two real sets, read right / wrong:
# Rune55 (photographs of other dice and cameras, docs/vision.md; bench/dice_bench.py
# --yolo-real; a third of its tuning part, byler-train's copies still in) 46.5 % / 3.26 % ->
# 50.5 % / 2.81 % (without the WEAK_CLEAN condition
# 53.2 % / 2.39 %, but three trays of the independent renderer's towers lost 6 dice to a
# group of dice taken for one die); byler-train's tuning part unchanged (95.3 % / 0.16 %),
# cut close: a third 93.3 % -> 94.1 %, three fifths 88.2 % / 2.06 % -> 90.2 % / 1.64 %.
# Webcam renders 9010-9029 and the independent renderer's towers read without a profile:
# unchanged.
# Where the classifier is less sure of such a die, but every one of those pips reads as a die
# showing 1, the die is read in their place, never clean (PipReader._unsure_dice). On the
# tuning parts: Rune55's (byler-train's copies left out, a third) 42.1 % / 3.69 % -> 42.0 % /
# 3.04 %; byler-train's and its close cuts unchanged but for three fifths' wrong faces 1.64 ->
# 1.56 %; webcam renders unchanged; the independent towers without a profile 87.96 -> 87.74 %
# of flat pip dice (one die), wrong faces unchanged.
# The dice of one photograph are of a size, give or take the camera's perspective: a die read
# less than SMALLER_THAN_OTHERS times the median size of the other dice read in it is a pip
# or a piece of a die, and never clean (it is `unreadable`: a player sees it and decides).
# Chosen on the tuning sets, read right / wrong / faces read clean where no die is: Rune55's
# tuning part (1,500 photographs, 5,608 dice) 38.1 % / 3.00 % / 153 -> 38.1 % / 2.76 % / 136;
# webcam renders 9010-9029 37.9 % / 3.09 % -> 37.9 % / 2.81 %; byler-train's photographs kept
# apart, whole and cut close, and the independent renderer's towers 8200-8202 unchanged. At
# 0.6 they lose right faces (Rune55 37.7 %, the towers 86.0 -> 84.7 %); at 0.4, Rune55 2.80 %.
SMALLER_THAN_OTHERS = 0.5
# A die found under TINY_DIE pixels across has pips of a pixel or two: a person zooms in to
# read it, and the classifier reads it wrong too often to call it clean. Chosen on
# byler-train's tuning photographs shrunk to 1/2, 0.35, 0.3, 1/4 and 1/5 of their size (dice
# from 20 down to 6 pixels), read right / wrong: 88.0 / 0.49, 81.6 / 0.90, 66.1 / 2.87, 41.7 /
# 5.00 % -> 87.6 / 0.49, 77.0 / 0.74, 43.7 / 0.90, 6.3 / 0.16 % (unchanged at full size); of
# the dice read clean under 8 pixels 11 % were wrong, 8 to 10 pixels 6 %, 10 to 12 pixels
# 1.7 %, 12 to 14 pixels 0.3 %: under 1 % wrong is what clean means (issue 26). 9 pixels kept
# 2.46 % wrong at 1/4; a second, surer band from 10 to 12 pixels (0.8 or 0.9) cost right
# faces at 0.3 (73-74 %) for little.
TINY_DIE = 10.0
# A finer level (PipReader._finer): dice under about 10 of the finder's pixels are not found,
# and from 13 to 24 some are missed that twice as many pixels show (on webcam renders
# 9500-9502, the finder alone found 79 % of the dice at the finest level and 98 % at twice
# its scale). Looking twice as close costs four times the finder's time (about 60 ms for
# 640x480), so only where the finest level's dice are small, or none. Chosen on the tuning
# sets, read right / wrong / dice missed, before -> the finer level's dice added only where
# the finest level found none (first try) -> its dice standing in place of the finest
# level's they lie on (shipped):
#   byler-train's tuning photographs set in a canvas twice as wide (dice of about 9 of the
#   finder's pixels): 69.2 % / 0.49 % / 218 -> 73.2 % / 0.49 % / 142 -> 92.1 % / 0.16 % / 8
#   three times as wide (about 6): 17.5 % / 0.98 % / 708 -> 29.4 % / 0.98 % / 475
#   -> 69.5 % / 0.16 % / 179
#   webcam renders 9500-9505 (623 dice): 24.9 % / 1.61 % / 214 -> 25.1 % / 1.77 % / 196
#   -> 24.4 % / 1.77 % / 199
# byler-train's tuning photographs as they are (dice of 17 to 25) and the independent
# renderer's towers without a profile: unchanged. Below 18, a fifth of the real photographs
# were looked at finer too (their p95 95 -> 106 ms, nothing more read); the finer level's
# dice read as sure dice where the finest level found none took the webcam renders' wrong
# faces to 2.1-2.3 %; from a score of 0.3, many peaks on gridded desks were read (500 ms a
# photograph). Without the pip rule, a tower's lone die (33 of the finder's pixels) gave way
# to one of its pips; giving way only where the finest level's die is under 14 of its
# pixels: webcam 25.3 %, twice as wide 84.9 %, three times 60.7 %. Looked at finer also
# where a coarser level found a die (close-ups, whose pips the finest level finds as small
# dice), half of Rune55's tuning part (9,545 dice) read 37.9 % / 3.12 % -> 36.4 % / 3.64 %,
# faces clean where no die is 236 -> 465; only where none did (shipped): 38.0 % / 3.12 % /
# 233, the canvases twice and three times as wide 90.2 % / 0.16 % and 69.0 % / 0.16 %.
FINER = 2.0
FINER_ROOM = 1.5      # the photograph's long side is at least this many times WORK
FINER_BELOW = 16.0    # the finest level's sure dice (median), in its pixels
FINER_SCORE = 0.45
# no level looks at more than FINER * WORK pixels: a photograph longer than twice that is
# reduced once, by a whole factor, to that or less, and the levels resized from the copy
# (PipReader._finder_of)
REDUCE_ABOVE = 2 * FINER * WORK


def _near(a: Found, b: Found) -> bool:
    """Two findings of one die: closer than half the larger."""
    return math.hypot(a.x - b.x, a.y - b.y) <= 0.5 * max(a.size, b.size)


def _pips_only(die: Found, fine: Sequence[Found]) -> bool:
    """The finest level's dice on ``die`` are all what its pips would be: there are some,
    each smaller than PIP_OF_DIE of it, none that the finder is GROUP_SCORE sure of."""
    inside = [f for f in fine if _inside(f, die)]
    return bool(inside) and all(f.size < PIP_OF_DIE * die.size and f.score < GROUP_SCORE
                                for f in inside)


def _not_pips(fine: list[Found], dice: list[Found]) -> list[Found]:
    """The finest level's dice that are not the pips of one of ``dice``: on it and smaller
    than PIP_OF_DIE of it."""
    return [f for f in fine
            if not any(_inside(f, g) and f.size < PIP_OF_DIE * g.size for g in dice)]


def _overlap(a: Found, b: Found) -> bool:
    """Either's centre lies on the other."""
    return _inside(a, b) or _inside(b, a)


def _inside(a: Found, die: Found) -> bool:
    """``a``'s centre lies on ``die``: closer than half its size."""
    return math.hypot(a.x - die.x, a.y - die.y) <= 0.5 * die.size


@dataclass(frozen=True)
class Found:
    x: float
    y: float
    size: float
    score: float


@dataclass(frozen=True)
class PipReading:
    """A die found and what the classifier makes of it: ``faces`` from likeliest, each with
    its probability."""

    found: Found
    faces: tuple[tuple[str, float], ...]
    no_die: float
    above: tuple[str, float] | None = None   # the classifier of views from above: its face
    unsure: bool = False   # never clean (PipReader._unsure_dice)

    def likeliest(self) -> tuple[str, ...]:
        """The faces a player is offered, likeliest first (MAX_LIKELY of them)."""
        return tuple(f for f, _ in self.faces[:MAX_LIKELY])

    def clean_face(self, confidence: float, above: Above | None) -> str | None:
        face, p = self.faces[0]
        if p >= confidence:
            return face
        if above is not None and self.above is not None and self.above[1] >= above.confidence \
                and self.above[0] == face and p >= above.agree:
            return face
        return None

    def clean(self, confidence: float, above: Above | None) -> tuple[str, float] | None:
        """(face, confidence) when the face is clean: the confidence of the classifier that
        made it so (the one of all views, else the one of views from above); else None."""
        face = self.clean_face(confidence, above)
        if face is None:
            return None
        p = self.faces[0][1]
        return face, (self.above[1] if p < confidence and self.above is not None else p)


@dataclass(frozen=True)
class Above:
    """The classifier that learned views from above only, and when its face counts."""

    net: Runnable
    confidence: float
    agree: float = ABOVE_AGREE


class PipReader:
    def __init__(self, finder: Runnable, faces: Runnable,
                 clean_confidence: float = 1.01, find_score: float = FIND_THRESHOLD,
                 above: Above | None = None) -> None:
        self.finder, self.faces, self.clean_confidence = finder, faces, clean_confidence
        self.find_score = find_score
        self.above = above

    @classmethod
    def load(cls, folder: Path = MODELS, onnx: bool = True, tower: bool = False) -> PipReader:
        """The networks in ``folder``. ``tower``: the face classifier the reader with a
        profile asks for its second look (:data:`TOWER_FACES`, threshold.json's ``tower``)
        and the finder it cuts parts with (:data:`TOWER_FINDER`, with the ``tower``'s
        ``find_score``), where the folder has them; else the ones that read photographs
        without a profile."""
        def net(name: str) -> Runnable:
            # in ONNX Runtime where it is installed; else the face classifiers, which run
            # many crops at once, on OpenCV's classic engine, the faster there (netrun.OnnxNet)
            return (load(folder / name, classic=name.startswith("faces")) if onnx
                    else Net.load(folder / name))

        faces_file, finder_file = "faces.npz", "finder.npz"
        threshold, find = 1.01, FIND_THRESHOLD    # uncalibrated: nothing is called clean
        above = None
        path = folder / "threshold.json"
        if path.exists():
            try:
                data = json.loads(path.read_text())
                threshold = float(data["clean_confidence"])
                find = float(data.get("find_score", FIND_THRESHOLD))
                if tower and "tower" in data:
                    own = data["tower"]
                    if (folder / TOWER_FACES).exists():
                        faces_file, threshold = TOWER_FACES, float(own["clean_confidence"])
                    if (folder / TOWER_FINDER).exists():
                        finder_file, find = TOWER_FINDER, float(own["find_score"])
                top = data.get("above")
                if top is not None and (folder / "faces-above.npz").exists():
                    above = Above(net("faces-above.npz"), float(top["clean_confidence"]),
                                  float(top.get("agree", ABOVE_AGREE)))
            except (ValueError, KeyError, TypeError, AttributeError):
                raise ModelError(f"{path}: clean_confidence and find_score (and above's and "
                                 "tower's clean_confidence and find_score, above's agree): "
                                 "numbers from 0 to 1") from None
        return cls(net(finder_file), net(faces_file), threshold, find, above)

    # -- where the dice are ------------------------------------------------------------------
    def find(self, frame: np.ndarray, scale: float | None = None) -> list[Found]:
        """The dice in ``frame``: centres and sizes in its pixels. ``scale``: the finder's
        image over the frame's, for a part of a frame looked at with the whole frame's scale
        (by default the whole frame, at every level of :meth:`find_read`)."""
        if scale is not None:
            return self._find_at(frame, scale)
        return [f for f, _ in self.find_read(frame)]

    def find_read(self, frame: np.ndarray) -> list[tuple[Found, PipReading | None]]:
        """The dice in ``frame``, each with its reading where finding it took one.

        The finder learned dice of 10 to 45 of its pixels: the frame resized to WORK pixels
        on its long side, where a die photographed close (a third of the frame) is 100 and
        more, and its pips are what the finder takes for dice (read clean with a wrong face
        one time in ten). So the frame is also looked at at half, a quarter and an eighth of
        that (:data:`LEVELS`; the two coarsest with a margin of the frame's edge repeated, so
        that a die filling the frame is not at the picture's edge). A level keeps the dice of
        the sizes it learned (:data:`LEVEL_SIZES`) that the finder is sure of
        (:data:`COARSE_SCORE`) and the finest level did not find at much their size; the
        classifier reads each:
        - a die with :data:`GROUP` or more of the finest level's sure dice inside it is a
          group of small dice that a level this coarse took for one: it is dropped, unless
          those are its pips (six at most, each under PIP_OF_DIE of it, each read as a 1 or
          as no die: :meth:`_pips_of_one_die`);
        - a die it takes for a die hides the finest level's dice inside it much smaller
          than it (:data:`PIP_OF_DIE`: its pips), but a die it is not sure of the face of
          does not where one of them reads as a die showing another face than 1: it is a
          group of dice, dropped (:meth:`_without_groups`);
        - a die it is sure of the face of is a die; one it is not sure of hides its pips all
          the same, and is reported unsure, for a player to set (:meth:`read`).
        A die the finder is less sure of is kept too where the finest level's dice on it are
        all its pips (:func:`_pips_only`), and it is a die only where the classifier is
        :data:`WEAK_CLEAN` sure of its face. Where the finest level's dice are small, or
        none, a finer level looks again (:meth:`_finer`)."""
        h, w = frame.shape[:2]
        base = WORK / max(h, w)
        find = self._finder_of(frame)
        fine = [f for f in find(base) if f.size * base <= LEVEL_SIZES[1]]
        coarse: list[tuple[int, Found]] = []
        pad = round(COARSE_PAD * max(h, w))
        for level in range(1, LEVELS):
            scale = base / 2 ** level
            if max(h, w) * scale < LEAST_LEVEL:
                break
            last = level == LEVELS - 1 or max(h, w) * scale / 2 < LEAST_LEVEL
            for g in find(scale, pad if level > 1 else 0):
                size = g.size * scale
                if ((g.score < COARSE_SCORE and not _pips_only(g, fine))
                        or size < LEVEL_SIZES[0] or (size > LEVEL_SIZES[1] and not last)
                        or not (0 <= g.x < w and 0 <= g.y < h)
                        or any(_near(g, e) and e.size >= SAME_DIE * g.size for e in fine)):
                    continue
                coarse.append((level, g))
        if not coarse:
            return [(f, None) for f in self._finer(frame, base, fine, find)]
        read = self.classify(frame, [g for _, g in coarse])
        looked: dict[int, PipReading] = {}   # the finest dice classified, by id() (_read_fine)
        one_die = self._pips_of_one_die(frame, coarse, read, fine, looked)
        dice = [(level, g, r) for (level, g), r in zip(coarse, read) if r.no_die < r.faces[0][1]
                and (g.score >= COARSE_SCORE
                     or r.faces[0][1] >= max(self.clean_confidence, WEAK_CLEAN))
                and (sum(_inside(f, g) and f.score >= GROUP_SCORE for f in fine) < GROUP
                     or id(g) in one_die)]
        sure = sorted(((level, g, r) for level, g, r in dice
                       if r.faces[0][1] >= self.clean_confidence),
                      key=lambda lgr: (-lgr[0], -lgr[1].score))
        sure_ids = {id(g) for _, g, _ in sure}
        dice = self._without_groups(frame, dice, sure_ids, fine, looked)
        fine = _not_pips(fine, [g for _, g, _ in dice])
        unsure = self._unsure_dice(frame, coarse, read, fine, looked)
        sure += unsure
        fine = _not_pips(fine, [g for _, g, _ in unsure])
        if not dice and not unsure:  # no die larger than the finest level's
            fine = self._finer(frame, base, fine, find)
        out: list[tuple[Found, PipReading | None]] = []
        # a coarser die the classifier is not sure of the face of, its pips hidden: a die found
        # but not read, for a player to set (after the finest level's dice: one near it stands)
        unread = [(g, replace(r, unsure=True)) for _, g, r in dice if id(g) not in sure_ids]
        for f, r in [(g, r) for _, g, r in sure] + [(f, looked.get(id(f))) for f in fine] + unread:
            if all(not _near(f, g) for g, _ in out):  # one die, one reading: the coarser
                out.append((f, r))
        return out

    def _finder_of(self, frame: np.ndarray) -> Callable[..., list[Found]]:
        """The finder at a scale of ``frame`` (:meth:`_find_at`: ``find(scale, pad=0)``).
        A frame longer than REDUCE_ABOVE is reduced once, by the least whole factor that
        brings it to REDUCE_ABOVE or less, and every level resized from the copy (each
        level's resize of a 12-megapixel photograph took 38 ms: four or five a read); its
        dice come back in the frame's pixels. By a whole factor OpenCV averages blocks of
        pixels (4032x3024 in 16 ms, 49 to 1280 pixels); the frame's last rows and columns
        that do not fill a block (fewer than the factor) are left out."""
        h, w = frame.shape[:2]
        if max(h, w) <= REDUCE_ABOVE:
            return partial(self._find_at, frame)
        n = math.ceil(max(h, w) / REDUCE_ABOVE)
        copy = cv2.resize(frame[:max(n, h - h % n), :max(n, w - w % n)],
                          (max(8, w // n), max(8, h // n)), interpolation=cv2.INTER_AREA)
        k = 1.0 / n

        def find(scale: float, pad: int = 0) -> list[Found]:
            return [Found(f.x / k, f.y / k, f.size / k, f.score)
                    for f in self._find_at(copy, scale / k, round(pad * k))]

        return find

    def _finer(self, frame: np.ndarray, base: float, fine: list[Found],
               find: Callable[..., list[Found]] | None = None) -> list[Found]:
        """The finest level's dice ``fine``, with those of a finer level where it looks: in a
        photograph with pixels to spare (FINER_ROOM) whose dice the finest level found small
        (their median under FINER_BELOW of its pixels) or not at all (a phone photograph of a
        table, a webcam far from the dice). :meth:`find_read` asks only where no coarser
        level found a die (else the small dice are that die's pips). The finer level is
        FINER times the finest (the photograph's own pixels at most) and sees such dice
        better: its dice the finder is FINER_SCORE sure of stand, and the finest level's
        dice they lie on give way (a group of small dice found as one, a die found off its
        centre). Not a die of the finer level that is a pip of a finest level's die (on it,
        under PIP_OF_DIE of its size). A finer die where the finest level found no die it
        was sure of counts as a die the finder is less sure of (:meth:`read`: clean only
        WEAK_CLEAN sure)."""
        h, w = frame.shape[:2]
        sure = [f.size * base for f in fine if f.score >= self.find_score]
        if max(h, w) < FINER_ROOM * WORK or (sure and float(np.median(sure)) >= FINER_BELOW):
            return fine
        scale = min(1.0, FINER * base)
        weak = float(np.nextafter(self.find_score, 0.0))  # under find_score: a weak die
        finer = []
        for g in (find or self._finder_of(frame))(scale):
            if g.score < FINER_SCORE or g.size * scale > LEVEL_SIZES[1] or any(
                    _inside(g, f) and g.size < PIP_OF_DIE * f.size for f in fine):
                continue
            backed = any(_overlap(g, f) and f.score >= self.find_score for f in fine)
            finer.append(g if backed else Found(g.x, g.y, g.size, min(g.score, weak)))
        return [f for f in fine if not any(_overlap(f, g) for g in finer)] + finer

    def _read_fine(self, frame: np.ndarray, fine: Iterable[Found],
                   looked: dict[int, PipReading]) -> dict[int, PipReading]:
        """``looked`` (the finest level's dice classified, by id(); each reading holds its
        Found, so no id is reused while it lives) with ``fine`` classified where it lacks
        them, in one call: a die is classified once however many rules ask of it."""
        ask = list({id(f): f for f in fine if id(f) not in looked}.values())
        looked.update(zip(map(id, ask), self.classify(frame, ask)) if ask else ())
        return looked

    def _pips_of_one_die(self, frame: np.ndarray, coarse: list[tuple[int, Found]],
                         read: list[PipReading], fine: list[Found],
                         looked: dict[int, PipReading]) -> set[int]:
        """The coarser level's dice (by id) that hold GROUP or more of the finest level's sure
        dice, but are the die those are the pips of (see GROUP): the classifier takes the
        coarser die for a die, and the finest level's sure dice on it are six at most, each
        smaller than PIP_OF_DIE of it, each read as a 1 (its likeliest face: a pip reads as a
        1, or as no die). The finest dice it classifies go into ``looked``."""
        ask = []
        for (_, g), r in zip(coarse, read):
            sure = [f for f in fine if _inside(f, g) and f.score >= GROUP_SCORE]
            if GROUP <= len(sure) <= len(FACES) and r.no_die < r.faces[0][1] \
                    and all(f.size < PIP_OF_DIE * g.size for f in sure):
                ask.append((g, sure))
        known = self._read_fine(frame, (f for _, sure in ask for f in sure), looked)
        return {id(g) for g, sure in ask
                if all(known[id(f)].faces[0][0] == "1" for f in sure)}

    def _without_groups(self, frame: np.ndarray, dice: list[tuple[int, Found, PipReading]],
                        sure_ids: set[int], fine: list[Found], looked: dict[int, PipReading]
                        ) -> list[tuple[int, Found, PipReading]]:
        """``dice`` less the coarser dice whose face the classifier is not sure of that are a
        group of the finest level's dice: one of the finest dice on it, under PIP_OF_DIE of
        its size, reads as a die showing another face than 1 (a pip reads as a 1). Such a
        die used to hide them all as its pips, and was then not read either: every die of
        the group was lost. ``sure_ids``: the coarser dice it is sure of, by id(). The finest
        dice it classifies go into ``looked``."""
        on = {id(g): [f for f in fine if _inside(f, g) and f.size < PIP_OF_DIE * g.size]
              for _, g, _ in dice if id(g) not in sure_ids}
        self._read_fine(frame, (f for fs in on.values() for f in fs), looked)

        def a_die_not_a_pip(f: Found) -> bool:
            r = looked[id(f)]
            return r.faces[0][0] != "1" and r.no_die < r.faces[0][1]

        return [(level, g, r) for level, g, r in dice
                if not any(a_die_not_a_pip(f) for f in on.get(id(g), ()))]

    def _unsure_dice(self, frame: np.ndarray, coarse: list[tuple[int, Found]],
                     read: list[PipReading], fine: list[Found], looked: dict[int, PipReading]
                     ) -> list[tuple[int, Found, PipReading]]:
        """The coarser level's dice the finder is less sure of, on the finest level's pips
        only, that the classifier takes for a die without being WEAK_CLEAN sure of its face:
        where each of those pips reads as a die showing 1, they are its pips, and the die is
        read in their place, unsure (a player sets it). Where one reads as another face,
        they are dice (a group of small dice taken for one) and stand. The finest dice it
        classifies go into ``looked``, for those that stand."""
        unsure = [(level, g, r) for (level, g), r in zip(coarse, read)
                  if g.score < COARSE_SCORE and r.no_die < r.faces[0][1]
                  and r.faces[0][1] < max(self.clean_confidence, WEAK_CLEAN)
                  and _pips_only(g, fine)]
        if not unsure:
            return []
        on = [f for f in fine if any(_inside(f, g) for _, g, _ in unsure)]
        known = self._read_fine(frame, on, looked)
        out = []
        for level, g, r in unsure:
            pips = [f for f in on if _inside(f, g)]
            if pips and all(known[id(f)].faces[0][0] == "1" for f in pips):
                out.append((level, g, replace(r, unsure=True)))
        return out

    def _find_at(self, frame: np.ndarray, scale: float, pad: int = 0) -> list[Found]:
        """The finder's dice in ``frame`` resized by ``scale`` (with ``pad`` of its pixels
        around it, its edge repeated: centres in the frame's pixels all the same)."""
        h, w = frame.shape[:2]
        small = cv2.resize(frame, (max(8, round(w * scale)), max(8, round(h * scale))),
                           interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
        edge = round(pad * scale)
        if edge:
            small = cv2.copyMakeBorder(small, edge, edge, edge, edge, cv2.BORDER_REPLICATE)
        x = small.astype(np.float32)[None].transpose(0, 3, 1, 2) / 255.0 - 0.5
        out = self.finder(x)[0]
        heat = 1 / (1 + np.exp(-out[0]))
        size = np.exp(np.clip(out[1], 0, 6))
        peaks = (heat == cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= FIND_THRESHOLD)
        found = []
        gh, gw = heat.shape
        for gy, gx in zip(*np.nonzero(peaks)):
            y0, y1, x0, x1 = max(gy - 1, 0), min(gy + 2, gh), max(gx - 1, 0), min(gx + 2, gw)
            wgt = heat[y0:y1, x0:x1]
            yy, xx = np.mgrid[y0:y1, x0:x1]
            cy = float((wgt * yy).sum() / wgt.sum()) * STRIDE
            cx = float((wgt * xx).sum() / wgt.sum()) * STRIDE
            found.append(Found((cx - edge) / scale, (cy - edge) / scale,
                               float(size[gy, gx]) / scale, float(heat[gy, gx])))
        # one die, one reading: of two peaks closer than half a die, the stronger stays
        found.sort(key=lambda f: -f.score)
        kept: list[Found] = []
        for f in found:
            if all(math.hypot(f.x - k.x, f.y - k.y) > 0.5 * max(f.size, k.size) for k in kept):
                kept.append(f)
        return kept

    # -- which face is up --------------------------------------------------------------------
    def classify(self, frame: np.ndarray, found: Sequence[Found]) -> list[PipReading]:
        """Each die is looked at three ways: the crop, a wider crop and the crop seen in a
        mirror (not turned: from a webcam on a desk, the top face is the one above the side
        faces, and turned a quarter it would not be). A face is as likely as its *least*
        likely view says, and the views must agree:
        a die the classifier only recognises from one framing is not read (that is how it
        fails on dice unlike those it learned from: pips taken for a die, a face for another)."""
        if not found:
            return []
        crops = []
        for f in found:
            for scale in (CROP_SCALE, CROP_SCALE * WIDER):
                s = CROP / (f.size * scale)
                m = np.array([[s, 0, CROP / 2 - s * f.x], [0, s, CROP / 2 - s * f.y]], np.float32)
                crop = cv2.warpAffine(frame, m, (CROP, CROP),
                                      flags=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR,
                                      borderMode=cv2.BORDER_REFLECT)
                crops.append(crop)
            crops.append(cv2.flip(crops[-2], 1))
        x = np.stack(crops).astype(np.float32).transpose(0, 3, 1, 2) / 255.0 - 0.5
        views = _views(self.faces, x, len(found))
        # the classifier of views from above looks only at the dice the other is not sure of:
        # it cannot change a clean face, and most dice of a photograph from above are clean
        unsure = [k for k, (probs, _) in enumerate(views)
                  if self.above is not None and probs[:len(FACES)].max() < self.clean_confidence]
        tops: dict[int, tuple[np.ndarray, float]] = {}
        if unsure and self.above is not None:
            pick = np.concatenate([np.arange(k * VIEWS, (k + 1) * VIEWS) for k in unsure])
            tops = dict(zip(unsure, _views(self.above.net, x[pick], len(unsure))))
        out = []
        for k, (f, (probs, no_die)) in enumerate(zip(found, views)):
            order = np.argsort(-probs[:len(FACES)])
            above = None
            if k in tops:
                p_above, no_die_above = tops[k]
                best = int(np.argmax(p_above[:len(FACES)]))
                if no_die_above < p_above[best]:
                    above = (FACES[best], float(p_above[best]))
            out.append(PipReading(f, tuple((FACES[i], float(probs[i])) for i in order),
                                  no_die, above))
        return out

    def read_raw(self, frame: np.ndarray, weak: bool = False) -> list[PipReading]:
        """The dice found that either classifier takes for a die. ``weak``: also the finder's
        peaks under its calibrated score (from FIND_THRESHOLD) that the classifier of all
        views takes for a die."""
        pairs = [(f, r) for f, r in self.find_read(frame) if weak or f.score >= self.find_score]
        new = iter(self.classify(frame, [f for f, r in pairs if r is None]))
        readings = [r if r is not None else next(new) for _, r in pairs]
        return [r for r in readings
                if r.no_die < r.faces[0][1]
                or (r.above is not None and r.found.score >= self.find_score)]

    def read(self, frame: np.ndarray) -> list[DieReading]:
        """Every pip die in ``frame`` (BGR, any size). A die the finder is less sure of than
        its calibrated score (a white die on a light desk, seen from the side) is read too,
        clean only where the classifier of all views is WEAK_CLEAN sure: else it is
        ``unreadable``, for a player to set in one tap instead of missing. A die under
        SMALLER_THAN_OTHERS of the other dice's median size is never clean (a pip taken for
        a die), nor is one under TINY_DIE pixels across (its pips a pixel or two)."""
        out = []
        raw = self.read_raw(frame, weak=True)
        sizes = [r.found.size for r in raw]
        for k, r in enumerate(raw):
            others = sizes[:k] + sizes[k + 1:]
            if r.unsure or r.found.size < TINY_DIE \
                    or (others and r.found.size < SMALLER_THAN_OTHERS * float(np.median(others))):
                clean = None
            elif r.found.score >= self.find_score:
                clean = r.clean(self.clean_confidence, self.above)
            else:
                clean = r.clean(max(self.clean_confidence, WEAK_CLEAN), None)
            face, p = clean if clean is not None else (None, r.faces[0][1])
            out.append(DieReading(KIND, face, None, "clean" if clean else "unreadable", p,
                                  r.found.x, r.found.y,
                                  r.likeliest()))
        return out


def _views(net: Runnable, x: np.ndarray, dice: int) -> list[tuple[np.ndarray, float]]:
    """Each die's face probabilities from its VIEWS crops: as likely as the least sure view
    says, halved when the views do not agree; and how likely no die is there."""
    logits = net(x)
    logits = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    out = []
    for v in p.reshape(dice, VIEWS, -1):
        agree = len({int(np.argmax(view)) for view in v}) == 1
        out.append((v.min(axis=0) if agree else v.min(axis=0) * 0.5, float(v[:, len(FACES)].max())))
    return out


@lru_cache(maxsize=2)
def shipped_reader(tower: bool = False) -> PipReader:
    """The networks shipped with the package (loaded once); ``tower``: with the face
    classifier of the reader with a profile's second look (:meth:`PipReader.load`)."""
    return PipReader.load(MODELS, tower=tower)


def reading_pairs(reader: PipReader, photos: Iterable[object]) -> tuple[list[tuple[float, bool]], int]:
    """(confidence, right) for every face the reader reads on labelled ``photos`` (a face read
    where no labelled die is counts as wrong), and the number of labelled dice."""
    from .realphotos import LabelledPhoto, match

    pairs: list[tuple[float, bool]] = []
    total = 0
    for photo in photos:
        assert isinstance(photo, LabelledPhoto)
        readings = reader.read_raw(cv2.imread(str(photo.path)))
        matched = match(photo.dice, [(r.found.x, r.found.y) for r in readings])
        total += len(photo.dice)
        for die, best in zip(photo.dice, matched):
            if best is not None:
                face, p = readings[best].faces[0]
                pairs.append((p, face == die.face))
        pairs += [(r.faces[0][1], False) for i, r in enumerate(readings) if i not in matched]
    return pairs, total


def threshold_for(pairs: Sequence[tuple[float, bool]], precision: float) -> float:
    """The least confidence above which at least ``precision`` of ``pairs`` are right (no
    face is clean when none is)."""
    ranked = sorted(pairs, key=lambda t: -t[0])
    threshold, right, best_right = 1.01, 0, 0
    for seen, (p, ok) in enumerate(ranked, 1):
        right += ok
        if right / seen >= precision and right > best_right:
            threshold, best_right = p, right
    return threshold


def clean_figures(pairs: Sequence[tuple[float, bool]], total: int, threshold: float) -> dict[str, float]:
    clean = [ok for p, ok in pairs if p >= threshold]
    return {"dice": total, "clean_right": sum(clean), "clean_wrong": len(clean) - sum(clean),
            "clean_right_rate": round(sum(clean) / max(total, 1), 4)}


def find_score_for(reader: PipReader, photos: Iterable[object], grid: Sequence[float] = (
        0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6)) -> tuple[float, dict[str, int]]:
    """The highest finder score, of ``grid``, that finds as many of the labelled dice of
    ``photos`` (never learned from) as the lowest does: peaks below it are mostly not dice."""
    from .realphotos import LabelledPhoto, match

    scores: list[tuple[float, bool]] = []
    for photo in photos:
        assert isinstance(photo, LabelledPhoto)
        found = reader.find(cv2.imread(str(photo.path)))
        matched = match(photo.dice, [(f.x, f.y) for f in found])
        scores += [(found[i].score, True) for i in matched if i is not None]
        scores += [(f.score, False) for i, f in enumerate(found) if i not in matched]
    counts = {g: (sum(ok and s >= g for s, ok in scores), sum(not ok and s >= g for s, ok in scores))
              for g in grid}
    best = max(g for g in grid if counts[g][0] == counts[grid[0]][0])
    return best, {"dice_found": counts[best][0], "extra_peaks": counts[best][1],
                  "extra_peaks_at_lowest": counts[grid[0]][1]}
