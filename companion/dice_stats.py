"""Are my dice fair? What the dice tower has really read, die kind by die kind.

Every roll the tower reports is in the roll journal (``rolls.jsonl`` in the data folder, one
JSON line per roll, written by ``firmware_bridge.host.rolls``). For each kind and colour of die
(``red d12``, ``black kotd``...) this counts how often each face came up, and tests the counts
against a fair die with Pearson's chi-square goodness-of-fit test:

- ``p`` is the chance that a fair die gives counts at least this far from even. Below
  :data:`ALPHA` (1 %) the die is called biased, and the verdict names the face furthest from
  its share (the largest standardised residual). 1 % rather than 5 %: players look again
  after every game, and a lower line keeps a fair die from being called biased by chance
  over many looks.
- Before every face is expected :data:`MIN_EXPECTED` times (30 throws of a d6, 60 of a d12)
  the test is not trusted and no verdict is given.
- ``throws_needed``: if the die kept coming up in the proportions seen so far, how many throws
  in all before the test would call it (at :data:`ALPHA`, 80 % of the time: the usual power).
  It is ``None`` when the counts are exactly even. A small difference needs many throws: that
  is the honest answer to "could my die be slightly off?".

Readings the tower was not sure of (cocked, unreadable) are counted apart, never as faces: a
die that lands cocked on one edge more than others would otherwise skew a face.

"I changed dice" sets a kind and colour's counts aside from now on (:func:`reset`): a
reset is kept in ``dice_stats.json`` beside the journal, and can be undone (:func:`undo_reset`).
Nothing here imports Kivy; the screen and ``companion dice-stats`` both read
:func:`statistics`.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import CompanionError
from .i18n import _, decimal, grouped, ngettext

JOURNAL = "rolls.jsonl"
RESETS = "dice_stats.json"
ALPHA = 0.01
POWER = 0.8
MIN_EXPECTED = 5  # throws per face before the chi-square test is trusted
# the faces of the kinds the games use (the tower's catalogue: firmware_bridge's config and
# the camera's profiles); a kind not listed here shows the faces seen so far
KNOWN_FACES: dict[str, tuple[str, ...]] = {
    "d6": tuple("123456"),
    "d6pips": tuple("123456"),
    "d12": tuple(str(i) for i in range(1, 13)),
    "kotd": ("CLAW", "HEART", "ENERGY", "FAME", "DESTRUCTION", "POWER"),
    "spawn": ("TILE_UNDER_YOU", "POWER_UP_ON_SPAWN", "TILE_ON_SPAWN", "TILE_ON_SPAWN_2",
              "NO_SPAWN", "NO_SPAWN_2"),
}


class DiceStatsError(CompanionError):
    """The roll journal or the resets file cannot be read: names the file and the line or key."""


# ----------------------------------------------------------------------------- statistics

def _gamma_q(a: float, x: float) -> float:
    """The regularised upper incomplete gamma function Q(a, x) (series below a + 1, continued
    fraction above, as in Numerical Recipes' gammq)."""
    if x <= 0:
        return 1.0
    gln = math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        ap = a
        for _n in range(10000):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(-x + a * math.log(x) - gln))
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return min(1.0, math.exp(-x + a * math.log(x) - gln) * h)


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for X chi-square with ``df`` degrees of freedom."""
    return _gamma_q(df / 2, x / 2)


def chi2_critical(df: int, alpha: float = ALPHA) -> float:
    """The x where chi2_sf(x, df) == alpha (by bisection)."""
    lo, hi = 0.0, 10.0 * df + 100
    for _i in range(200):
        mid = (lo + hi) / 2
        if chi2_sf(mid, df) > alpha:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def noncentral_chi2_sf(x: float, df: int, nc: float) -> float:
    """P(X >= x) for X non-central chi-square (df, non-centrality ``nc``): a Poisson(nc/2)
    mixture of central chi-squares with df + 2j degrees of freedom."""
    if nc <= 0:
        return chi2_sf(x, df)
    half = nc / 2
    centre = int(half)
    total = 0.0
    # sum outwards from the Poisson mode until the weights are negligible
    for j in list(range(centre, -1, -1)) + list(range(centre + 1, centre + 10000)):
        w = math.exp(-half + j * math.log(half) - math.lgamma(j + 1))
        if w < 1e-14 and j > centre and j - centre > 5 * math.sqrt(half + 1):
            break
        if w < 1e-14 and j < centre:
            continue
        total += w * chi2_sf(x, df + 2 * j)
    return min(1.0, total)


def noncentrality_for_power(df: int, alpha: float = ALPHA, power: float = POWER) -> float:
    """The non-centrality at which the test at ``alpha`` rejects with probability ``power``."""
    crit = chi2_critical(df, alpha)
    lo, hi = 0.0, 1.0
    while noncentral_chi2_sf(crit, df, hi) < power:
        hi *= 2
    for _i in range(100):
        mid = (lo + hi) / 2
        if noncentral_chi2_sf(crit, df, mid) < power:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


@dataclass(frozen=True)
class DieStats:
    """One kind and colour of die: faces in the kind's order, with their counts."""

    kind: str
    colour: str | None
    faces: tuple[str, ...]
    counts: tuple[int, ...]
    not_clean: int = 0            # cocked or unreadable readings: counted apart
    faces_known: bool = True      # False: a kind not in KNOWN_FACES (the faces seen so far)
    since: float | None = None    # the last "I changed dice", as a Unix time

    @property
    def key(self) -> str:
        return f"{self.kind}/{self.colour or '-'}"

    @property
    def throws(self) -> int:
        return sum(self.counts)

    @property
    def expected(self) -> float:
        return self.throws / len(self.faces) if self.faces else 0.0

    @property
    def min_throws(self) -> int:
        """Throws before the test is trusted: every face expected MIN_EXPECTED times."""
        return MIN_EXPECTED * len(self.faces)

    @property
    def chi2(self) -> float:
        e = self.expected
        return sum((c - e) ** 2 / e for c in self.counts) if e > 0 else 0.0

    @property
    def df(self) -> int:
        return max(len(self.faces) - 1, 1)

    @property
    def p_value(self) -> float | None:
        """None until the test can be trusted (fewer than :attr:`min_throws` throws)."""
        if len(self.faces) < 2 or self.throws < self.min_throws:
            return None
        return chi2_sf(self.chi2, self.df)

    @property
    def biased(self) -> bool:
        p = self.p_value
        return p is not None and p < ALPHA

    @property
    def throws_needed(self) -> int | None:
        """Throws in all before a bias of the size seen would be called (at ALPHA, with 80 %
        power); None when no bias at all is seen (or too few throws to say)."""
        n = self.throws
        if self.p_value is None:
            return None
        effect = self.chi2 / n     # Cohen's w squared of the proportions seen
        if effect <= 1e-12:
            return None
        return max(self.min_throws, math.ceil(noncentrality_for_power(self.df) / effect))

    def furthest(self) -> tuple[str, int]:
        """The face furthest from its fair share, and +1 (too often) or -1 (too rarely)."""
        e = self.expected
        i = max(range(len(self.faces)), key=lambda k: abs(self.counts[k] - e))
        return self.faces[i], (1 if self.counts[i] > e else -1)

    def verdict(self, face_name: Callable[[str], str] = str) -> str:
        """The verdict in a player's words."""
        n = self.throws
        p = self.p_value
        if p is None:
            return ngettext("Too few throws for a verdict: {count} of the {needed} needed",
                            "Too few throws for a verdict: {count} of the {needed} needed",
                            n).format(count=n, needed=self.min_throws)
        if p < ALPHA:
            face, sign = self.furthest()
            text = (ngettext("{face} comes up too often: {p} after {count} throw",
                             "{face} comes up too often: {p} after {count} throws", n)
                    if sign > 0 else
                    ngettext("{face} comes up too rarely: {p} after {count} throw",
                             "{face} comes up too rarely: {p} after {count} throws", n))
            return text.format(face=face_name(face), p=format_p(p), count=n)
        return ngettext("No sign of bias after {count} throw", "No sign of bias after {count} throws",
                        n).format(count=n)

    def detail(self) -> str:
        """What more throws would tell (the verdict's second line)."""
        p = self.p_value
        if p is None:
            return ""
        needed = self.throws_needed
        if p < ALPHA:
            odds = 1 / max(p, 1e-12)
            if odds >= 1e6:
                return _("A fair die gives counts this uneven less than once in a million tries")
            return _("A fair die gives counts this uneven less than once in {odds} tries").format(
                odds=grouped(int(float(f"{odds:.1g}"))))
        if needed is None:
            return _("The counts are exactly even")
        more = needed - self.throws
        if more <= 0:
            return _("{p}: a bias as large as the one seen would show by now").format(
                p=format_p(p))
        return ngettext("{p}: about {more} more throw before a bias as small as the one seen "
                        "could be called",
                        "{p}: about {more} more throws before a bias as small as the one seen "
                        "could be called", more).format(
            p=format_p(p), more=more)

    def to_json(self) -> dict[str, Any]:
        p = self.p_value
        return {"kind": self.kind, "colour": self.colour, "throws": self.throws,
                "counts": dict(zip(self.faces, self.counts)), "expected": round(self.expected, 3),
                "not_clean": self.not_clean, "faces_known": self.faces_known,
                "chi2": round(self.chi2, 4), "df": self.df,
                "p_value": None if p is None else float(f"{p:.4g}"),
                "biased": self.biased, "throws_needed": self.throws_needed,
                "since": self.since, "verdict": self.verdict()}


