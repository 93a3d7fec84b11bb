#pragma once
// A transformer's attention as exported (MatMul of the queries and the keys' transpose, scaled; a mask added, or
// masked keys set to -inf by a Where; Softmax over the keys; MatMul with the values) rewritten into one node, so a
// backend can compute it in one kernel that never writes the scores (the GPU's attention kernel). It runs after
// absorb_product_views (exec/product_views.h): the two products already read their heads and write their context
// through permutations and carry the scale as alpha, and the fused node keeps those permutations, so it reads the
// projections' outputs and writes the context in place exactly as the products did. libtorch-free and CUDA-free: a
// backend applies it to the graph it runs and plans its kernel from `attention_pattern`.
// The fused node is an Attention node of the default domain that carries kAttentionMaskAttribute, which ONNX's own
// Attention (opset 23) never has: its inputs are Q, K, V and the mask (omitted where there is none), as stored before
// the permutations; its semantics are the pattern's, not ONNX's Attention's (the batch dims are the products').
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "exec/product_views.h"
#include "graph/graph.h"

namespace ridge::exec {

// How the scores are masked: "none", "add" (a float added to each score: BERT's Add), "keep" (Where(mask, scores,
// -inf): a true element keeps its key) or "drop" (Where(mask, -inf, scores): a true element masks its key out, GPT-2's
// causal Where).
inline constexpr const char* kAttentionMaskAttribute = "ridge.attention_mask";
// The scores product's permutations of Q and of K (reading K^T), and the context product's of V; the output's is
// kPermYAttribute and the scale kAlphaAttribute, as the products had them.
inline constexpr const char* kPermQAttribute = "ridge.perm_q";
inline constexpr const char* kPermKtAttribute = "ridge.perm_kt";
inline constexpr const char* kPermVAttribute = "ridge.perm_v";

enum class ScoreMask { kNone, kAdd, kKeep, kDrop };

// Y = softmax(mask(alpha Q K^T)) V over the products' batch dims.
struct AttentionPattern {
  ProductLayout scores;   // alpha Q K^T: a = Q [rows, depth], b = K^T [depth, keys], y = the scores (dense)
  ProductLayout context;  // P V: a = the probabilities (dense), b = V [keys, value depth], y = the output
  double alpha = 1;
  ScoreMask mask = ScoreMask::kNone;
  std::vector<int64_t> mask_dims;           // broadcast (numpy's rules) to score_dims()
  std::vector<int64_t> score_dims() const;  // the scores' batch dims, then rows and keys
};

// Whether `node` is a fused attention node (it carries kAttentionMaskAttribute).
bool is_fused_attention(const graph::Node& node);

// A fused node's pattern from its attributes and the dims of its inputs and output (`mask_dims`: none where it has no
// mask). Throws ridge::Error when they do not make one: dims that do not multiply, a mask that does not broadcast to
// the scores, an unknown mask kind.
AttentionPattern attention_pattern(const graph::Node& fused, const std::vector<int64_t>& q_dims,
                                   const std::vector<int64_t>& k_dims, const std::vector<int64_t>& v_dims,
                                   const std::optional<std::vector<int64_t>>& mask_dims,
                                   const std::vector<int64_t>& y_dims);

struct AttentionFusions {
  int fused = 0;
  std::string summary() const;  // "" when none was fused
};

// Whether a backend runs this pattern as one node (its kernel's limits, and whether fusing pays in its precision).
using TakesAttention = std::function<bool(const AttentionPattern&)>;

// Rewrites `g` (shapes inferred and bound, product views absorbed) in place: each MatMul of two fp32 values that writes
// its scores as computed (no output permutation, no epilogue), followed by an optional mask (an fp32 Add of a value
// that broadcasts to the scores, or a Where of a bool and a scalar -inf), a Softmax over the last axis (`opset`: the
// default axis of the model's Softmax) and a MatMul reading the probabilities as they are (no first permutation, no
// alpha, no epilogue) as its first operand, where each value in between is read by the next node alone and by nothing
// outside the graph's nodes, and `takes` accepts the pattern, becomes one fused node named as the first product. Its
// constants are read through `model_directory` where stored in files of their own. The nodes it replaces are gone;
// every value keeps its id.
AttentionFusions fuse_attention(graph::Graph& g, int64_t opset, const std::string& model_directory,
                                const TakesAttention& takes);

}  // namespace ridge::exec
