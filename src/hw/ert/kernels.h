#pragma once
// Microbenchmark kernels of `ridge ert`. Each returns a value that depends on every operation it
// claims to perform, so the compiler cannot drop the work, and that the caller checks against a
// closed form (kernels verify what they compute).
#include <cstddef>
#include <cstdint>
#include <string>

namespace ridge::hw::ert {

enum class Isa { kScalar, kNeon, kAvx2, kAvx512 };
Isa best_isa();  // runtime dispatch: the widest the CPU supports
std::string isa_name(Isa isa);
int isa_bits(Isa isa);

// FMA peak: `iterations` steps of acc = acc * a + b over independent vector accumulators.
// With a = -1, b = 0 every accumulator returns to its start after an even number of steps.
struct FmaRun {
  double checksum = 0;  // sum of all accumulator lanes at the end
  double expected = 0;  // closed form: sum of the starting values (iterations even)
  double flops = 0;     // 2 x lanes x accumulators x iterations
};
FmaRun fma_fp32(Isa isa, int64_t iterations, float a, float b);
FmaRun fma_fp64(Isa isa, int64_t iterations, double a, double b);

// Streaming kernels over double arrays of n elements (n a multiple of 32, 64-byte aligned). Bytes counted as
// STREAM does: each array read or written once per pass (no write-allocate traffic).
// Each runs `passes` passes over the arrays inside one call, so short (cache-sized) passes are
// not dominated by call overhead.
double read_kernel(const double* a, size_t n, int passes);  // returns the sum over all passes
// `streaming` uses non-temporal stores (for working sets far beyond the caches, as optimized
// STREAM builds do): the written lines are not read first (no write-allocate).
void write_kernel(double* a, size_t n, double value, int passes, bool streaming = false);
void copy_kernel(double* dst, const double* src, size_t n, int passes, bool streaming = false);
void triad_kernel(double* a, const double* b, const double* c, size_t n, double scalar, int passes,
                  bool streaming = false);  // a = b + s*c

// ERT-style kernel (n a multiple of 64): each float element gets `fmas` chained FMAs (2 FLOPs each) and is written
// back: 2 x fmas FLOPs per 8 bytes moved. Returns the sum of the first 16 results.
double intensity_kernel(float* data, size_t n, int fmas, float a, float b);

}  // namespace ridge::hw::ert
