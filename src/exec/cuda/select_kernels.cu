// Selection: CUB's DeviceSelect::Flagged over a counting iterator gives the flagged positions in order.
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include "exec/cuda/convert.cuh"
#include "exec/cuda/grid.cuh"
#include "exec/cuda/select_kernels.h"
#include "exec/cuda/unique_cell.h"

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

__global__ void iota_kernel(int64_t* out, int64_t n) {
  RIDGE_GRID_LOOP(i, n) { out[i] = i; }
}

template <class T>
__global__ void unique_key_kernel(const T* x, int64_t n, T* keys) {
  RIDGE_GRID_LOOP(i, n) { keys[i] = unique_key(x[i]); }
}

template <class T>
__global__ void unique_starts_kernel(const T* sorted, int64_t n, int64_t* starts) {
  RIDGE_GRID_LOOP(i, n) { starts[i] = unique_starts_run(sorted, i); }
}

template <class T>
__global__ void unique_scatter_kernel(const T* x, const int64_t* positions, const int64_t* run_end, int64_t n,
                                      T* values, int64_t* first, int64_t* start, int64_t* inverse) {
  RIDGE_GRID_LOOP(i, n) { unique_scatter(i, x, positions, run_end, values, first, start, inverse); }
}

__global__ void unique_count_kernel(const int64_t* start, int64_t runs, int64_t n, int64_t* counts) {
  RIDGE_GRID_LOOP(r, runs) { counts[r] = unique_count(r, runs, n, start); }
}

template <class T>
__global__ void unique_reorder_kernel(const int64_t* order, const T* values, const int64_t* counts, int64_t runs,
                                      T* out_values, int64_t* out_counts, int64_t* rank) {
  RIDGE_GRID_LOOP(j, runs) { unique_reorder(j, order, values, counts, out_values, out_counts, rank); }
}

__global__ void unique_remap_kernel(const int64_t* inverse, const int64_t* rank, int64_t n, int64_t* out) {
  RIDGE_GRID_LOOP(i, n) { out[i] = rank[inverse[i]]; }
}

// Calls f with a null pointer of the element type CUB sorts for `type` (radix sort orders floats as numbers, -0 just
// before +0).
template <class F>
bool with_unique_type(ElementType type, F f) {
  switch (type) {
    case ElementType::kFloat32:
      f(static_cast<float*>(nullptr));
      return true;
    case ElementType::kFloat64:
      f(static_cast<double*>(nullptr));
      return true;
    case ElementType::kInt32:
      f(static_cast<int32_t*>(nullptr));
      return true;
    case ElementType::kInt64:
      f(static_cast<int64_t*>(nullptr));
      return true;
    default:
      return false;
  }
}

}  // namespace

bool unique_takes(ElementType type) {
  return with_unique_type(type, [](auto*) {});
}

size_t unique_temp_bytes(ElementType type, int64_t n) {
  size_t most = 0;
  with_unique_type(type, [&](auto* typed) {
    using T = std::remove_pointer_t<decltype(typed)>;
    size_t bytes = 0;
    cub::DeviceRadixSort::SortPairs(nullptr, bytes, static_cast<const T*>(nullptr), static_cast<T*>(nullptr),
                                    static_cast<const int64_t*>(nullptr), static_cast<int64_t*>(nullptr), n);
    most = std::max(most, bytes);
  });
  size_t bytes = 0;
  cub::DeviceScan::InclusiveSum(nullptr, bytes, static_cast<const int64_t*>(nullptr), static_cast<int64_t*>(nullptr),
                                n);
  most = std::max(most, bytes);
  cub::DeviceRadixSort::SortPairs(nullptr, bytes, static_cast<const int64_t*>(nullptr), static_cast<int64_t*>(nullptr),
                                  static_cast<const int64_t*>(nullptr), static_cast<int64_t*>(nullptr), n);
  return std::max(most, bytes);
}

cudaError_t unique_runs(ElementType type, const void* x, int64_t n, void* keys, void* sorted, int64_t* positions,
                        int64_t* run_end, int64_t* work, void* temp, size_t temp_bytes, cudaStream_t stream) {
  // `work` holds the positions 0..n-1 to be sorted, then the run starts that the scan sums into run_end.
  cudaError_t status = cudaSuccess;
  with_unique_type(type, [&](auto* typed) {
    using T = std::remove_pointer_t<decltype(typed)>;
    unique_key_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const T*>(x), n, static_cast<T*>(keys));
    iota_kernel<<<blocks_for(n), kThreads, 0, stream>>>(work, n);
    size_t bytes = temp_bytes;
    status = cub::DeviceRadixSort::SortPairs(temp, bytes, static_cast<const T*>(keys), static_cast<T*>(sorted), work,
                                             positions, n, 0, static_cast<int>(sizeof(T) * 8), stream);
    if (status != cudaSuccess) return;
    unique_starts_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const T*>(sorted), n, work);
    bytes = temp_bytes;
    status = cub::DeviceScan::InclusiveSum(temp, bytes, work, run_end, n, stream);
  });
  return status;
}

void unique_scatter(ElementType type, const void* x, const int64_t* positions, const int64_t* run_end, int64_t n,
                    int64_t runs, void* values, int64_t* first, int64_t* start, int64_t* counts, int64_t* inverse,
                    cudaStream_t stream) {
  with_unique_type(type, [&](auto* typed) {
    using T = std::remove_pointer_t<decltype(typed)>;
    unique_scatter_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const T*>(x), positions, run_end, n,
                                                                  static_cast<T*>(values), first, start, inverse);
    unique_count_kernel<<<blocks_for(runs), kThreads, 0, stream>>>(start, runs, n, counts);
  });
}

cudaError_t unique_first_order(ElementType type, const int64_t* first, const void* values, const int64_t* counts,
                               const int64_t* inverse, int64_t runs, int64_t n, int64_t* first_sorted, int64_t* order,
                               int64_t* rank, void* out_values, int64_t* out_counts, int64_t* out_inverse, void* temp,
                               size_t temp_bytes, cudaStream_t stream) {
  cudaError_t status = cudaSuccess;
  with_unique_type(type, [&](auto* typed) {
    using T = std::remove_pointer_t<decltype(typed)>;
    iota_kernel<<<blocks_for(runs), kThreads, 0, stream>>>(rank, runs);  // the runs' numbers, sorted by first position
    size_t bytes = temp_bytes;
    status = cub::DeviceRadixSort::SortPairs(temp, bytes, first, first_sorted, rank, order, runs, 0, 64, stream);
    if (status != cudaSuccess) return;
    unique_reorder_kernel<<<blocks_for(runs), kThreads, 0, stream>>>(order, static_cast<const T*>(values), counts, runs,
                                                                     static_cast<T*>(out_values), out_counts, rank);
    unique_remap_kernel<<<blocks_for(n), kThreads, 0, stream>>>(inverse, rank, n, out_inverse);
  });
  return status;
}

size_t select_temp_bytes(int64_t n) {
  size_t bytes = 0;
  thrust::counting_iterator<int64_t> positions(0);
  cub::DeviceSelect::Flagged(nullptr, bytes, positions, static_cast<const uint8_t*>(nullptr),
                             static_cast<int64_t*>(nullptr), static_cast<int64_t*>(nullptr), n);
  return bytes;
}

cudaError_t select_flagged(const uint8_t* flags, int64_t n, int64_t* indices, int64_t* count, void* temp,
                           size_t temp_bytes, cudaStream_t stream) {
  thrust::counting_iterator<int64_t> positions(0);
  return cub::DeviceSelect::Flagged(temp, temp_bytes, positions, flags, indices, count, n, stream);
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
