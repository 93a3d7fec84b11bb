// Integer products: integer_cell.h's cells a thread per output element, written as int32 or as the 8-bit y type.
#include "exec/cuda/grid.cuh"
#include "exec/cuda/integer_kernels.h"

namespace ridge::exec::cuda {

namespace {

// One store per element: an int32 sum, or the requantized value (already saturated) in y's 8 bits.
__device__ inline void store(void* y, int64_t e, int32_t v, bool quantized, bool y_signed) {
  if (!quantized)
    static_cast<int32_t*>(y)[e] = v;
  else if (y_signed)
    static_cast<int8_t*>(y)[e] = static_cast<int8_t>(v);
  else
    static_cast<uint8_t*>(y)[e] = static_cast<uint8_t>(v);
}

__global__ void integer_matmul_kernel(IntegerMatMulPlan p, IntegerOperands o, void* y) {
  RIDGE_GRID_LOOP(e, p.count()) { store(y, e, integer_matmul_at(p, o, e), p.quantized, p.y_signed); }
}

__global__ void integer_conv_kernel(IntegerConvPlan p, IntegerOperands o, void* y) {
  RIDGE_GRID_LOOP(e, p.count()) { store(y, e, integer_conv_at(p, o, e), p.quantized, p.y_signed); }
}

}  // namespace

void integer_matmul(const IntegerMatMulPlan& plan, const IntegerOperands& operands, void* y, cudaStream_t stream) {
  if (plan.count() > 0) integer_matmul_kernel<<<blocks_for(plan.count()), kThreads, 0, stream>>>(plan, operands, y);
}

void integer_conv(const IntegerConvPlan& plan, const IntegerOperands& operands, void* y, cudaStream_t stream) {
  if (plan.count() > 0) integer_conv_kernel<<<blocks_for(plan.count()), kThreads, 0, stream>>>(plan, operands, y);
}

}  // namespace ridge::exec::cuda
