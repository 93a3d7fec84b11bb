#pragma once
// NonMaxSuppression's kernels (nms_kernels.cu) over nms_cell.h: the scores sorted per (batch, class) by CUB's segmented
// radix sort (stable), the greedy pass a block per segment, the selected rows written where the host says. C++17 for
// nvcc.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "exec/cuda/nms_cell.h"

namespace ridge::exec::cuda {

// The scratch bytes nms_sort needs.
size_t nms_sort_temp_bytes(const NmsPlan& plan);
// order[s x boxes + j] = the box of rank j in segment s (descending score, ties by index); sorted_scores alike.
// `offsets` holds segments + 1 ints of scratch, `indices` segments x boxes int32. Returns CUB's status (cudaSuccess,
// or why the sort could not start, which no later cudaGetLastError would see).
cudaError_t nms_sort(const NmsPlan& plan, const float* scores, float* sorted_scores, int32_t* indices, int32_t* order,
                     int32_t* offsets, void* temp, size_t temp_bytes, cudaStream_t stream);
// kept[s x cap + k] = segment s's k-th kept box, counts[s] how many (cap = min(max_output, boxes)).
void nms_select(const NmsPlan& plan, const float* boxes, const float* sorted_scores, const int32_t* order,
                int32_t* kept, int64_t cap, int64_t* counts, cudaStream_t stream);
// out[(starts[s] + k) x 3] = (batch, class, kept box) of every segment's kept boxes.
void nms_write(const NmsPlan& plan, const int32_t* kept, int64_t cap, const int64_t* counts, const int64_t* starts,
               int64_t* out, cudaStream_t stream);

}  // namespace ridge::exec::cuda
