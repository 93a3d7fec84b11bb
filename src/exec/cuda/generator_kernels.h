#pragma once
// The generator kernels (generator_kernels.cu) over generator_cell.h, a thread per element, fp32 out (the op converts
// to the node's dtype). A run's draws come from seed ^ (*run << 32), and *run is advanced on the device after each
// draw, so every replay of a captured CUDA graph draws anew (a seed fixed on the host would be baked into the graph).
// C++17 for nvcc.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "exec/cuda/generator_cell.h"

namespace ridge::exec::cuda {

// y = low + (high - low) u, or mean + scale z (`normal`), of `n` draws.
void random_fill(float* y, int64_t n, bool normal, float a, float b, uint64_t seed, uint64_t* run, cudaStream_t stream);
// y = u < p ? 1 : 0 for each probability p (fp32).
void bernoulli(const float* p, float* y, int64_t n, uint64_t seed, uint64_t* run, cudaStream_t stream);
// y[n] = window_value(w, n, size, periodic), fp32 or fp64 (`fp64`).
void window(Window w, void* y, int64_t size, bool periodic, bool fp64, cudaStream_t stream);

}  // namespace ridge::exec::cuda
