#include "exec/cuda/loss_plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "util/error.h"

namespace ridge::exec::cuda {

LossPlan loss_plan(const graph::Node& node, const std::vector<int64_t>& score_dims,
                   const std::vector<int64_t>& target_dims, const std::vector<int64_t>& weight_dims) {
  if (score_dims.size() < 2) throw Error(fmt::format("scores of dims {}: a loss takes [N, C, d1, ...]", score_dims));
  std::vector<int64_t> expected{score_dims[0]};
  expected.insert(expected.end(), score_dims.begin() + 2, score_dims.end());
  if (target_dims != expected)
    throw Error(
        fmt::format("targets of dims {} for scores of dims {}: {} expected", target_dims, score_dims, expected));
  LossPlan p;
  p.batch = score_dims[0];
  p.classes = score_dims[1];
  for (size_t d = 2; d < score_dims.size(); ++d) p.inner *= score_dims[d];
  if (!weight_dims.empty() && weight_dims != std::vector<int64_t>{p.classes})
    throw Error(fmt::format("a weight of dims {} for {} classes", weight_dims, p.classes));
  const auto reduction = node.get_string("reduction", "mean");
  if (reduction == "none")
    p.reduction = LossReduction::kNone;
  else if (reduction == "sum")
    p.reduction = LossReduction::kSum;
  else if (reduction == "mean")
    p.reduction = LossReduction::kMean;
  else
    throw Error(fmt::format("reduction '{}': a loss reduces none, sum or mean", reduction));
  p.ignores = node.has("ignore_index");
  p.ignore_index = node.get_int("ignore_index", 0);
  return p;
}

}  // namespace ridge::exec::cuda
