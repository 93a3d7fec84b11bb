#pragma once
// Det's kernel (det_kernels.cu): det_of a thread per matrix, fp32 in and out, the elimination in fp64 on `work`
// (matrices x m x m doubles). C++17 for nvcc.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "exec/cuda/det_cell.h"

namespace ridge::exec::cuda {

void det(const float* a, int64_t matrices, int64_t m, float* y, double* work, cudaStream_t stream);

}  // namespace ridge::exec::cuda
