// GatherElements, ScatterElements, GatherND, ScatterND and CumSum: index_cell.h's functions a thread per element or
// per line. Scatters with a reduction combine through atomics, since two updates may land on one element.
#include <type_traits>

#include "exec/cuda/grid.cuh"
#include "exec/cuda/index_kernels.h"

namespace ridge::exec::cuda {

namespace {

template <class T>
__global__ void gather_elements_kernel(ElementsPlan p, const T* data, const int64_t* indices, T* out, int* bad) {
  RIDGE_GRID_LOOP(i, p.count) {
    const int64_t at = elements_offset(p, i, indices[i]);
    if (at < 0 && bad) atomicAdd(bad, 1);
    out[i] = at < 0 ? T(0) : data[at];
  }
}

template <class T>
__global__ void gather_nd_kernel(NdPlan p, const T* data, const int64_t* indices, T* out, int* bad) {
  RIDGE_GRID_LOOP(i, p.rows * p.slice) {
    const int64_t r = i / p.slice, s = i % p.slice;
    const int64_t at = nd_offset(p, r, indices + r * p.depth);
    if (at < 0 && bad && s == 0) atomicAdd(bad, 1);
    out[i] = at < 0 ? T(0) : data[at + s];
  }
}

// One update combined into *at while other threads may combine theirs into the same element.
__device__ void atomic_combine(float* at, float v, ScatterReduce r) {
  if (r == ScatterReduce::kAdd) {
    atomicAdd(at, v);
    return;
  }
  auto* word = reinterpret_cast<unsigned int*>(at);
  unsigned int old = *word, assumed;
  do {
    assumed = old;
    old = atomicCAS(word, assumed, __float_as_uint(scatter_combine(r, __uint_as_float(assumed), v)));
  } while (assumed != old);
}

__device__ void atomic_combine(int64_t* at, int64_t v, ScatterReduce r) {
  auto* word = reinterpret_cast<unsigned long long*>(at);
  if (r == ScatterReduce::kAdd) {  // two's complement: the unsigned sum is the signed one
    atomicAdd(word, static_cast<unsigned long long>(v));
    return;
  }
  unsigned long long old = *word, assumed;
  do {
    assumed = old;
    old =
        atomicCAS(word, assumed, static_cast<unsigned long long>(scatter_combine(r, static_cast<int64_t>(assumed), v)));
  } while (assumed != old);
}

// An update landing: replaced, or (fp32 and int64, the types the callers admit with a reduction) combined.
template <class T>
__device__ void land(T* out, int64_t at, T v, ScatterReduce r) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, int64_t>) {
    if (r != ScatterReduce::kNone) {
      atomic_combine(out + at, v, r);
      return;
    }
  }
  out[at] = v;
}

template <class T>
__global__ void scatter_elements_kernel(ElementsPlan p, const int64_t* indices, const T* updates, T* out,
                                        ScatterReduce r, int* bad) {
  RIDGE_GRID_LOOP(i, p.count) {
    const int64_t at = elements_offset(p, i, indices[i]);
    if (at < 0) {
      if (bad) atomicAdd(bad, 1);
    } else {
      land(out, at, updates[i], r);
    }
  }
}

template <class T>
__global__ void scatter_nd_kernel(NdPlan p, const int64_t* indices, const T* updates, T* out, ScatterReduce r,
                                  int* bad) {
  RIDGE_GRID_LOOP(i, p.rows * p.slice) {
    const int64_t row = i / p.slice, s = i % p.slice;
    const int64_t at = nd_offset(p, row, indices + row * p.depth);
    if (at < 0) {
      if (bad && s == 0) atomicAdd(bad, 1);
    } else {
      land(out, at + s, updates[i], r);
    }
  }
}

// A thread per line, each summing its line in order: CumSum in networks runs over short lines (position ids, masks),
// where a parallel scan per line would leave most of its block idle.
template <class T>
__global__ void cumsum_kernel(CumSumPlan p, const T* x, T* y) {
  RIDGE_GRID_LOOP(line, p.outer * p.inner) { cumsum_line(p, x, y, line); }
}

