// A block per row: the mean and then the variance about it (two passes over the row, which stays in L1 and L2), then
// the normalized row, scaled and shifted per channel (norm_cell.h).
#include "exec/cuda/grid.cuh"
#include "exec/cuda/norm_kernels.h"

namespace ridge::exec::cuda {

namespace {

__device__ float block_sum(float v, float* shared) {
  const int t = static_cast<int>(threadIdx.x);
  shared[t] = v;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s /= 2) {
    if (t < s) shared[t] += shared[t + s];
    __syncthreads();
  }
  float sum = shared[0];
  __syncthreads();  // before the shared memory is written again
  return sum;
}

__global__ void row_norm_kernel(RowNormPlan p, const float* x, const float* scale, const float* bias, float* y) {
  __shared__ float shared[kThreads];
  for (int64_t row = blockIdx.x; row < p.rows; row += gridDim.x) {
    const float* in = x + row * p.cols;
    float mean = 0.f;
    if (!p.rms) {
      float sum = 0.f;
      for (int64_t c = threadIdx.x; c < p.cols; c += kThreads) sum += in[c];
      mean = block_sum(sum, shared) / static_cast<float>(p.cols);
    }
    float square = 0.f;
    for (int64_t c = threadIdx.x; c < p.cols; c += kThreads) square += (in[c] - mean) * (in[c] - mean);
    const float inv = rsqrtf(block_sum(square, shared) / static_cast<float>(p.cols) + p.epsilon);
    for (int64_t c = threadIdx.x; c < p.cols; c += kThreads)
      y[row * p.cols + c] = row_norm_value(p, in[c], mean, inv, scale, bias, row, c);
  }
}

}  // namespace

void row_norm(const RowNormPlan& plan, const float* x, const float* scale, const float* bias, float* y,
              cudaStream_t stream) {
  if (plan.rows == 0 || plan.cols == 0) return;
  unsigned blocks = static_cast<unsigned>(plan.rows < (1 << 20) ? plan.rows : (1 << 20));
  row_norm_kernel<<<blocks, kThreads, 0, stream>>>(plan, x, scale, bias, y);
}

}  // namespace ridge::exec::cuda
