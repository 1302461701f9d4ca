"""The 8-bit twin of the taught-face network (scripts/quantize_nets.py): ONNX Runtime runs it in
place of the float network, and its answers stay close to the float ones on dice it was not
calibrated on (this project's renderer on the benchmark's seed; the twin was calibrated on seed
4242). Run on the machine the tests run on, so that a processor whose 8-bit products overflow
(x86 without VNNI: the script's docstring) fails here, not at a table. The tilt network's twin
was tried and not shipped: the tilt network runs float everywhere."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

import vision.dice.taught as taught
import vision.dice.tilt as tilt
from vision.dice import DiceReader, netrun
from vision.dice.bench import bench_tray, teach_tower, tower_style
from vision.dice.netrun import Net, OnnxNet, OrtNet, int8_twin

SEED = 2026  # the benchmark's seed (the twins were calibrated on 4242)


@pytest.fixture(scope="module")
def tower():
    return teach_tower(tower_style(3, SEED), SEED + 3)


@pytest.fixture(scope="module")
def faces(tower) -> np.ndarray:
    """The taught-face network's inputs of a tower's dice, as the reader cuts them (every
    taught kind's crop of every die of eight trays)."""
    import importlib.util
    from pathlib import Path

    # as the twin's calibration cuts them (scripts/quantize_nets.py)
    spec = importlib.util.spec_from_file_location(
        "quantize_nets", Path(__file__).resolve().parent.parent / "scripts" / "quantize_nets.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    reader = DiceReader(tower)
    out: list[np.ndarray] = []
    for k in range(8):
        out += script.frame_inputs(reader, bench_tray(3, k, SEED)[0], f"tray {k}")[0]
    assert len(out) >= 60
    return np.stack(out)[:, None].astype(np.float32)


def test_onnx_runtime_runs_the_8_bit_twin_and_nothing_else_does():
    model = taught.MODEL
    assert int8_twin(model).is_file()
    assert int8_twin(model).name == "taught.int8.onnx"
    net = netrun.load(model, classic=True, runtime="onnxruntime")
    assert isinstance(net, OrtNet) and net.path == int8_twin(model)
    full = netrun.load(model, classic=True, runtime="onnxruntime", int8=False)
    assert isinstance(full, OrtNet) and full.path == model.with_suffix(".onnx")
    # OpenCV's dnn module and numpy run the float network
    assert isinstance(netrun.load(model, classic=True, runtime="opencv"), OnnxNet)
    assert isinstance(netrun.load(model, runtime="numpy"), Net)
    # the tilt network has no twin: ONNX Runtime runs it float
    assert not int8_twin(tilt.MODEL).exists()
    tilted = netrun.load(tilt.MODEL, classic=True, runtime="onnxruntime")
    assert isinstance(tilted, OrtNet) and tilted.path == tilt.MODEL.with_suffix(".onnx")


def test_the_twin_is_of_the_float_network_shipped_beside_it():
    """A network learned again (make train-taught) needs its twin written again (make
    quantize-dice): a twin of the network before would read with the old weights."""
    import onnxruntime

    model = taught.MODEL
    session = onnxruntime.InferenceSession(str(int8_twin(model)),
                                           providers=["CPUExecutionProvider"])
    said = session.get_modelmeta().custom_metadata_map
    assert said["source"] == "taught.onnx" and said["made_by"] == "scripts/quantize_nets.py"
    assert said["source_sha256"] == hashlib.sha256(model.with_suffix(".onnx").read_bytes()
                                                   ).hexdigest()


def test_the_taught_face_twin_gives_nearly_the_float_vectors(faces):
    eight = netrun.load(taught.MODEL, runtime="onnxruntime")(faces)
    full = Net.load(taught.MODEL)(faces)
    eight = eight / np.linalg.norm(eight, axis=1, keepdims=True)
    full = full / np.linalg.norm(full, axis=1, keepdims=True)
    likeness = np.sum(eight * full, axis=1)
    # 0.9995 typically; the reader's sure lead is 0.12 (VECTOR_SURE)
    assert np.median(likeness) > 0.999 and likeness.min() > 0.99
    # not the same network: the twin's answers differ (a twin that were the float network
    # would pass the lines above by itself)
    assert np.abs(eight - full).max() > 1e-4


def test_taught_pictures_are_turned_by_the_float_network(tower):
    """A tower's taught pictures are turned into vectors once, by the float network (exact):
    only a tray's die carries the twin's error, not both sides of each likeness."""
    m = tower.kinds["kotd"]
    _, crops = m.example_crops()
    full = taught.TaughtNet(Net.load(taught.MODEL)).embed(crops)
    assert np.allclose(m.vectors(), full, atol=1e-4)
    eight = taught.shipped().embed(crops)
    assert not np.allclose(eight, full, atol=1e-4)
