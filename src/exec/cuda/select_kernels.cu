// Selection: CUB's DeviceSelect::Flagged over a counting iterator gives the flagged positions in order.
#include <thrust/iterator/counting_iterator.h>

#include <cub/device/device_select.cuh>

#include "exec/cuda/convert.cuh"
#include "exec/cuda/grid.cuh"
#include "exec/cuda/select_kernels.h"

namespace ridge::exec::cuda {

namespace {

template <class T>
__global__ void float_flags_kernel(const T* x, int64_t n, uint8_t* flags) {
  RIDGE_GRID_LOOP(i, n) { flags[i] = to_float(x[i]) != 0.f ? 1 : 0; }
}

__global__ void double_flags_kernel(const double* x, int64_t n, uint8_t* flags) {
  RIDGE_GRID_LOOP(i, n) { flags[i] = x[i] != 0.0 ? 1 : 0; }
}

template <class T>
__global__ void bit_flags_kernel(const T* x, int64_t n, uint8_t* flags) {
  RIDGE_GRID_LOOP(i, n) { flags[i] = x[i] != T(0) ? 1 : 0; }
}

__global__ void unravel_kernel(const int64_t* flat, int64_t count, Layout dims, int64_t* out) {
  RIDGE_GRID_LOOP(j, count) {
    int64_t rest = flat[j];
    for (int d = dims.rank - 1; d >= 0; --d) {
      out[d * count + j] = rest % dims.dims[d];
      rest /= dims.dims[d];
    }
  }
}

}  // namespace

size_t select_temp_bytes(int64_t n) {
  size_t bytes = 0;
  thrust::counting_iterator<int64_t> positions(0);
  cub::DeviceSelect::Flagged(nullptr, bytes, positions, static_cast<const uint8_t*>(nullptr),
                             static_cast<int64_t*>(nullptr), static_cast<int64_t*>(nullptr), n);
  return bytes;
}

void select_flagged(const uint8_t* flags, int64_t n, int64_t* indices, int64_t* count, void* temp, size_t temp_bytes,
                    cudaStream_t stream) {
  thrust::counting_iterator<int64_t> positions(0);
  cub::DeviceSelect::Flagged(temp, temp_bytes, positions, flags, indices, count, n, stream);
}

void nonzero_flags(const void* x, ElementType type, bool is_float, int element_bytes, int64_t n, uint8_t* flags,
                   cudaStream_t stream) {
  if (n <= 0) return;
  const auto blocks = blocks_for(n);
  if (is_float && type == ElementType::kFloat32)
    float_flags_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const float*>(x), n, flags);
  else if (is_float && type == ElementType::kFloat16)
    float_flags_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const __half*>(x), n, flags);
  else if (is_float && type == ElementType::kBFloat16)
    float_flags_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const __nv_bfloat16*>(x), n, flags);
  else if (is_float)
    double_flags_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const double*>(x), n, flags);
  else if (element_bytes == 1)
    bit_flags_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const uint8_t*>(x), n, flags);
  else if (element_bytes == 2)
    bit_flags_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const uint16_t*>(x), n, flags);
  else if (element_bytes == 4)
    bit_flags_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const uint32_t*>(x), n, flags);
  else
    bit_flags_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const uint64_t*>(x), n, flags);
}

void unravel(const int64_t* flat, int64_t count, const Layout& dims, int64_t* out, cudaStream_t stream) {
  if (count > 0) unravel_kernel<<<blocks_for(count), kThreads, 0, stream>>>(flat, count, dims, out);
}

}  // namespace ridge::exec::cuda