// A thread per element: its rank in its line, and where it is among the k first, its value and index there.
template <class T>
__global__ void topk_kernel(TopKPlan p, const T* x, T* values, int64_t* indices) {
  RIDGE_GRID_LOOP(i, p.outer * p.inner * p.length) {
    const int64_t line = i / p.length, j = i % p.length;
    const int64_t rank = topk_rank(p, x, line, j);
    if (rank < p.k) {
      const int64_t at = topk_out(p, line, rank);
      values[at] = x[(line / p.inner) * p.length * p.inner + j * p.inner + line % p.inner];
      indices[at] = j;
    }
  }
}

template <class T>
__global__ void one_hot_kernel(OneHotPlan p, const int64_t* selected, const T* values, T* out) {
  const T off = values[0], on = values[1];
  RIDGE_GRID_LOOP(e, p.count()) { out[e] = one_hot_on(p, e, selected) ? on : off; }
}

__global__ void normalize_one_hot_kernel(int64_t* indices, int64_t count, int64_t depth) {
  RIDGE_GRID_LOOP(i, count) { indices[i] = one_hot_index(indices[i], depth); }
}

template <class T>
__global__ void reverse_sequence_kernel(ReverseSequencePlan p, const T* data, const int64_t* lens, T* out, int* bad) {
  RIDGE_GRID_LOOP(e, p.count()) {
    out[e] = data[reverse_sequence_source(p, e, lens)];
    if (bad && e < p.batch && (lens[e] < 0 || lens[e] > p.time)) atomicAdd(bad, 1);
  }
}

// Calls body(T{}) with the unsigned type of `bytes`.
template <class Body>
void by_bytes(int bytes, Body body) {
  switch (bytes) {
    case 1:
      body(uint8_t{});
      break;
    case 2:
      body(uint16_t{});
      break;
    case 4:
      body(uint32_t{});
      break;
    default:
      body(uint64_t{});
      break;
  }
}

}  // namespace

void gather_elements(const ElementsPlan& plan, const void* data, const int64_t* indices, void* out, int element_bytes,
                     int* bad, cudaStream_t stream) {
  if (plan.count == 0) return;
  by_bytes(element_bytes, [&](auto t) {
    using T = decltype(t);
    gather_elements_kernel<T><<<blocks_for(plan.count), kThreads, 0, stream>>>(plan, static_cast<const T*>(data),
                                                                               indices, static_cast<T*>(out), bad);
  });
}

void gather_nd(const NdPlan& plan, const void* data, const int64_t* indices, void* out, int element_bytes, int* bad,
               cudaStream_t stream) {
  const int64_t n = plan.rows * plan.slice;
  if (n == 0) return;
  by_bytes(element_bytes, [&](auto t) {
    using T = decltype(t);
    gather_nd_kernel<T>
        <<<blocks_for(n), kThreads, 0, stream>>>(plan, static_cast<const T*>(data), indices, static_cast<T*>(out), bad);
  });
}

void scatter_elements(const ElementsPlan& plan, const int64_t* indices, const void* updates, void* out,
                      int element_bytes, ScatterReduce reduce, ElementType type, int* bad, cudaStream_t stream) {
  if (plan.count == 0) return;
  const auto blocks = blocks_for(plan.count);
  if (reduce != ScatterReduce::kNone && type == ElementType::kFloat32) {
    scatter_elements_kernel<float><<<blocks, kThreads, 0, stream>>>(plan, indices, static_cast<const float*>(updates),
                                                                    static_cast<float*>(out), reduce, bad);
    return;
  }
  if (reduce != ScatterReduce::kNone) {  // the caller admits fp32 and int64 only
    scatter_elements_kernel<int64_t><<<blocks, kThreads, 0, stream>>>(
        plan, indices, static_cast<const int64_t*>(updates), static_cast<int64_t*>(out), reduce, bad);
    return;
  }
  by_bytes(element_bytes, [&](auto t) {
    using T = decltype(t);
    scatter_elements_kernel<T><<<blocks, kThreads, 0, stream>>>(plan, indices, static_cast<const T*>(updates),
                                                                static_cast<T*>(out), reduce, bad);
  });
}

