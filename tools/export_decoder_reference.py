#!/usr/bin/env python3
"""Writes one decode step of a Llama-style decoder layer as an ONNX opset 24 graph, with PyTorch's outputs.

Debian's PyTorch (1.13) and onnx (1.12) predate opset 23 and 24, so the graph is written node by node with
onnx.helper, and PyTorch computes the same step in its own terms (Hugging Face's rotate_half form of the rotary
embedding, the key/value cache written by indexing, attention as matmuls, a boolean mask and a softmax), which is the
reference the executor is held to. The layer, for a batch of 2 sequences, each one new token at its own position:
- RMSNormalization (opset 23), then the query, key and value projections (64 -> 64, 32, 32);
- RotaryEmbedding (opset 23) of the queries (4 heads of 16) and keys (2 heads), at each sequence's position;
- TensorScatter (opset 24) of the new key and value into fixed caches of 16 tokens, at each sequence's write index;
- Attention (opset 24): grouped-query, causal, over the cache's first write_index + 1 keys (nonpad_kv_seqlen);
- the output projection and the residual; RMSNormalization, then a SwiGLU MLP (Swish, opset 24) and its residual.
Outputs: the layer's output and the present key and value caches. Written to tests/data/executor/decoder_step/ in
the ONNX test-data layout (model.onnx, test_data_set_0/input_N.pb and output_N.pb).

Uses only Debian's python3-torch and python3-onnx.
Usage: tools/export_decoder_reference.py [--out tests/data/executor]
"""
import argparse
import os
import sys

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_executor_references import save_tensor  # noqa: E402  (the test-data layout, written one way)

BATCH, HIDDEN, HEADS, KV_HEADS, HEAD, CACHE, MLP = 2, 64, 4, 2, 16, 16, 128
EPS = 1e-5


def rms_norm(x, weight):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS) * weight


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def rope(x, cos, sin, positions):  # x [B, heads, 1, head]; cos, sin [positions, head / 2]
    c = torch.cat([cos[positions], cos[positions]], dim=-1).unsqueeze(1)  # [B, 1, 1, head]
    s = torch.cat([sin[positions], sin[positions]], dim=-1).unsqueeze(1)
    return x * c + rotate_half(x) * s


