#pragma once
// The reduction kernel (reduce_kernels.cu): a block per output element over the input elements it reduces
// (reduce_cell.h). fp32 in; fp32 out, or the int64 index for ArgMax/ArgMin. C++17 for nvcc.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "exec/cuda/reduce_cell.h"

namespace ridge::exec::cuda {

// y (fp32) or, for an arg op, index (int64) of every output element.
void reduce(const ReducePlan& plan, ReduceOp op, const float* x, float* y, int64_t* index, cudaStream_t stream);

// MeanVarianceNormalization and LpNormalization (reduce_cell.h: WalkNorm): a block per group; y is laid out as x.
void walk_normalize(const ReducePlan& plan, WalkNorm op, const float* x, float* y, cudaStream_t stream);

}  // namespace ridge::exec::cuda
