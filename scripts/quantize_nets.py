"""Write the 8-bit twin of the taught-face network (`make quantize-dice`).

    python scripts/quantize_nets.py [--models vision/dice/models] [--networks taught]
        [--towers 6] [--trays 20]

Why: with a profile, a `dice read` of a tray of eight dice spends about a fifth of its time in
the taught-face network (on every taught kind's crop of every die its pips do not settle).
Its twin with 8-bit weights and activations (ONNX Runtime's static quantization: weights per
output channel, activations per tensor, QOperator format; the last layer float) runs it about
three times faster on this project's x86 host (24 crops: 7.8 -> 2.6 ms), where `dice read
--profile` has to stay under 40 ms (issue 26, item 5); ONNX Runtime has the same 8-bit
kernels on the 64-bit ARM boards the tower runs on. Only ONNX Runtime runs it
(vision/dice/netrun.py :func:`load`): OpenCV's dnn module and numpy run the float network.

``--networks taught,tilt`` also writes the tilt network's twin (eight dice: 3.4 -> 1.7 ms):
tried on 2026-12-05, not shipped. Its answers differ from the float network's by up to 0.05,
which moved dice across the reader's tilt thresholds (tuning towers: 2 flat dice fewer read
and 3 tilted more flagged; the fifth renderer's: 4 flat dice fewer) for nothing the speed
benchmark could see (its trays' dice are mostly settled before the tilt network is asked).

What a twin is calibrated on (each layer's range of values): the dice of this project's
renderer (vision/dice/render.py, the look the training scripts learn from on seed 4242; the
benchmark reads seed 2026), ``--towers`` towers of ``--trays`` trays, each die as the reader
finds it and cuts it, and the teaching pictures' crops. The range is each layer's smallest and
largest value (no clipping): a tray unlike these is not cut off at a layer's end. Nothing
measured is calibrated on.

The script then says how far each twin's answers lie from the float network's on those inputs
(the taught-face vectors' likeness to their float vectors, the tilt answer's difference), and
refuses to write a twin further than ``MIN_LIKENESS`` / ``MAX_TILT_GAP``: the reader's
thresholds were chosen with the float networks. ``reduce_range`` (7-bit weights) would keep
the answers the same on x86 processors without VNNI, whose paired 8-bit products can overflow
16 bits (ONNX Runtime's documentation says so); it is not used: it makes the twins' error half
as large again (tilt answer, 99th percentile of the difference: 0.024 -> 0.037), the tower's
boards are ARM, and this project's hosts have VNNI. ``tests/test_dice_int8.py`` holds the
twin to the float network on the machine the tests run on, so a host whose products overflow
fails there. The twin names the float network it was made from (its SHA-256, in the ONNX
file's metadata): the tests refuse a twin of a network learned again since.

Needs the onnx package and ONNX Runtime's quantization tools (`make train-dice`'s venv).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

OWN_SEED = 4242  # as scripts/train_tilt.py: the benchmark (bench/dice_bench.py) reads 2026
MIN_LIKENESS = 0.99  # the lowest likeness of a twin's taught-face vector to the float one's
MAX_TILT_GAP = 0.06  # the largest difference of a twin's tilt answer (0..1) from the float's


def frame_inputs(reader, frame: np.ndarray, name: str) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The taught-face network's inputs (every taught kind's crop of every die, 48 x 48) and
    the tilt network's (every die, 3 x SIDE x SIDE) of ``frame``'s dice, as ``reader`` (a
    DiceReader) finds and cuts them; none where it cannot read the frame."""
    from vision.dice.model import DiceError
    from vision.dice.segment import balanced
    from vision.dice.taught import embed_input
    from vision.dice.tilt import tilt_input

    try:
        frame, _light = balanced(frame, reader.bg)
        blobs, _ = reader.blobs(frame, name)
    except DiceError:
        return [], []
    taught = [embed_input(np.clip(c * 2.55, 0, 255))
              for crops in reader._kind_crops(blobs, list(range(len(blobs)))).values()
              for c in crops]
    return taught, [tilt_input(frame, b) for b in blobs]


def calibration_inputs(towers: int, trays: int) -> tuple[np.ndarray, np.ndarray]:
    """The taught-face network's inputs (N x 1 x 48 x 48) and the tilt network's (M x 3 x
    SIDE x SIDE) of this project's renderer's dice, as the reader makes them, and of the
    teaching pictures."""
    from vision.dice.bench import bench_tray, teach_tower, tower_style
    from vision.dice.reader import DiceReader
    from vision.dice.taught import embed_input

    taught: list[np.ndarray] = []
    tilt: list[np.ndarray] = []
    for tower in range(towers):
        profile = teach_tower(tower_style(tower, OWN_SEED), OWN_SEED + tower)
        for m in profile.kinds.values():
            for crops in m.examples.values():
                taught += [embed_input(c) for c in crops]
        reader = DiceReader(profile)
        for k in range(trays):
            frame, _ = bench_tray(tower, OWN_SEED * 1000 + k, OWN_SEED)
            faces, views = frame_inputs(reader, frame, f"tower {tower} tray {k}")
            taught += faces
            tilt += views
    return np.stack(taught)[:, None].astype(np.float32), np.stack(tilt).astype(np.float32)


