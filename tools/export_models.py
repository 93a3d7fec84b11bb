#!/usr/bin/env python3
"""Exports ridge's bundled models to weightless ONNX files, plus independent reference counts.

Uses only Debian's python3-torch, python3-torchvision and python3-onnx. Every model gets random
weights (nothing is downloaded); the weights are written to external data and the data file is
deleted, so the committed .onnx files hold the graph, shapes and small constants only.

models/reference.json records, per model, figures measured on the PyTorch model itself:
  params        sum of p.numel() over model.parameters()
  bn_channels   channels of all BatchNorm layers
  bn_folded_channels  channels of the BatchNorm layers the exporter folded into the convolution
                before them (read from the exported graph: BatchNorm channels minus those of the
                BatchNormalization nodes left in it, e.g. DenseNet's pre-activation norms)
  macs          {"B", "B,S" or "B,HxW": multiply-accumulates of convolution / matmul / linear ops
                 counted by intercepting the aten ops PyTorch actually runs (TorchDispatchMode);
                 "B" alone is the default input size, "B,HxW" another one (spatially dynamic models)}

Training exports (NAME_train.onnx, of TRAINING_EXPORTS) keep what an inference export folds or drops:
every BatchNormalization in training mode (batch statistics, running averages as outputs) and every
Dropout with its training_mode input true, so a training step analyzed or run on them is the network
people train. Their reference records bn_folded_channels 0.

The vision models are exported with symbolic "height" and "width" where the model takes any size
(see FIXED_SIZE for those that cannot), their default (224; YOLO 640) stored in the file's
metadata_props as ridge.default_dims = "height=224,width=224".

Usage: tools/export_models.py [--out models] [--only NAME ...]
"""
import argparse
import json
import os
import sys

import onnx
import torch
import torchvision
from torch.utils._python_dispatch import TorchDispatchMode

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ridge_reference_models as ref  # noqa: E402

OPSET = 17
DEFAULT_DIMS_KEY = "ridge.default_dims"  # read by ridge's shape::bind_inputs
aten = torch.ops.aten


def numel(shape):
    n = 1
    for d in shape:
        n *= int(d)
    return n


class MacCounter(TorchDispatchMode):
    """Counts multiply-accumulates of the matrix and convolution kernels PyTorch dispatches."""

    def __init__(self):
        super().__init__()
        self.macs = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        packet = func.overloadpacket
        if packet in (aten.mm, aten.addmm):
            a, b = (args[0], args[1]) if packet is aten.mm else (args[1], args[2])
            self.macs += a.shape[0] * a.shape[1] * b.shape[1]
        elif packet in (aten.bmm, aten.baddbmm):
            a, b = (args[0], args[1]) if packet is aten.bmm else (args[1], args[2])
            self.macs += a.shape[0] * a.shape[1] * a.shape[2] * b.shape[2]
        elif packet is aten.convolution:
            x, w = args[0], args[1]
            transposed, groups = args[6], args[8]
            if transposed:
                self.macs += numel(x.shape) * w.shape[1] * numel(w.shape[2:])
            else:
                self.macs += numel(out.shape) * (w.shape[1]) * numel(w.shape[2:])
        return out


def count_macs(model, inputs):
    counter = MacCounter()
    # Gradients stay enabled: under no_grad nn.MultiheadAttention takes a fused fast path whose
    # inner matrix products are not dispatched as separate aten ops, so they would go uncounted.
    with counter:
        model(*inputs)
    return counter.macs


def randomize(model):
    """Distinct random values everywhere, so the exporter deduplicates no initializers."""
    gen = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for name, tensor in list(model.named_parameters()) + list(model.named_buffers()):
            if not tensor.dtype.is_floating_point:
                continue
            if "running_var" in name:
                tensor.copy_(torch.rand(tensor.shape, generator=gen) + 0.5)
            else:
                tensor.copy_(torch.randn(tensor.shape, generator=gen) * 0.05)
    return model


def strip_weights(path, default_dims=None):
    model = onnx.load(path)
    if default_dims:
        entry = model.metadata_props.add()
        entry.key = DEFAULT_DIMS_KEY
        entry.value = ",".join(f"{k}={v}" for k, v in default_dims.items())
    data_name = os.path.basename(path) + ".data"
    onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
                    location=data_name, size_threshold=1024)
    os.remove(os.path.join(os.path.dirname(path), data_name))


