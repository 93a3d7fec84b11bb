#include "exec/cuda/attention_plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "exec/cuda/op_kernel.h"
#include "util/error.h"

namespace ridge::exec::cuda {

namespace {

// One operand's [batch, heads, tokens, head size] view, in elements, of a 4-D tensor (dense) or a 3-D one
// ([batch, tokens, heads x head size]).
struct HeadsView {
  int64_t batch = 0, head = 0, row = 0, col = 1;
};

HeadsView heads_view(const std::vector<int64_t>& dims, int64_t heads, int64_t head_size) {
  if (dims.size() == 4) return {dims[1] * dims[2] * dims[3], dims[2] * dims[3], dims[3], 1};
  return {dims[1] * heads * head_size, head_size, heads * head_size, 1};
}

std::vector<int64_t> dense_strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t d = dims.size(); d-- > 1;) s[d - 1] = s[d] * dims[d];
  return s;
}

}  // namespace

void check_attention_io(const graph::Node& node) {
  static const char* const kInputs[] = {"past_key", "past_value", "nonpad_kv_seqlen"};
  for (size_t i = 4; i < 7; ++i)
    if (node.input(i) != graph::kNoValue)
      throw Error(fmt::format("input {} ({}): the GPU runs Attention without key/value caches", i, kInputs[i - 4]));
  static const char* const kOutputs[] = {"present_key", "present_value", "qk_matmul_output"};
  for (size_t i = 1; i < 4 && i < node.outputs.size(); ++i)
    if (node.outputs[i] != graph::kNoValue)
      throw Error(fmt::format("output {} ({}): the GPU computes Attention's Y alone", i, kOutputs[i - 1]));
  if (node.has("softmax_precision") && node.get_int("softmax_precision", 1) != 1)
    throw Error(fmt::format("softmax_precision {}: the GPU computes the softmax in fp32 (1)",
                            node.get_int("softmax_precision", 1)));
}

AttentionPlan onnx_attention_plan(const graph::Node& node, const std::vector<int64_t>& q, const std::vector<int64_t>& k,
                                  const std::vector<int64_t>& v, const std::optional<MaskInput>& mask,
                                  const std::vector<int64_t>& y_dims) {
  const size_t rank = q.size();
  if ((rank != 3 && rank != 4) || k.size() != rank || v.size() != rank)
    throw Error(
        fmt::format("Q, K and V of dims {}, {} and {}: Attention takes three 3-D or three 4-D tensors", q, k, v));
  int64_t q_heads = 0, kv_heads = 0, head = 0, key_head = 0, value_head = 0, rows = 0, keys = 0;
  if (rank == 4) {
    q_heads = q[1], kv_heads = k[1], rows = q[2], keys = k[2];
    head = q[3], key_head = k[3], value_head = v[3];
    if (v[1] != kv_heads || v[2] != keys)
      throw Error(fmt::format("K of dims {} and V of dims {} differ in heads or tokens", k, v));
  } else {
    q_heads = node.get_int("q_num_heads", 0), kv_heads = node.get_int("kv_num_heads", 0);
    if (q_heads <= 0 || kv_heads <= 0) throw Error("3-D inputs need q_num_heads and kv_num_heads");
    if (q[2] % q_heads || k[2] % kv_heads || v[2] % kv_heads)
      throw Error(fmt::format("hidden sizes {}, {} and {} do not split into {} and {} heads", q[2], k[2], v[2], q_heads,
                              kv_heads));
    rows = q[1], keys = k[1];
    head = q[2] / q_heads, key_head = k[2] / kv_heads, value_head = v[2] / kv_heads;
    if (v[1] != keys) throw Error(fmt::format("K of dims {} and V of dims {} differ in tokens", k, v));
  }
  const int64_t batch = q[0];
  if (k[0] != batch || v[0] != batch) throw Error(fmt::format("Q, K and V of batches {}, {} and {}", q[0], k[0], v[0]));
  if (key_head != head) throw Error(fmt::format("queries of head size {} and keys of {}", head, key_head));
  if (kv_heads <= 0 || q_heads % kv_heads)
    throw Error(fmt::format("{} query heads do not share {} key/value heads", q_heads, kv_heads));
  if (head > kAttentionMaxHead || value_head > kAttentionMaxHead)
    throw Error(fmt::format("head sizes {} and {}: the GPU's attention kernel holds at most {}", head, value_head,
                            kAttentionMaxHead));
  const std::vector<int64_t> want = rank == 4 ? std::vector<int64_t>{batch, q_heads, rows, value_head}
                                              : std::vector<int64_t>{batch, rows, q_heads * value_head};
  if (y_dims != want) throw Error(fmt::format("output of dims {}, where Attention makes {}", y_dims, want));

  // Batch dims [batch, key/value heads, the query heads sharing each]: query head h reads key head h / group.
  const int64_t group = q_heads / kv_heads;
  AttentionPlan p;
  p.batch_rank = 3;
  p.batch[0] = batch, p.batch[1] = kv_heads, p.batch[2] = group;
  p.rows = rows, p.keys = keys, p.depth = head, p.value_depth = value_head;
  auto set = [&](int o, const HeadsView& h, bool per_query_head) {
    p.batch_strides[o][0] = h.batch;
    p.batch_strides[o][1] = per_query_head ? h.head * group : h.head;
    p.batch_strides[o][2] = per_query_head ? h.head : 0;
    p.row_stride[o] = h.row, p.col_stride[o] = h.col;
  };
  set(kAttnQ, heads_view(q, q_heads, head), true);
  set(kAttnK, heads_view(k, kv_heads, head), false);
  set(kAttnV, heads_view(v, kv_heads, value_head), false);
  set(kAttnY, heads_view(y_dims, q_heads, value_head), true);

  if (mask) {
    const auto& m = mask->dims;
    if (m.empty() || m.size() > 4) throw Error(fmt::format("attn_mask of dims {}: a mask has 1 to 4 dims", m));
    const std::vector<int64_t> full{batch, q_heads, rows, keys};
    std::vector<int64_t> md(4, 1), ms(4, 0);
    auto dense = dense_strides(m);
    for (size_t i = 0; i < m.size(); ++i) {
      const size_t d = 4 - m.size() + i;
      md[d] = m[i];
      ms[d] = m[i] == 1 ? 0 : dense[i];
    }
    if (md[3] > keys || md[3] < 1) throw Error(fmt::format("attn_mask of dims {} is longer than the {} keys", m, keys));
    for (size_t d = 0; d < 3; ++d)
      if (md[d] != 1 && md[d] != full[d])
        throw Error(fmt::format("attn_mask of dims {} does not broadcast to [{}]", m, fmt::join(full, ", ")));
    p.mask = mask->is_bool ? AttentionMask::kKeep : AttentionMask::kAdd;
    p.mask_keys = md[3];
    p.batch_strides[kAttnMask][0] = ms[0];
    p.batch_strides[kAttnMask][1] = ms[1] * group;
    p.batch_strides[kAttnMask][2] = ms[1];
    p.row_stride[kAttnMask] = ms[2];
    p.col_stride[kAttnMask] = md[3] == 1 ? 0 : 1;
  }
  p.causal = node.get_int("is_causal", 0) != 0;
  p.causal_offset = 0;  // no past keys: ONNX's causal mask starts at the first key
  p.scale =
      static_cast<float>(node.has("scale") ? node.get_float("scale", 1.0) : 1.0 / std::sqrt(static_cast<double>(head)));
  p.softcap = static_cast<float>(node.get_float("softcap", 0.0));
  return p;
}

