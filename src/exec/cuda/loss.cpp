// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss on the GPU: the log-softmax over the classes by cuDNN (the
// second's), each sample's term and weight by loss_kernels.h, the sums by the reduction kernel, and the weighted mean's
// division. Targets outside the classes (not ignore_index) are counted on the first run and refused by name.
#include <fmt/format.h>

#include "exec/cuda/descriptors.h"
#include "exec/cuda/index_check.h"
#include "exec/cuda/loss_kernels.h"
#include "exec/cuda/loss_plan.h"
#include "exec/cuda/op_kernel.h"
#include "exec/cuda/reduce_kernels.h"
#include "exec/cuda/reduce_plan.h"
#include "sys/cuda/check.h"

namespace ridge::exec::cuda {

using sys::cuda::check;

namespace {

struct LossState : NodeState {
  TensorDescriptor scores;  // [N, C, inner, 1]: the log-softmax over C
  bool checked = false;
};

void loss_op(KernelContext& ctx, bool softmax) {
  const auto& scores = ctx.float_input(0);
  auto target = int64_indices(ctx, 1);
  const GpuTensor* weight = ctx.has(2) ? &ctx.float_input(2) : nullptr;
  auto plan = ctx.planned(
      [&] { return loss_plan(ctx.node, scores.dims, target.dims, weight ? weight->dims : std::vector<int64_t>{}); });
  auto& s = ctx.cached<LossState>();
  auto stream = ctx.gpu.stream();
  GpuTensor log_prob = scores;
  if (softmax) {
    log_prob = ctx.wants_output(1) ? ctx.allocate_output(1, graph::DType::kFloat32, scores.dims)
                                   : ctx.scratch(graph::DType::kFloat32, scores.dims);
    if (!s.scores.get()) s.scores = tensor_descriptor({plan.batch, plan.classes, plan.inner, 1}, scores.dtype);
    float one = 1.f, zero = 0.f;
    check(cudnnSoftmaxForward(ctx.gpu.cudnn(), CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_CHANNEL, &one, s.scores,
                              scores.data(), &zero, s.scores, log_prob.data()),
          "cudnnSoftmaxForward (the loss's log-softmax)");
  }
  const auto samples = plan.samples();
  const bool reduced = plan.reduction != LossReduction::kNone;
  auto& y = reduced ? ctx.allocate_output(0, graph::DType::kFloat32, {})
                    : ctx.allocate_output(0, graph::DType::kFloat32, target.dims);
  auto terms = reduced ? ctx.scratch(graph::DType::kFloat32, {samples}) : y;
  auto weights = plan.reduction == LossReduction::kMean ? ctx.scratch(graph::DType::kFloat32, {samples}) : GpuTensor{};
  BadIndices bad(ctx, s.checked);
  nll_terms(plan, log_prob.as<float>(), target.as<int64_t>(), weight ? weight->as<float>() : nullptr, terms.as<float>(),
            weights.defined() ? weights.as<float>() : nullptr, bad.counter(), stream);
  ctx.check_launch(ctx.node.op_type);
  bad.verify(fmt::format("the {} classes", plan.classes));
  if (!reduced) return;
  auto sums = ctx.scratch(graph::DType::kFloat32, {2});
  auto walk = reduce_plan({samples}, {0});
  reduce(walk, ReduceOp::kSum, terms.as<float>(), sums.as<float>(), nullptr, stream);
  if (weights.defined()) reduce(walk, ReduceOp::kSum, weights.as<float>(), sums.as<float>() + 1, nullptr, stream);
  finish_loss(sums.as<float>(), y.as<float>(), weights.defined(), stream);
  ctx.check_launch(ctx.node.op_type);
}

}  // namespace

void register_loss_kernels(KernelRegistry& r) {
  r.add("loss", {{"NegativeLogLikelihoodLoss", [](KernelContext& c) { loss_op(c, false); }},
                 {"SoftmaxCrossEntropyLoss", [](KernelContext& c) { loss_op(c, true); }}});
}

}  // namespace ridge::exec::cuda
