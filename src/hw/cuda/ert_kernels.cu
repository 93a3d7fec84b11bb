// The kernels of `ridge ert --device cuda`: FMA chains per precision, streaming and rotating reads,
// a ping-pong copy, and the fills of the matrices cuBLASLt multiplies. Every kernel's result is
// checked by the host (checksums, block sums, copied words), so the compiler keeps all the work.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "hw/cuda/ert_kernels.h"

namespace ridge::hw::cuda {
namespace {

__device__ __forceinline__ unsigned long long global_nanoseconds() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// acc = acc * a + b on `Chains` independent accumulators, starting at 1, 2, ..., Chains. With
// a = -1, b = 0 and an even count every accumulator is back at its start, so the sum of a thread's
// accumulators is lanes x Chains x (Chains + 1) / 2 exactly; a thread whose sum differs is counted (which
// also keeps the compiler from dropping any FMA). Block 0's thread 0 records the clock cycles and
// nanoseconds of its loop: the SM clock under the load.
struct Fp64 {
  using T = double;
  static constexpr int kLanes = 1;
  static __device__ __forceinline__ T make(float v) { return v; }
  static __device__ __forceinline__ T step(T x, T a, T b) { return fma(x, a, b); }
  static __device__ __forceinline__ float total(T x) { return static_cast<float>(x); }
};
struct Fp32 {
  using T = float;
  static constexpr int kLanes = 1;
  static __device__ __forceinline__ T make(float v) { return v; }
  static __device__ __forceinline__ T step(T x, T a, T b) { return fmaf(x, a, b); }
  static __device__ __forceinline__ float total(T x) { return x; }
};
struct Fp16 {  // two FP16 lanes per register: one HFMA2 is two FMAs
  using T = __half2;
  static constexpr int kLanes = 2;
  static __device__ __forceinline__ T make(float v) { return __float2half2_rn(v); }
  static __device__ __forceinline__ T step(T x, T a, T b) { return __hfma2(x, a, b); }
  static __device__ __forceinline__ float total(T x) { return __low2float(x) + __high2float(x); }
};

template <typename Ops, int Chains>
__global__ void __launch_bounds__(kThreadsPerBlock)
    fma_chains_kernel(long long iterations, float a_in, float b_in, FmaProbe* probe, float expected) {
  using T = typename Ops::T;
  const T a = Ops::make(a_in), b = Ops::make(b_in);
  T x[Chains];
#pragma unroll
  for (int j = 0; j < Chains; ++j) x[j] = Ops::make(static_cast<float>(j + 1));
  const long long c0 = clock64();
  const unsigned long long t0 = global_nanoseconds();
  for (long long i = 0; i < iterations; i += kFmaUnroll) {
#pragma unroll
    for (int u = 0; u < kFmaUnroll; ++u) {
#pragma unroll
      for (int j = 0; j < Chains; ++j) x[j] = Ops::step(x[j], a, b);
    }
  }
  const long long c1 = clock64();
  const unsigned long long t1 = global_nanoseconds();
  float sum = 0;
#pragma unroll
  for (int j = 0; j < Chains; ++j) sum += Ops::total(x[j]);
  if (sum != expected) atomicAdd(&probe->bad_threads, 1u);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    probe->cycles = static_cast<unsigned long long>(c1 - c0);
    probe->nanoseconds = t1 - t0;
  }
}

// Adds every thread's `value` into block_sums[blockIdx.x] (one plain store per block: no atomics
// to serialize on).
__device__ __forceinline__ void store_block_sum(unsigned long long value, unsigned long long* block_sums) {
  __shared__ unsigned long long warp_sums[kThreadsPerBlock / 32];
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffffu, value, offset);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = value;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long total = 0;
    for (int w = 0; w < kThreadsPerBlock / 32; ++w) total += warp_sums[w];
    block_sums[blockIdx.x] = total;
  }
}

__device__ __forceinline__ unsigned int words(uint4 v) { return v.x + v.y + v.z + v.w; }

// Streams n4 16-byte vectors `passes` times, grid-strided (a warp reads 512 contiguous bytes per
// load); four independent loads in flight per thread, then the rest one by one. A thread reads the
// same elements every pass, so the loads bypass L1 (__ldcg, ld.global.cg): an SM's share of an
// L2-sized array would otherwise fit its L1 and be measured as L1.
__global__ void __launch_bounds__(kThreadsPerBlock)
    read_kernel(const uint4* __restrict__ data, size_t n4, int passes, unsigned long long* block_sums) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t start = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned long long acc = 0;
  for (int p = 0; p < passes; ++p) {
    size_t i = start;
    for (; i + 3 * stride < n4; i += 4 * stride) {
      const uint4 v0 = __ldcg(data + i), v1 = __ldcg(data + i + stride), v2 = __ldcg(data + i + 2 * stride),
                  v3 = __ldcg(data + i + 3 * stride);
      acc += words(v0) + words(v1) + words(v2) + words(v3);
    }
    for (; i < n4; i += stride) acc += words(__ldcg(data + i));
  }
  store_block_sum(acc, block_sums);
}

