#pragma once
// The losses' kernels (loss_kernels.cu) over loss_cell.h. C++17 for nvcc.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "exec/cuda/loss_cell.h"

namespace ridge::exec::cuda {

// terms[s] and weights[s] = nll_term of every sample; targets outside the classes counted in *bad.
void nll_terms(const LossPlan& plan, const float* log_prob, const int64_t* target, const float* weight, float* terms,
               float* weights, int* bad, cudaStream_t stream);
// *y = sums[0] / sums[1] (mean) or sums[0] (sum): the last step of a reduced loss.
void finish_loss(const float* sums, float* y, bool mean, cudaStream_t stream);

}  // namespace ridge::exec::cuda
