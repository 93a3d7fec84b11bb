#pragma once
// Element conversions the kernels load and store through: every type reads as fp32 and is written back from it, 16-bit
// floats rounded to nearest even (as PyTorch's half and bfloat16 kernels round). Shared by kernels.cu and
// attention_kernels.cu.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace ridge::exec::cuda {

template <class T>
__device__ inline float to_float(T v) {
  return static_cast<float>(v);
}
template <>
__device__ inline float to_float(__half v) {
  return __half2float(v);
}
template <>
__device__ inline float to_float(__nv_bfloat16 v) {
  return __bfloat162float(v);
}
template <class T>
__device__ inline T from_float(float v) {
  return static_cast<T>(v);
}
template <>
__device__ inline __half from_float(float v) {
  return __float2half_rn(v);
}
template <>
__device__ inline __nv_bfloat16 from_float(float v) {
  return __float2bfloat16_rn(v);
}

}  // namespace ridge::exec::cuda
