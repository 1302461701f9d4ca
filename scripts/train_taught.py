"""Train the taught-face network (`make train-taught`): what a taught die's top face looks like,
as 64 numbers, so that a die is read by the taught pictures it looks most like.

    python scripts/train_taught.py [--out vision/dice/models] [--work /tmp/taught-towers]
                                   [--seeds 8600-8605,8616-8627,8700-8704,8800-8815]
                                   [--b-seeds 200-229] [--d-seeds 9000-9039]
                                   [--steps 12000] [--noise 10] [--seed 1]

The taught kinds (the symbol die, Takkure's D12, the spawn die, any die a player teaches) are
read by comparing a die with the few pictures the tower was taught (vision/dice/reader.py).
The network is what compares them: it turns the reader's crop of a die's top face
(features.face_crop, the middle 48x48) into a unit vector, and two pictures of one face come
out close whatever the light, the turn, the blur or the tray. It never learns a tower's
faces: the reader compares each die with the pictures its tower was taught, so a kind the
network never saw is read the same way.

What it learns from: towers written by ``bench/tray_renderer.py`` (the first independent
renderer: real 3-D dice, its own trays, lights, cameras, blur and JPEG), by
``bench/tray_renderer_b.py`` (the second, seeds from 200) and by ``bench/tray_renderer_d.py``
(the fourth, 9000-9039: close wide-angle cameras, glossy and marbled dice), each set up as the
reader is (the empty tray, three pictures a face, every colour), their teaching pictures and
their trays' dice (truth: kind, face; pip dice too, so that they come out unlike any symbol)
cut out by the reader itself (its silhouettes, its top faces, its crops, at the scale of each
taught kind it compares them with). It learns as a classifier of every (kind, face) of those towers with a
cosine softmax; the reader keeps only the vector before the last layer. Three towers are kept
apart to watch it learn. The third and fifth renderers (``bench/tray_renderer_c.py``,
``bench/tray_renderer_e.py``) are never learned from: they measure (docs/vision.md).

Until 2026-11-30 it learned from the first renderer alone for 3,000 steps (6 minutes). Learned
from three renderers for 12,000 steps, with noisier, darker and softer crops (``--noise``, the
sensor noise of a dark tray), it reads more of the taught dice of renderers it never saw
(docs/vision.md, "The taught-face network learned from three renderers").

Seeds: ``bench/independent_dice_bench.py`` measures the first renderer on seeds 8400-8402
and 8500-8505, the second on 100-199 and the fourth from 9100; those are never learned from
(``taught.seeds_of`` refuses them). Towers not yet in
``--work`` are rendered there first (about half a minute each).

Needs PyTorch (CPU; `make train-dice`'s venv). Writes ``taught.npz`` (vision/dice/netrun.py's
format, its ``spec`` saying how it was made) and, with the onnx package, ``taught.onnx``.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
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

from train_dice import block, export  # noqa: E402

from vision.dice.features import face_crop  # noqa: E402
from vision.dice.model import DiceError  # noqa: E402
from vision.dice.taught import (  # noqa: E402
    A_FRESH_SEEDS,
    B_MEASURED_SEEDS,
    D_MEASURED_SEEDS,
    EMBED_SIDE,
    MEASURED_SEEDS,
    embed_input,
    seeds_of,
)

DEFAULT_SEEDS = "8600-8605,8616-8627,8700-8704,8800-8815"
DEFAULT_B_SEEDS = "200-229"
DEFAULT_D_SEEDS = "9000-9039"
NOISE = 10.0  # the most sensor noise added to a crop (its standard deviation, of 0..255)
WATCH = 3  # towers kept apart to watch the learning


# the independent renderers that may be learned from: the first (tray_renderer.py), with
# --b-seeds the second (tray_renderer_b.py) and with --d-seeds
# the fourth (tray_renderer_d.py, whose cameras range from close wide-angle ones to far ones;
# both networks learn from the second and the fourth since 2026-11-30, final); the third
# (tray_renderer_c.py) only where scripts/train_tilt.py is given --c-seeds (from 300: tried,
# no shipped network learned from it), and the fifth (tray_renderer_e.py) never: they measure
# what the others taught
RENDERERS = {"a": "tray_renderer.py", "b": "tray_renderer_b.py", "c": "tray_renderer_c.py",
             "d": "tray_renderer_d.py"}


def learning_towers(seeds: str, d_seeds: str, b_seeds: str = "") -> list[tuple[str, int]]:
    """(renderer, seed) of every tower to learn from: the first renderer's ``seeds``, then
    the second's ``b_seeds`` and the fourth's ``d_seeds`` (empty: none). Refuses the seeds
    each is measured on (ValueError, naming them)."""
    return [("a", s) for s in seeds_of(seeds, MEASURED_SEEDS | A_FRESH_SEEDS)] + [
        ("b", s) for s in (seeds_of(b_seeds, B_MEASURED_SEEDS) if b_seeds else [])] + [
        ("d", s) for s in (seeds_of(d_seeds, D_MEASURED_SEEDS) if d_seeds else [])]


def render(seed: int, work: Path, renderer: str = "a") -> Path:
    """Tower ``seed`` of ``renderer`` (RENDERERS), rendered into ``work`` unless it is there."""
    out = work / (f"tower-{seed}" if renderer == "a" else f"tower-{renderer}{seed}")
    if not (out / "truth.json").exists():
        subprocess.run([sys.executable, str(ROOT / "bench" / RENDERERS[renderer]), str(out),
                        "--seed", str(seed), "--trays", "40"], check=True, capture_output=True)
    return out


def taught_profile(tower: Path):
    """A rendered tower's profile, set up as the reader is: its empty tray and every
    teaching picture (one the reader refuses is no example)."""
    from vision.dice.cli import read_image
    from vision.dice.profile import Profile

    p = Profile()
    for e in sorted((tower / "empty").glob("*.png")):
        p.add_background(read_image(str(e)), name=str(e))
    for kind_dir in sorted((tower / "teach").iterdir()):
        for colour_dir in sorted(kind_dir.iterdir()):
            for img in sorted(colour_dir.glob("*.png")):
                face = img.stem.rsplit("-", 1)[0]
                try:
                    p.add_example(kind_dir.name, face, read_image(str(img)),
                                  colour=colour_dir.name, name=str(img))
                except DiceError:
                    pass  # a picture the reader refuses is no example
    return p


def crops_of(tower: Path) -> tuple[list[np.ndarray], list[str]]:
    """The tower set up as the reader is, and its dice's face crops as the reader cuts them:
    (crops 64x64 uint8, "kind|face")."""
    from vision.dice.cli import read_image
    from vision.dice.reader import DiceReader

    p = taught_profile(tower)
    crops: list[np.ndarray] = []
    labels: list[str] = []
    for kind, m in p.kinds.items():
        if m.builtin or not m.examples:
            continue
        for face, crop in zip(*m.example_crops()):
            crops.append(np.asarray(crop, np.uint8))
            labels.append(f"{kind}|{face}")
    reader = DiceReader(p)
    radii = [m.patch_radius_px for m in p.kinds.values()
             if not m.builtin and m.examples and m.patch_radius_px is not None]
    truth = json.loads((tower / "truth.json").read_text())["trays"]
    for name, dice in sorted(truth.items()):
        try:
            blobs, _ = reader.blobs(read_image(str(tower / "trays" / name)), name)
        except DiceError:
            continue
        for t in dice:
            if not blobs:
                break
            b = min(blobs, key=lambda b: math.hypot(b.cx - t["x"], b.cy - t["y"]))
            if math.hypot(b.cx - t["x"], b.cy - t["y"]) > 0.4 * b.size:
                continue  # the reader did not find it as one die
            # cut as the reader cuts it for each taught kind it compares it with (a pip die
            # too: it must not come out like a symbol)
            for radius in radii:
                crops.append(np.clip(face_crop(b, radius) * 2.55, 0, 255).astype(np.uint8))
                labels.append(f"{t['kind']}|{t['face']}")
    return crops, labels


class Taught(nn.Module):
    pooled = True  # train_dice.export: a global average before the linear layer

    def __init__(self, classes: int, dim: int = 64) -> None:
        super().__init__()
        self.body = nn.Sequential(*block(1, 16, 2), *block(16, 32), *block(32, 32),
                                  nn.MaxPool2d(2), *block(32, 64), *block(64, 64),
                                  nn.MaxPool2d(2), *block(64, 96))
        self.emb = nn.Linear(96, dim)
        self.w = nn.Parameter(torch.randn(classes, dim) * 0.1)

    def embed(self, x: torch.Tensor) -> torch.Tensor:
        return F.normalize(self.emb(self.body(x).mean(dim=(2, 3))), dim=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return 16.0 * self.embed(x) @ F.normalize(self.w, dim=1).T


def augment(crop: np.ndarray, rng: np.random.Generator, noise: float = NOISE) -> np.ndarray:
    """Any turn, the centre off by up to 4 pixels, 12 % larger or smaller; blur, light,
    contrast and noise (up to ``noise``). The reader's own crop (EMBED_SIDE middle), float32."""
    c = crop.shape[0] / 2
    dx, dy = rng.uniform(-4, 4, 2)
    m = cv2.getRotationMatrix2D((c + dx, c + dy), rng.uniform(0, 360), rng.uniform(0.88, 1.12))
    m[0, 2] -= c - EMBED_SIDE / 2 + dx
    m[1, 2] -= c - EMBED_SIDE / 2 + dy
    x = cv2.warpAffine(crop.astype(np.float32), m, (EMBED_SIDE, EMBED_SIDE),
                       flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    if rng.random() < 0.5:
        x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.3, 1.5))
    x = 255 * (np.clip(x, 0, 255) / 255) ** rng.uniform(0.6, 1.5) * rng.uniform(0.4, 1.2)
    return (x + rng.normal(0, rng.uniform(0, noise), x.shape)).astype(np.float32)


