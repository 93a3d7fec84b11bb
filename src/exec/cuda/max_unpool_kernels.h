#pragma once
// MaxUnpool's kernel (max_unpool_kernels.cu): Y zeroed, then max_unpool_target a thread per element of X; fp32.
// Indices outside the unpooled tensor are skipped and counted into `bad` where it is given (index_check.h).
// C++17 for nvcc.
#include <cuda_runtime_api.h>

#include "exec/cuda/max_unpool_cell.h"

namespace ridge::exec::cuda {

void max_unpool(const MaxUnpoolPlan& plan, const float* x, const int64_t* indices, float* y, int* bad,
                cudaStream_t stream);

}  // namespace ridge::exec::cuda
