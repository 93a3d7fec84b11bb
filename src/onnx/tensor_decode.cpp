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

uint16_t float_to_bfloat16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if (std::isnan(value)) return 0x7fc0;
  bits += 0x7fff + ((bits >> 16) & 1);  // round to nearest even
  return static_cast<uint16_t>(bits >> 16);
}

uint16_t float_to_half(float value) {
  // Exact for every value a half can hold; others round to nearest (ties away), enough for
  // re-encoding values that came from half-precision fields.
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  float magnitude = std::fabs(value);
  if (std::isnan(value)) return sign | 0x7e00;
  if (magnitude >= 65520.0f) return sign | 0x7c00;
  if (magnitude < std::ldexp(1.0f, -14))
    return sign | static_cast<uint16_t>(std::lround(std::ldexp(magnitude, 24)));  // subnormal
  int exponent;
  float fraction = std::frexp(magnitude, &exponent);  // magnitude = fraction * 2^exponent, fraction in [0.5,1)
  auto mantissa = static_cast<uint32_t>(std::lround(std::ldexp(fraction, 11)));  // 11 bits incl. the hidden one
  if (mantissa == 2048) {
    mantissa = 1024;
    ++exponent;
  }
  return sign | static_cast<uint16_t>(((exponent + 14) << 10) | (mantissa & 0x3ff));
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

std::shared_ptr<ConstantData> decode_values(const graph::TensorRef& header, const std::vector<uint8_t>& bytes) {
  return from_raw(header, bytes.data(), static_cast<int64_t>(bytes.size()));
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
      // A string tensor's values (string_data) are not decoded: no shape is computed from text, and the executors
      // refuse it by name (read_tensor_bytes), so a tokenizer's constants do not stop the analysis.
      if (tensor.dtype == DType::kString) return nullptr;
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

namespace {

template <typename T>
void append_le(std::vector<uint8_t>& out, T value) {
  auto at = out.size();
  out.resize(at + sizeof value);
  std::memcpy(out.data() + at, &value, sizeof value);
}

std::vector<uint8_t> encode_typed(const graph::TensorRef& tensor, const ConstantData& values) {
  std::vector<uint8_t> out;
  auto n = static_cast<size_t>(values.size());
  for (size_t i = 0; i < n; ++i) {
    switch (tensor.dtype) {
      case DType::kFloat32:
        append_le(out, static_cast<float>(values.reals[i]));
        break;
      case DType::kFloat64:
        append_le(out, values.reals[i]);
        break;
      case DType::kFloat16:
        append_le(out, float_to_half(static_cast<float>(values.reals[i])));
        break;
      case DType::kBFloat16:
        append_le(out, float_to_bfloat16(static_cast<float>(values.reals[i])));
        break;
      case DType::kInt64:
      case DType::kUInt64:
        append_le(out, values.ints[i]);
        break;
      case DType::kInt32:
      case DType::kUInt32:
        append_le(out, static_cast<int32_t>(values.ints[i]));
        break;
      case DType::kInt16:
      case DType::kUInt16:
        append_le(out, static_cast<int16_t>(values.ints[i]));
        break;
      case DType::kInt8:
      case DType::kUInt8:
      case DType::kBool:
        append_le(out, static_cast<uint8_t>(values.ints[i]));
        break;
      default:
        throw Error(
            fmt::format("tensor '{}': values of type {} cannot be read", tensor.name, graph::dtype_name(tensor.dtype)));
    }
  }
  return out;
}

}  // namespace

std::vector<uint8_t> read_tensor_bytes(const graph::TensorRef& tensor, const std::string& model_directory) {
  using Kind = graph::TensorLocation::Kind;
  const auto& loc = tensor.location;
  if (tensor.dtype == DType::kString)
    throw Error(fmt::format("{} holds strings: ridge's executors run numeric tensors only",
                            tensor.name.empty() ? std::string("the tensor") : "tensor '" + tensor.name + "'"));
  int64_t expected = graph::dtype_bytes(tensor.dtype, declared_elements(tensor));
  std::vector<uint8_t> bytes;
  switch (loc.kind) {
    case Kind::kTypedFields:
      if (!tensor.typed_values)
        throw Error(fmt::format("tensor '{}': its values are in typed fields too large to decode", tensor.name));
      bytes = encode_typed(tensor, *tensor.typed_values);
      break;
    case Kind::kInFile:
      bytes.resize(static_cast<size_t>(loc.size));
      if (!loc.source || !loc.source->read(loc.offset, loc.size, bytes.data()))
        throw Error(fmt::format("tensor '{}': its raw data lies outside the file", tensor.name));
      break;
    case Kind::kNone:
      break;
    case Kind::kExternal: {
      auto path = std::filesystem::path(model_directory) / loc.external_path;
      std::ifstream file(path, std::ios::binary);
      if (!file)
        throw Error(fmt::format("tensor '{}': external data file '{}' cannot be opened", tensor.name, path.string()));
      int64_t size = loc.external_length_given ? loc.size : expected;
      bytes.resize(static_cast<size_t>(size));
      file.seekg(loc.external_offset);
      if (!file.read(reinterpret_cast<char*>(bytes.data()), size))
        throw Error(fmt::format("external data file '{}' is too short for tensor '{}'", path.string(), tensor.name));
      break;
    }
  }
  if (static_cast<int64_t>(bytes.size()) != expected)
    throw Error(
        fmt::format("tensor '{}' holds {} bytes but its shape and type need {}", tensor.name, bytes.size(), expected));
  return bytes;
}

}  // namespace ridge::onnx
