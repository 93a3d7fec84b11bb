#pragma once
// Element types, numbered as ONNX's TensorProto.DataType so files map one to one.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "graph/shape.h"

namespace ridge::graph {

enum class DType : int32_t {
  kUndefined = 0,
  kFloat32 = 1,
  kUInt8 = 2,
  kInt8 = 3,
  kUInt16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kFloat64 = 11,
  kUInt32 = 12,
  kUInt64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBFloat16 = 16,
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUInt4 = 21,
  kInt4 = 22,
  kFloat4E2M1 = 23,
};

// Size of one element in bits (4-bit types pack two per byte); 0 for undefined/string.
int dtype_bits(DType type);
bool is_floating(DType type);
bool is_integral(DType type);  // integers and bool
std::string_view dtype_name(DType type);
// Accepts the names users type: fp32, float32, fp16, bf16, int8, ...
std::optional<DType> parse_dtype(std::string_view text);
bool is_known_dtype(int32_t code);

// Bytes of `elements` elements of `type`, rounding packed sub-byte types up.
// Throws ridge::Error when the size overflows 64 bits (absurd dims in a malformed file).
inline int64_t dtype_bytes(DType type, int64_t elements) {
  return (checked_mul(elements, dtype_bits(type), "tensor size in bytes") + 7) / 8;
}

}  // namespace ridge::graph
