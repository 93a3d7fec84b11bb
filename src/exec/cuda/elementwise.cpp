// Elementwise ops: activations and math on fp32 (small kernels), binary ops with ONNX (numpy)
// broadcasting on fp32 and int64, comparisons and logic to bool, Where, Cast.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "exec/cuda/backward.h"
#include "exec/cuda/bitwise_kernels.h"
#include "exec/cuda/elementwise_plan.h"
#include "exec/cuda/op_kernel.h"
#include "exec/cuda/training_kernels.h"
#include "util/error.h"

namespace ridge::exec::cuda {

namespace {

void run_unary(KernelContext& ctx, UnaryOp op, float a, float b) {
  const auto& x = op == UnaryOp::kNot ? ctx.in(0) : ctx.activation(0);
  auto& y = ctx.allocate_output(0, x.dtype, x.dims);
  ElementType type = ElementType::kFloat32;
  element_type(x.dtype, type);
  unary(op, x.data(), y.data(), x.numel(), a, b, ctx.gpu.stream(), type);
  ctx.check_launch("elementwise kernel");
}

// Every unary op whose parameters are attributes (elementwise_plan.h).
void unary_node(KernelContext& ctx) {
  auto call = unary_call(ctx.node);
  if (!call) ctx.fail(ctx.node.op_type + " is no unary op");
  run_unary(ctx, call->op, call->a, call->b);
}

// A scalar from a constant input (Clip's min and max since opset 11), else `fallback`.
float scalar_input(KernelContext& ctx, size_t i, float fallback) {
  if (!ctx.has(i)) return fallback;
  auto id = ctx.node.input(i);
  const auto* c = ctx.graph.value(id).constant.get();
  if (!c || c->size() != 1) ctx.fail(fmt::format("input {} must be a constant scalar", i));
  return static_cast<float>(c->as_real(0));
}

std::pair<float, float> clip_bounds(KernelContext& ctx) {
  float inf = std::numeric_limits<float>::infinity();
  float low = ctx.opset >= 11 ? scalar_input(ctx, 1, -inf) : static_cast<float>(ctx.node.get_float("min", -inf));
  float high = ctx.opset >= 11 ? scalar_input(ctx, 2, inf) : static_cast<float>(ctx.node.get_float("max", inf));
  return {low, high};
}

void clip(KernelContext& ctx) {
  auto bounds = clip_bounds(ctx);
  run_unary(ctx, UnaryOp::kClip, bounds.first, bounds.second);
}

// Every binary op (elementwise_plan.h): Add ... Or, PRelu, Mod.
void binary_node(KernelContext& ctx) {
  auto call = binary_call(ctx.node);
  if (!call) ctx.fail(ctx.node.op_type + " is no binary op");
  const BinaryOp op = *call;
  const auto& a = ctx.in(0);
  const auto& b = ctx.in(1);
  if (a.dtype != b.dtype) ctx.fail("operands of different types");
  bool logic = is_logic(op);
  bool int64 = a.dtype == graph::DType::kInt64;
  // An arithmetic op's operands may be the 16-bit activations the run keeps (storage_plan.h).
  bool stored = a.dtype == ctx.storage && ctx.storage != graph::DType::kFloat32 && !is_comparison(op);
  if (logic ? a.dtype != graph::DType::kBool : (!int64 && !stored && a.dtype != graph::DType::kFloat32))
    ctx.fail(fmt::format("operands are {}; the GPU kernel takes fp32 or int64", graph::dtype_name(a.dtype)));
  auto& y = ctx.allocate_output(0);
  ElementType type = ElementType::kFloat32;
  if (stored) element_type(a.dtype, type);
  auto al = logical_layout(a, y.dims), bl = logical_layout(b, y.dims), ol = dense_layout(y.dims);
  if (y.channels_last) {  // walked in the output's NHWC order: each operand's strides (NHWC or broadcast) follow
    al = nhwc_order(al);
    bl = nhwc_order(bl);
    ol = dense_layout(nhwc_dims(y.dims));
  }
  binary(op, int64, a.data(), al, b.data(), bl, y.data(), ol, ctx.gpu.stream(), type);
  ctx.check_launch("binary kernel");
}

// Sum, Max, Min, Mean of any number of inputs: pairwise.
template <BinaryOp op>
void variadic(KernelContext& ctx) {
  auto& y = ctx.allocate_output(0);
  const auto& first = ctx.float_input(0);
  strided_copy(first.data(), broadcast_layout(first.dims, y.dims), 0, y.data(), y.numel(), 4, ctx.gpu.stream());
  for (size_t i = 1; i < ctx.inputs.size(); ++i) {
    const auto& x = ctx.float_input(i);
    binary(op, false, y.data(), dense_layout(y.dims), x.data(), broadcast_layout(x.dims, y.dims), y.data(),
           dense_layout(y.dims), ctx.gpu.stream());
  }
  ctx.check_launch("variadic kernel");
}

// Mean: the inputs' Sum, divided by their count (as ONNX's reference divides; no reciprocal's rounding).
void mean_op(KernelContext& ctx) {
  variadic<BinaryOp::kAdd>(ctx);
  auto& y = ctx.outputs.at(0);
  auto count = ctx.scratch(graph::DType::kFloat32, {});
  fill(count.as<float>(), 1, static_cast<float>(ctx.inputs.size()), ctx.gpu.stream());
  binary(BinaryOp::kDiv, false, y.data(), dense_layout(y.dims), count.data(), broadcast_layout({}, y.dims), y.data(),
         dense_layout(y.dims), ctx.gpu.stream());
  ctx.check_launch("Mean");
}

// IsNaN, and IsInf with its detect_positive and detect_negative (both 1 by default), of fp32 to bool.
void classify_op(KernelContext& ctx) {
  const auto& x = ctx.float_input(0);
  auto& y = ctx.allocate_output(0, graph::DType::kBool, x.dims);
  const bool inf = ctx.node.op_type == "IsInf";
  classify(x.as<float>(), static_cast<uint8_t*>(y.data()), x.numel(), !inf,
           inf && ctx.node.get_int("detect_positive", 1) != 0, inf && ctx.node.get_int("detect_negative", 1) != 0,
           ctx.gpu.stream());
  ctx.check_launch(ctx.node.op_type);
}

void where_op(KernelContext& ctx) {
  const auto& c = ctx.in(0);
  const auto& x = ctx.in(1);
  const auto& z = ctx.in(2);
  if (c.dtype != graph::DType::kBool) ctx.fail("the condition must be bool");
  auto& y = ctx.allocate_output(0);
  if (x.dtype != y.dtype || z.dtype != y.dtype) ctx.fail("the choices' types differ from the output's");
  where(c.data(), broadcast_layout(c.dims, y.dims), x.data(), broadcast_layout(x.dims, y.dims), z.data(),
        broadcast_layout(z.dims, y.dims), y.data(), dense_layout(y.dims),
        static_cast<int>(graph::dtype_bytes(y.dtype, 1)), ctx.gpu.stream());
  ctx.check_launch("Where");
}

// BitwiseAnd/Or/Xor/Not and BitShift on integer tensors (bitwise_kernels.h): the bits of the element's width.
void bitwise_op(KernelContext& ctx) {
  const auto& op_type = ctx.node.op_type;
  const BitOp op = op_type == "BitwiseAnd"                          ? BitOp::kAnd
                   : op_type == "BitwiseOr"                         ? BitOp::kOr
                   : op_type == "BitwiseXor"                        ? BitOp::kXor
                   : op_type == "BitwiseNot"                        ? BitOp::kNot
                   : ctx.node.get_string("direction", "") == "LEFT" ? BitOp::kShiftLeft
                                                                    : BitOp::kShiftRight;
  const auto& a = ctx.in(0);
  if (!graph::is_integral(a.dtype) || a.dtype == graph::DType::kBool)
    ctx.fail(fmt::format("{} of {}: ONNX's bitwise ops take integers", op_type, graph::dtype_name(a.dtype)));
  const GpuTensor& b = op == BitOp::kNot ? a : ctx.in(1);
  if (b.dtype != a.dtype) ctx.fail("operands of different types");
  auto& y = ctx.allocate_output(0, a.dtype, ctx.output_dims(0));
  if (!bitwise(op, a.data(), broadcast_layout(a.dims, y.dims), b.data(), broadcast_layout(b.dims, y.dims), y.data(),
               dense_layout(y.dims), static_cast<int>(graph::dtype_bytes(a.dtype, 1)), ctx.gpu.stream()))
    ctx.fail(fmt::format("{} of {}: no GPU kernel for its width", op_type, graph::dtype_name(a.dtype)));
  ctx.check_launch(op_type);
}

void cast_op(KernelContext& ctx) {
  const auto& x = ctx.in(0);
  auto to = ctx.output_dtype(0);
  if (x.dtype == to) {
    ctx.alias_output(0, x);
    return;
  }
  auto& y = ctx.allocate_output(0);
  if (!cast(x.dtype, x.data(), to, y.data(), x.numel(), ctx.gpu.stream()))
    ctx.fail(fmt::format("no GPU cast from {} to {}", graph::dtype_name(x.dtype), graph::dtype_name(to)));
  ctx.check_launch("Cast");
}

// Backward rows. ReLU from its output (as PyTorch's threshold_backward), Clip from its input (hardtanh_backward:
// no gradient at the bounds), Sigmoid and Tanh from their outputs; Add, Sub, Mul, Div and Where with each operand's
// gradient summed over the dims it was broadcast along.
void relu_backward_op(BackwardContext& b) {
  if (!b.wants(0)) return;
  const auto& y = b.forward.outputs.at(0);
  auto& dx = b.grad(0);
  relu_backward(y.as<float>(), b.dy().as<float>(), dx.as<float>(), dx.numel(), b.forward.gpu.stream());
  b.forward.check_launch("Relu backward");
}

void clip_backward_op(BackwardContext& b) {
  if (!b.wants(0)) return;
  auto bounds = clip_bounds(b.forward);
  const auto& x = b.forward.float_input(0);
  auto& dx = b.grad(0);
  clip_backward(x.as<float>(), b.dy().as<float>(), dx.as<float>(), dx.numel(), bounds.first, bounds.second,
                b.forward.gpu.stream());
  b.forward.check_launch("Clip backward");
}

// `dense` (dY's dims) op `other` (broadcast over them), in `dense`'s layout: walked in NHWC order where `dense` is
// held so, each operand read by its own strides (as the forward's binary_node walks a channels-last output).
GpuTensor apply(BackwardContext& b, BinaryOp op, const GpuTensor& dense, const GpuTensor& other) {
  auto out = b.forward.scratch(graph::DType::kFloat32, dense.dims);
  out.channels_last = dense.channels_last;
  auto al = logical_layout(dense, dense.dims), bl = logical_layout(other, dense.dims), ol = dense_layout(dense.dims);
  if (out.channels_last) {
    al = nhwc_order(al);
    bl = nhwc_order(bl);
    ol = dense_layout(nhwc_dims(dense.dims));
  }
  binary(op, false, dense.data(), al, other.data(), bl, out.data(), ol, b.forward.gpu.stream());
  b.forward.check_launch("a binary op's backward");
  return out;
}

GpuTensor negated(BackwardContext& b, const GpuTensor& t) {
  auto out = b.forward.scratch(graph::DType::kFloat32, t.dims);
  out.channels_last = t.channels_last;  // element for element: the same order
  scale(t.as<float>(), out.as<float>(), t.numel(), -1.f, b.forward.gpu.stream());
  b.forward.check_launch("negating a gradient");
  return out;
}

// Add: dY to both; Sub: dY and -dY; Mul: dY b and dY a; Div (y = a / b): dY / b and -dY y / b.
template <BinaryOp op>
void binary_backward(BackwardContext& b) {
  auto& ctx = b.forward;
  const auto& dy = b.dy();
  if (b.wants(0)) {
    if (op == BinaryOp::kMul || op == BinaryOp::kDiv)
      b.set_reduced_grad(0, apply(b, op, dy, ctx.float_input(1)));
    else
      b.set_reduced_grad(0, dy);
  }
  if (!b.wants(1)) return;
  if (op == BinaryOp::kAdd) return b.set_reduced_grad(1, dy);
  if (op == BinaryOp::kSub) return b.set_reduced_grad(1, negated(b, dy));
  if (op == BinaryOp::kMul) return b.set_reduced_grad(1, apply(b, BinaryOp::kMul, dy, ctx.float_input(0)));
  auto dy_y = apply(b, BinaryOp::kMul, dy, ctx.outputs.at(0));  // Div
  b.set_reduced_grad(1, negated(b, apply(b, BinaryOp::kDiv, dy_y, ctx.float_input(1))));
}

void erf_backward_op(BackwardContext& b) {
  if (!b.wants(0)) return;
  auto& dx = b.grad(0);
  erf_backward(b.forward.float_input(0).as<float>(), b.dy().as<float>(), dx.as<float>(), dx.numel(),
               b.forward.gpu.stream());
  b.forward.check_launch("Erf backward");
}

// An activation whose gradient comes from its output (Sigmoid: dY y (1 - y); Tanh: dY (1 - y^2)).
template <void (*launch)(const float*, const float*, float*, int64_t, cudaStream_t)>
void from_output_backward(BackwardContext& b) {
  if (!b.wants(0)) return;
  auto& dx = b.grad(0);
  launch(b.forward.outputs.at(0).as<float>(), b.dy().as<float>(), dx.as<float>(), dx.numel(), b.forward.gpu.stream());
  b.forward.check_launch(b.forward.node.op_type + " backward");
}

// Where(c, a, b): a's gradient dY where c holds, b's where it does not (0 elsewhere), each summed over the dims it
// was broadcast along; the condition has none.
void where_backward_op(BackwardContext& b) {
  auto& ctx = b.forward;
  const auto& cond = ctx.in(0);
  if (cond.dtype != graph::DType::kBool) ctx.fail("Where's condition must be bool");
  const auto& dy = b.dy();
  auto zero = ctx.scratch(graph::DType::kFloat32, {1});
  fill(zero.as<float>(), 1, 0.f, ctx.gpu.stream());
  const auto out = dense_layout(dy.dims), cond_layout = broadcast_layout(cond.dims, dy.dims),
             scalar = broadcast_layout({}, dy.dims);
  for (size_t i : {size_t{1}, size_t{2}}) {
    if (!b.wants(i)) continue;
    auto g = ctx.scratch(graph::DType::kFloat32, dy.dims);
    if (i == 1)
      where(cond.data(), cond_layout, dy.data(), out, zero.data(), scalar, g.data(), out, 4, ctx.gpu.stream());
    else
      where(cond.data(), cond_layout, zero.data(), scalar, dy.data(), out, g.data(), out, 4, ctx.gpu.stream());
    ctx.check_launch("Where backward");
    b.set_reduced_grad(i, g);
  }
}

}  // namespace

void register_elementwise_backward(BackwardRegistry& registry) {
  // Channels-last: the activations' backwards are element for element over x (or y), dY and dX, which the step gives
  // in one layout; the arithmetic's walk each operand by its strides (apply); Where's reads NCHW.
  constexpr bool kNhwc = true;
  registry.add("elementwise", {{"Relu", relu_backward_op, {}, nullptr, kNhwc},
                               {"Clip", clip_backward_op, {}, nullptr, kNhwc},
                               {"Add", binary_backward<BinaryOp::kAdd>, {}, nullptr, kNhwc},
                               {"Sub", binary_backward<BinaryOp::kSub>, {}, nullptr, kNhwc},
                               {"Mul", binary_backward<BinaryOp::kMul>, {}, nullptr, kNhwc},
                               {"Div", binary_backward<BinaryOp::kDiv>, {}, nullptr, kNhwc},
                               {"Erf", erf_backward_op, {}, nullptr, kNhwc},
                               {"Tanh", from_output_backward<tanh_backward>, {}, nullptr, kNhwc},
                               {"Sigmoid", from_output_backward<sigmoid_backward>, {}, nullptr, kNhwc},
                               {"Where", where_backward_op}});
}

void register_elementwise_kernels(KernelRegistry& registry) {
  // The rows that take 16-bit activations (storage_plan.h): the activations, arithmetic and Where's choices; not
  // comparisons, whose operands stay fp32. Activations and arithmetic take channels-last ones too.
  constexpr StorageInputs kX = storage_input(0), kXY = storage_input(0) | storage_input(1);
  // clang-format off
  registry.add("elementwise", {
      // unary_call's ops (elementwise_plan.cpp; tests/cuda checks the two lists agree)
      {"Relu", unary_node, kX, kX}, {"Sigmoid", unary_node, kX, kX}, {"Tanh", unary_node, kX, kX},
      {"Erf", unary_node, kX, kX}, {"Exp", unary_node, kX, kX}, {"Log", unary_node, kX, kX},
      {"Sqrt", unary_node, kX, kX}, {"Neg", unary_node, kX, kX}, {"Abs", unary_node, kX, kX},
      {"Reciprocal", unary_node, kX, kX}, {"Floor", unary_node, kX, kX}, {"Ceil", unary_node, kX, kX},
      {"Sin", unary_node, kX, kX}, {"Cos", unary_node, kX, kX}, {"HardSwish", unary_node, kX, kX},
      {"Softplus", unary_node, kX, kX}, {"Not", unary_node}, {"Mish", unary_node, kX, kX},
      {"Softsign", unary_node, kX, kX}, {"Sign", unary_node, kX, kX}, {"Round", unary_node, kX, kX},
      {"Tan", unary_node, kX, kX}, {"Asin", unary_node, kX, kX}, {"Acos", unary_node, kX, kX},
      {"Atan", unary_node, kX, kX}, {"Sinh", unary_node, kX, kX}, {"Cosh", unary_node, kX, kX},
      {"Asinh", unary_node, kX, kX}, {"Acosh", unary_node, kX, kX}, {"Atanh", unary_node, kX, kX},
      {"LeakyRelu", unary_node, kX, kX}, {"Elu", unary_node, kX, kX}, {"HardSigmoid", unary_node, kX, kX},
      {"Selu", unary_node, kX, kX}, {"Celu", unary_node, kX, kX}, {"Gelu", unary_node, kX, kX},
      {"Shrink", unary_node, kX, kX}, {"ThresholdedRelu", unary_node, kX, kX}, {"Swish", unary_node, kX, kX},
      {"Clip", clip, kX, kX},
      // binary_call's ops
      {"Add", binary_node, kXY, kXY}, {"Sub", binary_node, kXY, kXY}, {"Mul", binary_node, kXY, kXY},
      {"Div", binary_node, kXY, kXY}, {"Pow", binary_node, kXY, kXY}, {"PRelu", binary_node, kXY, kXY},
      {"Mod", binary_node, kXY, kXY}, {"Equal", binary_node}, {"Less", binary_node}, {"Greater", binary_node},
      {"GreaterOrEqual", binary_node}, {"LessOrEqual", binary_node}, {"And", binary_node}, {"Or", binary_node},
      {"Xor", binary_node},
      {"Max", variadic<BinaryOp::kMax>}, {"Min", variadic<BinaryOp::kMin>}, {"Sum", variadic<BinaryOp::kAdd>},
      {"Mean", mean_op}, {"IsNaN", classify_op}, {"IsInf", classify_op},
      {"Where", where_op, storage_input(1) | storage_input(2)}, {"Cast", cast_op},
      {"CastLike", cast_op}, {"BitwiseAnd", bitwise_op}, {"BitwiseOr", bitwise_op}, {"BitwiseXor", bitwise_op},
      {"BitwiseNot", bitwise_op}, {"BitShift", bitwise_op},
  });
  // clang-format on
}

}  // namespace ridge::exec::cuda
