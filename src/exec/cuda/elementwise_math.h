#pragma once
// The arithmetic of the GPU's elementwise ops, one element at a time: the kernels (kernels.cu) apply it on the GPU,
// and the host-side tests apply the same functions to the ONNX project's node tests
// (tests/cuda/test_elementwise_host.cpp). C++17 for nvcc.
#include <math.h>

#include <cstdint>
#include <type_traits>

#include "exec/cuda/kernels.h"
#include "exec/cuda/layout.h"

namespace ridge::exec::cuda {

// A finite fp32 value beyond fp16's range as fp16's largest of its sign (+-65504); infinities and NaN as they are.
// ridge's own 16-bit storage of a model's constants (not the Cast op, which rounds to infinity as IEEE does): an
// exporter's -3.4e38 mask fill must stay a large negative, not become -inf (0 x -inf is NaN).
RIDGE_HOST_DEVICE inline float fp16_saturate(float v) {
  constexpr float kLargest = 65504.f;
  return isfinite(v) && fabsf(v) > kLargest ? copysignf(kLargest, v) : v;
}

// y = op(x); a and b are the op's parameters (kernels.h).
RIDGE_HOST_DEVICE inline float apply_unary(UnaryOp op, float x, float a, float b) {
  switch (op) {
    case UnaryOp::kIdentity:
      return x;
    case UnaryOp::kRelu:  // NaN stays NaN, as in PyTorch and ONNX Runtime
      return x > 0.f || x != x ? x : 0.f;
    case UnaryOp::kSigmoid:
      return 1.f / (1.f + expf(-x));
    case UnaryOp::kTanh:
      return tanhf(x);
    case UnaryOp::kErf:
      return erff(x);
    case UnaryOp::kExp:
      return expf(x);
    case UnaryOp::kLog:
      return logf(x);
    case UnaryOp::kSqrt:
      return sqrtf(x);
    case UnaryOp::kNeg:
      return -x;
    case UnaryOp::kAbs:
      return fabsf(x);
    case UnaryOp::kReciprocal:
      return 1.f / x;
    case UnaryOp::kFloor:
      return floorf(x);
    case UnaryOp::kCeil:
      return ceilf(x);
    case UnaryOp::kSin:
      return sinf(x);
    case UnaryOp::kCos:
      return cosf(x);
    case UnaryOp::kClip:  // fminf and fmaxf would drop a NaN
      return x != x ? x : fminf(fmaxf(x, a), b);
    case UnaryOp::kLeakyRelu:
      return x >= 0.f ? x : a * x;
    case UnaryOp::kElu:
      return x >= 0.f ? x : a * (expf(x) - 1.f);
    case UnaryOp::kHardSigmoid:
      return fmaxf(0.f, fminf(1.f, a * x + b));
    case UnaryOp::kHardSwish:
      return x * fmaxf(0.f, fminf(1.f, x / 6.f + 0.5f));
    case UnaryOp::kSoftplus:
      return x > 20.f ? x : log1pf(expf(x));
    case UnaryOp::kSelu:  // a = alpha, b = gamma
      return x > 0.f ? b * x : b * (a * expf(x) - a);
    case UnaryOp::kCelu:  // a = alpha
      return fmaxf(0.f, x) + fminf(0.f, a * (expf(x / a) - 1.f));
    case UnaryOp::kMish:
      return x * tanhf(x > 20.f ? x : log1pf(expf(x)));
    case UnaryOp::kSoftsign:
      return x / (1.f + fabsf(x));
    case UnaryOp::kThresholdedRelu:  // a = alpha
      return x > a ? x : 0.f;
    case UnaryOp::kSign:  // NaN stays NaN
      return x > 0.f ? 1.f : (x < 0.f ? -1.f : x);
    case UnaryOp::kRound:  // halves to even, as ONNX and numpy
      return rintf(x);
    case UnaryOp::kTan:
      return tanf(x);
    case UnaryOp::kAsin:
      return asinf(x);
    case UnaryOp::kAcos:
      return acosf(x);
    case UnaryOp::kAtan:
      return atanf(x);
    case UnaryOp::kSinh:
      return sinhf(x);
    case UnaryOp::kCosh:
      return coshf(x);
    case UnaryOp::kAsinh:
      return asinhf(x);
    case UnaryOp::kAcosh:
      return acoshf(x);
    case UnaryOp::kAtanh:
      return atanhf(x);
    case UnaryOp::kGeluErf:
      return 0.5f * x * (1.f + erff(x * 0.70710678118654752f));
    case UnaryOp::kGeluTanh:
      return 0.5f * x * (1.f + tanhf(0.79788456080286536f * (x + 0.044715f * x * x * x)));
    case UnaryOp::kShrink:  // a = lambd, b = bias
      return x < -a ? x + b : (x > a ? x - b : 0.f);
    case UnaryOp::kSwish:  // a = alpha: x * sigmoid(a x), 0 where exp(-a x) overflows
      return x / (1.f + expf(-a * x));
    case UnaryOp::kNot:
      return x;  // bool: handled by its own kernel
  }
  return x;
}

// a^b exactly for integers (by squaring, wrapping on overflow as integer products do): through fp32 it was off past
// 2^24 (4097^2 gave 16785408). A negative exponent gives the integer part of the quotient: 0, or +-1 for a base of
// +-1 (the CPU executor refuses it, as PyTorch does).
template <class T>
RIDGE_HOST_DEVICE inline T integer_power(T a, T b) {
  if (b < 0) return a == 1 ? T(1) : (a == -1 ? (b % 2 == 0 ? T(1) : T(-1)) : T(0));
  using U = std::make_unsigned_t<T>;  // products wrap, without signed overflow's undefined behaviour
  U result = 1, base = static_cast<U>(a);
  while (b > 0) {
    if (b & 1) result *= base;
    base *= base;
    b >>= 1;
  }
  return static_cast<T>(result);
}

// out = op(a, b) for an arithmetic op on fp32 or int64 (0 for another).
template <class T>
RIDGE_HOST_DEVICE inline T apply_binary(BinaryOp op, T a, T b) {
  switch (op) {
    case BinaryOp::kAdd:
      return a + b;
    case BinaryOp::kSub:
      return a - b;
    case BinaryOp::kMul:
      return a * b;
    case BinaryOp::kDiv:
      return b == T(0) && !std::is_floating_point_v<T> ? T(0) : a / b;
    case BinaryOp::kPow:
      if constexpr (std::is_integral_v<T>)
        return integer_power(a, b);
      else
        return static_cast<T>(powf(static_cast<float>(a), static_cast<float>(b)));
    case BinaryOp::kMax:
      return a > b ? a : b;
    case BinaryOp::kMin:
      return a < b ? a : b;
    case BinaryOp::kPRelu:  // b: the slope
      return a < T(0) ? a * b : a;
    case BinaryOp::kFmod:   // the dividend's sign (C's fmod)
    case BinaryOp::kMod: {  // the divisor's sign (Python's %)
      T r;
      if constexpr (std::is_floating_point_v<T>) {
        r = fmodf(a, b);
      } else {
        if (b == T(0)) return T(0);
        r = a % b;
      }
      if (op == BinaryOp::kMod && r != T(0) && ((r < T(0)) != (b < T(0)))) r += b;
      return r;
    }
    default:
      return T(0);
  }
}

template <class T>
RIDGE_HOST_DEVICE inline bool compare(BinaryOp op, T a, T b) {
  switch (op) {
    case BinaryOp::kEqual:
      return a == b;
    case BinaryOp::kLess:
      return a < b;
    case BinaryOp::kGreater:
      return a > b;
    case BinaryOp::kGreaterEqual:
      return a >= b;
    case BinaryOp::kLessEqual:
      return a <= b;
    default:
      return false;
  }
}

// And, Or and Xor of two bools.
RIDGE_HOST_DEVICE inline bool apply_logic(BinaryOp op, bool a, bool b) {
  switch (op) {
    case BinaryOp::kAnd:
      return a && b;
    case BinaryOp::kOr:
      return a || b;
    case BinaryOp::kXor:
      return a != b;
    default:
      return false;
  }
}

// IsNaN (nan) and IsInf (positive_inf, negative_inf: its detect_positive and detect_negative): whether x is of a class
// asked for.
RIDGE_HOST_DEVICE inline bool is_class(float x, bool nan, bool positive_inf, bool negative_inf) {
  return (nan && x != x) || (positive_inf && x == INFINITY) || (negative_inf && x == -INFINITY);
}

}  // namespace ridge::exec::cuda
