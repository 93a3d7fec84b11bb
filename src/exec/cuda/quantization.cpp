// Linear quantization on the GPU: QuantizeLinear and DequantizeLinear per tensor or per channel, and
// DynamicQuantizeLinear (the range by two reductions, then one pass). A QDQ model (a quantized model as TensorRT and
// ONNX Runtime take it: Q/DQ pairs around fp32 layers) runs them as written: the layers between stay fp32, so the
// figures are those of simulated quantization, not of int8 kernels. The plan and the per-element arithmetic are worked
// out on the host (quantize_plan.h, quantize_cell.h) and tested there on the ONNX project's node tests.
#include <fmt/format.h>

#include <optional>

#include "exec/cuda/op_kernel.h"
#include "exec/cuda/quantize_kernels.h"
#include "exec/cuda/quantize_plan.h"
#include "exec/cuda/reduce_kernels.h"
#include "exec/cuda/reduce_plan.h"
#include "util/error.h"

namespace ridge::exec::cuda {

namespace {

// A constant scale's and zero point's converted copies, made on the first run (a QDQ model has two such nodes a layer:
// converting them every run would be two more launches each).
struct QuantizeState : NodeState {
  GpuTensor scale, zero_point;
};

// Input i (a scale or a zero point: a few elements) converted to `type` where it is of another; kept in `kept` where
// the input is a constant.
GpuTensor converted(KernelContext& ctx, size_t i, graph::DType type, GpuTensor& kept) {
  const auto& t = ctx.in(i);
  if (t.dtype == type) return t;
  if (kept.defined()) return kept;
  auto out = ctx.scratch(type, t.dims);
  // By each type's own element kind: an int8 or uint8 zero point widened to int32, not copied as floats.
  if (!cast(t.dtype, t.data(), type, out.data(), t.numel(), ctx.gpu.stream()))
    ctx.fail(fmt::format("input {} of {}: no GPU cast to {}", i, graph::dtype_name(t.dtype), graph::dtype_name(type)));
  ctx.check_launch("converting a scale or zero point");
  if (ctx.input_is_unchanging(i)) kept = out;
  return out;
}

struct Quantization {
  QuantizePlan plan;
  GpuTensor scale, zero_point;  // fp32 and int32; zero_point undefined where the node has none
};

Quantization quantization(KernelContext& ctx, const GpuTensor& x, graph::DType integer, bool quantizing) {
  Quantization q;
  std::optional<std::vector<int64_t>> zero_dims;
  if (ctx.has(2)) zero_dims = ctx.in(2).dims;
  q.plan = ctx.planned(
      [&] { return quantize_plan(ctx.node, x.dims, ctx.in(1).dims, zero_dims, quant_type(integer, quantizing)); });
  auto& state = ctx.cached<QuantizeState>();
  q.scale = converted(ctx, 1, graph::DType::kFloat32, state.scale);
  if (ctx.has(2)) q.zero_point = converted(ctx, 2, graph::DType::kInt32, state.zero_point);
  return q;
}

const int32_t* zero_point_of(const Quantization& q) {
  return q.zero_point.defined() ? q.zero_point.as<int32_t>() : nullptr;
}

void quantize_op(KernelContext& ctx) {
  const auto& x = ctx.in(0);
  auto& y = ctx.allocate_output(0);
  ElementType type{};
  if (!element_type(x.dtype, type) ||
      (type != ElementType::kFloat32 && type != ElementType::kFloat16 && type != ElementType::kBFloat16))
    ctx.fail(fmt::format("QuantizeLinear of {}: the GPU quantizes fp32, fp16 and bf16", graph::dtype_name(x.dtype)));
  auto q = quantization(ctx, x, y.dtype, true);
  if (!quantize(q.plan, x.data(), type, q.scale.as<float>(), zero_point_of(q), y.data(), ctx.gpu.stream()))
    ctx.fail(fmt::format("QuantizeLinear of {}: the GPU quantizes fp32, fp16 and bf16", graph::dtype_name(x.dtype)));
  ctx.check_launch("QuantizeLinear");
}

void dequantize_op(KernelContext& ctx) {
  const auto& x = ctx.in(0);
  auto& y = ctx.allocate_output(0);
  auto q = quantization(ctx, x, x.dtype, false);
  if (!dequantize(q.plan, x.data(), q.scale.as<float>(), zero_point_of(q), y.data(), element_type_of(y.dtype),
                  ctx.gpu.stream()))
    ctx.fail(fmt::format("DequantizeLinear to {}: the GPU writes fp32, fp16 and bf16", graph::dtype_name(y.dtype)));
  ctx.check_launch("DequantizeLinear");
}

void dynamic_quantize_op(KernelContext& ctx) {
  const auto& x = ctx.float_input(0);
  if (x.numel() == 0) ctx.fail("DynamicQuantizeLinear of an empty tensor has no range");
  std::vector<int64_t> all(x.dims.size());
  for (size_t d = 0; d < all.size(); ++d) all[d] = static_cast<int64_t>(d);
  auto plan = reduce_plan(x.dims, all);
  auto range = ctx.scratch(graph::DType::kFloat32, {2});
  reduce(plan, ReduceOp::kMin, x.as<float>(), range.as<float>(), nullptr, ctx.gpu.stream());
  reduce(plan, ReduceOp::kMax, x.as<float>(), range.as<float>() + 1, nullptr, ctx.gpu.stream());
  auto& y = ctx.allocate_output(0, graph::DType::kUInt8, x.dims);
  auto& scale = ctx.allocate_output(1, graph::DType::kFloat32, {});
  auto& zero_point = ctx.allocate_output(2, graph::DType::kUInt8, {});
  dynamic_quantize(x.as<float>(), x.numel(), range.as<float>(), static_cast<uint8_t*>(y.data()), scale.as<float>(),
                   static_cast<uint8_t*>(zero_point.data()), ctx.gpu.stream());
  ctx.check_launch("DynamicQuantizeLinear");
}

}  // namespace

void register_quantization_kernels(KernelRegistry& r) {
  r.add("quantization", {{"QuantizeLinear", quantize_op},
                         {"DequantizeLinear", dequantize_op},
                         {"DynamicQuantizeLinear", dynamic_quantize_op}});
}

}  // namespace ridge::exec::cuda
