#!/usr/bin/env python3
"""Exports reference training steps: small weighted models with PyTorch's loss, gradients and updated weights.

The training step's check (issue 30): tests/data/training/<name>/ holds
  model.onnx        a small version of a bundled architecture (tools/export_executor_references.py's models)
                    exported in training mode: nothing folded, every BatchNorm with batch statistics, so each
                    ONNX initializer is one PyTorch parameter (or BatchNorm running statistic) of the same name
  input_N.pb        the inputs (ONNX TensorProto)
  loss.pb           PyTorch's loss: the sum over float outputs of mean(output^2), ridge's stand-in loss
  grad_K.pb         the gradient of each trained parameter, named as its initializer (an SGD step's update is
                    learning rate x this gradient: the test checks ridge's update against it)
Dropout's ratio is set to 0, so the step is deterministic (its masks are random draws in both frameworks).
ridge's CPU training step (and a GPU one) must reproduce the loss and gradients: tests/exec/test_training_step.cpp.

Uses only Debian's python3-torch, python3-torchvision and python3-onnx.
Usage: tools/export_training_references.py [--out tests/data/training]
"""
import argparse
import copy
import os
import sys

import onnx
import torch
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_executor_references as executor  # noqa: E402

OPSET = 17
# BatchNorm in training mode, residuals, depthwise convolutions, max-pools and fully connected layers;
# embeddings, LayerNorm, attention and GELU; a recurrent layer; a dense block's concatenations and its transitions'
# padded pools; SiLU and nearest upsampling; a class token expanded over the batch; a fused qkv projection split in
# three and a causal mask through Where.
MODELS = ["resnet", "mobilenet_v2", "vgg", "bert", "lstm", "densenet", "yolo", "vit", "gpt2"]


def save_tensor(tensor, path, name=None):
    proto = numpy_helper.from_array(tensor.detach().numpy())
    if name:
        proto.name = name
    with open(path, "wb") as f:
        f.write(proto.SerializeToString())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "tests", "data", "training"))
    args = parser.parse_args()
    torch.manual_seed(0)
    every = executor.models()
    for name in MODELS:
        make, inputs, input_names, output_names = every[name]
        if name == "yolo":
            # Two images, not the executor reference's one: batch statistics over a single image's 4x4 maps in the
            # last stages make gradients that fp32 reassociation moves by more than the test's 1e-3.
            inputs = [torch.randn(2, 3, 64, 64)]
        model = executor.randomize(make())
        # torchvision's ViT starts its head and class token at zeros: the loss would be 0 and no gradient would reach
        # the layers before the head. Small random values instead (no other model has a parameter of all zeros).
        with torch.no_grad():
            for p in model.parameters():
                if p.dim() >= 2 and not p.any():
                    p.normal_(0.0, 0.5)
        for m in model.modules():
            if isinstance(m, torch.nn.Dropout):
                m.p = 0.0
        model.train()
        directory = os.path.join(args.out, name)
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, "model.onnx")
        # Exporting runs the model, which moves BatchNorm's running statistics: export a copy, so the file holds
        # the weights the step below starts from.
        torch.onnx.export(copy.deepcopy(model), tuple(inputs), path, opset_version=OPSET, input_names=input_names,
                          output_names=output_names, training=torch.onnx.TrainingMode.TRAINING,
                          do_constant_folding=False)
        onnx.checker.check_model(onnx.load(path))
        initializers = {t.name for t in onnx.load(path).graph.initializer}
        params = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
        missing = [n for n, _ in params if n not in initializers]
        if missing:
            sys.exit(f"{name}: parameters not in the export under their own names: {missing[:5]}")
        outputs = model(*inputs)
        if isinstance(outputs, torch.Tensor):
            outputs = (outputs,)
        loss = sum(o.float().pow(2).mean() for o in outputs if o.is_floating_point())
        model.zero_grad()
        loss.backward()
        for i, t in enumerate(inputs):
            save_tensor(t, os.path.join(directory, f"input_{i}.pb"))
        save_tensor(loss.detach().reshape(()), os.path.join(directory, "loss.pb"), "loss")
        k = 0
        for n, p in params:
            if p.grad is None:
                continue
            save_tensor(p.grad, os.path.join(directory, f"grad_{k}.pb"), n)
            k += 1
        size = os.path.getsize(path)
        print(f"{name}: loss {loss.item():.6g}, {k} gradients, {size} bytes", flush=True)


if __name__ == "__main__":
    main()
