// Losses: negative log-likelihood and softmax cross-entropy (ATen's nll_loss does the reduction
// and ignore_index exactly as ONNX defines them).
#include "exec/aten/kernels/kernel.h"

namespace ridge::exec::aten {

namespace {

using C = KernelContext;

int64_t reduction(const C& c) {
  auto r = c.node.get_string("reduction", "mean");
  return r == "none" ? 0 : r == "sum" ? 2 : 1;  // at::Reduction::None / Sum / Mean
}

at::Tensor nll(const C& c, const at::Tensor& log_prob) {
  auto target = c.in(1).to(at::kLong);
  int64_t ignore = c.node.get_int("ignore_index", -100);
  at::Tensor weight = c.has(2) ? c.in(2) : at::Tensor();
  auto safe_target = target;
  if (log_prob.dim() == 1) c.fail("scores need a class axis");
  return at::nll_loss_nd(log_prob, safe_target, weight, reduction(c), ignore);
}

void nll_loss(C& c) { c.set(0, nll(c, c.in(0))); }

void softmax_cross_entropy(C& c) {
  auto log_prob = at::log_softmax(c.in(0), 1);
  c.set(0, nll(c, log_prob));
  c.set(1, log_prob);
}

}  // namespace

void register_loss_kernels(KernelRegistry& r) {
  // clang-format off
  r.add("loss", {
    {"NegativeLogLikelihoodLoss", nll_loss},
    {"SoftmaxCrossEntropyLoss", softmax_cross_entropy},
  });
  // clang-format on
}

}  // namespace ridge::exec::aten
