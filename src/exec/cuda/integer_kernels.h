#pragma once
// The integer product kernels (integer_kernels.cu): integer_cell.h's cells a thread per output element. The output is
// int32 (MatMulInteger, ConvInteger) or, for the QLinear forms, 8-bit of the plan's y type. C++17 for nvcc.
#include <cuda_runtime_api.h>

#include "exec/cuda/integer_cell.h"

namespace ridge::exec::cuda {

void integer_matmul(const IntegerMatMulPlan& plan, const IntegerOperands& operands, void* y, cudaStream_t stream);
void integer_conv(const IntegerConvPlan& plan, const IntegerOperands& operands, void* y, cudaStream_t stream);

}  // namespace ridge::exec::cuda