def quantize(src: Path, dst: Path, inputs: np.ndarray, batch: int = 64) -> None:
    """``src`` (float ONNX) as 8-bit ``dst``, its activations' ranges from ``inputs``."""
    import onnxruntime as ort
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    name = ort.InferenceSession(str(src), providers=["CPUExecutionProvider"]).get_inputs()[0].name

    class Batches(CalibrationDataReader):
        def __init__(self) -> None:
            self.left = iter(range(0, len(inputs), batch))

        def get_next(self) -> dict[str, np.ndarray] | None:
            start = next(self.left, None)
            return None if start is None else {name: inputs[start:start + batch]}

    import onnx

    with tempfile.TemporaryDirectory() as tmp:
        ready = Path(tmp) / "pre.onnx"
        quant_pre_process(str(src), str(ready), skip_symbolic_shape=True)
        model = onnx.load(str(ready))
        for i, node in enumerate(model.graph.node):  # (scripts/npz_to_onnx.py names none)
            node.name = f"{node.op_type}_{i}"
        onnx.save(model, str(ready))
        # the last layer (the answer's scale) stays float: the twins' answers come closer
        # (taught-face likeness, 1st percentile: 0.9971 -> 0.9985 on towers of two independent
        # renderers; tilt answer, 99th percentile of the difference: 0.026 -> 0.024) at no cost
        last = [n.name for n in model.graph.node if n.op_type in ("Gemm", "MatMul")]
        quantize_static(str(ready), str(dst), Batches(), quant_format=QuantFormat.QOperator,
                        per_channel=True, reduce_range=False, nodes_to_exclude=last,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        calibrate_method=CalibrationMethod.MinMax)
    # which float network it is the twin of (tests/test_dice_int8.py: a network learned again
    # without its twin written again is caught there), and how it was made
    twin = onnx.load(str(dst))
    for key, value in (("source", src.name), ("source_sha256", sha256_of(src)),
                       ("calibrated_on", f"this project's renderer, seed {OWN_SEED}, "
                                         f"{len(inputs)} inputs"),
                       ("made_by", "scripts/quantize_nets.py")):
        entry = twin.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.save(twin, str(dst))


def sha256_of(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def answers(path: Path, inputs: np.ndarray) -> np.ndarray:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    return np.concatenate([session.run(None, {name: inputs[i:i + 256]})[0]
                           for i in range(0, len(inputs), 256)])


def likeness(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = a / (np.linalg.norm(a, axis=1, keepdims=True) + 1e-6)
    b = b / (np.linalg.norm(b, axis=1, keepdims=True) + 1e-6)
    return np.sum(a * b, axis=1)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", type=Path, default=ROOT / "vision" / "dice" / "models")
    ap.add_argument("--networks", default="taught",
                    help="the networks to write twins of: taught, tilt (tried, not shipped)")
    ap.add_argument("--towers", type=int, default=6)
    ap.add_argument("--trays", type=int, default=20)
    args = ap.parse_args()
    from tabletop_base.threads import one_blas_thread
    one_blas_thread()
    from vision.dice.netrun import int8_twin

    taught, tilt = calibration_inputs(args.towers, args.trays)
    print(f"calibrating on {len(taught)} taught-face crops and {len(tilt)} dice "
          f"({args.towers} towers of this project's renderer, seed {OWN_SEED})")
    failed = False
    wanted = [n.strip() for n in args.networks.split(",") if n.strip()]
    unknown = [n for n in wanted if n not in ("taught", "tilt")]
    if unknown or not wanted:
        raise SystemExit(f"--networks: {', '.join(unknown) or '(none)'}: not a network "
                         f"(taught, tilt)")
    for stem, inputs in (("taught", taught), ("tilt", tilt)):
        if stem not in wanted:
            continue
        src = args.models / f"{stem}.onnx"
        dst = int8_twin(args.models / f"{stem}.npz")
        quantize(src, dst, inputs)
        full, eight = answers(src, inputs), answers(dst, inputs)
        if stem == "taught":
            like = likeness(full, eight)
            print(f"{dst.name}: likeness to the float vectors: lowest {like.min():.4f}, "
                  f"median {np.median(like):.4f}")
            bad = like.min() < MIN_LIKENESS
        else:
            p_full, p_eight = 1 / (1 + np.exp(-full[:, 0])), 1 / (1 + np.exp(-eight[:, 0]))
            gap = np.abs(p_full - p_eight)
            print(f"{dst.name}: tilt answer's difference: largest {gap.max():.4f}, "
                  f"median {np.median(gap):.4f}")
            bad = gap.max() > MAX_TILT_GAP
        if bad:
            dst.unlink()
            print(f"{dst.name}: too far from the float network: not written", file=sys.stderr)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
