#pragma once
// ONNX's Attention op (opset 23) computed as its reference implementation defines it (onnx/reference/ops/
// op_attention.py), in plain loops over doubles, and the cases every backend's Attention is held to: 4-D and 3-D
// inputs, grouped-query heads, value heads of another size, float and bool masks (broadcast, and shorter than the keys,
// which masks the rest out), the causal frontier with fewer queries than keys, scale and softcap together with a mask,
// a row whose every key is masked (NaN, as ONNX's softmax of -inf), and sizes that cross the GPU kernel's key tiles and
// row blocks. Debian's onnx (1.12) and PyTorch (1.13) predate the op, so the loops are the independent reference.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "exec/host_tensor.h"

namespace ridge::test {

struct AttentionCase {
  std::string label;
  std::vector<int64_t> q, k, v;  // dims: all 4-D [batch, heads, tokens, head size] or all 3-D [batch, tokens, hidden]
  int64_t q_heads = 0, kv_heads = 0;  // 3-D: the node's q_num_heads and kv_num_heads
  std::vector<int64_t> mask;          // attn_mask's dims; empty: none
  bool mask_bool = false;
  bool causal = false;
  std::optional<float> scale;
  float softcap = 0.f;
  // A key/value cache: past_key and past_value of this many tokens (4-D [batch, kv heads, past, head size]; 0, an empty
  // one, as a prefill passes) and the present caches as outputs 1 and 2; -1: neither.
  int64_t past = -1;
  std::vector<int64_t> nonpad;  // nonpad_kv_seqlen, a count of valid keys per batch (opset 24); empty: none
  int64_t qk_mode = -1;         // qk_matmul_output_mode where output 3 is asked for; -1: it is not
};

std::vector<AttentionCase> attention_cases();
// Decoding with caches: a prefill and decode steps over past keys, grouped-query and 3-D, causal with a cache, a
// static cache's padding with and without the causal frontier, and the QK output (the product, the softmax).
std::vector<AttentionCase> attention_cache_cases();
// The case as a one-node model (opset 23), saved to a temporary file; its path.
std::string attention_model(const AttentionCase& c);
// Q, K, V and the mask (where the case has one) with fixed values of the case's dims.
std::vector<exec::HostTensor> attention_inputs(const AttentionCase& c);
std::vector<int64_t> attention_output_dims(const AttentionCase& c);
// Y, row-major over attention_output_dims(c).
std::vector<double> attention_reference(const AttentionCase& c, const std::vector<exec::HostTensor>& inputs);
// Every output the case asks for, row-major: Y, then (with a cache) the present key and value caches
// [batch, kv heads, past + keys, head size], then (with qk_mode) the QK output [batch, q heads, rows, past + keys].
std::vector<std::vector<double>> attention_reference_outputs(const AttentionCase& c,
                                                             const std::vector<exec::HostTensor>& inputs);

}  // namespace ridge::test
