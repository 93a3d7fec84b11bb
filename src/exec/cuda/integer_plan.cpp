#include "exec/cuda/integer_plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string>

#include "shape/constant_eval.h"
#include "shape/spatial.h"
#include "util/error.h"

namespace ridge::exec::cuda {

using graph::DType;

namespace {

const IntegerInput& input(const std::vector<IntegerInput>& inputs, size_t i) {
  static const IntegerInput none;
  return i < inputs.size() ? inputs[i] : none;
}

using shape::product;

std::string dims_text(const std::vector<int64_t>& dims) { return fmt::format("[{}]", fmt::join(dims, ", ")); }

bool eight_bit(DType t) { return t == DType::kUInt8 || t == DType::kInt8; }

// Input i, present and of an 8-bit type (its signedness returned).
bool required_8bit(const graph::Node& node, const std::vector<IntegerInput>& inputs, size_t i, const char* what) {
  const auto& t = input(inputs, i);
  if (!t.present) throw Error(fmt::format("{} needs its input {} ({})", node.op_type, i, what));
  if (!eight_bit(t.dtype))
    throw Error(fmt::format("{}'s {} is {}: the GPU's integer products take int8 and uint8", node.op_type, what,
                            graph::dtype_name(t.dtype)));
  return t.dtype == DType::kInt8;
}

// An optional zero point: absent (0), or 8-bit; its signedness.
bool zero_point_8bit(const graph::Node& node, const std::vector<IntegerInput>& inputs, size_t i, const char* what) {
  return input(inputs, i).present ? required_8bit(node, inputs, i, what) : false;
}

void fp32_scale(const graph::Node& node, const std::vector<IntegerInput>& inputs, size_t i, const char* what) {
  const auto& t = input(inputs, i);
  if (!t.present) throw Error(fmt::format("{} needs its input {} ({})", node.op_type, i, what));
  if (t.dtype != DType::kFloat32)
    throw Error(fmt::format("{}'s {} is {}: the GPU's integer products take fp32 scales", node.op_type, what,
                            graph::dtype_name(t.dtype)));
}

void one_element(const graph::Node& node, const std::vector<IntegerInput>& inputs, size_t i, const char* what) {
  const auto& t = input(inputs, i);
  if (t.present && product(t.dims) != 1)
    throw Error(
        fmt::format("{}'s {} has shape {}: it must be one value (per tensor)", node.op_type, what, dims_text(t.dims)));
}

// Where a parameter of A (per row) or of B (per column) of dims `p` is read over the output (batch dims `batch`,
// `rows` x `columns`); `of_a` picks the side.
ParamIndex param_index(const graph::Node& node, const char* what, const std::vector<int64_t>& p, bool of_a,
                       const std::vector<int64_t>& batch, int64_t along) {
  ParamIndex index;
  if (product(p) == 1) return index;
  auto refuse = [&] {
    return Error(fmt::format("{}'s {} has shape {}: per tensor, per {} ([{}] or [..., {}]) are what ONNX defines",
                             node.op_type, what, dims_text(p), of_a ? "row" : "column", along,
                             of_a ? fmt::format("{}, 1", along) : fmt::format("1, {}", along)));
  };
  if (p.size() == 1) {
    if (p[0] != along) throw refuse();
    (of_a ? index.row : index.column) = 1;
    return index;
  }
  // [..., M, 1] for A, [..., 1, N] for B: dense strides, broadcast over the output's batch dims.
  size_t rank = p.size();
  int64_t inner = p[rank - 1], outer = p[rank - 2];
  if (of_a ? (inner != 1 || (outer != along && outer != 1)) : (outer != 1 || (inner != along && inner != 1)))
    throw refuse();
  if (of_a)
    index.row = outer == 1 ? 0 : 1;
  else
    index.column = inner == 1 ? 0 : 1;
  if (rank - 2 > batch.size()) throw refuse();
  int64_t stride = outer * inner;
  for (size_t d = rank - 2; d-- > 0;) {
    size_t out_d = batch.size() - (rank - 2 - d);
    if (p[d] != 1 && p[d] != batch[out_d]) throw refuse();
    index.batch[out_d] = p[d] == 1 ? 0 : stride;
    stride *= p[d];
  }
  return index;
}

struct Promoted {
  std::vector<int64_t> a, b;  // 1-D operands made matrices as MatMul's rule does
};

Promoted promoted(const graph::Node& node, const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  if (a.empty() || b.empty()) throw Error(fmt::format("{} of a scalar: its operands must have a dim", node.op_type));
  Promoted p{a, b};
  if (p.a.size() == 1) p.a.insert(p.a.begin(), 1);
  if (p.b.size() == 1) p.b.push_back(1);
  return p;
}

}  // namespace

IntegerMatMulPlan integer_matmul_plan(const graph::Node& node, const std::vector<IntegerInput>& inputs) {
  const bool q = node.op_type == "QLinearMatMul";
  const auto [ia, ib, ia_zero, ib_zero] = integer_slots(q);
  IntegerMatMulPlan p;
  p.quantized = q;
  p.a_signed = required_8bit(node, inputs, ia, "A");
  p.b_signed = required_8bit(node, inputs, ib, "B");
  auto [a, b] = promoted(node, input(inputs, ia).dims, input(inputs, ib).dims);
  p.m = a[a.size() - 2], p.k = a.back(), p.n = b.back();
  if (b[b.size() - 2] != p.k)
    throw Error(fmt::format("{} of {} and {}: the inner dims differ", node.op_type, dims_text(input(inputs, ia).dims),
                            dims_text(input(inputs, ib).dims)));
  std::vector<int64_t> a_batch(a.begin(), a.end() - 2), b_batch(b.begin(), b.end() - 2);
  size_t rank = std::max(a_batch.size(), b_batch.size());
  if (rank > static_cast<size_t>(kIntegerMaxBatch))
    throw Error(fmt::format("{} with {} batch dims: the GPU's takes up to {}", node.op_type, rank, kIntegerMaxBatch));
  std::vector<int64_t> batch(rank, 1);
  for (size_t d = 0; d < rank; ++d) {
    int64_t da = d + a_batch.size() >= rank ? a_batch[d + a_batch.size() - rank] : 1;
    int64_t db = d + b_batch.size() >= rank ? b_batch[d + b_batch.size() - rank] : 1;
    if (da != db && da != 1 && db != 1)
      throw Error(fmt::format("{} of {} and {}: the batch dims do not broadcast", node.op_type,
                              dims_text(input(inputs, ia).dims), dims_text(input(inputs, ib).dims)));
    batch[d] = da == 1 ? db : da;
  }
  p.batch_rank = static_cast<int>(rank);
  for (size_t d = 0; d < rank; ++d) p.batch[d] = batch[d];
  // Dense strides of each operand's matrices, 0 along a dim it broadcasts.
  auto batch_strides = [&](const std::vector<int64_t>& dims, int64_t matrix, int64_t* out) {
    int64_t stride = matrix;
    for (size_t d = dims.size(); d-- > 0;) {
      out[rank - dims.size() + d] = dims[d] == 1 ? 0 : stride;
      stride *= dims[d];
    }
  };
  batch_strides(a_batch, p.m * p.k, p.a_batch);
  batch_strides(b_batch, p.k * p.n, p.b_batch);
  p.a_zero_signed = zero_point_8bit(node, inputs, ia_zero, "A's zero point");
  p.b_zero_signed = zero_point_8bit(node, inputs, ib_zero, "B's zero point");
  if (input(inputs, ia_zero).present)
    p.a_zero = param_index(node, "A's zero point", input(inputs, ia_zero).dims, true, batch, p.m);
  if (input(inputs, ib_zero).present)
    p.b_zero = param_index(node, "B's zero point", input(inputs, ib_zero).dims, false, batch, p.n);
  if (q) {
    fp32_scale(node, inputs, 1, "a_scale");
    fp32_scale(node, inputs, 4, "b_scale");
    fp32_scale(node, inputs, 6, "y_scale");
    p.a_scale = param_index(node, "a_scale", input(inputs, 1).dims, true, batch, p.m);
    p.b_scale = param_index(node, "b_scale", input(inputs, 4).dims, false, batch, p.n);
    one_element(node, inputs, 6, "y_scale");
    one_element(node, inputs, 7, "y_zero_point");
    p.y_signed = zero_point_8bit(node, inputs, 7, "y_zero_point");
  }
  return p;
}

std::vector<int64_t> integer_matmul_dims(const IntegerMatMulPlan& plan, const std::vector<int64_t>& a,
                                         const std::vector<int64_t>& b) {
  std::vector<int64_t> dims(plan.batch, plan.batch + plan.batch_rank);
  if (a.size() > 1) dims.push_back(plan.m);
  if (b.size() > 1) dims.push_back(plan.n);
  return dims;
}

IntegerConvPlan integer_conv_plan(const graph::Node& node, const std::vector<IntegerInput>& inputs) {
  const bool q = node.op_type == "QLinearConv";
  const auto [ix, iw, ix_zero, iw_zero] = integer_slots(q);
  IntegerConvPlan p;
  p.quantized = q;
  p.x_signed = required_8bit(node, inputs, ix, "x");
  p.w_signed = required_8bit(node, inputs, iw, "w");
  const auto& x = input(inputs, ix).dims;
  const auto& w = input(inputs, iw).dims;
  if (x.size() < 3 || x.size() > 2 + static_cast<size_t>(kIntegerMaxSpatial) || w.size() != x.size())
    throw Error(fmt::format("{} of x {} and w {}: the GPU's takes 1 to {} spatial dims, w of x's rank", node.op_type,
                            dims_text(x), dims_text(w), kIntegerMaxSpatial));
  p.spatial = static_cast<int>(x.size()) - 2;
  p.batch = x[0], p.in_channels = x[1], p.out_channels = w[0];
  p.groups = node.get_int("group", 1);
  if (p.groups < 1 || p.in_channels != w[1] * p.groups || p.out_channels % p.groups != 0)
    throw Error(fmt::format("{} of x {} and w {} in {} groups: the channels do not match", node.op_type, dims_text(x),
                            dims_text(w), p.groups));
  std::vector<int64_t> spatial(x.begin() + 2, x.end()), kernel(w.begin() + 2, w.end());
  auto window = shape::resolve_window(node, spatial, kernel);
  auto out = shape::window_output_dims(spatial, window);
  for (int d = 0; d < p.spatial; ++d) {
    auto s = static_cast<size_t>(d);
    p.in[d] = spatial[s], p.out[d] = out[s], p.kernel[d] = kernel[s];
    p.stride[d] = window.strides[s], p.dilation[d] = window.dilations[s], p.pad[d] = window.pads_begin[s];
  }
  p.x_zero_signed = zero_point_8bit(node, inputs, ix_zero, "x's zero point");
  p.w_zero_signed = zero_point_8bit(node, inputs, iw_zero, "w's zero point");
  one_element(node, inputs, ix_zero, "x's zero point");
  // Per output channel: [M] (ONNX's); one value per tensor.
  auto per_channel = [&](size_t i, const char* what) {
    const auto& t = input(inputs, i);
    if (!t.present || product(t.dims) == 1) return false;
    if (t.dims.size() != 1 || t.dims[0] != p.out_channels)
      throw Error(fmt::format("{}'s {} has shape {}: one value, or one per output channel ([{}])", node.op_type, what,
                              dims_text(t.dims), p.out_channels));
    return true;
  };
  p.w_zero_per_channel = per_channel(iw_zero, "w's zero point");
  if (q) {
    fp32_scale(node, inputs, 1, "x_scale");
    fp32_scale(node, inputs, 4, "w_scale");
    fp32_scale(node, inputs, 6, "y_scale");
    one_element(node, inputs, 1, "x_scale");
    p.w_scale_per_channel = per_channel(4, "w_scale");
    one_element(node, inputs, 6, "y_scale");
    one_element(node, inputs, 7, "y_zero_point");
    p.y_signed = zero_point_8bit(node, inputs, 7, "y_zero_point");
    const auto& bias = input(inputs, 8);
    if (bias.present && (bias.dtype != DType::kInt32 || bias.dims.size() != 1 || bias.dims[0] != p.out_channels))
      throw Error(fmt::format("QLinearConv's B is {} {}: it must be int32 [{}]", graph::dtype_name(bias.dtype),
                              dims_text(bias.dims), p.out_channels));
  }
  return p;
}

}  // namespace ridge::exec::cuda
