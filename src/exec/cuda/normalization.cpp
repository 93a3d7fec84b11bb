// Normalizations: BatchNormalization (stored statistics, or the batch's with training_mode, and its
// backward), LRN and Softmax / LogSoftmax on cuDNN; LayerNormalization on its own kernel.
#include <fmt/format.h>

#include <algorithm>

#include "exec/cuda/backward.h"
#include "exec/cuda/descriptors.h"
#include "exec/cuda/norm_kernels.h"
#include "exec/cuda/norm_plan.h"
#include "exec/cuda/op_kernel.h"
#include "exec/cuda/training_kernels.h"
#include "sys/cuda/check.h"
#include "util/error.h"

namespace ridge::exec::cuda {

using sys::cuda::check;

namespace {

int64_t axis_of(KernelContext& ctx, int64_t fallback, size_t rank) {
  auto axis = ctx.node.get_int("axis", fallback);
  if (axis < 0) axis += static_cast<int64_t>(rank);
  if (axis < 0 || axis >= static_cast<int64_t>(rank)) ctx.fail(fmt::format("axis {} is out of range", axis));
  return axis;
}

int64_t product(const std::vector<int64_t>& dims, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t i = from; i < to; ++i) n *= dims[i];
  return n;
}

struct BatchNormState : NodeState {
  TensorDescriptor x, channel;
  GpuTensor batch_mean, batch_inv_std;  // training_mode: the last batch's statistics, which the backward reads
};

double batch_norm_epsilon(KernelContext& ctx) {
  // Below cuDNN's minimum (0 in cuDNN 9, 1e-5 before) cuDNN would clamp it in silence.
  double epsilon = ctx.node.get_float("epsilon", 1e-5);
  if (epsilon < CUDNN_BN_MIN_EPSILON)
    ctx.fail(fmt::format("epsilon {} is below cuDNN's minimum {}", epsilon, CUDNN_BN_MIN_EPSILON));
  return epsilon;
}

// training_mode=1 (ONNX): normalized with the batch's mean and biased variance; outputs 1 and 2, when asked,
// are the running statistics updated with `momentum` (running * momentum + batch * (1 - momentum)).
void batch_norm_training(KernelContext& ctx, BatchNormState& s, const GpuTensor& x, GpuTensor& y, double epsilon) {
  auto channels = x.dims[1];
  if (!s.batch_mean.defined()) {
    s.batch_mean = ctx.scratch(graph::DType::kFloat32, {channels});
    s.batch_inv_std = ctx.scratch(graph::DType::kFloat32, {channels});
  }
  float one = 1.f, zero = 0.f;
  // No running averages here (both null, as cuDNN allows): cuDNN's use the unbiased variance, ONNX's the biased.
  check(cudnnBatchNormalizationForwardTraining(ctx.gpu.cudnn(), CUDNN_BATCHNORM_SPATIAL, &one, &zero, s.x, x.data(),
                                               s.x, y.data(), s.channel, ctx.float_input(1).data(),
                                               ctx.float_input(2).data(), 0.0, nullptr, nullptr, epsilon,
                                               s.batch_mean.data(), s.batch_inv_std.data()),
        "cudnnBatchNormalizationForwardTraining");
  if (!ctx.wants_output(1) && !ctx.wants_output(2)) return;
  float* mean_out =
      ctx.wants_output(1) ? ctx.allocate_output(1, graph::DType::kFloat32, {channels}).as<float>() : nullptr;
  float* var_out =
      ctx.wants_output(2) ? ctx.allocate_output(2, graph::DType::kFloat32, {channels}).as<float>() : nullptr;
  running_statistics(ctx.float_input(3).as<float>(), ctx.float_input(4).as<float>(), s.batch_mean.as<float>(),
                     s.batch_inv_std.as<float>(), mean_out, var_out, channels,
                     static_cast<float>(ctx.node.get_float("momentum", 0.9)), static_cast<float>(epsilon),
                     ctx.gpu.stream());
  ctx.check_launch("BatchNormalization's running statistics");
}

void batch_norm(KernelContext& ctx) {
  const auto& x = ctx.activation(0);
  if (x.dims.size() < 2) ctx.fail("BatchNormalization takes (N, C, ...)");
  auto& s = ctx.cached<BatchNormState>();
  if (!s.x.get()) {
    // A channels-last x is described by its strides (cuDNN's spatial normalization takes any packing).
    s.x = tensor_descriptor(x.dims, x.dtype, x.channels_last);
    std::vector<int64_t> channel(std::max<size_t>(x.dims.size(), 4), 1);  // cuDNN wants x's rank
    channel[1] = x.dims[1];
    s.channel = tensor_descriptor(channel, graph::DType::kFloat32);
  }
  auto& y = ctx.allocate_output(0, x.dtype, x.dims);
  double epsilon = batch_norm_epsilon(ctx);
  if (ctx.node.get_int("training_mode", 0) != 0) {
    if (x.dtype != graph::DType::kFloat32) ctx.fail("a training-mode BatchNormalization on the GPU takes fp32");
    return batch_norm_training(ctx, s, x, y, epsilon);
  }
  float one = 1.f, zero = 0.f;
  check(
      cudnnBatchNormalizationForwardInference(ctx.gpu.cudnn(), CUDNN_BATCHNORM_SPATIAL, &one, &zero, s.x, x.data(), s.x,
                                              y.data(), s.channel, ctx.float_input(1).data(), ctx.float_input(2).data(),
                                              ctx.float_input(3).data(), ctx.float_input(4).data(), epsilon),
      "cudnnBatchNormalizationForwardInference");
}

// dX, dscale and dbias from the batch statistics the forward kept (cuDNN computes all three in one call).
void batch_norm_backward(BackwardContext& b) {
  auto& ctx = b.forward;
  if (ctx.node.get_int("training_mode", 0) == 0)
    ctx.fail(
        "a BatchNormalization with stored statistics (training_mode 0) has no GPU backward; train a "
        "training-mode export (models/*_train.onnx)");
  auto& s = b.forward_state<BatchNormState>();
  const auto& x = ctx.float_input(0);
  const auto& dy = b.dy(0);
  auto channels = x.dims[1];
  GpuTensor dx = b.wants(0) ? b.grad(0) : ctx.scratch(graph::DType::kFloat32, x.dims);
  GpuTensor dscale = b.wants(1) ? b.grad(1) : ctx.scratch(graph::DType::kFloat32, {channels});
  GpuTensor dbias = b.wants(2) ? b.grad(2) : ctx.scratch(graph::DType::kFloat32, {channels});
  float one = 1.f, zero = 0.f;
  check(cudnnBatchNormalizationBackward(ctx.gpu.cudnn(), CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero, s.x,
                                        x.data(), s.x, dy.data(), s.x, dx.data(), s.channel, ctx.float_input(1).data(),
                                        dscale.data(), dbias.data(), batch_norm_epsilon(ctx), s.batch_mean.data(),
                                        s.batch_inv_std.data()),
        "cudnnBatchNormalizationBackward");
}

void layer_norm_op(KernelContext& ctx) {
  const auto& x = ctx.activation(0);
  auto axis = axis_of(ctx, -1, x.dims.size());
  int64_t rows = product(x.dims, 0, static_cast<size_t>(axis)),
          cols = product(x.dims, static_cast<size_t>(axis), x.dims.size());
  const auto& scale = ctx.float_input(1);
  if (scale.numel() != cols) ctx.fail("the scale does not cover the normalized dims (broadcast scales are not run)");
  const float* bias = nullptr;
  if (ctx.has(2)) {
    if (ctx.float_input(2).numel() != cols) ctx.fail("the bias does not cover the normalized dims");
    bias = ctx.float_input(2).as<float>();
  }
  if (ctx.wants_output(1) || ctx.wants_output(2)) ctx.fail("the mean and inverse std outputs are not computed");
  auto& y = ctx.allocate_output(0, x.dtype, x.dims);
  layer_norm(x.data(), scale.as<float>(), bias, y.data(), rows, cols,
             static_cast<float>(ctx.node.get_float("epsilon", 1e-5)), ctx.gpu.stream(), element_type_of(x.dtype));
  ctx.check_launch("LayerNormalization");
}

struct LrnState : NodeState {
  LrnDescriptor lrn;
  TensorDescriptor x;
};

void lrn(KernelContext& ctx) {
  const auto& x = ctx.activation(0);
  auto size = ctx.node.get_int("size", 0);
  if (size < CUDNN_LRN_MIN_N || size > CUDNN_LRN_MAX_N)
    ctx.fail(fmt::format("size {} is outside cuDNN's LRN range {} to {}", size, CUDNN_LRN_MIN_N, CUDNN_LRN_MAX_N));
  auto& s = ctx.cached<LrnState>();
  if (!s.lrn.get()) {
    cudnnLRNDescriptor_t handle = nullptr;
    check(cudnnCreateLRNDescriptor(&handle), "cudnnCreateLRNDescriptor");
    s.lrn = LrnDescriptor(handle);
    // ONNX and cuDNN both scale alpha by 1/size: y = x / (bias + alpha / size * sum(x^2))^beta.
    check(cudnnSetLRNDescriptor(handle, static_cast<unsigned>(size), ctx.node.get_float("alpha", 1e-4),
                                ctx.node.get_float("beta", 0.75), ctx.node.get_float("bias", 1.0)),
          "cudnnSetLRNDescriptor");
    s.x = tensor_descriptor(x.dims, x.dtype);
  }
  auto& y = ctx.allocate_output(0, x.dtype, x.dims);
  float one = 1.f, zero = 0.f;
  check(cudnnLRNCrossChannelForward(ctx.gpu.cudnn(), s.lrn, CUDNN_LRN_CROSS_CHANNEL_DIM1, &one, s.x, x.data(), &zero,
                                    s.x, y.data()),
        "cudnnLRNCrossChannelForward");
}

struct SoftmaxState : NodeState {
  TensorDescriptor x;
  cudnnSoftmaxMode_t mode = CUDNN_SOFTMAX_MODE_INSTANCE;
};

void softmax_with(KernelContext& ctx, cudnnSoftmaxAlgorithm_t algorithm) {
  const auto& x = ctx.activation(0);
  auto& s = ctx.cached<SoftmaxState>();
  if (!s.x.get()) {
    // Before opset 13 the input is a 2-D (outer, inner) matrix flattened at axis; since, one axis.
    bool one_axis = ctx.opset >= 13;
    auto axis = static_cast<size_t>(axis_of(ctx, one_axis ? -1 : 1, x.dims.size()));
    int64_t outer = product(x.dims, 0, axis);
    if (one_axis) {
      s.x = tensor_descriptor({outer, x.dims[axis], product(x.dims, axis + 1, x.dims.size()), 1}, x.dtype);
      s.mode = CUDNN_SOFTMAX_MODE_CHANNEL;
    } else {
      s.x = tensor_descriptor({outer, product(x.dims, axis, x.dims.size()), 1, 1}, x.dtype);
      s.mode = CUDNN_SOFTMAX_MODE_INSTANCE;
    }
  }
  auto& y = ctx.allocate_output(0, x.dtype, x.dims);
  float one = 1.f, zero = 0.f;
  check(cudnnSoftmaxForward(ctx.gpu.cudnn(), algorithm, s.mode, &one, s.x, x.data(), &zero, s.x, y.data()),
        "cudnnSoftmaxForward");
}

void softmax(KernelContext& ctx) { softmax_with(ctx, CUDNN_SOFTMAX_ACCURATE); }
void log_softmax(KernelContext& ctx) { softmax_with(ctx, CUDNN_SOFTMAX_LOG); }

// dX from the output and dY, over the axis (and layout) the forward's descriptor describes.
void softmax_backward_with(BackwardContext& b, cudnnSoftmaxAlgorithm_t algorithm) {
  if (!b.wants(0)) return;
  auto& ctx = b.forward;
  auto& s = b.forward_state<SoftmaxState>();
  const auto& y = ctx.outputs.at(0);
  auto& dx = b.grad(0);
  float one = 1.f, zero = 0.f;
  check(cudnnSoftmaxBackward(ctx.gpu.cudnn(), algorithm, s.mode, &one, s.x, y.data(), s.x, b.dy().data(), &zero, s.x,
                             dx.data()),
        "cudnnSoftmaxBackward");
}

void softmax_backward(BackwardContext& b) { softmax_backward_with(b, CUDNN_SOFTMAX_ACCURATE); }
void log_softmax_backward(BackwardContext& b) { softmax_backward_with(b, CUDNN_SOFTMAX_LOG); }

// dX on ridge's kernel (the row statistics recomputed); dscale = sum over rows of dY x^, dbias = sum of dY.
void layer_norm_backward_op(BackwardContext& b) {
  auto& ctx = b.forward;
  const auto& x = ctx.float_input(0);
  auto axis = axis_of(ctx, -1, x.dims.size());
  int64_t rows = product(x.dims, 0, static_cast<size_t>(axis)),
          cols = product(x.dims, static_cast<size_t>(axis), x.dims.size());
  const auto& scale = ctx.float_input(1);
  auto dy = b.dy();
  dy.dims = {rows, cols};
  GpuTensor dx = b.wants(0) ? b.grad(0) : ctx.scratch(graph::DType::kFloat32, x.dims);
  auto dy_xhat = ctx.scratch(graph::DType::kFloat32, {rows, cols});
  layer_norm_backward(x.as<float>(), scale.as<float>(), dy.as<float>(), dx.as<float>(), dy_xhat.as<float>(), rows, cols,
                      static_cast<float>(ctx.node.get_float("epsilon", 1e-5)), ctx.gpu.stream());
  ctx.check_launch("LayerNormalization backward");
  if (b.wants(1)) b.set_grad(1, reduce_to(ctx, dy_xhat, {cols}));
  if (ctx.has(2) && b.wants(2)) b.set_grad(2, reduce_to(ctx, dy, {cols}));
}

}  // namespace

