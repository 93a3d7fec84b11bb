#pragma once
// ONNX's NegativeLogLikelihoodLoss (and SoftmaxCrossEntropyLoss after its log-softmax) as the GPU computes it, one
// sample at a time: sample s of the [N, d1, ..., dk] targets takes -log_prob[n, target, d] x weight[target] (a weight
// of 1 without the weight input), 0 with weight 0 where its target is ignore_index; `sum` adds the terms, `mean`
// divides that sum by the sum of the samples' weights (ONNX's weighted mean), `none` keeps them. The plan is worked
// out on the host (loss_plan.h); the kernels (loss_kernels.cu) apply nll_term a thread per sample and the reduction
// kernel sums, and the host-side tests apply the same to ONNX's node tests (tests/cuda/test_loss_host.cpp). C++17 for
// nvcc.
#include <cstdint>

#include "exec/cuda/layout.h"

namespace ridge::exec::cuda {

enum class LossReduction : int { kNone, kSum, kMean };

struct LossPlan {
  int64_t batch = 0, classes = 0, inner = 1;  // scores [N, C, d1 ... dk]: inner = d1 x ... x dk
  LossReduction reduction = LossReduction::kMean;
  int64_t ignore_index = 0;
  bool ignores = false;  // the node has an ignore_index
  RIDGE_HOST_DEVICE int64_t samples() const { return batch * inner; }
};

// Sample s's term and its weight (0 and 0 for an ignored target); *bad set where the target is outside [0, C) and
// not ignored (the term is then 0).
RIDGE_HOST_DEVICE inline float nll_term(const LossPlan& p, const float* log_prob, const int64_t* target,
                                        const float* weight, int64_t s, float* sample_weight, bool* bad) {
  const int64_t t = target[s];
  *bad = false;
  if (p.ignores && t == p.ignore_index) {
    *sample_weight = 0.f;
    return 0.f;
  }
  if (t < 0 || t >= p.classes) {
    *bad = true;
    *sample_weight = 0.f;
    return 0.f;
  }
  const float w = weight ? weight[t] : 1.f;
  *sample_weight = w;
  const int64_t n = s / p.inner, d = s % p.inner;
  return -log_prob[(n * p.classes + t) * p.inner + d] * w;
}

}  // namespace ridge::exec::cuda
