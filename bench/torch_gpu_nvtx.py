#!/usr/bin/env python3
"""A PyTorch inference for Nsight Compute in bench/gpu_speed.sh: a bundled model's PyTorch twin (torchvision CNNs
and ViT with BatchNorm folded, BERT from tools/ridge_reference_models.py), every module inside an NVTX range named
by its scope as the TorchScript ONNX exporter names nodes: a leaf gets its op (/layer1/layer1.0/conv1/Conv, a
repeated call relu_1), a module with its own kernels its scope (/encoder/layers/encoder_layer_0/self_attention).
The run is inside a range MODEL_batchB, after one warm-up run outside it.
Usage: torch_gpu_nvtx.py MODEL BATCH [fp32|tf32|fp16]"""
import os
import sys

import torch
import torchvision

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import ridge_reference_models as ref  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "share"))
from torch_nvtx import scopes  # noqa: E402  the exporter's scope rule, one copy (share/torch_nvtx.py)

OP = {"Conv2d": "Conv", "ReLU": "Relu", "MaxPool2d": "MaxPool", "AdaptiveAvgPool2d": "GlobalAveragePool",
      "Linear": "Gemm", "ReLU6": "Clip", "Dropout": "Dropout", "LayerNorm": "LayerNormalization", "GELU": "Gelu"}



def build(name, batch):
    torch.manual_seed(0)
    if name == "bert_base":
        return ref.BertEncoder().eval(), (torch.randint(0, 30522, (batch, 128)), torch.ones(batch, 128, dtype=torch.long))
    model = getattr(torchvision.models, name)(weights=None).eval()
    if any(isinstance(m, torch.nn.BatchNorm2d) for m in model.modules()):
        from torch.fx.experimental.optimization import fuse
        model = fuse(model)
    return model, (torch.randn(batch, 3, 224, 224),)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    name, batch = sys.argv[1], int(sys.argv[2])
    precision = sys.argv[3] if len(sys.argv) > 3 else "fp32"
    torch.backends.cudnn.allow_tf32 = precision == "tf32"
    torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
    model, inputs = build(name, batch)
    model, inputs = model.cuda(), tuple(t.cuda() for t in inputs)
    if precision == "fp16":
        model = model.half()
        inputs = tuple(t.half() if t.is_floating_point() else t for t in inputs)
    names, calls = {}, {}
    for q, module in model.named_modules():
        if not q:
            continue
        leaf = not list(module.children())
        names[module] = (scopes(q), OP.get(type(module).__name__, type(module).__name__) if leaf else None)
    naming = [False]

    def push(module, _inputs):
        if not naming[0]:
            return
        n = calls.get(module, 0)  # a module called again in one forward is relu_1, relu_2 in the export
        calls[module] = n + 1
        parts, kind = names[module]
        parts = parts[:-1] + [parts[-1] + (f"_{n}" if n else "")]
        torch.cuda.nvtx.range_push("/" + "/".join(parts + ([kind] if kind else [])))

    def pop(_module, _inputs, _output):
        if naming[0]:
            torch.cuda.nvtx.range_pop()  # a hook that returns a value would replace the module's output

    for module in names:
        module.register_forward_pre_hook(push)
        module.register_forward_hook(pop)
    with torch.no_grad():
        model(*inputs)
        torch.cuda.synchronize()
        naming[0] = True
        calls.clear()
        torch.cuda.nvtx.range_push(f"{name}_batch{batch}")
        model(*inputs)
        torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    print(f"ran {name} at batch {batch} ({precision}); {len(names)} NVTX-named modules")


if __name__ == "__main__":
    main()
