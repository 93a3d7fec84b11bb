// Linear quantization: quantize_cell.h's functions a thread per element. A per-channel element finds its scale by
// quant_channel's division; a per-tensor one reads element 0.
#include "exec/cuda/convert.cuh"
#include "exec/cuda/grid.cuh"
#include "exec/cuda/quantize_kernels.h"

namespace ridge::exec::cuda {

namespace {

template <class T, class Q>
__global__ void quantize_kernel(QuantizePlan p, const T* x, const float* scale, const int32_t* zero_point, Q* y) {
  RIDGE_GRID_LOOP(i, p.count) {
    const int64_t c = quant_channel(p, i);
    y[i] = static_cast<Q>(quantize_value(to_float(x[i]), scale[c], zero_point ? zero_point[c] : 0, p.type));
  }
}

template <class Q, class T>
__global__ void dequantize_kernel(QuantizePlan p, const Q* x, const float* scale, const int32_t* zero_point, T* y) {
  RIDGE_GRID_LOOP(i, p.count) {
    const int64_t c = quant_channel(p, i);
    y[i] = from_float<T>(dequantize_value(static_cast<int32_t>(x[i]), zero_point ? zero_point[c] : 0, scale[c]));
  }
}

__global__ void dynamic_quantize_kernel(const float* x, int64_t count, const float* range, uint8_t* y, float* scale,
                                        uint8_t* zero_point) {
  const DynamicQuant d = dynamic_quant(range[0], range[1]);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    *scale = d.scale;
    *zero_point = static_cast<uint8_t>(d.zero_point);
  }
  RIDGE_GRID_LOOP(i, count) {
    y[i] = static_cast<uint8_t>(quantize_value(x[i], d.scale, d.zero_point, QuantType::kUInt8));
  }
}

template <class T>
bool quantize_to(const QuantizePlan& p, const T* x, const float* scale, const int32_t* zero_point, void* y,
                 cudaStream_t stream) {
  const auto blocks = blocks_for(p.count);
  if (p.type == QuantType::kUInt8)
    quantize_kernel<<<blocks, kThreads, 0, stream>>>(p, x, scale, zero_point, static_cast<uint8_t*>(y));
  else if (p.type == QuantType::kInt8)
    quantize_kernel<<<blocks, kThreads, 0, stream>>>(p, x, scale, zero_point, static_cast<int8_t*>(y));
  else
    return false;
  return true;
}

template <class Q>
bool dequantize_from(const QuantizePlan& p, const Q* x, const float* scale, const int32_t* zero_point, void* y,
                     ElementType y_type, cudaStream_t stream) {
  const auto blocks = blocks_for(p.count);
  if (y_type == ElementType::kFloat32)
    dequantize_kernel<<<blocks, kThreads, 0, stream>>>(p, x, scale, zero_point, static_cast<float*>(y));
  else if (y_type == ElementType::kFloat16)
    dequantize_kernel<<<blocks, kThreads, 0, stream>>>(p, x, scale, zero_point, static_cast<__half*>(y));
  else if (y_type == ElementType::kBFloat16)
    dequantize_kernel<<<blocks, kThreads, 0, stream>>>(p, x, scale, zero_point, static_cast<__nv_bfloat16*>(y));
  else
    return false;
  return true;
}

}  // namespace

bool quantize(const QuantizePlan& plan, const void* x, ElementType x_type, const float* scale,
              const int32_t* zero_point, void* y, cudaStream_t stream) {
  if (plan.count == 0) return true;
  if (x_type == ElementType::kFloat32)
    return quantize_to(plan, static_cast<const float*>(x), scale, zero_point, y, stream);
  if (x_type == ElementType::kFloat16)
    return quantize_to(plan, static_cast<const __half*>(x), scale, zero_point, y, stream);
  if (x_type == ElementType::kBFloat16)
    return quantize_to(plan, static_cast<const __nv_bfloat16*>(x), scale, zero_point, y, stream);
  return false;
}

bool dequantize(const QuantizePlan& plan, const void* x, const float* scale, const int32_t* zero_point, void* y,
                ElementType y_type, cudaStream_t stream) {
  if (plan.count == 0) return true;
  if (plan.type == QuantType::kUInt8)
    return dequantize_from(plan, static_cast<const uint8_t*>(x), scale, zero_point, y, y_type, stream);
  if (plan.type == QuantType::kInt8)
    return dequantize_from(plan, static_cast<const int8_t*>(x), scale, zero_point, y, y_type, stream);
  return dequantize_from(plan, static_cast<const int32_t*>(x), scale, zero_point, y, y_type, stream);
}

void dynamic_quantize(const float* x, int64_t count, const float* range, uint8_t* y, float* scale, uint8_t* zero_point,
                      cudaStream_t stream) {
  dynamic_quantize_kernel<<<blocks_for(count), kThreads, 0, stream>>>(x, count, range, y, scale, zero_point);
}

}  // namespace ridge::exec::cuda
