"""Train the pip-dice reader's two small networks on real photographs (`make train-dice`).

    python scripts/train_dice.py [--data ../shared/dice-photos/byler-train]
                                 [--out vision/dice/models] [--seed 1]
                                 [--yolo FOLDER]

``--yolo FOLDER``: a second real set, labelled in YOLO's format (Rune55: docs/vision.md says
where it comes from and its licence), learned from and calibrated on the same way: its tuning
part only (vision/dice/realphotos.py's ``load_other_camera``, split by source photograph, byler-train's
photographs and sessions left out), a sixth of it kept apart, the rest in the folds. The
shipped networks did not learn from it: tried once, the classifier read more of Rune55 and
fewer of byler-train's photographs (docs/vision.md, "Tried: the networks learning from
Rune55's tuning part").

Trains on the *tuning* part of the labelled set only (vision/dice/realphotos.py: the held-out
fifth is never read here), itself split by photograph into a part the networks learn from
and a calibration part that sets how sure the reader must be to call a face ``clean``:

- ``finder.npz``: where the dice are. A fully convolutional network over the photograph
  resized to 320 pixels on its long side; at every 4x4 cell it says how likely a die's centre
  is there and how big the die is (CenterNet-style heat map and size).
- ``faces.npz``: which face is up. A classifier of a 48x48 crop centred on a found die (1.4 x
  its size): faces 1 to 6, or "no die here". It also learns from this project's renders of
  dice seen from the side (a webcam on a desk), their crops kept upright.

``faces-above.npz``, the classifier of views from above that vision/dice/pips.py pairs with
``faces.npz``, is not trained by this script as it is: it is the ``faces.npz`` that
``make train-dice`` wrote at commit 17de880 (no side views, the last two layers 64 and 96
wide, 35 % renders). The shipped ``finder.npz`` is also that commit's; this script's defaults
train it the same way but for what fills its patches beyond a photograph's edge (the
photograph's median colour since 2026-11-29, reflected before: ``view``), and
``--finder-from`` keeps it while the classifiers are trained. ``--finder-only`` is the
other way round: the finder alone learns (from ``--finder-init`` where given), beside the face
classifiers and threshold.json already in ``--out``, and its score is set again (the shipped
finder since 2026-12-02: docs/vision.md, "The finder learned webcam renders and Rune55").

Heavy augmentation stands in for more photographs: any rotation, mirror, scale (dice of 10 to
45 pixels at the finder's resolution), centre offsets as large as the finder's, colour, light,
blur, noise and JPEG. Needs PyTorch (CPU): `make train-dice` makes its own venv for it; the
app and the tower run the saved networks with numpy (vision/dice/netrun.py).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vision.dice.pips import CROP, CROP_SCALE, FACES, STRIDE, TOWER_FACES, WORK  # noqa: E402
from vision.dice.realphotos import (  # noqa: E402
    DEFAULT_SET,
    LabelledPhoto,
    PhotoSetError,
    load,
    load_other_camera,
    source_of,
)

NO_DIE = len(FACES)          # the classifier's last class


def photo_key(name: str) -> str:
    """What a photograph's fold and calibration side are drawn from: its file name, or for a
    YOLO-format export the photograph its copies were made from (every copy on one side)."""
    source = source_of(name)
    return Path(name).name if source == Path(name).stem else source


def fold_of(name: str, folds: int) -> int:
    return hashlib.sha256(("fold:" + photo_key(name)).encode()).digest()[0] * folds // 256


def load_net(path: Path):
    from vision.dice.netrun import Net
    return Net.load(path)


def calibration_photo(name: str) -> bool:
    """A sixth of the tuning photographs set the confidence threshold, never trained on."""
    return hashlib.sha256(("calibration:" + photo_key(name)).encode()).digest()[0] * 6 // 256 == 0


# ----------------------------------------------------------------------------- networks

def block(cin: int, cout: int, stride: int = 1, dilation: int = 1) -> list[nn.Module]:
    return [nn.Conv2d(cin, cout, 3, stride, dilation, dilation=dilation, bias=False),
            nn.BatchNorm2d(cout), nn.ReLU()]


class Finder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(*block(3, 16, 2), *block(16, 24), *block(24, 32, 2),
                                  *block(32, 32), *block(32, 40, 1, 2), *block(40, 40, 1, 4),
                                  *block(40, 40, 1, 2))
        self.head = nn.Conv2d(40, 2, 1)
        nn.init.constant_(self.head.bias, 0.0)
        with torch.no_grad():
            self.head.bias[0] = -4.0          # most cells hold no die

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(x))


class Faces(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(*block(3, 16), *block(16, 24), nn.MaxPool2d(2),
                                  *block(24, 32), *block(32, 48), nn.MaxPool2d(2),
                                  *block(48, 96), nn.MaxPool2d(2), *block(96, 128))
        # the last two layers are wider since it learned side views too: at 64 and 96 it
        # read 3 % fewer of the real top-down photographs kept apart (they are the cheap
        # ones: 12x12 and 6x6 cells)
        self.fc = nn.Linear(128, NO_DIE + 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(self.body(x).mean(dim=(2, 3)))


@torch.no_grad()
def export(model: nn.Module, path: Path, meta: dict) -> None:
    """Conv + batch norm folded into one convolution, written for vision/dice/netrun.py."""
    layers, arrays = [], {}
    mods = list(model.modules())
    i = 0
    while i < len(mods):
        m = mods[i]
        if isinstance(m, nn.Conv2d):
            w = m.weight.detach().double()
            b = m.bias.detach().double() if m.bias is not None else torch.zeros(w.shape[0]).double()
            relu = False
            if i + 1 < len(mods) and isinstance(mods[i + 1], nn.BatchNorm2d):
                bn = mods[i + 1]
                scale = bn.weight.double() / torch.sqrt(bn.running_var.double() + bn.eps)
                w = w * scale[:, None, None, None]
                b = (b - bn.running_mean.double()) * scale + bn.bias.double()
                i += 1
                relu = i + 1 < len(mods) and isinstance(mods[i + 1], nn.ReLU)
            n = len(layers)
            arrays[f"w{n}"], arrays[f"b{n}"] = w.float().detach().numpy(), b.float().detach().numpy()
            layers.append({"op": "conv", "w": f"w{n}", "b": f"b{n}", "stride": m.stride[0],
                           "dilation": m.dilation[0], "relu": relu})
        elif isinstance(m, nn.MaxPool2d):
            layers.append({"op": "maxpool"})
        elif isinstance(m, nn.Linear):
            if isinstance(model, Faces) or getattr(model, "pooled", False):
                layers.append({"op": "gap"})  # (a global average before the linear layer)
            n = len(layers)
            arrays[f"w{n}"], arrays[f"b{n}"] = (m.weight.detach().numpy(), m.bias.detach().numpy())
            layers.append({"op": "linear", "w": f"w{n}", "b": f"b{n}"})
        i += 1
    np.savez_compressed(path, spec=np.array(json.dumps({"layers": layers, "meta": meta})), **arrays)


def with_meta(src: Path, dst: Path, meta: dict) -> None:
    """``src``'s network written to ``dst`` with ``meta`` as its provenance."""
    with np.load(src) as f:
        arrays = {k: f[k] for k in f.files if k != "spec"}
        spec = json.loads(str(f["spec"]))
    spec["meta"] = meta
    np.savez_compressed(dst, spec=np.array(json.dumps(spec)), **arrays)


