"""Teach the tower's face classifier the independent renderers' trays (`make train-tower-faces`).

    python scripts/train_tower_faces.py [--out vision/dice/models] [--work /tmp/tower-faces]
        [--towers a:8600-8605,a:8616-8617,b:200-207,c:300-307,d:9040-9047] [--steps 4000]
        [--lr 1e-3]
        [--tower-share 0.35] [--seed 1]

The reader with a profile counts a pip die's pips; a die the count leaves unsure is looked at
again by ``faces-tower.npz`` (vision/dice/pips.py's TOWER_FACES, the reader's ``_second_look``).
That classifier learned from real photographs from above and this project's renders alone, and
on the independent renderers' towers it is unsure of pip dice a person reads at a glance (on
the 16 tuning towers, 57 flat pip dice left unreadable, most sharp and whole: docs/vision.md).

This goes on from the shipped ``faces-tower.npz`` with, beside what it learned from, the trays
of towers of four independent tray renderers (``--towers``: renderer letter and seeds), each set
up as the reader sets a tower up (its empty tray and teaching pictures) and each die cut where
the reader finds it (its outline's centre and size, in the frame balanced as the reader
balances it): a flat pip die as its face, a die of another kind as "no die" (so a symbol die is
not taken for a pip die), a tilted pip die not at all. Towers missing from ``--work`` are
rendered there first (about half a minute each). The seeds each renderer is measured on are
refused (vision/dice/taught.py); the fifth renderer (tray_renderer_e.py) is never learned from.

Its clean confidence is kept (threshold.json's ``tower``), and its figures on byler-train's
kept-apart photographs are read again, as ``make train-dice`` does for ``--faces-init``.
Needs PyTorch (CPU; `make train-dice`'s venv).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from train_dice import (  # noqa: E402
    Mix,
    Photos,
    begin,
    export,
    rendered_trays,
    train_faces,
)
from train_taught import render, taught_profile  # noqa: E402

from vision.dice.pips import CROP, CROP_SCALE, FACES, TOWER_FACES  # noqa: E402
from vision.dice.realphotos import DEFAULT_SET, LabelledDie, LabelledPhoto  # noqa: E402
from vision.dice.taught import towers_of  # noqa: E402

DEFAULT_TOWERS = "a:8600-8605,a:8616-8617,b:200-207,c:300-307,d:9040-9047"
PIPS = "d6pips"
OTHERS_KEPT = 3  # one die of another kind in three is learned from (as "no die")


def towers_to_learn(text: str) -> list[tuple[str, int]]:
    """``--towers``: (renderer, seed) of each tower (vision/dice/taught.py's ``towers_of``),
    or SystemExit naming what it refuses."""
    try:
        return towers_of(text)
    except ValueError as exc:
        raise SystemExit(f"--towers: {exc}") from None


def tower_photos(tower: Path, every_die: bool = False) -> Photos:
    """The tower's trays as the reader sees them (balanced against its empty tray), each die
    labelled where the reader finds it: a flat pip die by its face, a tilted one "?" (no face
    to learn), one die of another kind in OTHERS_KEPT "" (no die: the renderers' trays hold
    about twice as many dice of other kinds as pip dice). ``every_die``: for the tower's die
    finder (scripts/train_tower_finder.py), every die of every kind, flat or tilted, where
    the truth puts it, "?" (a die, no face), at its kind's taught size: dice pressed
    together are one part to the reader, and the finder must find each."""
    from vision.dice.cli import read_image
    from vision.dice.model import DiceError
    from vision.dice.reader import DiceReader
    from vision.dice.segment import balanced

    profile = taught_profile(tower)
    reader = DiceReader(profile)
    sizes = {kind: m.size_px for kind, m in profile.kinds.items() if m.size_px}
    truth = json.loads((tower / "truth.json").read_text())["trays"]
    photos, images = [], []
    for name, dice in sorted(truth.items()):
        raw = read_image(str(tower / "trays" / name))
        frame, light = balanced(raw, reader.bg)
        if every_die:  # where the truth puts each die: the reader's parts are not asked
            photos.append(LabelledPhoto(tower / "trays" / name, tuple(
                LabelledDie("?", t["x"], t["y"], sizes[t["kind"]]) for t in dice
                if t["kind"] in sizes)))
            images.append(frame)
            continue
        try:
            blobs, _ = reader.blobs(frame, name, gain=light if frame is raw else None)
        except DiceError:
            continue
        labelled = []
        for k, t in enumerate(dice):
            if not blobs:
                break
            b = min(blobs, key=lambda b: math.hypot(b.cx - t["x"], b.cy - t["y"]))
            if math.hypot(b.cx - t["x"], b.cy - t["y"]) > 0.4 * b.size:
                continue  # the reader did not find it as one die
            if t["kind"] != PIPS and k % OTHERS_KEPT:
                continue  # the trays hold twice as many dice of other kinds as pip dice
            face = ("?" if t["tilted"] else t["face"]) if t["kind"] == PIPS else ""
            labelled.append(LabelledDie(face, b.cx, b.cy, b.size))
        photos.append(LabelledPhoto(tower / "trays" / name, tuple(labelled)))
        images.append(frame)
    return Photos(photos, images, upright=False)


def record(out: Path, calib: list[LabelledPhoto], threshold: float, trained: str) -> dict:
    """threshold.json's ``tower`` entry in ``out`` brought up to date with the classifier
    there: how it was made, its clean confidence (kept), and its figures on byler-train's
    kept-apart photographs read again (returned); the out-of-fold figures are those the
    threshold was set by, of the classifier it went on from."""
    from vision.dice.pips import PipReader, clean_figures, reading_pairs

    pairs, total = reading_pairs(PipReader.load(out, tower=True), calib)
    figures = clean_figures(pairs, total, threshold)
    path = out / "threshold.json"
    report = json.loads(path.read_text())
    tower = report.setdefault("tower", {})
    before = tower.get("out_of_fold", {})
    tower.update({"clean_confidence": threshold, "trained": f"{TOWER_FACES}: {trained}",
                  "out_of_fold": {"of_the_network_it_went_on_from": before.get(
                      "of_the_network_it_went_on_from", before)},
                  "kept_apart": figures})
    path.write_text(json.dumps(report, indent=1) + "\n")
    return figures


def tower_parser(doc: str, init: str, steps: int, unit: str, share: float
                 ) -> argparse.ArgumentParser:
    """The options both tower scripts take (this one and train_tower_finder.py): ``init``,
    the shipped network to go on from; ``steps`` batches of ``unit``; ``share``, the towers'
    share of the examples."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_SET)
    ap.add_argument("--out", type=Path, default=ROOT / "vision" / "dice" / "models")
    ap.add_argument("--init", type=Path, default=ROOT / "vision" / "dice" / "models" / init,
                    help="the network to go on from")
    ap.add_argument("--work", type=Path, default=Path("/tmp/tower-faces"))
    ap.add_argument("--towers", default=DEFAULT_TOWERS)
    ap.add_argument("--steps", type=int, default=steps, help=f"batches of {unit}")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--tower-share", type=float, default=share)
    ap.add_argument("--seed", type=int, default=1)
    return ap


def tower_trays(text: str, work: Path, every_die: bool = False) -> Photos:
    """The trays of the towers ``text`` names (``--towers``), rendered into ``work`` where
    missing, as :func:`tower_photos` labels them."""
    trays = Photos([], [])
    for renderer, seed in towers_to_learn(text):
        more = tower_photos(render(seed, work, renderer), every_die)
        trays = Photos(trays.photos + more.photos, trays.images + more.images)
    return trays


def main(argv: list[str] | None = None) -> int:
    ap = tower_parser(__doc__ or "", TOWER_FACES, 4000, "96 crops", 0.35)
    ap.add_argument("--render-share", type=float, default=0.1)
    ap.add_argument("--oblique-share", type=float, default=0.1)
    ap.add_argument("--renders", type=int, default=200)
    args = ap.parse_args(argv)
    towers = towers_to_learn(args.towers)
    rng, learn, calib = begin(args.seed, args.data)
    trays = tower_trays(args.towers, args.work)
    flat = sum(d.face not in ("", "?") for p in trays.photos for d in p.dice)
    print(f"{len(learn.photos)} photographs, {len(towers)} towers ({len(trays.photos)} trays, "
          f"{flat} flat pip dice)", flush=True)
    renders = rendered_trays(args.renders, args.seed)
    oblique = rendered_trays(args.renders, args.seed, oblique=True)
    real = 1.0 - args.tower_share - args.render_share - args.oblique_share
    data = Mix([(learn, real), (trays, args.tower_share), (renders, args.render_share),
                (oblique, args.oblique_share)])
    faces = train_faces(data, rng, args.steps, args.init, args.lr)
    models = json.loads((args.init.parent / "threshold.json").read_text())
    kept = models.get("tower", models)
    threshold = float(kept["clean_confidence"])
    args.out.mkdir(parents=True, exist_ok=True)
    meta = {"crop": CROP, "crop_scale": CROP_SCALE, "faces": list(FACES),
            "trained_on": (f"{args.init.name} went on learning {args.steps} steps (lr {args.lr}) "
                           f"from {args.data.name}'s tuning part ({len(learn.photos)} photographs, "
                           f"{real:.0%}), the trays of towers {args.towers} of the independent "
                           f"tray renderers ({len(trays.photos)} trays, {args.tower_share:.0%}) "
                           f"and {args.renders} trays of vision/dice/render.py from above and "
                           f"from the side ({args.render_share:.0%}, {args.oblique_share:.0%})"),
            "towers": args.towers, "seed": args.seed, "faces_steps": args.steps,
            "faces_init": args.init.name,
            "torch": torch.__version__}
    export(faces, args.out / TOWER_FACES, meta)
    from npz_to_onnx import convert

    convert(args.out / TOWER_FACES, args.out / TOWER_FACES.replace(".npz", ".onnx"))
    figures = record(args.out, calib, threshold, meta["trained_on"])
    print(f"wrote {args.out / TOWER_FACES} and its .onnx twin; clean from {threshold} (kept); "
          f"byler-train's kept-apart photographs: {figures}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
