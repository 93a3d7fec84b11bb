#!/usr/bin/env python3
"""The peer of `ridge bench --device cuda --training` (issue 30): one PyTorch training step of the networks ridge's
training exports hold (torchvision's ResNet-50, VGG-16 and MobileNetV2 in train mode: BatchNorm with batch
statistics, Dropout kept), random weights, the loss ridge trains with (the mean of the squared outputs), backward,
and an optimizer step (SGD, or SGD with momentum 0.9, or Adam, as ridge's), timed with CUDA events: 3 warm-up
steps, then the median of at least 10. One JSON line per model, batch and configuration:
  fp32 (TF32 off), tf32, amp (torch.autocast fp16 with a GradScaler: fp32 master weights, dynamic loss scaling), and
  amp-channels-last (the same with the model and its input in torch.channels_last).
Usage: torch_gpu_train_peer.py OUT.jsonl MODEL:BATCH[,BATCH...] ...
PEER_CONFIGS=fp32,amp (comma-separated) measures only those; PEER_OPTIMIZER=sgd|momentum|adam (default sgd)."""
import json
import os
import statistics
import sys
import time

import torch
import torchvision

CONFIGS = ["fp32", "tf32", "amp", "amp-channels-last"]


def optimizer_for(name, params, lr=1e-3):
    if name == "adam":
        return torch.optim.Adam(params, lr=lr)
    return torch.optim.SGD(params, lr=lr, momentum=0.9 if name == "momentum" else 0.0)


def measure(name, batch, config, optimizer_name, min_runs=10, seconds=1.0):
    torch.manual_seed(0)
    torch.backends.cuda.matmul.allow_tf32 = config == "tf32"
    torch.backends.cudnn.allow_tf32 = config == "tf32"
    amp = config.startswith("amp")
    model = getattr(torchvision.models, name)(weights=None).cuda().train()
    x = torch.randn(batch, 3, 224, 224, device="cuda")
    if config.endswith("channels-last"):
        model = model.to(memory_format=torch.channels_last)
        x = x.to(memory_format=torch.channels_last)
    opt = optimizer_for(optimizer_name, model.parameters())
    scaler = torch.amp.GradScaler("cuda") if amp else None

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.float16, enabled=amp):
            loss = model(x).float().pow(2).mean()
        if scaler:
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        else:
            loss.backward()
            opt.step()
        return loss

    for _ in range(3):
        step()
    torch.cuda.synchronize()
    samples = []
    start = time.perf_counter()
    while len(samples) < min_runs or (time.perf_counter() - start < seconds and len(samples) < 200):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        loss = step()
        b.record()
        b.synchronize()
        samples.append(a.elapsed_time(b))
        float(loss)  # the loss read back each step, as ridge's step does
    return {"model": name, "batch": batch, "config": config, "optimizer": optimizer_name,
            "median_ms": statistics.median(samples), "mean_ms": statistics.mean(samples), "samples": len(samples),
            "peak_memory_bytes": torch.cuda.max_memory_allocated(), "torch": torch.__version__,
            "device": torch.cuda.get_device_name()}


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    configs = os.environ.get("PEER_CONFIGS", ",".join(CONFIGS)).split(",")
    optimizer_name = os.environ.get("PEER_OPTIMIZER", "sgd")
    with open(sys.argv[1], "a") as out:
        for spec in sys.argv[2:]:
            name, batches = spec.split(":")
            for batch in (int(b) for b in batches.split(",")):
                for config in configs:
                    torch.cuda.reset_peak_memory_stats()
                    try:
                        row = measure(name, batch, config, optimizer_name)
                    except Exception as e:  # noqa: BLE001 - a point that fails is named, the rest go on
                        row = {"model": name, "batch": batch, "config": config, "error": str(e).splitlines()[0]}
                    out.write(json.dumps(row) + "\n")
                    out.flush()
                    print(json.dumps(row), file=sys.stderr)
                    torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