AttentionPlan fused_attention_plan(const AttentionPattern& pattern) {
  const auto& s = pattern.scores;
  const auto& c = pattern.context;
  const auto rank = s.batch.size();
  if (rank > static_cast<size_t>(kAttentionBatchRank))
    throw Error(
        fmt::format("scores of {} batch dims: the GPU's attention kernel holds at most {}", rank, kAttentionBatchRank));
  if (c.batch != s.batch)
    throw Error(fmt::format("values of batch dims [{}] broadcast the probabilities' [{}]", fmt::join(c.batch, ", "),
                            fmt::join(s.batch, ", ")));
  if (c.m() != s.m() || c.k() != s.n())
    throw Error(
        fmt::format("the context product of {} x {} does not read scores of {} x {}", c.m(), c.k(), s.m(), s.n()));
  if (s.k() > kAttentionMaxHead || c.n() > kAttentionMaxHead)
    throw Error(fmt::format("head sizes {} and {}: the GPU's attention kernel holds at most {}", s.k(), c.n(),
                            kAttentionMaxHead));
  AttentionPlan p;
  p.batch_rank = static_cast<int>(rank);
  p.rows = s.m(), p.keys = s.n(), p.depth = s.k(), p.value_depth = c.n();
  for (size_t d = 0; d < rank; ++d) {
    p.batch[d] = s.batch[d];
    p.batch_strides[kAttnQ][d] = s.a.batch_strides[d];
    p.batch_strides[kAttnK][d] = s.b.batch_strides[d];
    p.batch_strides[kAttnV][d] = c.b.batch_strides[d];
    p.batch_strides[kAttnY][d] = c.y.batch_strides[d];
  }
  p.row_stride[kAttnQ] = s.a.row_stride, p.col_stride[kAttnQ] = s.a.col_stride;
  // The product reads K^T [depth, keys]: key j's element d is K^T's (d, j).
  p.row_stride[kAttnK] = s.b.col_stride, p.col_stride[kAttnK] = s.b.row_stride;
  p.row_stride[kAttnV] = c.b.row_stride, p.col_stride[kAttnV] = c.b.col_stride;
  p.row_stride[kAttnY] = c.y.row_stride, p.col_stride[kAttnY] = c.y.col_stride;
  if (pattern.mask != ScoreMask::kNone) {
    // The mask read over the scores' dims [batch..., rows, keys], numpy's broadcasting (stride 0 where it broadcasts).
    const auto scores = pattern.score_dims();
    const auto& m = pattern.mask_dims;
    Layout over;
    try {
      over = broadcast_layout(m, scores);
    } catch (const Error&) {
      throw Error(fmt::format("a mask of dims {} does not broadcast to scores of {}", m, scores));
    }
    const int64_t* strides = over.strides;
    p.mask = pattern.mask == ScoreMask::kAdd    ? AttentionMask::kAdd
             : pattern.mask == ScoreMask::kKeep ? AttentionMask::kKeep
                                                : AttentionMask::kDrop;
    p.mask_keys = p.keys;
    for (size_t d = 0; d < rank; ++d) p.batch_strides[kAttnMask][d] = strides[d];
    p.row_stride[kAttnMask] = strides[rank];
    p.col_stride[kAttnMask] = strides[rank + 1];
  }
  p.scale = static_cast<float>(pattern.alpha);
  return p;
}

}  // namespace ridge::exec::cuda
