#pragma once
// ONNX's bitwise ops as the GPU computes them, one element at a time on the bits of any integer type (the kernel picks
// the unsigned type of the element's width: And, Or, Xor and Not do not depend on the sign, and BitShift is defined on
// unsigned types only): BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseNot, and BitShift left or right, a shift by the
// width or more giving 0 (as PyTorch defines it; C leaves it undefined). Operands broadcast by numpy's rules through
// their layouts. The kernel (bitwise_kernels.cu) applies these a thread per element, and the host-side tests apply them
// to ONNX's node tests and against the CPU executor (tests/cuda/test_bitwise_host.cpp). C++17 for nvcc.
#include <cstdint>

#include "exec/cuda/layout.h"

namespace ridge::exec::cuda {

enum class BitOp : int { kAnd, kOr, kXor, kNot, kShiftLeft, kShiftRight };

template <class T>
RIDGE_HOST_DEVICE inline T apply_bitwise(BitOp op, T a, T b) {
  constexpr T kWidth = static_cast<T>(8 * sizeof(T));
  switch (op) {
    case BitOp::kAnd:
      return static_cast<T>(a & b);
    case BitOp::kOr:
      return static_cast<T>(a | b);
    case BitOp::kXor:
      return static_cast<T>(a ^ b);
    case BitOp::kNot:
      return static_cast<T>(~a);
    case BitOp::kShiftLeft:
      return b >= kWidth ? T(0) : static_cast<T>(a << b);
    default:
      return b >= kWidth ? T(0) : static_cast<T>(a >> b);
  }
}

// Element e of the dense `out` walked in `operand` (its strides over out's dims, 0 where it broadcasts).
RIDGE_HOST_DEVICE inline int64_t walk_offset(const Layout& operand, const Layout& out, int64_t e) {
  int64_t offset = 0;
  for (int d = out.rank - 1; d >= 0; --d) {
    offset += (e % out.dims[d]) * operand.strides[d];
    e /= out.dims[d];
  }
  return offset;
}

}  // namespace ridge::exec::cuda
