// Why `ridge ert --device cuda` measures fp16 CUDA-core FMAs at the fp32 rate on Hopper (issue 27,
// section 2): the same chains of __hfma2 in forms that differ only in where the multiplier and addend
// live, and fp32 for reference, each timed alone. Built on the CPU machine (bench/gpu_fp16_probe.sh) and
// run where the GPU is; it prints one line per form: chains, operands, FLOP/s and the SM clock.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

namespace {

constexpr int kThreads = 256;
constexpr int kUnroll = 8;

__device__ __forceinline__ unsigned long long ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Operands: 0 = the ert kernel's (kernel parameters converted once: uniform), 1 = loaded per thread from
// memory (not uniform), 2 = per chain and per thread (every FMA has its own registers).
template <int Chains, int Operands>
__global__ void __launch_bounds__(kThreads)
    hfma2_chains(long long iterations, float a_in, float b_in, const float* per_thread, unsigned* bad,
                 unsigned long long* clock_ns) {
  __half2 a = __float2half2_rn(a_in), b = __float2half2_rn(b_in);
  if (Operands >= 1) {
    a = __float2half2_rn(per_thread[threadIdx.x]);
    b = __float2half2_rn(per_thread[threadIdx.x + kThreads]);
  }
  __half2 as[Chains], bs[Chains], x[Chains];
#pragma unroll
  for (int j = 0; j < Chains; ++j) {
    x[j] = __float2half2_rn(static_cast<float>(j + 1));
    as[j] = Operands == 2 ? __float2half2_rn(per_thread[(threadIdx.x + j) % kThreads]) : a;
    bs[j] = Operands == 2 ? __float2half2_rn(per_thread[kThreads + (threadIdx.x + j) % kThreads]) : b;
  }
  const long long c0 = clock64();
  const unsigned long long t0 = ns();
  for (long long i = 0; i < iterations; i += kUnroll) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
      for (int j = 0; j < Chains; ++j) x[j] = __hfma2(x[j], as[j], bs[j]);
    }
  }
  const long long c1 = clock64();
  const unsigned long long t1 = ns();
  float sum = 0;
#pragma unroll
  for (int j = 0; j < Chains; ++j) sum += __low2float(x[j]) + __high2float(x[j]);
  if (sum != static_cast<float>(Chains * (Chains + 1))) atomicAdd(bad, 1u);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    clock_ns[0] = static_cast<unsigned long long>(c1 - c0);
    clock_ns[1] = t1 - t0;
  }
}

template <int Chains>
__global__ void __launch_bounds__(kThreads)
    fmaf_chains(long long iterations, float a, float b, const float*, unsigned* bad, unsigned long long* clock_ns) {
  float x[Chains];
#pragma unroll
  for (int j = 0; j < Chains; ++j) x[j] = static_cast<float>(j + 1);
  const long long c0 = clock64();
  const unsigned long long t0 = ns();
  for (long long i = 0; i < iterations; i += kUnroll) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
      for (int j = 0; j < Chains; ++j) x[j] = fmaf(x[j], a, b);
    }
  }
  const long long c1 = clock64();
  const unsigned long long t1 = ns();
  float sum = 0;
#pragma unroll
  for (int j = 0; j < Chains; ++j) sum += x[j];
  if (sum != static_cast<float>(Chains * (Chains + 1) / 2)) atomicAdd(bad, 1u);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    clock_ns[0] = static_cast<unsigned long long>(c1 - c0);
    clock_ns[1] = t1 - t0;
  }
}

using Kernel = void (*)(long long, float, float, const float*, unsigned*, unsigned long long*);

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "gpu_fp16_probe: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

void measure(const char* name, Kernel kernel, int chains, int lanes, const cudaDeviceProp& prop,
             const float* per_thread, unsigned* bad, unsigned long long* clock_ns) {
  int per_sm = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, 0), "occupancy");
  const int blocks = prop.multiProcessorCount * per_sm * 4;
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  long long iterations = kUnroll * 64;
  float ms = 0;
  for (;;) {  // until one launch takes 50 ms
    check(cudaMemset(bad, 0, sizeof(unsigned)), "memset");
    check(cudaEventRecord(start), "record");
    kernel<<<blocks, kThreads>>>(iterations, -1.f, 0.f, per_thread, bad, clock_ns);
    check(cudaGetLastError(), "launch");
    check(cudaEventRecord(stop), "record");
    check(cudaEventSynchronize(stop), "sync");
    check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
    if (ms > 50 || iterations > (1LL << 34)) break;
    iterations *= 2;
  }
  float best = 1e30f;
  for (int rep = 0; rep < 5; ++rep) {
    check(cudaEventRecord(start), "record");
    kernel<<<blocks, kThreads>>>(iterations, -1.f, 0.f, per_thread, bad, clock_ns);
    check(cudaEventRecord(stop), "record");
    check(cudaEventSynchronize(stop), "sync");
    check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
    if (ms < best) best = ms;
  }
  unsigned host_bad = 0;
  unsigned long long host_clock[2] = {};
  check(cudaMemcpy(&host_bad, bad, sizeof host_bad, cudaMemcpyDeviceToHost), "copy");
  check(cudaMemcpy(host_clock, clock_ns, sizeof host_clock, cudaMemcpyDeviceToHost), "copy");
  const double flops = double(blocks) * kThreads * double(iterations) * chains * 2.0 * lanes;
  std::printf("%-34s chains %2d  blocks/SM %d  %8.2f TFLOP/s  clock %6.0f MHz  bad threads %u\n", name, chains, per_sm,
              flops / (best * 1e-3) / 1e12, double(host_clock[0]) / double(host_clock[1]) * 1e3, host_bad);
}

}  // namespace

int main() {
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("%s, %d SMs, sm_%d%d\n", prop.name, prop.multiProcessorCount, prop.major, prop.minor);
  float host[2 * kThreads];
  for (int i = 0; i < kThreads; ++i) host[i] = -1.f, host[kThreads + i] = 0.f;
  float* per_thread = nullptr;
  unsigned* bad = nullptr;
  unsigned long long* clock_ns = nullptr;
  check(cudaMalloc(&per_thread, sizeof host), "malloc");
  check(cudaMalloc(&bad, sizeof(unsigned)), "malloc");
  check(cudaMalloc(&clock_ns, 2 * sizeof(unsigned long long)), "malloc");
  check(cudaMemcpy(per_thread, host, sizeof host, cudaMemcpyHostToDevice), "copy");
  measure("fmaf, uniform operands", fmaf_chains<16>, 16, 1, prop, per_thread, bad, clock_ns);
  measure("__hfma2, uniform operands (ert)", hfma2_chains<16, 0>, 16, 2, prop, per_thread, bad, clock_ns);
  measure("__hfma2, uniform operands", hfma2_chains<32, 0>, 32, 2, prop, per_thread, bad, clock_ns);
  measure("__hfma2, per-thread operands", hfma2_chains<16, 1>, 16, 2, prop, per_thread, bad, clock_ns);
  measure("__hfma2, per-thread operands", hfma2_chains<32, 1>, 32, 2, prop, per_thread, bad, clock_ns);
  measure("__hfma2, per-chain operands", hfma2_chains<16, 2>, 16, 2, prop, per_thread, bad, clock_ns);
  measure("__hfma2, per-chain operands", hfma2_chains<32, 2>, 32, 2, prop, per_thread, bad, clock_ns);
  return 0;
}
