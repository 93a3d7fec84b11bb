#pragma once
// The plan of the GPU's attention kernel (attention_cell.h) for ONNX's Attention op (opset 23), worked out on the host
// from the tensors' dims and the node's attributes, and tested there. What the op asks and the GPU does not do is
// refused in one line (ridge::Error): key/value caches and the outputs beside Y, a head size above the kernel's.
#include <cstdint>
#include <optional>
#include <vector>

#include "exec/attention_fusion.h"
#include "exec/cuda/attention_cell.h"
#include "graph/graph.h"

namespace ridge::exec::cuda {

// The mask input as the plan sees it: its dims and whether it is a bool.
struct MaskInput {
  std::vector<int64_t> dims;
  bool is_bool = false;
};

// ONNX's Attention over Q, K, V of these dims: 4-D [batch, heads, tokens, head size], or 3-D [batch, tokens, hidden]
// split into the node's q_num_heads and kv_num_heads; grouped-query attention where the queries have more heads (a
// multiple of the keys'), each key and value head read by hidden / kv heads query heads in turn, as ONNX's reference
// repeats them; an attn_mask broadcast over [batch, q heads, q tokens, keys] by numpy's rules, a last dim shorter than
// the keys masking the rest out; is_causal (key j for query i where j <= i: no cache, so no offset), scale (1/sqrt of
// the head size by default), softcap. `y_dims` are the output's, checked against what the op makes.
AttentionPlan onnx_attention_plan(const graph::Node& node, const std::vector<int64_t>& q_dims,
                                  const std::vector<int64_t>& k_dims, const std::vector<int64_t>& v_dims,
                                  const std::optional<MaskInput>& mask, const std::vector<int64_t>& y_dims);

// The plan of optimized mode's fused attention (exec/attention_fusion.h): the products' batch dims are the kernel's
// (at most kAttentionBatchRank), Q and V read through the products' strides, K through the transpose of the scores
// product's second operand, the mask broadcast over the scores; the scale is the product's alpha. Throws ridge::Error
// for what the kernel does not hold: more batch dims, a head size above kAttentionMaxHead, values whose batch dims
// broadcast the probabilities.
AttentionPlan fused_attention_plan(const AttentionPattern& pattern);

// Throws ridge::Error naming the inputs and outputs of the node the GPU does not take: past_key and past_value
// (inputs 4, 5), nonpad_kv_seqlen (6), present_key, present_value and the QK output (outputs 1 to 3), and a
// softmax_precision other than fp32 (the kernel computes its softmax in fp32).
void check_attention_io(const graph::Node& node);

}  // namespace ridge::exec::cuda