// a -> b, b -> a, ...: each thread copies the same elements every pass, so a pass reads what the
// same thread wrote in the one before (no race), and no pass can be skipped. No __restrict__: the
// two arrays alternate roles. Loads and stores bypass L1 (__ldcg, __stcg), as in read_kernel.
__global__ void __launch_bounds__(kThreadsPerBlock) copy_kernel(uint4* a, uint4* b, size_t n4, int passes) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t start = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (int p = 0; p < passes; ++p) {
    const uint4* src = (p & 1) ? b : a;
    uint4* dst = (p & 1) ? a : b;
    size_t i = start;
    for (; i + 3 * stride < n4; i += 4 * stride) {
      const uint4 v0 = __ldcg(src + i), v1 = __ldcg(src + i + stride), v2 = __ldcg(src + i + 2 * stride),
                  v3 = __ldcg(src + i + 3 * stride);
      __stcg(dst + i, v0);
      __stcg(dst + i + stride, v1);
      __stcg(dst + i + 2 * stride, v2);
      __stcg(dst + i + 3 * stride, v3);
    }
    for (; i < n4; i += stride) __stcg(dst + i, __ldcg(src + i));
  }
}

// Every block reads the same mask + 1 vectors again and again: after the first pass they are in
// its SM's L1. The addresses rotate by one warp's worth each pass (so no load is loop-invariant);
// a warp still reads 512 contiguous bytes per load.
__global__ void __launch_bounds__(kThreadsPerBlock)
    l1_read_kernel(const uint4* __restrict__ data, unsigned mask, int passes, unsigned long long* block_sums) {
  unsigned long long acc = 0;
#pragma unroll 4
  for (int p = 0; p < passes; ++p) {
    const unsigned base = threadIdx.x + static_cast<unsigned>(p) * 32u;
    const uint4 v0 = data[base & mask], v1 = data[(base + kThreadsPerBlock) & mask],
                v2 = data[(base + 2 * kThreadsPerBlock) & mask], v3 = data[(base + 3 * kThreadsPerBlock) & mask];
    acc += words(v0) + words(v1) + words(v2) + words(v3);
  }
  store_block_sum(acc, block_sums);
}

// The same rotation over mask + 1 vectors of shared memory, which the block fills with ones first.
__global__ void __launch_bounds__(kThreadsPerBlock)
    shared_read_kernel(unsigned mask, int passes, unsigned long long* block_sums) {
  extern __shared__ uint4 shared_vectors[];
  for (unsigned i = threadIdx.x; i <= mask; i += kThreadsPerBlock) shared_vectors[i] = make_uint4(1, 1, 1, 1);
  __syncthreads();
  unsigned long long acc = 0;
#pragma unroll 4
  for (int p = 0; p < passes; ++p) {
    const unsigned base = threadIdx.x + static_cast<unsigned>(p) * 32u;
    const uint4 v0 = shared_vectors[base & mask], v1 = shared_vectors[(base + kThreadsPerBlock) & mask],
                v2 = shared_vectors[(base + 2 * kThreadsPerBlock) & mask],
                v3 = shared_vectors[(base + 3 * kThreadsPerBlock) & mask];
    acc += words(v0) + words(v1) + words(v2) + words(v3);
  }
  store_block_sum(acc, block_sums);
}

__global__ void fill_u32_kernel(uint32_t* data, size_t n, uint32_t value) {
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    data[i] = value;
}

template <typename T>
__device__ __forceinline__ T matrix_value(size_t i);
template <>
__device__ __forceinline__ __half matrix_value<__half>(size_t i) {
  return __float2half(matrix_float(i));
}
template <>
__device__ __forceinline__ __nv_bfloat16 matrix_value<__nv_bfloat16>(size_t i) {
  return __float2bfloat16(matrix_float(i));
}
template <>
__device__ __forceinline__ float matrix_value<float>(size_t i) {
  return matrix_float(i);
}
template <>
__device__ __forceinline__ int8_t matrix_value<int8_t>(size_t i) {
  return static_cast<int8_t>(matrix_int8(i));
}

template <typename T>
__global__ void fill_matrix_kernel(T* data, size_t n) {
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    data[i] = matrix_value<T>(i);
}

__global__ void empty_kernel() {}

template <typename Ops, int Chains>
cudaError_t launch_fma_of(int blocks, long long iterations, float a, float b, FmaProbe* probe, cudaStream_t stream) {
  const auto expected = static_cast<float>(Ops::kLanes * Chains * (Chains + 1) / 2);
  fma_chains_kernel<Ops, Chains><<<blocks, kThreadsPerBlock, 0, stream>>>(iterations, a, b, probe, expected);
  return cudaGetLastError();
}

constexpr int kFillBlocks = 1024;

}  // namespace

int fma_chains(FmaPrecision p) {
  switch (p) {
    case FmaPrecision::kFp64:
      return kFmaChainsFp64;
    case FmaPrecision::kFp32:
      return kFmaChainsFp32;
    case FmaPrecision::kFp16:
      return kFmaChainsFp16;
  }
  return 0;
}

int fma_flops_per_iteration(FmaPrecision p) { return fma_chains(p) * 2 * (p == FmaPrecision::kFp16 ? 2 : 1); }

