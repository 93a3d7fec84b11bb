#include "exec/attention_fusion.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <optional>
#include <set>

#include "exec/graph_rewrite.h"
#include "exec/optimized_graph.h"
#include "util/error.h"

namespace ridge::exec {

namespace {

using graph::kNoValue;
using graph::ValueId;

constexpr std::pair<ScoreMask, const char*> kMaskNames[] = {
    {ScoreMask::kNone, "none"}, {ScoreMask::kAdd, "add"}, {ScoreMask::kKeep, "keep"}, {ScoreMask::kDrop, "drop"}};

const char* mask_name(ScoreMask m) {
  for (const auto& [mask, name] : kMaskNames)
    if (mask == m) return name;
  return "none";
}

ScoreMask parse_mask(const std::string& text) {
  for (const auto& [mask, name] : kMaskNames)
    if (text == name) return mask;
  throw Error(fmt::format("a fused attention's mask '{}' is none of none, add, keep and drop", text));
}

// `mask` broadcasts to `to` by numpy's rules.
bool broadcasts_to(const std::vector<int64_t>& mask, const std::vector<int64_t>& to) {
  if (mask.size() > to.size()) return false;
  for (size_t i = 0; i < mask.size(); ++i) {
    auto d = mask[mask.size() - 1 - i], t = to[to.size() - 1 - i];
    if (d != 1 && d != t) return false;
  }
  return true;
}

AttentionPattern pattern_of(const std::vector<int64_t>& q, const std::vector<int64_t>& perm_q,
                            const std::vector<int64_t>& k, const std::vector<int64_t>& perm_kt,
                            const std::vector<int64_t>& v, const std::vector<int64_t>& perm_v,
                            const std::vector<int64_t>& y, const std::vector<int64_t>& perm_y, double alpha,
                            ScoreMask mask, const std::vector<int64_t>& mask_dims) {
  AttentionPattern p;
  auto scores = product_dims(q, perm_q, k, perm_kt);
  p.scores = product_layout(q, perm_q, k, perm_kt, scores, {});
  p.context = product_layout(scores, {}, v, perm_v, y, perm_y);
  p.alpha = alpha;
  p.mask = mask;
  if (mask != ScoreMask::kNone) {
    if (!broadcasts_to(mask_dims, scores))
      throw Error(fmt::format("a mask of dims [{}] does not broadcast to scores of [{}]", fmt::join(mask_dims, ", "),
                              fmt::join(scores, ", ")));
    p.mask_dims = mask_dims;
  }
  return p;
}

class Fuser {
 public:
  Fuser(graph::Graph& g, int64_t opset, const std::string& directory, const TakesAttention& takes)
      : g_(g), queries_(g, directory), opset_(opset), takes_(takes) {}

  AttentionFusions run() {
    for (size_t n = 0; n < g_.nodes.size(); ++n) fuse(n);
    erase_nodes(g_, removed_);
    return fusions_;
  }

 private:
  bool is(const graph::Node& node, const char* op) const {
    return node.op_type == op && node.is_default_domain() && !removed_.count(index(node));
  }
  size_t index(const graph::Node& node) const { return static_cast<size_t>(&node - g_.nodes.data()); }

  bool fp32(ValueId id) const { return id != kNoValue && g_.value(id).dtype == graph::DType::kFloat32; }

  // The node that alone reads `id`, where nothing else keeps it.
  const graph::Node* sole_reader(ValueId id) const {
    const auto& v = g_.value(id);
    if (v.consumers.size() != 1) return nullptr;
    auto reader = static_cast<size_t>(v.consumers[0]);
    if (!queries_.only_read_by(id, reader) || removed_.count(reader)) return nullptr;
    return &g_.nodes[reader];
  }

  // A product this pass reads as one of attention's: two operands, one output, no epilogue.
  static bool plain_product(const graph::Node& node) {
    return node.inputs.size() == 2 && node.outputs.size() == 1 && node.input(0) != kNoValue &&
           node.input(1) != kNoValue && !node.has(kActivationAttribute);
  }

  bool is_negative_infinity(ValueId id) const {
    auto c = queries_.scalar(id);
    return c && std::isinf(*c) && *c < 0;
  }

