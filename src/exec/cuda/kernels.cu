// The GPU executor's own kernels (see kernels.h). Grid-stride loops over int64 indices: a tensor of
// 2^31 elements or more is indexed correctly.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "exec/cuda/convert.cuh"
#include "exec/cuda/elementwise_math.h"
#include "exec/cuda/grid.cuh"
#include "exec/cuda/kernels.h"

namespace ridge::exec::cuda {

namespace {

// `vector`: x and y are 16-byte aligned, so four elements move per load and store (the tail one by one).
__global__ void unary_kernel(UnaryOp op, const float* x, float* y, int64_t n, float a, float b, bool vector) {
  const int64_t n4 = vector ? n / 4 : 0;
  RIDGE_GRID_LOOP(i, n4) {
    float4 v = reinterpret_cast<const float4*>(x)[i];
    v.x = apply_unary(op, v.x, a, b);
    v.y = apply_unary(op, v.y, a, b);
    v.z = apply_unary(op, v.z, a, b);
    v.w = apply_unary(op, v.w, a, b);
    reinterpret_cast<float4*>(y)[i] = v;
  }
  RIDGE_GRID_LOOP(j, n - n4 * 4) { y[n4 * 4 + j] = apply_unary(op, x[n4 * 4 + j], a, b); }
}

// A 16-bit activation (fp16, bf16) through the fp32 op, rounded once on the way out, as PyTorch's half kernels compute.
template <class T>
__global__ void unary_storage_kernel(UnaryOp op, const T* x, T* y, int64_t n, float a, float b) {
  RIDGE_GRID_LOOP(i, n) { y[i] = from_float<T>(apply_unary(op, to_float(x[i]), a, b)); }
}

__global__ void not_kernel(const uint8_t* x, uint8_t* y, int64_t n) {
  RIDGE_GRID_LOOP(i, n) { y[i] = x[i] ? 0 : 1; }
}

// The strided kernels take a walk (Walk32 or Walk64, layout.h) that gives every operand's offset of output
// element i.
template <class T, class W>
__global__ void binary_kernel(BinaryOp op, const T* a, const T* b, T* out, W walk, int64_t n) {
  RIDGE_GRID_LOOP(i, n) {
    int64_t at[2];
    walk.at(i, at);
    out[i] = apply_binary(op, a[at[0]], b[at[1]]);
  }
}

// fp32 `op` where each operand is read flat (element i) or as a scalar (element 0): no index arithmetic.
// `vector`: every flat pointer is 16-byte aligned, so four elements move per load and store.
template <BinaryOp Op>
__global__ void binary_flat_kernel(const float* a, bool a_scalar, const float* b, bool b_scalar, float* out, int64_t n,
                                   bool vector) {
  const float as = a_scalar ? a[0] : 0.f, bs = b_scalar ? b[0] : 0.f;
  const int64_t n4 = vector ? n / 4 : 0;
  RIDGE_GRID_LOOP(i, n4) {
    const float4 x = a_scalar ? make_float4(as, as, as, as) : reinterpret_cast<const float4*>(a)[i];
    const float4 y = b_scalar ? make_float4(bs, bs, bs, bs) : reinterpret_cast<const float4*>(b)[i];
    reinterpret_cast<float4*>(out)[i] = make_float4(apply_binary(Op, x.x, y.x), apply_binary(Op, x.y, y.y),
                                                    apply_binary(Op, x.z, y.z), apply_binary(Op, x.w, y.w));
  }
  RIDGE_GRID_LOOP(j, n - n4 * 4) {
    const int64_t i = n4 * 4 + j;
    out[i] = apply_binary(Op, a_scalar ? as : a[i], b_scalar ? bs : b[i]);
  }
}

// fp32 `op` over rows (Rows, layout.h): each row's operand offsets come from the outer walk once, then the row
// is read flat (step 1) or as one element (step 0). `vector`: every flat row start is 16-byte aligned and the
// row a multiple of 4 long.
template <BinaryOp Op>
__global__ void binary_rows_kernel(const float* a, int a_step, const float* b, int b_step, float* out, Walk32<2> outer,
                                   int64_t rows, int inner, bool vector) {
  const int vectors = vector ? inner / 4 : 0;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    int64_t at[2];
    outer.at(row, at);
    const float *ar = a + at[0], *br = b + at[1];
    float* o = out + row * inner;
    const float as = ar[0], bs = br[0];
    for (int j = threadIdx.x; j < vectors; j += blockDim.x) {
      const float4 x = a_step ? reinterpret_cast<const float4*>(ar)[j] : make_float4(as, as, as, as);
      const float4 y = b_step ? reinterpret_cast<const float4*>(br)[j] : make_float4(bs, bs, bs, bs);
      reinterpret_cast<float4*>(o)[j] = make_float4(apply_binary(Op, x.x, y.x), apply_binary(Op, x.y, y.y),
                                                    apply_binary(Op, x.z, y.z), apply_binary(Op, x.w, y.w));
    }
    for (int j = vectors * 4 + threadIdx.x; j < inner; j += blockDim.x)
      o[j] = apply_binary(Op, ar[a_step * j], br[b_step * j]);
  }
}

// binary_kernel and binary_flat_kernel for 16-bit operands: each element computed in fp32 and rounded once.
template <class T, class W>
__global__ void binary_storage_kernel(BinaryOp op, const T* a, const T* b, T* out, W walk, int64_t n) {
  RIDGE_GRID_LOOP(i, n) {
    int64_t at[2];
    walk.at(i, at);
    out[i] = from_float<T>(apply_binary(op, to_float(a[at[0]]), to_float(b[at[1]])));
  }
}

template <class T, BinaryOp Op>
__global__ void binary_flat_storage_kernel(const T* a, bool a_scalar, const T* b, bool b_scalar, T* out, int64_t n) {
  const float as = a_scalar ? to_float(a[0]) : 0.f, bs = b_scalar ? to_float(b[0]) : 0.f;
  RIDGE_GRID_LOOP(i, n) {
    out[i] = from_float<T>(apply_binary(Op, a_scalar ? as : to_float(a[i]), b_scalar ? bs : to_float(b[i])));
  }
}

template <class T, class W>
__global__ void compare_kernel(BinaryOp op, const T* a, const T* b, uint8_t* out, W walk, int64_t n) {
  RIDGE_GRID_LOOP(i, n) {
    int64_t at[2];
    walk.at(i, at);
    out[i] = compare(op, a[at[0]], b[at[1]]) ? 1 : 0;
  }
}

template <class W>
__global__ void logic_kernel(BinaryOp op, const uint8_t* a, const uint8_t* b, uint8_t* out, W walk, int64_t n) {
  RIDGE_GRID_LOOP(i, n) {
    int64_t at[2];
    walk.at(i, at);
    out[i] = apply_logic(op, a[at[0]] != 0, b[at[1]] != 0) ? 1 : 0;
  }
}

template <class T, class W>
__global__ void where_kernel(const uint8_t* cond, const T* x, const T* y, T* out, W walk, int64_t n) {
  RIDGE_GRID_LOOP(i, n) {
    int64_t at[3];
    walk.at(i, at);
    out[i] = cond[at[0]] ? x[at[1]] : y[at[2]];
  }
}

// The output is dense; `in` is read at base + the walk's offset.
template <class T, class W>
__global__ void strided_copy_kernel(const T* in, int64_t base, T* out, W walk, int64_t n) {
  in += base;
  RIDGE_GRID_LOOP(i, n) {
    int64_t at[1];
    walk.at(i, at);
    out[i] = in[at[0]];
  }
}

// Through double for the integer and double types (exact int64 up to 2^53), through float for halves.
template <class From, class To>
__global__ void cast_kernel(const From* in, To* out, int64_t n, bool to_bool) {
  RIDGE_GRID_LOOP(i, n) {
    if constexpr (std::is_same_v<From, __half> || std::is_same_v<From, __nv_bfloat16> || std::is_same_v<To, __half> ||
                  std::is_same_v<To, __nv_bfloat16>) {
      float v = to_float(in[i]);
      out[i] = to_bool ? from_float<To>(v != 0.f ? 1.f : 0.f) : from_float<To>(v);
    } else if constexpr (std::is_same_v<From, int64_t> && std::is_same_v<To, int64_t>) {
      out[i] = in[i];
    } else {
      double v = static_cast<double>(in[i]);
      out[i] = to_bool ? static_cast<To>(v != 0.0 ? 1 : 0) : static_cast<To>(v);
    }
  }
}

template <class T>
__global__ void pad_kernel(const T* in, Layout il, Layout begin, T* out, Layout ol, T value, int64_t n) {
  RIDGE_GRID_LOOP(i, n) {
    int64_t rest = i, offset = 0;
    bool inside = true;
    for (int d = ol.rank - 1; d >= 0; --d) {
      int64_t index = rest % ol.dims[d] - begin.dims[d];
      rest /= ol.dims[d];
      if (index < 0 || index >= il.dims[d]) inside = false;
      offset += index * il.strides[d];
    }
    out[i] = inside ? in[offset] : value;
  }
}

template <class T>
__global__ void gather_kernel(const T* data, int64_t outer, int64_t axis_size, int64_t inner, const int64_t* indices,
                              int64_t count, T* out, int* bad) {
  int64_t n = outer * count * inner;
  RIDGE_GRID_LOOP(i, n) {
    int64_t k = i % inner, j = (i / inner) % count, o = i / (inner * count);
    int64_t index = indices[j];
    if (index < 0) index += axis_size;
    if (index < 0 || index >= axis_size) {
      out[i] = T(0);
      if (bad && k == 0) atomicAdd(bad, 1);
    } else {
      out[i] = data[(o * axis_size + index) * inner + k];
    }
  }
}

// One block per row: mean and variance by a two-pass reduction in shared memory.
// T: fp32, or a 16-bit activation read into fp32 statistics and rounded once on the way out.
template <class T>
__global__ void layer_norm_kernel(const T* x, const float* scale, const float* bias, T* y, int64_t cols,
                                  float epsilon) {
  __shared__ float partial[kThreads];
  const T* row = x + static_cast<int64_t>(blockIdx.x) * cols;
  T* out = y + static_cast<int64_t>(blockIdx.x) * cols;
  auto block_sum = [&](float v) {
    partial[threadIdx.x] = v;
    __syncthreads();
    for (int s = kThreads / 2; s > 0; s /= 2) {
      if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
      __syncthreads();
    }
    float total = partial[0];
    __syncthreads();
    return total;
  };
  float sum = 0.f;
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) sum += to_float(row[c]);
  float mean = block_sum(sum) / static_cast<float>(cols);
  float squares = 0.f;
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) {
    const float d = to_float(row[c]) - mean;
    squares += d * d;
  }
  float inv = rsqrtf(block_sum(squares) / static_cast<float>(cols) + epsilon);
  for (int64_t c = threadIdx.x; c < cols; c += kThreads)
    out[c] = from_float<T>((to_float(row[c]) - mean) * inv * scale[c] + (bias ? bias[c] : 0.f));
}

