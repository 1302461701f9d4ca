"""Train the tilt network (`make train-tilt`): whether a die the reader found lies tilted.

    python scripts/train_tilt.py [--out vision/dice/models] [--work /tmp/tilt-towers]
        [--seeds 8100-8101,8200,8300-8301,8600-8605,8616-8627,8700-8704,8800-8810,8903-8908]
        [--b-seeds 200-229] [--d-seeds 9000-9039] [--c-seeds ""] [--own 40] [--steps 15000]
        [--seed 1] [--init FILE] [--lr 0.003]

The reader's tilt rules (vision/dice/tiltrules.py's ``TILT``) hold on this project's renders,
where a die's top face is cut free by its dark seams; on trays rendered by other hands they
called a third to a half of the flat dice tilted. The network (vision/dice/tilt.py) looks at
each die as the reader found it: the frame around it, twice its size, in colour.

What it learns from (truth: each die flat or tilted):
- towers written by ``bench/tray_renderer.py`` (the first independent renderer: real 3-D
  dice, its own trays, lights, cameras, blur and JPEG), each set up as the reader is (the
  empty tray, three pictures a face), their trays' dice found by the reader itself;
- towers of ``bench/tray_renderer_b.py`` (the second independent renderer, seeds from 200:
  its towers 100 to 199 chose the reader's thresholds and measure it) and of
  ``bench/tray_renderer_d.py`` (the fourth, 9000-9039: it measures from 9100), whose close
  and tilted cameras show flat dice's side faces;
- ``--own`` towers of this project's renderer (vision/dice/render.py, the benchmark's look
  on seed 4242: the benchmark reads seed 2026), 50 trays each, its tilted dice leaning.

``bench/tray_renderer_c.py``, the third independent renderer, is not learned from by default:
with the second's towers 100 to 119 it chose how the reader weighs the network against the
rules (docs/vision.md, "One tilt network, learned longer"). ``--c-seeds`` (from 300: its seeds
below measure) adds its towers; ``--init`` goes on learning from a saved network instead of
from scratch (its batch norms kept as they are), at ``--lr``. Tried so on 2026-11-30, not
shipped: the shipped network, 4,000 steps more at 0.001 on 20 of the third renderer's towers
and ten each of the others' (docs/vision.md, "Flat dice called tilted: what was tried").

``bench/independent_dice_bench.py`` measures the first renderer on seeds 8400-8402 and
8500-8505 and on fresh seeds from 8910, never learned from (``taught.seeds_of`` refuses
them). Towers not yet in ``--work`` are rendered there first (about half a minute each).

Until 2026-11-30 two networks of a narrower shape were trained for 5,000 steps: one from the
first renderer and this project's renders alone, and a second opinion from all three. The
one network, wider and learned three times longer, tells tilted dice from flat ones better
than either on every renderer, the third included (docs/vision.md).

Needs PyTorch (CPU; `make train-dice`'s venv). Writes ``tilt.npz`` (vision/dice/netrun.py's
format, its ``spec`` saying how it was made) and, with the onnx package, ``tilt.onnx``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from train_dice import block, export, frozen_norms, start_from  # noqa: E402
from train_taught import (  # noqa: E402
    DEFAULT_B_SEEDS,
    DEFAULT_D_SEEDS,
    learning_towers,
    render,
    taught_profile,
)

from vision.dice.model import DiceError  # noqa: E402
from vision.dice.taught import C_MEASURED_SEEDS, seeds_of  # noqa: E402
from vision.dice.tilt import MODEL, SIDE, tilt_input  # noqa: E402

DEFAULT_SEEDS = "8100-8101,8200,8300-8301,8600-8605,8616-8627,8700-8704,8800-8810,8903-8908"
# the second and fourth renderers' towers (their seeds 100 to 199 and from 9100 measure): the
# same as the taught-face network learns from (train_taught.DEFAULT_B_SEEDS, DEFAULT_D_SEEDS)
B_SEEDS = DEFAULT_B_SEEDS
D_SEEDS = DEFAULT_D_SEEDS
OWN_SEED = 4242  # this project's renderer: the benchmark (bench/dice_bench.py) reads 2026
OWN_TRAYS = 50
MATCH = 0.5  # of the die's size: a truth this near the reader's die is that die


def examples(reader, frame: np.ndarray, truth: list[dict], name: str, canonical: bool
             ) -> tuple[list[np.ndarray], list[int]]:
    """The reader's dice in ``frame`` that a true die lies at, as the network's inputs, and
    whether each is tilted (1) or flat (0)."""
    from vision.dice.segment import balanced

    try:
        frame, _light = balanced(frame, reader.bg)
        blobs, _ = reader.blobs(frame, name)
    except DiceError:
        return [], []
    xs, ys = [], []
    for b in blobs:
        near = [t for t in truth if math.hypot(t["x"] - b.cx, t["y"] - b.cy) < MATCH * b.size]
        if not near:
            continue  # not a die (a shadow cut off one), or a die found off its centre
        t = min(near, key=lambda t: math.hypot(t["x"] - b.cx, t["y"] - b.cy))
        xs.append(tilt_input(frame, b, canonical))
        ys.append(int(bool(t["tilted"])))
    return xs, ys


def tower_examples(tower: Path, canonical: bool) -> tuple[list[np.ndarray], list[int]]:
    """A tower of the independent renderer, set up as the reader is (empty tray, three
    pictures a face), and its trays' dice."""
    from vision.dice.cli import read_image
    from vision.dice.reader import DiceReader

    reader = DiceReader(taught_profile(tower))
    xs: list[np.ndarray] = []
    ys: list[int] = []
    for name, dice in sorted(json.loads((tower / "truth.json").read_text())["trays"].items()):
        x, y = examples(reader, read_image(str(tower / "trays" / name)), dice, name, canonical)
        xs += x
        ys += y
    return xs, ys


