#include "exec/cuda/index_plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "util/error.h"

namespace ridge::exec::cuda {

namespace {

int64_t normalized_axis(int64_t axis, size_t rank) {
  auto r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) throw Error(fmt::format("axis {} is out of range for rank {}", axis, r));
  return axis < 0 ? axis + r : axis;
}

void check_rank(size_t rank) {
  if (rank > static_cast<size_t>(kMaxRank))
    throw Error(fmt::format("rank {}: the GPU kernels take {}", rank, kMaxRank));
}

// The dims before `axis`, along it and after it, as CumSum's and TopK's lines walk them.
void split_at(const std::vector<int64_t>& dims, size_t axis, int64_t& outer, int64_t& length, int64_t& inner) {
  for (size_t d = 0; d < dims.size(); ++d) (d < axis ? outer : d == axis ? length : inner) *= dims[d];
}

}  // namespace

ElementsPlan elements_plan(const std::vector<int64_t>& data_dims, const std::vector<int64_t>& index_dims,
                           int64_t axis) {
  if (data_dims.size() != index_dims.size())
    throw Error(fmt::format("indices of rank {} into data of rank {}: they must be equal", index_dims.size(),
                            data_dims.size()));
  if (data_dims.empty()) throw Error("data must have at least one dim");
  check_rank(data_dims.size());
  ElementsPlan p;
  p.axis = static_cast<int>(normalized_axis(axis, data_dims.size()));
  p.axis_size = data_dims[p.axis];
  p.walk.rank = static_cast<int>(data_dims.size());
  p.count = 1;
  int64_t stride = 1;
  for (size_t d = data_dims.size(); d-- > 0;) {
    if (static_cast<int>(d) != p.axis && index_dims[d] > data_dims[d])
      throw Error(fmt::format("indices {} reach past data {} in dim {}", index_dims, data_dims, d));
    p.walk.dims[d] = index_dims[d];
    p.walk.strides[d] = stride;
    stride *= data_dims[d];
    p.count *= index_dims[d];
  }
  return p;
}

NdPlan nd_plan(const std::vector<int64_t>& data_dims, const std::vector<int64_t>& index_dims, int64_t batch_dims) {
  if (index_dims.empty()) throw Error("indices must have at least one dim");
  const auto b = static_cast<size_t>(batch_dims);
  if (batch_dims < 0 || b >= index_dims.size() || b >= data_dims.size())
    throw Error(fmt::format("batch_dims {} with indices of rank {} and data of rank {}", batch_dims, index_dims.size(),
                            data_dims.size()));
  NdPlan p;
  p.depth = index_dims.back();
  if (p.depth < 1 || b + static_cast<size_t>(p.depth) > data_dims.size())
    throw Error(
        fmt::format("index tuples of {} into data of rank {} past {} batch dims", p.depth, data_dims.size(), b));
  if (p.depth > kMaxRank) throw Error(fmt::format("index tuples of {}: the GPU kernels take {}", p.depth, kMaxRank));
  for (size_t d = 0; d < b; ++d)
    if (index_dims[d] != data_dims[d])
      throw Error(fmt::format("batch dim {}: indices {} and data {} differ", d, index_dims, data_dims));
  p.rows = 1;
  for (size_t d = 0; d + 1 < index_dims.size(); ++d) p.rows *= index_dims[d];
  p.batch_rows = 1;
  for (size_t d = b; d + 1 < index_dims.size(); ++d) p.batch_rows *= index_dims[d];
  for (size_t d = b + static_cast<size_t>(p.depth); d < data_dims.size(); ++d) p.slice *= data_dims[d];
  int64_t stride = p.slice;
  for (auto j = p.depth; j-- > 0;) {
    p.dims[j] = data_dims[b + static_cast<size_t>(j)];
    p.strides[j] = stride;
    stride *= p.dims[j];
  }
  p.batch_stride = b == 0 ? 0 : stride;     // every batch holds data's dims from batch_dims on
  if (p.batch_rows == 0) p.batch_rows = 1;  // no rows: nothing is read
  return p;
}

ScatterReduce scatter_reduce(const graph::Node& node) {
  auto r = node.get_string("reduction", "none");
  if (r == "none") return ScatterReduce::kNone;
  if (r == "add") return ScatterReduce::kAdd;
  if (r == "mul") return ScatterReduce::kMul;
  if (r == "max") return ScatterReduce::kMax;
  if (r == "min") return ScatterReduce::kMin;
  throw Error(fmt::format("reduction '{}': ONNX defines none, add, mul, max and min", r));
}

