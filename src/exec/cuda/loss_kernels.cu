// The losses: loss_cell.h's nll_term a thread per sample, and the reduced loss's last division.
#include "exec/cuda/grid.cuh"
#include "exec/cuda/loss_kernels.h"

namespace ridge::exec::cuda {

namespace {

__global__ void nll_terms_kernel(LossPlan p, const float* log_prob, const int64_t* target, const float* weight,
                                 float* terms, float* weights, int* bad) {
  RIDGE_GRID_LOOP(s, p.samples()) {
    bool out_of_range = false;
    float w = 0.f;
    terms[s] = nll_term(p, log_prob, target, weight, s, &w, &out_of_range);
    if (weights) weights[s] = w;
    if (out_of_range && bad) atomicAdd(bad, 1);
  }
}

__global__ void finish_loss_kernel(const float* sums, float* y, bool mean) { *y = mean ? sums[0] / sums[1] : sums[0]; }

}  // namespace

void nll_terms(const LossPlan& plan, const float* log_prob, const int64_t* target, const float* weight, float* terms,
               float* weights, int* bad, cudaStream_t stream) {
  if (plan.samples() > 0)
    nll_terms_kernel<<<blocks_for(plan.samples()), kThreads, 0, stream>>>(plan, log_prob, target, weight, terms,
                                                                          weights, bad);
}

void finish_loss(const float* sums, float* y, bool mean, cudaStream_t stream) {
  finish_loss_kernel<<<1, 1, 0, stream>>>(sums, y, mean);
}

}  // namespace ridge::exec::cuda