def format_p(p: float) -> str:
    """"p = 0.002", "p = 0.31", "p < 0.001"."""
    if p < 0.001:
        return "p < " + decimal(0.001, ".3f")
    return "p = " + decimal(p, ".1g" if p < 0.01 else ".2f")


# ----------------------------------------------------------------------------- the files

def _load_resets(root: Path) -> dict[str, list[float]]:
    path = root / RESETS
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise DiceStatsError(f"{path}: cannot be read ({exc.strerror})") from None
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise DiceStatsError(f"{path}: not JSON ({exc})") from None
    resets = data.get("resets") if isinstance(data, dict) else None
    if not isinstance(resets, dict):
        raise DiceStatsError(f"{path}: resets: a mapping of die to times is missing")
    out: dict[str, list[float]] = {}
    for key, times in resets.items():
        if not isinstance(times, list) or not all(isinstance(t, int | float) for t in times):
            raise DiceStatsError(f"{path}: resets.{key}: a list of times (numbers)")
        out[str(key)] = [float(t) for t in times]
    return out


def _save_resets(root: Path, resets: Mapping[str, list[float]]) -> None:
    path = root / RESETS
    root.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"version": 1, "resets": {k: v for k, v in resets.items() if v}},
                              indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def reset(root: Path, key: str, at: float | None = None) -> float:
    """"I changed dice": ``key``'s (``kind/colour``) counts start again from now."""
    resets = _load_resets(root)
    when = time.time() if at is None else at
    resets.setdefault(key, []).append(when)
    _save_resets(root, resets)
    return when