def to_input(xs: list[np.ndarray]) -> torch.Tensor:
    return torch.from_numpy(np.stack([embed_input(x, middle=False) for x in xs])[:, None])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "vision" / "dice" / "models")
    ap.add_argument("--work", type=Path, default=Path("/tmp/taught-towers"))
    ap.add_argument("--seeds", default=DEFAULT_SEEDS)
    ap.add_argument("--b-seeds", default=DEFAULT_B_SEEDS,
                    help="towers of bench/tray_renderer_b.py (empty: none)")
    ap.add_argument("--d-seeds", default=DEFAULT_D_SEEDS,
                    help="towers of bench/tray_renderer_d.py (empty: none)")
    ap.add_argument("--steps", type=int, default=12000)
    ap.add_argument("--noise", type=float, default=NOISE)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(2)
    try:
        seeds = learning_towers(args.seeds, args.d_seeds, args.b_seeds)
    except ValueError as exc:
        raise SystemExit(f"--seeds: {exc}") from None
    crops: list[np.ndarray] = []
    labels: list[str] = []
    towers: list[int] = []
    for k, (renderer, s) in enumerate(seeds):
        c, lab = crops_of(render(s, args.work, renderer))
        crops += c
        labels += lab
        towers += [k] * len(c)
        print(f"tower {renderer}{s}: {len(c)} crops", flush=True)
    classes = sorted(set(labels))
    y = np.array([classes.index(v) for v in labels])
    watch = np.array(towers) >= len(seeds) - WATCH
    learn = np.flatnonzero(~watch)
    rng = np.random.default_rng(args.seed)
    torch.manual_seed(args.seed)
    net = Taught(len(classes))
    opt = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=5e-4)
    t0 = time.monotonic()
    acc = float("nan")
    for step in range(args.steps):
        for g in opt.param_groups:
            g["lr"] = 2e-3 * 0.5 * (1 + math.cos(math.pi * step / args.steps))
        batch = rng.choice(learn, 128)
        loss = F.cross_entropy(net(to_input([augment(crops[i], rng, args.noise)
                                             for i in batch])),
                               torch.from_numpy(y[batch]), label_smoothing=0.05)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if (step + 1) % 250 == 0 or step + 1 == args.steps:
            net.eval()
            with torch.no_grad():
                kept = np.flatnonzero(watch)
                out = net(to_input([crops[i] for i in kept])).argmax(1).numpy()
            acc = float((out == y[kept]).mean()) if len(kept) else float("nan")
            net.train()
            print(f"step {step + 1}: loss {loss.item():.3f}, towers kept apart {acc:.3f} "
                  f"({time.monotonic() - t0:.0f} s)", flush=True)
    net.eval()
    args.out.mkdir(parents=True, exist_ok=True)
    meta = {"network": "taught-face vector",
            "renderers": {r: f"bench/{RENDERERS[r]}" for r in sorted({r for r, _ in seeds})},
            "seeds": args.seeds, "b_seeds": args.b_seeds, "d_seeds": args.d_seeds,
            "steps": args.steps, "seed": args.seed, "noise": args.noise,
            "crops": len(crops), "classes": len(classes),
            "kept_apart_accuracy": round(acc, 4), "seconds": round(time.monotonic() - t0)}
    npz = args.out / "taught.npz"
    export(net, npz, meta)
    try:
        from npz_to_onnx import convert
        convert(npz, npz.with_suffix(".onnx"))
    except ImportError:
        print("no onnx package: taught.onnx not written (the reader runs taught.npz with numpy)")
    print(json.dumps(meta))
    return 0


if __name__ == "__main__":
    sys.exit(main())