# ----------------------------------------------------------------------------- augmentation

def colour_jitter(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Light, white balance, hue, contrast, blur, noise and JPEG, as another camera would."""
    out = img.astype(np.float32)
    if rng.random() < 0.5:                                   # hue (dice come in every colour)
        hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV).astype(np.int32)
        hsv[..., 0] = (hsv[..., 0] + int(rng.integers(0, 180))) % 180
        hsv[..., 1] = np.clip(hsv[..., 1] * rng.uniform(0.6, 1.4), 0, 255)
        out = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR).astype(np.float32)
    if rng.random() < 0.15:                                  # inverted light/dark (dark dice)
        out = 255 - out
    out = out * rng.uniform(0.85, 1.15, size=3)              # white balance
    out = (out - 128) * rng.uniform(0.6, 1.4) + 128 + rng.uniform(-50, 50)
    gamma = rng.uniform(0.7, 1.4)
    out = 255 * (np.clip(out, 0, 255) / 255) ** gamma
    if rng.random() < 0.4:
        k = rng.uniform(0.3, 1.4)
        out = cv2.GaussianBlur(out, (0, 0), k)
    if rng.random() < 0.15:                                  # a little motion blur
        n = int(rng.integers(3, 6))
        kernel = np.zeros((n, n), np.float32)
        kernel[n // 2, :] = 1 / n
        rot = cv2.getRotationMatrix2D(((n - 1) / 2, (n - 1) / 2), rng.uniform(0, 180), 1)
        out = cv2.filter2D(out, -1, cv2.warpAffine(kernel, rot, (n, n)))
    out = out + rng.normal(0, rng.uniform(0, 8), size=out.shape)
    out = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 95))])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


def view(img: np.ndarray, cx: float, cy: float, angle: float, scale: float, size: int,
         mirror: bool, fill: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """A size x size patch centred on (cx, cy), turned by ``angle`` degrees, scaled, perhaps
    mirrored; and the matrix that maps the photograph onto it. Beyond the photograph's edge
    the patch reflects it, or with ``fill`` is the photograph's median colour: the finder's
    patches, where a close-up shrunk to a corner of the patch would be reflected into
    mirrored dice its labels call "no die" (a finder taught so found 81 % of Rune55's dice at
    any score; with the fill, 95 %: docs/vision.md)."""
    m = cv2.getRotationMatrix2D((cx, cy), angle, scale)
    m[0, 2] += size / 2 - cx
    m[1, 2] += size / 2 - cy
    if mirror:
        m[0] = -m[0]
        m[0, 2] += size
    patch = cv2.warpAffine(img, m, (size, size), flags=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_CONSTANT if fill else cv2.BORDER_REFLECT,
                           borderValue=_median_colour(img) if fill else 0)
    return patch, m


def _median_colour(img: np.ndarray) -> tuple[float, ...]:
    pixels = img.reshape(-1, img.shape[2] if img.ndim == 3 else 1)[::97]
    return tuple(float(v) for v in np.median(pixels, axis=0))


def _imread(path: Path) -> np.ndarray:
    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if img is None:
        raise SystemExit(f"{path}: not a picture OpenCV can read")
    if img.ndim == 2:
        return img
    if img.shape[2] == 4:
        img = cv2.cvtColor(img, cv2.COLOR_BGRA2BGR)
    b, g, r = cv2.split(img)
    if np.array_equal(b, g) and np.array_equal(g, r):     # a grey photograph saved in colour
        return b
    return img


def to_bgr(img: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR) if img.ndim == 2 else img


def to_tensor(batch: list[np.ndarray]) -> torch.Tensor:
    arr = np.stack(batch).astype(np.float32) / 255.0 - 0.5
    return torch.from_numpy(arr.transpose(0, 3, 1, 2).copy())


class Photos:
    """Labelled pictures. A die's face is "1".."6", or "?" for a pip die lying cocked (found,
    but no face to learn) or "" for a die of another kind (not a pip die: nothing to find, and
    "no die" for the classifier)."""

    def __init__(self, photos: list[LabelledPhoto], images: list[np.ndarray] | None = None,
                 upright: bool = False) -> None:
        self.photos = photos
        # a photograph in grey stays grey here (a third of the memory): its patches are made
        # colour after they are cut (to_bgr)
        self.images = images if images is not None else [_imread(p.path) for p in photos]
        # upright: seen from the side by a camera standing up (a webcam on a desk). The top
        # face is then the one above the side faces, so the classifier's crops are only
        # turned a little: turned any way, a side face could pass for the top
        self.upright = upright

    # -- the finder's examples: a patch of the photograph at a random scale ------------------
    def finder_example(self, rng: np.random.Generator, size: int = 192
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        k = int(rng.integers(len(self.photos)))
        photo, img = self.photos[k], self.images[k]
        sizes = [d.size for d in photo.dice if d.face] or [d.size for d in photo.dice] or [40.0]
        target_die = rng.uniform(10, 45)
        scale = target_die / float(np.median(sizes))
        angle = rng.uniform(0, 360) if rng.random() < 0.7 else 90.0 * int(rng.integers(4))
        h, w = img.shape[:2]
        # centre the patch on a die most of the time, anywhere otherwise
        if photo.dice and rng.random() < 0.8:
            d = photo.dice[int(rng.integers(len(photo.dice)))]
            cx, cy = d.x + rng.uniform(-1, 1) * 60 / scale, d.y + rng.uniform(-1, 1) * 60 / scale
        else:
            cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        patch, m = view(img, cx, cy, angle, scale, size, mirror=rng.random() < 0.5, fill=True)
        patch = colour_jitter(to_bgr(patch), rng)
        g = size // STRIDE
        heat = np.zeros((g, g), np.float32)
        sz = np.zeros((g, g), np.float32)
        mask = np.zeros((g, g), np.float32)
        yy, xx = np.mgrid[0:g, 0:g].astype(np.float32)
        for d in photo.dice:
            if not d.face:                      # another kind of die: not for the pip reader
                continue
            px, py = m @ np.array([d.x, d.y, 1.0])
            ds = d.size * scale
            gx, gy = px / STRIDE, py / STRIDE
            if not (-2 <= gx < g + 2 and -2 <= gy < g + 2):
                continue
            sigma = max(0.7, ds / STRIDE / 5)
            heat = np.maximum(heat, np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * sigma ** 2)))
            ix, iy = int(round(gx)), int(round(gy))
            if 0 <= ix < g and 0 <= iy < g:
                heat[iy, ix] = 1.0
                sz[iy, ix] = math.log(ds)
                mask[iy, ix] = 1.0
        return patch, heat, sz, mask

    # -- the classifier's examples: a crop around a die, or around no die ------------------
    def face_example(self, rng: np.random.Generator, pips: float = 0.0) -> tuple[np.ndarray, int]:
        """``pips``: the share of crops of a die's pip as a die would be cut (centred on it
        or near it, a quarter to half the die's size), as "no die": the finder takes the pips
        of a die photographed close for dice, and a lone pip looks like a 1."""
        k = int(rng.integers(len(self.photos)))
        photo, img = self.photos[k], self.images[k]
        h, w = img.shape[:2]
        if not photo.dice:
            return self.face_example(rng, pips)
        d = photo.dice[int(rng.integers(len(photo.dice)))]
        if d.face == "?":                       # cocked: no face to learn
            return self.face_example(rng, pips)
        label = int(d.face) - 1 if d.face else NO_DIE
        size = d.size * rng.uniform(0.85, 1.15)             # the finder's size is not exact
        cx = d.x + rng.normal(0, 0.08) * d.size
        cy = d.y + rng.normal(0, 0.08) * d.size
        r = rng.random()
        if r < 0.12:                                        # off the die: half a die or more away
            a = rng.uniform(0, 2 * math.pi)
            dist = rng.uniform(0.55, 1.2) * d.size
            cx, cy = d.x + dist * math.cos(a), d.y + dist * math.sin(a)
            label = NO_DIE
        elif r < 0.2:                                       # the tray, anywhere
            cx, cy = rng.uniform(0, w), rng.uniform(0, h)
            label = NO_DIE
        elif r < 0.2 + pips and label != NO_DIE:            # a pip of the die, as a die
            a = rng.uniform(0, 2 * math.pi)
            dist = rng.uniform(0, 0.35) * d.size
            cx, cy = d.x + dist * math.cos(a), d.y + dist * math.sin(a)
            size = d.size * rng.uniform(0.25, 0.5)
            label = NO_DIE
        if label == NO_DIE and r < 0.2:
            near = min((math.hypot(e.x - cx, e.y - cy) / e.size for e in photo.dice if e.face),
                       default=9)
            if near < 0.5:
                return self.face_example(rng, pips)
        side = size * CROP_SCALE
        scale = CROP / side
        angle = rng.uniform(-15, 15) if self.upright else rng.uniform(0, 360)
        crop, _m = view(img, cx, cy, angle, scale, CROP, mirror=rng.random() < 0.5)
        return colour_jitter(to_bgr(crop), rng), label


class Mix:
    """Examples drawn from several sets, each with its share."""

    def __init__(self, parts: list[tuple[Photos, float]], pips: float = 0.0) -> None:
        self.parts = [(p, w) for p, w in parts if p.photos and w > 0]
        self.pips = pips
        total = sum(w for _, w in self.parts)
        self.weights = [w / total for _, w in self.parts]

    def _pick(self, rng: np.random.Generator) -> Photos:
        return self.parts[int(rng.choice(len(self.parts), p=self.weights))][0]

    def finder_example(self, rng: np.random.Generator):
        return self._pick(rng).finder_example(rng)

    def face_example(self, rng: np.random.Generator):
        return self._pick(rng).face_example(rng, self.pips)


# a die seen from the side is labelled this much larger than its edge: its outline holds the
# top face and one or two side faces (a die from above is labelled by its edge, as before)
OBLIQUE_SIZE = 1.2


def rendered_trays(n: int, seed: int, oblique: bool = False) -> Photos:
    """Trays of this project's renderer (vision/dice/render.py): felts and lights the real set
    lacks, and the games' other dice (D12s, symbol dice) in the same tray, as not pip dice.
    ``oblique``: dice on a desk seen by a webcam from 25 to 65 degrees above it, where the
    side faces show. Never the independent renderers (bench/tray_renderer.py,
    bench/webcam_renderer.py): those only measure."""
    from vision.dice.realphotos import LabelledDie
    from vision.dice.render import KINDS as RENDER_KINDS
    from vision.dice.render import random_tray

    photos, images = [], []
    for k in range(n):
        frame, truth, _style = random_tray(seed * 100000 + k + (50000 if oblique else 0),
                                           kinds=["d6pips", "d6pips", "d12", "kotd", "spawn"],
                                           oblique=oblique)
        dice = tuple(LabelledDie(("?" if not t.flat else t.face) if t.kind == "d6pips" else "",
                                 t.x, t.y, t.size_px * OBLIQUE_SIZE if oblique
                                 else RENDER_KINDS[t.kind].side_px) for t in truth)
        photos.append(LabelledPhoto(Path(f"render-{k}.png"), dice))
        images.append(frame)
    return Photos(photos, images, upright=oblique)


def seed_range(text: str) -> list[int]:
    """``"20000-20099,20200"``: those seeds."""
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out += list(range(int(lo), int(hi or lo) + 1))
    return out


# the elevation of the webcams of --webcam-low, degrees (bench/webcam_renderer.py's default
# is 25 to 65): a webcam low on the desk shows a die's front face larger than its top
LOW_ELEVATION = (12, 28)


# the webcam renderers that can be learned from (each at seeds its benchmark never reads:
# from 10000): the first (bench/webcam_renderer.py), the second (webcam_renderer_b.py,
# --webcam-b) and the third (bench/webcam_renderer_c.py, 2026-12-03). The fourth
# (webcam_renderer_d.py) only measures. Each with the arguments that keep it quiet (the
# second has no such flag)
WEBCAM_RENDERERS = {"a": ("webcam_renderer.py", ["--quiet"]), "b": ("webcam_renderer_b.py", []),
                    "c": ("webcam_renderer_c.py", ["--quiet"])}


def webcam_setups(seeds: list[int], images: int, cache: Path, low: bool = False,
                  renderer: str = "a") -> Photos:
    """Setups of an independent webcam renderer (``renderer``, WEBCAM_RENDERERS; the first,
    bench/webcam_renderer.py: pip dice on a desk seen by a webcam 25 to 65 degrees up;
    ``low``: LOW_ELEVATION, the first only), rendered into ``cache`` where missing. Only
    seeds its benchmark never measures on (bench/webcam_dice_bench.py: below 10000) are
    learned from. A die is labelled by its outline's box (its centre, its
    longer side), as the real photographs are; a cocked die has no face to learn."""
    import subprocess

    from vision.dice.realphotos import LabelledDie

    bad = [s for s in seeds if s < 10000]
    if bad:
        flag = f"--webcam-{renderer}" if renderer != "a" else "--webcam"
        raise SystemExit(f"{flag}: seeds under 10000 measure the reader, not teach it: {bad[:3]}")
    name, quiet = WEBCAM_RENDERERS[renderer]
    script = ROOT / "bench" / name
    photos, images_ = [], []
    for seed in seeds:
        folder = cache / (f"webcam-{'low-' if low else ''}{seed}-{images}" if renderer == "a"
                          else f"webcam-{renderer}-{seed}-{images}")
        if not (folder / "truth.json").exists():
            subprocess.run([sys.executable, str(script), str(folder), "--seed", str(seed),
                            "--images", str(images), *quiet]
                           + (["--elevation", f"{LOW_ELEVATION[0]:g},{LOW_ELEVATION[1]:g}"] if low else []),
                           check=True, capture_output=True)
        truth = json.loads((folder / "truth.json").read_text())["images"]
        for name, dice in sorted(truth.items()):
            labelled = []
            for t in dice:
                x0, y0, x1, y1 = t["box"]
                labelled.append(LabelledDie("?" if t["tilted"] else t["face"], (x0 + x1) / 2,
                                            (y0 + y1) / 2, max(x1 - x0, y1 - y0)))
            photos.append(LabelledPhoto(folder / name, tuple(labelled)))
            images_.append(_imread(folder / name))
    return Photos(photos, images_, upright=True)


# ----------------------------------------------------------------------------- training

def focal(pred: torch.Tensor, heat: torch.Tensor) -> torch.Tensor:
    """CenterNet's penalty-reduced focal loss on the centre heat map."""
    p = torch.sigmoid(pred).clamp(1e-4, 1 - 1e-4)
    pos = heat.eq(1).float()
    pos_loss = -((1 - p) ** 2) * torch.log(p) * pos
    neg_loss = -((1 - heat) ** 4) * (p ** 2) * torch.log(1 - p) * (1 - pos)
    return (pos_loss.sum() + neg_loss.sum()) / pos.sum().clamp(min=1)


