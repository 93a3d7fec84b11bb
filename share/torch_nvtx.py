#!/usr/bin/env python3
"""Name a PyTorch model's modules with NVTX ranges the way the TorchScript ONNX exporter names their nodes.

`ridge ncu run -m model.onnx -- python3 infer.py` maps each kernel of a profiled program to a layer of the ONNX
file by the NVTX range it ran in. ridge's own executor pushes one range per node; a PyTorch program pushes none. In
infer.py:

    import torch_nvtx                      # share/ridge/torch_nvtx.py of a ridge install
    handle = torch_nvtx.annotate(model)    # every leaf module's call inside a range named like its ONNX node
    model(x)
    handle.remove()

The names follow the TorchScript exporter (`torch.onnx.export(..., dynamo=False)`, which made the bundled models):
  /SCOPE/.../SCOPE/OpType, a scope per module on the path, where a numbered child extends its parent's scope
  (features.0 inside features is "features.0", its child 0 "features.0.0"); a module called again in one forward is
  relu_1, relu_2 (ResNet's relu); the op is the ONNX op the module becomes (Conv2d -> Conv, ReLU6 -> Clip, Linear ->
  Gemm on 2-D inputs, MatMul on more, AdaptiveAvgPool2d -> GlobalAveragePool to 1x1, else AveragePool).
What the exporter folds (a BatchNorm after a convolution, in an inference export) has no node: its range names
nothing ridge can match, and `ridge import ncu` says so. Functional calls (x + y, torch.flatten) are no modules and
get no range. `python3 torch_nvtx.py check MODEL.onnx torchvision:NAME` runs NAME on the CPU with recording hooks and
compares the names with MODEL.onnx's nodes (python3-torch, python3-torchvision and python3-onnx).
"""
import sys

# Module class -> the ONNX op the exporter makes of it. A class not here keeps its own name: a range that matches
# no node is reported by ridge, never silently mapped.
OP = {
    "Conv1d": "Conv", "Conv2d": "Conv", "Conv3d": "Conv", "ConvTranspose2d": "ConvTranspose",
    "ReLU": "Relu", "ReLU6": "Clip", "GELU": "Gelu", "SiLU": "Mul", "Sigmoid": "Sigmoid", "Tanh": "Tanh",
    "Hardswish": "HardSwish", "Hardsigmoid": "HardSigmoid", "LeakyReLU": "LeakyRelu",
    "MaxPool2d": "MaxPool", "AvgPool2d": "AveragePool",
    "BatchNorm2d": "BatchNormalization", "LayerNorm": "LayerNormalization", "GroupNorm": "InstanceNormalization",
    "Dropout": "Dropout", "Softmax": "Softmax", "Embedding": "Gather", "Flatten": "Flatten", "Identity": "Identity",
}


def scopes(qualified):
    """The exporter's scope names of a module path: layer1.0.conv1 -> [layer1, layer1.0, conv1]."""
    out = []
    for part in qualified.split("."):
        out.append(out[-1] + "." + part if part.isdigit() and out else part)
    return out


def op_of(module, inputs):
    kind = type(module).__name__
    if kind == "Linear":  # Gemm for a matrix, MatMul (+ Add) for a batch of them
        return "Gemm" if inputs and inputs[0].dim() == 2 else "MatMul"
    if kind == "AdaptiveAvgPool2d":  # to one value per channel a global pool, else a fixed-window AveragePool
        size = module.output_size
        return "GlobalAveragePool" if size in (1, (1, 1), [1, 1]) else "AveragePool"
    return OP.get(kind, kind)


class Handle:
    def __init__(self, hooks):
        self._hooks = hooks

    def remove(self):
        for h in self._hooks:
            h.remove()
        self._hooks = []


def annotate(model, push=None, pop=None):
    """Wraps every call of every leaf module of `model` in push(name) ... pop(). push and pop default to
    torch.cuda.nvtx.range_push and range_pop. Call counts restart at each forward of `model` itself."""
    import torch

    push = push or torch.cuda.nvtx.range_push
    pop = pop or torch.cuda.nvtx.range_pop
    leaves = {m: scopes(q) for q, m in model.named_modules() if q and not list(m.children())}
    calls = {}

    def start(_model, _inputs):
        calls.clear()

    def enter(module, inputs):
        n = calls.get(module, 0)
        calls[module] = n + 1
        parts = leaves[module]
        last = parts[-1] + (f"_{n}" if n else "")
        push("/" + "/".join(parts[:-1] + [last]) + "/" + op_of(module, inputs))

    def leave(_module, _inputs, _output):
        pop()  # returns None: a forward hook's return value would replace the module's output

    hooks = [model.register_forward_pre_hook(start)]
    for module in leaves:
        hooks.append(module.register_forward_pre_hook(enter))
        hooks.append(module.register_forward_hook(leave))
    return Handle(hooks)


def recorded_names(model, *inputs):
    """The range names one forward of `model` on `inputs` pushes, in order (on whatever device they are)."""
    import torch

    names = []
    handle = annotate(model, push=names.append, pop=lambda: None)
    with torch.no_grad():
        model(*inputs)
    handle.remove()
    return names


def check(onnx_path, spec, batch=1):
    """Compares the names of torchvision's model `spec` ("torchvision:resnet50") with the nodes of onnx_path: prints
    how many range names match a node and which do not; returns the number of leaf calls whose op the file should
    have (not folded) and that match no node."""
    import onnx
    import torch
    import torchvision

    source, name = spec.split(":", 1)
    if source != "torchvision":
        raise SystemExit(f"check: {spec}: only torchvision:NAME models are built here")
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(weights=None).eval()
    nodes = {n.name for n in onnx.load(onnx_path, load_external_data=False).graph.node}
    names = recorded_names(model, torch.randn(batch, 3, 224, 224))
    matched = [n for n in names if n in nodes]
    # An inference export folds BatchNorm into the convolution before it and drops Dropout: those have no node.
    missing = [n for n in names if n not in nodes and not n.endswith(("/BatchNormalization", "/Dropout"))]
    print(f"{len(matched)} of {len(names)} range names are nodes of {onnx_path}; "
          f"{len(missing)} that should be are not")
    for n in missing[:10]:
        print(f"  not a node: {n}")
    return len(missing)


if __name__ == "__main__":
    if len(sys.argv) < 4 or sys.argv[1] != "check":
        raise SystemExit(__doc__)
    sys.exit(1 if check(sys.argv[2], sys.argv[3]) else 0)