def unfolded_bn_channels(path):
    model = onnx.load(path, load_external_data=False)
    shapes = {t.name: list(t.dims) for t in model.graph.initializer}
    return sum(shapes[n.input[1]][0] for n in model.graph.node if n.op_type == "BatchNormalization")


def export(model, inputs, path, input_names, output_names, dynamic_axes, default_dims=None, training=False):
    """Exports, strips the weights, returns the channels of BatchNorms left unfolded.

    default_dims ({"height": 224, ...}) is stored in the file's metadata_props under
    ridge.default_dims: ridge binds those symbolic dims to it when the user names no value.
    training exports the model in training mode (TrainingMode.TRAINING): nothing is folded."""
    mode = torch.onnx.TrainingMode.TRAINING if training else torch.onnx.TrainingMode.EVAL
    torch.onnx.export(model, inputs, path, opset_version=OPSET, input_names=input_names,
                      output_names=output_names, dynamic_axes=dynamic_axes, training=mode,
                      do_constant_folding=not training)
    unfolded = unfolded_bn_channels(path)
    strip_weights(path, default_dims)
    return unfolded


def image_axes(input_name, output_name, spatial):
    """Dynamic batch, and dynamic height and width where the model takes any size."""
    axes = {input_name: {0: "batch"}, output_name: {0: "batch"}}
    if spatial:
        axes[input_name].update({2: "height", 3: "width"})
    return axes


def torchvision_models():
    tv = torchvision.models
    return {
        "resnet50": lambda: tv.resnet50(),
        "resnet152": lambda: tv.resnet152(),
        "vgg16": lambda: tv.vgg16(),
        "mobilenet_v2": lambda: tv.mobilenet_v2(),
        "densenet121": lambda: tv.densenet121(),
        "googlenet": lambda: tv.googlenet(aux_logits=False, init_weights=True),
        "alexnet": lambda: tv.alexnet(),
        "vit_b_16": lambda: tv.vit_b_16(),
    }


# Models exported with fixed H and W, and why. The rest get symbolic "height" and "width" (default
# 224, stored in the file) and accept any size that survives their strides.
FIXED_SIZE = {
    # AdaptiveAvgPool2d to 6x6 / 7x7 before the classifier: ONNX has no adaptive pooling, so the
    # exporter needs the input size ("input size not accessible" otherwise), and the Linear layers
    # take 256*6*6 / 512*7*7 features, which fixes H and W.
    "alexnet": "adaptive average pooling to 6x6 before the classifier",
    "vgg16": "adaptive average pooling to 7x7 before the classifier",
    # Learned position embeddings for exactly 14x14 patches of 16x16 pixels.
    "vit_b_16": "position embeddings for 14x14 patches",
}

# Torchvision models also exported for training (NAME_train.onnx): the networks the training studies
# measure (fixed-iteration training of ResNet-50, VGG-16, MobileNetV2).
TRAINING_EXPORTS = ["resnet50", "vgg16", "mobilenet_v2"]

# Extra input sizes (batch, height, width) at which the MACs of spatially dynamic models are recorded,
# as "B,HxW" keys next to "B" (batch B at the default size).
EXTRA_SIZES = {
    "default": [(1, 320, 320), (2, 256, 192)],
    "yolo_style": [(1, 320, 320), (1, 512, 384)],
}

