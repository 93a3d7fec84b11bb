#pragma once
// The row normalization kernel (norm_kernels.cu, norm_cell.h): a block per row. fp32; C++17 for nvcc.
#include <cuda_runtime_api.h>

#include "exec/cuda/norm_cell.h"

namespace ridge::exec::cuda {

// y = each row of x normalized, times scale plus bias per channel (either may be null).
void row_norm(const RowNormPlan& plan, const float* x, const float* scale, const float* bias, float* y,
              cudaStream_t stream);

}  // namespace ridge::exec::cuda
