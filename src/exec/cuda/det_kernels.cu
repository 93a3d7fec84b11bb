// Det: det_cell.h's det_of a thread per matrix.
#include "exec/cuda/det_kernels.h"
#include "exec/cuda/grid.cuh"

namespace ridge::exec::cuda {

namespace {

__global__ void det_kernel(const float* a, int64_t matrices, int64_t m, float* y, double* work) {
  RIDGE_GRID_LOOP(i, matrices) { y[i] = static_cast<float>(det_of(a + i * m * m, m, work + i * m * m)); }
}

}  // namespace

void det(const float* a, int64_t matrices, int64_t m, float* y, double* work, cudaStream_t stream) {
  if (matrices > 0) det_kernel<<<blocks_for(matrices), kThreads, 0, stream>>>(a, matrices, m, y, work);
}

}  // namespace ridge::exec::cuda
