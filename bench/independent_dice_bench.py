"""The dice reader on trays it was not built with: bench/tray_renderer.py (written for this
purpose without reading the reader's code: its own 3-D dice, trays, lights and camera) renders
towers, and each is set up and read through the command line, as a tower's owner would:

    python -m vision dice background --profile P empty/*.png
    python -m vision dice teach --profile P --kind K --face F --colour C teach/K/C/F-*.png
    python -m vision dice read --profile P trays/*.png --json      (and without --profile)

    python bench/independent_dice_bench.py [--towers 3] [--trays 40] [--seed 7000] [--renderer b]

``--renderer b``: towers of bench/tray_renderer_b.py instead, a second renderer written the
same way by another hand (ray-cast dice, its own trays, lights and camera): what one renderer's
look taught the reader by chance, the other's does not share. ``--renderer c``:
bench/tray_renderer_c.py, a third (2026-11-30), nothing of which any part of the reader has
learned from or been tuned on. ``--renderer d``: bench/tray_renderer_d.py, a fourth
(2026-11-30), whose cameras range from close wide-angle ones to far ones; its towers
9000-9039 are kept for learning from (the tilt and taught-face networks have), so it is
measured from 9100. ``--renderer e``: bench/tray_renderer_e.py, a fifth (2026-11-30, last),
a per-pixel ray caster with engraved pips, a camera's sensor pipeline (Bayer mosaic, noise,
white balance, JPEG) and dark felt trays among its surfaces; nothing of the reader has learned
from or been tuned on it.

Prints each tower's figures, then all of them as one JSON object on the last line: flat dice
read clean with the right face, dice read clean with a wrong face, tilted dice flagged
(cocked or unreadable), colour right; and the pip D6 dice read without a profile. Exit 1 when
a target of issue 26 is missed (flat >= 99.5 %, wrong <= 0.3 %, tilted flagged >= 93 %,
colour >= 99.5 %, read with a profile in <= 40 ms p95).

The time of a read is measured as bench/dice_read_speed_bench.py measures it on this
project's renders: ``Profile.load`` + ``DiceReader`` + ``read`` of one tray in this process,
on one thread, each tray read three times (its median counts): ``with_profile_ms_p95``.
(``ms_per_tray_with_profile`` is the whole command over a tower's trays, the interpreter's
start included, divided by the trays.)"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tabletop_base.threads import one_blas_thread  # noqa: E402

one_blas_thread()  # the reader is timed as the tower's programs run it, before numpy loads

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TARGETS = {"flat_clean_right": 0.995, "wrong_clean": 0.003, "tilted_flagged": 0.93, "colour": 0.995,
           "with_profile_ms_p95": 40.0}
REPEATS = 3  # reads of each tray whose median is its time


def vision(*args: str, images: int = 1) -> list[dict]:
    """The command's JSON lines; a read answers one line per image (``images``)."""
    out = subprocess.run([sys.executable, "-m", "vision", "dice", *args, "--json"], cwd=ROOT,
                         capture_output=True, text=True)
    lines = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise SystemExit(f"dice {args[0]}: exit {out.returncode}: {out.stderr[-1500:]}")
    if args[0] == "read" and len(lines) != images:
        raise SystemExit(f"dice read: {len(lines)} lines for {images} images: {lines[0]}")
    return lines


MATCH_PX = 40.0  # a reading is a true die's when its centre is this near (or nearer)


def _anchors(t: dict) -> tuple[list[tuple[float, float]], float]:
    """Where a true die is (its top face's centre, and where the truth gives its outline's box,
    the box's centre) and how far from there a reading is still its: MATCH_PX, or half the
    box's longer side where that is more (as realphotos.match pairs the real photographs).
    The webcam renderers give the top face's centre as x, y: on a die close to a low camera
    it lies near the top of the outline, half a die from the outline's centre, where the
    reader places the die."""
    box = t.get("box")
    if not box:
        return [(t["x"], t["y"])], 0.0
    x0, y0, x1, y1 = box
    return [(t["x"], t["y"]), ((x0 + x1) / 2, (y0 + y1) / 2)], max(x1 - x0, y1 - y0) / 2


def nearest_pairs(dice: list[dict], readings: list[dict], reach: float = MATCH_PX
                  ) -> dict[int, int]:
    """Each true die's reading (their indices), pairs taken nearest first: a reading goes to
    the true die it lies nearest (its top face's centre or, where the truth gives the die's
    outline, that outline's centre), within ``reach`` pixels or half the outline's longer
    side, whichever is more, and serves one die only. (Taken die by die in the truth's order,
    until 2026-12-03, a die the reader missed could take the reading of the touching die
    beside it, counted a wrong face where the two showed different faces, and that die was
    counted missed: with the shipped networks, 65 wrong faces on the second webcam
    renderer's setups 300-339 were 51 taken nearest first, 20 on the third's 5000-5011 were
    11. Paired with the top face's centre alone, within ``reach``, until 2026-12-03 (night), a die
    close to a low camera, read where its outline is, was counted missed, and the face read
    there was counted nowhere, wrong or right.)"""
    pairs = []
    for k, t in enumerate(dice):
        anchors, half_box = _anchors(t)
        far = max(reach, half_box)
        for i, r in enumerate(readings):
            d = min(math.hypot(r["x"] - x, r["y"] - y) for x, y in anchors)
            if d < far:
                pairs.append((d, k, i))
    out: dict[int, int] = {}
    taken: set[int] = set()
    for _d, k, i in sorted(pairs):
        if k not in out and i not in taken:
            out[k] = i
            taken.add(i)
    return out