__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// One warp per row with the row in registers (cols a multiple of 4, at most 128 x kVectors): every element
// is read once and written once, and the reductions are shuffles; layer_norm_kernel's block per row reads a
// row three times and synchronizes its block sixteen times.
template <int kVectors>
__global__ void layer_norm_warp_kernel(const float* x, const float* scale, const float* bias, float* y, int64_t rows,
                                       int cols, float epsilon) {
  const int lane = threadIdx.x % 32;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * (kThreads / 32) + threadIdx.x / 32;
  if (row >= rows) return;  // the whole warp: no shuffle waits on it
  const int vectors = cols / 4;
  const auto* in = reinterpret_cast<const float4*>(x + row * cols);
  float4 v[kVectors];
  float sum = 0.f;
#pragma unroll
  for (int k = 0; k < kVectors; ++k) {
    const int c = lane + 32 * k;
    v[k] = c < vectors ? in[c] : make_float4(0.f, 0.f, 0.f, 0.f);
    sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
  }
  const float mean = warp_sum(sum) / static_cast<float>(cols);
  float squares = 0.f;
#pragma unroll
  for (int k = 0; k < kVectors; ++k) {
    if (lane + 32 * k >= vectors) continue;
    const float a = v[k].x - mean, b = v[k].y - mean, c = v[k].z - mean, d = v[k].w - mean;
    squares += (a * a + b * b) + (c * c + d * d);
  }
  const float inv = rsqrtf(warp_sum(squares) / static_cast<float>(cols) + epsilon);
  auto* out = reinterpret_cast<float4*>(y + row * cols);
  const auto* s4 = reinterpret_cast<const float4*>(scale);
  const auto* b4 = reinterpret_cast<const float4*>(bias);
#pragma unroll
  for (int k = 0; k < kVectors; ++k) {
    const int c = lane + 32 * k;
    if (c >= vectors) continue;
    const float4 s = s4[c], b = bias ? b4[c] : make_float4(0.f, 0.f, 0.f, 0.f);
    out[c] = make_float4((v[k].x - mean) * inv * s.x + b.x, (v[k].y - mean) * inv * s.y + b.y,
                         (v[k].z - mean) * inv * s.z + b.z, (v[k].w - mean) * inv * s.w + b.w);
  }
}

