#pragma once
// GridSample's kernel (grid_sample_kernels.cu): grid_sample_at a thread per output element; fp32. C++17 for nvcc.
#include <cuda_runtime_api.h>

#include "exec/cuda/grid_sample_cell.h"

namespace ridge::exec::cuda {

void grid_sample(const GridSamplePlan& plan, const float* x, const float* grid, float* y, cudaStream_t stream);

}  // namespace ridge::exec::cuda
