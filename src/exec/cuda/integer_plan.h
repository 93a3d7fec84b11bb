#pragma once
// The plans of the GPU's integer products (integer_cell.h), worked out on the host from the node and its inputs'
// types and dims: MatMul's batch broadcast (numpy rules, 1-D operands promoted as MatMul's), where each zero point and
// scale is read (per tensor; A's per row, [M] or [..., M, 1]; B's per column, [N] or [..., 1, N]), and a
// convolution's window by shape inference's rule (shape/spatial.h: strides, dilations, pads, auto_pad).
#include <cstdint>
#include <vector>

#include "exec/cuda/integer_cell.h"
#include "graph/dtype.h"
#include "graph/graph.h"

namespace ridge::exec::cuda {

// One input of the node: present or not, its type and dims.
struct IntegerInput {
  bool present = false;
  graph::DType dtype = graph::DType::kUndefined;
  std::vector<int64_t> dims;
};

// Where the four ops' operands are: the integer forms take [a, b, a_zero_point, b_zero_point], the QLinear ones
// [a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point] (and QLinearConv's bias, 8).
struct IntegerSlots {
  size_t a, b, a_zero, b_zero;
};
constexpr IntegerSlots integer_slots(bool quantized) {
  return quantized ? IntegerSlots{0, 3, 2, 5} : IntegerSlots{0, 1, 2, 3};
}

// MatMulInteger ([A, B, a_zero_point, b_zero_point]) or QLinearMatMul ([a, a_scale, a_zero_point, b, b_scale,
// b_zero_point, y_scale, y_zero_point]), as `node.op_type` says; `inputs` as the node's. Throws ridge::Error (one
// line) for a type other than int8/uint8 (fp32 scales), a zero point or scale of another shape, or more than
// kIntegerMaxBatch batch dims.
IntegerMatMulPlan integer_matmul_plan(const graph::Node& node, const std::vector<IntegerInput>& inputs);

// The output dims of such a product (MatMul's rule).
std::vector<int64_t> integer_matmul_dims(const IntegerMatMulPlan& plan, const std::vector<int64_t>& a,
                                         const std::vector<int64_t>& b);

// ConvInteger ([x, w, x_zero_point, w_zero_point]) or QLinearConv ([x, x_scale, x_zero_point, w, w_scale,
// w_zero_point, y_scale, y_zero_point, B]). Throws ridge::Error (one line) as above, for 1 to 3 spatial dims
// otherwise, and for a window that does not fit.
IntegerConvPlan integer_conv_plan(const graph::Node& node, const std::vector<IntegerInput>& inputs);

}  // namespace ridge::exec::cuda
