// The GPU training step's kernels (see training_kernels.h): grid-stride loops over int64 indices.
#include <cmath>
#include <cstdint>

#include "exec/cuda/training_kernels.h"

namespace ridge::exec::cuda {

namespace {

constexpr int kThreads = 256;

unsigned blocks_for(int64_t n) {
  int64_t blocks = (n + kThreads - 1) / kThreads;
  if (blocks < 1) blocks = 1;
  return static_cast<unsigned>(blocks > 65535 * 16 ? 65535 * 16 : blocks);
}

#define RIDGE_GRID_LOOP(i, n)                                                            \
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(blockDim.x) * gridDim.x)

__global__ void squared_mean_loss_kernel(const float* y, float* dy, int64_t n, double* loss) {
  __shared__ double partial[kThreads];
  double sum = 0;
  const float two_over_n = 2.f / static_cast<float>(n);
  RIDGE_GRID_LOOP(i, n) {
    float v = y[i];
    sum += static_cast<double>(v) * v;
    dy[i] = two_over_n * v;
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s /= 2) {
    if (static_cast<int>(threadIdx.x) < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(loss, partial[0] / static_cast<double>(n));
}

__global__ void relu_backward_kernel(const float* y, const float* dy, float* dx, int64_t n) {
  RIDGE_GRID_LOOP(i, n) dx[i] = y[i] > 0.f ? dy[i] : 0.f;
}

__global__ void clip_backward_kernel(const float* x, const float* dy, float* dx, int64_t n, float low, float high) {
  RIDGE_GRID_LOOP(i, n) dx[i] = x[i] > low && x[i] < high ? dy[i] : 0.f;
}

// A counter-based draw in [0, 1) from (seed, i): splitmix64's finalizer, whose output bits are uniform for
// consecutive inputs, so each element's draw is independent of the launch's shape.
__device__ float uniform(uint64_t seed, int64_t i) {
  uint64_t z = seed + static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<float>(z >> 40) * (1.f / 16777216.f);  // 24 bits: exact in fp32
}

__global__ void dropout_forward_kernel(const float* x, float* y, bool* keep, int64_t n, float ratio, uint64_t seed) {
  const float scale = 1.f / (1.f - ratio);
  RIDGE_GRID_LOOP(i, n) {
    bool k = uniform(seed, i) >= ratio;
    keep[i] = k;
    y[i] = k ? x[i] * scale : 0.f;
  }
}

__global__ void dropout_backward_kernel(const bool* keep, const float* dy, float* dx, int64_t n, float scale) {
  RIDGE_GRID_LOOP(i, n) dx[i] = keep[i] ? dy[i] * scale : 0.f;
}

__global__ void running_statistics_kernel(const float* mean, const float* var, const float* batch_mean,
                                          const float* batch_inv_std, float* mean_out, float* var_out, int64_t channels,
                                          float momentum, float epsilon) {
  RIDGE_GRID_LOOP(c, channels) {
    float inv = batch_inv_std[c];
    float batch_var = 1.f / (inv * inv) - epsilon;
    if (mean_out) mean_out[c] = mean[c] * momentum + batch_mean[c] * (1.f - momentum);
    if (var_out) var_out[c] = var[c] * momentum + batch_var * (1.f - momentum);
  }
}

__global__ void scale_kernel(const float* x, float* y, int64_t n, float factor) {
  RIDGE_GRID_LOOP(i, n) y[i] = factor * x[i];
}

__global__ void sgd_kernel(float* w, const float* g, int64_t n, float lr) { RIDGE_GRID_LOOP(i, n) w[i] -= lr * g[i]; }

__global__ void momentum_kernel(float* w, const float* g, float* buffer, int64_t n, float lr, float momentum,
                                bool first) {
  RIDGE_GRID_LOOP(i, n) {
    float b = first ? g[i] : momentum * buffer[i] + g[i];
    buffer[i] = b;
    w[i] -= lr * b;
  }
}

__global__ void adam_kernel(float* w, const float* g, float* m, float* v, int64_t n, float lr, float beta1, float beta2,
                            float epsilon, float correction1, float correction2) {
  RIDGE_GRID_LOOP(i, n) {
    float gi = g[i];
    float mi = beta1 * m[i] + (1.f - beta1) * gi;
    float vi = beta2 * v[i] + (1.f - beta2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    // torch.optim.Adam: step_size = lr / bias_correction1; denom = sqrt(v) / sqrt(bias_correction2) + eps.
    w[i] -= (lr / correction1) * mi / (sqrtf(vi) / sqrtf(correction2) + epsilon);
  }
}

}  // namespace

void squared_mean_loss(const float* y, float* dy, int64_t n, double* loss, cudaStream_t stream) {
  if (n > 0) squared_mean_loss_kernel<<<blocks_for(n), kThreads, 0, stream>>>(y, dy, n, loss);
}

void relu_backward(const float* y, const float* dy, float* dx, int64_t n, cudaStream_t stream) {
  if (n > 0) relu_backward_kernel<<<blocks_for(n), kThreads, 0, stream>>>(y, dy, dx, n);
}

void clip_backward(const float* x, const float* dy, float* dx, int64_t n, float low, float high, cudaStream_t stream) {
  if (n > 0) clip_backward_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, dy, dx, n, low, high);
}

void dropout_forward(const float* x, float* y, bool* keep, int64_t n, float ratio, uint64_t seed, cudaStream_t stream) {
  if (n > 0) dropout_forward_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, y, keep, n, ratio, seed);
}

void dropout_backward(const bool* keep, const float* dy, float* dx, int64_t n, float scale, cudaStream_t stream) {
  if (n > 0) dropout_backward_kernel<<<blocks_for(n), kThreads, 0, stream>>>(keep, dy, dx, n, scale);
}

void running_statistics(const float* mean, const float* var, const float* batch_mean, const float* batch_inv_std,
                        float* mean_out, float* var_out, int64_t channels, float momentum, float epsilon,
                        cudaStream_t stream) {
  if (channels > 0)
    running_statistics_kernel<<<blocks_for(channels), kThreads, 0, stream>>>(
        mean, var, batch_mean, batch_inv_std, mean_out, var_out, channels, momentum, epsilon);
}

void scale(const float* x, float* y, int64_t n, float factor, cudaStream_t stream) {
  if (n > 0) scale_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, y, n, factor);
}

void sgd_update(float* w, const float* g, int64_t n, float lr, cudaStream_t stream) {
  if (n > 0) sgd_kernel<<<blocks_for(n), kThreads, 0, stream>>>(w, g, n, lr);
}

void momentum_update(float* w, const float* g, float* buffer, int64_t n, float lr, float momentum, bool first,
                     cudaStream_t stream) {
  if (n > 0) momentum_kernel<<<blocks_for(n), kThreads, 0, stream>>>(w, g, buffer, n, lr, momentum, first);
}

void adam_update(float* w, const float* g, float* m, float* v, int64_t n, float lr, float beta1, float beta2,
                 float epsilon, int64_t step, cudaStream_t stream) {
  float correction1 = 1.f - static_cast<float>(std::pow(static_cast<double>(beta1), static_cast<double>(step)));
  float correction2 = 1.f - static_cast<float>(std::pow(static_cast<double>(beta2), static_cast<double>(step)));
  if (n > 0)
    adam_kernel<<<blocks_for(n), kThreads, 0, stream>>>(w, g, m, v, n, lr, beta1, beta2, epsilon, correction1,
                                                        correction2);
}

}  // namespace ridge::exec::cuda
