// MatMulInteger, QLinearMatMul, ConvInteger and QLinearConv on the GPU: the plan from the inputs' types and dims
// (integer_plan.h), then one launch of the direct kernel (integer_kernels.h). A quantized model in the operator form
// (ONNX Runtime's dynamic quantization writes MatMulInteger; its static quantization QLinearConv and QLinearMatMul)
// runs its integer arithmetic as written, exact; the kernels are CUDA-core loops, so their times are not those of int8
// tensor cores.
#include "exec/cuda/integer_products.h"

#include <fmt/format.h>

#include "exec/cuda/integer_kernels.h"
#include "exec/cuda/integer_plan.h"

namespace ridge::exec::cuda {

namespace {

std::vector<IntegerInput> described(const KernelContext& ctx) {
  std::vector<IntegerInput> inputs(ctx.node.inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!ctx.has(i)) continue;
    inputs[i] = {true, ctx.inputs[i].dtype, ctx.inputs[i].dims};
  }
  return inputs;
}

const void* optional_data(const KernelContext& ctx, size_t i) { return ctx.has(i) ? ctx.inputs[i].data() : nullptr; }

// The device pointers a cell reads, from the inputs integer_slots places.
IntegerOperands operands(const KernelContext& ctx, bool quantized) {
  const auto slots = integer_slots(quantized);
  IntegerOperands o;
  o.a = ctx.in(slots.a).data();
  o.b = ctx.in(slots.b).data();
  o.a_zero = optional_data(ctx, slots.a_zero);
  o.b_zero = optional_data(ctx, slots.b_zero);
  if (quantized) {
    o.a_scale = ctx.in(1).as<float>();
    o.b_scale = ctx.in(4).as<float>();
    o.y_scale = ctx.in(6).as<float>();
    o.y_zero = optional_data(ctx, 7);
    o.bias = ctx.has(8) ? ctx.in(8).as<int32_t>() : nullptr;  // QLinearConv's; QLinearMatMul has 8 inputs
  }
  return o;
}

// The output's type: int32 for the sums, y's 8-bit type for the QLinear forms; checked against shape inference's.
graph::DType output_type(const KernelContext& ctx, bool quantized, bool y_signed) {
  auto type = !quantized ? graph::DType::kInt32 : (y_signed ? graph::DType::kInt8 : graph::DType::kUInt8);
  auto inferred = ctx.output_dtype(0);
  if (inferred != graph::DType::kUndefined && inferred != type)
    ctx.fail(fmt::format("its output is declared {}, the product gives {}", graph::dtype_name(inferred),
                         graph::dtype_name(type)));
  return type;
}

void matmul_op(KernelContext& ctx) {
  auto inputs = described(ctx);
  auto plan = ctx.planned([&] { return integer_matmul_plan(ctx.node, inputs); });
  const auto slots = integer_slots(plan.quantized);
  auto dims = integer_matmul_dims(plan, ctx.in(slots.a).dims, ctx.in(slots.b).dims);
  auto& y = ctx.allocate_output(0, output_type(ctx, plan.quantized, plan.y_signed), dims);
  integer_matmul(plan, operands(ctx, plan.quantized), y.data(), ctx.gpu.stream());
  ctx.check_launch(ctx.node.op_type);
}

void conv_op(KernelContext& ctx) {
  auto inputs = described(ctx);
  auto plan = ctx.planned([&] { return integer_conv_plan(ctx.node, inputs); });
  std::vector<int64_t> dims{plan.batch, plan.out_channels};
  for (int d = 0; d < plan.spatial; ++d) dims.push_back(plan.out[d]);
  auto& y = ctx.allocate_output(0, output_type(ctx, plan.quantized, plan.y_signed), dims);
  integer_conv(plan, operands(ctx, plan.quantized), y.data(), ctx.gpu.stream());
  ctx.check_launch(ctx.node.op_type);
}

}  // namespace

void register_integer_kernels(KernelRegistry& registry) {
  // The families of the executor's op table (exec/matmul.cpp, exec/quantization.cpp).
  registry.add("matmul", {{"MatMulInteger", matmul_op}});
  registry.add("quantization", {{"QLinearMatMul", matmul_op}, {"ConvInteger", conv_op}, {"QLinearConv", conv_op}});
}

}  // namespace ridge::exec::cuda
