#pragma once
// Data-dependent selection on the GPU (select_kernels.cu): the indices of flagged elements, in order, by CUB's
// DeviceSelect (the CUDA toolkit's header-only primitives library: a scan a hand-written kernel would repeat), and
// what NonZero and Compress make of them; Unique's distinct values, by CUB's radix sort and scan (unique_cell.h). The
// count is on the device; the op reads it back to size its output. C++17 for nvcc.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "exec/cuda/kernels.h"
#include "exec/cuda/layout.h"

namespace ridge::exec::cuda {

// The scratch bytes select_flagged needs for `n` flags.
size_t select_temp_bytes(int64_t n);
// indices[0 .. *count) = the positions of the nonzero flags among the first n, ascending. Returns CUB's status (as the
// sorts below: cudaSuccess, or why it could not start, which no later cudaGetLastError would see).
cudaError_t select_flagged(const uint8_t* flags, int64_t n, int64_t* indices, int64_t* count, void* temp,
                           size_t temp_bytes, cudaStream_t stream);
// flags[i] = x[i] != 0: floats (fp32, fp64, fp16, bf16: `type`) compared as numbers (-0 is zero, NaN is not);
// anything else by its bits (`element_bytes` 1, 2, 4 or 8).
void nonzero_flags(const void* x, ElementType type, bool is_float, int element_bytes, int64_t n, uint8_t* flags,
                   cudaStream_t stream);
// NonZero's output [rank, count]: each of `count` flat indices as its coordinates over `dims` (dense).
void unravel(const int64_t* flat, int64_t count, const Layout& dims, int64_t* out, cudaStream_t stream);

// Unique without an axis (unique_cell.h) over n elements of fp32, fp64, int32 or int64 (`type`; the others: false,
// nothing launched).
bool unique_takes(ElementType type);
// The scratch bytes of the sorts and the scan below, for n elements.
size_t unique_temp_bytes(ElementType type, int64_t n);
// `keys` = x's keys (unique_key), `sorted` and `positions` (n each) = the keys sorted stably with each element's
// position; run_end[i] = the runs up to and including element i (so run_end[n - 1], on the device, is the number of
// distinct values); `work`: n of scratch. n >= 1.
cudaError_t unique_runs(ElementType type, const void* x, int64_t n, void* keys, void* sorted, int64_t* positions,
                        int64_t* run_end, int64_t* work, void* temp, size_t temp_bytes, cudaStream_t stream);
// Per run (of `runs`): its value (x's at its first position), first position, start and count; per element its
// inverse index.
void unique_scatter(ElementType type, const void* x, const int64_t* positions, const int64_t* run_end, int64_t n,
                    int64_t runs, void* values, int64_t* first, int64_t* start, int64_t* counts, int64_t* inverse,
                    cudaStream_t stream);
// Unsorted: `first_sorted` = the runs' first positions ascending, `order` the runs in that order; out_values,
// out_counts and out_inverse the runs' values, counts and the inverse indices in that order (`rank`: runs scratch).
cudaError_t unique_first_order(ElementType type, const int64_t* first, const void* values, const int64_t* counts,
                               const int64_t* inverse, int64_t runs, int64_t n, int64_t* first_sorted, int64_t* order,
                               int64_t* rank, void* out_values, int64_t* out_counts, int64_t* out_inverse, void* temp,
                               size_t temp_bytes, cudaStream_t stream);

}  // namespace ridge::exec::cuda