def score(truth: dict[str, list[dict]], results: dict[str, dict], pips_only: bool = False) -> dict:
    """The figures of ``results`` (each image's `dice read --json` line) against ``truth``
    (each image's true dice), each die given its reading by :func:`nearest_pairs`.
    ``pips_only``: the reader without a profile, which reads pip dice alone: a face read
    clean on a die of another kind (or within MATCH_PX of it, unpaired) is counted apart.
    ``clean_where_no_die``: faces read clean that are no true die's reading (a print's dots
    taken for a die, a second reading of one die, a die the truth leaves out as mostly
    hidden), counted apart from ``wrong_clean``, which is of the true dice."""
    n = {"flat": 0, "tilted": 0, "flat_right": 0, "wrong": 0, "tilted_flagged": 0, "colour_right": 0,
         "colour_known": 0, "missed": 0, "dice": 0, "clean_on_other_kinds": 0, "extra_clean": 0}
    for name, dice in truth.items():
        readings = results[name].get("dice", []) if results[name].get("ok") else []
        paired = nearest_pairs(dice, readings)
        used: set[int] = set(paired.values())
        for k, t in enumerate(dice):
            if pips_only and t["kind"] != "d6pips":
                # another kind of die: any face read clean on it is a wrong reading
                near = [i for i, r in enumerate(readings) if i not in used
                        and math.hypot(r["x"] - t["x"], r["y"] - t["y"]) < MATCH_PX]
                used.update(near)
                if k in paired:
                    near.append(paired[k])
                n["clean_on_other_kinds"] += sum(readings[i]["status"] == "clean" for i in near)
                continue
            n["dice"] += 1
            n["tilted" if t["tilted"] else "flat"] += 1
            best = paired.get(k)
            if best is None:
                n["missed"] += 1
                continue
            r = readings[best]
            clean = r["status"] == "clean"
            right = clean and r["face"] == t["face"] and (r["kind"] == t["kind"])
            if clean and not right:
                n["wrong"] += 1
            if t["tilted"]:
                n["tilted_flagged"] += not clean
            else:
                n["flat_right"] += right
                if not pips_only and r.get("colour") is not None:
                    n["colour_known"] += 1
                    n["colour_right"] += r["colour"] == t["colour"]
        # a face read clean where no die is (a print's dots, a second reading of one die):
        # a die the player did not throw
        n["extra_clean"] += sum(r["status"] == "clean" for i, r in enumerate(readings)
                                if i not in used)
    return {"dice": n["dice"], "flat_dice": n["flat"], "tilted_dice": n["tilted"],
            "flat_clean_right": round(n["flat_right"] / max(n["flat"], 1), 4),
            "wrong_clean": round(n["wrong"] / max(n["dice"], 1), 4),
            "tilted_flagged": round(n["tilted_flagged"] / max(n["tilted"], 1), 4),
            "colour": round(n["colour_right"] / max(n["colour_known"], 1), 4),
            "missed": n["missed"], "clean_where_no_die": n["extra_clean"],
            **({"clean_on_other_kinds": n["clean_on_other_kinds"]} if pips_only else {})}


RENDERERS = {"a": "tray_renderer.py", "b": "tray_renderer_b.py", "c": "tray_renderer_c.py",
             "d": "tray_renderer_d.py", "e": "tray_renderer_e.py"}


def teach_tower(out: Path, profile: str, dice) -> None:
    """Rendered tower ``out`` set up as its owner would: `dice background` with its empty
    trays, then `dice teach --colour` once a face and colour; ``dice(*args)`` runs a `dice`
    command (:func:`vision`, or bench/tower_sets.py's in this process)."""
    dice("background", "--profile", profile, *map(str, sorted((out / "empty").glob("*.png"))))
    for kind_dir in sorted((out / "teach").iterdir()):
        for colour_dir in sorted(kind_dir.iterdir()):
            faces = sorted({p.stem.rsplit("-", 1)[0] for p in colour_dir.glob("*.png")})
            for face in faces:
                dice("teach", "--profile", profile, "--kind", kind_dir.name, "--face", face,
                     "--colour", colour_dir.name, *map(str, sorted(colour_dir.glob(f"{face}-*.png"))))


