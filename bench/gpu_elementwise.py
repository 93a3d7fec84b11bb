#!/usr/bin/env python3
"""The GPU executor's memory-bound kernels against the measured DRAM copy bandwidth (issue 28, section 3).

  gpu_elementwise.py make DIR        writes one small ONNX model per kernel into DIR (needs the onnx package)
  gpu_elementwise.py table DIR       reads DIR/ew-NAME.json (`ridge bench DIR/NAME.onnx --device cuda --batch 32
                                     -f json`) and DIR/ert.json (`ridge ert --device cuda -f json`) and prints,
                                     per node, the bytes it must move, its eager per-node median time, the rate
                                     and that rate as a fraction of ert's best DRAM copy rate

Bytes are what the node must read and write once each (inputs, initializers and outputs, fp32) at the batch
the run names: the least traffic any kernel for it can have, so the rate is the effective bandwidth. The
tensors are 50-400 MB, far above the 50-60 MB L2 of a Hopper card. The `gelu` model is GELU's Erf form as the
exporter writes it (Div, Erf, Add, Mul, Mul): its row "(chain)" sets the five nodes' time against the two
tensors one fused kernel would move."""
import glob
import json
import os
import sys

import numpy as np


def models():
    from onnx import TensorProto, helper, numpy_helper

    def tensor(name, dims):
        return helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)

    image = ["N", 256, 56, 56]  # ResNet-50's widest activation at batch 32: 103 MB
    specs = {}
    specs["add"] = ([helper.make_node("Add", ["x", "y"], ["z"], name="add")], [tensor("x", image), tensor("y", image)],
                    [tensor("z", image)], [])
    bias = numpy_helper.from_array(np.linspace(-1, 1, 256, dtype=np.float32).reshape(256, 1, 1), "bias")
    specs["add_bias"] = ([helper.make_node("Add", ["x", "bias"], ["z"], name="add_bias")], [tensor("x", image)],
                         [tensor("z", image)], [bias])
    for op in ("Relu", "Erf"):
        specs[op.lower()] = ([helper.make_node(op, ["x"], ["z"], name=op.lower())], [tensor("x", image)],
                             [tensor("z", image)], [])
    specs["transpose"] = ([helper.make_node("Transpose", ["x"], ["z"], name="transpose", perm=[0, 2, 3, 1])],
                          [tensor("x", image)], [tensor("z", ["N", 56, 56, 256])], [])
    tokens = ["N", 2048, 768]  # 201 MB at batch 32
    scale = numpy_helper.from_array(np.linspace(0.5, 1.5, 768, dtype=np.float32), "scale")
    shift = numpy_helper.from_array(np.linspace(-0.1, 0.1, 768, dtype=np.float32), "shift")
    specs["layernorm"] = ([helper.make_node("LayerNormalization", ["x", "scale", "shift"], ["z"], name="layernorm",
                                            axis=-1, epsilon=1e-5)], [tensor("x", tokens)], [tensor("z", tokens)],
                          [scale, shift])
    scores = ["N", 48, 128, 128]  # BERT's attention scores, four times the heads: 101 MB at batch 32
    specs["softmax"] = ([helper.make_node("Softmax", ["x"], ["z"], name="softmax", axis=-1)], [tensor("x", scores)],
                        [tensor("z", scores)], [])
    consts = [numpy_helper.from_array(np.array(v, dtype=np.float32), n)
              for n, v in (("sqrt2", 1.4142135), ("one", 1.0), ("half", 0.5))]
    gelu = [helper.make_node("Div", ["x", "sqrt2"], ["d"], name="gelu/Div"),
            helper.make_node("Erf", ["d"], ["e"], name="gelu/Erf"),
            helper.make_node("Add", ["e", "one"], ["a"], name="gelu/Add"),
            helper.make_node("Mul", ["x", "a"], ["m"], name="gelu/Mul"),
            helper.make_node("Mul", ["m", "half"], ["z"], name="gelu/Mul_1")]
    specs["gelu"] = (gelu, [tensor("x", tokens)], [tensor("z", tokens)], consts)
    for name, (nodes, inputs, outputs, inits) in specs.items():
        graph = helper.make_graph(nodes, name, inputs, outputs, initializer=inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="ridge-bench")
        yield name, model


def node_bytes(model, batch):
    """Per node: fp32 bytes of its inputs and outputs at `batch` (shapes by ONNX shape inference)."""
    import onnx
    g = model.graph
    for vi in list(g.input) + list(g.output):
        d = vi.type.tensor_type.shape.dim[0]
        if d.dim_param:
            d.ClearField("dim_param")
            d.dim_value = batch
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    sizes = {i.name: int(np.prod(i.dims)) for i in g.initializer}
    for vi in list(inferred.graph.input) + list(inferred.graph.value_info) + list(inferred.graph.output):
        sizes[vi.name] = int(np.prod([d.dim_value for d in vi.type.tensor_type.shape.dim]))
    return {n.name: 4 * sum(sizes[t] for t in list(n.input) + list(n.output) if t) for n in g.node}, sizes


def copy_rate(ert):
    points = [p for p in ert.get("bandwidth_points", []) if p.get("level") == "dram" and p.get("kernel") == "copy"]
    if points:
        return max(p["best_bytes_per_s"] for p in points), "ert's DRAM copy"
    return ert["bandwidth"]["dram"], "ert's DRAM figure"


def table(d):
    import onnx
    ert = json.load(open(os.path.join(d, "ert.json")))
    roof, label = copy_rate(ert)
    gpu = ert.get("gpu", {}).get("name", "?")
    print(f"GPU: {gpu}; roof: {label}, {roof / 1e12:.2f} TB/s\n")
    print("| model | node | MB moved | eager ms | TB/s | of copy |")
    print("|---|---|---|---|---|---|")
    for path in sorted(glob.glob(os.path.join(d, "ew-*.json"))):
        name = os.path.basename(path)[3:-5]
        model_path = os.path.join(d, name + ".onnx")
        if not os.path.exists(model_path):
            model_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "elementwise", name + ".onnx")
        try:
            doc = json.load(open(path))
        except (OSError, ValueError) as e:
            print(f"| {name} | (no result: {e}) | | | | |")
            continue
        run = [r for r in doc["runs"] if r["mode"] == "eager"][0]
        per_node, sizes = node_bytes(onnx.load(model_path), run["batch"])
        total_ms = 0.0
        for node in run["nodes"]:
            b = per_node.get(node["name"])
            if b is None:
                continue
            ms = node["mean_ms"]
            total_ms += ms
            rate = b / (ms * 1e-3)
            print(f"| {name} | {node['name']} | {b / 1e6:.0f} | {ms:.3f} | {rate / 1e12:.2f} | {rate / roof:.0%} |")
        if name == "gelu":
            b = 4 * (sizes["x"] + sizes["z"])
            rate = b / (total_ms * 1e-3)
            print(f"| {name} | (chain, as one kernel would move) | {b / 1e6:.0f} | {total_ms:.3f} | "
                  f"{rate / 1e12:.2f} | {rate / roof:.0%} |")


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("make", "table"):
        sys.exit(__doc__)
    if sys.argv[1] == "make":
        import onnx
        os.makedirs(sys.argv[2], exist_ok=True)
        for name, model in models():
            onnx.checker.check_model(model)
            onnx.save(model, os.path.join(sys.argv[2], name + ".onnx"))
    else:
        table(sys.argv[2])


if __name__ == "__main__":
    main()