def fit(name: str, net: nn.Module, steps: int, lr: float, weight_decay: float,
        batch_loss: Callable[[nn.Module], torch.Tensor]) -> nn.Module:
    """AdamW over ``steps`` batches, the learning rate on a cosine from ``lr`` to 0."""
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=weight_decay)
    t0 = time.monotonic()
    for step in range(steps):
        for g in opt.param_groups:
            g["lr"] = lr * 0.5 * (1 + math.cos(math.pi * step / steps))
        loss = batch_loss(net)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if (step + 1) % 50 == 0:
            print(f"{name} step {step + 1}: loss {loss.item():.3f} ({time.monotonic() - t0:.0f} s)",
                  flush=True)
    return net.eval()


def train_finder(data: Photos | Mix, rng: np.random.Generator, steps: int,
                 init: Path | None = None, lr: float = 3e-3) -> nn.Module:
    def batch_loss(net: nn.Module) -> torch.Tensor:
        ex = [data.finder_example(rng) for _ in range(16)]
        heat, sz, mask = (torch.from_numpy(np.stack([e[k] for e in ex])) for k in (1, 2, 3))
        out = net(to_tensor([e[0] for e in ex]))
        size_loss = (F.l1_loss(out[:, 1], sz, reduction="none") * mask).sum() / mask.sum().clamp(min=1)
        return focal(out[:, 0], heat) + size_loss

    return fit("finder", begun(Finder(), init), steps, lr, 1e-4, batch_loss)


