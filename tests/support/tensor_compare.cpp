#include "support/tensor_compare.h"

#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "graph/shape.h"
#include "onnx/tensor_decode.h"

namespace ridge::test {

namespace {

template <typename T>
void from_raw(const std::string& raw, std::vector<double>& out) {
  for (size_t i = 0; i + sizeof(T) <= raw.size(); i += sizeof(T)) {
    T v;
    std::memcpy(&v, raw.data() + i, sizeof v);
    out.push_back(static_cast<double>(v));
  }
}

}  // namespace

std::optional<Expected> read_expected(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  ::onnx::TensorProto t;
  if (!t.ParseFromString(s.str())) return std::nullopt;
  Expected e;
  e.dtype = t.data_type();
  e.dims.assign(t.dims().begin(), t.dims().end());
  const auto& raw = t.raw_data();
  using TP = ::onnx::TensorProto;
  switch (t.data_type()) {
    case TP::FLOAT:
      if (raw.empty())
        e.values.assign(t.float_data().begin(), t.float_data().end());
      else
        from_raw<float>(raw, e.values);
      break;
    case TP::DOUBLE:
      if (raw.empty())
        e.values.assign(t.double_data().begin(), t.double_data().end());
      else
        from_raw<double>(raw, e.values);
      break;
    case TP::INT64:
      if (raw.empty())
        for (auto v : t.int64_data()) e.values.push_back(static_cast<double>(v));
      else
        from_raw<int64_t>(raw, e.values);
      break;
    case TP::INT32:
    case TP::INT16:
    case TP::INT8:
    case TP::UINT8:
    case TP::BOOL:
      if (raw.empty()) {
        e.values.assign(t.int32_data().begin(), t.int32_data().end());
      } else if (t.data_type() == TP::INT32) {
        from_raw<int32_t>(raw, e.values);
      } else if (t.data_type() == TP::INT16) {
        from_raw<int16_t>(raw, e.values);
      } else if (t.data_type() == TP::INT8) {
        from_raw<int8_t>(raw, e.values);
      } else {
        from_raw<uint8_t>(raw, e.values);
      }
      break;
    case TP::FLOAT16:
      if (raw.empty()) {
        for (auto bits : t.int32_data()) e.values.push_back(onnx::half_to_float(static_cast<uint16_t>(bits)));
      } else {
        std::vector<double> bits;
        from_raw<uint16_t>(raw, bits);
        for (double b : bits) e.values.push_back(onnx::half_to_float(static_cast<uint16_t>(b)));
      }
      break;
    default:
      return std::nullopt;  // strings, unsigned 16-64 bit, complex: not compared
  }
  return e;
}

std::vector<double> host_values(const exec::HostTensor& t) {
  std::vector<double> out;
  std::string raw(t.bytes.begin(), t.bytes.end());
  switch (t.dtype) {
    case graph::DType::kFloat32:
      from_raw<float>(raw, out);
      break;
    case graph::DType::kFloat64:
      from_raw<double>(raw, out);
      break;
    case graph::DType::kInt64:
      from_raw<int64_t>(raw, out);
      break;
    case graph::DType::kInt32:
      from_raw<int32_t>(raw, out);
      break;
    case graph::DType::kInt16:
      from_raw<int16_t>(raw, out);
      break;
    case graph::DType::kInt8:
      from_raw<int8_t>(raw, out);
      break;
    case graph::DType::kUInt8:
    case graph::DType::kBool:
      from_raw<uint8_t>(raw, out);
      break;
    case graph::DType::kFloat16: {
      std::vector<double> bits;
      from_raw<uint16_t>(raw, bits);
      for (double b : bits) out.push_back(onnx::half_to_float(static_cast<uint16_t>(b)));
      break;
    }
    default:
      break;
  }
  return out;
}

std::string compare_tensor(const exec::HostTensor& got, const Expected& want, double rtol, double atol) {
  if (got.dims != want.dims)
    return "shape " + graph::to_string(graph::make_shape(got.dims)) + ", expected " +
           graph::to_string(graph::make_shape(want.dims));
  if (static_cast<int32_t>(got.dtype) != want.dtype)
    return "type " + std::string(graph::dtype_name(got.dtype)) + ", expected code " + std::to_string(want.dtype);
  auto values = host_values(got);
  if (values.size() != want.values.size()) return "value count differs";
  for (size_t k = 0; k < values.size(); ++k) {
    double a = values[k], b = want.values[k];
    if ((std::isnan(a) && std::isnan(b)) || a == b) continue;
    if (!(std::fabs(a - b) <= atol + rtol * std::fabs(b)))
      return "element " + std::to_string(k) + ": " + std::to_string(a) + ", expected " + std::to_string(b);
  }
  return "";
}

namespace {

template <class T>
exec::HostTensor typed_tensor(const std::string& name, graph::DType dtype, std::vector<int64_t> dims,
                              const std::vector<T>& values) {
  exec::HostTensor t;
  t.name = name;
  t.dtype = dtype;
  t.dims = std::move(dims);
  t.bytes.resize(values.size() * sizeof(T));
  // An empty vector's data() may be null, which memcpy may not be given.
  if (!values.empty()) std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

}  // namespace

exec::HostTensor float_tensor(const std::string& name, std::vector<int64_t> dims, const std::vector<float>& values) {
  return typed_tensor(name, graph::DType::kFloat32, std::move(dims), values);
}

exec::HostTensor int64_tensor(const std::string& name, std::vector<int64_t> dims, const std::vector<int64_t>& values) {
  return typed_tensor(name, graph::DType::kInt64, std::move(dims), values);
}

std::vector<float> floats(const exec::HostTensor& tensor) {
  std::vector<float> v(tensor.bytes.size() / sizeof(float));
  if (!v.empty()) std::memcpy(v.data(), tensor.bytes.data(), v.size() * sizeof(float));  // nothing may not be null
  return v;
}

std::vector<int64_t> int64s(const exec::HostTensor& tensor) {
  std::vector<int64_t> v(tensor.bytes.size() / sizeof(int64_t));
  if (!v.empty()) std::memcpy(v.data(), tensor.bytes.data(), v.size() * sizeof(int64_t));
  return v;
}

std::string compare_outputs(const std::vector<exec::HostTensor>& outputs, const std::string& directory, double rtol,
                            double atol) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    auto want = read_expected(directory + "/output_" + std::to_string(i) + ".pb");
    if (!want) return "no expected output " + std::to_string(i);
    auto diff = compare_tensor(outputs[i], *want, rtol, atol);
    if (!diff.empty()) return "output " + std::to_string(i) + " " + diff;
  }
  return "";
}

}  // namespace ridge::test