// InstanceNormalization, GroupNormalization and RMSNormalization (SimplifiedLayerNormalization): rows normalized by
// their own statistics, then scaled and shifted per channel (norm_plan.h).
void row_norm_op(KernelContext& ctx) {
  const auto& x = ctx.float_input(0);
  const auto& scale = ctx.float_input(1);
  const GpuTensor* bias = ctx.has(2) ? &ctx.float_input(2) : nullptr;
  auto plan = row_norm_plan(ctx.node, x.dims, scale.numel());
  if (bias && bias->numel() != scale.numel()) ctx.fail("the bias and the scale differ in size");
  auto& y = ctx.allocate_output(0);
  row_norm(plan, x.as<float>(), scale.as<float>(), bias ? bias->as<float>() : nullptr, y.as<float>(), ctx.gpu.stream());
  ctx.check_launch(ctx.node.op_type);
}

void register_normalization_kernels(KernelRegistry& registry) {
  // cuDNN's and LayerNormalization's kernels read 16-bit activations (their statistics fp32, their scales fp32).
  constexpr auto kX = storage_input(0);
  registry.add("normalization", {{"BatchNormalization", batch_norm, kX, kX},
                                 {"LayerNormalization", layer_norm_op, kX},
                                 {"InstanceNormalization", row_norm_op},
                                 {"GroupNormalization", row_norm_op},
                                 {"RMSNormalization", row_norm_op},
                                 {"SimplifiedLayerNormalization", row_norm_op},
                                 {"LRN", lrn, kX},
                                 {"Softmax", softmax, kX},
                                 {"LogSoftmax", log_softmax, kX}});
}

void register_normalization_backward(BackwardRegistry& registry) {
  // cuDNN's BatchNorm backward takes x, dY and dX as the forward described x: NHWC in a channels-last step.
  registry.add("normalization", {{"BatchNormalization", batch_norm_backward, {}, nullptr, /*channels_last=*/true},
                                 {"LayerNormalization", layer_norm_backward_op},
                                 {"Softmax", softmax_backward},
                                 {"LogSoftmax", log_softmax_backward}});
}

}  // namespace ridge::exec::cuda
