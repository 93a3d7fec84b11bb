#pragma once
// The generator kernels (generator_kernels.cu) over generator_cell.h, a thread per element, fp32 out (the op converts
// to the node's dtype). A run's draws come from seed ^ (*run << 32), and *run is advanced on the device after each
// draw, so every replay of a captured CUDA graph draws anew (a seed fixed on the host would be baked into the graph).
// C++17 for nvcc.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "exec/cuda/generator_cell.h"
#include "exec/cuda/kernels.h"

namespace ridge::exec::cuda {

// y = low + (high - low) u, or mean + scale z (`normal`), of `n` draws.
void random_fill(float* y, int64_t n, bool normal, float a, float b, uint64_t seed, uint64_t* run, cudaStream_t stream);
// y = u < p ? 1 : 0 for each probability p (fp32).
void bernoulli(const float* p, float* y, int64_t n, uint64_t seed, uint64_t* run, cudaStream_t stream);
// y[n] = window_value(w, n, size, periodic), fp32 or fp64 (`fp64`).
void window(Window w, void* y, int64_t size, bool periodic, bool fp64, cudaStream_t stream);

// Range: y[i] = start + i delta (computed in fp64, as the CPU executor does, then stored in the output's type: fp32,
// fp64, int32 or int64); false (nothing launched) for another type.
bool range_fill(void* y, ElementType type, int64_t n, double start, double delta, cudaStream_t stream);
// EyeLike's ones as OneHot's selection: row i selects column i + k, or none (-1) where that is outside [0, cols).
void eye_select(int64_t* selected, int64_t rows, int64_t cols, int64_t k, cudaStream_t stream);

}  // namespace ridge::exec::cuda
