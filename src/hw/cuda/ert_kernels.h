#pragma once
// The measuring kernels of `ridge ert --device cuda` (ert_kernels.cu), behind plain launch
// functions so the host driver (g++) never sees device code. Every launch function only enqueues
// on `stream` and returns the launch's status (cudaGetLastError); the kernel's own errors surface at
// the next synchronizing call.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace ridge::hw::cuda {

enum class FmaPrecision { kFp64, kFp32, kFp16 };

// Independent FMA chains per thread and how many times the loop body is unrolled: a thread runs
// iterations x chains FMAs (half2: each two). Iterations must be a multiple of kFmaUnroll (so
// even: with a = -1, b = 0 every chain is back at its start and the checksum is exact).
inline constexpr int kFmaChainsFp64 = 8;
inline constexpr int kFmaChainsFp32 = 16;
inline constexpr int kFmaChainsFp16 = 16;  // half2 values: 32 lanes of FP16
inline constexpr int kFmaUnroll = 8;
inline constexpr int kThreadsPerBlock = 256;

int fma_chains(FmaPrecision p);
// FLOPs of one thread's FMA instructions in one iteration: chains x 2 (x 2 more for half2).
int fma_flops_per_iteration(FmaPrecision p);

// What the FMA kernel leaves on the device: threads whose checksum was wrong, and the clock
// cycles and %globaltimer nanoseconds of block 0's thread 0 (the SM clock under load).
struct FmaProbe {
  unsigned int bad_threads;
  unsigned int pad;
  unsigned long long cycles;
  unsigned long long nanoseconds;
};

// Resident blocks of kThreadsPerBlock threads per SM for each kernel (the occupancy calculator).
enum class Kernel { kFmaFp64, kFmaFp32, kFmaFp16, kRead, kCopy, kL1Read, kSharedRead };
cudaError_t blocks_per_sm(Kernel kernel, size_t shared_bytes, int* blocks);
Kernel fma_kernel_of(FmaPrecision p);

// chains x iterations FMAs per thread, acc = acc * a + b; the caller passes a = -1, b = 0.
cudaError_t launch_fma(FmaPrecision p, int blocks, long long iterations, double a, double b, FmaProbe* probe,
                       cudaStream_t stream);

// Sums `words` 32-bit words (a multiple of 4, 16-byte aligned) `passes` times, in 16-byte loads;
// block_sums[block] gets the sum of its threads' (modulo 2^64).
cudaError_t launch_read(const uint32_t* data, size_t words, int passes, int blocks, unsigned long long* block_sums,
                        cudaStream_t stream);
// Copies `words` 32-bit words from a to b, then b to a, ... `passes` times (16-byte loads and stores).
cudaError_t launch_copy(uint32_t* a, uint32_t* b, size_t words, int passes, int blocks, cudaStream_t stream);
// Every block reads `words` (a power of two, at least 4 x 4 x kThreadsPerBlock) 32-bit words at `data`
// `passes` times through L1, the addresses rotating each pass; sums as launch_read.
cudaError_t launch_l1_read(const uint32_t* data, size_t words, int passes, int blocks, unsigned long long* block_sums,
                           cudaStream_t stream);
// Every block fills `shared_bytes` of shared memory with ones and reads it `passes` times.
cudaError_t launch_shared_read(size_t shared_bytes, int passes, int blocks, unsigned long long* block_sums,
                               cudaStream_t stream);
// Words read by one thread per pass of launch_l1_read and launch_shared_read: 4 loads of 4 words.
inline constexpr int kRotatingWordsPerThread = 16;

cudaError_t launch_fill_u32(uint32_t* data, size_t words, uint32_t value, cudaStream_t stream);

enum class MatrixType { kFp16, kBf16, kFp32, kInt8 };

// The operands' values: a hash of the element's index, -0.5 .. 0.5 (int8: -8 .. 7): real operands,
// not zeros, so the tensor cores draw their usual power. Host and device, so the host can check a
// product's elements.
__host__ __device__ inline uint32_t matrix_hash(size_t i) {
  uint32_t h = static_cast<uint32_t>(i) * 2654435761u;
  h ^= h >> 16;
  h *= 0x45d9f3bu;
  return h ^ (h >> 16);
}
__host__ __device__ inline float matrix_float(size_t i) {
  return static_cast<float>(matrix_hash(i) & 1023u) / 1023.0f - 0.5f;
}
__host__ __device__ inline int matrix_int8(size_t i) { return static_cast<int>(matrix_hash(i) & 15u) - 8; }

// Fills `elements` of `type` at `data` with matrix_float(i) (rounded to the type) or matrix_int8(i).
cudaError_t launch_fill_matrix(void* data, size_t elements, MatrixType type, cudaStream_t stream);

// An empty kernel of one block of one thread: the launch overhead.
cudaError_t launch_empty(cudaStream_t stream);

}  // namespace ridge::hw::cuda