template <class T>
__global__ void table_gather_kernel(const T* in, Layout il, const int64_t* tables, Layout ol, Layout offsets, T* out,
                                    int64_t n) {
  RIDGE_GRID_LOOP(i, n) {
    int64_t rest = i, offset = 0;
    for (int d = ol.rank - 1; d >= 0; --d) {
      offset += tables[offsets.dims[d] + rest % ol.dims[d]] * il.strides[d];
      rest /= ol.dims[d];
    }
    out[i] = in[offset];
  }
}

template <class T>
__global__ void trilu_kernel(const T* in, T* out, int64_t rows, int64_t cols, int64_t k, bool upper, int64_t n) {
  RIDGE_GRID_LOOP(i, n) {
    int64_t col = i % cols, row = (i / cols) % rows;
    bool keep = upper ? col - row >= k : col - row <= k;
    out[i] = keep ? in[i] : T(0);
  }
}

__global__ void classify_kernel(const float* x, uint8_t* y, int64_t n, bool nan, bool positive_inf, bool negative_inf) {
  RIDGE_GRID_LOOP(i, n) { y[i] = is_class(x[i], nan, positive_inf, negative_inf) ? 1 : 0; }
}

__global__ void fill_kernel(float* out, int64_t n, float value) {
  RIDGE_GRID_LOOP(i, n) { out[i] = value; }
}

template <class T>
__global__ void fill_bits_kernel(T* out, int64_t n, T bits) {
  RIDGE_GRID_LOOP(i, n) { out[i] = bits; }
}

__device__ float activate(EpilogueOp op, float x, float lo, float hi) {
  switch (op) {
    case EpilogueOp::kRelu:
      return fmaxf(x, 0.f);
    case EpilogueOp::kGeluErf:
      return 0.5f * x * (1.f + erff(x * 0.70710678118654752f));
    case EpilogueOp::kGeluTanh:
      return 0.5f * x * (1.f + tanhf(0.79788456080286536f * (x + 0.044715f * x * x * x)));
    case EpilogueOp::kSilu:
      return x / (1.f + expf(-x));
    case EpilogueOp::kHardSwish:
      return x * fminf(fmaxf(x * (1.f / 6.f) + 0.5f, 0.f), 1.f);
    case EpilogueOp::kClip:
      return fminf(fmaxf(x, lo), hi);
    default:
      return x;
  }
}

