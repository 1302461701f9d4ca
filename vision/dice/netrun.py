"""Small convolutional networks run with numpy (no deep-learning runtime on the tower).

A network is a list of layers stored with its weights in one ``.npz`` file: ``spec`` holds
the layers as JSON, each weight array its own entry. Layers: ``conv`` (``w`` [out, in, k, k]
with batch norm folded in, ``b``, ``stride``, ``dilation``, ``relu``; padding keeps the size
at stride 1), ``maxpool`` (2x2), ``gap`` (global average) and ``linear``. Images are
float32 [N, C, H, W]. ``scripts/train_dice.py`` writes these files.

The same network written as ONNX beside it (``scripts/npz_to_onnx.py``) runs faster: in ONNX
Runtime where it is installed (a dependency on the machines it has wheels for), else in
OpenCV's dnn module. :func:`load` takes the fastest that is there. On this project's 2-core x86
host, one core, the pip finder on a 320x320 image took 11 ms in ONNX Runtime, 22-25 ms in
OpenCV's dnn (either engine, Winograd on or off) and more in numpy; the face classifier on 24
crops 18 ms against 29 ms. Their answers differ from the weights' (numpy) by 4e-6 at most
here, from OpenCV's by 2e-5 (the tests allow 1e-3 for the pip networks, 1e-4 for the others)."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

T = TypeVar("T")


class ModelError(ValueError):
    """A model file that cannot be used: names the file and what is wrong."""


@dataclass(frozen=True)
class Net:
    layers: tuple[dict[str, Any], ...]
    weights: dict[str, np.ndarray]
    meta: dict[str, Any]

    @classmethod
    def load(cls, path: Path) -> Net:
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {k: data[k] for k in data.files}
        except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
            raise ModelError(f"{path}: not a model file ({exc})") from None
        layers, meta = _spec(path, arrays.pop("spec", None))
        for i, layer in enumerate(layers):
            for key in ("w", "b"):
                if key in layer and layer[key] not in arrays:
                    raise ModelError(f"{path}: layers[{i}].{key}: no array {layer[key]!r}")
        return cls(layers, {k: v.astype(np.float32) for k, v in arrays.items()}, meta)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        x = np.ascontiguousarray(x, dtype=np.float32)
        for layer in self.layers:
            op = layer["op"]
            if op == "conv":
                x = conv2d(x, self.weights[layer["w"]], self.weights[layer["b"]],
                           int(layer.get("stride", 1)), int(layer.get("dilation", 1)))
                if layer.get("relu", True):
                    np.maximum(x, 0, out=x)
            elif op == "maxpool":
                n, c, h, w = x.shape
                x = x[:, :, :h // 2 * 2, :w // 2 * 2].reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))
            elif op == "gap":
                x = x.mean(axis=(2, 3))
            elif op == "linear":
                x = x @ self.weights[layer["w"]].T + self.weights[layer["b"]]
                if layer.get("relu", False):
                    np.maximum(x, 0, out=x)
            else:
                raise ModelError(f"unknown layer {op!r}")
        return x


def conv2d(x: np.ndarray, w: np.ndarray, b: np.ndarray, stride: int = 1,
           dilation: int = 1) -> np.ndarray:
    """A 'same'-padded 2-D convolution (cross-correlation, as the training framework's) by
    one matrix product over the k x k shifted views of the input."""
    n, c, h, wd = x.shape
    out_c, in_c, k, _ = w.shape
    if in_c != c:
        raise ModelError(f"a convolution takes {in_c} channels, got {c}")
    pad = dilation * (k - 1) // 2
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad))) if pad else x
    oh = (h + 2 * pad - dilation * (k - 1) - 1) // stride + 1
    ow = (wd + 2 * pad - dilation * (k - 1) - 1) // stride + 1
    cols = np.empty((n, oh, ow, c, k, k), dtype=np.float32)
    for i in range(k):
        for j in range(k):
            y0, x0 = i * dilation, j * dilation
            cols[:, :, :, :, i, j] = xp[:, :, y0:y0 + stride * oh:stride,
                                        x0:x0 + stride * ow:stride].transpose(0, 2, 3, 1)
    out = cols.reshape(n * oh * ow, c * k * k) @ w.reshape(out_c, -1).T + b
    return np.ascontiguousarray(out.reshape(n, oh, ow, out_c).transpose(0, 3, 1, 2))


def _spec(path: Path, spec: np.ndarray | None) -> tuple[tuple[dict[str, Any], ...], dict[str, Any]]:
    """A model file's layers and provenance, from its ``spec`` entry."""
    try:
        if spec is None:
            raise KeyError("spec")
        parsed = json.loads(str(spec))
        return tuple(parsed["layers"]), dict(parsed.get("meta", {}))
    except (KeyError, ValueError, TypeError):
        raise ModelError(f"{path}: spec: the layers are missing or not JSON") from None


def meta_of(path: Path) -> dict[str, Any]:
    """A model file's provenance alone: its ``spec`` entry is read, not its weights (the
    compressed weights took 9 of the 12 ms of loading the pip networks, where OpenCV runs
    them from their ONNX twins)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            spec = data["spec"] if "spec" in data.files else None
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise ModelError(f"{path}: not a model file ({exc})") from None
    return _spec(path, spec)[1]


class OnnxNet:
    """The same network in OpenCV's dnn module (from the .onnx file written beside the .npz).
    ``classic``: run by OpenCV 5's classic engine rather than the one it picks (its new
    engine runs the face classifiers about 1.7 times slower here, the finder no faster
    classic; OpenCV 4 has the classic engine only)."""

    def __init__(self, path: Path, meta: dict[str, Any], classic: bool = False) -> None:
        import cv2

        try:
            engine = getattr(cv2.dnn, "ENGINE_CLASSIC", None) if classic else None
            self.net = (cv2.dnn.readNetFromONNX(str(path)) if engine is None
                        else cv2.dnn.readNetFromONNX(str(path), engine))
        except cv2.error as exc:
            raise ModelError(f"{path}: OpenCV cannot read it ({str(exc).strip().splitlines()[-1]})") from None
        self.meta = meta

    def __call__(self, x: np.ndarray) -> np.ndarray:
        self.net.setInput(np.ascontiguousarray(x, dtype=np.float32))
        return np.asarray(self.net.forward())


class OrtNet:
    """The same network in ONNX Runtime (from the .onnx file written beside the .npz), on one
    thread: the tower reads on one core, and the calling thread does all of the work (its CPU
    time is the read's: bench/dice_read_speed_bench.py counts it so)."""

    def __init__(self, path: Path, meta: dict[str, Any]) -> None:
        ort = _onnxruntime()
        if ort is None:
            raise ModelError(f"{path}: ONNX Runtime is not installed, or cannot be loaded here")
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # errors only: the command line's stderr is the user's
        try:
            self.session = ort.InferenceSession(str(path), options,
                                                providers=["CPUExecutionProvider"])
        except Exception as exc:  # noqa: BLE001 - its errors have no common base class
            why = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
            raise ModelError(f"{path}: ONNX Runtime cannot read it ({why})") from None
        self.input = self.session.get_inputs()[0].name
        self.meta = meta
        self.path = path  # the .onnx file it runs

    def __call__(self, x: np.ndarray) -> np.ndarray:
        out = self.session.run(None, {self.input: np.ascontiguousarray(x, dtype=np.float32)})
        return np.asarray(out[0])


Runnable = Net | OnnxNet | OrtNet
RUNTIMES = ("onnxruntime", "opencv", "numpy")


@lru_cache(maxsize=1)
def _onnxruntime() -> Any:
    """The onnxruntime module, or None where it is not installed or does not load (a wheel
    whose shared library this system cannot load)."""
    try:
        import onnxruntime
    except Exception:  # noqa: BLE001 - ImportError, OSError from its native library, ...
        return None
    return onnxruntime


def has_onnxruntime() -> bool:
    """Whether ONNX Runtime is there to use (it has no wheels for some boards: 32-bit ARM)."""
    return _onnxruntime() is not None


def int8_twin(path: Path) -> Path:
    """Where the 8-bit twin of the network in ``path`` (.npz) lies (``scripts/quantize_nets.py``
    writes one for the taught-face network, which a `dice read` with a profile runs most:
    ONNX Runtime runs it about three times faster)."""
    return path.with_suffix(".int8.onnx")


def load(path: Path, classic: bool = False, runtime: str | None = None,
         int8: bool = True) -> Runnable:
    """The network in ``path`` (.npz), run from its .onnx twin when there is one: in ONNX
    Runtime where it is installed, from its 8-bit twin where there is one (``int8``; see
    :func:`int8_twin`), else in OpenCV (``classic``: see :class:`OnnxNet`); from the weights
    with numpy where there is no twin. ``runtime`` (one of :data:`RUNTIMES`) asks for one of
    them (the tests hold each to the same answers, the 8-bit twin to nearly the same)."""
    if runtime not in (None, *RUNTIMES):
        raise ValueError(f"runtime: one of {', '.join(RUNTIMES)}, not {runtime!r}")
    twin = path.with_suffix(".onnx")
    if runtime == "numpy" or not twin.exists():
        return Net.load(path)
    if runtime == "onnxruntime" or (runtime is None and has_onnxruntime()):
        eight = int8_twin(path)
        return OrtNet(eight if int8 and eight.exists() else twin, meta_of(path))
    return OnnxNet(twin, meta_of(path), classic)


def load_shipped(path: Path, wrap: Callable[[Runnable], T], int8: bool = True
                 ) -> tuple[T | None, str | None]:
    """A shipped network (``path``: in ONNX Runtime, from its 8-bit twin where there is one and
    ``int8``, else on OpenCV's classic engine) wrapped by ``wrap``, and None; or None and why
    it cannot be used, its file named (missing, damaged)."""
    try:
        return wrap(load(path, classic=True, int8=int8)), None
    except (ModelError, OSError) as exc:
        return None, str(exc)
