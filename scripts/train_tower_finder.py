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

import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from train_dice import Mix, begin, export, train_finder  # noqa: E402
from train_tower_faces import tower_parser, tower_trays, towers_to_learn  # noqa: E402

from vision.dice.netrun import meta_of  # noqa: E402
from vision.dice.pips import STRIDE, TOWER_FINDER, WORK  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    args = tower_parser(__doc__ or "", TOWER_FINDER, 1500, "16 patches", 0.5).parse_args(argv)
    towers = towers_to_learn(args.towers)
    rng, learn, _ = begin(args.seed, args.data)
    trays = tower_trays(args.towers, args.work, every_die=True)
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