// 32-bit index arithmetic where the tensor fits, as the other flat paths.
// T: fp32, or the 16-bit type a run keeps activations in (computed in fp32, rounded once).
template <class T, class I>
__global__ void epilogue_kernel(T* y, I n, const float* bias, const T* residual, I channels, I inner, EpilogueOp op,
                                float lo, float hi) {
  RIDGE_GRID_LOOP(i, n) {
    float v = to_float(y[i]);
    if (bias) v += bias[static_cast<I>(i) / inner % channels];
    if (residual) v += to_float(residual[i]);
    y[i] = from_float<T>(activate(op, v, lo, hi));
  }
}

// The tiled transpose of layout.h's Transpose: a 32 x 32 tile read along the input's rows and written along the
// output's, through shared memory padded by one column so the column reads hit 32 banks. Blocks of 32 x 8 threads,
// four elements each; the grid is (row tiles, column tiles, batches).
constexpr int kTile = 32, kTileRows = 8;
template <class T>
__global__ void transpose_kernel(const T* in, T* out, int64_t rows, int64_t cols, int64_t batch_stride) {
  __shared__ T tile[kTile][kTile + 1];
  const int64_t batch = blockIdx.z, r0 = static_cast<int64_t>(blockIdx.x) * kTile,
                c0 = static_cast<int64_t>(blockIdx.y) * kTile;
  in += batch * batch_stride;
  out += batch * rows * cols;
  for (int j = threadIdx.y; j < kTile; j += kTileRows) {
    const int64_t c = c0 + j, r = r0 + threadIdx.x;  // the input's row c, element r
    if (c < cols && r < rows) tile[j][threadIdx.x] = in[c * rows + r];
  }
  __syncthreads();
  for (int j = threadIdx.y; j < kTile; j += kTileRows) {
    const int64_t r = r0 + j, c = c0 + threadIdx.x;  // the output's row r, element c
    if (r < rows && c < cols) out[r * cols + c] = tile[threadIdx.x][j];
  }
}

template <class T>
void launch_transpose(const void* in, int64_t base, void* out, const Transpose& t, cudaStream_t stream) {
  dim3 grid(static_cast<unsigned>((t.rows + kTile - 1) / kTile), static_cast<unsigned>((t.cols + kTile - 1) / kTile),
            static_cast<unsigned>(t.batches));
  transpose_kernel<T><<<grid, dim3(kTile, kTileRows), 0, stream>>>(
      static_cast<const T*>(in) + base, static_cast<T*>(out), t.rows, t.cols, t.batch_stride);
}

template <class T, class W>
void launch_strided(const void* in, int64_t base, void* out, const W& walk, int64_t n, cudaStream_t stream) {
  strided_copy_kernel<T, W>
      <<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const T*>(in), base, static_cast<T*>(out), walk, n);
}

template <class T, class W>
void launch_where(const void* c, const void* x, const void* y, void* out, const W& walk, int64_t n,
                  cudaStream_t stream) {
  where_kernel<T, W><<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const uint8_t*>(c), static_cast<const T*>(x),
                                                             static_cast<const T*>(y), static_cast<T*>(out), walk, n);
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

int64_t count(const Layout& l) {
  int64_t n = 1;
  for (int d = 0; d < l.rank; ++d) n *= l.dims[d];
  return n;
}

template <class From, class To>
void launch_cast(const void* in, void* out, int64_t n, bool to_bool, cudaStream_t stream) {
  cast_kernel<From, To>
      <<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const From*>(in), static_cast<To*>(out), n, to_bool);
}

template <class From>
bool cast_from(ElementType to, const void* in, void* out, int64_t n, cudaStream_t stream) {
  using DType = ElementType;
  switch (to) {
    case DType::kFloat32:
      launch_cast<From, float>(in, out, n, false, stream);
      return true;
    case DType::kFloat16:
      launch_cast<From, __half>(in, out, n, false, stream);
      return true;
    case DType::kBFloat16:
      launch_cast<From, __nv_bfloat16>(in, out, n, false, stream);
      return true;
    case DType::kFloat64:
      launch_cast<From, double>(in, out, n, false, stream);
      return true;
    case DType::kInt64:
      launch_cast<From, int64_t>(in, out, n, false, stream);
      return true;
    case DType::kInt32:
      launch_cast<From, int32_t>(in, out, n, false, stream);
      return true;
    case DType::kInt8:
      launch_cast<From, int8_t>(in, out, n, false, stream);
      return true;
    case DType::kUInt8:
      launch_cast<From, uint8_t>(in, out, n, false, stream);
      return true;
    case DType::kBool:
      launch_cast<From, uint8_t>(in, out, n, true, stream);
      return true;
    default:
      return false;
  }
}

}  // namespace

bool is_comparison(BinaryOp op) {
  return op == BinaryOp::kEqual || op == BinaryOp::kLess || op == BinaryOp::kGreater || op == BinaryOp::kGreaterEqual ||
         op == BinaryOp::kLessEqual || is_logic(op);
}

