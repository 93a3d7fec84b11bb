#!/usr/bin/env python3
"""Exports TorchScript models with real control flow, with PyTorch's output: what the Loop, If and rewrite tests run.

torch.onnx.export of a scripted module keeps a Python `for` over a run-time size as an ONNX Loop and an `if` as an If
(a `for` over a constant range is unrolled by the exporter itself). Written to tests/data/executor/<name>/ in the
ONNX test-data layout (model.onnx, test_data_set_0/input_N.pb and output_N.pb), as tools/export_executor_references.py
writes the bundled architectures:
- scripted_loop: h = x; for i in range(steps.size(0)): h = 2h if i == 0 else tanh(h); for j in range(steps.size(1)):
  h = linear(h) * (i + 1). A Loop whose body holds an If on its iteration number and a Loop of its own, both trip
  counts read from `steps`' shape.
- scripted_list: the same loop collecting each iteration's h in a Python list and stacking it, which the exporter
  writes with ONNX's sequence ops (SequenceConstruct, then a SequenceInsert per iteration into a sequence the Loop
  carries, and ConcatFromSequence after it).
And a training step of each in tools/export_training_references.py's layout (tests/data/training/scripted_loop/ and
scripted_list/: model.onnx, input_N.pb, loss.pb as the sum of mean(output^2), grad_K.pb per parameter, named as its
initializer), which the training steps run through the loops and the sequences (the CPU's) and their rewrite (the
GPU's).

Uses only Debian's python3-torch and python3-onnx.
Usage: tools/export_scripted_references.py [--out tests/data/executor] [--training-out tests/data/training]
"""
import argparse
import os
import sys

import onnx
import torch
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_executor_references import save_tensor  # noqa: E402  (the test-data layout, written one way)
import export_training_references as training  # noqa: E402

OPSET = 17


class ScriptedLoop(nn.Module):
    def __init__(self, collect: bool):
        super().__init__()
        self.linear = nn.Linear(3, 3)
        self.collect = collect

    def forward(self, x, steps):
        h = x
        outs = [h]
        for i in range(steps.size(0)):
            if i == 0:
                h = h * 2.0
            else:
                h = torch.tanh(h)
            for j in range(steps.size(1)):
                h = self.linear(h) * float(i + 1)
            if self.collect:
                outs.append(h)
        if self.collect:
            return torch.stack(outs)
        return h


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(__file__)
    parser.add_argument("--out", default=os.path.join(here, "..", "tests", "data", "executor"))
    parser.add_argument("--training-out", default=os.path.join(here, "..", "tests", "data", "training"))
    args = parser.parse_args()
    torch.manual_seed(0)
    inputs = (torch.randn(2, 3), torch.zeros(3, 2))
    for name, collect in (("scripted_loop", False), ("scripted_list", True)):
        model = torch.jit.script(ScriptedLoop(collect).eval())
        directory = os.path.join(args.out, name)
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, "model.onnx")
        torch.onnx.export(model, inputs, path, opset_version=OPSET, input_names=["x", "steps"],
                          output_names=["y"], dynamic_axes={"steps": {0: "outer", 1: "inner"}})
        onnx.checker.check_model(onnx.load(path))
        data = os.path.join(directory, "test_data_set_0")
        os.makedirs(data, exist_ok=True)
        with torch.no_grad():
            output = model(*inputs)
        for i, t in enumerate(inputs):
            save_tensor(t.numpy(), os.path.join(data, f"input_{i}.pb"))
        save_tensor(output.numpy(), os.path.join(data, "output_0.pb"))
        print(f"{name}: {os.path.getsize(path)} bytes", flush=True)

    # The training steps: the same modules, exported without folding so each initializer is a parameter by its name.
    for name, collect in (("scripted_loop", False), ("scripted_list", True)):
        module = ScriptedLoop(collect)
        directory = os.path.join(args.training_out, name)
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, "model.onnx")
        torch.onnx.export(torch.jit.script(module), inputs, path, opset_version=OPSET, input_names=["x", "steps"],
                          output_names=["y"], dynamic_axes={"steps": {0: "outer", 1: "inner"}},
                          do_constant_folding=False)
        onnx.checker.check_model(onnx.load(path))
        loss = module(*inputs).pow(2).mean()
        module.zero_grad()
        loss.backward()
        for i, t in enumerate(inputs):
            training.save_tensor(t, os.path.join(directory, f"input_{i}.pb"))
        training.save_tensor(loss.detach().reshape(()), os.path.join(directory, "loss.pb"), "loss")
        for k, (n, p) in enumerate(module.named_parameters()):
            training.save_tensor(p.grad, os.path.join(directory, f"grad_{k}.pb"), n)
        print(f"{name} training: loss {loss.item():.6g}, {os.path.getsize(path)} bytes", flush=True)


if __name__ == "__main__":
    main()
