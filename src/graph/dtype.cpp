#include "graph/dtype.h"

#include <array>

namespace ridge::graph {
namespace {

struct DTypeInfo {
  DType type;
  int bits;
  std::string_view name;
};

constexpr std::array<DTypeInfo, 24> kDTypes{{
    {DType::kUndefined, 0, "undefined"},
    {DType::kFloat32, 32, "fp32"},
    {DType::kUInt8, 8, "uint8"},
    {DType::kInt8, 8, "int8"},
    {DType::kUInt16, 16, "uint16"},
    {DType::kInt16, 16, "int16"},
    {DType::kInt32, 32, "int32"},
    {DType::kInt64, 64, "int64"},
    {DType::kString, 0, "string"},
    {DType::kBool, 8, "bool"},
    {DType::kFloat16, 16, "fp16"},
    {DType::kFloat64, 64, "fp64"},
    {DType::kUInt32, 32, "uint32"},
    {DType::kUInt64, 64, "uint64"},
    {DType::kComplex64, 64, "complex64"},
    {DType::kComplex128, 128, "complex128"},
    {DType::kBFloat16, 16, "bf16"},
    {DType::kFloat8E4M3FN, 8, "fp8e4m3fn"},
    {DType::kFloat8E4M3FNUZ, 8, "fp8e4m3fnuz"},
    {DType::kFloat8E5M2, 8, "fp8e5m2"},
    {DType::kFloat8E5M2FNUZ, 8, "fp8e5m2fnuz"},
    {DType::kUInt4, 4, "uint4"},
    {DType::kInt4, 4, "int4"},
    {DType::kFloat4E2M1, 4, "fp4e2m1"},
}};

const DTypeInfo& info(DType type) {
  auto code = static_cast<size_t>(type);
  return code < kDTypes.size() ? kDTypes[code] : kDTypes[0];
}

}  // namespace

bool is_known_dtype(int32_t code) { return code >= 0 && code < static_cast<int32_t>(kDTypes.size()); }

int dtype_bits(DType type) { return info(type).bits; }

std::string_view dtype_name(DType type) { return info(type).name; }

bool is_floating(DType type) {
  switch (type) {
    case DType::kFloat32:
    case DType::kFloat16:
    case DType::kFloat64:
    case DType::kBFloat16:
    case DType::kFloat8E4M3FN:
    case DType::kFloat8E4M3FNUZ:
    case DType::kFloat8E5M2:
    case DType::kFloat8E5M2FNUZ:
    case DType::kFloat4E2M1:
      return true;
    default:
      return false;
  }
}

bool is_integral(DType type) {
  switch (type) {
    case DType::kUInt8:
    case DType::kInt8:
    case DType::kUInt16:
    case DType::kInt16:
    case DType::kInt32:
    case DType::kInt64:
    case DType::kBool:
    case DType::kUInt32:
    case DType::kUInt64:
    case DType::kUInt4:
    case DType::kInt4:
      return true;
    default:
      return false;
  }
}

std::optional<DType> parse_dtype(std::string_view text) {
  struct Alias {
    std::string_view name;
    DType type;
  };
  static constexpr std::array<Alias, 12> kAliases{{{"fp32", DType::kFloat32},
                                                   {"float32", DType::kFloat32},
                                                   {"float", DType::kFloat32},
                                                   {"fp16", DType::kFloat16},
                                                   {"float16", DType::kFloat16},
                                                   {"half", DType::kFloat16},
                                                   {"bf16", DType::kBFloat16},
                                                   {"bfloat16", DType::kBFloat16},
                                                   {"int8", DType::kInt8},
                                                   {"fp64", DType::kFloat64},
                                                   {"float64", DType::kFloat64},
                                                   {"fp8", DType::kFloat8E4M3FN}}};
  for (const auto& alias : kAliases)
    if (alias.name == text) return alias.type;
  return std::nullopt;
}

}  // namespace ridge::graph
