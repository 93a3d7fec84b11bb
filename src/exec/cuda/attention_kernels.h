#pragma once
// The attention kernel (attention_kernels.cu) over the plan of attention_cell.h: a block of threads per item and run
// of query rows, a group of threads per row holding its query and its output in registers, the keys and values staged
// in shared memory a tile at a time. C++17 for nvcc.
#include <cuda_runtime_api.h>

#include "exec/cuda/attention_cell.h"
#include "exec/cuda/kernels.h"

namespace ridge::exec::cuda {

// y = attention(q, k, v, mask) as the plan says: q, k, v and y of `type` (fp32, fp16 or bf16; computed in fp32), a
// kAdd mask of `type` too, a kKeep or kDrop mask of bytes. False (nothing launched) for another type or a head size
// above kAttentionMaxHead.
bool attention(const AttentionPlan& plan, const void* q, const void* k, const void* v, const void* mask, void* y,
               ElementType type, cudaStream_t stream);

}  // namespace ridge::exec::cuda
