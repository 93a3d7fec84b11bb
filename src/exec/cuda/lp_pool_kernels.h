#pragma once
// The Lp pooling kernel (lp_pool_kernels.cu): lp_pool_at a thread per output element; fp32. C++17 for nvcc.
#include <cuda_runtime_api.h>

#include "exec/cuda/lp_pool_cell.h"

namespace ridge::exec::cuda {

void lp_pool(const LpPoolPlan& plan, const float* x, float* y, cudaStream_t stream);

}  // namespace ridge::exec::cuda
