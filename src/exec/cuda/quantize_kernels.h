#pragma once
// The linear quantization kernels (quantize_kernels.cu) over the plan of quantize_cell.h, a thread per element. Scales
// are fp32 and zero points int32 (the caller converts the node's own: a few elements); a null zero point is 0. C++17
// for nvcc.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "exec/cuda/kernels.h"
#include "exec/cuda/quantize_cell.h"

namespace ridge::exec::cuda {

// y (plan.type: uint8 or int8) = QuantizeLinear(x of `x_type`: fp32, fp16 or bf16); false (nothing launched) for
// another type.
bool quantize(const QuantizePlan& plan, const void* x, ElementType x_type, const float* scale,
              const int32_t* zero_point, void* y, cudaStream_t stream);
// y (of `y_type`: fp32, fp16 or bf16) = DequantizeLinear(x of plan.type); false (nothing launched) for another type.
bool dequantize(const QuantizePlan& plan, const void* x, const float* scale, const int32_t* zero_point, void* y,
                ElementType y_type, cudaStream_t stream);
// DynamicQuantizeLinear of fp32 x, given its smallest and largest element (`range`: two floats on the device): y
// (uint8), and the scale (fp32) and zero point (uint8) it used, each one element.
void dynamic_quantize(const float* x, int64_t count, const float* range, uint8_t* y, float* scale, uint8_t* zero_point,
                      cudaStream_t stream);

}  // namespace ridge::exec::cuda
