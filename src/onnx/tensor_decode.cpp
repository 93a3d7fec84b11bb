#include "onnx/tensor_decode.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "graph/shape.h"
#include "util/error.h"

namespace ridge::onnx {

using graph::ConstantData;
using graph::DType;

float half_to_float(uint16_t bits) {
  int sign = (bits >> 15) & 1, exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  float value;
  if (exponent == 0)
    value = std::ldexp(static_cast<float>(mantissa), -24);
  else if (exponent == 31)
    value = mantissa ? NAN : INFINITY;
  else
    value = std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
  return sign ? -value : value;
}

float bfloat16_to_float(uint16_t bits) {
  uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof value);
  return value;
}

namespace {

int64_t declared_elements(const graph::TensorRef& tensor) {
  int64_t n = 1;
  for (auto d : tensor.dims) n = graph::checked_mul(n, d, "tensor element count");
  return n;
}

template <typename T>
T load_le(const uint8_t* p) {
  T value;
  std::memcpy(&value, p, sizeof value);  // ONNX raw data is little-endian, as is every host we run on
  return value;
}

std::shared_ptr<ConstantData> from_raw(const graph::TensorRef& tensor, const uint8_t* bytes, int64_t size) {
  auto data = std::make_shared<ConstantData>();
  data->dtype = tensor.dtype;
  data->dims = tensor.dims;
  int64_t count = declared_elements(tensor);
  int64_t expected = graph::dtype_bytes(tensor.dtype, count);
  if (size != expected)
    throw Error(fmt::format("tensor '{}' holds {} bytes but its shape and type need {}", tensor.name, size, expected));
  auto n = static_cast<size_t>(count);
  switch (tensor.dtype) {
    case DType::kFloat32:
      for (size_t i = 0; i < n; ++i) data->reals.push_back(load_le<float>(bytes + 4 * i));
      break;
    case DType::kFloat64:
      for (size_t i = 0; i < n; ++i) data->reals.push_back(load_le<double>(bytes + 8 * i));
      break;
    case DType::kFloat16:
      for (size_t i = 0; i < n; ++i) data->reals.push_back(half_to_float(load_le<uint16_t>(bytes + 2 * i)));
      break;
    case DType::kBFloat16:
      for (size_t i = 0; i < n; ++i) data->reals.push_back(bfloat16_to_float(load_le<uint16_t>(bytes + 2 * i)));
      break;
    case DType::kInt64:
      for (size_t i = 0; i < n; ++i) data->ints.push_back(load_le<int64_t>(bytes + 8 * i));
      break;
    case DType::kUInt64:
      for (size_t i = 0; i < n; ++i) data->ints.push_back(static_cast<int64_t>(load_le<uint64_t>(bytes + 8 * i)));
      break;
    case DType::kInt32:
      for (size_t i = 0; i < n; ++i) data->ints.push_back(load_le<int32_t>(bytes + 4 * i));
      break;
    case DType::kUInt32:
      for (size_t i = 0; i < n; ++i) data->ints.push_back(load_le<uint32_t>(bytes + 4 * i));
      break;
    case DType::kInt16:
      for (size_t i = 0; i < n; ++i) data->ints.push_back(load_le<int16_t>(bytes + 2 * i));
      break;
    case DType::kUInt16:
      for (size_t i = 0; i < n; ++i) data->ints.push_back(load_le<uint16_t>(bytes + 2 * i));
      break;
    case DType::kInt8:
      for (size_t i = 0; i < n; ++i) data->ints.push_back(static_cast<int8_t>(bytes[i]));
      break;
    case DType::kUInt8:
    case DType::kBool:
      for (size_t i = 0; i < n; ++i) data->ints.push_back(bytes[i]);
      break;
    default:
      return nullptr;  // values of this type are never needed for shapes
  }
  return data;
}

}  // namespace

std::shared_ptr<ConstantData> constant_from_typed_fields(const graph::TensorRef& tensor, std::vector<int64_t> ints,
                                                         std::vector<double> reals) {
  auto data = std::make_shared<ConstantData>();
  data->dtype = tensor.dtype;
  data->dims = tensor.dims;
  int64_t count = declared_elements(tensor);
  if (graph::is_integral(tensor.dtype)) {
    data->ints = std::move(ints);
    if (static_cast<int64_t>(data->ints.size()) != count)
      throw Error(
          fmt::format("tensor '{}' holds {} values but its shape needs {}", tensor.name, data->ints.size(), count));
  } else if (graph::is_floating(tensor.dtype)) {
    if (tensor.dtype == DType::kFloat16 || tensor.dtype == DType::kBFloat16) {
      for (auto bits : ints)  // 16-bit floats are stored as bit patterns in int32_data
        reals.push_back(tensor.dtype == DType::kFloat16 ? half_to_float(static_cast<uint16_t>(bits))
                                                        : bfloat16_to_float(static_cast<uint16_t>(bits)));
    }
    data->reals = std::move(reals);
    if (static_cast<int64_t>(data->reals.size()) != count)
      throw Error(
          fmt::format("tensor '{}' holds {} values but its shape needs {}", tensor.name, data->reals.size(), count));
  } else {
    return nullptr;
  }
  return data;
}

std::shared_ptr<ConstantData> decode_constant(const graph::TensorRef& tensor, const std::string& model_directory,
                                              int64_t max_elements) {
  if (declared_elements(tensor) > max_elements) return nullptr;
  using Kind = graph::TensorLocation::Kind;
  const auto& loc = tensor.location;
  switch (loc.kind) {
    case Kind::kTypedFields:
      return tensor.typed_values;
    case Kind::kInFile: {
      std::vector<uint8_t> bytes(static_cast<size_t>(loc.size));
      if (!loc.source || !loc.source->read(loc.offset, loc.size, bytes.data()))
        throw Error(fmt::format("tensor '{}': its raw data lies outside the model file", tensor.name));
      return from_raw(tensor, bytes.data(), loc.size);
    }
    case Kind::kNone:
      if (declared_elements(tensor) == 0) return from_raw(tensor, nullptr, 0);
      throw Error(fmt::format("tensor '{}' has a shape but no data", tensor.name));
    case Kind::kExternal: {
      auto path = std::filesystem::path(model_directory) / loc.external_path;
      std::ifstream file(path, std::ios::binary);
      if (!file) return nullptr;  // weights file absent: fine unless a shape needs this tensor
      int64_t size = loc.external_length_given ? loc.size : graph::dtype_bytes(tensor.dtype, declared_elements(tensor));
      std::vector<uint8_t> bytes(static_cast<size_t>(size));
      file.seekg(loc.external_offset);
      if (!file.read(reinterpret_cast<char*>(bytes.data()), size))
        throw Error(fmt::format("external data file '{}' is too short for tensor '{}'", path.string(), tensor.name));
      return from_raw(tensor, bytes.data(), size);
    }
  }
  return nullptr;
}

}  // namespace ridge::onnx