void unary(UnaryOp op, const void* x, void* y, int64_t n, float a, float b, cudaStream_t stream, ElementType type) {
  if (n == 0) return;
  if (op == UnaryOp::kNot) {
    not_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const uint8_t*>(x), static_cast<uint8_t*>(y), n);
    return;
  }
  if (type == ElementType::kFloat16) {
    unary_storage_kernel<__half>
        <<<blocks_for(n), kThreads, 0, stream>>>(op, static_cast<const __half*>(x), static_cast<__half*>(y), n, a, b);
    return;
  }
  if (type == ElementType::kBFloat16) {
    unary_storage_kernel<__nv_bfloat16><<<blocks_for(n), kThreads, 0, stream>>>(
        op, static_cast<const __nv_bfloat16*>(x), static_cast<__nv_bfloat16*>(y), n, a, b);
    return;
  }
  const bool vector = aligned16(x) && aligned16(y);
  unary_kernel<<<blocks_for(vector ? (n + 3) / 4 : n), kThreads, 0, stream>>>(op, static_cast<const float*>(x),
                                                                              static_cast<float*>(y), n, a, b, vector);
}

namespace {

// Calls f(std::integral_constant<BinaryOp, op>{}) for an arithmetic op, so each kernel is instantiated per op
// and its switch folds away; false for the others.
template <class F>
bool with_arithmetic_op(BinaryOp op, F&& f) {
  switch (op) {
    case BinaryOp::kAdd:
      f(std::integral_constant<BinaryOp, BinaryOp::kAdd>{});
      return true;
    case BinaryOp::kSub:
      f(std::integral_constant<BinaryOp, BinaryOp::kSub>{});
      return true;
    case BinaryOp::kMul:
      f(std::integral_constant<BinaryOp, BinaryOp::kMul>{});
      return true;
    case BinaryOp::kDiv:
      f(std::integral_constant<BinaryOp, BinaryOp::kDiv>{});
      return true;
    case BinaryOp::kPow:
      f(std::integral_constant<BinaryOp, BinaryOp::kPow>{});
      return true;
    case BinaryOp::kMax:
      f(std::integral_constant<BinaryOp, BinaryOp::kMax>{});
      return true;
    case BinaryOp::kMin:
      f(std::integral_constant<BinaryOp, BinaryOp::kMin>{});
      return true;
    case BinaryOp::kPRelu:
      f(std::integral_constant<BinaryOp, BinaryOp::kPRelu>{});
      return true;
    case BinaryOp::kMod:
      f(std::integral_constant<BinaryOp, BinaryOp::kMod>{});
      return true;
    case BinaryOp::kFmod:
      f(std::integral_constant<BinaryOp, BinaryOp::kFmod>{});
      return true;
    default:
      return false;
  }
}

bool flat_binary(BinaryOp op, const float* a, bool a_scalar, const float* b, bool b_scalar, float* out, int64_t n,
                 cudaStream_t stream) {
  const bool vector = (a_scalar || aligned16(a)) && (b_scalar || aligned16(b)) && aligned16(out);
  return with_arithmetic_op(op, [&](auto tag) {
    binary_flat_kernel<decltype(tag)::value>
        <<<blocks_for(vector ? (n + 3) / 4 : n), kThreads, 0, stream>>>(a, a_scalar, b, b_scalar, out, n, vector);
  });
}

// Rows shorter than this go through the element walk: a block per row would idle most of its threads.
constexpr int64_t kMinRow = 32;

unsigned row_blocks(int64_t rows) { return static_cast<unsigned>(rows < 65535 * 16 ? rows : 65535 * 16); }
int row_threads(int64_t work) {  // a warp multiple, at most kThreads
  return work >= kThreads ? kThreads : static_cast<int>((work + 31) / 32 * 32);
}

// True when each flat operand's rows start 16-byte aligned.
bool rows_aligned(const Rows& r, const void* const* pointers, int count) {
  if (r.inner % 4 != 0) return false;
  for (int k = 0; k < count; ++k) {
    if (r.step[k] == 0) continue;
    if (!aligned16(pointers[k])) return false;
    for (int d = 0; d < r.operands[k].rank; ++d)
      if (r.operands[k].strides[d] % 4 != 0) return false;
  }
  return true;
}

bool rows_binary(BinaryOp op, const float* a, const float* b, float* out, const Rows& r, cudaStream_t stream) {
  const void* pointers[2] = {a, b};
  const bool vector = aligned16(out) && rows_aligned(r, pointers, 2);
  const auto walk = walk32<2>(r.outer, r.operands);
  const int threads = row_threads(vector ? r.inner / 4 : r.inner);
  return with_arithmetic_op(op, [&](auto tag) {
    binary_rows_kernel<decltype(tag)::value><<<row_blocks(r.rows), threads, 0, stream>>>(
        a, r.step[0], b, r.step[1], out, walk, r.rows, static_cast<int>(r.inner), vector);
  });
}

template <class W>
void launch_binary(BinaryOp op, bool int64, const void* a, const void* b, void* out, const W& walk, int64_t n,
                   cudaStream_t stream) {
  const auto blocks = blocks_for(n);
  if (is_logic(op)) {
    logic_kernel<W><<<blocks, kThreads, 0, stream>>>(op, static_cast<const uint8_t*>(a), static_cast<const uint8_t*>(b),
                                                     static_cast<uint8_t*>(out), walk, n);
  } else if (is_comparison(op)) {
    if (int64)
      compare_kernel<int64_t, W><<<blocks, kThreads, 0, stream>>>(
          op, static_cast<const int64_t*>(a), static_cast<const int64_t*>(b), static_cast<uint8_t*>(out), walk, n);
    else
      compare_kernel<float, W><<<blocks, kThreads, 0, stream>>>(
          op, static_cast<const float*>(a), static_cast<const float*>(b), static_cast<uint8_t*>(out), walk, n);
  } else if (int64) {
    binary_kernel<int64_t, W><<<blocks, kThreads, 0, stream>>>(
        op, static_cast<const int64_t*>(a), static_cast<const int64_t*>(b), static_cast<int64_t*>(out), walk, n);
  } else {
    binary_kernel<float, W><<<blocks, kThreads, 0, stream>>>(
        op, static_cast<const float*>(a), static_cast<const float*>(b), static_cast<float*>(out), walk, n);
  }
}

// A 16-bit arithmetic op: flat operands (or scalars) without index arithmetic, else the element walk.
template <class T>
void binary_storage(BinaryOp op, const void* a, Access aa, const void* b, Access ba, void* out, const Layout& o,
                    const Layout* ls, int64_t n, cudaStream_t stream) {
  const auto *x = static_cast<const T*>(a), *y = static_cast<const T*>(b);
  auto* z = static_cast<T*>(out);
  if (aa != Access::kStrided && ba != Access::kStrided && with_arithmetic_op(op, [&](auto tag) {
        binary_flat_storage_kernel<T, decltype(tag)::value>
            <<<blocks_for(n), kThreads, 0, stream>>>(x, aa == Access::kScalar, y, ba == Access::kScalar, z, n);
      }))
    return;
  if (fits_32bit(o, ls, 2))
    binary_storage_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(op, x, y, z, walk32<2>(o, ls), n);
  else
    binary_storage_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(op, x, y, z, walk64<2>(o, ls), n);
}

}  // namespace

