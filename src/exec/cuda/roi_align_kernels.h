#pragma once
// RoiAlign's kernel (roi_align_kernels.cu): roi_align_at a thread per output element; fp32; the regions whose batch
// index is outside X counted into `bad` where it is given (index_check.h). C++17 for nvcc.
#include <cuda_runtime_api.h>

#include "exec/cuda/roi_align_cell.h"

namespace ridge::exec::cuda {

void roi_align(const RoiAlignPlan& plan, const float* x, const float* rois, const int64_t* batch, float* y, int* bad,
               cudaStream_t stream);

}  // namespace ridge::exec::cuda
