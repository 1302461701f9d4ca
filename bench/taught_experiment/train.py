"""An experiment, not used by the app: train a taught-dice embedding, a small network that maps a die's
crop to a 64-number vector, so that two pictures of the same face of the same die lie close
and pictures of different faces far apart, for dice it has never seen.

    .venv-train/bin/python bench/taught_experiment/train.py --out /tmp/taught [--designs 500]
        [--trays 4000] [--steps 2500]        (about 30 minutes on this machine's two cores)

A tower is taught its dice from three pictures a face (`dice teach`); the reader compares a
thrown die with those pictures through this network. So the network must not learn the
dice of this project: it learns to compare dice faces in general. It is trained on dice
nobody makes: hundreds of random *designs* drawn here (cubes and twelve-sided dice with
random numerals, letters, symbols or pip patterns in random fonts and colours), rendered
through this project's tray renderer (vision/dice/render.py: perspective, light, shadows,
blur, noise, JPEG) in many trays each, plus the pip dice of the real photographs' tuning part
(../shared/dice-photos/byler-train). Each (design, face) is a class; the network is trained
as a cosine classifier over all of them (normalised softmax with a margin), and only its
embedding is kept. The independent renderer (bench/tray_renderer.py) is never trained on.
"""

from __future__ import annotations

import argparse
import math
import string
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(HERE))

from embedding import CROP, CROP_SCALE, EMBED  # noqa: E402
from train_dice import Faces, block, colour_jitter, export  # noqa: E402

from vision.dice import render  # noqa: E402
from vision.dice.realphotos import DEFAULT_SET, load  # noqa: E402

FONTS = [cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
         cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_PLAIN, cv2.FONT_HERSHEY_SCRIPT_SIMPLEX]
TEX = render.TEX


# ----------------------------------------------------------------------------- designs

def _colours(rng: np.random.Generator) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """A body and an ink colour with enough contrast between them."""
    while True:
        hsv = np.uint8([[[rng.integers(0, 180), rng.integers(0, 256), rng.integers(20, 256)]]])
        body = tuple(int(v) for v in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])
        if rng.random() < 0.5:
            ink = (235, 235, 235) if sum(body) < 380 else (25, 25, 28)
        else:
            hsv2 = np.uint8([[[rng.integers(0, 180), rng.integers(0, 256), rng.integers(0, 256)]]])
            ink = tuple(int(v) for v in cv2.cvtColor(hsv2, cv2.COLOR_HSV2BGR)[0, 0])
        if abs(sum(body) - sum(ink)) > 200:
            return body, ink


def _text(img, text, ink, font, thick, centre_y) -> None:
    scale = 1.0
    while True:
        (w, h), _ = cv2.getTextSize(text, font, scale, thick)
        if w > TEX * 0.62 or h > TEX * 0.45:
            break
        scale += 0.1
    scale -= 0.1
    (w, h), _ = cv2.getTextSize(text, font, scale, thick)
    org = (int(TEX / 2 - w / 2), int(centre_y + h / 2))
    cv2.putText(img, text, org, font, scale, ink, thick, cv2.LINE_AA)


def _blank(shape: str, body) -> np.ndarray:
    img = np.zeros((TEX, TEX, 3), np.uint8)
    if shape == "cube":
        img[:] = body
    else:
        cv2.fillConvexPoly(img, (render.PENTAGON_TEX * 16).round().astype(np.int32), body,
                           cv2.LINE_AA, 4)
    return img


def _symbol(img: np.ndarray, ink, rng: np.random.Generator, cy: float) -> None:
    """A random mark: polygons, circles, rings and bars around the face's middle."""
    for _ in range(int(rng.integers(1, 4))):
        kind = rng.integers(0, 4)
        cx, y = TEX / 2 + rng.uniform(-14, 14), cy + rng.uniform(-14, 14)
        r = rng.uniform(8, 24)
        if kind == 0:
            n = int(rng.integers(3, 8))
            pts = [(cx + r * rng.uniform(0.5, 1.2) * math.cos(a), y + r * rng.uniform(0.5, 1.2) * math.sin(a))
                   for a in np.sort(rng.uniform(0, 2 * math.pi, n))]
            cv2.fillPoly(img, [np.int32(np.round(pts))], ink, cv2.LINE_AA)
        elif kind == 1:
            cv2.circle(img, (int(cx), int(y)), int(r), ink, -1 if rng.random() < 0.5 else
                       int(rng.integers(3, 8)), cv2.LINE_AA)
        elif kind == 2:
            a = rng.uniform(0, math.pi)
            dx, dy = r * math.cos(a), r * math.sin(a)
            cv2.line(img, (int(cx - dx), int(y - dy)), (int(cx + dx), int(y + dy)), ink,
                     int(rng.integers(4, 10)), cv2.LINE_AA)
        else:
            cv2.rectangle(img, (int(cx - r / 2), int(y - r / 2)), (int(cx + r / 2), int(y + r / 2)),
                          ink, -1)