CumSumPlan cumsum_plan(const graph::Node& node, const std::vector<int64_t>& dims, int64_t axis) {
  if (dims.empty()) throw Error("CumSum of a scalar: its input must have at least one dim");
  auto a = static_cast<size_t>(normalized_axis(axis, dims.size()));
  CumSumPlan p;
  split_at(dims, a, p.outer, p.length, p.inner);
  p.exclusive = node.get_int("exclusive", 0) != 0;
  p.reverse = node.get_int("reverse", 0) != 0;
  return p;
}

TopKPlan topk_plan(const graph::Node& node, const std::vector<int64_t>& dims, int64_t k) {
  if (dims.empty()) throw Error("TopK of a scalar: its input must have at least one dim");
  auto a = static_cast<size_t>(normalized_axis(node.get_int("axis", -1), dims.size()));
  TopKPlan p;
  split_at(dims, a, p.outer, p.length, p.inner);
  if (k < 0 || k > p.length) throw Error(fmt::format("k = {} of a dim of {}", k, p.length));
  p.k = k;
  p.largest = node.get_int("largest", 1) != 0;
  return p;
}

OneHotPlan one_hot_plan(const graph::Node& node, const std::vector<int64_t>& index_dims, int64_t depth) {
  if (depth < 1) throw Error(fmt::format("OneHot of depth {}: the depth is 1 or more", depth));
  const auto rank = static_cast<int64_t>(index_dims.size()) + 1;
  auto axis = node.get_int("axis", -1);
  if (axis < -rank || axis >= rank) throw Error(fmt::format("axis {} of an output of rank {}", axis, rank));
  if (axis < 0) axis += rank;
  OneHotPlan p;
  p.depth = depth;
  for (int64_t d = 0; d < rank - 1; ++d) (d < axis ? p.outer : p.inner) *= index_dims[static_cast<size_t>(d)];
  return p;
}

OneHotPlan hardmax_plan(const graph::Node& node, const std::vector<int64_t>& dims, int64_t opset) {
  const auto rank = static_cast<int64_t>(dims.size());
  auto axis = node.get_int("axis", opset >= 13 ? -1 : 1);
  if (axis < -rank || axis >= rank) throw Error(fmt::format("axis {} of an input of rank {}", axis, rank));
  if (axis < 0) axis += rank;
  OneHotPlan p;
  p.depth = 1;
  for (int64_t d = 0; d < rank; ++d) {
    auto n = dims[static_cast<size_t>(d)];
    if (d < axis)
      p.outer *= n;
    else if (d == axis || opset < 13)
      p.depth *= n;
    else
      p.inner *= n;
  }
  return p;
}

ReverseSequencePlan reverse_sequence_plan(const graph::Node& node, const std::vector<int64_t>& dims,
                                          const std::vector<int64_t>& lens_dims) {
  const auto time_axis = node.get_int("time_axis", 0), batch_axis = node.get_int("batch_axis", 1);
  if (!((time_axis == 0 && batch_axis == 1) || (time_axis == 1 && batch_axis == 0)))
    throw Error(fmt::format("time_axis {} and batch_axis {}: ReverseSequence takes 0 and 1", time_axis, batch_axis));
  if (dims.size() < 2)
    throw Error(fmt::format("an input of rank {}: ReverseSequence takes rank 2 or more", dims.size()));
  ReverseSequencePlan p;
  p.time_first = time_axis == 0;
  p.time = dims[static_cast<size_t>(time_axis)];
  p.batch = dims[static_cast<size_t>(batch_axis)];
  for (size_t d = 2; d < dims.size(); ++d) p.inner *= dims[d];
  if (lens_dims != std::vector<int64_t>{p.batch})
    throw Error(fmt::format("sequence_lens of dims {} for a batch of {}", lens_dims, p.batch));
  return p;
}

CompressPlan compress_plan(const graph::Node& node, const std::vector<int64_t>& dims, int64_t condition_length) {
  CompressPlan p;
  const auto rank = static_cast<int64_t>(dims.size());
  if (!node.has("axis")) {
    p.length = 1;
    for (auto d : dims) p.length *= d;
  } else {
    auto axis = node.get_int("axis", 0);
    if (axis < -rank || axis >= rank) throw Error(fmt::format("axis {} of an input of rank {}", axis, rank));
    p.axis = axis < 0 ? axis + rank : axis;
    p.length = dims[static_cast<size_t>(p.axis)];
    for (int64_t d = 0; d < p.axis; ++d) p.outer *= dims[static_cast<size_t>(d)];
    for (int64_t d = p.axis + 1; d < rank; ++d) p.inner *= dims[static_cast<size_t>(d)];
  }
  p.flags = std::min(condition_length, p.length);
  return p;
}

}  // namespace ridge::exec::cuda
