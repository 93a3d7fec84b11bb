#pragma once
// The bitwise kernel (bitwise_kernels.cu) over bitwise_cell.h, a thread per output element. C++17 for nvcc.
#include <cuda_runtime_api.h>

#include "exec/cuda/bitwise_cell.h"

namespace ridge::exec::cuda {

// out = op(a, b) (b ignored for kNot), elements of `element_bytes` (1, 2, 4 or 8); false (nothing launched) for
// another width.
bool bitwise(BitOp op, const void* a, const Layout& a_layout, const void* b, const Layout& b_layout, void* out,
             const Layout& out_layout, int element_bytes, cudaStream_t stream);

}  // namespace ridge::exec::cuda
