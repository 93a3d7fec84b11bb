#!/usr/bin/env python3
"""Exports small versions of each bundled architecture WITH their weights, plus PyTorch's output.

The executor's whole-model check: tests/data/executor/<name>/ holds model.onnx (weights inside),
test_data_set_0/input_N.pb and output_N.pb (the ONNX test-data layout), where the outputs are
what PyTorch computed for those inputs in eval mode. ridge must reproduce them within fp32
tolerance. The models are the bundled architectures at small width and depth (so the files stay
small), built from torchvision's own blocks (Bottleneck, InvertedResidual, dense blocks,
Inception, VGG's make_layers, VisionTransformer) and tools/ridge_reference_models.py.

Uses only Debian's python3-torch, python3-torchvision and python3-onnx.
Usage: tools/export_executor_references.py [--out tests/data/executor]
"""
import argparse
import importlib
import os
import sys

import onnx
import torch
import torchvision
from onnx import numpy_helper
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ridge_reference_models as ref  # noqa: E402

tv = torchvision.models
googlenet_blocks = importlib.import_module("torchvision.models.googlenet")  # tv.googlenet is the builder
OPSET = 17


class SmallResNet(nn.Module):
    """ResNet-50's structure (stem, max-pool, four stages of torchvision Bottlenecks, avg-pool, fc), narrow."""

    def __init__(self, width=8, classes=10):
        super().__init__()
        Bottleneck = tv.resnet.Bottleneck
        self.stem = nn.Sequential(nn.Conv2d(3, width, 7, 2, 3, bias=False), nn.BatchNorm2d(width), nn.ReLU(inplace=True),
                                  nn.MaxPool2d(3, 2, 1))
        blocks, inplanes = [], width
        for i, planes in enumerate([width, 2 * width, 4 * width, 8 * width]):
            stride = 1 if i == 0 else 2
            down = nn.Sequential(nn.Conv2d(inplanes, planes * 4, 1, stride, bias=False), nn.BatchNorm2d(planes * 4))
            blocks.append(Bottleneck(inplanes, planes, stride, down))
            blocks.append(Bottleneck(planes * 4, planes))
            inplanes = planes * 4
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(inplanes, classes)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


class SmallAlexNet(nn.Module):
    """AlexNet's layer sequence (11x11/4 stem, max-pools, 3x3 convs, adaptive pool, dropout + fc), narrow."""

    def __init__(self, classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 11, 4, 2), nn.ReLU(), nn.MaxPool2d(3, 2), nn.Conv2d(16, 24, 5, padding=2), nn.ReLU(),
            nn.MaxPool2d(3, 2), nn.Conv2d(24, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(),
            nn.Conv2d(32, 24, 3, padding=1), nn.ReLU(), nn.MaxPool2d(3, 2))
        self.pool = nn.AdaptiveAvgPool2d((6, 6))
        self.classifier = nn.Sequential(nn.Dropout(), nn.Linear(24 * 36, 64), nn.ReLU(), nn.Dropout(), nn.Linear(64, 64),
                                        nn.ReLU(), nn.Linear(64, classes))

    def forward(self, x):
        return self.classifier(torch.flatten(self.pool(self.features(x)), 1))


class SmallVgg(nn.Module):
    """VGG-16's configuration (13 convs in 5 stages, max-pools) from torchvision's make_layers, narrow."""

    def __init__(self, classes=10):
        super().__init__()
        cfg = [8, 8, "M", 16, 16, "M", 16, 16, 16, "M", 32, 32, 32, "M", 32, 32, 32, "M"]
        self.features = tv.vgg.make_layers(cfg, batch_norm=False)
        self.classifier = nn.Sequential(nn.Linear(32 * 2 * 2, 32), nn.ReLU(), nn.Dropout(), nn.Linear(32, classes))

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


class SmallGoogLeNet(nn.Module):
    """GoogLeNet's pieces (stem, torchvision Inception blocks, max-pools, global pool, fc), narrow."""

    def __init__(self, classes=10):
        super().__init__()
        Inception = googlenet_blocks.Inception
        self.stem = nn.Sequential(googlenet_blocks.BasicConv2d(3, 16, kernel_size=7, stride=2, padding=3),
                                  nn.MaxPool2d(3, 2, ceil_mode=True))
        self.a = Inception(16, 8, 8, 16, 4, 8, 8)
        self.b = Inception(40, 16, 8, 16, 4, 8, 8)
        self.pool = nn.MaxPool2d(3, 2, ceil_mode=True)
        self.c = Inception(48, 16, 8, 16, 4, 8, 8)
        self.fc = nn.Linear(48, classes)

    def forward(self, x):
        x = self.c(self.pool(self.b(self.a(self.stem(x)))))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


