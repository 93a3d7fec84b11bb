#pragma once
// The GPU executor's own kernels (kernels.cu), for what cuDNN and cuBLAS do not do: elementwise ops
// with ONNX broadcasting, casts, strided copies (transpose, slice, expand), constant padding, gather
// and layer normalization. Each launches on `stream` and returns at once; launch errors are checked
// by the caller (check(cudaGetLastError(), ...)).
#include <cuda_runtime_api.h>

#include <cstdint>

#include "exec/cuda/layout.h"

namespace ridge::exec::cuda {

// Element types the kernels convert between (ridge's graph::DType maps onto them: element_type()).
// Kept apart from graph/ so the kernels compile as C++17 (nvcc under CMake 3.25).
enum class ElementType { kFloat32, kFloat16, kBFloat16, kFloat64, kInt64, kInt32, kInt8, kUInt8, kBool };

enum class UnaryOp {
  kIdentity,
  kRelu,
  kSigmoid,
  kTanh,
  kErf,
  kExp,
  kLog,
  kSqrt,
  kNeg,
  kAbs,
  kReciprocal,
  kFloor,
  kCeil,
  kSin,
  kCos,
  kClip,         // a = min, b = max
  kLeakyRelu,    // a = alpha
  kElu,          // a = alpha
  kHardSigmoid,  // a = alpha, b = beta
  kHardSwish,
  kSoftplus,
  kNot,   // bool
  kSelu,  // a = alpha, b = gamma
  kCelu,  // a = alpha
  kMish,
  kSoftsign,
  kThresholdedRelu,  // a = alpha
  kSign,
  kRound,
  kTan,
  kAsin,
  kAcos,
  kAtan,
  kSinh,
  kCosh,
  kAsinh,
  kAcosh,
  kAtanh,
  kGeluErf,
  kGeluTanh,
  kShrink,  // a = lambd, b = bias
  kSwish,   // a = alpha
};

// The activation of a layer's epilogue (epilogue()): exact GELU (erf) and its tanh form as ONNX and PyTorch define
// them, x * sigmoid(x), x * clamp(x / 6 + 1 / 2, 0, 1), clamp(x, lo, hi).
enum class EpilogueOp { kNone, kRelu, kGeluErf, kGeluTanh, kSilu, kHardSwish, kClip };

// A layer's epilogue over its output y: y = op(y + bias[channel] + residual), in place, one pass, computed in fp32.
// The channel of element i is (i / inner) % channels: a product's column (inner 1), a convolution's NCHW channel
// (inner H x W). y and residual (y's shape) are of `type` (fp32, or the 16-bit type a run keeps activations in); the
// bias is fp32. bias and residual may be null; lo and hi are kClip's bounds.
struct Epilogue {
  const float* bias = nullptr;
  const void* residual = nullptr;
  ElementType type = ElementType::kFloat32;
  int64_t channels = 1, inner = 1;
  EpilogueOp op = EpilogueOp::kNone;
  float lo = 0, hi = 0;
};

// kPRelu: a < 0 ? a b : a; kMod: the remainder with the divisor's sign, kFmod with the dividend's (ONNX's Mod, fmod 0
// and 1).
enum class BinaryOp {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kPow,
  kMax,
  kMin,
  kPRelu,
  kMod,
  kFmod,
  kEqual,
  kLess,
  kGreater,
  kGreaterEqual,
  kLessEqual,
  kAnd,
  kOr,
  kXor
};
bool is_comparison(BinaryOp op);  // output bool (the logic ops too)
// And, Or and Xor: bool operands.
inline bool is_logic(BinaryOp op) { return op == BinaryOp::kAnd || op == BinaryOp::kOr || op == BinaryOp::kXor; }

// y[i] = op(x[i]) for fp32, fp16 or bf16 (`type`; the 16-bit types computed in fp32), or bool for kNot.
void unary(UnaryOp op, const void* x, void* y, int64_t n, float a, float b, cudaStream_t stream,
           ElementType type = ElementType::kFloat32);
// out = op(a, b): `a` and `b` are read through their layouts (broadcast strides) over `out`'s dims;
// fp32 inputs (bool for kAnd/kOr/kXor, int64 where `int64` is set), output fp32, int64 or bool (comparisons). With
// `type` fp16 or bf16, an arithmetic op (not a comparison) on operands and output of that type, computed in fp32.
void binary(BinaryOp op, bool int64, const void* a, const Layout& a_layout, const void* b, const Layout& b_layout,
            void* out, const Layout& out_layout, cudaStream_t stream, ElementType type = ElementType::kFloat32);
// True for the 16-bit float types (fp16, bf16).
inline bool is_16bit(ElementType t) { return t == ElementType::kFloat16 || t == ElementType::kBFloat16; }
// out = cond ? x : y, broadcast like binary; elements of `element_bytes` (1, 2, 4 or 8).
void where(const void* cond, const Layout& cond_layout, const void* x, const Layout& x_layout, const void* y,
           const Layout& y_layout, void* out, const Layout& out_layout, int element_bytes, cudaStream_t stream);
// out (dense, out_layout.dims) = in read at base + sum(index_d * in_layout.strides[d]); elements of
// `element_bytes`: transpose, slice, expand and broadcast copies.
void strided_copy(const void* in, const Layout& in_layout, int64_t base, void* out, int64_t n, int element_bytes,
                  cudaStream_t stream);
// Element type conversion between fp32, fp16, bf16, fp64, int64, int32, int8, uint8 and bool.
// Returns false (nothing launched) for another pair.
bool cast(ElementType from, const void* in, ElementType to, void* out, int64_t n, cudaStream_t stream);
// fp32 to fp16 with finite values beyond fp16's range saturated (fp16_saturate, elementwise_math.h): how a model's
// constants are held in a 16-bit run.
void cast_fp32_to_fp16_saturated(const float* in, void* out, int64_t n, cudaStream_t stream);
// Constant padding: out dims = in dims + begin + end (fp32, fp16 or bf16 elements of `type`; `value` where out of
// bounds; negative begin/end crop).
void pad_constant(const void* in, const Layout& in_dense, const int64_t* begin, void* out, const Layout& out_dense,
                  float value, cudaStream_t stream, ElementType type = ElementType::kFloat32);
// out[outer, j, inner] = data[outer, indices[j] (negative: + axis_size), inner]; `element_bytes` per element.
// Indices out of range are written as zero and counted in *bad (a device int; null: not counted).
void gather(const void* data, int64_t outer, int64_t axis_size, int64_t inner, const int64_t* indices,
            int64_t index_count, void* out, int element_bytes, int* bad, cudaStream_t stream);
// y = (x - mean) / sqrt(var + eps) * scale + bias over the last `cols` of each of `rows` rows; x and y of `type`
// (fp32, fp16 or bf16; the statistics in fp32), scale and bias fp32, broadcast over rows (bias may be null).
void layer_norm(const void* x, const float* scale, const float* bias, void* y, int64_t rows, int64_t cols,
                float epsilon, cudaStream_t stream, ElementType type = ElementType::kFloat32);
// out (dense over out_dims) = in[sum_d tables[offsets[d] + index_d] * in_strides[d]]: each output index of
// dim d reads the input index its table gives (nearest-neighbour resizing); `tables` is on the device.
void table_gather(const void* in, const Layout& in_dense, const int64_t* tables, void* out, const Layout& out_dense,
                  const int64_t* offsets, int element_bytes, cudaStream_t stream);
// Trilu over the last two dims (rows x cols) of `batch` matrices: elements outside the kept triangle
// (upper: col - row >= k; lower: col - row <= k) are zero.
void trilu(const void* in, void* out, int64_t batch, int64_t rows, int64_t cols, int64_t k, bool upper,
           int element_bytes, cudaStream_t stream);
// y (bool) = is_class(x) of fp32 x (elementwise_math.h): IsNaN and IsInf.
void classify(const float* x, uint8_t* y, int64_t n, bool nan, bool positive_inf, bool negative_inf,
              cudaStream_t stream);
// fp32 fill.
void fill(float* out, int64_t n, float value, cudaStream_t stream);
// n elements of `element_bytes` (1, 2, 4 or 8; false for another size, nothing launched) set to the low bytes of
// `bits`: a fill of any type, exact (an int64's every bit), the value passed with the launch, so a CUDA graph can
// capture it.
bool fill_bits(void* out, int64_t n, uint64_t bits, int element_bytes, cudaStream_t stream);
// One pass over y's n elements (of e.type): what a bias Add, a residual Add and an activation chain (GELU: five nodes)
// would read and write once each.
void epilogue(void* y, int64_t n, const Epilogue& e, cudaStream_t stream);

}  // namespace ridge::exec::cuda
