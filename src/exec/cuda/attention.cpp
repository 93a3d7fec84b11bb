// ONNX's Attention (opset 23) on the GPU: one kernel (attention_kernels.h) reads Q, K and V through the strides its
// plan (attention_plan.h) gives them, so neither the 3-D inputs' head split nor grouped-query attention's shared heads
// copies anything, and the scores never reach device memory. The same kernel runs optimized mode's fused attention
// (exec/attention_fusion.h: a fused node is an Attention node carrying the pattern's permutations), whose plan is
// worked out once per input dims and kept.
#include <fmt/format.h>

#include <optional>

#include "exec/attention_fusion.h"
#include "exec/cuda/attention_kernels.h"
#include "exec/cuda/attention_plan.h"
#include "exec/cuda/op_kernel.h"
#include "sys/cuda/check.h"
#include "util/error.h"

namespace ridge::exec::cuda {

namespace {

// Q's element type, which K and V share: fp32, fp16 or bf16; else a named failure.
ElementType operand_type(KernelContext& ctx) {
  const auto& q = ctx.in(0);
  const auto& k = ctx.in(1);
  const auto& v = ctx.in(2);
  if (k.dtype != q.dtype || v.dtype != q.dtype)
    ctx.fail(fmt::format("Q, K and V of types {}, {} and {}", graph::dtype_name(q.dtype), graph::dtype_name(k.dtype),
                         graph::dtype_name(v.dtype)));
  ElementType type = ElementType::kBool;
  if (!element_type(q.dtype, type) || !(type == ElementType::kFloat32 || is_16bit(type)))
    ctx.fail(fmt::format("Attention of {}: the GPU computes fp32, fp16 and bf16", graph::dtype_name(q.dtype)));
  return type;
}

// Input 3, the mask, as the kernel reads it: a bool as bytes, a float of Q's type (an fp32 mask beside 16-bit
// activations converted); undefined where there is none.
GpuTensor mask_input(KernelContext& ctx) {
  if (!ctx.has(3)) return {};
  auto mask = ctx.in(3);
  const auto& q = ctx.in(0);
  if (mask.dtype == graph::DType::kBool || mask.dtype == q.dtype) return mask;
  auto converted = ctx.scratch(q.dtype, mask.dims);
  if (!cast(mask.dtype, mask.data(), q.dtype, converted.data(), mask.numel(), ctx.gpu.stream()))
    ctx.fail(fmt::format("a mask of {}: a mask is bool or of Q's type", graph::dtype_name(mask.dtype)));
  return converted;
}

void launch(KernelContext& ctx, const AttentionPlan& plan, const GpuTensor& mask, ElementType type,
            const std::vector<int64_t>& y_dims) {
  const auto& q = ctx.in(0);
  auto& y = ctx.allocate_output(0, q.dtype, y_dims);
  if (y.numel() == 0) return;
  // No keys: each query's weights sum over nothing, its context is zeros, as the CPU executor gives (ONNX's reference
  // has no answer: its softmax of an empty row fails); the kernel would divide 0 by 0.
  if (plan.keys == 0) {
    sys::cuda::check(cudaMemsetAsync(y.data(), 0, y.bytes(), ctx.gpu.stream()), "attention over no keys");
    return;
  }
  if (!attention(plan, q.data(), ctx.in(1).data(), ctx.in(2).data(), mask.defined() ? mask.data() : nullptr, y.data(),
                 type, ctx.gpu.stream()))
    ctx.fail("the attention kernel takes no launch of this size");
  ctx.check_launch("attention");
}

// A fused attention's plan, kept for the dims it was worked out for.
struct FusedState : NodeState {
  std::vector<std::vector<int64_t>> dims;
  AttentionPlan plan;
};

void fused_attention(KernelContext& ctx) {
  auto type = operand_type(ctx);
  auto mask = mask_input(ctx);
  auto y_dims = ctx.output_dims(0);
  std::vector<std::vector<int64_t>> dims{ctx.in(0).dims, ctx.in(1).dims, ctx.in(2).dims, y_dims};
  if (mask.defined()) dims.push_back(mask.dims);
  auto& state = ctx.cached<FusedState>();
  if (state.dims != dims) {
    try {
      std::optional<std::vector<int64_t>> mask_dims;
      if (mask.defined()) mask_dims = mask.dims;
      state.plan = fused_attention_plan(attention_pattern(ctx.node, dims[0], dims[1], dims[2], mask_dims, y_dims));
    } catch (const Error& e) {
      ctx.fail(e.what());
    }
    state.dims = std::move(dims);
  }
  if (state.plan.mask == AttentionMask::kAdd && mask.dtype == graph::DType::kBool)
    ctx.fail("the fused attention adds a bool mask");
  if ((state.plan.mask == AttentionMask::kKeep || state.plan.mask == AttentionMask::kDrop) &&
      mask.dtype != graph::DType::kBool)
    ctx.fail("the fused attention's Where reads a mask that is not bool");
  launch(ctx, state.plan, mask, type, y_dims);
}

void attention_op(KernelContext& ctx) {
  if (is_fused_attention(ctx.node)) {
    fused_attention(ctx);
    return;
  }
  auto type = operand_type(ctx);
  auto mask = mask_input(ctx);
  std::optional<MaskInput> mask_dims;
  if (mask.defined()) mask_dims = MaskInput{mask.dims, mask.dtype == graph::DType::kBool};
  auto y_dims = ctx.output_dims(0);
  AttentionPlan plan;
  try {
    check_attention_io(ctx.node);
    plan = onnx_attention_plan(ctx.node, ctx.in(0).dims, ctx.in(1).dims, ctx.in(2).dims, mask_dims, y_dims);
  } catch (const Error& e) {
    ctx.fail(e.what());
  }
  launch(ctx, plan, mask, type, y_dims);
}

}  // namespace

void register_attention_kernels(KernelRegistry& r) {
  r.add("attention", {{"Attention", attention_op, storage_input(0) | storage_input(1) | storage_input(2)}});
}

}  // namespace ridge::exec::cuda
