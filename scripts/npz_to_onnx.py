"""Write a network of vision/dice/netrun.py's format (.npz) as ONNX, for OpenCV's dnn module.

    python scripts/npz_to_onnx.py MODEL.npz [MODEL.onnx]

Needs the onnx package (the training venv has it); the app reads the .onnx file with OpenCV
alone. The two files compute the same function (tests/test_dice_pips.py checks it)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def convert(src: Path, dst: Path) -> None:
    with np.load(src, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    spec = json.loads(str(arrays.pop("spec")))
    nodes, inits = [], []
    x = "input"
    for i, layer in enumerate(spec["layers"]):
        out = f"t{i}"
        op = layer["op"]
        if op == "conv":
            w, b = arrays[layer["w"]].astype(np.float32), arrays[layer["b"]].astype(np.float32)
            k, d, s = w.shape[2], int(layer.get("dilation", 1)), int(layer.get("stride", 1))
            pad = d * (k - 1) // 2
            inits += [numpy_helper.from_array(w, f"w{i}"), numpy_helper.from_array(b, f"b{i}")]
            conv_out = out if not layer.get("relu", True) else f"c{i}"
            nodes.append(helper.make_node("Conv", [x, f"w{i}", f"b{i}"], [conv_out], kernel_shape=[k, k],
                                          strides=[s, s], dilations=[d, d], pads=[pad] * 4))
            if layer.get("relu", True):
                nodes.append(helper.make_node("Relu", [conv_out], [out]))
        elif op == "maxpool":
            nodes.append(helper.make_node("MaxPool", [x], [out], kernel_shape=[2, 2], strides=[2, 2]))
        elif op == "gap":
            nodes.append(helper.make_node("GlobalAveragePool", [x], [f"g{i}"]))
            nodes.append(helper.make_node("Flatten", [f"g{i}"], [out], axis=1))
        elif op == "linear":
            w, b = arrays[layer["w"]].astype(np.float32), arrays[layer["b"]].astype(np.float32)
            inits += [numpy_helper.from_array(w, f"w{i}"), numpy_helper.from_array(b, f"b{i}")]
            nodes.append(helper.make_node("Gemm", [x, f"w{i}", f"b{i}"], [out], transB=1))
        else:
            raise SystemExit(f"{src}: layers[{i}]: unknown layer {op!r}")
        x = out
    out_shape = [None, None, None, None] if spec["layers"][-1]["op"] == "conv" else [None, None]
    first = next(layer for layer in spec["layers"] if layer["op"] == "conv")
    channels = int(arrays[first["w"]].shape[1])  # the image's: 3 (BGR) or 1 (grey)
    graph = helper.make_graph(
        nodes, src.stem, [helper.make_tensor_value_info("input", TensorProto.FLOAT,
                                                        [None, channels, None, None])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, out_shape)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="tabletop-companion scripts/npz_to_onnx.py")
    model.ir_version = 8
    onnx.checker.check_model(model)
    dst.write_bytes(model.SerializeToString())


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        raise SystemExit(__doc__.strip())
    src = Path(sys.argv[1])
    convert(src, Path(sys.argv[2]) if len(sys.argv) == 3 else src.with_suffix(".onnx"))