Kernel fma_kernel_of(FmaPrecision p) {
  switch (p) {
    case FmaPrecision::kFp64:
      return Kernel::kFmaFp64;
    case FmaPrecision::kFp32:
      return Kernel::kFmaFp32;
    case FmaPrecision::kFp16:
      return Kernel::kFmaFp16;
  }
  return Kernel::kFmaFp32;
}

cudaError_t blocks_per_sm(Kernel kernel, size_t shared_bytes, int* blocks) {
  const void* f = nullptr;
  switch (kernel) {
    case Kernel::kFmaFp64:
      f = reinterpret_cast<const void*>(fma_chains_kernel<Fp64, kFmaChainsFp64>);
      break;
    case Kernel::kFmaFp32:
      f = reinterpret_cast<const void*>(fma_chains_kernel<Fp32, kFmaChainsFp32>);
      break;
    case Kernel::kFmaFp16:
      f = reinterpret_cast<const void*>(fma_chains_kernel<Fp16, kFmaChainsFp16>);
      break;
    case Kernel::kRead:
      f = reinterpret_cast<const void*>(read_kernel);
      break;
    case Kernel::kCopy:
      f = reinterpret_cast<const void*>(copy_kernel);
      break;
    case Kernel::kL1Read:
      f = reinterpret_cast<const void*>(l1_read_kernel);
      break;
    case Kernel::kSharedRead:
      f = reinterpret_cast<const void*>(shared_read_kernel);
      break;
  }
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, f, kThreadsPerBlock, shared_bytes);
}

cudaError_t launch_fma(FmaPrecision p, int blocks, long long iterations, double a, double b, FmaProbe* probe,
                       cudaStream_t stream) {
  const auto fa = static_cast<float>(a), fb = static_cast<float>(b);
  switch (p) {
    case FmaPrecision::kFp64:
      return launch_fma_of<Fp64, kFmaChainsFp64>(blocks, iterations, fa, fb, probe, stream);
    case FmaPrecision::kFp32:
      return launch_fma_of<Fp32, kFmaChainsFp32>(blocks, iterations, fa, fb, probe, stream);
    case FmaPrecision::kFp16:
      return launch_fma_of<Fp16, kFmaChainsFp16>(blocks, iterations, fa, fb, probe, stream);
  }
  return cudaErrorInvalidValue;
}

cudaError_t launch_read(const uint32_t* data, size_t words, int passes, int blocks, unsigned long long* block_sums,
                        cudaStream_t stream) {
  read_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(reinterpret_cast<const uint4*>(data), words / 4, passes,
                                                       block_sums);
  return cudaGetLastError();
}

cudaError_t launch_copy(uint32_t* a, uint32_t* b, size_t words, int passes, int blocks, cudaStream_t stream) {
  copy_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(reinterpret_cast<uint4*>(a), reinterpret_cast<uint4*>(b),
                                                       words / 4, passes);
  return cudaGetLastError();
}

cudaError_t launch_l1_read(const uint32_t* data, size_t words, int passes, int blocks, unsigned long long* block_sums,
                           cudaStream_t stream) {
  l1_read_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(reinterpret_cast<const uint4*>(data),
                                                          static_cast<unsigned>(words / 4 - 1), passes, block_sums);
  return cudaGetLastError();
}

cudaError_t launch_shared_read(size_t shared_bytes, int passes, int blocks, unsigned long long* block_sums,
                               cudaStream_t stream) {
  shared_read_kernel<<<blocks, kThreadsPerBlock, shared_bytes, stream>>>(
      static_cast<unsigned>(shared_bytes / sizeof(uint4) - 1), passes, block_sums);
  return cudaGetLastError();
}

cudaError_t launch_fill_u32(uint32_t* data, size_t words, uint32_t value, cudaStream_t stream) {
  fill_u32_kernel<<<kFillBlocks, kThreadsPerBlock, 0, stream>>>(data, words, value);
  return cudaGetLastError();
}

cudaError_t launch_fill_matrix(void* data, size_t elements, MatrixType type, cudaStream_t stream) {
  switch (type) {
    case MatrixType::kFp16:
      fill_matrix_kernel<<<kFillBlocks, kThreadsPerBlock, 0, stream>>>(static_cast<__half*>(data), elements);
      break;
    case MatrixType::kBf16:
      fill_matrix_kernel<<<kFillBlocks, kThreadsPerBlock, 0, stream>>>(static_cast<__nv_bfloat16*>(data), elements);
      break;
    case MatrixType::kFp32:
      fill_matrix_kernel<<<kFillBlocks, kThreadsPerBlock, 0, stream>>>(static_cast<float*>(data), elements);
      break;
    case MatrixType::kInt8:
      fill_matrix_kernel<<<kFillBlocks, kThreadsPerBlock, 0, stream>>>(static_cast<int8_t*>(data), elements);
      break;
  }
  return cudaGetLastError();
}

cudaError_t launch_empty(cudaStream_t stream) {
  empty_kernel<<<1, 1, 0, stream>>>();
  return cudaGetLastError();
}

}  // namespace ridge::hw::cuda