def models():
    return {
        "resnet": (lambda: SmallResNet(), [torch.randn(2, 3, 64, 64)], ["input"], ["logits"]),
        "mobilenet_v2": (lambda: tv.mobilenet_v2(width_mult=0.25, num_classes=10), [torch.randn(2, 3, 64, 64)],
                         ["input"], ["logits"]),
        "densenet": (lambda: tv.DenseNet(growth_rate=8, block_config=(2, 2, 2, 2), num_init_features=16, bn_size=2,
                                         num_classes=10), [torch.randn(2, 3, 64, 64)], ["input"], ["logits"]),
        "googlenet": (lambda: SmallGoogLeNet(), [torch.randn(2, 3, 64, 64)], ["input"], ["logits"]),
        "alexnet": (lambda: SmallAlexNet(), [torch.randn(1, 3, 224, 224)], ["input"], ["logits"]),
        "vgg": (lambda: SmallVgg(), [torch.randn(2, 3, 64, 64)], ["input"], ["logits"]),
        "vit": (lambda: tv.VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32,
                                             mlp_dim=64, num_classes=10), [torch.randn(2, 3, 32, 32)], ["input"],
                ["logits"]),
        "bert": (lambda: ref.BertEncoder(vocab=100, hidden=32, layers=2, heads=2, ffn=64, max_positions=64),
                 [torch.randint(0, 100, (2, 12)), torch.tensor([[1] * 12, [1] * 9 + [0] * 3])],
                 ["input_ids", "attention_mask"], ["hidden_states", "pooled"]),
        "gpt2": (lambda: ref.Gpt2(vocab=100, width=32, layers=2, heads=2, max_positions=64),
                 [torch.randint(0, 100, (2, 10))], ["input_ids"], ["logits"]),
        "lstm": (lambda: ref.LstmClassifier(features=16, hidden=24, classes=5), [torch.randn(2, 7, 16)],
                 ["features"], ["logits"]),
        "yolo": (lambda: ref.YoloStyle(classes=3, width=4), [torch.randn(1, 3, 64, 64)], ["images"], ["predictions"]),
    }


def randomize(model):
    """Random BatchNorm statistics too, so folding and normalization are really exercised."""
    gen = torch.Generator().manual_seed(1)
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.copy_(torch.randn(m.num_features, generator=gen) * 0.1)
            m.running_var.copy_(torch.rand(m.num_features, generator=gen) + 0.5)
            m.weight.data.copy_(torch.rand(m.num_features, generator=gen) + 0.5)
            m.bias.data.copy_(torch.randn(m.num_features, generator=gen) * 0.1)
    return model


def save_tensor(array, path):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(array).SerializeToString())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "tests", "data", "executor"))
    args = parser.parse_args()
    torch.manual_seed(0)
    for name, (make, inputs, input_names, output_names) in models().items():
        model = randomize(make().eval())
        directory = os.path.join(args.out, name)
        data = os.path.join(directory, "test_data_set_0")
        os.makedirs(data, exist_ok=True)
        path = os.path.join(directory, "model.onnx")
        torch.onnx.export(model, tuple(inputs), path, opset_version=OPSET, input_names=input_names,
                          output_names=output_names, do_constant_folding=True)
        onnx.checker.check_model(onnx.load(path))
        with torch.no_grad():
            outputs = model(*inputs)
        if isinstance(outputs, torch.Tensor):
            outputs = (outputs,)
        for i, t in enumerate(inputs):
            save_tensor(t.numpy(), os.path.join(data, f"input_{i}.pb"))
        for i, t in enumerate(outputs):
            save_tensor(t.numpy(), os.path.join(data, f"output_{i}.pb"))
        size = os.path.getsize(path)
        print(f"{name}: {sum(p.numel() for p in model.parameters())} params, {size} bytes", flush=True)


if __name__ == "__main__":
    main()
