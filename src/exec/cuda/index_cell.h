#pragma once
// ONNX's index-driven ops as the GPU computes them, one element (or one line) at a time: GatherElements and
// ScatterElements (an index per element along one axis), GatherND and ScatterND (an index tuple per slice), CumSum
// (a running sum along one axis), TopK (each element's rank in its line), and OneHot and Hardmax (an element is `on`
// where its line's selected index is its own). The plans are worked out on the host
// (index_plan.h); the kernels (index_kernels.cu) apply these functions a thread per element or line, and the host-side
// tests apply the same functions serially to the ONNX project's node tests (tests/cuda/test_index_host.cpp). C++17 for
// nvcc.
#include <math.h>

#include <cstdint>

#include "exec/cuda/layout.h"

namespace ridge::exec::cuda {

// GatherElements and ScatterElements: element i, row-major over `walk.dims` (the indices' dims), reads or writes data
// at its own index in every dim but `axis`, where it takes the index it holds; `walk.strides` are data's (dense).
struct ElementsPlan {
  Layout walk;
  int axis = 0;
  int64_t axis_size = 0;  // data's dim along the axis: indices lie in [-axis_size, axis_size)
  int64_t count = 0;      // elements of the indices
};

// Data's offset for element i holding `index`; -1 where the index is out of range.
RIDGE_HOST_DEVICE inline int64_t elements_offset(const ElementsPlan& p, int64_t i, int64_t index) {
  if (index < 0) index += p.axis_size;
  if (index < 0 || index >= p.axis_size) return -1;
  int64_t offset = 0;
  for (int d = p.walk.rank - 1; d >= 0; --d) {
    const int64_t at = i % p.walk.dims[d];
    i /= p.walk.dims[d];
    offset += (d == p.axis ? index : at) * p.walk.strides[d];
  }
  return offset;
}

// GatherND and ScatterND: `rows` index tuples of `depth` values each (the indices' last dim), each naming a slice of
// `slice` contiguous elements of data. The first batch_dims dims of the indices and data walk together: row r lies
// in batch r / batch_rows, which starts at batch_stride x batch in data.
struct NdPlan {
  int64_t rows = 0, depth = 0, slice = 1;
  int64_t batch_rows = 1, batch_stride = 0;
  int64_t dims[kMaxRank] = {};     // data's dims the tuple indexes (from batch_dims on)
  int64_t strides[kMaxRank] = {};  // their strides in elements
};

// Data's offset of row r's slice, its tuple at `tuple` (depth values); -1 where a value is out of range.
RIDGE_HOST_DEVICE inline int64_t nd_offset(const NdPlan& p, int64_t r, const int64_t* tuple) {
  int64_t offset = (r / p.batch_rows) * p.batch_stride;
  for (int64_t j = 0; j < p.depth; ++j) {
    int64_t v = tuple[j];
    if (v < 0) v += p.dims[j];
    if (v < 0 || v >= p.dims[j]) return -1;
    offset += v * p.strides[j];
  }
  return offset;
}

// What a scatter does where an update lands: replaces the element, or combines with it (opset 16's `reduction`).
enum class ScatterReduce { kNone, kAdd, kMul, kMax, kMin };

template <class T>
RIDGE_HOST_DEVICE inline T scatter_combine(ScatterReduce r, T old, T update) {
  switch (r) {
    case ScatterReduce::kAdd:
      return old + update;
    case ScatterReduce::kMul:
      return old * update;
    case ScatterReduce::kMax:
      return old > update ? old : update;
    case ScatterReduce::kMin:
      return old < update ? old : update;
    default:
      return update;
  }
}

// CumSum along one axis: `outer` x `inner` lines of `length` elements, element j of line l at
// (l / inner) x length x inner + j x inner + l % inner.
struct CumSumPlan {
  int64_t outer = 1, length = 1, inner = 1;
  bool exclusive = false, reverse = false;
};

// Line l of y, serially: the GPU runs a thread per line.
template <class T>
RIDGE_HOST_DEVICE inline void cumsum_line(const CumSumPlan& p, const T* x, T* y, int64_t line) {
  const int64_t base = (line / p.inner) * p.length * p.inner + line % p.inner;
  T acc = T(0);
  for (int64_t j = 0; j < p.length; ++j) {
    const int64_t at = base + (p.reverse ? p.length - 1 - j : j) * p.inner;
    const T v = x[at];
    if (p.exclusive) {
      y[at] = acc;
      acc += v;
    } else {
      acc += v;
      y[at] = acc;
    }
  }
}

// TopK along one axis: lines as CumSum's; the k first elements of each line in TopK's order are written, in that
// order, to outputs whose axis dim is k.
struct TopKPlan {
  int64_t outer = 1, length = 1, inner = 1, k = 0;
  bool largest = true;
};

// a above b in value. NaN is above every number (as PyTorch's topk orders it; ONNX leaves it open).
template <class T>
RIDGE_HOST_DEVICE inline bool topk_above(T a, T b) {
  if (a != a) return b == b;
  if (b != b) return false;
  return a > b;
}

// Whether element i (value a) of a line comes before element j (value b): the larger (smaller) first, the lower
// index first among equals, as ONNX defines.
template <class T>
RIDGE_HOST_DEVICE inline bool topk_before(bool largest, T a, int64_t i, T b, int64_t j) {
  if (topk_above(a, b)) return largest;
  if (topk_above(b, a)) return !largest;
  return i < j;
}

// Element j's place in line `line`: how many of the line's elements come before it. A thread per element counts
// its own, so no sort is needed (length^2 comparisons a line: fine for the lines TopK takes in networks, a few
// thousand scores).
template <class T>
RIDGE_HOST_DEVICE inline int64_t topk_rank(const TopKPlan& p, const T* x, int64_t line, int64_t j) {
  const int64_t base = (line / p.inner) * p.length * p.inner + line % p.inner;
  const T v = x[base + j * p.inner];
  int64_t rank = 0;
  for (int64_t i = 0; i < p.length; ++i)
    if (i != j && topk_before(p.largest, x[base + i * p.inner], i, v, j)) ++rank;
  return rank;
}

// The offset in TopK's outputs of rank r of line `line`.
RIDGE_HOST_DEVICE inline int64_t topk_out(const TopKPlan& p, int64_t line, int64_t r) {
  return (line / p.inner) * p.k * p.inner + r * p.inner + line % p.inner;
}

// OneHot and Hardmax: the output [outer, depth, inner], element (o, d, i) `on` where line (o, i) selected index d and
// `off` elsewhere; `selected` holds a line's index, row-major over [outer, inner].
struct OneHotPlan {
  int64_t outer = 1, depth = 1, inner = 1;
  RIDGE_HOST_DEVICE int64_t count() const { return outer * depth * inner; }
};

// OneHot's index normalized: negative ones counted from the end, -1 (no element on) outside [-depth, depth).
RIDGE_HOST_DEVICE inline int64_t one_hot_index(int64_t index, int64_t depth) {
  if (index < -depth || index >= depth) return -1;
  return index < 0 ? index + depth : index;
}

// Whether element e of the output is on, its line having selected `selected` (already normalized: -1 selects none).
RIDGE_HOST_DEVICE inline bool one_hot_on(const OneHotPlan& p, int64_t e, const int64_t* selected) {
  const int64_t i = e % p.inner, d = (e / p.inner) % p.depth, o = e / (p.inner * p.depth);
  return selected[o * p.inner + i] == d;
}

// Compress: the input as [outer, length, inner] around the axis (the flattened input without one: [1, all, 1]); the
// condition's first `flags` elements (min of its length and the axis's) pick the slices kept, in order.
struct CompressPlan {
  int64_t outer = 1, length = 0, inner = 1, flags = 0;
  int64_t axis = -1;  // -1: no axis, the output is 1-D
};

// ReverseSequence: [time, batch, inner] or [batch, time, inner] (time_axis 0 or 1); element (t, b) reads
// (lens[b] - 1 - t, b) for t below its batch item's length, itself past it.
struct ReverseSequencePlan {
  int64_t time = 0, batch = 0, inner = 1;
  bool time_first = true;
  RIDGE_HOST_DEVICE int64_t count() const { return time * batch * inner; }
};

// The element element e reads; a length outside [0, time] is clamped to it (the caller refuses such lengths).
RIDGE_HOST_DEVICE inline int64_t reverse_sequence_source(const ReverseSequencePlan& p, int64_t e, const int64_t* lens) {
  const int64_t i = e % p.inner, outer = e / p.inner;
  const int64_t t = p.time_first ? outer / p.batch : outer % p.time;
  const int64_t b = p.time_first ? outer % p.batch : outer / p.time;
  int64_t len = lens[b];
  len = len < 0 ? 0 : (len > p.time ? p.time : len);
  const int64_t from = t < len ? len - 1 - t : t;
  return ((p.time_first ? from * p.batch + b : b * p.time + from) * p.inner) + i;
}

}  // namespace ridge::exec::cuda