void binary(BinaryOp op, bool int64, const void* a, const Layout& al, const void* b, const Layout& bl, void* out,
            const Layout& ol, cudaStream_t stream, ElementType type) {
  int64_t n = count(ol);
  if (n == 0) return;
  Layout o = ol, ls[2] = {al, bl};
  simplify(o, ls, 2);
  const Access aa = access(ls[0]), ba = access(ls[1]);
  if (type == ElementType::kFloat16) return binary_storage<__half>(op, a, aa, b, ba, out, o, ls, n, stream);
  if (type == ElementType::kBFloat16) return binary_storage<__nv_bfloat16>(op, a, aa, b, ba, out, o, ls, n, stream);
  if (!int64 && aa != Access::kStrided && ba != Access::kStrided &&
      flat_binary(op, static_cast<const float*>(a), aa == Access::kScalar, static_cast<const float*>(b),
                  ba == Access::kScalar, static_cast<float*>(out), n, stream))
    return;
  if (!fits_32bit(o, ls, 2)) {
    launch_binary(op, int64, a, b, out, walk64<2>(o, ls), n, stream);
    return;
  }
  const Rows rows = rows_of(o, ls, 2, kMinRow);
  if (!int64 && rows.ok &&
      rows_binary(op, static_cast<const float*>(a), static_cast<const float*>(b), static_cast<float*>(out), rows,
                  stream))
    return;
  launch_binary(op, int64, a, b, out, walk32<2>(o, ls), n, stream);
}

void where(const void* c, const Layout& cl, const void* x, const Layout& xl, const void* y, const Layout& yl, void* out,
           const Layout& ol, int element_bytes, cudaStream_t stream) {
  int64_t n = count(ol);
  if (n == 0) return;
  Layout o = ol, ls[3] = {cl, xl, yl};
  simplify(o, ls, 3);
  const bool small = fits_32bit(o, ls, 3);
#define RIDGE_WHERE(T)                                          \
  if (small)                                                    \
    launch_where<T>(c, x, y, out, walk32<3>(o, ls), n, stream); \
  else                                                          \
    launch_where<T>(c, x, y, out, walk64<3>(o, ls), n, stream);
  switch (element_bytes) {
    case 1:
      RIDGE_WHERE(uint8_t);
      break;
    case 2:
      RIDGE_WHERE(uint16_t);
      break;
    case 4:
      RIDGE_WHERE(uint32_t);
      break;
    default:
      RIDGE_WHERE(uint64_t);
      break;
  }
#undef RIDGE_WHERE
}

void strided_copy(const void* in, const Layout& il, int64_t base, void* out, int64_t n, int element_bytes,
                  cudaStream_t stream) {
  if (n == 0) return;
  Layout o, l = il;  // the output is dense over il.dims
  o.rank = il.rank;
  for (int d = 0; d < il.rank; ++d) o.dims[d] = il.dims[d];
  simplify(o, &l, 1);
  const bool small = fits_32bit(o, &l, 1, base);
  // A copy that moves the innermost dim transposes tiles (the grid's y and z are at most 65535); the others walk.
  // A block per row was no faster for copies that keep the innermost dim on an H100 (ViT-B/16's head transposes,
  // rows of 64: 2.76 ms against 2.72 in the element walk).
  auto t = transpose_of(o, l, 16);
  const bool tiles =
      t.ok && (t.cols + kTile - 1) / kTile <= 65535 && t.batches <= 65535 && (t.rows + kTile - 1) / kTile <= INT32_MAX;
#define RIDGE_STRIDED(T)                                           \
  if (tiles)                                                       \
    launch_transpose<T>(in, base, out, t, stream);                 \
  else if (small)                                                  \
    launch_strided<T>(in, base, out, walk32<1>(o, &l), n, stream); \
  else                                                             \
    launch_strided<T>(in, base, out, walk64<1>(o, &l), n, stream);
  switch (element_bytes) {
    case 1:
      RIDGE_STRIDED(uint8_t);
      break;
    case 2:
      RIDGE_STRIDED(uint16_t);
      break;
    case 4:
      RIDGE_STRIDED(uint32_t);
      break;
    default:
      RIDGE_STRIDED(uint64_t);
      break;
  }
#undef RIDGE_STRIDED
}

