#pragma once
// Scaled dot-product attention as the GPU computes it: per batch item and query row i, the scores
// s_ij = softcap(scale q_i . k_j) + bias_ij over the keys j, their softmax, and y_i = sum_j softmax_j v_j, in one pass
// over the keys (a flash-attention-style online softmax: the keys come in tiles, each tile's scores raise the running
// maximum once, and the sums and outputs kept so far are rescaled by the factor that raise costs), so the scores are
// never written out. Every operand is read, and the output written, through strides: a transformer's [batch, tokens,
// heads, head size] projections are read as [batch, heads, tokens, head size] with no copy, and grouped-query heads
// read their shared key and value head through a stride of 0. The plan is worked out on the host (attention_plan.h);
// the kernel (attention_kernels.cu) applies these functions a thread group per query row, and the host-side tests apply
// the same functions serially (tests/cuda/test_attention_host.cpp). C++17 for nvcc.
#include <math.h>

#include <cstdint>

#include "exec/cuda/layout.h"

namespace ridge::exec::cuda {

// At most this many batch dims (ONNX's Attention: batch and heads, the heads split into key/value heads and the
// query heads sharing each; a fused pattern: its product's batch dims).
inline constexpr int kAttentionBatchRank = 4;
// Keys per tile: what a kernel block stages in shared memory and scores before it folds them into its sums.
inline constexpr int kAttentionTile = 32;
// The largest head size (of queries and keys, and of values) the kernel holds in registers.
inline constexpr int64_t kAttentionMaxHead = 128;

// What the bias of a score is.
enum class AttentionMask : int {
  kNone,
  kAdd,   // a float added to the score (ONNX's float attn_mask; a fused pattern's Add)
  kKeep,  // a bool (one byte): false masks the key out (ONNX's bool attn_mask; a fused Where(mask, scores, -inf))
  kDrop,  // a bool (one byte): true masks the key out (a fused Where(mask, -inf, scores): GPT-2's causal mask)
};

// The operands the plan has strides for, in this order.
enum AttentionOperand : int { kAttnQ = 0, kAttnK, kAttnV, kAttnY, kAttnMask, kAttnOperands };

struct AttentionPlan {
  int batch_rank = 0;
  int64_t batch[kAttentionBatchRank] = {};
  int64_t batch_strides[kAttnOperands][kAttentionBatchRank] = {};  // 0 where an operand is broadcast
  int64_t rows = 0;                                                // queries per item (S)
  int64_t keys = 0;                                                // keys per item (L)
  int64_t depth = 0;                                               // queries' and keys' head size (D)
  int64_t value_depth = 0;                                         // values' and the output's head size (Dv)
  // Element (row, col) of each item's matrix: q [rows, depth], k [keys, depth], v [keys, value_depth],
  // y [rows, value_depth], mask [rows, keys].
  int64_t row_stride[kAttnOperands] = {};
  int64_t col_stride[kAttnOperands] = {};
  AttentionMask mask = AttentionMask::kNone;
  // Keys at or past this one have no mask element and are masked out (ONNX pads a mask shorter than the keys with
  // -inf, or false); the keys where there is no mask.
  int64_t mask_keys = 0;
  bool causal = false;
  int64_t causal_offset = 0;  // with causal, key j takes part in row i's softmax iff j <= i + causal_offset
  float scale = 1.f;
  float softcap = 0.f;  // > 0: scores become softcap tanh(score / softcap) before the bias is added

  int64_t items() const {
    int64_t n = 1;
    for (int d = 0; d < batch_rank; ++d) n *= batch[d];
    return n;
  }
};

// The element offset of item `item` (row-major over the batch dims) of operand `o`.
RIDGE_HOST_DEVICE inline int64_t attention_base(const AttentionPlan& p, int o, int64_t item) {
  int64_t offset = 0;
  for (int d = p.batch_rank - 1; d >= 0; --d) {
    offset += (item % p.batch[d]) * p.batch_strides[o][d];
    item /= p.batch[d];
  }
  return offset;
}

// Whether key j has a mask element to read for row i (a mask, j inside it, and not causally masked).
RIDGE_HOST_DEVICE inline bool attention_reads_mask(const AttentionPlan& p, int64_t i, int64_t j) {
  return p.mask != AttentionMask::kNone && j < p.mask_keys && !(p.causal && j > i + p.causal_offset);
}

// Row i's score of key j from the dot product q_i . k_j and the key's mask element (read where attention_reads_mask,
// else ignored): -INFINITY where the key is masked out, as ONNX's function body adds -inf before its softmax.
// ONNX applies the softcap before the bias, so that a masked key stays -inf.
RIDGE_HOST_DEVICE inline float attention_score(const AttentionPlan& p, float dot, int64_t i, int64_t j, float mask) {
  if (j >= p.keys || (p.causal && j > i + p.causal_offset)) return -INFINITY;
  float s = p.scale * dot;
  if (p.softcap > 0.f) s = p.softcap * tanhf(s / p.softcap);
  if (p.mask == AttentionMask::kNone) return s;
  if (j >= p.mask_keys) return -INFINITY;
  if (p.mask == AttentionMask::kKeep) return mask != 0.f ? s : -INFINITY;
  if (p.mask == AttentionMask::kDrop) return mask != 0.f ? -INFINITY : s;
  return s + mask;
}

// A row's softmax so far: the largest score seen and the sum of exp(score - max) over the keys seen.
struct SoftmaxRun {
  float max = -INFINITY;
  float sum = 0.f;
};

// Takes a tile whose largest score is `tile_max`: raises the running maximum and returns the factor by which the
// sums and outputs accumulated so far are to be multiplied (1 while every key seen is masked out).
RIDGE_HOST_DEVICE inline float softmax_raise(SoftmaxRun& run, float tile_max) {
  const float m = fmaxf(run.max, tile_max);
  if (m == -INFINITY) return 1.f;
  const float factor = expf(run.max - m);  // 0 on the first tile that has a key: run.max is -inf
  run.sum *= factor;
  run.max = m;
  return factor;
}

// A key's weight once its tile has raised the maximum (0 for a masked key); the caller adds it to run.sum and
// accumulates weight x v_j.
RIDGE_HOST_DEVICE inline float softmax_weight(const SoftmaxRun& run, float score) {
  return score == -INFINITY ? 0.f : expf(score - run.max);
}

// An output element from its accumulated sum: NaN for a row whose every key is masked out, as ONNX's softmax of a
// row of -inf is.
RIDGE_HOST_DEVICE inline float softmax_finish(const SoftmaxRun& run, float accumulated) {
  return run.sum > 0.f ? accumulated / run.sum : NAN;
}

}  // namespace ridge::exec::cuda
