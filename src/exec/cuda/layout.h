#pragma once
// How the GPU kernels read a tensor: dims and element strides, and the host-side simplification that
// lets an elementwise kernel do less index arithmetic. Kept apart from graph/ so the kernels compile as
// C++17 (nvcc under CMake 3.25).
#include <cstdint>

#if defined(__CUDACC__)
#define RIDGE_HOST_DEVICE __host__ __device__
#else
#define RIDGE_HOST_DEVICE
#endif

namespace ridge::exec::cuda {

inline constexpr int kMaxRank = 8;

// Dims and element strides of up to kMaxRank dimensions, passed to kernels by value.
struct Layout {
  int rank = 0;
  int64_t dims[kMaxRank] = {};
  int64_t strides[kMaxRank] = {};  // in elements; 0 broadcasts, negative walks backwards
};

// Operands read over one dense output (each operand's dims are the output's; its strides say where the
// elements are). `simplify` drops dims of size 1 and merges neighbouring dims that every operand walks as
// one (stride[d] == stride[d + 1] x dims[d + 1]): a same-shape Add becomes one dim of stride 1, a
// per-channel bias over NCHW three dims [N, C, HxW] with strides [0, 1, 0]. The elements read are the same.
void simplify(Layout& out, Layout* operands, int count);

// A simplified walk as rows: when every operand reads the innermost dim contiguously (stride 1) or as one
// element (stride 0), a kernel can walk the outer dims once per row and the row with no index arithmetic (a
// per-channel bias over NCHW: rows of HxW; a bias over the last dim).
struct Rows {
  bool ok = false;
  int64_t rows = 0, inner = 0;  // rows x inner = the output's elements, row-major
  Layout outer;                 // the output's dims but the last (dense)
  Layout operands[3];           // each operand's strides over `outer`
  int step[3] = {};             // each operand's innermost stride: 1 or 0
};
// Rows of at least `min_inner` elements, or ok = false.
Rows rows_of(const Layout& out, const Layout* operands, int count, int64_t min_inner);

// A copy that moves the input's contiguous dim away from the innermost (NCHW to NHWC, a key's [B, S, H, D] to
// [B, H, D, S]): after simplify, the output is [batches,] rows, cols and the input holds each batch as cols x
// rows, rows contiguous (strides [batch_stride,] 1, rows). An element walk then reads one element per 32-byte
// sector and line it touches; a tiled transpose through shared memory reads and writes whole lines. ok when the
// shape is that and both sides have at least `min_side` elements (a thin side leaves a tile mostly idle).
struct Transpose {
  bool ok = false;
  int64_t batches = 1, rows = 0, cols = 0, batch_stride = 0;
};
Transpose transpose_of(const Layout& out, const Layout& in, int64_t min_side);

// What the kernels may do with a simplified operand.
enum class Access {
  kFlat,     // element i of the output reads element i: no index arithmetic, vector loads
  kScalar,   // every element reads element 0
  kStrided,  // the general walk
};
Access access(const Layout& operand);

// True when every index and offset of the walk fits 32-bit arithmetic: the output's element count and, for
// each operand, base + the largest |offset| stay below 2^31. 64-bit division is emulated in tens of
// instructions on the GPU; 32-bit division is a few.
bool fits_32bit(const Layout& out, const Layout* operands, int count, int64_t base = 0);

// n / d for n < 2^31 and a divisor d in [1, 2^31) fixed before the kernel runs, as a multiply-high, an add and
// a shift (Granlund and Montgomery, "Division by invariant integers using multiplication", PLDI 1994): with
// s = ceil(log2 d) and m = floor(2^32 (2^s - d) / d) + 1, n / d = (mulhi(n, m) + n) >> s. A GPU has no integer
// divider: `n / d` in a kernel is a software routine of ~20 instructions, this is three.
struct Divider {
  uint32_t divisor = 1, multiplier = 1, shift = 0;
  Divider() = default;
  explicit Divider(uint32_t d);
  RIDGE_HOST_DEVICE uint32_t divide(uint32_t n) const {
#if defined(__CUDA_ARCH__)
    const uint32_t high = __umulhi(n, multiplier);
#else
    const auto high = static_cast<uint32_t>((static_cast<uint64_t>(n) * multiplier) >> 32);
#endif
    return (high + n) >> shift;
  }
};

// The walk of `Count` operands over a simplified output in 32-bit arithmetic (fits_32bit said so): one
// division per dim serves every operand.
template <int Count>
struct Walk32 {
  int rank = 0;
  Divider dims[kMaxRank];
  int32_t strides[Count][kMaxRank] = {};
  RIDGE_HOST_DEVICE void at(int64_t index, int64_t (&offsets)[Count]) const {
    auto i = static_cast<uint32_t>(index);
    int32_t o[Count] = {};
    for (int d = rank - 1; d > 0; --d) {
      const uint32_t q = dims[d].divide(i);
      const auto at_d = static_cast<int32_t>(i - q * dims[d].divisor);
      i = q;
      for (int k = 0; k < Count; ++k) o[k] += at_d * strides[k][d];
    }
    for (int k = 0; k < Count; ++k) offsets[k] = rank > 0 ? o[k] + static_cast<int32_t>(i) * strides[k][0] : 0;
  }
};

// The same walk in 64-bit arithmetic, for tensors whose indices or offsets reach 2^31.
template <int Count>
struct Walk64 {
  Layout out;
  Layout in[Count];
  RIDGE_HOST_DEVICE void at(int64_t i, int64_t (&offsets)[Count]) const {
    for (int k = 0; k < Count; ++k) offsets[k] = 0;
    for (int d = out.rank - 1; d >= 0; --d) {
      const int64_t at_d = i % out.dims[d];
      i /= out.dims[d];
      for (int k = 0; k < Count; ++k) offsets[k] += at_d * in[k].strides[d];
    }
  }
};

// The walks of simplified operands over a simplified output (fits_32bit must hold for walk32).
template <int Count>
Walk32<Count> walk32(const Layout& out, const Layout* operands) {
  Walk32<Count> w;
  w.rank = out.rank;
  for (int d = 0; d < out.rank; ++d) {
    w.dims[d] = Divider(static_cast<uint32_t>(out.dims[d]));
    for (int k = 0; k < Count; ++k) w.strides[k][d] = static_cast<int32_t>(operands[k].strides[d]);
  }
  return w;
}
template <int Count>
Walk64<Count> walk64(const Layout& out, const Layout* operands) {
  Walk64<Count> w;
  w.out = out;
  for (int k = 0; k < Count; ++k) w.in[k] = operands[k];
  return w;
}

}  // namespace ridge::exec::cuda