def reference(w, x, past_k, past_v, write):
    h = rms_norm(x, w["norm1"])
    q = (h @ w["wq"]).reshape(BATCH, 1, HEADS, HEAD).transpose(1, 2)
    k = (h @ w["wk"]).reshape(BATCH, 1, KV_HEADS, HEAD).transpose(1, 2)
    v = (h @ w["wv"]).reshape(BATCH, 1, KV_HEADS, HEAD).transpose(1, 2)
    positions = write.reshape(BATCH, 1)
    q = rope(q, w["cos"], w["sin"], positions)
    k = rope(k, w["cos"], w["sin"], positions)
    present_k, present_v = past_k.clone(), past_v.clone()
    for b in range(BATCH):
        present_k[b, :, write[b]] = k[b, :, 0]
        present_v[b, :, write[b]] = v[b, :, 0]
    keys = present_k.repeat_interleave(HEADS // KV_HEADS, dim=1)
    values = present_v.repeat_interleave(HEADS // KV_HEADS, dim=1)
    scores = q @ keys.transpose(-1, -2) / HEAD ** 0.5
    visible = torch.arange(CACHE).reshape(1, 1, 1, CACHE) <= write.reshape(BATCH, 1, 1, 1)
    scores = scores.masked_fill(~visible, float("-inf"))
    attended = (torch.softmax(scores, dim=-1) @ values).transpose(1, 2).reshape(BATCH, 1, HIDDEN)
    x = x + attended @ w["wo"]
    h = rms_norm(x, w["norm2"])
    y = x + (torch.nn.functional.silu(h @ w["gate"]) * (h @ w["up"])) @ w["down"]
    return y, present_k, present_v


def graph(w):
    inits = [numpy_helper.from_array(t.numpy(), name) for name, t in w.items()]
    inits += [numpy_helper.from_array(np.array(v, dtype=np.int64), n) for n, v in (
        ("one", 1), ("axis1", [1]), ("q_shape", [BATCH, 1, HEADS, HEAD]), ("kv_shape", [BATCH, 1, KV_HEADS, HEAD]),
        ("hidden_shape", [BATCH, 1, HIDDEN]))]
    n = helper.make_node
    nodes = [
        n("RMSNormalization", ["x", "norm1"], ["h1"], name="norm1", epsilon=EPS),
        n("MatMul", ["h1", "wq"], ["q_flat"], name="q_proj"),
        n("MatMul", ["h1", "wk"], ["k_flat"], name="k_proj"),
        n("MatMul", ["h1", "wv"], ["v_flat"], name="v_proj"),
        n("Reshape", ["q_flat", "q_shape"], ["q_split"], name="q_split"),
        n("Reshape", ["k_flat", "kv_shape"], ["k_split"], name="k_split"),
        n("Reshape", ["v_flat", "kv_shape"], ["v_split"], name="v_split"),
        n("Transpose", ["q_split"], ["q_heads"], name="q_heads", perm=[0, 2, 1, 3]),
        n("Transpose", ["k_split"], ["k_heads"], name="k_heads", perm=[0, 2, 1, 3]),
        n("Transpose", ["v_split"], ["v_heads"], name="v_heads", perm=[0, 2, 1, 3]),
        n("Unsqueeze", ["write_index", "axis1"], ["positions"], name="positions"),
        n("RotaryEmbedding", ["q_heads", "cos", "sin", "positions"], ["q_rot"], name="q_rope"),
        n("RotaryEmbedding", ["k_heads", "cos", "sin", "positions"], ["k_rot"], name="k_rope"),
        n("TensorScatter", ["past_key", "k_rot", "write_index"], ["present_key"], name="k_cache"),
        n("TensorScatter", ["past_value", "v_heads", "write_index"], ["present_value"], name="v_cache"),
        n("Add", ["write_index", "one"], ["valid_keys"], name="valid_keys"),
        n("Attention", ["q_rot", "present_key", "present_value", "", "", "", "valid_keys"], ["attended"],
          name="attention", is_causal=1),
        n("Transpose", ["attended"], ["attended_tokens"], name="merge_heads", perm=[0, 2, 1, 3]),
        n("Reshape", ["attended_tokens", "hidden_shape"], ["attended_flat"], name="merge"),
        n("MatMul", ["attended_flat", "wo"], ["o"], name="o_proj"),
        n("Add", ["x", "o"], ["x2"], name="residual1"),
        n("RMSNormalization", ["x2", "norm2"], ["h2"], name="norm2", epsilon=EPS),
        n("MatMul", ["h2", "gate"], ["gate_out"], name="gate_proj"),
        n("MatMul", ["h2", "up"], ["up_out"], name="up_proj"),
        n("Swish", ["gate_out"], ["gate_act"], name="silu"),
        n("Mul", ["gate_act", "up_out"], ["mlp_hidden"], name="swiglu"),
        n("MatMul", ["mlp_hidden", "down"], ["mlp_out"], name="down_proj"),
        n("Add", ["x2", "mlp_out"], ["y"], name="residual2"),
    ]
    cache = [BATCH, KV_HEADS, CACHE, HEAD]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [BATCH, 1, HIDDEN]),
              helper.make_tensor_value_info("past_key", TensorProto.FLOAT, cache),
              helper.make_tensor_value_info("past_value", TensorProto.FLOAT, cache),
              helper.make_tensor_value_info("write_index", TensorProto.INT64, [BATCH])]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [BATCH, 1, HIDDEN]),
               helper.make_tensor_value_info("present_key", TensorProto.FLOAT, cache),
               helper.make_tensor_value_info("present_value", TensorProto.FLOAT, cache)]
    g = helper.make_graph(nodes, "decoder_step", inputs, outputs, inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 24)], producer_name="ridge")
    model.ir_version = 10  # opset 24's; onnx 1.12's checker knows neither, so the model is not checked here
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "tests", "data", "executor"))
    args = parser.parse_args()
    torch.manual_seed(0)
    scale = 0.15
    w = {"norm1": 1 + 0.1 * torch.randn(HIDDEN), "norm2": 1 + 0.1 * torch.randn(HIDDEN),
         "wq": scale * torch.randn(HIDDEN, HEADS * HEAD), "wk": scale * torch.randn(HIDDEN, KV_HEADS * HEAD),
         "wv": scale * torch.randn(HIDDEN, KV_HEADS * HEAD), "wo": scale * torch.randn(HEADS * HEAD, HIDDEN),
         "gate": scale * torch.randn(HIDDEN, MLP), "up": scale * torch.randn(HIDDEN, MLP),
         "down": scale * torch.randn(MLP, HIDDEN)}
    inv_freq = 1.0 / (10000.0 ** (torch.arange(0, HEAD, 2, dtype=torch.float64) / HEAD))
    angles = torch.arange(CACHE, dtype=torch.float64).reshape(-1, 1) * inv_freq.reshape(1, -1)
    w["cos"], w["sin"] = angles.cos().float(), angles.sin().float()
    x = torch.randn(BATCH, 1, HIDDEN)
    past_k, past_v = torch.randn(BATCH, KV_HEADS, CACHE, HEAD), torch.randn(BATCH, KV_HEADS, CACHE, HEAD)
    write = torch.tensor([5, 11], dtype=torch.int64)  # each sequence's new token: its position and cache slot
    with torch.no_grad():
        outputs = reference(w, x, past_k, past_v, write)
    directory = os.path.join(args.out, "decoder_step")
    data = os.path.join(directory, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    path = os.path.join(directory, "model.onnx")
    onnx.save(graph(w), path)
    for i, t in enumerate((x, past_k, past_v, write)):
        save_tensor(t.numpy(), os.path.join(data, f"input_{i}.pb"))
    for i, t in enumerate(outputs):
        save_tensor(t.numpy(), os.path.join(data, f"output_{i}.pb"))
    print(f"decoder_step: {os.path.getsize(path)} bytes", flush=True)


if __name__ == "__main__":
    main()
