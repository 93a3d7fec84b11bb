// A block per output element: its threads walk the reduced elements in strides of the block, then combine their
// partial results in shared memory (reduce_cell.h's arithmetic, the host's reduce_serial in parallel).
#include "exec/cuda/grid.cuh"
#include "exec/cuda/reduce_kernels.h"

namespace ridge::exec::cuda {

namespace {

template <int Threads>
__global__ void reduce_kernel(ReducePlan p, ReduceOp op, const float* x, float* y, int64_t* index) {
  __shared__ float values[Threads];
  __shared__ int64_t indices[Threads];
  const int t = static_cast<int>(threadIdx.x);
  const bool arg = reduce_is_arg(op);
  for (int64_t o = blockIdx.x; o < p.outputs; o += gridDim.x) {
    const float* base = x + reduce_offset(p.kept, o);
    if (arg) {
      float best = 0.f;
      int64_t at = -1;
      for (int64_t r = t; r < p.count; r += Threads) {
        float v = base[reduce_offset(p.reduced, r)];
        if (at < 0 || reduce_arg_better(op, p.select_last, v, r, best, at)) best = v, at = r;
      }
      values[t] = best;
      indices[t] = at;
      __syncthreads();
      for (int s = Threads / 2; s > 0; s /= 2) {
        if (t < s && indices[t + s] >= 0 &&
            (indices[t] < 0 ||
             reduce_arg_better(op, p.select_last, values[t + s], indices[t + s], values[t], indices[t]))) {
          values[t] = values[t + s];
          indices[t] = indices[t + s];
        }
        __syncthreads();
      }
      if (t == 0) index[o] = indices[0];
      __syncthreads();
      continue;
    }
    float max = -INFINITY;
    if (op == ReduceOp::kLogSumExp) {  // a first pass for the max, so exp(x - max) cannot overflow
      for (int64_t r = t; r < p.count; r += Threads) max = reduce_max(max, base[reduce_offset(p.reduced, r)]);
      values[t] = max;
      __syncthreads();
      for (int s = Threads / 2; s > 0; s /= 2) {
        if (t < s) values[t] = reduce_max(values[t], values[t + s]);
        __syncthreads();
      }
      max = values[0];
      if (!(max > -INFINITY && max < INFINITY)) max = max != max ? max : 0.f;
      __syncthreads();
    }
    float acc = reduce_identity(op);
    for (int64_t r = t; r < p.count; r += Threads)
      acc = reduce_combine(op, acc, reduce_map(op, base[reduce_offset(p.reduced, r)], max));
    values[t] = acc;
    __syncthreads();
    for (int s = Threads / 2; s > 0; s /= 2) {
      if (t < s) values[t] = reduce_combine(op, values[t], values[t + s]);
      __syncthreads();
    }
    if (t == 0) y[o] = reduce_finish(op, values[0], p.count, max);
    __syncthreads();
  }
}

// A block per group: its threads add up the group's two sums in strides of the block, combine them in shared memory,
// then write every element of the group (walk_norm_serial in parallel).
template <int Threads>
__global__ void walk_norm_kernel(ReducePlan p, WalkNorm op, const float* x, float* y) {
  __shared__ float sums[Threads], squares[Threads];
  const int t = static_cast<int>(threadIdx.x);
  for (int64_t o = blockIdx.x; o < p.outputs; o += gridDim.x) {
    const int64_t base = reduce_offset(p.kept, o);
    float sum = 0.f, square = 0.f;
    for (int64_t r = t; r < p.count; r += Threads) {
      const float v = x[base + reduce_offset(p.reduced, r)];
      sum += walk_norm_term(op, v);
      square += v * v;
    }
    sums[t] = sum;
    squares[t] = square;
    __syncthreads();
    for (int s = Threads / 2; s > 0; s /= 2) {
      if (t < s) {
        sums[t] += sums[t + s];
        squares[t] += squares[t + s];
      }
      __syncthreads();
    }
    float shift = 0.f, divisor = 1.f;
    walk_norm_divisor(op, sums[0], squares[0], p.count, shift, divisor);
    for (int64_t r = t; r < p.count; r += Threads) {
      const int64_t at = base + reduce_offset(p.reduced, r);
      y[at] = (x[at] - shift) / divisor;
    }
    __syncthreads();  // sums[0] is read by every thread before the next group overwrites it
  }
}

}  // namespace

void walk_normalize(const ReducePlan& plan, WalkNorm op, const float* x, float* y, cudaStream_t stream) {
  if (plan.outputs == 0) return;
  unsigned blocks = static_cast<unsigned>(plan.outputs < (1 << 20) ? plan.outputs : (1 << 20));
  if (plan.count <= 64)
    walk_norm_kernel<32><<<blocks, 32, 0, stream>>>(plan, op, x, y);
  else
    walk_norm_kernel<kThreads><<<blocks, kThreads, 0, stream>>>(plan, op, x, y);
}

void reduce(const ReducePlan& plan, ReduceOp op, const float* x, float* y, int64_t* index, cudaStream_t stream) {
  if (plan.outputs == 0) return;
  unsigned blocks = static_cast<unsigned>(plan.outputs < (1 << 20) ? plan.outputs : (1 << 20));
  // A warp where each output reduces few elements (a softmax-like row of tens), a block of kThreads where many.
  if (plan.count <= 64)
    reduce_kernel<32><<<blocks, 32, 0, stream>>>(plan, op, x, y, index);
  else
    reduce_kernel<kThreads><<<blocks, kThreads, 0, stream>>>(plan, op, x, y, index);
}

}  // namespace ridge::exec::cuda