void scatter_nd(const NdPlan& plan, const int64_t* indices, const void* updates, void* out, int element_bytes,
                ScatterReduce reduce, ElementType type, int* bad, cudaStream_t stream) {
  const int64_t n = plan.rows * plan.slice;
  if (n == 0) return;
  const auto blocks = blocks_for(n);
  if (reduce != ScatterReduce::kNone && type == ElementType::kFloat32) {
    scatter_nd_kernel<float><<<blocks, kThreads, 0, stream>>>(plan, indices, static_cast<const float*>(updates),
                                                              static_cast<float*>(out), reduce, bad);
    return;
  }
  if (reduce != ScatterReduce::kNone) {
    scatter_nd_kernel<int64_t><<<blocks, kThreads, 0, stream>>>(plan, indices, static_cast<const int64_t*>(updates),
                                                                static_cast<int64_t*>(out), reduce, bad);
    return;
  }
  by_bytes(element_bytes, [&](auto t) {
    using T = decltype(t);
    scatter_nd_kernel<T><<<blocks, kThreads, 0, stream>>>(plan, indices, static_cast<const T*>(updates),
                                                          static_cast<T*>(out), reduce, bad);
  });
}

bool cumsum(const CumSumPlan& plan, const void* x, void* y, ElementType type, cudaStream_t stream) {
  const int64_t lines = plan.outer * plan.inner;
  auto run = [&](auto t) {
    using T = decltype(t);
    if (lines > 0 && plan.length > 0)
      cumsum_kernel<T><<<blocks_for(lines), kThreads, 0, stream>>>(plan, static_cast<const T*>(x), static_cast<T*>(y));
    return true;
  };
  switch (type) {
    case ElementType::kFloat32:
      return run(float{});
    case ElementType::kFloat64:
      return run(double{});
    case ElementType::kInt32:
      return run(int32_t{});
    case ElementType::kInt64:
      return run(int64_t{});
    default:
      return false;
  }
}

bool topk(const TopKPlan& plan, const void* x, void* values, int64_t* indices, ElementType type, cudaStream_t stream) {
  const int64_t n = plan.outer * plan.inner * plan.length;
  auto run = [&](auto t) {
    using T = decltype(t);
    if (n > 0 && plan.k > 0)
      topk_kernel<T>
          <<<blocks_for(n), kThreads, 0, stream>>>(plan, static_cast<const T*>(x), static_cast<T*>(values), indices);
    return true;
  };
  if (type == ElementType::kFloat32) return run(float{});
  if (type == ElementType::kInt64) return run(int64_t{});
  return false;
}

void one_hot(const OneHotPlan& plan, const int64_t* selected, const void* values, void* out, int element_bytes,
             cudaStream_t stream) {
  if (plan.count() == 0) return;
  by_bytes(element_bytes, [&](auto t) {
    using T = decltype(t);
    one_hot_kernel<T><<<blocks_for(plan.count()), kThreads, 0, stream>>>(plan, selected, static_cast<const T*>(values),
                                                                         static_cast<T*>(out));
  });
}

void normalize_one_hot(int64_t* indices, int64_t count, int64_t depth, cudaStream_t stream) {
  if (count == 0) return;
  normalize_one_hot_kernel<<<blocks_for(count), kThreads, 0, stream>>>(indices, count, depth);
}

void reverse_sequence(const ReverseSequencePlan& plan, const void* data, const int64_t* lens, void* out,
                      int element_bytes, int* bad, cudaStream_t stream) {
  if (plan.count() == 0) return;
  by_bytes(element_bytes, [&](auto t) {
    using T = decltype(t);
    reverse_sequence_kernel<T><<<blocks_for(plan.count()), kThreads, 0, stream>>>(plan, static_cast<const T*>(data),
                                                                                  lens, static_cast<T*>(out), bad);
  });
}

}  // namespace ridge::exec::cuda