def tower(seed: int, trays: int, work: Path, renderer: str = "a") -> dict:
    out = work / f"tower-{seed}"
    subprocess.run([sys.executable, str(HERE / RENDERERS[renderer]), str(out), "--seed", str(seed),
                    "--trays", str(trays)], check=True, capture_output=True)
    truth = json.loads((out / "truth.json").read_text())["trays"]
    profile = str(out / "profile.yaml")
    teach_tower(out, profile, vision)
    names = sorted(truth)
    paths = [str(out / "trays" / n) for n in names]
    t0 = time.perf_counter()
    with_profile = dict(zip(names, vision("read", "--profile", profile, *paths, images=len(paths))))
    t1 = time.perf_counter()
    without = dict(zip(names, vision("read", *paths, images=len(paths))))
    t2 = time.perf_counter()
    figures = score(truth, with_profile)
    figures["ms_per_tray_with_profile"] = round((t1 - t0) * 1000 / len(names), 1)
    figures["pips_without_profile"] = score(truth, without, pips_only=True)
    figures["pips_without_profile"]["ms_per_tray"] = round((t2 - t1) * 1000 / len(names), 1)
    figures["read_ms"] = read_times(profile, paths)
    return figures


def read_times(profile: str, paths: list[str]) -> list[float]:
    """Each tray's time (ms, this thread's CPU): a fresh reader from the saved profile and
    its read, the median of REPEATS passes over all the trays."""
    import cv2

    sys.path.insert(0, str(ROOT))
    from vision.dice import DiceReader, Profile

    cv2.setNumThreads(1)
    frames = [cv2.imread(p) for p in paths]
    DiceReader(Profile.load(profile)).read(frames[0])  # imports and the finder, once
    runs: list[list[float]] = [[] for _ in frames]
    for _ in range(REPEATS):
        for k, frame in enumerate(frames):
            t0 = time.thread_time()
            DiceReader(Profile.load(profile)).read(frame)
            runs[k].append((time.thread_time() - t0) * 1000)
    return [round(sorted(r)[len(r) // 2], 2) for r in runs]


def each_seed(what: str, count: int, first: int, make) -> dict[str, dict]:
    """``make(seed, folder)`` for ``count`` seeds from ``first``, in a scratch folder, each
    one's figures printed as it comes."""
    out = {}
    with tempfile.TemporaryDirectory(prefix=f"{what}-") as tmp:
        for seed in range(first, first + count):
            out[str(seed)] = make(seed, Path(tmp))
            shown = {k: v for k, v in out[str(seed)].items() if k != "read_ms"}
            print(f"{what} {seed}: {json.dumps(shown)}", flush=True)
    return out


def weighted(rows: list[dict], key: str) -> float:
    """A rate over several towers, each weighted by the dice it was counted on."""
    weight = "flat_dice" if key in ("flat_clean_right", "colour") else \
        "tilted_dice" if key == "tilted_flagged" else "dice"
    n = sum(r[weight] for r in rows)
    return round(sum(r[key] * r[weight] for r in rows) / max(n, 1), 4)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--towers", type=int, default=3)
    ap.add_argument("--trays", type=int, default=40)
    ap.add_argument("--seed", type=int, default=7000)
    ap.add_argument("--renderer", choices=sorted(RENDERERS), default="a",
                    help="a: bench/tray_renderer.py; b: bench/tray_renderer_b.py; "
                         "c: bench/tray_renderer_c.py; d: bench/tray_renderer_d.py (its seeds "
                         "from 9100: 9000-9039 are kept for learning from); "
                         "e: bench/tray_renderer_e.py")
    args = ap.parse_args()
    towers = each_seed("tower", args.towers, args.seed,
                       lambda seed, work: tower(seed, args.trays, work, args.renderer))

    def total(key: str, part: str | None = None) -> float:
        return weighted([t[part] if part else t for t in towers.values()], key)

    figures = {"benchmark": "dice_independent_renders", "renderer": RENDERERS[args.renderer],
               "towers": len(towers), "trays": args.trays,
               **{k: total(k) for k in ("flat_clean_right", "wrong_clean", "tilted_flagged", "colour")},
               "pips_without_profile": {k: total(k, "pips_without_profile")
                                        for k in ("flat_clean_right", "wrong_clean", "tilted_flagged")},
               "per_tower": towers}
    times = [ms for t in towers.values() for ms in t.pop("read_ms")]
    figures["with_profile_ms_p95"] = round(float(np.percentile(times, 95)), 1)
    figures["with_profile_ms_median"] = round(float(np.median(times)), 1)
    figures["meets_targets"] = (figures["flat_clean_right"] >= TARGETS["flat_clean_right"]
                                and figures["wrong_clean"] <= TARGETS["wrong_clean"]
                                and figures["tilted_flagged"] >= TARGETS["tilted_flagged"]
                                and figures["colour"] >= TARGETS["colour"]
                                and figures["with_profile_ms_p95"] <= TARGETS["with_profile_ms_p95"])
    print(json.dumps(figures))
    return 0 if figures["meets_targets"] else 1


if __name__ == "__main__":
    sys.exit(main())
