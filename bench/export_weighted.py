#!/usr/bin/env python3
"""Exports ResNet-50, MobileNetV2 and the BERT-base encoder WITH random weights for the executor
speed benchmark (the bundled models carry no weights, and ONNX Runtime needs them). Same classes
and export settings as tools/export_models.py. Usage: bench/export_weighted.py OUT_DIR
"""
import os
import sys

import torch
import torchvision

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import ridge_reference_models as ref  # noqa: E402


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    image = {"input": {0: "batch"}, "logits": {0: "batch"}}
    for name, model in [("resnet50", torchvision.models.resnet50()), ("mobilenet_v2", torchvision.models.mobilenet_v2())]:
        torch.onnx.export(model.eval(), (torch.randn(1, 3, 224, 224),), os.path.join(out, f"{name}.onnx"),
                          opset_version=17, input_names=["input"], output_names=["logits"], dynamic_axes=image,
                          do_constant_folding=True)
    bert = ref.BertEncoder().eval()
    ids = torch.randint(0, 30522, (2, 16))
    torch.onnx.export(bert, (ids, torch.ones(2, 16, dtype=torch.long)), os.path.join(out, "bert_base.onnx"),
                      opset_version=17, input_names=["input_ids", "attention_mask"],
                      output_names=["hidden_states", "pooled"],
                      dynamic_axes={"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"},
                                    "hidden_states": {0: "batch", 1: "seq"}, "pooled": {0: "batch"}},
                      do_constant_folding=True)


if __name__ == "__main__":
    main()
