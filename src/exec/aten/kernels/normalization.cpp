// Normalizations: batch (inference statistics), instance, layer, group, RMS, Lp, LRN, MVN.
#include <fmt/format.h>

#include "exec/aten/kernels/kernel.h"

namespace ridge::exec::aten {

namespace {

using C = KernelContext;

// training_mode=1: normalize with the batch's statistics and return the updated running ones
// (running = running * momentum + batch * (1 - momentum), with the biased batch variance).
void batch_norm_training(C& c) {
  const auto& x = c.in(0);
  double eps = c.node.get_float("epsilon", 1e-5), momentum = c.node.get_float("momentum", 0.9);
  std::vector<int64_t> axes{0};
  for (int64_t d = 2; d < x.dim(); ++d) axes.push_back(d);
  auto mean = x.mean(axes), var = x.var(axes, /*unbiased=*/false);
  std::vector<int64_t> shape(static_cast<size_t>(x.dim()), 1);
  shape[1] = -1;
  auto y = (x - mean.view(shape)) * at::rsqrt(var.view(shape) + eps) * c.in(1).view(shape) + c.in(2).view(shape);
  c.set(0, y);
  c.set(1, c.in(3) * momentum + mean * (1 - momentum));
  c.set(2, c.in(4) * momentum + var * (1 - momentum));
}

void batch_norm(C& c) {
  if (c.node.get_int("training_mode", 0)) return batch_norm_training(c);
  double eps = c.node.get_float("epsilon", 1e-5);
  c.set(0, at::batch_norm(c.in(0), c.in(1), c.in(2), c.in(3), c.in(4), false, 0.0, eps, true));
}

void instance_norm(C& c) {
  double eps = c.node.get_float("epsilon", 1e-5);
  c.set(0, at::instance_norm(c.in(0), c.in(1), c.in(2), {}, {}, true, 0.0, eps, true));
}

// The axes [axis, rank) that layer-style normalizations reduce over.
std::vector<int64_t> trailing_axes(int64_t axis, int64_t rank) {
  std::vector<int64_t> axes;
  for (int64_t d = axis; d < rank; ++d) axes.push_back(d);
  return axes;
}

// Normalizes over axes [axis, rank), then scale and bias broadcast over them.
void layer_norm(C& c) {
  const auto& x = c.in(0);
  int64_t axis = normalize_axis(c.node.get_int("axis", -1), x.dim(), c);
  double eps = c.node.get_float("epsilon", 1e-5);
  auto axes = trailing_axes(axis, x.dim());
  auto compute = c.node.get_int("stash_type", 1) == 1 && x.scalar_type() != at::kDouble ? at::kFloat : x.scalar_type();
  bool fast = c.in(1).sizes() == x.sizes().slice(static_cast<size_t>(axis)) &&
              (!c.has(2) || c.in(2).sizes() == c.in(1).sizes()) && !c.wants_output(1) && !c.wants_output(2);
  if (fast) {
    c.set(0, at::layer_norm(x, x.sizes().slice(static_cast<size_t>(axis)), c.in(1), c.has(2) ? c.in(2) : at::Tensor(),
                            eps));
    return;
  }
  auto xf = x.to(compute);
  auto mean = xf.mean(axes, true);
  auto centered = xf - mean;
  auto inv_std = at::rsqrt((centered * centered).mean(axes, true) + eps);
  auto y = (centered * inv_std).to(x.scalar_type()) * c.in(1);
  if (c.has(2)) y = y + c.in(2);
  c.set(0, y);
  c.set(1, mean);
  c.set(2, inv_std);
}

void rms_norm(C& c) {
  const auto& x = c.in(0);
  int64_t axis = normalize_axis(c.node.get_int("axis", -1), x.dim(), c);
  double eps = c.node.get_float("epsilon", 1e-5);
  auto axes = trailing_axes(axis, x.dim());
  auto xf = x.to(at::kFloat);
  auto y = (xf * at::rsqrt((xf * xf).mean(axes, true) + eps)).to(x.scalar_type()) * c.in(1);
  if (c.has(2)) y = y + c.in(2);
  c.set(0, y);
}

void group_norm(C& c) {
  const auto& x = c.in(0);
  int64_t groups = c.node.get_int("num_groups", 1), channels = x.size(1);
  double eps = c.node.get_float("epsilon", 1e-5);
  auto grouped = x.reshape({x.size(0), groups, -1});
  auto mean = grouped.mean(-1, true);
  auto var = (grouped - mean).pow(2).mean(-1, true);
  auto y = ((grouped - mean) * at::rsqrt(var + eps)).reshape(x.sizes());
  std::vector<int64_t> shape(static_cast<size_t>(x.dim()), 1);
  shape[1] = channels;
  auto scale = c.in(1), bias = c.in(2);
  if (scale.numel() == groups && groups != channels) {  // opset 18: one scale per group
    scale = scale.repeat_interleave(channels / groups);
    bias = bias.repeat_interleave(channels / groups);
  }
  c.set(0, y * scale.reshape(shape) + bias.reshape(shape));
}

void lp_norm(C& c) {
  const auto& x = c.in(0);
  int64_t axis = normalize_axis(c.node.get_int("axis", -1), x.dim(), c);
  int64_t p = c.node.get_int("p", 2);
  auto norm = p == 1 ? x.abs().sum(axis, true) : x.pow(2).sum(axis, true).sqrt();
  c.set(0, x / norm);
}

// Local response normalization across channels: x / (bias + alpha/size * sum of squares)^beta.
void lrn(C& c) {
  const auto& x = c.in(0);
  int64_t size = c.node.get_int("size", 1);
  double alpha = c.node.get_float("alpha", 1e-4), beta = c.node.get_float("beta", 0.75),
         bias = c.node.get_float("bias", 1.0);
  auto sq = (x * x).unsqueeze(1);  // [N, 1, C, ...]
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  std::vector<int64_t> pad;
  for (int64_t d = 2; d < x.dim(); ++d) pad.insert(pad.end(), {0, 0});
  pad.insert(pad.end(), {before, after});
  auto padded = at::constant_pad_nd(sq, pad, 0);
  auto sums = padded.unfold(2, size, 1).sum(-1).squeeze(1);
  c.set(0, x / (bias + sums * (alpha / static_cast<double>(size))).pow(beta));
}

void mvn(C& c) {
  const auto& x = c.in(0);
  auto axes = c.node.get_ints("axes", {0, 2, 3});
  auto mean = x.mean(axes, true);
  auto var = (x * x).mean(axes, true) - mean * mean;
  c.set(0, (x - mean) / (var.sqrt() + 1e-9));
}

}  // namespace

void register_normalization_kernels(KernelRegistry& r) {
  // clang-format off
  r.add("normalization", {
    {"BatchNormalization", batch_norm},
    {"InstanceNormalization", instance_norm},
    {"LayerNormalization", layer_norm},
    {"SimplifiedLayerNormalization", rms_norm},
    {"RMSNormalization", rms_norm},
    {"GroupNormalization", group_norm},
    {"LpNormalization", lp_norm},
    {"LRN", lrn},
    {"MeanVarianceNormalization", mvn},
  });
  // clang-format on
}

}  // namespace ridge::exec::aten
