#pragma once
// ONNX's reductions (ReduceSum, ReduceMean, ... ArgMax, ArgMin), and the normalizations that divide each element by a
// reduction over its group (MeanVarianceNormalization, LpNormalization), as the GPU computes them: the walk from an
// output element to the input elements it reduces (ReducePlan, worked out on the host by reduce_plan.h), and what each
// op does to one element, to two partial results and to the final one. The GPU kernel (reduce_kernels.cu) reduces an
// output per block; reduce_serial() reduces one on the host with the same functions, which is how the host-side tests
// check the walk and the arithmetic against the ONNX project's reference outputs. C++17 for nvcc.
#include <math.h>

#include <cstdint>

#include "exec/cuda/layout.h"

namespace ridge::exec::cuda {

enum class ReduceOp {
  kSum,
  kMean,
  kMax,
  kMin,
  kProd,
  kL1,
  kL2,
  kLogSum,
  kLogSumExp,
  kSumSquare,
  kArgMax,
  kArgMin,
};

// Output element o (row-major over `kept`) reads the input at offset(o) + the offset of each reduced index (row-major
// over `reduced`). Dims of size 1 are dropped and neighbours walked as one are merged.
struct ReducePlan {
  int64_t outputs = 1, count = 1;  // output elements; input elements per output
  Layout kept, reduced;            // dims and input strides
  bool select_last = false;        // ArgMax/ArgMin: the last index of equal values (select_last_index)
};

RIDGE_HOST_DEVICE inline int64_t reduce_offset(const Layout& l, int64_t index) {
  int64_t offset = 0;
  for (int d = l.rank - 1; d >= 0; --d) {
    offset += (index % l.dims[d]) * l.strides[d];
    index /= l.dims[d];
  }
  return offset;
}

RIDGE_HOST_DEVICE inline bool reduce_is_arg(ReduceOp op) { return op == ReduceOp::kArgMax || op == ReduceOp::kArgMin; }

// NaN wins a max or min, as ATen's amax and ONNX's reference.
RIDGE_HOST_DEVICE inline float reduce_max(float a, float b) { return a != a ? a : (b != b ? b : (a > b ? a : b)); }
RIDGE_HOST_DEVICE inline float reduce_min(float a, float b) { return a != a ? a : (b != b ? b : (a < b ? a : b)); }

RIDGE_HOST_DEVICE inline float reduce_identity(ReduceOp op) {
  switch (op) {
    case ReduceOp::kMax:
    case ReduceOp::kArgMax:
      return -INFINITY;
    case ReduceOp::kMin:
    case ReduceOp::kArgMin:
      return INFINITY;
    case ReduceOp::kProd:
      return 1.f;
    default:
      return 0.f;
  }
}

// One element as it enters the reduction; LogSumExp's exp(x - max) takes the max of a first pass.
RIDGE_HOST_DEVICE inline float reduce_map(ReduceOp op, float x, float max) {
  switch (op) {
    case ReduceOp::kL1:
      return fabsf(x);
    case ReduceOp::kL2:
    case ReduceOp::kSumSquare:
      return x * x;
    case ReduceOp::kLogSumExp:
      return expf(x - max);
    default:
      return x;
  }
}

RIDGE_HOST_DEVICE inline float reduce_combine(ReduceOp op, float a, float b) {
  switch (op) {
    case ReduceOp::kMax:
      return reduce_max(a, b);
    case ReduceOp::kMin:
      return reduce_min(a, b);
    case ReduceOp::kProd:
      return a * b;
    default:
      return a + b;
  }
}

RIDGE_HOST_DEVICE inline float reduce_finish(ReduceOp op, float acc, int64_t count, float max) {
  switch (op) {
    case ReduceOp::kMean:
      return acc / static_cast<float>(count);
    case ReduceOp::kL2:
      return sqrtf(acc);
    case ReduceOp::kLogSum:
      return logf(acc);
    case ReduceOp::kLogSumExp:
      return logf(acc) + max;
    default:
      return acc;
  }
}

// Whether (value a, index i) is taken over (value b, index j) by ArgMax/ArgMin: the larger (smaller) value, NaN
// first as ATen's argmax, and on a tie the first index, or the last with select_last_index.
RIDGE_HOST_DEVICE inline bool reduce_arg_better(ReduceOp op, bool select_last, float a, int64_t i, float b, int64_t j) {
  if (a != a || b != b) return a != a && (b == b || (select_last ? i > j : i < j));
  if (a == b) return select_last ? i > j : i < j;
  return op == ReduceOp::kArgMax ? a > b : a < b;
}

// Output o on the host, serially: what the GPU's block computes for it. Arg ops return the index as a float.
RIDGE_HOST_DEVICE inline float reduce_serial(const ReducePlan& p, ReduceOp op, const float* x, int64_t o) {
  const float* base = x + reduce_offset(p.kept, o);
  if (reduce_is_arg(op)) {
    float best = 0.f;
    int64_t at = -1;
    for (int64_t r = 0; r < p.count; ++r) {
      float v = base[reduce_offset(p.reduced, r)];
      if (at < 0 || reduce_arg_better(op, p.select_last, v, r, best, at)) best = v, at = r;
    }
    return static_cast<float>(at);
  }
  float max = -INFINITY;
  if (op == ReduceOp::kLogSumExp)
    for (int64_t r = 0; r < p.count; ++r) max = reduce_max(max, base[reduce_offset(p.reduced, r)]);
  if (op == ReduceOp::kLogSumExp && !(max > -INFINITY && max < INFINITY)) max = max != max ? max : 0.f;
  float acc = reduce_identity(op);
  for (int64_t r = 0; r < p.count; ++r)
    acc = reduce_combine(op, acc, reduce_map(op, base[reduce_offset(p.reduced, r)], max));
  return reduce_finish(op, acc, p.count, max);
}

// MeanVarianceNormalization and LpNormalization: the same walk, with `kept` the groups and `reduced` the elements of
// one, and every element of a group written as (x - shift) / divisor.
enum class WalkNorm {
  kMeanVariance,  // (x - mean) / (sqrt(E[x^2] - mean^2) + 1e-9): ONNX's function body, in that order
  kL1,            // x / sum |x|
  kL2,            // x / sqrt(sum x^2)
};

// What a group's elements add up: `sum` takes x (|x| for L1), `squares` x^2.
RIDGE_HOST_DEVICE inline float walk_norm_term(WalkNorm op, float x) { return op == WalkNorm::kL1 ? fabsf(x) : x; }

// The shift and divisor of a group of `count` elements from its two sums. No epsilon guards L1 and L2 (ONNX's
// reference and the CPU executor divide by the norm as it is: a zero row gives NaN).
RIDGE_HOST_DEVICE inline void walk_norm_divisor(WalkNorm op, float sum, float squares, int64_t count, float& shift,
                                                float& divisor) {
  shift = 0.f;
  if (op == WalkNorm::kL1) {
    divisor = sum;
  } else if (op == WalkNorm::kL2) {
    divisor = sqrtf(squares);
  } else {
    const float n = static_cast<float>(count), mean = sum / n;
    shift = mean;
    divisor = sqrtf(squares / n - mean * mean) + 1e-9f;
  }
}

// Group o on the host, serially: what the GPU's block computes and writes for it. `y` is laid out as `x`.
RIDGE_HOST_DEVICE inline void walk_norm_serial(const ReducePlan& p, WalkNorm op, const float* x, float* y, int64_t o) {
  const int64_t base = reduce_offset(p.kept, o);
  float sum = 0.f, squares = 0.f;
  for (int64_t r = 0; r < p.count; ++r) {
    const float v = x[base + reduce_offset(p.reduced, r)];
    sum += walk_norm_term(op, v);
    squares += v * v;
  }
  float shift = 0.f, divisor = 1.f;
  walk_norm_divisor(op, sum, squares, p.count, shift, divisor);
  for (int64_t r = 0; r < p.count; ++r) {
    const int64_t at = base + reduce_offset(p.reduced, r);
    y[at] = (x[at] - shift) / divisor;
  }
}

}  // namespace ridge::exec::cuda
