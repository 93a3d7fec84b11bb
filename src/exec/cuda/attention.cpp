// ONNX's Attention (opset 23) on the GPU: one kernel (attention_kernels.h) reads Q, K and V through the strides its
// plan (attention_plan.h) gives them, so neither the 3-D inputs' head split nor grouped-query attention's shared heads
// copies anything, and the scores never reach device memory.
#include <fmt/format.h>

#include <optional>

#include "exec/cuda/attention_kernels.h"
#include "exec/cuda/attention_plan.h"
#include "exec/cuda/op_kernel.h"
#include "util/error.h"

namespace ridge::exec::cuda {

namespace {

void attention_op(KernelContext& ctx) {
  const auto& q = ctx.in(0);
  const auto& k = ctx.in(1);
  const auto& v = ctx.in(2);
  if (k.dtype != q.dtype || v.dtype != q.dtype)
    ctx.fail(fmt::format("Q, K and V of types {}, {} and {}", graph::dtype_name(q.dtype), graph::dtype_name(k.dtype),
                         graph::dtype_name(v.dtype)));
  ElementType type = ElementType::kBool;
  if (!element_type(q.dtype, type) || !(type == ElementType::kFloat32 || is_16bit(type)))
    ctx.fail(fmt::format("Attention of {}: the GPU computes fp32, fp16 and bf16", graph::dtype_name(q.dtype)));
  std::optional<MaskInput> mask_input;
  GpuTensor mask;
  if (ctx.has(3)) {
    mask = ctx.in(3);
    mask_input = MaskInput{mask.dims, mask.dtype == graph::DType::kBool};
    if (!mask_input->is_bool && mask.dtype != q.dtype) {  // an fp32 mask beside 16-bit activations
      auto converted = ctx.scratch(q.dtype, mask.dims);
      if (!cast(mask.dtype, mask.data(), q.dtype, converted.data(), mask.numel(), ctx.gpu.stream()))
        ctx.fail(fmt::format("attn_mask of {}: a mask is bool or of Q's type", graph::dtype_name(mask.dtype)));
      mask = converted;
    }
  }
  auto y_dims = ctx.output_dims(0);
  AttentionPlan plan;
  try {
    check_attention_io(ctx.node);
    plan = onnx_attention_plan(ctx.node, q.dims, k.dims, v.dims, mask_input, y_dims);
  } catch (const Error& e) {
    ctx.fail(e.what());
  }
  auto& y = ctx.allocate_output(0, q.dtype, y_dims);
  if (y.numel() == 0) return;
  if (!attention(plan, q.data(), k.data(), v.data(), mask.defined() ? mask.data() : nullptr, y.data(), type,
                 ctx.gpu.stream()))
    ctx.fail("the attention kernel takes no launch of this size");
  ctx.check_launch("attention");
}

}  // namespace

void register_attention_kernels(KernelRegistry& r) {
  r.add("attention", {{"Attention", attention_op, storage_input(0) | storage_input(1) | storage_input(2)}});
}

}  // namespace ridge::exec::cuda
