#include "profile/model_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "util/error.h"

namespace ridge::profile {
namespace {

// The families compared, in the order a mismatch is looked for and named. `exact`: the export keeps
// one node per op; add is a range (see the header).
struct FamilyInfo {
  std::string_view family, singular, plural, nodes;
  bool exact;
};
constexpr FamilyInfo kFamilies[] = {
    {"conv", "convolution", "convolutions", "Conv", true},
    {"matmul", "matrix multiply", "matrix multiplies", "Gemm/MatMul", true},
    {"pooling", "pooling op", "pooling ops", "pooling", true},
    {"relu", "ReLU", "ReLUs", "Relu", true},
    {"add", "add", "adds", "Add", false},
};

const FamilyInfo& info_of(const std::string& family) {
  for (const auto& f : kFamilies)
    if (f.family == family) return f;
  return kFamilies[0];  // not reached: every FamilyFit comes from kFamilies
}

int64_t count_of(const FamilyCounts& counts, std::string_view family) {
  auto it = counts.find(std::string(family));
  return it == counts.end() ? 0 : it->second;
}

std::string ops_text(const FamilyInfo& f, int64_t n) {
  if (n == 0) return fmt::format("no {}", f.singular);
  return fmt::format("{} {}", n, n == 1 ? f.singular : f.plural);
}

std::string nodes_text(const FamilyInfo& f, int64_t n, int64_t n_max) {
  if (n_max == 0) return fmt::format("no {} node", f.nodes);
  if (n == n_max) return fmt::format("{} {} node{}", n, f.nodes, n == 1 ? "" : "s");
  return fmt::format("{} to {} {} nodes", n, n_max, f.nodes);
}

std::string against(const FamilyInfo& f, const FamilyFit& ff) {
  return fmt::format("{} against {}", ops_text(f, ff.ops), nodes_text(f, ff.nodes, ff.nodes_max));
}

}  // namespace

AtenFamily aten_family(const std::string& op_name) {
  static const std::map<std::string, AtenFamily> kOps{
      {"aten::conv1d", {"conv", 1}},
      {"aten::conv2d", {"conv", 1}},
      {"aten::conv3d", {"conv", 1}},
      {"aten::convolution", {"conv", 1}},
      {"aten::_convolution", {"conv", 1}},
      {"aten::conv_transpose1d", {"conv", 1}},
      {"aten::conv_transpose2d", {"conv", 1}},
      {"aten::conv_transpose3d", {"conv", 1}},
      {"aten::cudnn_convolution", {"conv", 1}},
      {"aten::mkldnn_convolution", {"conv", 1}},
      {"aten::linear", {"matmul", 1}},
      {"aten::addmm", {"matmul", 1}},
      {"aten::matmul", {"matmul", 1}},
      {"aten::mm", {"matmul", 1}},
      {"aten::bmm", {"matmul", 1}},
      {"aten::baddbmm", {"matmul", 1}},
      {"aten::einsum", {"matmul", 1}},
      // Q K^T and its product with V: the export writes two MatMuls around the Softmax.
      {"aten::scaled_dot_product_attention", {"matmul", 2}},
      {"aten::max_pool1d", {"pooling", 1}},
      {"aten::max_pool2d", {"pooling", 1}},
      {"aten::max_pool3d", {"pooling", 1}},
      {"aten::max_pool2d_with_indices", {"pooling", 1}},
      {"aten::avg_pool1d", {"pooling", 1}},
      {"aten::avg_pool2d", {"pooling", 1}},
      {"aten::avg_pool3d", {"pooling", 1}},
      {"aten::adaptive_avg_pool1d", {"pooling", 1}},
      {"aten::adaptive_avg_pool2d", {"pooling", 1}},
      {"aten::adaptive_avg_pool3d", {"pooling", 1}},
      {"aten::adaptive_max_pool1d", {"pooling", 1}},
      {"aten::adaptive_max_pool2d", {"pooling", 1}},
      {"aten::adaptive_max_pool3d", {"pooling", 1}},
      {"aten::relu", {"relu", 1}},
      {"aten::relu_", {"relu", 1}},
      {"aten::add", {"add", 1}},
      {"aten::add_", {"add", 1}},
  };
  auto it = kOps.find(op_name);
  return it == kOps.end() ? AtenFamily{} : it->second;
}

FamilyCounts model_family_counts(const graph::Graph& graph) {
  static const std::map<std::string, std::string> kTypes{
      {"Conv", "conv"},
      {"ConvTranspose", "conv"},
      {"Gemm", "matmul"},
      {"MatMul", "matmul"},
      {"Einsum", "matmul"},
      {"MaxPool", "pooling"},
      {"AveragePool", "pooling"},
      {"GlobalAveragePool", "pooling"},
      {"GlobalMaxPool", "pooling"},
      {"LpPool", "pooling"},
      {"Relu", "relu"},
  };
  // Which values carry the input's data (not only its shape): an Add of shape arithmetic
  // (Shape -> Gather -> Add in dynamic exports) or of two constants runs no op in the profile.
  std::vector<bool> data(graph.values.size(), false);
  for (auto id : graph.inputs)
    if (id >= 0 && static_cast<size_t>(id) < data.size() && !graph.value(id).initializer)
      data[static_cast<size_t>(id)] = true;
  auto is_data = [&](graph::ValueId id) {
    return id >= 0 && static_cast<size_t>(id) < data.size() && data[static_cast<size_t>(id)];
  };
  FamilyCounts counts;
  for (const auto& node : graph.nodes) {  // topological order: inputs are known before outputs
    bool any_data = false, all_data = !node.inputs.empty();
    for (auto id : node.inputs) {
      if (id == graph::kNoValue) continue;
      any_data = any_data || is_data(id);
      all_data = all_data && is_data(id);
    }
    bool shape_only = node.op_type == "Shape" || node.op_type == "Size";
    for (auto id : node.outputs)
      if (id >= 0 && static_cast<size_t>(id) < data.size()) data[static_cast<size_t>(id)] = any_data && !shape_only;
    if (!node.is_default_domain()) continue;
    if (node.op_type == "Add") {
      if (all_data)
        ++counts["add"];
      else if (any_data)
        ++counts["add_with_constant"];
      continue;
    }
    if (auto it = kTypes.find(node.op_type); it != kTypes.end()) ++counts[it->second];
  }
  return counts;
}

ModelFit fit_model(const FamilyCounts& ops, const FamilyCounts& model) {
  ModelFit fit;
  for (const auto& f : kFamilies) {
    int64_t o = count_of(ops, f.family), n = count_of(model, f.family);
    int64_t n_max = n + (f.exact ? 0 : count_of(model, "add_with_constant"));
    if (o == 0 && n_max == 0) continue;
    fit.families.push_back({.family = std::string(f.family), .ops = o, .nodes = n, .nodes_max = n_max});
  }
  int64_t k = 0;
  const FamilyInfo* k_by = nullptr;
  auto mismatch = [&](std::string reason) {
    fit.verdict = ModelFit::Verdict::kMismatch;
    fit.reason = std::move(reason);
    return fit;
  };
  // The exact families fix k; the ranges are checked against it.
  for (bool exact : {true, false}) {
    for (const auto& ff : fit.families) {
      const auto& f = info_of(ff.family);
      if (f.exact != exact) continue;
      if (ff.nodes_max == 0 || (ff.ops == 0 && ff.nodes > 0)) return mismatch(against(f, ff));
      if (ff.ops == 0) continue;  // only Adds with a constant input, each part of another op
      if (ff.nodes == ff.nodes_max) {
        if (ff.ops % ff.nodes != 0) return mismatch(against(f, ff) + " (not a whole multiple)");
        int64_t times = ff.ops / ff.nodes;
        if (k > 0 && times != k)
          return mismatch(fmt::format("{} ({} pass{}, but {} by the {})", against(f, ff), times, times == 1 ? "" : "es",
                                      k, k_by->plural));
        if (!k_by) k_by = &f;  // the first family that gave k, named in a mismatch
        k = times;
        continue;
      }
      if (k > 0) {
        if (ff.ops % k != 0 || ff.ops / k < ff.nodes || ff.ops / k > ff.nodes_max)
          return mismatch(fmt::format("{} ({} passes by the {}, and {} is not {} times {} to {})", against(f, ff), k,
                                      k_by->plural, ff.ops, k, ff.nodes, ff.nodes_max));
        continue;
      }
      bool some_k = false;  // k open: is there any whole multiple at all?
      for (int64_t per_pass = std::max<int64_t>(ff.nodes, 1); per_pass <= ff.nodes_max && !some_k; ++per_pass)
        some_k = ff.ops % per_pass == 0;
      if (!some_k) return mismatch(against(f, ff) + " (not a whole multiple)");
    }
  }
  if (k > 0) {
    fit.verdict = ModelFit::Verdict::kFits;
    fit.passes = k;
  }
  return fit;
}

namespace {

constexpr std::pair<ModelFit::Verdict, const char*> kVerdicts[] = {{ModelFit::Verdict::kFits, "fits"},
                                                                   {ModelFit::Verdict::kMismatch, "mismatch"},
                                                                   {ModelFit::Verdict::kUnknown, "unknown"}};

}  // namespace

const char* verdict_name(ModelFit::Verdict verdict) {
  for (const auto& [v, name] : kVerdicts)
    if (v == verdict) return name;
  return "unknown";
}

ModelFit::Verdict parse_verdict(const std::string& text) {
  for (const auto& [v, name] : kVerdicts)
    if (text == name) return v;
  throw Error(fmt::format("'{}' is none of fits, mismatch, unknown", text));
}

std::string describe_families(const ModelFit& fit) {
  std::vector<std::string> parts;
  for (const auto& ff : fit.families) parts.push_back(against(info_of(ff.family), ff));
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace ridge::profile