def train_faces(data: Photos | Mix, rng: np.random.Generator, steps: int,
                init: Path | None = None, lr: float = 2e-3) -> nn.Module:
    """A face classifier learned from ``data``; from the saved network ``init`` where given
    (its batch norms kept as they were: they add its folded biases and nothing else)."""
    def batch_loss(net: nn.Module) -> torch.Tensor:
        ex = [data.face_example(rng) for _ in range(96)]
        y = torch.tensor([e[1] for e in ex])
        return F.cross_entropy(net(to_tensor([e[0] for e in ex])), y, label_smoothing=0.05)

    return fit("faces", begun(Faces(), init), steps, lr, 5e-4, batch_loss)


def start_from(net: nn.Module, path: Path) -> dict:
    """``net`` given the weights saved in ``path`` (vision/dice/netrun.py's format, batch norm
    folded into each convolution: each batch norm is set to add the folded bias alone). Its
    last layer (the classifier's linear layer, the finder's head) has no batch norm. Returns
    the saved network's provenance (its ``meta``)."""
    from vision.dice.netrun import Net

    saved = Net.load(path)
    convs = [m for m in net.modules() if isinstance(m, nn.Conv2d)]
    norms = [m for m in net.modules() if isinstance(m, nn.BatchNorm2d)]
    last = [m for m in net.modules() if isinstance(m, nn.Linear)] or [convs.pop()]
    layers = [layer for layer in saved.layers if layer["op"] in ("conv", "linear")]
    if len(layers) != len(convs) + 1 or len(norms) != len(convs):
        raise SystemExit(f"{path}: not a network of this shape")
    with torch.no_grad():
        for conv, bn, layer in zip(convs, norms, layers):
            w = torch.from_numpy(saved.weights[layer["w"]].astype(np.float32))
            if w.shape != conv.weight.shape:
                raise SystemExit(f"{path}: a layer of {tuple(w.shape)}, not {tuple(conv.weight.shape)}")
            conv.weight.copy_(w)
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0)
            bn.weight.fill_(math.sqrt(1.0 + bn.eps))
            bn.bias.copy_(torch.from_numpy(saved.weights[layer["b"]].astype(np.float32)))
        w = torch.from_numpy(saved.weights[layers[-1]["w"]].astype(np.float32))
        if w.shape != last[0].weight.shape:
            raise SystemExit(f"{path}: a last layer of {tuple(w.shape)}, not "
                             f"{tuple(last[0].weight.shape)}")
        last[0].weight.copy_(w)
        last[0].bias.copy_(torch.from_numpy(saved.weights[layers[-1]["b"]].astype(np.float32)))
    return saved.meta