def _pips(img: np.ndarray, ink, n: int, rng_style: tuple, cy: float) -> None:
    step, r, square = rng_style
    layout = render.PIP_LAYOUT[n]
    for dx, dy in layout:
        x, y = TEX / 2 + dx * step, cy + dy * step
        if square:
            cv2.rectangle(img, (int(x - r), int(y - r)), (int(x + r), int(y + r)), ink, -1)
        else:
            cv2.circle(img, (int(x * 16), int(y * 16)), int(r * 16), ink, -1, cv2.LINE_AA, 4)


def random_design(rng: np.random.Generator) -> tuple[str, list[np.ndarray]]:
    """(solid, one texture per face) of a die nobody makes."""
    solid = "cube" if rng.random() < 0.65 else "d12"
    n = 6 if solid == "cube" else 12
    body, ink = _colours(rng)
    style = rng.choice(["numerals", "letters", "symbols", "pips"] if solid == "cube" else
                       ["numerals", "numerals", "letters", "symbols"])
    font, thick = FONTS[int(rng.integers(len(FONTS)))], int(rng.integers(2, 6))
    cy = TEX / 2 if solid == "cube" else TEX * 0.54
    underline = rng.random() < 0.6
    letters = rng.permutation(list(string.ascii_uppercase + "0123456789"))[:n]
    pip_style = (TEX * rng.uniform(0.2, 0.3), TEX * rng.uniform(0.05, 0.1), rng.random() < 0.2)
    textures = []
    for k in range(n):
        img = _blank(solid, body)
        if style == "numerals":
            label = str(k + 1)
            _text(img, label, ink, font, thick, cy)
            if underline and label in ("6", "9"):
                cv2.line(img, (int(TEX * 0.4), int(cy + TEX * 0.22)), (int(TEX * 0.6), int(cy + TEX * 0.22)),
                         ink, 3, cv2.LINE_AA)
        elif style == "letters":
            _text(img, str(letters[k]), ink, font, thick, cy)
        elif style == "pips":
            _pips(img, ink, k + 1, pip_style, cy)
        else:
            _symbol(img, ink, rng, cy)
        textures.append(img)
    return solid, textures


# ----------------------------------------------------------------------------- the data