def own_examples(tower: int, canonical: bool) -> tuple[list[np.ndarray], list[int]]:
    """A tower of this project's renderer (the benchmark's look on OWN_SEED) and OWN_TRAYS
    of its trays, tilted dice leaning as the benchmark's do."""
    from vision.dice.bench import bench_tray, teach_tower, tower_style
    from vision.dice.reader import DiceReader

    reader = DiceReader(teach_tower(tower_style(tower, OWN_SEED), OWN_SEED + tower))
    xs: list[np.ndarray] = []
    ys: list[int] = []
    for k in range(OWN_TRAYS):
        frame, dice = bench_tray(tower, OWN_SEED * 1000 + k, OWN_SEED)
        truth = [{"x": d.x, "y": d.y, "tilted": not d.flat} for d in dice]
        x, y = examples(reader, frame, truth, f"own tower {tower} tray {k}", canonical)
        xs += x
        ys += y
    return xs, ys


class Tilt(nn.Module):
    pooled = True  # train_dice.export: a global average before the linear layer
    # (16, 24, 32, 48, 48) before 2026-11-30: this wider shape, learned as long, told the third
    # renderer's tilted dice from its flat ones better (AUC on c10-c15 0.851 -> 0.864)
    WIDTHS = (24, 32, 48, 64, 64)

    def __init__(self) -> None:
        super().__init__()
        c = self.WIDTHS
        self.body = nn.Sequential(*block(3, c[0]), nn.MaxPool2d(2), *block(c[0], c[1]),
                                  nn.MaxPool2d(2), *block(c[1], c[2]), nn.MaxPool2d(2),
                                  *block(c[2], c[3]), *block(c[3], c[4]))
        self.fc = nn.Linear(c[4], 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(self.body(x).mean(dim=(2, 3)))


def augment(x: np.ndarray, rng: np.random.Generator, canonical: bool) -> np.ndarray:
    """Another view of one input (3 x SIDE x SIDE, -0.5..0.5): turned and mirrored (a tilt has
    no direction; ``canonical``: mirrored about the way from the frame's middle, and turned a
    little only, since that way is kept up), a little larger or smaller, another hue, light,
    contrast, blur and noise."""
    img = np.clip((x.transpose(1, 2, 0) + 0.5) * 255, 0, 255).astype(np.uint8)
    if not canonical:
        img = np.rot90(img, int(rng.integers(4)))
    if rng.random() < 0.5:
        img = img[:, ::-1]
    turn = 12 if canonical else 45
    m = cv2.getRotationMatrix2D((SIDE / 2, SIDE / 2), rng.uniform(-turn, turn),
                                rng.uniform(0.9, 1.1))
    img = cv2.warpAffine(np.ascontiguousarray(img), m, (SIDE, SIDE), borderMode=cv2.BORDER_REPLICATE)
    if rng.random() < 0.5:
        hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV).astype(np.int32)
        hsv[..., 0] = (hsv[..., 0] + int(rng.integers(0, 180))) % 180
        img = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)
    f = img.astype(np.float32) * rng.uniform(0.85, 1.15, size=3)
    f = (f - 128) * rng.uniform(0.7, 1.3) + 128 + rng.uniform(-30, 30)
    if rng.random() < 0.3:
        f = cv2.GaussianBlur(f, (0, 0), rng.uniform(0.3, 1.2))
    f = f + rng.normal(0, rng.uniform(0, 6), size=f.shape)
    return (np.clip(f, 0, 255).transpose(2, 0, 1) / 255.0 - 0.5).astype(np.float32)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "vision" / "dice" / "models")
    ap.add_argument("--work", type=Path, default=Path("/tmp/tilt-towers"))
    ap.add_argument("--seeds", default=DEFAULT_SEEDS)
    ap.add_argument("--b-seeds", default=B_SEEDS,
                    help="towers of bench/tray_renderer_b.py (empty: none)")
    ap.add_argument("--d-seeds", default=D_SEEDS,
                    help="towers of bench/tray_renderer_d.py (empty: none)")
    ap.add_argument("--view", choices=("turned", "canonical"), default="turned",
                    help="canonical: each die turned so that the way from the frame's middle "
                         "points up (writes tilt-canonical.npz; tried, not shipped)")
    ap.add_argument("--c-seeds", default="",
                    help="towers of bench/tray_renderer_c.py, from 300 (empty: none)")
    ap.add_argument("--own", type=int, default=40, help="towers of this project's renderer")
    ap.add_argument("--init", type=Path, default=None,
                    help="go on learning from this saved tilt network (its batch norms kept "
                         "as they are) instead of from scratch")
    ap.add_argument("--lr", type=float, default=3e-3, help="the learning rate it starts at")
    ap.add_argument("--steps", type=int, default=15000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(2)
    canonical = args.view == "canonical"
    try:
        seeds = learning_towers(args.seeds, args.d_seeds, args.b_seeds) + [
            ("c", s) for s in (seeds_of(args.c_seeds, C_MEASURED_SEEDS) if args.c_seeds else [])]
    except ValueError as exc:
        raise SystemExit(f"--seeds: {exc}") from None
    xs: list[np.ndarray] = []
    ys: list[int] = []
    for renderer, s in seeds:
        x, y = tower_examples(render(s, args.work, renderer), canonical)
        xs += x
        ys += y
        print(f"tower {renderer}{s}: {len(x)} dice, {sum(y)} tilted", flush=True)
    for k in range(args.own):
        x, y = own_examples(k, canonical)
        xs += x
        ys += y
        print(f"own tower {k}: {len(x)} dice, {sum(y)} tilted", flush=True)
    label = np.array(ys)
    tilted, flat = np.flatnonzero(label == 1), np.flatnonzero(label == 0)
    rng = np.random.default_rng(args.seed)
    torch.manual_seed(args.seed)
    net = Tilt()
    init_meta = None
    if args.init is not None:
        init_meta = start_from(net, args.init)
        frozen_norms(net)  # the saved network's statistics are folded in: kept
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    t0 = time.monotonic()
    for step in range(args.steps):
        for g in opt.param_groups:
            g["lr"] = args.lr * 0.5 * (1 + math.cos(math.pi * step / args.steps))
        # tilted dice are one in seven: a batch holds 24 of them and 40 flat ones
        batch = np.concatenate([rng.choice(tilted, 24), rng.choice(flat, 40)])
        x = torch.from_numpy(np.stack([augment(xs[i], rng, canonical) for i in batch]))
        loss = F.binary_cross_entropy_with_logits(net(x)[:, 0],
                                                  torch.from_numpy(label[batch].astype(np.float32)))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if (step + 1) % 250 == 0 or step + 1 == args.steps:
            print(f"step {step + 1}: loss {loss.item():.3f} ({time.monotonic() - t0:.0f} s)",
                  flush=True)
    net.eval()
    args.out.mkdir(parents=True, exist_ok=True)
    meta = {"network": "tilt", "view": args.view, "renderer": "bench/tray_renderer.py",
            "seeds": args.seeds, "b_renderer": "bench/tray_renderer_b.py", "b_seeds": args.b_seeds,
            "d_renderer": "bench/tray_renderer_d.py", "d_seeds": args.d_seeds,
            "c_renderer": "bench/tray_renderer_c.py", "c_seeds": args.c_seeds,
            "init": None if init_meta is None else {"file": args.init.name, "meta": init_meta},
            "lr": args.lr,
            "own_towers": args.own, "own_seed": OWN_SEED, "steps": args.steps,
            "seed": args.seed, "dice": len(xs), "tilted": int(label.sum()),
            "side": SIDE, "seconds": round(time.monotonic() - t0)}
    npz = args.out / ("tilt-canonical.npz" if canonical else MODEL.name)
    export(net, npz, meta)
    try:
        from npz_to_onnx import convert
        convert(npz, npz.with_suffix(".onnx"))
    except ImportError:
        print("no onnx package: tilt.onnx not written (the reader runs tilt.npz with numpy)")
    print(json.dumps(meta))
    return 0


if __name__ == "__main__":
    sys.exit(main())
