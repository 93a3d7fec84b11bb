#!/usr/bin/env python3
"""Makes the real torch.profiler fixtures of tests/test_torch_trace.cpp (run by hand, not by CI).

A tiny CNN (conv/relu/pool twice, then a linear layer) on a 1x3x16x16 input, profiled on the CPU
for a few steps with a schedule (ProfilerStep#N annotations), record_shapes and with_modules, and
exported as a Chrome trace (once plain, once with each leaf module in a record_function range named
by its path); the same model exported to ONNX so the layer mapping is tested on a
real pair. Run from the repository root with Debian's python3-torch and python3-onnx:

    /usr/bin/python3 tests/data/torch_trace/make_traces.py
"""
import os

import torch
from torch import nn
from torch.profiler import ProfilerActivity, profile, record_function, schedule

HERE = os.path.dirname(os.path.abspath(__file__))


class TinyCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, 3, padding=1)
        self.relu1 = nn.ReLU()
        self.pool1 = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(4, 8, 3, padding=1)
        self.relu2 = nn.ReLU()
        self.pool2 = nn.MaxPool2d(2)
        self.fc = nn.Linear(8 * 4 * 4, 10)

    def forward(self, x):
        x = self.pool1(self.relu1(self.conv1(x)))
        x = self.pool2(self.relu2(self.conv2(x)))
        return self.fc(torch.flatten(x, 1))


def annotate_modules(model):
    """record_function ranges named by each leaf module's path ("conv1", "fc"), as users write them."""
    ranges = {}

    def enter(module, _inputs):
        ranges[module] = record_function(module.ridge_path)
        ranges[module].__enter__()

    def leave(module, _inputs, _output):
        ranges.pop(module).__exit__(None, None, None)

    for path, module in model.named_modules():
        if path and not list(module.children()):
            module.ridge_path = path
            module.register_forward_pre_hook(enter)
            module.register_forward_hook(leave)


def trace(model, x, path, steps=3):
    with torch.no_grad(), profile(activities=[ProfilerActivity.CPU], record_shapes=True, with_modules=True,
                                  schedule=schedule(wait=0, warmup=1, active=steps, repeat=1)) as prof:
        for _ in range(1 + steps):
            with record_function("forward"):
                model(x)
            prof.step()
    prof.export_chrome_trace(path)


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = TinyCnn().eval()
    x = torch.randn(1, 3, 16, 16)
    torch.onnx.export(model, x, os.path.join(HERE, "tiny_cnn.onnx"), input_names=["input"],
                      output_names=["logits"], opset_version=13)
    # Plain: only the ops (and a "forward" range); layers are found by op type and order.
    trace(model, x, os.path.join(HERE, "tiny_cnn_cpu.json"))
    # Each leaf module inside a record_function range named by its path.
    annotate_modules(model)
    trace(model, x, os.path.join(HERE, "tiny_cnn_modules_cpu.json"))


if __name__ == "__main__":
    main()
