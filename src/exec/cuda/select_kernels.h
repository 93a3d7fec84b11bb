#pragma once
// Data-dependent selection on the GPU (select_kernels.cu): the indices of flagged elements, in order, by CUB's
// DeviceSelect (the CUDA toolkit's header-only primitives library: a scan a hand-written kernel would repeat), and
// what NonZero and Compress make of them. The count is on the device; the op reads it back to size its output.
// C++17 for nvcc.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "exec/cuda/kernels.h"
#include "exec/cuda/layout.h"

namespace ridge::exec::cuda {

// The scratch bytes select_flagged needs for `n` flags.
size_t select_temp_bytes(int64_t n);
// indices[0 .. *count) = the positions of the nonzero flags among the first n, ascending.
void select_flagged(const uint8_t* flags, int64_t n, int64_t* indices, int64_t* count, void* temp, size_t temp_bytes,
                    cudaStream_t stream);
// flags[i] = x[i] != 0: floats (fp32, fp64, fp16, bf16: `type`) compared as numbers (-0 is zero, NaN is not);
// anything else by its bits (`element_bytes` 1, 2, 4 or 8).
void nonzero_flags(const void* x, ElementType type, bool is_float, int element_bytes, int64_t n, uint8_t* flags,
                   cudaStream_t stream);
// NonZero's output [rank, count]: each of `count` flat indices as its coordinates over `dims` (dense).
void unravel(const int64_t* flat, int64_t count, const Layout& dims, int64_t* out, cudaStream_t stream);

}  // namespace ridge::exec::cuda