def frozen_norms(net: nn.Module) -> nn.Module:
    """``net`` with its batch norms' statistics kept while it learns on (:func:`start_from`)."""
    for m in net.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()
    return net


def begun(net: nn.Module, init: Path | None) -> nn.Module:
    """``net`` as it starts learning: from scratch, or from the saved network ``init`` with
    its batch norms kept as they were (they add its folded biases and nothing else)."""
    if init is None:
        return net
    start_from(net, init)
    return frozen_norms(net)


def calibrate_finder(out: Path, calib: list[LabelledPhoto]) -> int:
    """The finder's least score for a die, set on the photographs kept apart (neither network
    learned from them), written into threshold.json beside the face threshold."""
    from vision.dice.pips import PipReader, find_score_for

    path = out / "threshold.json"
    report = json.loads(path.read_text())
    score, found = find_score_for(PipReader.load(out), calib)
    report.update({"find_score": score, "find_score_on_kept_apart": found})
    path.write_text(json.dumps(report, indent=1) + "\n")
    print(f"finder score {score}: {found}", flush=True)
    return 0


def set_clean_confidence(out: Path, threshold: float, calib: list[LabelledPhoto],
                         other: tuple[str, list[LabelledPhoto]] | None) -> int:
    """threshold.json's clean confidence set to ``threshold`` (a choice made on the tuning sets
    of other cameras, where the one set on byler-train's photographs let more wrong faces be
    clean), its figures on the photographs kept apart (and the second set's) read again; then
    the finder's score set again (:func:`calibrate_finder`)."""
    from vision.dice.pips import PipReader, clean_figures, reading_pairs

    path = out / "threshold.json"
    report = json.loads(path.read_text())
    before = report["clean_confidence"]
    report["clean_confidence"] = round(threshold, 4)
    reader = PipReader.load(out)
    report["kept_apart"] = clean_figures(*reading_pairs(reader, calib), threshold)
    if other is not None:
        name, photos = other
        report[f"{name}_kept_apart"] = clean_figures(*reading_pairs(reader, photos), threshold)
    report["calibrated_on"] += (f"; the clean confidence then set from {before} to "
                                f"{threshold} (train_dice.py --clean-confidence), chosen on the "
                                "tuning sets of other cameras (docs/vision.md)")
    path.write_text(json.dumps(report, indent=1) + "\n")
    print(f"clean confidence {before} -> {threshold}: kept apart {report['kept_apart']}",
          flush=True)
    return calibrate_finder(out, calib)