def render_set(n_designs: int, frames: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Crops (N, CROP, CROP, 3) of flat dice of random designs, and their class numbers
    (design * 12 + face)."""
    rng = np.random.default_rng(seed)
    designs = [random_design(rng) for _ in range(n_designs)]
    kinds = {}
    for d, (solid, textures) in enumerate(designs):
        name = f"design{d}"
        kinds[name] = render.KindSpec(name, solid, tuple(str(k) for k in range(len(textures))),
                                      ("any",), float(rng.uniform(44, 72)))
    render.KINDS.update(kinds)
    original = render.face_texture

    def face_texture(kind: str, face: str, colour: str) -> np.ndarray:
        if kind.startswith("design"):
            return designs[int(kind[6:])][1][int(face)]
        return original(kind, face, colour)

    render.face_texture = face_texture
    crops, labels = [], []
    names = list(kinds)
    t0 = time.time()
    for f in range(frames):
        style = render.random_style(rng)
        chosen = [names[int(i)] for i in rng.integers(0, len(names), int(rng.integers(3, 8)))]
        dice = render.random_dice(rng, len(chosen), chosen, style, 0.0)
        frame, truth = render.render_tray(dice, style)
        for t in truth:
            if not t.flat:
                continue
            size = render.KINDS[t.kind].side_px * rng.uniform(0.88, 1.12)
            cx = t.x + rng.normal(0, 0.06) * size
            cy = t.y + rng.normal(0, 0.06) * size
            s = CROP / (size * CROP_SCALE)
            m = cv2.getRotationMatrix2D((cx, cy), rng.uniform(0, 360), s)
            m[0, 2] += CROP / 2 - cx
            m[1, 2] += CROP / 2 - cy
            crops.append(cv2.warpAffine(frame, m, (CROP, CROP), flags=cv2.INTER_AREA,
                                        borderMode=cv2.BORDER_REFLECT))
            labels.append(int(t.kind[6:]) * 12 + int(t.face))
        if f % 500 == 0:
            print(f"rendered {f}/{frames} trays, {len(crops)} dice ({time.time() - t0:.0f} s)",
                  flush=True)
    render.face_texture = original
    return np.stack(crops), np.array(labels)


def real_pips(rng: np.random.Generator, first_label: int, views: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """Crops of the real photographs' pip dice (tuning part), face k as class first_label+k."""
    crops, labels = [], []
    for photo in load(DEFAULT_SET, "tune"):
        img = cv2.imread(str(photo.path))
        for d in photo.dice:
            if not d.face or d.face == "?":
                continue
            for _ in range(views):
                size = d.size * rng.uniform(0.88, 1.12)
                s = CROP / (size * CROP_SCALE)
                cx, cy = d.x + rng.normal(0, 0.06) * d.size, d.y + rng.normal(0, 0.06) * d.size
                m = cv2.getRotationMatrix2D((cx, cy), rng.uniform(0, 360), s)
                m[0, 2] += CROP / 2 - cx
                m[1, 2] += CROP / 2 - cy
                crops.append(cv2.warpAffine(img, m, (CROP, CROP), flags=cv2.INTER_AREA,
                                            borderMode=cv2.BORDER_REFLECT))
                labels.append(first_label + int(d.face) - 1)
    return np.stack(crops), np.array(labels)


# ----------------------------------------------------------------------------- the network

class Embed(Faces):
    """Convolutions, global average, one linear layer (the classifier's shape, so that
    train_dice.export writes it for vision/dice/netrun.py)."""

    def __init__(self) -> None:
        nn.Module.__init__(self)
        self.body = nn.Sequential(*block(3, 32), *block(32, 32), nn.MaxPool2d(2),
                                  *block(32, 64), *block(64, 64), nn.MaxPool2d(2),
                                  *block(64, 96), *block(96, 96), nn.MaxPool2d(2),
                                  *block(96, 128))
        self.fc = nn.Linear(128, EMBED)


def augment(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    m = cv2.getRotationMatrix2D((CROP / 2, CROP / 2), rng.uniform(0, 360), rng.uniform(0.92, 1.08))
    m[:, 2] += rng.normal(0, 1.2, 2)
    out = cv2.warpAffine(crop, m, (CROP, CROP), borderMode=cv2.BORDER_REFLECT)
    return colour_jitter(out, rng)


def to_tensor(batch: list[np.ndarray]) -> torch.Tensor:
    arr = np.stack(batch).astype(np.float32) / 255.0 - 0.5
    return torch.from_numpy(arr.transpose(0, 3, 1, 2).copy())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--designs", type=int, default=500)
    ap.add_argument("--trays", type=int, default=4000)
    ap.add_argument("--steps", type=int, default=2500)
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(2)
    rng = np.random.default_rng(args.seed)
    x, y = render_set(args.designs, args.trays, args.seed)
    first = args.designs * 12
    xr, yr = real_pips(rng, first)
    x, y = np.concatenate([x, xr]), np.concatenate([y, yr])
    classes, y = np.unique(y, return_inverse=True)
    print(f"{len(x)} crops of {len(classes)} faces ({len(xr)} from real photographs)", flush=True)
    net = Embed()
    weights = nn.Parameter(torch.randn(len(classes), EMBED) * 0.01)
    opt = torch.optim.AdamW(list(net.parameters()) + [weights], lr=2e-3, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=args.steps)
    scale, margin = 16.0, 0.25
    t0 = time.time()
    for step in range(1, args.steps + 1):
        idx = rng.integers(0, len(x), 128)
        xb = to_tensor([augment(x[i], rng) for i in idx])
        yb = torch.from_numpy(y[idx])
        emb = F.normalize(net(xb), dim=1)
        cos = emb @ F.normalize(weights, dim=1).T
        logits = scale * (cos - margin * F.one_hot(yb, len(classes)))
        loss = F.cross_entropy(logits, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 100 == 0:
            acc = (cos.argmax(1) == yb).float().mean().item()
            print(f"step {step}: loss {loss.item():.3f} acc {acc:.2f} ({time.time() - t0:.0f} s)",
                  flush=True)
    net.eval()
    from npz_to_onnx import convert

    meta = {"crop": CROP, "crop_scale": CROP_SCALE, "embed": EMBED,
            "trained_on": f"{args.designs} random dice designs in {args.trays} trays of "
                          f"vision/dice/render.py, and the pip dice of {DEFAULT_SET.name}'s "
                          f"tuning part", "seed": args.seed, "steps": args.steps,
            "torch": torch.__version__}
    args.out.mkdir(parents=True, exist_ok=True)
    export(net, args.out / "taught.npz", meta)
    convert(args.out / "taught.npz", args.out / "taught.onnx")
    print(f"wrote {args.out}/taught.npz and taught.onnx", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
