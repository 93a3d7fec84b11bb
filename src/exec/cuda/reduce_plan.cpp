#include "exec/cuda/reduce_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "util/error.h"

namespace ridge::exec::cuda {

ReduceOp reduce_op(std::string_view op_type) {
  static constexpr std::pair<std::string_view, ReduceOp> kOps[] = {{"ReduceSum", ReduceOp::kSum},
                                                                   {"ReduceMean", ReduceOp::kMean},
                                                                   {"ReduceMax", ReduceOp::kMax},
                                                                   {"ReduceMin", ReduceOp::kMin},
                                                                   {"ReduceProd", ReduceOp::kProd},
                                                                   {"ReduceL1", ReduceOp::kL1},
                                                                   {"ReduceL2", ReduceOp::kL2},
                                                                   {"ReduceLogSum", ReduceOp::kLogSum},
                                                                   {"ReduceLogSumExp", ReduceOp::kLogSumExp},
                                                                   {"ReduceSumSquare", ReduceOp::kSumSquare},
                                                                   {"ArgMax", ReduceOp::kArgMax},
                                                                   {"ArgMin", ReduceOp::kArgMin}};
  for (const auto& [name, op] : kOps)
    if (name == op_type) return op;
  throw Error(fmt::format("{} is no reduction", op_type));
}

std::vector<int64_t> reduce_axes(const graph::Node& node, int64_t rank, const std::vector<int64_t>* axes_input,
                                 bool& noop) {
  noop = false;
  std::vector<int64_t> axes;
  if (reduce_is_arg(reduce_op(node.op_type))) {
    axes.push_back(node.get_int("axis", 0));
  } else {
    axes = node.get_ints("axes");
    if (axes.empty() && axes_input) axes = *axes_input;
    if (axes.empty()) {
      if (node.get_int("noop_with_empty_axes", 0) != 0) {
        noop = true;
        return axes;
      }
      for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
    }
  }
  for (auto& a : axes) {
    // A scalar reduces as a one-element vector (ONNX's reference, and the CPU executor).
    int64_t span = std::max<int64_t>(rank, 1);
    if (a < -span || a >= span) throw Error(fmt::format("axis {} is out of range for rank {}", a, rank));
    if (a < 0) a += span;
  }
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) throw Error("an axis is reduced twice");
  return axes;
}

WalkNorm walk_norm(const graph::Node& node, int64_t rank, std::vector<int64_t>& axes) {
  WalkNorm op = WalkNorm::kMeanVariance;
  if (node.op_type == "MeanVarianceNormalization") {
    axes = node.get_ints("axes", {0, 2, 3});
  } else if (node.op_type == "LpNormalization") {
    auto p = node.get_int("p", 2);
    if (p != 1 && p != 2) throw Error(fmt::format("LpNormalization with p = {}: ONNX defines p = 1 and 2", p));
    op = p == 1 ? WalkNorm::kL1 : WalkNorm::kL2;
    axes = {node.get_int("axis", -1)};
  } else {
    throw Error(fmt::format("{} is no normalization over a reduction", node.op_type));
  }
  for (auto& a : axes) {
    if (a < -rank || a >= rank) throw Error(fmt::format("axis {} is out of range for rank {}", a, rank));
    if (a < 0) a += rank;
  }
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) throw Error("an axis is normalized twice");
  return op;
}

namespace {

// Appends a dim to a walk, merged with the previous one where the two are walked as one.
void push(Layout& l, int64_t dim, int64_t stride) {
  if (dim == 1) return;
  if (l.rank > 0 && l.strides[l.rank - 1] == dim * stride) {
    l.dims[l.rank - 1] *= dim;
    l.strides[l.rank - 1] = stride;
    return;
  }
  if (l.rank == kMaxRank) throw Error(fmt::format("a reduction over more than {} dims", kMaxRank));
  l.dims[l.rank] = dim;
  l.strides[l.rank] = stride;
  ++l.rank;
}

}  // namespace

ReducePlan reduce_plan(const std::vector<int64_t>& dims, const std::vector<int64_t>& axes) {
  ReducePlan p;
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  for (size_t d = 0; d < dims.size(); ++d) {
    bool reduced = std::find(axes.begin(), axes.end(), static_cast<int64_t>(d)) != axes.end();
    push(reduced ? p.reduced : p.kept, dims[d], strides[d]);
    (reduced ? p.count : p.outputs) *= dims[d];
  }
  return p;
}

}  // namespace ridge::exec::cuda