def begin(seed: int, data: Path) -> tuple[np.random.Generator, Photos, list[LabelledPhoto]]:
    """Seeded generators (torch's and the returned numpy one) and 2 threads; the tuning part
    of the labelled set ``data``: the photographs learned from, and those kept apart to
    calibrate on (the held-out part is not read)."""
    torch.manual_seed(seed)
    torch.set_num_threads(2)
    tune = load(data, "tune")
    return (np.random.default_rng(seed),
            Photos([p for p in tune if not calibration_photo(p.path.name)]),
            [p for p in tune if calibration_photo(p.path.name)])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_SET)
    ap.add_argument("--out", type=Path, default=ROOT / "vision" / "dice" / "models")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--finder-steps", type=int, default=3000, help="batches of 16 patches")
    ap.add_argument("--faces-steps", type=int, default=8000, help="batches of 96 crops")
    ap.add_argument("--fold-steps", type=int, default=2500,
                    help="batches for each out-of-fold classifier")
    ap.add_argument("--folds", type=int, default=3, help="out-of-fold reads for the threshold")
    ap.add_argument("--renders", type=int, default=400,
                    help="trays of vision/dice/render.py mixed in (0: the real photographs only)")
    ap.add_argument("--oblique-renders", type=int, default=400,
                    help="trays of vision/dice/render.py seen from the side, as by a webcam")
    # each network's share of rendered examples (from above, from the side); the rest are
    # the real photographs. The finder learns from no side views: taught them (a quarter of
    # its examples), it found fewer dice on the webcam renders of bench/webcam_renderer.py
    # and cut the tower's dice worse (bench/independent_dice_bench.py's towers)
    ap.add_argument("--render-share", type=float, default=0.35, help="the finder's")
    ap.add_argument("--oblique-share", type=float, default=0.0, help="the finder's")
    ap.add_argument("--faces-render-share", type=float, default=0.12)
    ap.add_argument("--faces-oblique-share", type=float, default=0.23)
    # a second real set in YOLO's format (Rune55: pip dice of other sizes, cameras and
    # surfaces), its tuning part only; its copies of --data's photographs are left out
    ap.add_argument("--yolo", type=Path, help="a labelled set in YOLO's format (its tuning part)")
    ap.add_argument("--yolo-share", type=float, default=0.25, help="the finder's")
    ap.add_argument("--faces-yolo-share", type=float, default=0.25)
    # the independent webcam renderer's setups (bench/webcam_renderer.py), from seeds its
    # benchmark never reads: dice seen from the side by another hand than render.py's
    ap.add_argument("--webcam", type=seed_range, default=[],
                    help="webcam renderer seeds to learn from, e.g. 20000-20099 (none: 0 share)")
    ap.add_argument("--webcam-low", type=seed_range, default=[],
                    help="more webcam renderer seeds, their webcams low on the desk "
                         "(LOW_ELEVATION), learned from with --webcam's share")
    ap.add_argument("--webcam-c", type=seed_range, default=[],
                    help="seeds of the third webcam renderer (bench/webcam_renderer_c.py: "
                         "cameras 15 to 80 degrees up, 15 to 90 cm away), learned from with "
                         "--webcam's share")
    ap.add_argument("--webcam-b", type=seed_range, default=[],
                    help="seeds of the second webcam renderer (bench/webcam_renderer_b.py: "
                         "cameras 20 to 70 degrees up, tables of cloth, mats and glass, "
                         "translucent and marbled dice), learned from with --webcam's share")
    ap.add_argument("--webcam-images", type=int, default=12, help="images a setup")
    ap.add_argument("--webcam-cache", type=Path, default=Path("/tmp/train-dice-webcam"),
                    help="where the setups are rendered (never in the repository)")
    ap.add_argument("--webcam-share", type=float, default=0.2, help="the finder's")
    ap.add_argument("--faces-webcam-share", type=float, default=0.2)
    ap.add_argument("--faces-init", type=Path,
                    help="a faces.npz to go on learning from (with --folds 0): the threshold "
                         "beside it (threshold.json) is kept, and checked on the photographs "
                         "kept apart")
    ap.add_argument("--faces-lr", type=float, default=2e-3)
    ap.add_argument("--faces-pips", type=float, default=0.0,
                    help="the face classifier's share of crops of a die's pip, as 'no die'")
    ap.add_argument("--finder-init", type=Path, help="a finder.npz to go on learning from")
    ap.add_argument("--finder-lr", type=float, default=3e-3)
    ap.add_argument("--finder-from", type=Path,
                    help="a finder.npz this script trained with the same arguments: only the "
                         "face classifiers are trained (the result is the same: each network "
                         "has its own random seed)")
    ap.add_argument("--finder-only", action="store_true",
                    help="train the finder alone: the face classifiers and threshold.json in "
                         "--out are kept, and the finder's score is set again")
    ap.add_argument("--clean-confidence", type=float,
                    help="the networks in --out kept: their clean threshold set to this (one "
                         "chosen on the tuning sets of other cameras: docs/vision.md), read "
                         "again on the photographs kept apart, and the finder's score set again")
    ap.add_argument("--calibrate-only", action="store_true",
                    help="keep the networks in --out, set the finder's score again")
    ap.add_argument("--precision", type=float, default=0.99,
                    help="how often a clean face must be right, out of fold")
    args = ap.parse_args(argv)
    # wrong arguments are refused before minutes of photographs and renders are loaded
    if args.finder_only and (args.finder_from or not (args.out / "faces.npz").exists()
                             or not (args.out / "threshold.json").exists()):
        raise SystemExit("--finder-only: trains the finder beside the face classifiers and "
                         f"threshold.json already in {args.out} (copy them there first), and "
                         "not with --finder-from")
    if args.clean_confidence is not None and not 0 < args.clean_confidence < 1:
        raise SystemExit(f"--clean-confidence: a number between 0 and 1, not "
                         f"{args.clean_confidence}")
    for flag, given in (("--webcam-low", args.webcam_low), ("--webcam-b", args.webcam_b),
                        ("--webcam-c", args.webcam_c)):
        if given and not args.webcam:
            raise SystemExit(f"{flag}: learned from with --webcam's share: give --webcam too")
    rng, learn, calib = begin(args.seed, args.data)
    print(f"{len(learn.photos)} photographs to learn from ({sum(len(p.dice) for p in learn.photos)} dice), "
          f"{len(calib)} to calibrate on; the held-out part is not read", flush=True)
    # byler's photographs, and every other photograph of its sessions, are left out: moments
    # apart from its held-out photographs, they would make those a test of memory
    try:
        other = load_other_camera(args.yolo, "tune", byler=args.data) if args.yolo else []
    except PhotoSetError as exc:
        raise SystemExit(f"--yolo: {exc}") from None
    other_learn = Photos([p for p in other if not calibration_photo(p.path.name)])
    other_calib = [p for p in other if calibration_photo(p.path.name)]
    if args.yolo:
        print(f"{args.yolo}: {len(other_learn.photos)} photographs to learn from "
              f"({sum(len(p.dice) for p in other_learn.photos)} dice), {len(other_calib)} kept "
              "apart; its held-out part is not read", flush=True)
    if args.calibrate_only:
        return calibrate_finder(args.out, calib)
    if args.clean_confidence is not None:
        return set_clean_confidence(args.out, args.clean_confidence, calib,
                                    (args.yolo.name, other_calib) if args.yolo else None)
    renders = rendered_trays(args.renders, args.seed) if args.renders else Photos([], [])
    oblique = (rendered_trays(args.oblique_renders, args.seed, oblique=True)
                if args.oblique_renders else Photos([], []))
    webcam = (webcam_setups(args.webcam, args.webcam_images, args.webcam_cache)
              if args.webcam else Photos([], []))
    if args.webcam_low:
        low = webcam_setups(args.webcam_low, args.webcam_images, args.webcam_cache, low=True)
        webcam = Photos(webcam.photos + low.photos, webcam.images + low.images, upright=True)
    for renderer, seeds in (("b", args.webcam_b), ("c", args.webcam_c)):
        if seeds:
            more = webcam_setups(seeds, args.webcam_images, args.webcam_cache, renderer=renderer)
            webcam = Photos(webcam.photos + more.photos, webcam.images + more.images, upright=True)
    shares = {net: (share if args.renders else 0.0, side if args.oblique_renders else 0.0,
                    yolo if args.yolo else 0.0, cam if args.webcam else 0.0)
              for net, share, side, yolo, cam in (
                  ("finder", args.render_share, args.oblique_share, args.yolo_share,
                   args.webcam_share),
                  ("faces", args.faces_render_share, args.faces_oblique_share,
                   args.faces_yolo_share, args.faces_webcam_share))}
    print(f"{len(renders.photos)} rendered trays, {len(oblique.photos)} seen from the side, "
          f"{len(webcam.photos)} webcam renders; shares of the examples (from above, from the "
          f"side, second real set, webcam renders): {shares}", flush=True)

    def trained_on(net: str) -> str:
        share, side, yolo, cam = shares[net]
        return (f"{args.data.name}: tuning part, {len(learn.photos)} photographs"
                + (f"; {args.yolo.name} (YOLO format): tuning part, {len(other_learn.photos)} "
                   f"photographs, {yolo:.0%} of the examples" if args.yolo else "")
                + (f"; {args.renders} trays of vision/dice/render.py, {share:.0%} of the examples"
                   if args.renders else "")
                + (f"; {args.oblique_renders} of its trays seen from the side, {side:.0%}"
                   if args.oblique_renders and side else "")
                + (f"; {len(webcam.photos)} webcam renders (bench/webcam_renderer.py's seeds "
                   f"{args.webcam[0]}-{args.webcam[-1]}"
                   + (f", and {args.webcam_low[0]}-{args.webcam_low[-1]} from "
                      f"{LOW_ELEVATION[0]}-{LOW_ELEVATION[1]} degrees up" if args.webcam_low else "")
                   + (f"; bench/webcam_renderer_b.py's seeds {args.webcam_b[0]}-"
                      f"{args.webcam_b[-1]}" if args.webcam_b else "")
                   + (f"; bench/webcam_renderer_c.py's seeds {args.webcam_c[0]}-"
                      f"{args.webcam_c[-1]}" if args.webcam_c else "")
                   + f"), {cam:.0%}" if args.webcam and cam else ""))

    def mixed(real: Photos, net: str, real2: Photos = other_learn) -> Mix:
        share, side, yolo, cam = shares[net]
        return Mix([(real, 1.0 - share - side - yolo - cam), (real2, yolo), (renders, share),
                    (oblique, side), (webcam, cam)], args.faces_pips if net == "faces" else 0.0)

    if args.finder_from:
        finder_file = args.finder_from
    else:
        finder = train_finder(mixed(learn, "finder"), rng, args.finder_steps, args.finder_init,
                              args.finder_lr)
        finder_file = args.out / "finder-new.npz"
        args.out.mkdir(parents=True, exist_ok=True)
        export(finder, finder_file, {"work": WORK, "stride": STRIDE})
    if args.finder_only:
        with_meta(finder_file, args.out / "finder.npz", {
            "work": WORK, "stride": STRIDE, "trained_on": trained_on("finder"),
            "seed": args.seed, "finder_steps": args.finder_steps, "torch": torch.__version__,
            **({"finder_init": f"{args.finder_init.name} (lr {args.finder_lr})"}
               if args.finder_init else {})})
        finder_file.unlink()
        from npz_to_onnx import convert

        convert(args.out / "finder.npz", args.out / "finder.onnx")
        print(f"wrote {args.out}/finder.npz and its .onnx twin; the face classifiers kept",
              flush=True)
        return calibrate_finder(args.out, calib)
    # the face classifiers draw from a generator of their own, so that training them alone
    # (--finder-from) gives what a whole run gives
    torch.manual_seed(args.seed + 1000)
    rng = np.random.default_rng(args.seed + 1000)
    # out-of-fold faces: each fold's photographs read by a classifier that never saw them
    # (the finder's own photographs, but its job is where, not which face): the confidence
    # threshold is set on about a thousand dice, not on a handful
    from vision.dice.pips import PipReader, clean_figures, reading_pairs, threshold_for

    oof: list[tuple[float, bool]] = []
    oof_total = 0
    oof2: list[tuple[float, bool]] = []      # the same, on the second set's photographs
    oof2_total = 0
    args.out.mkdir(parents=True, exist_ok=True)

    def split(photos: Photos, k: int) -> tuple[list[LabelledPhoto], Photos]:
        keep = [fold_of(p.path.name, args.folds) == k for p in photos.photos]
        return ([p for p, f in zip(photos.photos, keep) if f],
                Photos([p for p, f in zip(photos.photos, keep) if not f],
                       [i for i, f in zip(photos.images, keep) if not f]))

    for k in range(args.folds):
        fold, rest = split(learn, k)
        fold2, rest2 = split(other_learn, k)
        print(f"fold {k + 1}/{args.folds}: {len(fold)} photographs"
              + (f" and {len(fold2)} of {args.yolo.name}" if args.yolo else ""), flush=True)
        faces_k = train_faces(mixed(rest, "faces", rest2), rng, args.fold_steps)
        export(faces_k, args.out / "faces-fold.npz", {})
        reader_k = PipReader(load_net(finder_file), load_net(args.out / "faces-fold.npz"))
        pairs, total = reading_pairs(reader_k, fold)
        oof += pairs
        oof_total += total
        pairs, total = reading_pairs(reader_k, fold2)
        oof2 += pairs
        oof2_total += total
    (args.out / "faces-fold.npz").unlink(missing_ok=True)
    if args.faces_init and args.folds:
        raise SystemExit("--faces-init: with --folds 0 (what it learned from cannot be read "
                         "out of fold; its threshold is kept)")
    faces = train_faces(mixed(learn, "faces"), rng, args.faces_steps, args.faces_init,
                        args.faces_lr)
    args.out.mkdir(parents=True, exist_ok=True)
    provenance = {"calibrated_on": (f"the threshold of {args.faces_init} (the network it "
                                    f"went on learning from) kept; {len(calib)} photographs "
                                    "kept apart read again" if args.faces_init else
                                    f"{len(learn.photos)} photographs read out of fold, "
                                    f"{len(calib)} more kept apart")
                                   + (f"; of {args.yolo.name}, {len(other_learn.photos)} and "
                                      f"{len(other_calib)}" if args.yolo else ""),
                  "seed": args.seed, "finder_steps": args.finder_steps,
                  "faces_steps": args.faces_steps, "torch": torch.__version__,
                  **({"faces_pips": args.faces_pips} if args.faces_pips else {}),
                  **({"faces_init": f"{args.faces_init.name} (lr {args.faces_lr})"}
                     if args.faces_init else {})}
    if args.finder_from:       # kept as it was trained, with its own provenance
        with np.load(finder_file) as f:
            finder_meta = json.loads(str(f["spec"]))["meta"]
        with_meta(finder_file, args.out / "finder.npz", finder_meta)
    else:
        with_meta(finder_file, args.out / "finder.npz",
                  {"work": WORK, "stride": STRIDE, "trained_on": trained_on("finder"), **provenance})
    if finder_file.name == "finder-new.npz":
        finder_file.unlink()
    export(faces, args.out / "faces.npz", {"crop": CROP, "crop_scale": CROP_SCALE, "faces": list(FACES),
                                           "trained_on": trained_on("faces"), **provenance})
    from npz_to_onnx import convert  # the same networks for OpenCV's dnn module

    for name in ("finder", "faces"):
        convert(args.out / f"{name}.npz", args.out / f"{name}.onnx")
    print(f"wrote {args.out}/finder.npz, faces.npz and their .onnx twins", flush=True)
    # the threshold: the least confidence at which the faces read out of fold are right at
    # least 99 times in 100 (the labels' own mistakes count against it)
    # With a second set, the threshold is the higher of the two sets' own: a clean face is
    # right 99 times in 100 on each camera, not only on the two together
    if args.faces_init:       # kept from the network it went on from (no out-of-fold reads)
        kept = json.loads((args.faces_init.parent / "threshold.json").read_text())
        if args.faces_init.name == TOWER_FACES and "tower" in kept:   # the tower's own
            kept = kept["tower"]
        threshold = float(kept["clean_confidence"])
    else:
        threshold = threshold_for(oof, args.precision)
    if oof2:
        threshold = max(threshold, threshold_for(oof2, args.precision))
    reader = PipReader.load(args.out)
    calib_pairs, calib_total = reading_pairs(reader, calib)
    report = {"clean_confidence": round(threshold, 4), "precision_asked": args.precision,
              # with --faces-init nothing is read out of fold: the figures the kept threshold
              # was set by are the network's it went on from, and say so
              "out_of_fold": (clean_figures(oof, oof_total, threshold) if not args.faces_init
                              else {"of_the_network_it_went_on_from": kept["out_of_fold"].get(
                                  "of_the_network_it_went_on_from", kept["out_of_fold"])}),
              "kept_apart": clean_figures(calib_pairs, calib_total, threshold),
              "calibrated_on": provenance["calibrated_on"]}
    if oof2:
        pairs, total = reading_pairs(reader, other_calib)
        report[f"{args.yolo.name}_threshold"] = round(threshold_for(oof2, args.precision), 4)
        report[f"{args.yolo.name}_out_of_fold"] = clean_figures(oof2, oof2_total, threshold)
        report[f"{args.yolo.name}_kept_apart"] = clean_figures(pairs, total, threshold)
    # the classifier of views from above (faces-above.npz) and the tower's (faces-tower.npz,
    # vision/dice/pips.py's TOWER_FACES) are not trained here: their thresholds are kept
    try:
        before = json.loads((args.out / "threshold.json").read_text())
    except (OSError, ValueError):
        before = {}
    report.update({key: before[key] for key in ("above", "tower") if key in before})
    (args.out / "threshold.json").write_text(json.dumps(report, indent=1) + "\n")
    print(f"clean confidence threshold {threshold:.3f}: {report}", flush=True)
    calibrate_finder(args.out, calib)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