namespace {

__global__ void saturated_half_kernel(const float* in, __half* out, int64_t n) {
  RIDGE_GRID_LOOP(i, n) { out[i] = __float2half_rn(fp16_saturate(in[i])); }
}

}  // namespace

void cast_fp32_to_fp16_saturated(const float* in, void* out, int64_t n, cudaStream_t stream) {
  if (n > 0) saturated_half_kernel<<<blocks_for(n), kThreads, 0, stream>>>(in, static_cast<__half*>(out), n);
}

bool cast(ElementType from, const void* in, ElementType to, void* out, int64_t n, cudaStream_t stream) {
  using DType = ElementType;
  if (n == 0) return true;
  switch (from) {
    case DType::kFloat32:
      return cast_from<float>(to, in, out, n, stream);
    case DType::kFloat16:
      return cast_from<__half>(to, in, out, n, stream);
    case DType::kBFloat16:
      return cast_from<__nv_bfloat16>(to, in, out, n, stream);
    case DType::kFloat64:
      return cast_from<double>(to, in, out, n, stream);
    case DType::kInt64:
      return cast_from<int64_t>(to, in, out, n, stream);
    case DType::kInt32:
      return cast_from<int32_t>(to, in, out, n, stream);
    case DType::kInt8:
      return cast_from<int8_t>(to, in, out, n, stream);
    case DType::kUInt8:
    case DType::kBool:
      return cast_from<uint8_t>(to, in, out, n, stream);
    default:
      return false;
  }
}

void pad_constant(const void* in, const Layout& il, const int64_t* begin, void* out, const Layout& ol, float value,
                  cudaStream_t stream, ElementType type) {
  int64_t n = count(ol);
  if (n == 0) return;
  Layout b;
  b.rank = ol.rank;
  for (int d = 0; d < ol.rank; ++d) b.dims[d] = begin[d];
  const auto blocks = blocks_for(n);
  if (type == ElementType::kFloat16)
    pad_kernel<__half><<<blocks, kThreads, 0, stream>>>(static_cast<const __half*>(in), il, b,
                                                        static_cast<__half*>(out), ol, __float2half_rn(value), n);
  else if (type == ElementType::kBFloat16)
    pad_kernel<__nv_bfloat16><<<blocks, kThreads, 0, stream>>>(static_cast<const __nv_bfloat16*>(in), il, b,
                                                               static_cast<__nv_bfloat16*>(out), ol,
                                                               __float2bfloat16_rn(value), n);
  else
    pad_kernel<float>
        <<<blocks, kThreads, 0, stream>>>(static_cast<const float*>(in), il, b, static_cast<float*>(out), ol, value, n);
}

void gather(const void* data, int64_t outer, int64_t axis_size, int64_t inner, const int64_t* indices,
            int64_t index_count, void* out, int element_bytes, int* bad, cudaStream_t stream) {
  int64_t n = outer * index_count * inner;
  if (n == 0) return;
  auto blocks = blocks_for(n);
#define RIDGE_GATHER(T)                                                                                            \
  gather_kernel<T><<<blocks, kThreads, 0, stream>>>(static_cast<const T*>(data), outer, axis_size, inner, indices, \
                                                    index_count, static_cast<T*>(out), bad)
  switch (element_bytes) {
    case 1:
      RIDGE_GATHER(uint8_t);
      break;
    case 2:
      RIDGE_GATHER(uint16_t);
      break;
    case 4:
      RIDGE_GATHER(uint32_t);
      break;
    default:
      RIDGE_GATHER(uint64_t);
      break;
  }
#undef RIDGE_GATHER
}

void layer_norm(const void* x_in, const float* scale, const float* bias, void* y_out, int64_t rows, int64_t cols,
                float epsilon, cudaStream_t stream, ElementType type) {
  if (rows == 0) return;
  const auto grid = static_cast<unsigned>(rows);
  if (type == ElementType::kFloat16) {
    layer_norm_kernel<__half><<<grid, kThreads, 0, stream>>>(static_cast<const __half*>(x_in), scale, bias,
                                                             static_cast<__half*>(y_out), cols, epsilon);
    return;
  }
  if (type == ElementType::kBFloat16) {
    layer_norm_kernel<__nv_bfloat16><<<grid, kThreads, 0, stream>>>(
        static_cast<const __nv_bfloat16*>(x_in), scale, bias, static_cast<__nv_bfloat16*>(y_out), cols, epsilon);
    return;
  }
  const auto* x = static_cast<const float*>(x_in);
  auto* y = static_cast<float*>(y_out);
  const bool aligned = aligned16(x) && aligned16(y) && aligned16(scale) && (!bias || aligned16(bias));
  if (aligned && cols % 4 == 0 && cols <= 1024) {
    const auto blocks = static_cast<unsigned>((rows + kThreads / 32 - 1) / (kThreads / 32));
    const int c = static_cast<int>(cols);
    if (cols <= 128)
      layer_norm_warp_kernel<1><<<blocks, kThreads, 0, stream>>>(x, scale, bias, y, rows, c, epsilon);
    else if (cols <= 256)
      layer_norm_warp_kernel<2><<<blocks, kThreads, 0, stream>>>(x, scale, bias, y, rows, c, epsilon);
    else if (cols <= 512)
      layer_norm_warp_kernel<4><<<blocks, kThreads, 0, stream>>>(x, scale, bias, y, rows, c, epsilon);
    else
      layer_norm_warp_kernel<8><<<blocks, kThreads, 0, stream>>>(x, scale, bias, y, rows, c, epsilon);
    return;
  }
  layer_norm_kernel<float><<<grid, kThreads, 0, stream>>>(x, scale, bias, y, cols, epsilon);
}

