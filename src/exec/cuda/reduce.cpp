// ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp,
// ReduceSumSquare, ArgMax and ArgMin on fp32 tensors, and MeanVarianceNormalization and LpNormalization by the same
// walk: the axes and the walk worked out on the host (reduce_plan.h), a block per output element on the GPU
// (reduce_kernels.h). Axes given as an input are a constant where exporters write them; otherwise (a graph input, as in
// ONNX's node tests) they are read back (KernelContext::host_ints).
#include <fmt/format.h>

#include "exec/cuda/op_kernel.h"
#include "exec/cuda/reduce_kernels.h"
#include "exec/cuda/reduce_plan.h"

namespace ridge::exec::cuda {

namespace {

void reduction(KernelContext& ctx) {
  auto op = reduce_op(ctx.node.op_type);
  const auto& x = ctx.float_input(0);
  std::vector<int64_t> axes_values;
  const std::vector<int64_t>* axes_input = nullptr;
  if (!reduce_is_arg(op) && ctx.has(1)) {
    axes_values = ctx.host_ints(1);
    axes_input = &axes_values;
  }
  bool noop = false;
  auto axes = reduce_axes(ctx.node, static_cast<int64_t>(x.dims.size()), axes_input, noop);
  if (noop) {
    ctx.alias_output(0, x);
    return;
  }
  auto plan = reduce_plan(x.dims, axes);
  plan.select_last = ctx.node.get_int("select_last_index", 0) != 0;
  auto& y = ctx.allocate_output(0);
  if (y.numel() != plan.outputs)
    ctx.fail(fmt::format("the output has {} elements, the reduction {}", y.numel(), plan.outputs));
  if (reduce_is_arg(op) && y.dtype != graph::DType::kInt64) ctx.fail("ArgMax and ArgMin write int64");
  if (!reduce_is_arg(op) && y.dtype != graph::DType::kFloat32) ctx.fail("the reduction's output is not fp32");
  reduce(plan, op, x.as<float>(), reduce_is_arg(op) ? nullptr : y.as<float>(),
         reduce_is_arg(op) ? y.as<int64_t>() : nullptr, ctx.gpu.stream());
  ctx.check_launch("the reduction");
}

// MeanVarianceNormalization and LpNormalization: each group's sums by the reduction's walk, then its elements divided.
void walk_norm_op(KernelContext& ctx) {
  const auto& x = ctx.float_input(0);
  std::vector<int64_t> axes;
  auto op = walk_norm(ctx.node, static_cast<int64_t>(x.dims.size()), axes);
  auto plan = reduce_plan(x.dims, axes);
  auto& y = ctx.allocate_output(0, graph::DType::kFloat32, x.dims);
  walk_normalize(plan, op, x.as<float>(), y.as<float>(), ctx.gpu.stream());
  ctx.check_launch(ctx.node.op_type);
}

}  // namespace

void register_reduce_kernels(KernelRegistry& r) {
  r.add("reduction", {{"ReduceSum", reduction},
                      {"ReduceMean", reduction},
                      {"ReduceMax", reduction},
                      {"ReduceMin", reduction},
                      {"ReduceProd", reduction},
                      {"ReduceL1", reduction},
                      {"ReduceL2", reduction},
                      {"ReduceLogSum", reduction},
                      {"ReduceLogSumExp", reduction},
                      {"ReduceSumSquare", reduction},
                      {"ArgMax", reduction},
                      {"ArgMin", reduction}});
  r.add("normalization", {{"MeanVarianceNormalization", walk_norm_op}, {"LpNormalization", walk_norm_op}});
}

}  // namespace ridge::exec::cuda