def undo_reset(root: Path, key: str) -> bool:
    """Take back ``key``'s last reset (the throws before it count again)."""
    resets = _load_resets(root)
    if not resets.get(key):
        return False
    resets[key].pop()
    _save_resets(root, resets)
    return True


def read_rolls(path: Path) -> Iterable[tuple[float, list[dict[str, Any]]]]:
    """(time recorded, dice) of each roll in the journal, as the player corrected it when
    they did (a ``corrected`` line: the faces a player set for dice the tower was not sure
    of, or read wrong). A torn last line (the app stopped mid-write) is left for the journal
    to repair; any other bad line is named."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return
    except OSError as exc:
        raise DiceStatsError(f"{path}: cannot be read ({exc.strerror})") from None
    lines = raw.split(b"\n")
    lines.pop()     # b"" after the last newline, or a torn last line
    rolls: list[tuple[tuple[str, str, str], float, list[dict[str, Any]]]] = []
    corrected: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for number, line in enumerate(lines, start=1):
        try:
            item = json.loads(line)
            kind = item.get("type")
            if kind not in ("roll", "corrected"):
                continue
            dice = item["dice"]
            if not isinstance(dice, list) or not all(isinstance(d, dict) and "kind" in d
                                                     for d in dice):
                raise ValueError("dice: a list of dice, each with its kind")
            key = (str(item.get("boot_id")), str(item.get("inc", 0)), str(item.get("seq")))
            if kind == "corrected":
                corrected[key] = dice
            else:
                rolls.append((key, float(item.get("at", 0.0)), dice))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise DiceStatsError(f"{path}, line {number}: not a roll this can read ({exc})") from None
    for key, at, dice in rolls:
        yield at, corrected.get(key, dice)


def statistics(root: Path) -> list[DieStats]:
    """Every kind and colour of die the tower has read (in the data folder ``root``), since
    its last reset; kinds in name order, then colours."""
    resets = _load_resets(root)
    counts: dict[tuple[str, str | None], dict[str, int]] = {}
    not_clean: dict[tuple[str, str | None], int] = {}
    for at, dice in read_rolls(root / JOURNAL):
        for d in dice:
            group = (str(d["kind"]), None if d.get("colour") is None else str(d["colour"]))
            faces = counts.setdefault(group, {})   # a die set aside still shows, at 0
            not_clean.setdefault(group, 0)
            since = resets.get(f"{group[0]}/{group[1] or '-'}")
            if since and at <= since[-1]:
                continue
            if d.get("status", "clean") != "clean" or d.get("face") is None:
                not_clean[group] += 1
            else:
                faces[str(d["face"])] = faces.get(str(d["face"]), 0) + 1
    out = []
    for (kind, colour), seen in sorted(counts.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
        known = KNOWN_FACES.get(kind)
        order: tuple[str, ...] = known if known is not None and set(seen) <= set(known) else \
            tuple(sorted(seen, key=lambda f: (len(f), f)))
        since = resets.get(f"{kind}/{colour or '-'}")
        out.append(DieStats(kind, colour, order, tuple(seen.get(f, 0) for f in order),
                            not_clean[(kind, colour)], order == known, since[-1] if since else None))
    return out