  void fuse(size_t n) {
    const auto& scores_node = g_.nodes[n];
    if (!is(scores_node, "MatMul") || !plain_product(scores_node) || scores_node.has(kPermYAttribute)) return;
    ValueId scores = scores_node.outputs[0];
    if (!fp32(scores)) return;
    auto score_dims = queries_.known_dims(scores);
    if (!score_dims || score_dims->size() < 2) return;
    std::vector<size_t> taken;
    ScoreMask mask = ScoreMask::kNone;
    ValueId mask_value = kNoValue, masked = scores;
    const auto* next = sole_reader(scores);
    if (!next) return;
    // The mask: its output has the scores' dims (the scores are not broadcast up), the mask broadcasts to them.
    if (is(*next, "Add") && next->inputs.size() == 2 && next->outputs.size() == 1) {
      auto other = next->input(0) == scores ? next->input(1) : next->input(0);
      if (other == scores || !fp32(other) || !fp32(next->outputs[0])) return;
      mask = ScoreMask::kAdd;
      mask_value = other;
    } else if (is(*next, "Where") && next->inputs.size() == 3 && next->outputs.size() == 1) {
      auto condition = next->input(0);
      if (condition == kNoValue || g_.value(condition).dtype != graph::DType::kBool || !fp32(next->outputs[0])) return;
      if (next->input(1) == scores && next->input(2) != scores && is_negative_infinity(next->input(2)))
        mask = ScoreMask::kKeep;
      else if (next->input(2) == scores && next->input(1) != scores && is_negative_infinity(next->input(1)))
        mask = ScoreMask::kDrop;
      else
        return;
      mask_value = condition;
    }
    std::vector<int64_t> mask_dims;
    if (mask != ScoreMask::kNone) {
      auto dims = queries_.known_dims(mask_value);
      if (!dims || queries_.known_dims(next->outputs[0]) != score_dims || !broadcasts_to(*dims, *score_dims)) return;
      mask_dims = *dims;
      taken.push_back(index(*next));
      masked = next->outputs[0];
      next = sole_reader(masked);
      if (!next) return;
    }
    // Softmax over the keys: the last axis (before opset 13 the default axis is 1, over the flattened dims after it,
    // which is the same only when it names the last).
    if (!is(*next, "Softmax") || next->inputs.size() != 1 || next->outputs.size() != 1) return;
    auto rank = static_cast<int64_t>(score_dims->size());
    auto axis = next->get_int("axis", opset_ >= 13 ? -1 : 1);
    if (axis < 0) axis += rank;
    if (axis != rank - 1 || !fp32(next->outputs[0])) return;
    taken.push_back(index(*next));
    ValueId probabilities = next->outputs[0];
    next = sole_reader(probabilities);
    if (!next || !is(*next, "MatMul") || !plain_product(*next) || next->input(0) != probabilities ||
        next->input(1) == probabilities || next->has(kPermAAttribute) || next->has(kAlphaAttribute))
      return;
    const auto& context_node = *next;
    taken.push_back(index(context_node));
    ValueId q = scores_node.input(0), k = scores_node.input(1), v = context_node.input(1);
    ValueId y = context_node.outputs[0];
    auto q_dims = queries_.known_dims(q), k_dims = queries_.known_dims(k), v_dims = queries_.known_dims(v);
    auto y_dims = queries_.known_dims(y);
    if (!q_dims || !k_dims || !v_dims || !y_dims || !fp32(q) || !fp32(k) || !fp32(v) || !fp32(y)) return;
    auto perm_q = scores_node.get_ints(kPermAAttribute), perm_kt = scores_node.get_ints(kPermBAttribute);
    auto perm_v = context_node.get_ints(kPermBAttribute), perm_y = context_node.get_ints(kPermYAttribute);
    auto alpha = scores_node.get_float(kAlphaAttribute, 1.0);
    try {
      auto pattern =
          pattern_of(*q_dims, perm_q, *k_dims, perm_kt, *v_dims, perm_v, *y_dims, perm_y, alpha, mask, mask_dims);
      if (pattern.score_dims() != *score_dims || !takes_(pattern)) return;
    } catch (const Error&) {
      return;  // not a pattern the fused node can describe: the nodes stay
    }
    graph::Node fused;
    fused.name = scores_node.name;
    fused.op_type = "Attention";
    fused.inputs = {q, k, v};
    if (mask != ScoreMask::kNone) fused.inputs.push_back(mask_value);
    fused.outputs = {y};
    for (auto [name, perm] : {std::pair{kPermQAttribute, &perm_q}, std::pair{kPermKtAttribute, &perm_kt},
                              std::pair{kPermVAttribute, &perm_v}, std::pair{kPermYAttribute, &perm_y}})
      if (!perm->empty()) add_ints(fused, name, *perm);
    add_string(fused, kAttentionMaskAttribute, mask_name(mask));
    if (alpha != 1) add_float(fused, kAlphaAttribute, alpha);
    g_.nodes[n] = std::move(fused);
    for (auto t : taken) removed_.insert(t);
    ++fusions_.fused;
  }

  graph::Graph& g_;
  RewriteQueries queries_;
  int64_t opset_;
  const TakesAttention& takes_;
  std::set<size_t> removed_;
  AttentionFusions fusions_;
};

}  // namespace

std::vector<int64_t> AttentionPattern::score_dims() const {
  auto dims = scores.batch;
  dims.push_back(scores.m());
  dims.push_back(scores.n());
  return dims;
}

bool is_fused_attention(const graph::Node& node) {
  return node.op_type == "Attention" && node.is_default_domain() && node.has(kAttentionMaskAttribute);
}

AttentionPattern attention_pattern(const graph::Node& fused, const std::vector<int64_t>& q_dims,
                                   const std::vector<int64_t>& k_dims, const std::vector<int64_t>& v_dims,
                                   const std::optional<std::vector<int64_t>>& mask_dims,
                                   const std::vector<int64_t>& y_dims) {
  auto mask = parse_mask(fused.get_string(kAttentionMaskAttribute, ""));
  if ((mask == ScoreMask::kNone) != !mask_dims)
    throw Error(fmt::format("a fused attention whose mask is '{}' {} a mask input", mask_name(mask),
                            mask == ScoreMask::kNone ? "has" : "lacks"));
  return pattern_of(q_dims, fused.get_ints(kPermQAttribute), k_dims, fused.get_ints(kPermKtAttribute), v_dims,
                    fused.get_ints(kPermVAttribute), y_dims, fused.get_ints(kPermYAttribute),
                    fused.get_float(kAlphaAttribute, 1.0), mask, mask_dims ? *mask_dims : std::vector<int64_t>{});
}

std::string AttentionFusions::summary() const {
  if (fused == 0) return "";
  return fmt::format("{} attention blocks (scores, mask, Softmax, context) fused into one kernel each", fused);
}

AttentionFusions fuse_attention(graph::Graph& g, int64_t opset, const std::string& model_directory,
                                const TakesAttention& takes) {
  return Fuser(g, opset, model_directory, takes).run();
}

}  // namespace ridge::exec
