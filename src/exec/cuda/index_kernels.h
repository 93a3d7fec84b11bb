#pragma once
// The index-driven kernels (index_kernels.cu) over the plans of index_cell.h: a thread per element (GatherElements,
// ScatterElements, GatherND, ScatterND) or per line (CumSum), or per element ranking itself in its line (TopK). Indices
// are int64. `bad`, where not null, counts the indices out of range (a gather writes 0 there, a scatter skips them), so
// the caller can refuse the input. C++17 for nvcc.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "exec/cuda/index_cell.h"
#include "exec/cuda/kernels.h"

namespace ridge::exec::cuda {

// out[i] = data at elements_offset(i, indices[i]); elements of `element_bytes` (1, 2, 4 or 8).
void gather_elements(const ElementsPlan& plan, const void* data, const int64_t* indices, void* out, int element_bytes,
                     int* bad, cudaStream_t stream);
// out, already a copy of data, takes updates[i] at elements_offset(i, indices[i]), or combines it there (atomically:
// fp32 or int64 only, `type`). With kNone, duplicate indices leave one of their updates, as ONNX allows.
void scatter_elements(const ElementsPlan& plan, const int64_t* indices, const void* updates, void* out,
                      int element_bytes, ScatterReduce reduce, ElementType type, int* bad, cudaStream_t stream);
// out[r x slice + s] = data at nd_offset(r) + s.
void gather_nd(const NdPlan& plan, const void* data, const int64_t* indices, void* out, int element_bytes, int* bad,
               cudaStream_t stream);
// out, already a copy of data, takes updates[r x slice + s] at nd_offset(r) + s, or combines it there.
void scatter_nd(const NdPlan& plan, const int64_t* indices, const void* updates, void* out, int element_bytes,
                ScatterReduce reduce, ElementType type, int* bad, cudaStream_t stream);
// y = CumSum(x) of `type` (fp32, fp64, int32 or int64); false (nothing launched) for another type.
bool cumsum(const CumSumPlan& plan, const void* x, void* y, ElementType type, cudaStream_t stream);

// OneHot and Hardmax: out[e] = `on` where one_hot_on(e), else `off`; both elements of `element_bytes` (1, 2, 4 or 8)
// on the device, `values` = [off, on] (OneHot's third input). `selected` is normalized (one_hot_index).
void one_hot(const OneHotPlan& plan, const int64_t* selected, const void* values, void* out, int element_bytes,
             cudaStream_t stream);
// OneHot's indices normalized in place: one_hot_index of each of `count`.
void normalize_one_hot(int64_t* indices, int64_t count, int64_t depth, cudaStream_t stream);

// ReverseSequence: out[e] = data[reverse_sequence_source(e)]; `element_bytes` per element; lengths outside [0, time]
// counted in *bad.
void reverse_sequence(const ReverseSequencePlan& plan, const void* data, const int64_t* lens, void* out,
                      int element_bytes, int* bad, cudaStream_t stream);

// TopK's values (of `type`: fp32 or int64) and int64 indices, each line's k first in order; false (nothing launched)
// for another type.
bool topk(const TopKPlan& plan, const void* x, void* values, int64_t* indices, ElementType type, cudaStream_t stream);

}  // namespace ridge::exec::cuda