def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "models"))
    parser.add_argument("--only", nargs="*")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    ref_path = os.path.join(args.out, "reference.json")
    reference = json.load(open(ref_path)) if os.path.exists(ref_path) else {}
    torch.manual_seed(0)

    def wanted(name):
        return not args.only or name in args.only

    def record(name, model, macs, unfolded_bn):
        bn_channels = sum(m.num_features for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d))
        reference[name] = {
            "params": sum(p.numel() for p in model.parameters()),
            "bn_channels": bn_channels,
            "bn_folded_channels": bn_channels - unfolded_bn,
            "macs": macs,
        }
        print(f"{name}: {reference[name]['params']} params", flush=True)

    for name, make in torchvision_models().items():
        if not wanted(name):
            continue
        model = randomize(make().eval())
        x = torch.randn(1, 3, 224, 224)
        spatial = name not in FIXED_SIZE
        unfolded = export(model, (x,), os.path.join(args.out, f"{name}.onnx"), ["input"], ["logits"],
                          image_axes("input", "logits", spatial),
                          {"height": 224, "width": 224} if spatial else None)
        macs = {"1": count_macs(model, (x,))}
        if spatial:
            for b, h, w in EXTRA_SIZES["default"]:
                macs[f"{b},{h}x{w}"] = count_macs(model, (torch.randn(b, 3, h, w),))
        record(name, model, macs, unfolded)

    for base in TRAINING_EXPORTS:
        name = base + "_train"
        if not wanted(name):
            continue
        model = randomize(torchvision_models()[base]().train())
        x = torch.randn(2, 3, 224, 224)  # batch 2: a training-mode BatchNorm needs more than one value per channel
        spatial = base not in FIXED_SIZE
        unfolded = export(model, (x,), os.path.join(args.out, f"{name}.onnx"), ["input"], ["logits"],
                          image_axes("input", "logits", spatial),
                          {"height": 224, "width": 224} if spatial else None, training=True)
        # MACs in eval mode: the same products, without Dropout's random masks (no MACs either way)
        macs = {"1": count_macs(model.eval(), (x[:1],))}
        record(name, model, macs, unfolded)

    seq_points = [(1, 128), (2, 64), (4, 384)]
    if wanted("bert_base"):
        model = randomize(ref.BertEncoder().eval())
        macs = {}
        for b, s in seq_points:
            ids = torch.randint(0, 30522, (b, s))
            macs[f"{b},{s}"] = count_macs(model, (ids, torch.ones(b, s, dtype=torch.long)))
        ids = torch.randint(0, 30522, (2, 16))
        unfolded = export(model, (ids, torch.ones(2, 16, dtype=torch.long)), os.path.join(args.out, "bert_base.onnx"),
               ["input_ids", "attention_mask"], ["hidden_states", "pooled"],
               {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"},
                "hidden_states": {0: "batch", 1: "seq"}, "pooled": {0: "batch"}})
        record("bert_base", model, macs, unfolded)

    if wanted("gpt2_tiny"):
        model = randomize(ref.Gpt2(vocab=1000, width=128, layers=2, heads=4, max_positions=256).eval())
        macs = {}
        for b, s in [(1, 32), (3, 100), (2, 256)]:
            macs[f"{b},{s}"] = count_macs(model, (torch.randint(0, 1000, (b, s)),))
        unfolded = export(model, (torch.randint(0, 1000, (1, 8)),), os.path.join(args.out, "gpt2_tiny.onnx"),
                          ["input_ids"], ["logits"],
                          {"input_ids": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"}})
        record("gpt2_tiny", model, macs, unfolded)

    if wanted("lstm_2layer"):
        model = randomize(ref.LstmClassifier().eval())
        unfolded = export(model, (torch.randn(1, 50, 64),), os.path.join(args.out, "lstm_2layer.onnx"),
                          ["features"], ["logits"], {"features": {0: "batch", 1: "seq"}, "logits": {0: "batch"}})
        record("lstm_2layer", model, {}, unfolded)

    if wanted("yolo_style"):
        model = randomize(ref.YoloStyle().eval())
        x = torch.randn(1, 3, 640, 640)
        axes = image_axes("images", "predictions", True)
        axes["predictions"][1] = "boxes"  # 3 anchors per cell of the three heads' grids
        unfolded = export(model, (x,), os.path.join(args.out, "yolo_style.onnx"), ["images"], ["predictions"],
                          axes, {"height": 640, "width": 640})
        macs = {"1": count_macs(model, (x,))}
        for b, h, w in EXTRA_SIZES["yolo_style"]:
            macs[f"{b},{h}x{w}"] = count_macs(model, (torch.randn(b, 3, h, w),))
        record("yolo_style", model, macs, unfolded)

    with open(ref_path, "w") as f:
        json.dump(reference, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
