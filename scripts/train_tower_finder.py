"""Teach the tower's die finder dice of every kind, from the independent renderers' trays
(`make train-tower-finder`).

    python scripts/train_tower_finder.py [--out vision/dice/models] [--work /tmp/tower-faces]
        [--towers a:8600-8605,a:8616-8617,b:200-207,c:300-307,d:9040-9047] [--steps 1500]
        [--lr 1e-3] [--tower-share 0.5] [--seed 1]

The reader with a profile cuts a part that holds several dice pressed together at the
centres ``finder-tower.npz`` finds in it (vision/dice/reader.py, ``_guided``). That finder
learned pip dice only (byler-train's photographs; this project's D12s and symbol dice as "no
die"), so a part of D12s and symbol dice pressed together was cut by its area alone, or not
at all: one reading for several dice, the others missed.

This goes on from the shipped ``finder-tower.npz`` with byler-train's tuning photographs and
the trays of towers of four independent tray renderers (``--towers``, as
scripts/train_tower_faces.py renders and sets them up), where every die of every kind, flat
or tilted, is a die to find, at its kind's taught size. The seeds each renderer is measured on
are refused, and the fifth renderer. Its score (threshold.json's ``tower``'s ``find_score``) is
kept. Needs PyTorch (CPU; `make train-dice`'s venv).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from train_dice import Mix, Photos, calibration_photo, export, train_finder  # noqa: E402
from train_taught import render  # noqa: E402
from train_tower_faces import DEFAULT_TOWERS, tower_photos, towers_to_learn  # noqa: E402

from vision.dice.netrun import meta_of  # noqa: E402
from vision.dice.pips import STRIDE, TOWER_FINDER, WORK  # noqa: E402
from vision.dice.realphotos import DEFAULT_SET, load  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_SET)
    ap.add_argument("--out", type=Path, default=ROOT / "vision" / "dice" / "models")
    ap.add_argument("--init", type=Path, default=ROOT / "vision" / "dice" / "models" / TOWER_FINDER,
                    help="the finder to go on from")
    ap.add_argument("--work", type=Path, default=Path("/tmp/tower-faces"))
    ap.add_argument("--towers", default=DEFAULT_TOWERS)
    ap.add_argument("--steps", type=int, default=1500, help="batches of 16 patches")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--tower-share", type=float, default=0.5)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    towers = towers_to_learn(args.towers)
    torch.manual_seed(args.seed)
    torch.set_num_threads(2)
    rng = np.random.default_rng(args.seed)
    tune = load(args.data, "tune")
    learn = Photos([p for p in tune if not calibration_photo(p.path.name)])
    trays = Photos([], [])
    for renderer, seed in towers:
        more = tower_photos(render(seed, args.work, renderer), every_die=True)
        trays = Photos(trays.photos + more.photos, trays.images + more.images)
    print(f"{len(learn.photos)} photographs, {len(towers)} towers ({len(trays.photos)} trays, "
          f"{sum(len(p.dice) for p in trays.photos)} dice)", flush=True)
    data = Mix([(learn, 1.0 - args.tower_share), (trays, args.tower_share)])
    finder = train_finder(data, rng, args.steps, args.init, args.lr)
    args.out.mkdir(parents=True, exist_ok=True)
    meta = {"work": WORK, "stride": STRIDE,
            "trained_on": (f"{args.init.name} ({meta_of(args.init).get('trained_on', '')}) went "
                           f"on learning {args.steps} steps (lr {args.lr}) from "
                           f"{args.data.name}'s tuning part ({len(learn.photos)} photographs, "
                           f"{1 - args.tower_share:.0%}) and the trays of towers {args.towers} of "
                           f"the independent tray renderers, every die of every kind a die "
                           f"({len(trays.photos)} trays, {args.tower_share:.0%})"),
            "towers": args.towers, "seed": args.seed, "finder_steps": args.steps,
            "finder_init": args.init.name, "torch": torch.__version__}
    export(finder, args.out / TOWER_FINDER, meta)
    from npz_to_onnx import convert

    convert(args.out / TOWER_FINDER, args.out / TOWER_FINDER.replace(".npz", ".onnx"))
    print(f"wrote {args.out / TOWER_FINDER} and its .onnx twin; its score kept", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
