"""The dice reader: configured once from a profile, called per frame, plain values back.

    reader = DiceReader(Profile.load("tower.yaml"))
    for die in reader.read(frame):      # frame: BGR uint8, the profile's size
        print(die.kind, die.face, die.colour, die.status, die.confidence, die.x, die.y)

How it reads (details in ``docs/vision.md``): the frame minus the empty tray (shadows kept
out) gives the dice; touching dice are cut along the dark seams of their rounded edges; each
die's top face is the largest seam-bounded part of it. A die whose top face sits off its
silhouette's centre, or whose silhouette is too large or elongated for its kind, is tilted
(``cocked``). Pip D6 faces are counted on the squared-up top face and checked against the
3x3 grid; taught faces are compared, at every rotation, with the taught crops: by the
directions of the symbol's edges, and by lightness (a polar patch, correlated over the angle
by FFT, then upright). Blur, glare, bad light or a weak match give ``unreadable``: the
reader never guesses on those.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from . import tilt
from .features import (
    body_feature,
    colour_pips,
    face_crop,
    fine_features,
    fine_likeness,
    glare_fraction,
    gradient_scores,
    grid_pips,
    match_many,
    middle,
    read_pips,
    sharpness,
    template_bank,
    verify,
)
from .model import MAX_LIKELY, DiceError, DieReading
from .pips import WORK, Found, PipReading
from .profile import PIPS, KindModel, Profile
from .segment import (
    MIN_AREA_PX,
    Blob,
    Unexplained,
    as_seen_in,
    balanced,
    check_frame,
    denoised,
    die_at,
    exposure_gain,
    find_blobs,
    shape_of,
    split_at,
    teaching_blobs,
)
from .tiltrules import outline_tilted, size_tilted

# A die cannot rest tilted on a flat tray by itself: it leans on another die or on the
# tray's wall. A die the tilt rules call tilted is read as flat when nothing is near it
# (DiceReader._alone): no other die's centre within ALONE_CENTRES of their mean size nor its
# outline within ALONE_GAP of the die's size, no frame edge within ALONE_EDGE (a wall may be
# just beyond it) nor a tray wall the empty tray shows within ALONE_WALL (a die leaning on
# it touches it);
# and when it is seen whole (ALONE_SIZE of its kind's flat size) and, of a taught kind, read
# ALONE_TAUGHT sure (_flat_for_want_of_support). Chosen on eight towers of the two
# independent renderers (docs/vision.md).
# ... chosen again on the 33 tuning towers of four renderers (b100-b103, b107, b116-b119,
# c10-c15, d9000-d9011, a8100, a8200, a8620-a8623: 5,629 dice; before 1.8, 0.5 and 0.3 for
# edges and walls alike): 37 more flat dice read (2,394 -> 2,431 of 5,009), no tilted die
# more let through, no wrong face (a tilted die 0.21 of its size from the frame's edge leant
# on the wall beyond it)
ALONE_CENTRES = 1.6
ALONE_GAP = 0.4
ALONE_EDGE = 0.25
ALONE_WALL = 0.1
ALONE_SIZE = (0.85, 1.15)
ALONE_TAUGHT = 0.95
# The tilt network (vision/dice/tilt.py, learned from the first, second and fourth
# independent renderers' towers and this project's renders) confirms or overrules the rules:
# a die the rules call tilted is cocked where the network gives it TILT_NET_CONFIRMS or more
# (more in a tower whose flat dice look tilted: below), any die where the network alone gives
# it TILT_NET_ALONE (_tilted_by). TILT_NET_CONFIRMS is 0: where the tower's taught dice look
# flat to the network and to the rules, the rules decide (this project's renders, where the
# network gives a cube leaning 19 degrees on a wall beyond the frame 0.01).
TILT_NET_CONFIRMS = 0.0
TILT_NET_ALONE = 0.55
# ... where the tower's flat dice look tilted, the network needs more to confirm the rules:
# TILT_NET_CONFIRMS plus TOWER_LEANING times the network's mean answer for the tower's taught
# dice (each resting flat, Profile.add_example), plus RULES_LEANING times the share of them
# the rules call tilted (rules_share; RULES_SHARE_UNKNOWN for a profile taught before it was
# kept), at most TILT_NET_ALONE. A close or tilted camera shows the side faces of flat dice
# away from the middle of its frame, as a tilted die's are seen: the rules call 12 to 88 % of
# the independent renderers' taught dice tilted (docs/vision.md, "One tilt network, learned
# longer"), and none of this project's. A profile taught before the rules' verdicts were kept
# counts as a tower whose rules call 30 % of its flat dice tilted: it confirms at 0.15 and
# more, as before.
# Chosen on the towers the network never learned from (b100-b103, b107, b116-b119, c10-c15:
# 2,364 flat dice, 387 tilted), for the most flat dice with no fewer tilted dice flagged than
# the two networks before it and no more than 10 wrong faces, where TILT_NET_ALONE is 0.55 or
# more (this project's renders: a flat die beside another is given 0.50): flat dice clean and
# right 1,453 -> 1,569, tilted dice flagged 320 -> 323, wrong faces 6 -> 9 (TILT_NET_ALONE
# 0.45, TOWER_LEANING 0.5, RULES_LEANING 0.7: 1,607, 323 and 10). On all 33 tuning towers
# 2,455 -> 2,843 of 5,009 flat dice, 709 -> 712 of 848 tilted dice flagged, 14 -> 22 wrong
# faces: flat dice whose face the reader misreads, called tilted before
TOWER_LEANING = 0.25
RULES_LEANING = 0.5
RULES_SHARE_UNKNOWN = 0.3
# The network's answer for a die as seen decides alone outside these, else the die is turned
# three more ways (vision/dice/tilt.py): a die the rules call tilted, whose verdict is an
# answer of TILT_NET_CONFIRMS or more (up to TILT_NET_ALONE in a tower whose flat dice look
# tilted), and one they pass (TILT_NET_ALONE). On the towers that chose the thresholds (with
# the first network, before 2026-11-30, last) and 2,129 dice of this project's renders, no
# verdict differs from
# those of the four turns for every die, where the single band UNSURE (0.02 to 0.9) turned
# 17 % of this project's dice and 92 % of the second renderer's: now 5 % and 59 %. (A tower
# whose taught dice look flat to the network and the rules confirms the rules at under 0.02:
# there an answer as seen that low is not turned, and the rules decide.)
TILT_NET_UNSURE = {True: (0.02, 0.6), False: (0.15, 0.9)}
# Where the rules call more than RULES_TRUSTED of the tower's taught dice tilted (each rests
# flat: the rules misfire on this camera), they are not asked at all: the network alone
# decides, a die being tilted from TILT_NET_UNRULED (without the network, the rules still
# decide). On every independent renderer's tower measured the rules call 10 to 85 % of the
# taught dice tilted, on this project's none. Measured on the 16 tuning towers with the rules
# weighed as above, the network's answer alone told tilted dice from flat ones as well as any
# weighting of it with the rules' cues (a logistic fit, each tower left out: AUC 0.907 either
# way), and at the tilted dice the reader flagged it called 440 flat dice tilted where the
# reader called 514 (five fresh towers: 107 for 173; the fifth renderer's: 130 for 155).
# TILT_NET_UNRULED chosen on the tuning towers (2,404 flat dice, 416 tilted), the most flat dice
# read with no fewer tilted dice flagged and no more wrong faces: flat dice clean and right
# 69.4 -> 72.3 %, tilted dice flagged 85.3 % either way, wrong faces 3 (0.35: 70.4 % and
# 87.3 %; 0.45: 74.9 % and 82.9 %, 4 wrong; docs/vision.md, "The tilt rules not asked where
# they misfire")
RULES_TRUSTED = 0.05
TILT_NET_UNRULED = 0.39
NOT_TURNED = (1.0, 0.0)  # a band no answer lies in
MIN_SHARPNESS = 0.3  # or less, where the tower's taught pictures are softer:
SHARP_OF_USUAL = 0.3  # a die blurrier than this share of its kind's taught sharpness
MAX_GLARE = 0.06
# ... unless its taught face is read this sure: then what is saturated is its light symbol
# under a bright lamp, hiding nothing (a glare over a symbol leaves it unsure or unread)
GLARE_READ = 0.99
GAIN_RANGE = (0.45, 2.2)  # the light compared with the empty tray's
CLEAN_CONFIDENCE = 0.5
# ... a pip face is clean from PIPS_CLEAN: the face classifier (vision/dice/pips.py), asked
# about a pip die its count does not settle, says "clean" by its own threshold, calibrated
# on real photographs from above; on the towers of other renderers, its faces read at 0.5 to
# 0.6 were wrong one time in four (chosen on the 17 tuning and 19 first fresh towers of
# 2026-11-30; from 0.6 to 0.65, 21 of 21 right). At 0.5 / 0.55 / 0.6, flat dice clean and right
# 1,842 / 1,839 / 1,834 of 2,692 and 1,686 / 1,683 / 1,672 of 2,803, wrong faces 13 / 11 / 8
# of 3,140 and 9 / 7 / 5 of 3,274 (docs/vision.md)
PIPS_CLEAN = 0.6
# a taught face is matched, not counted: its neighbours' numerals can look like it, so only
# a clear match is clean (measured on renders of another renderer: bench/independent_dice_bench.py)
TAUGHT_CLEAN_CONFIDENCE = 0.9
# ... and from UNALIKE_CLEAN in a kind whose taught pictures of one face are unlike each
# other (KindModel.pictures_alike under PICTURES_ALIKE: the tower's camera or light shows a
# face differently from picture to picture, its top face often found wrongly). On the 33
# tuning towers of three independent renderers (b100-b103, b107, b116-b119, c10-c15,
# d9000-d9011, a8100, a8200, a8620-a8623), taught faces read clean in kinds whose pictures
# were 0.85 alike or more were right 1,313 times in 1,315; in the others 131 times in 139,
# and 50 times in 56 from 0.9 to 0.95 (52 of 52 from 0.99)
PICTURES_ALIKE = 0.85
UNALIKE_CLEAN = 0.95
MATCH_FLOOR, MATCH_GOOD = 0.80, 0.95  # upright correlation scores
MATCH_MARGIN = 0.06
COLOUR_MAX_DISTANCE = 40.0  # farther from every taught colour: colour unknown (None)
# a die read clean as a kind, whose body lies COLOUR_OWN_FAR to COLOUR_MAX_DISTANCE from
# the nearest colour that kind was taught in, and another kind's taught colour
# COLOUR_REFUTES times nearer, is not clean: it is likely a die of that other kind (blue and
# white pip dice read as a black symbol die's POWER at 0.9 to 0.95). A die farther from all
# its kind's colours is one of a colour its kind was not taught in (a white symbol die in a
# tower that taught black ones and white pip dice): its colour says nothing. Of 5,544 clean
# readings of kinds taught in a colour, on 58 towers of the three independent renderers
# (bench/independent_dice_bench.py), it caught 7 of their 11 of a wrong kind and cleared 4
# right ones (white pip dice in shade, nearest a black die's colour; a black symbol die's
# large white POWER)
COLOUR_OWN_FAR = 4.0
COLOUR_REFUTES = 3.0
# A die whose nearest colour is none its kind was taught in (or whose kind is not settled) is
# named by the way its hue leaves grey where that way and the nearest colour's lie HUE_APART
# degrees or more apart and another taught colour's within HUE_NEAR (_by_hue); a hue under
# HUE_CHROMA from grey (in log B/G, log R/G) has no way. A light that changes a die's shading
# (a glossy top face lit differently on the tray than where it was taught) moves its body's
# measure far from its taught colour but keeps the way of its hue: on the fourth renderer's
# tuning tower d9161, green D12s were measured 250 from their taught green and 21 from the
# yellow of the symbol dice, 16 and 55 degrees away, and 28 were named yellow. Chosen on the
# 36 tuning towers of bench/tower_sets.py (5,379 flat dice named a colour): 29 named wrong
# were named right, none named right changed, for any HUE_APART 30 to 40 and HUE_NEAR 20 to
# 25 at HUE_CHROMA 0.3 (at 0.2 one to three right ones turned wrong where HUE_NEAR was 25 to
# 30; from 0.4 it changed one die or none: the symbol dice's pale yellow is 0.40 from grey)
HUE_CHROMA = 0.3
HUE_APART = 40.0
HUE_NEAR = 25.0
# A die like none of its kind's taught colours is of a colour its kind was not
# taught in, and its colour says nothing... unless it is the colour of the dice of other
# kinds: then it is likely one of those (red pip dice and blue D12s read as a purple and black
# symbol die's POWER, 0.91 to 1.0 sure, on the third renderer's fresh towers c34-c36). On the
# 33 tuning towers of three independent renderers (b100-b103, b107, b116-b119, c10-c15,
# d9000-d9011, a8100, a8200, a8620-a8623), of 2,524 clean readings of taught colours, it took
# 2 wrong ones and no right one. "The colour of other kinds' dice" was COLOUR_OWN_FAR until
# 2026-12-01; since then it is what the rule above asks of a colour that belies a kind:
# COLOUR_REFUTES times nearer than the farthest a die of a taught colour lies
# (COLOUR_MAX_DISTANCE / COLOUR_REFUTES). Black pip dice showing 2 were read as a purple
# symbol die's HEART, 1.0 sure, 101 from purple and 5.3 from the black of the pip dice (fresh
# tower c87); on the 62 towers of five renderers measured since 2026-11-30 (11,137 dice) the
# wider reach took that wrong reading and no right one. A player who owns such a die teaches
# its kind that colour: one tap on the tablet when it is set by hand as its own kind, else
# Dice tower -> Teach a die (a die offered as another kind, KIND_OF_COLOUR, is not kept).
PIPS_SURE = 0.9  # a pip reading this sure is not compared with the taught faces
# ... nor is a die whose outline looks round (a well-rounded pip die, or a cube with a side
# face seen) whose pips count one of these faces this sure. A D12's numeral and its dot count
# as a 1 or a 2 at 1.0 (on the 33 tuning towers of four independent renderers, 18 D12s), never
# as more: of 48 such dice counted 3 to 6, all were pip dice showing that face, 14 of them flat
# and read as another kind's face before
ROUND_PIPS = frozenset("3456")
# A sure count of one pip (LONE_PIP) is compared with the taught faces all the same: a single
# mark is what a symbol or a numeral seen small looks like too (the fifth renderer's fresh
# tower e314: ivory symbol dice's FAME and POWER counted as a pip die's 1, two of them 0.9 and
# 1.0 sure, and reported clean). Where the taught faces read it clean as another kind's face,
# it is not clean: the player sets it (e314, looked at: wrong faces 5 -> 3 of 184; on 57
# tuning, fresh and later towers of five renderers no reading changed)
LONE_PIP = "1"
# ... nor where a taught face of another kind is LONE_PIP_LIKENESS alike to it by the taught-face
# vectors, clean or not: as alike as a kind's own pictures of one face must be to count alike
# (PICTURES_ALIKE). A symbol's or a numeral's blob counts as one mark as surely as a pip does,
# and then the vectors still see the symbol. Chosen on the 36 tuning towers (2026-12-07): the
# pip dice read clean as a 1 were at most 0.91 like another kind's face (0.63 at the median,
# 0.86 at the 99th percentile); the one that was no pip die, c11's red D12 showing 4, was 0.90
# like that kind's 5. Through the reader that D12 and one pip die's 1 (c22) go to the player,
# nothing else changes (as before, the face classifier's own clean 1 outvotes the taught
# faces). Asked of every 1, sure or not, it caught no other die there and lost four pip 1s more
LONE_PIP_LIKENESS = 0.85
# the edge-direction match (features.gradient_scores) decides a taught face: its best face
# is clean alone when it beats every other face, of every taught kind, by GRAD_SURE; by
# GRAD_AGREED when the upright comparison names the same face with confidence at least
# CLEAN_CONFIDENCE. (Chosen on eight towers of the independent renderer, where no taught
# die was wrong from 0.11 on, one at 0.10 and two at 0.09.)
GRAD_SURE = 0.11
GRAD_AGREED = 0.02
# ... and only when the die looks like that face at all: its best likeness at least
# GRAD_LIKENESS. A lead says the face is likelier than the others, not that the die shows
# it: a numeral none of the taught faces shows well (a D12's 3 and 5, 11 and 12, seen
# small) can lead by chance. (Chosen on 26 towers of the independent renderer: the best
# likeness of all wrong faces but one was 0.79 to 0.85, the right ones' 0.85 or more in 95
# in 100; at 0.84 the wrong faces went from 0.28 and 0.61 % to 0.21 and 0.14 %, the flat
# dice read from 45.3 and 42.8 % to 44.0 and 42.1 %.)
GRAD_LIKENESS = 0.84
# ... or, with a smaller lead, when a closer look at its two likeliest faces
# (features.fine_likeness: every pixel's move, half turns) likes the first better by
# PAIR_SURE. Chosen on 18 tuning towers of the independent renderer (bench/tray_renderer.py:
# 7000, 8100-8101, 8200-8202, 8300-8301, 8600-8605, 8616-8619). Of 120 flat dice of the first
# eight whose lead was under GRAD_SURE at GRAD_LIKENESS or more, 93 % had the first face
# right; from a closer lead of 0.05, 96 of the 97 so confirmed were right, from 0.08 all 83.
# Read whole (flat dice read right / wrong faces, first eight and last ten): none 44.0 % /
# 0.21 % and 36.8 % / 0.18 %; 0.05: 47.8 % / 0.21 % and 38.9 % / 0.28 %; 0.08: 47.5 % /
# 0.21 % and 38.2 % / 0.18 %.
PAIR_SURE = 0.08
# A die the first look likes less than GRAD_LIKENESS, from CLOSER_FROM, is looked at closely
# too, and confirmed only where the closer look finds it CLOSER_LIKENESS like the face (the
# first look's steps cost a right face its likeness). On the same 18 towers: flat dice read
# right 47.5 -> 48.7 % and 38.2 -> 39.2 %, wrong faces unchanged; at 0.88, 49.6 % and
# 39.7 %, but the first eight's wrong faces 0.21 -> 0.28 %.
CLOSER_FROM = 0.75
CLOSER_LIKENESS = 0.9
# The taught-face vectors (vision/dice/taught.py) decide a taught face: its best face is
# clean where the die is VECTOR_LIKENESS like it (cosine of the vectors, the best taught
# picture of that face) and VECTOR_SURE more like it than like any other taught face of every
# kind. Chosen on the first independent renderer's eight dev towers (7000, 8100-8101,
# 8200-8202, 8300-8301: never learned from) and the second's four (100-103), flat dice read
# right / wrong faces / tilted dice flagged:
#   edges alone (before):     48.7 % / 0.21 % / 87.4 %  and  38.1 % / 0.15 % / 80.4 %
#   0.85, 0.05:               58.7 % / 0.63 % / 74.8 %  and  47.2 % / 0.07 % / 75.0 %
#   0.9, 0.05:                58.4 % / 0.35 % / 77.4 %  and  47.0 % / 0.07 % / 76.6 %
#   0.9, 0.08:                57.9 % / 0.28 % / 77.8 %  and  46.7 % / 0.07 % / 76.6 %
#   0.93, 0.05:               57.1 % / 0.28 % / 78.3 %  and  46.0 % / 0    % / 77.7 %
# (tilted dice flagged fall because the tilt rules miss them: they had been unreadable only
# because their face was; the vectors read most of them, with the face they show)
VECTOR_LIKENESS = 0.9
# The network learned from three renderers (2026-11-30, final) puts a die nearer more of the
# taught faces. On the towers that chose these (the second renderer's b100-b103, b107,
# b116-b119 and the third's c10-c15, which neither network learned from), a lead of 0.08 read
# 1,618 flat dice of 2,364 with 15 wrong faces (the network before: 1,551 and 9); from 0.12,
# 1,588 and 10 (0.93 alike from 0.08: 1,578 and 12). A face the vectors are sure of keeps the
# earlier confidence scale, VECTOR_LEAD_SCALE (0.9 at that lead, 1 at twice): the bars that
# ask a taught face 0.95 sure (ALONE_TAUGHT, UNALIKE_CLEAN) were chosen on it. 0.12 until
# 2026-12-06; chosen again then on the 16 tuning towers of bench/tower_sets.py (four
# renderers; the colour rules, the 8-bit network and the agreement below since), flat dice
# clean and right / tilted dice flagged / wrong faces: 0.12: 74.50 % / 85.58 % / 4; 0.10:
# 75.17 % / 85.58 % / 4; 0.08: 75.33 % / 85.34 % / 4 (the most flat dice with no fewer tilted
# dice flagged and no more wrong faces: 0.10)
VECTOR_SURE = 0.10
VECTOR_LEAD_SCALE = 0.08
# A face the edges are sure of only with help (the upright comparison names it too, or a
# closer look confirms it), that the vectors are unsure of, is clean only where the vectors
# like it best as well (_by_vectors): it was right 18 times in 26 where they liked another face
# better (44 in 47 where they did not), on the flat dice read clean of 33 tuning towers of
# three independent renderers (b100-b103, b107, b116-b119, c10-c15, d9000-d9011, a8100,
# a8200, a8620-a8623). One the edges are sure of alone stands as before (54 of 54 and 5 of 7).
# Where neither is sure alone, the two name the same face: the vectors' best face (at least
# AGREED_LIKENESS like the die, AGREED_VECTOR_LEAD ahead of every other face of every kind) is
# the edges' best face too (AGREED_EDGE_LEAD ahead), and the die is read that face as sure as
# its kind's faces must be to be clean (TAUGHT_CLEAN_CONFIDENCE; UNALIKE_CLEAN in a kind whose
# pictures are unlike; since 2026-12-07 settled, not clean: AGREED_CLEAN). Two comparisons
# made differently (a network's vectors; the directions of the crop's edges) seldom lead to
# the same wrong face. On the 16 tuning towers
# (bench/tower_sets.py) it reads 34 flat dice more clean and right (73.09 -> 74.50 %), no wrong
# face more, no tilted die flagged less (docs/vision.md, "Two comparisons that agree")
AGREED_LIKENESS = 0.8
AGREED_VECTOR_LEAD = 0.04
AGREED_EDGE_LEAD = 0.02
# ... but in a kind whose taught pictures are unlike each other (PICTURES_ALIKE) the two
# agreeing make the die's kind sure (TAUGHT_CLEAN_CONFIDENCE: its colour is named among its
# kind's), not its face (UNALIKE_CLEAN is that kind's bar): there the two were right 38 times
# in 42 on the 36 tuning towers of five renderers (bench/tower_sets.py tuning, tuning2; 46
# times in 47 in the other kinds), mostly a D12's numerals alike at that size, where a clean
# face must be right 99 times in 100, and no bound on the vectors' or the edges' lead told
# those four from the 38 (docs/vision.md, "Two comparisons agreeing in a kind whose pictures
# are unlike"). 1: the face is clean there too (the reader before)
AGREED_IN_UNALIKE = 0
# ... and since 2026-12-07 the two agreeing make no face clean in any kind: the die's kind is
# settled (its colour named among its kind's), its face offered first, a player sets it. Of
# the dice the path made clean where a kind's pictures are alike, 46 in 47 had the right face on
# the 36 tuning towers (97.9 %, under the 99 in 100 a clean face promises), 136 in 141 on the
# six held-out sets (docs/vision.md, "Two comparisons agreeing make no face clean"). 1: the
# face is clean as AGREED_IN_UNALIKE says (the reader before)
AGREED_CLEAN = 0

# A die the reader is not sure of whose colour belies the kind it read (_colour_refutes), and
# that only one kind was taught in, is offered to a player as that kind (_kind_of_colour). On
# the 62 rendered towers of five renderers measured since 2026-11-30 (11,137 dice), of the
# 4,789 dice not read clean the kind was right for 3,913, and is so for 4,311: 451 set to
# their kind, 27 away from it (21 of them symbol dice or D12s of a colour only the pip dice
# were taught in); no clean reading, status or colour changed
KIND_OF_COLOUR = True
SHORTLIST = 3  # faces compared upright after the polar shortlist
EXAMPLES_VERIFIED = 1  # examples of each of those faces compared upright (2: no better since
# the upright check looks at the middle only, at the refined angle)

# (kind, face, confidence, likeliest faces)
Reading = tuple[str | None, str | None, float, tuple[str, ...]]


@dataclass
class Ranks:
    """How :meth:`DiceReader._faces` ranked a die's faces, kept for a die offered to a player
    as another kind than it was read as (:meth:`DiceReader._read_one`): every taught kind's
    faces by the taught-face vectors and by the directions of their edges, best first, and
    the pip faces the face classifier found likeliest. None: not worked out for this die."""

    vectors: list[tuple[float, str, str]] | None = None
    edges: list[tuple[float, str, str]] | None = None
    pips: tuple[str, ...] | None = None
    agreed: bool = False  # settled by the two comparisons agreeing (_agreement) alone


class DiceReader:
    def __init__(self, profile: Profile) -> None:
        if profile.background is None:
            raise DiceError("the profile has no empty tray: run `dice background` first")
        self.profile = profile
        self.bg = profile.tray()
        # per taught kind: its templates' polar spectra (template_bank), their faces, and
        # the middles the upright check compares; worked out when a die first needs them
        # (:meth:`_templates_of`: most frames' dice are read by their vectors alone, and a
        # tower's 72 templates cost 1.5 ms a read, the camera tower's profile loaded afresh)
        self._templates: dict[str, tuple[np.ndarray, list[str], list[np.ndarray]]] = {}
        self._examples: dict[str, tuple[list[str], list[np.ndarray]]] = {}  # as they are now
        # per taught kind: its crops' radius and its model (whose examples may grow while
        # the reader runs: a die taught from a throw)
        self._grad_kinds: dict[str, tuple[float, KindModel]] = {}
        for name, m in profile.kinds.items():
            if m.builtin or not m.examples:
                continue
            self._examples[name] = m.example_crops()
            if m.patch_radius_px is not None:
                self._grad_kinds[name] = (m.patch_radius_px, m)
                m.gradients()  # now, not at the first throw (ready in a saved profile)
        self._colours = {c: (np.mean(fs, axis=0), np.maximum(np.std(fs, axis=0), 0.06))
                         for c, fs in profile.colours.items()}
        # what the network's answer must reach to confirm the tilt rules, in this tower: more
        # where its flat dice look tilted to the network or to the rules
        leaning = [v for m in profile.kinds.values() for v in m.leaning]
        share = rules_share(profile.kinds.values())
        # whether the tilt rules are asked in this tower (a profile taught before their
        # verdicts on its pictures were kept: as before, weighed by RULES_SHARE_UNKNOWN)
        self.rules_trusted = share is None or share <= RULES_TRUSTED
        self.tilt_confirms = min(TILT_NET_ALONE, TILT_NET_CONFIRMS
                                 + TOWER_LEANING * (float(np.mean(leaning)) if leaning else 0.0)
                                 + RULES_LEANING * (RULES_SHARE_UNKNOWN if share is None
                                                    else share))
        sizes = [m.size_px for m in profile.kinds.values() if m.size_px]
        self.die_area = max(sizes) ** 2 if sizes else None  # larger is more than one die
        self._die_px = float(np.median(sizes)) if sizes else None  # a die's usual size
        # smaller is a crumb (a sliver of shadow, a rim): not a die
        self.min_area = max(MIN_AREA_PX, 0.3 * min(sizes) ** 2) if sizes else MIN_AREA_PX
        self.least_die = min(sizes) ** 2 if sizes else None  # the smallest die's area
        # what a cut leaves over is a die too when this large (and compact: split_at)
        self._rest = REST_OF_DIE * self.least_die if self.least_die else 0.0
        # each kind's least sharpness: the fixed one, or less where the tower's taught
        # pictures are softer (this camera's dice, not this project's renders)
        self._least_sharp = {name: min(MIN_SHARPNESS, SHARP_OF_USUAL * m.usual_sharpness)
                             if m.usual_sharpness is not None else MIN_SHARPNESS
                             for name, m in profile.kinds.items()}

    # ------------------------------------------------------------ segmentation

    def blobs(self, frame: np.ndarray, name: str = "frame", teaching: bool = False,
              gain: float | None = None) -> tuple[list[Blob], float]:
        """(the dice, the frame's light compared with the empty tray's).
        ``teaching``: one die of a kind whose size is not known yet. ``gain``: that light
        where it is known already (the frame checked)."""
        if teaching:
            return teaching_blobs(frame, self.bg, name)
        if gain is None:
            check_frame(frame, self.bg, name)
            gain = exposure_gain(frame, self.bg)
        # a part cut free of its shadow keeps at least this much (else it was no shadow)
        least_area = SHADOW_KEEPS * self.least_die if self.least_die else 0.0
        # a noisy camera's dice are found on the frame smoothed, and read as it is
        seen = denoised(frame, self.bg)
        places: list[Unexplained] = []
        blobs = find_blobs(seen, self.bg, gain, min_area=self.min_area, die_area=self.die_area,
                           least_area=least_area, cut_away=places)
        found = self._guided(seen, blobs)
        found += self._unexplained(seen, gain, places, found)
        return as_seen_in(found, seen, frame), gain

    def _unexplained(self, frame: np.ndarray, gain: float, places: list[Unexplained],
                     found: list[Blob]) -> list[Blob]:
        """Dice the colours saw only in part (``places``: :class:`segment.Unexplained`): a
        black die the shadow cut took away with its shadow, a die of the tray's own shade of
        which only its light symbol was seen. The die finder is asked round each place; a
        centre it is LOOK_SCORE sure of, in the place (or round a mark), away from every die
        found, is a die: the watershed from its centre to the tray round it outlines it
        (:func:`segment.die_at`), unless that outline lies over a part found already that is
        smaller than a die (LESS_THAN_A_DIE: a piece of that die, whose reading stands).
        LOOK_SCORE above 1 asks nothing (the reader before, for comparison)."""
        if not places or self.least_die is None or LOOK_SCORE > 1:
            return []
        finder = _learned()
        if finder is None:
            return []
        side = math.sqrt(self.least_die)
        fh, fw = frame.shape[:2]
        scale = WORK / max(fh, fw)
        # the finder looks once over each box where places' surroundings overlap (a frame of
        # many marks, a textured tray's crumbs, costs at most a look over the frame)
        grows = [int(side / 2) if p.around else 0 for p in places]
        windows = [(max(0, p.x0 - GUIDE_PAD - g), max(0, p.y0 - GUIDE_PAD - g),
                    min(fw, p.x0 + p.mask.shape[1] + GUIDE_PAD + g),
                    min(fh, p.y0 + p.mask.shape[0] + GUIDE_PAD + g))
                   for p, g in zip(places, grows)]
        seen: dict[tuple[int, int, int, int], list[Found]] = {}
        for x0, y0, x1, y1 in _merged(windows):
            seen[x0, y0, x1, y1] = [Found(f.x + x0, f.y + y0, f.size, f.score)
                                    for f in finder.find(frame[y0:y1, x0:x1], scale)]
        out: list[Blob] = []
        for p, g, w in zip(places, grows, windows):
            # the centres of the box this place's window lies in, in the finder's order
            box = next(k for k in seen if k[0] <= w[0] and k[1] <= w[1]
                       and w[2] <= k[2] and w[3] <= k[3])
            for f in seen[box]:
                if f.score < LOOK_SCORE or any(
                        math.hypot(f.x - b.cx, f.y - b.cy) < ONE_DIE_REACH * side
                        or _holds(b, f.x, f.y) for b in found + out):
                    continue
                # in the piece; round a mark, within half a die of its box
                if not _near_place(p, g, f.x, f.y):
                    continue
                b = die_at(frame, self.bg, gain, f.x, f.y, max(f.size, side))
                # (over a piece smaller than a die, found already: the die that piece is of)
                if b is not None and SHADOW_KEEPS * self.least_die <= b.area and not any(
                        o.area < LESS_THAN_A_DIE * self.least_die and _within(b, o, 0)
                        for o in found):
                    out.append(b)
        return out

    def _guided(self, frame: np.ndarray, blobs: list[Blob]) -> list[Blob]:
        """The die finder's centres (vision/dice/pips.py: learned from real photographs and
        renders) cut a part holding several dice into one blob per die. It is asked only
        when a part is large enough to hold two of the smallest taught dice (or nothing is
        taught yet): most frames need no second look."""
        large = [self.least_die is None or b.area >= 1.5 * self.least_die for b in blobs]
        finder = _learned() if any(large) else None
        if finder is None:
            return [p for b in blobs for p in self._by_area(frame, b)]
        fh, fw = frame.shape[:2]
        scale = WORK / max(fh, fw)  # the finder sees each part at the whole frame's scale
        out = []
        # the dice a part's seams cut apart share its box: the finder looks at each box once
        seen: dict[tuple[int, int, int, int], list[Found]] = {}
        for b, look in zip(blobs, large):
            if not look:
                out.append(b)
                continue
            h, w = b.mask.shape
            x0, y0 = max(0, b.x0 - GUIDE_PAD), max(0, b.y0 - GUIDE_PAD)
            x1, y1 = min(fw, b.x0 + w + GUIDE_PAD), min(fh, b.y0 + h + GUIDE_PAD)
            if (x0, y0, x1, y1) not in seen:
                seen[x0, y0, x1, y1] = finder.find(frame[y0:y1, x0:x1], scale)
            inside = [Found(f.x + x0, f.y + y0, f.size, f.score)  # in the frame
                      for f in seen[x0, y0, x1, y1]
                      if f.score >= GUIDE_SCORE and _holds(b, f.x + x0, f.y + y0)]
            if self.least_die is not None and CENTRES_JOINED:
                inside = _one_per_die(inside, CENTRES_JOINED * math.sqrt(self.least_die))
            out.extend(split_at(frame, b, [(f.x, f.y, f.size) for f in inside],
                                rest=self._rest) if len(inside) >= 2 else
                       self._by_area(frame, b))
        return out

    def _by_area(self, frame: np.ndarray, b: Blob) -> list[Blob]:
        """A part as large as several of the largest taught dice, that neither its seams nor
        the finder cut (dice of a kind the finder was not taught, pressed together: a D12
        against a cube), cut into that many dice: a watershed grown from the centres of as
        many clusters of its pixels."""
        if self.die_area is None or b.area < SEVERAL_DICE * self.die_area:
            return [b]
        if glare_fraction(frame, b) > MAX_GLARE:
            return [b]  # a glare's light spreads the part: one unreadable part, where it is
        n = max(2, min(MAX_BY_AREA, round(b.area / self.die_area)))
        ys, xs = np.nonzero(b.mask)
        pts = np.column_stack([xs, ys]).astype(np.float32)
        criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
        cv2.setRNGSeed(0)  # the same cut of the same frame every time
        _, _, centres = cv2.kmeans(pts, n, None, criteria, 3, cv2.KMEANS_PP_CENTERS)
        size = math.sqrt(self.die_area)
        return split_at(frame, b, [(float(x) + b.x0, float(y) + b.y0, size)
                                   for x, y in centres], rest=self._rest)

    @staticmethod
    def shape_of(b: Blob) -> str:
        return shape_of(b.circularity, b.rectangularity)

    # ------------------------------------------------------------ reading

    def read(self, frame: np.ndarray, name: str = "frame") -> list[DieReading]:
        """Every die in ``frame`` (BGR uint8 of the profile's size). Raises DiceError naming
        ``name`` for a frame that cannot be read at all (wrong size, black, white)."""
        check_frame(frame, self.bg, name)
        raw = frame
        frame, light = balanced(frame, self.bg)  # another lamp, exposure or white balance
        blobs, gain = self.blobs(frame, name, gain=light if frame is raw else None)
        square_ref = self._frame_square_size(blobs)
        shapes = [self.shape_of(b) for b in blobs]
        kept: dict[int, Ranks] = {}  # the rankings _faces worked out, for a die offered
        faces = self._faces(blobs, shapes, frame, kept)  # as another kind (_read_one)
        net = tilt.shipped()
        # the tilt rules' verdicts, where they are asked (RULES_TRUSTED: not in a tower whose
        # taught dice they call tilted, where the network alone decides)
        rules = ([False] * len(blobs) if net is not None and not self.rules_trusted else
                 [self._tilted(b, shape, self._flat_size(face[0], square_ref))
                  for b, shape, face in zip(blobs, shapes, faces)])
        inputs = [tilt.tilt_input(frame, b) for b in blobs] if net is not None else []
        # (where the tower confirms the rules at under the band, a die the rules call tilted
        # is so at any answer but the least: its answer as seen is not turned)
        bands = [TILT_NET_UNSURE[r] if not r or self.tilt_confirms >= TILT_NET_UNSURE[r][0]
                 else NOT_TURNED for r in rules]
        leaning = (net.tilted(inputs, bands).tolist()
                   if net is not None else [None] * len(blobs))
        least_side = math.sqrt(self.least_die) if self.least_die else None
        dice = [self._read_one(frame, gain, b, face, square_ref,
                               functools.partial(self._alone, blobs, i, frame.shape),
                               light=light, raw=raw, rules=r, leaning=p,
                               confirms=self.tilt_confirms,
                               alone_from=TILT_NET_ALONE if self.rules_trusted
                               else TILT_NET_UNRULED, ranks=kept.get(i))
                for i, (b, face, r, p) in enumerate(zip(blobs, faces, rules, leaning))]
        return _pieces_joined(_small_pieces_dropped(dice, [b.size for b in blobs], least_side),
                              least_side)

    def _flat_size(self, kind: str | None, square_ref: float | None) -> float | None:
        """How large a flat die of ``kind`` looks (its taught size; for a pip D6 the profile
        does not know, the frame's flat square dice's), or None."""
        if kind is None:
            return None
        return self.profile.kinds[kind].size_px or (square_ref if kind == PIPS else None)

    def _frame_square_size(self, blobs: list[Blob]) -> float | None:
        """A pip D6's flat size when the profile does not know it: the median of the dice in
        the frame that look flat and square."""
        m = self.profile.kinds.get(PIPS)
        if m is not None and m.size_px:
            return m.size_px
        flat = [b.size for b in blobs if self.shape_of(b) == "square" and b.aspect < 1.08
                and b.top_offset < 0.04 and b.rectangularity > 0.9]
        return float(np.median(flat)) if len(flat) >= 2 else None

    def _read_one(self, frame, gain, b: Blob, reading: Reading, square_ref,
                  alone: Callable[[], bool], light: float, raw: np.ndarray, rules: bool,
                  leaning: float | None, confirms: float = TILT_NET_CONFIRMS,
                  alone_from: float = TILT_NET_ALONE, ranks: Ranks | None = None
                  ) -> DieReading:
        """``alone``: whether nothing lies near the die for it to lean on (asked only of a
        die the tilt rules call tilted). ``light``: how much brighter the frame was than the
        empty tray before it was balanced (``gain`` is after), and ``raw``: the frame as the
        camera gave it (its saturated pixels are a glare's). ``rules``: whether the tilt
        rules call the die tilted (:meth:`_tilted`), and ``leaning``: how likely the tilt
        network (vision/dice/tilt.py) says it is (None without it: the rules alone
        decide), and ``confirms``: how likely it must say so to confirm the rules, and
        ``alone_from``: to call the die tilted by itself (TILT_NET_ALONE; TILT_NET_UNRULED
        where the rules are not asked). ``ranks``: the rankings :meth:`_faces` worked out for
        the die (None: none), which a die offered as another kind by its colour takes its
        faces from."""
        x, y = b.cx, b.cy
        kind, face, conf, likely = reading
        # the kind's own colours only where the kind is sure (a face read clean enough) and
        # its colour does not belie it
        body = self._body(frame, gain, b, raw)
        far = self._colour_distances(body)
        refuted = _settled(reading) and self._colour_refutes(kind, far)
        colour = self._colour(far, kind if _settled(reading) and not refuted else None,
                              None if body is None else body[1:])

        def result(status, face=None, conf=0.0, kind=kind):
            # the ranking is kept whatever the verdict: a person picks from it; a die not
            # clean, of a colour only one other kind was taught in, is of that kind
            ranked = likely
            if status != "clean":
                of_colour = self._kind_of_colour(kind, colour, far)
                if of_colour != kind:  # (its face and ranking were the other kind's)
                    kind, face, conf, ranked = of_colour, None, 0.0, ()
                    if kind == PIPS:  # the pip faces offered: the face classifier's
                        ranked = (ranks.pips if ranks is not None and ranks.pips is not None
                                  else _pip_faces(frame, b))
                    elif kind is not None:  # a taught kind's: its taught faces'
                        ranked = self._faces_of_kind(b, kind, ranks)
            return DieReading(kind, face, colour, status, float(conf), float(x), float(y),
                              ranked)

        if not GAIN_RANGE[0] <= light <= GAIN_RANGE[1]:
            return result("unreadable")
        ref = self._flat_size(kind, square_ref)
        least_sharp = self._least_sharp.get(kind, MIN_SHARPNESS) if kind else MIN_SHARPNESS
        glared = glare_fraction(raw, b) > MAX_GLARE and not (
            kind is not None and kind != PIPS and conf >= GLARE_READ)
        if glared or sharpness(b, face=True) < least_sharp:
            return result("unreadable")
        if _tilted_by(rules, leaning, confirms, alone_from) and not (
                _flat_for_want_of_support(b, ref, kind, conf) and alone()):
            return result("cocked", face if conf >= CLEAN_CONFIDENCE else None,
                          conf * 0.5 if face else 0.0)
        least = PIPS_CLEAN if kind == PIPS else self._taught_clean(kind)
        agreed_alone = ranks is not None and ranks.agreed and not AGREED_CLEAN
        if kind is None or face is None or conf < least or refuted or agreed_alone:
            return result("unreadable")
        return result("clean", face, conf)

    def _taught_clean(self, kind: str | None) -> float:
        """How sure a taught face of ``kind`` must be to be clean: TAUGHT_CLEAN_CONFIDENCE,
        or UNALIKE_CLEAN where the kind's taught pictures of a face are unlike each other
        (PICTURES_ALIKE)."""
        return UNALIKE_CLEAN if self._unalike(kind) else TAUGHT_CLEAN_CONFIDENCE

    def _unalike(self, kind: str | None) -> bool:
        """Whether ``kind``'s taught pictures of a face are unlike each other (PICTURES_ALIKE:
        the tower's camera or light shows a face differently from picture to picture)."""
        m = self.profile.kinds.get(kind) if kind else None
        alike = m.pictures_alike() if m is not None else None
        return alike is not None and alike < PICTURES_ALIKE

    def _agreed_sureness(self, kind: str) -> float:
        """How sure two comparisons agreeing make a face of ``kind`` (:func:`_agreement`): as
        sure as the kind's faces must be to be clean (:meth:`_taught_clean`) where its
        pictures are alike; where they are unlike, as sure as a face of a kind whose pictures
        are alike (TAUGHT_CLEAN_CONFIDENCE): the kind stands, the face is not clean
        (AGREED_IN_UNALIKE)."""
        return self._taught_clean(kind) if AGREED_IN_UNALIKE else TAUGHT_CLEAN_CONFIDENCE

    def _alone(self, blobs: list[Blob], i: int, shape: tuple[int, ...]) -> bool:
        """Nothing near die ``i`` that it could lean on: no other die (its centre within
        ALONE_CENTRES of their mean size, or its outline within ALONE_GAP of the die's size),
        no edge of the frame (the tray's wall may be just beyond) and no wall of the tray
        (where the empty tray shows one) within ALONE_EDGE and ALONE_WALL of its size."""
        b = blobs[i]
        s = b.size
        fh, fw = shape[:2]
        h, w = b.mask.shape
        reach = ALONE_EDGE * s
        if min(b.x0, b.y0, fw - (b.x0 + w), fh - (b.y0 + h)) <= reach:
            return False
        for j, o in enumerate(blobs):
            if j != i and (math.hypot(b.cx - o.cx, b.cy - o.cy) <= ALONE_CENTRES * (s + o.size) / 2
                           or _within(b, o, ALONE_GAP * s)):
                return False
        ys, xs = np.nonzero(b.mask)
        return self.bg.wall_distance(self._die_px or s, ys + b.y0, xs + b.x0) > ALONE_WALL * s

    @staticmethod
    def _tilted(b: Blob, shape: str, ref: float | None) -> bool:
        """The tilt rules' verdict on die ``b``: its outline, and its size against ``ref``
        (a flat die's of its kind, or None)."""
        return outline_tilted(b, shape) or size_tilted(b.size, shape, ref)

    def _faces(self, blobs: list[Blob], shapes: list[str], frame: np.ndarray | None = None,
               kept: dict[int, Ranks] | None = None) -> list[Reading]:
        """(kind, face, confidence, likeliest faces) of each die. Pips first (of a die whose
        outline looks round, only a sure count of ROUND_PIPS); a die the pips do not settle
        is compared with every taught face: by the directions of its edges (all taught
        kinds, whatever the die's outline looks like), and upright (the kinds of its shape:
        the polar score shortlists, the upright comparison decides). The likeliest faces
        are the kind's, best first (a pip reading counts one face: the pips it found).
        ``kept``: filled with each die's rankings (:class:`Ranks`), by index, where given."""
        best: list[Reading] = [(None, None, 0.0, ())] * len(blobs)
        todo = []
        counts: dict[int, tuple[str | None, float]] = {}  # each die's pips, counted once
        lone = set()  # dice counted one pip, sure: compared with the taught faces all the same
        for i, (b, shape) in enumerate(zip(blobs, shapes)):
            if PIPS in self.profile.kinds:
                face, conf = counts[i] = read_pips(b)
                if shape != "square" and not (face in ROUND_PIPS and conf >= PIPS_SURE):
                    face = None  # a D12's numerals and their dots count as a 1 or a 2
                if face is not None:
                    best[i] = (PIPS, face, conf, (face,))
                    if conf >= PIPS_SURE:
                        if not (face == LONE_PIP and self._grad_kinds):
                            continue  # every pip round and on the grid: no symbol looks so
                        lone.add(i)
            todo.append(i)
        crops = self._kind_crops(blobs, todo)  # both comparisons look at them
        vectors = self._vector_ranks(crops, todo)
        # a die the vectors are sure of is theirs (_by_vectors): the other comparisons are
        # made for the rest alone
        rest = [i for i in todo if not _vectors_sure(vectors.get(i))]
        unsure = set(rest)
        if len(rest) < len(todo):
            keep = [k for k, i in enumerate(todo) if i in unsure]
            crops = {kind: c[keep] for kind, c in crops.items()}
        cands: dict[int, list] = {i: [] for i in todo}  # (polar score, kind, face, crop,
        for kind in self._examples:  # template, angle)
            m = self.profile.kinds[kind]
            if m.patch_radius_px is None:  # not taught yet
                continue
            these = [i for i in rest if shapes[i] == m.shape]
            if not these:
                continue
            bank, faces, middles = self._templates_of(kind)
            polar = np.stack([face_crop(blobs[i], m.patch_radius_px) for i in these]
                             ).astype(np.float32) * np.float32(2.55)
            scores, angles = match_many(polar, bank)
            for j, i in enumerate(these):
                for t in np.argsort(-scores[j])[:3 * SHORTLIST]:
                    cands[i].append((float(scores[j, t]), kind, faces[t], polar[j],
                                     middles[t], float(angles[j, t])))
        grads = self._gradient_ranks(crops, rest)
        if kept is not None:
            for i in todo:
                kept[i] = Ranks(vectors.get(i), grads.get(i))
        for i in todo:
            found = None
            if i in unsure:
                found = self._decide(cands[i])
                found = self._combine(grads.get(i), found,
                                      self._confirmed(blobs[i], grads.get(i)))
            found = self._by_vectors(vectors.get(i), found, _edges_alone(grads.get(i)))
            if i in lone:
                if (found is not None and found[0] not in (None, PIPS)
                        and found[2] >= self._taught_clean(found[0])) \
                        or _like_another_kind(vectors.get(i)):
                    # one mark, and a taught face of another kind read clean, or as alike as
                    # pictures of one face are: not clean
                    best[i] = (PIPS, LONE_PIP, min(best[i][2], 0.99 * PIPS_CLEAN), best[i][3])
                continue
            if found is not None and (found[2] > best[i][2] or best[i][0] is None):
                best[i] = found  # the kind stands even when the face does not
        if frame is not None and PIPS in self.profile.kinds:
            rounds = {k for k, m in self.profile.kinds.items() if m.shape == "round"}
            self._second_look(frame, blobs, todo, best, rounds,
                              square={i for i in todo if shapes[i] == "square"},
                              counts=counts, kept=kept)
        for i in _agreement(best, todo, vectors, grads, self._agreed_sureness):
            if kept is not None:
                kept.setdefault(i, Ranks()).agreed = True
        return best

    @staticmethod
    def _second_look(frame: np.ndarray, blobs: list[Blob], dice: list[int],
                     best: list[Reading], round_kinds: set[str] | frozenset[str] = frozenset(),
                     square: set[int] | None = None,
                     counts: dict[int, tuple[str | None, float]] | None = None,
                     kept: dict[int, Ranks] | None = None) -> None:
        """The dice that counting the pips and the taught faces leave unsure, looked
        at again by the face classifier of the reader without a profile (vision/dice/pips.py,
        learned from real photographs): where it is sure of a pip face, and counting the pips
        named no other, the die is a pip die showing that face. A die it takes for no pip die
        (a symbol die) keeps its reading. Only those dice are asked: most are settled before.
        A square die it takes for a pip die, unsure of the face, that the taught faces called
        a round kind (on another renderer's towers, pip dice the count missed were mostly
        taken for D12s, unsure) is a pip die with the classifier's likeliest faces: those are
        what a player is offered to pick from.

        ``dice``: the dice to look at again, whatever their outline; ``square``: those of
        them whose outline is square (None: all of them). Well-rounded pip dice have round outlines, so their
        pips are not counted and the taught faces take them for D12s. So does a cube seen
        from the side (near a frame's edge under a camera close above it, its outline a
        hexagon), whose side faces the classifier can read as its top: a die whose outline
        looks round is a pip die only where the classifier is ROUND_PIP_CLEAN sure; less
        sure, it stays what it was taken for (docs/vision.md, step 4), unless
        its pips, counted, are that face PIPS_SURE: two readings of another kind agree (on
        the 33 tuning towers of four independent renderers, 64 flat dice, all pip dice read
        right, 26 of them read no other way). ``counts``: the dice's pips as :meth:`_faces`
        counted them (``read_pips``), by index (none where not given). ``kept``: each
        asked die's likeliest pip faces are kept there (:class:`Ranks`), where given."""
        ask = [i for i in dice if not _settled(best[i])]
        pips = _learned() if ask else None
        if pips is None:
            return
        found = [Found(blobs[i].cx, blobs[i].cy, blobs[i].size, 1.0) for i in ask]
        for i, r in zip(ask, pips.classify(frame, found)):
            if kept is not None:
                kept.setdefault(i, Ranks()).pips = r.likeliest()
            clean = r.clean(pips.clean_confidence, pips.above)
            if clean is None or clean[1] < PIPS_CLEAN:  # (under it: never clean)
                clean = _pips_agree(blobs[i], r, frame) or clean
            kind, counted, _, _ = best[i]
            if clean is None:
                if (square is None or i in square) and kind in round_kinds \
                        and r.no_die < r.faces[0][1]:
                    best[i] = (PIPS, None, 0.0, r.likeliest())
                continue
            face, p = clean
            counted_face, sure = (counts or {}).get(i, (None, 0.0))
            if square is not None and i not in square and r.faces[0][1] < ROUND_PIP_CLEAN \
                    and not (counted_face == face and sure >= PIPS_SURE):
                continue  # a round outline: perhaps a cube seen from the side
            if kind == PIPS and counted is not None and counted != face:
                continue  # two readings of the pips that disagree: a person decides
            best[i] = (PIPS, face, max(CLEAN_CONFIDENCE, min(p, 1.0)),
                       r.likeliest())

    def _faces_of_kind(self, b: Blob, kind: str, ranks: Ranks | None = None
                       ) -> tuple[str, ...]:
        """Taught kind ``kind``'s faces die ``b`` looks likeliest to show, likeliest first
        (the taught-face vectors', else the edge directions'), for a player to pick from: a
        die offered as that kind by its colour, whose ranking was another kind's.
        ``ranks``: the die's rankings as :meth:`_faces` worked them out (those missing are
        worked out here)."""
        if kind not in self._grad_kinds:
            return ()
        ranked = ranks.vectors or ranks.edges if ranks is not None else None
        if not ranked:
            crops = self._kind_crops([b], [0])
            ranked = self._vector_ranks(crops, [0]).get(0) or \
                self._gradient_ranks(crops, [0]).get(0) or []
        return tuple(f for _, k, f in ranked if k == kind)[:MAX_LIKELY]

    def _kind_crops(self, blobs: list[Blob], todo: list[int]) -> dict[str, np.ndarray]:
        """Each taught kind's face crops (float32, D x 64 x 64) of the dice ``todo``, in that
        order, cut at the kind's own scale."""
        if not todo:
            return {}
        return {kind: np.stack([face_crop(blobs[i], radius) for i in todo]).astype(np.float32)
                for kind, (radius, _) in self._grad_kinds.items()}

    def _gradient_ranks(self, crops: dict[str, np.ndarray], todo: list[int]
                        ) -> dict[int, list[tuple[float, str, str]]]:
        """Each die's taught faces by their edge-direction likeness, best first:
        (likeness, kind, face), every taught kind's faces (the best example of each).
        ``crops``: each taught kind's face crops of the dice ``todo``, in that order."""
        out: dict[int, list[tuple[float, str, str]]] = {i: [] for i in todo}
        if not todo:
            return out
        for kind, (_, m) in self._grad_kinds.items():
            # the examples in the bank's order, as it is now
            _each_face(out, todo, kind, m.example_crops()[0],
                       gradient_scores(crops[kind], m.gradients()))
        return _best_first(out)

    def _templates_of(self, kind: str) -> tuple[np.ndarray, list[str], list[np.ndarray]]:
        """Kind ``kind``'s templates (its examples as the reader was made): their polar
        spectra, faces and middles."""
        if kind not in self._templates:
            faces, crops = self._examples[kind]
            crops_ = [np.asarray(c, np.float32) for c in crops]
            self._templates[kind] = (template_bank(crops_), faces, [middle(c) for c in crops_])
        return self._templates[kind]

    def _vector_ranks(self, crops: dict[str, np.ndarray], todo: list[int]
                      ) -> dict[int, list[tuple[float, str, str]]]:
        """Each die's taught faces by the likeness of its taught-face vector to theirs
        (vision/dice/taught.py; the best example of each face), best first: (likeness, kind,
        face), every taught kind's faces. Empty without the network."""
        net = _taught_net() if todo else None
        if net is None:
            return {}
        out: dict[int, list[tuple[float, str, str]]] = {i: [] for i in todo}
        kinds = []
        for kind, (_, m) in self._grad_kinds.items():
            bank = m.vectors()
            if bank is not None and len(bank):
                kinds.append((kind, m, bank))
        # every kind's crops of every die in one call of the network (0..255, as taught)
        vectors = net.embed([np.clip(c * 2.55, 0, 255) for kind, _, _ in kinds
                             for c in crops[kind]])
        for n, (kind, m, bank) in enumerate(kinds):
            _each_face(out, todo, kind, m.example_crops()[0],
                       vectors[n * len(todo):(n + 1) * len(todo)] @ bank.T)
        return _best_first(out)

    @staticmethod
    def _by_vectors(ranked: list[tuple[float, str, str]] | None, found: Reading | None,
                    edges_alone: bool = True) -> Reading | None:
        """The taught-face vectors' best face, sure where the die looks VECTOR_LIKENESS like
        it and likes it VECTOR_SURE better than any other taught face (of every kind).
        Where they are not sure, a sure reading by the edges stands where the vectors like
        its face nearly as well as their best (within VECTOR_SURE: faces they cannot tell
        apart, such as a D12's 6 and 9, turned), and is not sure where they like it less;
        the likeliest faces are the vectors'. ``edges_alone``: whether the edges are sure
        of ``found`` by their lead alone; one they are sure of only with the upright
        comparison or a closer look stands only where the vectors like its face best too
        (measured: the comment at VECTOR_SURE). Without vectors: ``found``."""
        if not ranked:
            return found
        s1, kind, face = ranked[0]
        lead = _lead(ranked)
        likely = tuple(f for _, k, f in ranked if k == kind)[:MAX_LIKELY]
        if _vectors_sure(ranked):
            return kind, face, (TAUGHT_CLEAN_CONFIDENCE + (1 - TAUGHT_CLEAN_CONFIDENCE)
                                * _clip(lead / VECTOR_LEAD_SCALE - 1)), likely
        unsure = 0.99 * TAUGHT_CLEAN_CONFIDENCE * _clip(lead / VECTOR_SURE)
        if found is not None and found[2] >= TAUGHT_CLEAN_CONFIDENCE:
            theirs = next((v for v, k, f in ranked if (k, f) == found[:2]), -1.0)
            if (s1 - theirs < VECTOR_SURE) if edges_alone else (kind, face) == found[:2]:
                return found  # the vectors name it too, or cannot tell the two apart (6, 9)
            return found[0], found[1], min(found[2], unsure), found[3]
        return kind, face, unsure, likely

    def _confirmed(self, b: Blob, ranked: list[tuple[float, str, str]] | None) -> bool:
        """Whether a closer look at the die's two likeliest taught faces (its crop moved by
        every pixel: features.fine_likeness) likes the first better by PAIR_SURE. Asked
        where the first look is not sure: its lead short of GRAD_SURE, or its likeness short
        of GRAD_LIKENESS (from CLOSER_FROM: then the closer look must find the die
        CLOSER_LIKENESS like the first face)."""
        if not ranked or len(ranked) < 2:
            return False
        (s1, k1, f1), (_, k2, f2) = ranked[0], ranked[1]
        if _edges_alone(ranked) or s1 < CLOSER_FROM:
            return False
        moves: dict[str, np.ndarray] = {}  # the die's features, by kind (its crop's radius)
        closer = []
        for kind, face in ((k1, f1), (k2, f2)):
            radius, m = self._grad_kinds[kind]
            if kind not in moves:
                moves[kind] = fine_features(face_crop(b, radius))
            faces, crops = m.example_crops()
            rows = [j for j, f in enumerate(faces) if f == face]
            closer.append(fine_likeness(moves[kind], np.asarray([crops[j] for j in rows]),
                                        m.gradients()[0][rows]))
        return closer[0] - closer[1] >= PAIR_SURE and (s1 >= GRAD_LIKENESS
                                                       or closer[0] >= CLOSER_LIKENESS)

    @staticmethod
    def _combine(ranked: list[tuple[float, str, str]] | None, upright: Reading | None,
                 confirmed: bool = False) -> Reading | None:
        """The edge-direction match's best face, sure by its lead over the next face
        (GRAD_SURE), or by a smaller lead (GRAD_AGREED) where the upright comparison names
        the same face surely enough, or where a closer look confirmed it (``confirmed``:
        :meth:`_confirmed`); never sure where the die looks little like that face (its
        likeness under GRAD_LIKENESS), unless the closer look found it like that face
        (CLOSER_LIKENESS). Without a taught face to compare, the upright reading."""
        if not ranked:
            return upright
        s1, kind, face = ranked[0]
        lead = s1 - (ranked[1][0] if len(ranked) > 1 else 0.0)
        conf = TAUGHT_CLEAN_CONFIDENCE * _clip(lead / GRAD_SURE)
        if confirmed:
            conf = max(conf, TAUGHT_CLEAN_CONFIDENCE)
        if upright is not None and upright[:2] == (kind, face):
            agreed = min(_clip(lead / GRAD_AGREED), _clip(upright[2] / CLEAN_CONFIDENCE))
            conf = max(conf, TAUGHT_CLEAN_CONFIDENCE * agreed)
        if lead >= GRAD_SURE:  # beyond sure: up to 1 at twice the lead
            conf = max(conf, TAUGHT_CLEAN_CONFIDENCE
                       + (1 - TAUGHT_CLEAN_CONFIDENCE) * _clip(lead / GRAD_SURE - 1))
        if s1 < GRAD_LIKENESS and not confirmed:  # unsure, however far ahead
            conf = min(conf, 0.99 * TAUGHT_CLEAN_CONFIDENCE)
        likely = tuple(f for _, k, f in ranked if k == kind)[:MAX_LIKELY]
        return kind, face, conf, likely

    @staticmethod
    def _decide(cands: list) -> Reading | None:
        """The SHORTLIST best faces by the polar score, each checked upright with up to
        EXAMPLES_VERIFIED of its best examples (the example that matches best upright is not
        always the polar score's first): the best face, its confidence, and the faces of its
        kind so checked, best first (at most MAX_LIKELY)."""
        cands.sort(key=lambda c: -c[0])
        verified: dict[tuple[str, str], float] = {}
        tried: dict[tuple[str, str], int] = {}
        for _, kind, face, crop, template, angle in cands:
            key = (kind, face)
            if key not in tried and len(tried) >= SHORTLIST:
                continue
            if tried.get(key, 0) >= EXAMPLES_VERIFIED:
                continue
            tried[key] = tried.get(key, 0) + 1
            verified[key] = max(verified.get(key, 0.0), verify(crop, template, angle))
        if not verified:
            return None
        ranked = sorted(verified.items(), key=lambda kv: -kv[1])
        (kind, face), s1 = ranked[0]
        s2 = ranked[1][1] if len(ranked) > 1 else MATCH_FLOOR
        conf = (_clip((s1 - MATCH_FLOOR) / (MATCH_GOOD - MATCH_FLOOR))
                * _clip((s1 - s2) / MATCH_MARGIN))
        likely = tuple(f for (k, f), _ in ranked if k == kind)[:MAX_LIKELY]
        return kind, face, conf, likely

    def _body(self, frame, gain, b: Blob, raw: np.ndarray | None = None) -> np.ndarray | None:
        """The die's body as its colours are measured (features.body_feature: log brightness,
        log B/G, log R/G), or None where no colour was taught. ``raw``: the frame as the
        camera gave it (where the die's top face is saturated, its colour is read beside it:
        features.BLOWN)."""
        background = self.profile.background
        if not self._colours or background is None:
            return None
        return body_feature(frame, background, gain, b, raw, self.profile.own_hue)

    def _colour_distances(self, body: np.ndarray | None) -> dict[str, float]:
        """How far the die's body (:meth:`_body`) lies from each taught colour (in their
        spreads; empty where no colour was taught)."""
        if body is None:
            return {}
        w = np.array([0.5, 1.0, 1.0], np.float32)
        return {c: float((((body - mu) / sd * w) ** 2).sum())
                for c, (mu, sd) in self._colours.items()}

    def _kind_of_colour(self, kind: str | None, colour: str | None,
                        far: dict[str, float]) -> str | None:
        """The kind a die the reader is not sure of is offered to a player as: the one kind
        taught in its colour, where that colour belies the kind it read
        (:meth:`_colour_refutes`: a white pip die read as a black symbol die, in a tower that
        taught only pip dice in white) or it read none; else the kind it read."""
        if colour is None or not KIND_OF_COLOUR:
            return kind
        kinds = [k for k, m in self.profile.kinds.items() if colour in m.colours]
        if len(kinds) != 1 or kind in kinds:
            return kind
        return kinds[0] if kind is None or self._colour_refutes(kind, far) else kind

    def _taught_colours(self, kind: str | None) -> list[str]:
        """The colours ``kind`` was taught in (none for no kind or an untaught one)."""
        return self.profile.kinds[kind].colours if kind in self.profile.kinds else []

    def _colour_refutes(self, kind: str | None, far: dict[str, float]) -> bool:
        """Whether the die's colour belies its reading as ``kind``: the nearest colour
        ``kind`` was taught in lies COLOUR_OWN_FAR to COLOUR_MAX_DISTANCE from it, and a
        colour taught only with other kinds is COLOUR_REFUTES times nearer; or no colour of
        ``kind`` lies within COLOUR_MAX_DISTANCE and one taught only with other kinds
        COLOUR_REFUTES times nearer than that (measured: the comments at COLOUR_REFUTES)."""
        own = self._taught_colours(kind)
        mine = [far[c] for c in own if c in far]
        others = [d for c, d in far.items() if c not in own]
        if not mine or not others:
            return False
        nearest = min(mine)
        if nearest > COLOUR_MAX_DISTANCE:  # a colour its kind was not taught in: unless it
            # is the colour of other kinds' dice
            return min(others) * COLOUR_REFUTES <= COLOUR_MAX_DISTANCE
        return COLOUR_OWN_FAR <= nearest and COLOUR_REFUTES * min(others) < nearest

    def _colour(self, far: dict[str, float], kind: str | None = None,
                hue: np.ndarray | None = None) -> str | None:
        """The taught colour nearest the die's body (``far``: :meth:`_colour_distances`),
        within COLOUR_MAX_DISTANCE. A colour its kind was taught in is preferred where one is
        that near: a black symbol die's large white symbol takes its body towards the white
        of the pip dice, but no white symbol die was ever taught. A colour taught only with
        other kinds is still named where none of its kind's is near (a red symbol die in a
        tower taught only red pip dice), unless the die's ``hue`` (log B/G, log R/G of its
        body) points elsewhere (:meth:`_by_hue`)."""
        own = [c for c in self._taught_colours(kind) if c in far]
        for pool in (own, list(far)):
            if pool:
                best = min(pool, key=far.__getitem__)
                if far[best] <= COLOUR_MAX_DISTANCE:
                    return best if pool is own else self._by_hue(best, hue, own, far)
        return None

    def _by_hue(self, best: str, hue: np.ndarray | None, own: list[str],
                far: dict[str, float]) -> str:
        """``best``, the colour nearest a die that is not one its kind was taught in (or of
        a die whose kind is not settled), unless the die's hue points HUE_APART degrees or
        more away from ``best``'s while within HUE_NEAR of another taught colour's: then that
        colour, the kind's own (``own``) first, the nearest (``far``) of them. A hue's way is
        the way it leaves grey (0, 0): where it is under HUE_CHROMA from grey (a white,
        ivory, grey or black die, the die's or a colour's) it says nothing."""
        if hue is None or float(np.hypot(*hue)) < HUE_CHROMA:
            return best
        way = math.atan2(float(hue[1]), float(hue[0]))

        def apart(colour: str) -> float | None:  # degrees, None for a colour near grey
            mu = self._colours[colour][0][1:]
            if float(np.hypot(*mu)) < HUE_CHROMA:
                return None
            turn = math.atan2(float(mu[1]), float(mu[0])) - way
            return abs(math.degrees(math.atan2(math.sin(turn), math.cos(turn))))

        off = apart(best)
        if off is None or off < HUE_APART:
            return best
        for pool in (own, list(far)):
            near = [c for c in pool if (a := apart(c)) is not None and a <= HUE_NEAR]
            if near:
                return min(near, key=far.__getitem__)
        return best


# A die whose outline looks round (a D12, a well-rounded pip die, a cube seen from the side)
# is a pip die by the face classifier's second look only where it is this sure of the face
# (_second_look). It was pips.WEAK_CLEAN (0.9) until the tower's classifier learned the
# independent renderers' trays (2026-12-03, late); chosen then on the 16 tuning towers and
# four fresh towers of the fifth renderer (docs/vision.md): 7 and 4 more flat dice, no more
# wrong faces
ROUND_PIP_CLEAN = 0.75
GUIDE_SCORE = 0.4  # the finder's least score for a die's centre
# The finder marks some dice at each facet it sees (a D12's lit top and its sides): its
# centres within CENTRES_JOINED of the smallest taught die's side of each other are one die's
# (dice do not overlap: two flat dice side by side lie a side apart), at their mean weighted by
# score (_one_per_die). Chosen on the 36 tuning towers (docs/vision.md, "The finder's centres
# of one die"): 0 (each centre a die) / 0.5 / 0.55 / 0.6 / 0.65 / 0.8: flat dice clean and
# right 3,788 / 3,791 / 3,789 / 3,785 / 3,785 / 3,776, tilted dice flagged 809 / 808 / 807 /
# 808 / 809 / 804, dice missed 53 / 53 / 53 / 55 / 57 / 75, unsure readings where no die lies
# 341 / 317 / 308 / 287 / 264 / 216: from 0.6 dice close together are lost as one
CENTRES_JOINED = 0.5
# a part this many times the largest taught die's area holds more than one die (a single die,
# tilted, shows its sides: up to about 1.4), cut by area into at most MAX_BY_AREA
SEVERAL_DICE = 1.45
REST_OF_DIE = 0.6  # of the smallest taught die's area
MAX_BY_AREA = 4
GUIDE_PAD = 24  # pixels of tray around a part the finder sees (its field reaches that far)
SHADOW_KEEPS = 0.6  # of the smallest taught die: what a part cut free of a shadow keeps
# Where the colours saw something and made no die of it (segment.Unexplained), a centre the
# die finder is LOOK_SCORE sure of is a die (_unexplained), unless its outline lies over a part
# found already that is under LESS_THAN_A_DIE of the smallest taught die (a piece of that die:
# a lamp's white facet on a dark D12, whose dark body went with the shadow). Chosen on the 36
# tuning towers: 0.4 / 0.5 / 0.6, flat dice clean and right 3,785 / 3,786 / 3,785, dice missed
# 55 / 58 / 62, unsure readings where no die lies 367 / 341 / 337 (docs/vision.md, "A die the
# colours saw only in part"). LESS_THAN_A_DIE was written after d9147 (a fresh tower) was
# read; on the tuning towers every die found so lies over parts of 0.87 of a die or more
LOOK_SCORE = 0.5
LESS_THAN_A_DIE = 0.8


def _pip_faces(frame: np.ndarray, b: Blob) -> tuple[str, ...]:
    """The pip faces the face classifier finds likeliest for die ``b`` of ``frame``, for a
    player to pick from (a die set to the pip kind by its colour, whose ranking was another
    kind's); () without the classifier."""
    pips = _learned()
    if pips is None:
        return ()
    r = pips.classify(frame, [Found(b.cx, b.cy, b.size, 1.0)])[0]
    return r.likeliest()


def _pips_agree(b: Blob, r: PipReading, frame: np.ndarray) -> tuple[str, float] | None:
    """(face, PIPS_CLEAN or the classifier's probability) where the classifier's likeliest
    face for die ``b`` of ``frame`` (``r``), unsure, is the one its pips show on their grid
    (features.grid_pips, which needs no top face), or, a face of more than one pip, the one
    they count by their colour (features.colour_pips: pale pips on an ivory face), and it
    takes the die for a pip die rather than none; else None. Two readings that look at the
    die apart (a network over the whole crop, a count of marks) and agree: on the 36 tuning
    towers of bench/tower_sets.py no such face was wrong (docs/vision.md, "Pips on their
    grid", "Pips of another colour than their face"). A lone mark counted by its colour is
    not asked: it is what a symbol or a numeral of that colour looks like too (LONE_PIP; on
    those towers it read one flat die more and two tilted ones clean)."""
    face, p = r.faces[0]
    if p <= r.no_die:
        return None
    if grid_pips(b) != face and (face == LONE_PIP or colour_pips(b, frame)[0] != face):
        return None
    return face, max(PIPS_CLEAN, p)


@lru_cache(maxsize=1)
def _learned():
    """The pip reader without a profile (its finder cuts touching dice apart, its face
    classifier for the tower, pips.TOWER_FACES, takes a second look at unsure square dice), or
    None without its networks."""
    from .netrun import ModelError
    from .pips import shipped_reader
    try:
        return shipped_reader(tower=True)
    except ModelError:
        return None


def _each_face(out: dict[int, list[tuple[float, str, str]]], todo: list[int], kind: str,
               faces: list[str], scores: np.ndarray) -> None:
    """Adds to each die's list in ``out`` the best score of each face of ``kind``:
    ``scores`` has a row per die of ``todo`` and a column per example (``faces``)."""
    for j, i in enumerate(todo):
        per_face: dict[str, float] = {}
        for f, v in zip(faces, scores[j].tolist()):
            if f not in per_face or v > per_face[f]:
                per_face[f] = v
        out[i].extend((v, kind, f) for f, v in per_face.items())


def _best_first(out: dict[int, list[tuple[float, str, str]]]
                ) -> dict[int, list[tuple[float, str, str]]]:
    for ranked in out.values():
        ranked.sort(key=lambda t: -t[0])
    return out


def _lead(ranked: list[tuple[float, str, str]]) -> float:
    """How much better the first face is liked than the second."""
    return ranked[0][0] - (ranked[1][0] if len(ranked) > 1 else -1.0)


def _edges_alone(ranked: list[tuple[float, str, str]] | None) -> bool:
    """Whether the edge-direction match is sure of its best face by its lead alone
    (GRAD_SURE, at GRAD_LIKENESS or more: :meth:`DiceReader._combine`)."""
    return ranked is not None and len(ranked) > 0 and ranked[0][0] >= GRAD_LIKENESS \
        and _lead(ranked) >= GRAD_SURE


def _agreed(vectors: list[tuple[float, str, str]] | None,
            edges: list[tuple[float, str, str]] | None) -> bool:
    """Whether the taught-face vectors and the edge-direction match name the same best face,
    each ahead of every other face (AGREED_VECTOR_LEAD, AGREED_EDGE_LEAD), the die at least
    AGREED_LIKENESS like it to the vectors."""
    if not vectors or not edges:
        return False
    return vectors[0][1:] == edges[0][1:] and vectors[0][0] >= AGREED_LIKENESS \
        and _lead(vectors) >= AGREED_VECTOR_LEAD and _lead(edges) >= AGREED_EDGE_LEAD


def _agreement(best: list[Reading], dice: list[int],
               vectors: dict[int, list[tuple[float, str, str]]],
               edges: dict[int, list[tuple[float, str, str]]],
               sure_as: Callable[[str], float] = lambda kind: TAUGHT_CLEAN_CONFIDENCE
               ) -> list[int]:
    """The last step of reading the faces: a die that nothing settled (not the pips counted,
    nor the vectors or the edges alone, nor the face classifier's second look), read as a
    taught face that the vectors and the edges both name first (:func:`_agreed`), is read
    that face as sure as ``sure_as`` says for its kind (:meth:`DiceReader._agreed_sureness`:
    its kind settled, its colour named among its kind's), in ``best``, by index (``dice``:
    those looked at); its face is not clean for that (AGREED_CLEAN). It changes no
    reading, and makes none less sure: it only settles one. Returns the dice it settled
    (:meth:`DiceReader._faces` marks them, ``Ranks.agreed``, for :meth:`DiceReader._read_one`)."""
    settled = []
    for i in dice:
        kind, face, conf, likely = best[i]
        ranked = vectors.get(i)
        if kind not in (None, PIPS) and ranked and (kind, face) == ranked[0][1:] \
                and conf < sure_as(kind) and _agreed(ranked, edges.get(i)):
            best[i] = (kind, face, sure_as(kind), likely)
            settled.append(i)
    return settled


def _vectors_sure(ranked: list[tuple[float, str, str]] | None) -> bool:
    """Whether the taught-face vectors settle a die alone: it looks VECTOR_LIKENESS like its
    best face and likes it VECTOR_SURE better than any other."""
    return ranked is not None and len(ranked) > 0 and ranked[0][0] >= VECTOR_LIKENESS \
        and _lead(ranked) >= VECTOR_SURE


def _taught_net():
    """The taught-face network (vision/dice/taught.py), or None without its file."""
    from .taught import shipped
    return shipped()


def rules_share(kinds: Iterable[KindModel]) -> float | None:
    """The share of a tower's teaching pictures, each a die resting flat, that the tilt
    rules call tilted (their outlines as taught, their sizes against their kind's taught
    size); None where no kind keeps its pictures' outlines (a profile taught before they
    were kept)."""
    looks = [outline or size_tilted(size, shape, m.size_px)
             for m in kinds if len(m.looks_tilted) == len(m.sizes) == len(m.shapes)
             for outline, size, shape in zip(m.looks_tilted, m.sizes, m.shapes)]
    return float(np.mean(looks)) if looks else None


def network_problems() -> list[str]:
    """What the reader does without, where a network shipped with it cannot be used (a
    damaged or missing model file, named): it still reads, less well. Empty when all are
    there."""
    from .netrun import ModelError
    from .pips import shipped_reader
    from .taught import problem

    out = []
    try:
        shipped_reader(tower=True)
    except ModelError as exc:
        out.append(f"{exc}: touching dice are cut by their area alone, and pip dice counted "
                   f"without the face classifier's second look")
    taught = problem()
    if taught is not None:
        out.append(f"{taught}: taught faces are compared by their edges alone")
    leaning = tilt.problem()
    if leaning is not None:
        out.append(f"{leaning}: a die's tilt is judged by the tilt rules alone")
    return out


def _like_another_kind(ranked: list[tuple[float, str, str]] | None) -> bool:
    """Whether a die's taught-face vectors (:meth:`DiceReader._vector_ranks`: likeness, kind,
    face, best first) find a face of a taught kind LONE_PIP_LIKENESS alike or more."""
    if not ranked:
        return False
    like, kind, _ = ranked[0]
    return like >= LONE_PIP_LIKENESS and kind != PIPS


def _tilted_by(rules: bool, leaning: float | None, confirms: float = TILT_NET_CONFIRMS,
               alone_from: float = TILT_NET_ALONE) -> bool:
    """The verdict on a die's tilt: the rules' where the network is not there; else tilted
    where the rules say so and the network gives it ``confirms`` or more (TILT_NET_CONFIRMS,
    more in a tower whose flat dice look tilted to it or to the rules), or where the network
    alone gives it ``alone_from`` (TILT_NET_ALONE; TILT_NET_UNRULED where the rules are not
    asked)."""
    if leaning is None:
        return rules
    return (rules and leaning >= confirms) or leaning >= alone_from


def _flat_for_want_of_support(b: Blob, ref: float | None, kind: str | None,
                              conf: float) -> bool:
    """Whether a die the tilt rules call tilted is flat after all if nothing lies near it to
    lean on (then a die cannot rest tilted on a flat tray): it is seen whole (its size within
    ALONE_SIZE of its kind's flat size) and, of a taught kind, its face read ALONE_TAUGHT
    sure. The rules' cues (an elongated or large outline, a top face off centre) are also
    what the camera's perspective and a shadow make of a flat die."""
    if ref is None or kind is None or not ALONE_SIZE[0] * ref <= b.size <= ALONE_SIZE[1] * ref:
        return False
    return kind == PIPS or conf >= ALONE_TAUGHT


# Two dice lying flat cannot have their centres nearer than about a die's side: two readings
# read clean nearer than ONE_DIE_REACH of the smallest taught die's side are one die found in
# pieces (on the fourth renderer's d9161, green D12s on a pink tray were cut at their facets
# and read twice, the same face clean, 0.02 to 0.24 of a side apart; two symbol dice and a pip
# die elsewhere, 0.58 and 0.61 apart, read as two faces). On the 36 tuning towers of
# bench/tower_sets.py (tuning, tuning2) the nearest two clean readings of two dice lay 0.79
# apart. Joined there: faces read clean where no die lies 26 -> 15, wrong faces 13 -> 12, three
# tilted dice more flagged (each read as two faces), no flat die lost (_pieces_joined)
ONE_DIE_REACH = 0.65


# A piece of a die the finder cut off it (a facet, a pip, a side face in shade), under
# PIECE_OF_DIE of the smallest taught die's side across, read unsure within ONE_DIE_REACH of a
# reading of a die's size, is part of that die: it is dropped, not offered to a player as a die
# to check (a die's side is never so small; the die itself is reported where the larger
# reading is). On the 36 tuning towers of bench/tower_sets.py (tuning, tuning2; 1,440 trays)
# readings paired with no true die, read unsure, 413 -> 337, and where not tuned (fresh, e,
# unseen; 600 trays) 120 -> 76; no true die's reading lost on the tuning towers, and where not
# tuned one, a tilted black pip die cut into five pieces: its largest reading, still `cocked`
# where it lies, is 41 pixels from its top face's centre, one more than the benchmark pairs.
# Chosen on the tuning towers from 0.4, 0.5 and 0.6 of a side within 0.65 and 1.0 of it: within
# 1.0, 0.6 dropped 24 true dice's readings and 0.4 or 0.5 two; 0.5 within 0.65 none
PIECE_OF_DIE = 0.5


def _small_pieces_dropped(dice: list[DieReading], sizes: list[float],
                          least_side: float | None) -> list[DieReading]:
    """``dice`` (each of the size in ``sizes``, in pixels across) without the readings not
    clean under PIECE_OF_DIE of ``least_side`` (the smallest taught die's side; None:
    unchanged) that lie within ONE_DIE_REACH of it of a reading of a die's size."""
    if least_side is None:
        return dice
    piece, reach = PIECE_OF_DIE * least_side, ONE_DIE_REACH * least_side
    whole = [i for i, s in enumerate(sizes) if s >= piece]
    return [d for i, d in enumerate(dice)
            if d.status == "clean" or sizes[i] >= piece
            or not any(math.hypot(d.x - dice[j].x, d.y - dice[j].y) <= reach for j in whole)]


def _pieces_joined(dice: list[DieReading], least_side: float | None) -> list[DieReading]:
    """``dice`` with each group of readings that lie within ONE_DIE_REACH of ``least_side``
    (the smallest taught die's side, in pixels; None: unchanged) of each other, two or more
    of them clean, made one die (its pieces read unsure with it): the surest clean reading,
    where the clean ones name the same face; else that reading unsure (``unreadable``), the
    faces they named offered first. A group with one clean reading or none is left as it is."""
    if least_side is None or len(dice) < 2:
        return dice
    members = {k: these for these in _groups([(d.x, d.y) for d in dice],
                                             ONE_DIE_REACH * least_side) for k in these}
    out = []
    for i, d in enumerate(dice):
        these = members[i]
        clean = [dice[k] for k in these if dice[k].status == "clean"]
        if len(clean) < 2:
            out.append(d)
            continue
        if i != these[0]:
            continue  # the group's one die is given where its first reading was
        surest = max(clean, key=lambda r: r.confidence)
        if len({(r.kind, r.face) for r in clean}) == 1:
            out.append(surest)
            continue
        named = [r.face for r in sorted(clean, key=lambda r: -r.confidence)
                 if r.kind == surest.kind and r.face is not None]
        likely = tuple(dict.fromkeys([*named, *surest.likely]))[:MAX_LIKELY]
        out.append(DieReading(surest.kind, None, surest.colour, "unreadable", 0.0, surest.x,
                              surest.y, likely))
    return out


def _groups(points: list[tuple[float, float]], reach: float) -> list[list[int]]:
    """The indices of ``points`` in groups: points within ``reach`` of each other, and of
    each other's, are one group (each group in the points' order, the groups by their first)."""
    group = list(range(len(points)))

    def root(i: int) -> int:
        while group[i] != i:
            i = group[i]
        return i

    for i, (x, y) in enumerate(points):
        for j in range(i + 1, len(points)):
            if math.hypot(x - points[j][0], y - points[j][1]) < reach:
                group[root(j)] = root(i)
    members: dict[int, list[int]] = {}
    for i in range(len(points)):
        members.setdefault(root(i), []).append(i)
    return sorted(members.values())


def _one_per_die(centres: list[Found], reach: float) -> list[Found]:
    """The die finder's ``centres``, those within ``reach`` of each other (closer than two
    dice's centres can lie: dice do not overlap) made one, at their mean weighted by score,
    of the largest size among them: the finder marks some dice at each facet it sees."""
    out = []
    for these in _groups([(f.x, f.y) for f in centres], reach):
        fs = [centres[k] for k in these]
        if len(fs) == 1:
            out.append(fs[0])
            continue
        w = sum(f.score for f in fs)
        out.append(Found(sum(f.x * f.score for f in fs) / w, sum(f.y * f.score for f in fs) / w,
                         max(f.size for f in fs), max(f.score for f in fs)))
    return out


def _merged(boxes: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """``boxes`` (x0, y0, x1, y1), those that overlap made one (their bounding box), until
    none overlaps."""
    out = list(boxes)
    joined = True
    while joined:
        joined = False
        for i in range(len(out)):
            for j in range(i + 1, len(out)):
                a, b = out[i], out[j]
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                    out[i] = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
                    del out[j]
                    joined = True
                    break
            if joined:
                break
    return out


def _near_place(p: Unexplained, grow: int, x: float, y: float) -> bool:
    """Whether a die's centre at ``x, y`` is of place ``p``: in its mask, or (a mark) within
    ``grow`` pixels of its box."""
    if not p.around:
        return _holds(p, x, y)
    h, w = p.mask.shape
    bx, by = int(x) - p.x0, int(y) - p.y0
    return -grow <= bx < w + grow and -grow <= by < h + grow


def _holds(b: Blob | Unexplained, x: float, y: float) -> bool:
    """Whether ``b``'s mask (a die's silhouette, or a place's) holds the point ``x, y`` (frame
    pixels)."""
    h, w = b.mask.shape
    bx, by = int(x) - b.x0, int(y) - b.y0
    return 0 <= by < h and 0 <= bx < w and bool(b.mask[by, bx])


def _within(b: Blob, o: Blob, gap: float) -> bool:
    """Whether blob ``o``'s outline comes within ``gap`` pixels of blob ``b``'s."""
    bh, bw = b.mask.shape
    oh, ow = o.mask.shape
    x0, y0 = min(b.x0, o.x0), min(b.y0, o.y0)
    x1, y1 = max(b.x0 + bw, o.x0 + ow), max(b.y0 + bh, o.y0 + oh)
    if (b.x0 - gap > o.x0 + ow or o.x0 - gap > b.x0 + bw or b.y0 - gap > o.y0 + oh
            or o.y0 - gap > b.y0 + bh):
        return False  # their boxes are farther apart than that
    other = np.full((y1 - y0, x1 - x0), 255, np.uint8)
    other[o.y0 - y0:o.y0 - y0 + oh, o.x0 - x0:o.x0 - x0 + ow][o.mask > 0] = 0
    dist = cv2.distanceTransform(other, cv2.DIST_L2, 3)
    mine = dist[b.y0 - y0:b.y0 - y0 + bh, b.x0 - x0:b.x0 - x0 + bw][b.mask > 0]
    return bool(mine.size) and float(mine.min()) <= gap


def _settled(r: Reading) -> bool:
    """A reading clean enough to stand: a pip face at PIPS_CLEAN, a taught face at
    TAUGHT_CLEAN_CONFIDENCE."""
    kind, face, conf, _ = r
    if kind is None or face is None:
        return False
    return conf >= (PIPS_CLEAN if kind == PIPS else TAUGHT_CLEAN_CONFIDENCE)


def _clip(v: float) -> float:
    return max(0.0, min(1.0, v))
