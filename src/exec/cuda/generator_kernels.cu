// Random draws and windows: generator_cell.h's functions a thread per element.
#include "exec/cuda/generator_kernels.h"
#include "exec/cuda/grid.cuh"

namespace ridge::exec::cuda {

namespace {

__global__ void random_fill_kernel(float* y, int64_t n, bool normal, float a, float b, uint64_t seed,
                                   const uint64_t* run) {
  seed ^= *run << 32;
  RIDGE_GRID_LOOP(i, n) { y[i] = normal ? a + b * counter_normal(seed, i) : a + (b - a) * counter_uniform(seed, i); }
}

__global__ void bernoulli_kernel(const float* p, float* y, int64_t n, uint64_t seed, const uint64_t* run) {
  seed ^= *run << 32;
  RIDGE_GRID_LOOP(i, n) { y[i] = counter_uniform(seed, i) < p[i] ? 1.f : 0.f; }
}

__global__ void advance_kernel(uint64_t* run) { *run += 1; }

template <class T>
__global__ void window_kernel(Window w, T* y, int64_t size, bool periodic) {
  RIDGE_GRID_LOOP(i, size) { y[i] = static_cast<T>(window_value(w, i, size, periodic)); }
}

template <class T>
__global__ void range_kernel(T* y, int64_t n, double start, double delta) {
  RIDGE_GRID_LOOP(i, n) { y[i] = static_cast<T>(range_value(start, delta, i)); }
}

__global__ void eye_select_kernel(int64_t* selected, int64_t rows, int64_t cols, int64_t k) {
  RIDGE_GRID_LOOP(i, rows) { selected[i] = eye_column(i, cols, k); }
}

}  // namespace

bool range_fill(void* y, ElementType type, int64_t n, double start, double delta, cudaStream_t stream) {
  if (n <= 0) return true;
  const auto blocks = blocks_for(n);
  if (type == ElementType::kFloat32)
    range_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<float*>(y), n, start, delta);
  else if (type == ElementType::kFloat64)
    range_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<double*>(y), n, start, delta);
  else if (type == ElementType::kInt32)
    range_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<int32_t*>(y), n, start, delta);
  else if (type == ElementType::kInt64)
    range_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<int64_t*>(y), n, start, delta);
  else
    return false;
  return true;
}

void eye_select(int64_t* selected, int64_t rows, int64_t cols, int64_t k, cudaStream_t stream) {
  if (rows > 0) eye_select_kernel<<<blocks_for(rows), kThreads, 0, stream>>>(selected, rows, cols, k);
}

void random_fill(float* y, int64_t n, bool normal, float a, float b, uint64_t seed, uint64_t* run,
                 cudaStream_t stream) {
  if (n > 0) random_fill_kernel<<<blocks_for(n), kThreads, 0, stream>>>(y, n, normal, a, b, seed, run);
  advance_kernel<<<1, 1, 0, stream>>>(run);  // after every thread has read it: the launches are ordered on the stream
}

void bernoulli(const float* p, float* y, int64_t n, uint64_t seed, uint64_t* run, cudaStream_t stream) {
  if (n > 0) bernoulli_kernel<<<blocks_for(n), kThreads, 0, stream>>>(p, y, n, seed, run);
  advance_kernel<<<1, 1, 0, stream>>>(run);
}

void window(Window w, void* y, int64_t size, bool periodic, bool fp64, cudaStream_t stream) {
  if (size <= 0) return;
  if (fp64)
    window_kernel<<<blocks_for(size), kThreads, 0, stream>>>(w, static_cast<double*>(y), size, periodic);
  else
    window_kernel<<<blocks_for(size), kThreads, 0, stream>>>(w, static_cast<float*>(y), size, periodic);
}

}  // namespace ridge::exec::cuda