void table_gather(const void* in, const Layout& il, const int64_t* tables, void* out, const Layout& ol,
                  const int64_t* offsets, int element_bytes, cudaStream_t stream) {
  int64_t n = count(ol);
  if (n == 0) return;
  Layout o;
  o.rank = ol.rank;
  for (int d = 0; d < ol.rank; ++d) o.dims[d] = offsets[d];
  auto blocks = blocks_for(n);
#define RIDGE_TABLE(T)   \
  table_gather_kernel<T> \
      <<<blocks, kThreads, 0, stream>>>(static_cast<const T*>(in), il, tables, ol, o, static_cast<T*>(out), n)
  switch (element_bytes) {
    case 1:
      RIDGE_TABLE(uint8_t);
      break;
    case 2:
      RIDGE_TABLE(uint16_t);
      break;
    case 4:
      RIDGE_TABLE(uint32_t);
      break;
    default:
      RIDGE_TABLE(uint64_t);
      break;
  }
#undef RIDGE_TABLE
}

void trilu(const void* in, void* out, int64_t batch, int64_t rows, int64_t cols, int64_t k, bool upper,
           int element_bytes, cudaStream_t stream) {
  int64_t n = batch * rows * cols;
  if (n == 0) return;
  auto blocks = blocks_for(n);
#define RIDGE_TRILU(T) \
  trilu_kernel<T>      \
      <<<blocks, kThreads, 0, stream>>>(static_cast<const T*>(in), static_cast<T*>(out), rows, cols, k, upper, n)
  switch (element_bytes) {
    case 1:
      RIDGE_TRILU(uint8_t);
      break;
    case 2:
      RIDGE_TRILU(uint16_t);
      break;
    case 4:
      RIDGE_TRILU(uint32_t);
      break;
    default:
      RIDGE_TRILU(uint64_t);
      break;
  }
#undef RIDGE_TRILU
}

void classify(const float* x, uint8_t* y, int64_t n, bool nan, bool positive_inf, bool negative_inf,
              cudaStream_t stream) {
  if (n == 0) return;
  classify_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, y, n, nan, positive_inf, negative_inf);
}

void fill(float* out, int64_t n, float value, cudaStream_t stream) {
  if (n == 0) return;
  fill_kernel<<<blocks_for(n), kThreads, 0, stream>>>(out, n, value);
}

bool fill_bits(void* out, int64_t n, uint64_t bits, int element_bytes, cudaStream_t stream) {
  if (n == 0) return element_bytes == 1 || element_bytes == 2 || element_bytes == 4 || element_bytes == 8;
  switch (element_bytes) {
    case 1:
      fill_bits_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<uint8_t*>(out), n,
                                                               static_cast<uint8_t>(bits));
      return true;
    case 2:
      fill_bits_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<uint16_t*>(out), n,
                                                               static_cast<uint16_t>(bits));
      return true;
    case 4:
      fill_bits_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<uint32_t*>(out), n,
                                                               static_cast<uint32_t>(bits));
      return true;
    case 8:
      fill_bits_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<uint64_t*>(out), n, bits);
      return true;
    default:
      return false;
  }
}

namespace {

template <class T>
void launch_epilogue(void* y, int64_t n, const Epilogue& e, cudaStream_t stream) {
  auto* out = static_cast<T*>(y);
  const auto* residual = static_cast<const T*>(e.residual);
  if (n <= INT32_MAX)
    epilogue_kernel<T, int32_t><<<blocks_for(n), kThreads, 0, stream>>>(
        out, static_cast<int32_t>(n), e.bias, residual, static_cast<int32_t>(e.channels), static_cast<int32_t>(e.inner),
        e.op, e.lo, e.hi);
  else
    epilogue_kernel<T, int64_t>
        <<<blocks_for(n), kThreads, 0, stream>>>(out, n, e.bias, residual, e.channels, e.inner, e.op, e.lo, e.hi);
}

}  // namespace

void epilogue(void* y, int64_t n, const Epilogue& e, cudaStream_t stream) {
  if (n == 0 || (!e.bias && !e.residual && e.op == EpilogueOp::kNone)) return;
  if (e.type == ElementType::kFloat16)
    launch_epilogue<__half>(y, n, e, stream);
  else if (e.type == ElementType::kBFloat16)
    launch_epilogue<__nv_bfloat16>(y, n, e, stream);
  else
    launch_epilogue<float>(y, n, e, stream);
}

}  // namespace ridge::exec::cuda
