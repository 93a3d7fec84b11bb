#include "exec/host_values.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "exec/op_table.h"
#include "onnx/tensor_decode.h"
#include "util/error.h"

namespace ridge::exec {

using graph::DType;

namespace {

int64_t element_count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (auto d : dims) n = graph::checked_mul(n, d, "tensor size");
  return n;
}

// Writes `values` (as doubles or integers) into `t` in its dtype's little-endian layout.
template <class Get>
void fill(HostTensor& t, int64_t n, Get get) {
  auto bytes = static_cast<size_t>(graph::dtype_bytes(t.dtype, n));
  t.bytes.assign(bytes, 0);
  auto* out = t.bytes.data();
  for (int64_t i = 0; i < n; ++i) {
    double v = get(i);
    switch (t.dtype) {
      case DType::kFloat32: {
        auto f = static_cast<float>(v);
        std::memcpy(out + i * 4, &f, 4);
        break;
      }
      case DType::kFloat64:
        std::memcpy(out + i * 8, &v, 8);
        break;
      case DType::kFloat16: {
        auto h = onnx::float_to_half(static_cast<float>(v));
        std::memcpy(out + i * 2, &h, 2);
        break;
      }
      case DType::kBFloat16: {
        auto h = onnx::float_to_bfloat16(static_cast<float>(v));
        std::memcpy(out + i * 2, &h, 2);
        break;
      }
      case DType::kInt64: {
        auto x = static_cast<int64_t>(v);
        std::memcpy(out + i * 8, &x, 8);
        break;
      }
      case DType::kInt32: {
        auto x = static_cast<int32_t>(v);
        std::memcpy(out + i * 4, &x, 4);
        break;
      }
      case DType::kBool:
      case DType::kUInt8:
        out[i] = static_cast<uint8_t>(v != 0 ? (t.dtype == DType::kBool ? 1 : v) : 0);
        break;
      case DType::kInt8:
        out[i] = static_cast<uint8_t>(static_cast<int8_t>(v));
        break;
      default:
        throw Error(
            fmt::format("tensor '{}' has type {}, which the executor cannot hold", t.name, graph::dtype_name(t.dtype)));
    }
  }
}

}  // namespace

bool is_scale_input(const graph::Graph& g, graph::ValueId id) {
  for (auto consumer : g.value(id).consumers) {
    const auto& node = g.nodes[static_cast<size_t>(consumer)];
    const auto* row = node.is_default_domain() ? find_op(node.op_type) : nullptr;
    if (!row) continue;
    for (size_t i = 0; i < node.inputs.size(); ++i)
      if (node.inputs[i] == id && row->scales_input(i)) return true;
  }
  return false;
}

std::optional<int64_t> gathered_table_size(const graph::Graph& g, graph::ValueId id) {
  for (auto consumer : g.value(id).consumers) {
    const auto& node = g.nodes[static_cast<size_t>(consumer)];
    if (node.op_type != "Gather" || node.input(1) != id) continue;
    const auto& data = g.value(node.input(0));
    if (!data.has_shape) continue;
    auto axis = node.get_int("axis", 0);
    auto rank = static_cast<int64_t>(data.shape.size());
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank || !data.shape[static_cast<size_t>(axis)].is_known()) continue;
    return data.shape[static_cast<size_t>(axis)].value;
  }
  return std::nullopt;
}

HostTensor load_initializer(const graph::Graph& g, graph::ValueId id, const std::string& directory,
                            std::mt19937_64& rng, bool& random) {
  const auto& ref = *g.value(id).initializer;
  HostTensor t{ref.name, ref.dtype, ref.dims, {}};
  bool missing = ref.location.kind == graph::TensorLocation::Kind::kExternal &&
                 !std::filesystem::exists(std::filesystem::path(directory) / ref.location.external_path);
  if (!missing) {
    t.bytes = onnx::read_tensor_bytes(ref, directory);
    return t;
  }
  random = true;
  auto n = element_count(ref.dims);
  if (!graph::is_floating(ref.dtype)) {
    fill(t, n, [](int64_t) { return 0.0; });
    return t;
  }
  double low = 0.5, high = 1.5;
  if (!is_scale_input(g, id)) {
    int64_t fan_in = 1;
    for (size_t i = 1; i < ref.dims.size(); ++i) fan_in *= ref.dims[i];
    if (ref.dims.size() < 2) fan_in = 100;  // biases and shifts: small values
    high = 1.0 / std::sqrt(static_cast<double>(std::max<int64_t>(fan_in, 1)));
    low = -high;
  }
  std::uniform_real_distribution<double> uniform(low, high);
  fill(t, n, [&](int64_t) { return uniform(rng); });
  return t;
}

HostTensor attribute_tensor(const graph::TensorRef& tensor, const std::string& model_directory) {
  HostTensor t{tensor.name, tensor.dtype, tensor.dims, {}};
  switch (tensor.dtype) {
    case DType::kFloat32:
    case DType::kFloat64:
    case DType::kFloat16:
    case DType::kBFloat16:
    case DType::kInt64:
    case DType::kInt32:
    case DType::kInt16:
    case DType::kInt8:
    case DType::kUInt8:
    case DType::kUInt16:
    case DType::kUInt32:
    case DType::kUInt64:
    case DType::kBool:
      break;
    default:
      throw Error(fmt::format("tensor '{}' has type {}, which the executor cannot hold", tensor.name,
                              graph::dtype_name(tensor.dtype)));
  }
  t.bytes = onnx::read_tensor_bytes(tensor, model_directory);
  return t;
}

HostTensor constant_tensor(const graph::Value& value) {
  const auto& c = *value.constant;
  HostTensor t{value.name, c.dtype, c.dims, {}};
  fill(t, c.size(), [&](int64_t i) { return c.as_real(static_cast<size_t>(i)); });
  if (c.is_integral() && c.dtype == DType::kInt64) {  // exact beyond 2^53
    for (int64_t i = 0; i < c.size(); ++i) std::memcpy(t.bytes.data() + i * 8, &c.ints[static_cast<size_t>(i)], 8);
  }
  return t;
}

HostTensor generate_input(const graph::Graph& g, graph::ValueId id, std::mt19937_64& rng) {
  const auto& value = g.value(id);
  if (!graph::is_fully_known(value.shape))
    throw Error(fmt::format("input '{}' has shape {}: bind its dims (--batch, --dim, --input)", value.name,
                            graph::to_string(value.shape)));
  HostTensor t{value.name, value.dtype, graph::known_dims(value.shape), {}};
  auto n = element_count(t.dims);
  if (graph::is_floating(value.dtype)) {
    std::normal_distribution<double> normal(0.0, 1.0);
    fill(t, n, [&](int64_t) { return normal(rng); });
    return t;
  }
  if (auto table = value.dtype == DType::kBool ? std::nullopt : gathered_table_size(g, id)) {
    std::uniform_int_distribution<int64_t> ids(0, *table - 1);
    fill(t, n, [&](int64_t) { return static_cast<double>(ids(rng)); });
    return t;
  }
  fill(t, n, [](int64_t) { return 1.0; });
  return t;
}

}  // namespace ridge::exec
