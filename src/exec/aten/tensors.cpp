#include "exec/aten/tensors.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "exec/aten/kernels/kernel.h"
#include "exec/host_values.h"
#include "exec/op_table.h"
#include "onnx/tensor_decode.h"
#include "util/error.h"

namespace ridge::exec::aten {

using graph::DType;

at::Tensor from_host(const HostTensor& host) {
  auto type = scalar_type(host.dtype);
  auto tensor = at::empty(host.dims, at::TensorOptions().dtype(type));
  auto expected = static_cast<size_t>(tensor.numel()) * tensor.element_size();
  if (host.bytes.size() != expected)
    throw Error(fmt::format("tensor '{}' holds {} bytes but its shape and type need {}", host.name, host.bytes.size(),
                            expected));
  if (expected) std::memcpy(tensor.data_ptr(), host.bytes.data(), expected);
  return tensor;
}

HostTensor to_host(const at::Tensor& tensor, const std::string& name) {
  HostTensor host;
  host.name = name;
  auto dense = tensor.contiguous();
  host.dtype = dtype_of(dense.scalar_type());
  if (host.dtype == DType::kUndefined) throw Error(fmt::format("output '{}' has a type ONNX cannot hold", name));
  host.dims = dense.sizes().vec();
  auto bytes = static_cast<size_t>(dense.numel()) * dense.element_size();
  host.bytes.resize(bytes);
  if (bytes) std::memcpy(host.bytes.data(), dense.data_ptr(), bytes);
  return host;
}

namespace {

bool external_file_missing(const graph::TensorRef& ref, const std::string& directory) {
  return ref.location.kind == graph::TensorLocation::Kind::kExternal &&
         !std::filesystem::exists(std::filesystem::path(directory) / ref.location.external_path);
}

}  // namespace

at::Tensor load_initializer(const graph::Graph& g, graph::ValueId id, const std::string& directory,
                            at::Generator& generator, bool& random) {
  const auto& value = g.value(id);
  const auto& ref = *value.initializer;
  if (!external_file_missing(ref, directory)) {
    HostTensor host;
    host.name = ref.name;
    host.dtype = ref.dtype;
    host.dims = ref.dims;
    host.bytes = onnx::read_tensor_bytes(ref, directory);
    return from_host(host);
  }
  random = true;
  auto options = at::TensorOptions().dtype(scalar_type(ref.dtype));
  if (!graph::is_floating(ref.dtype)) return at::zeros(ref.dims, options);
  auto t = at::empty(ref.dims, at::TensorOptions().dtype(at::kFloat));
  if (is_scale_input(g, id)) {
    t.uniform_(0.5, 1.5, generator);
  } else {
    int64_t fan_in = 1;
    for (size_t i = 1; i < ref.dims.size(); ++i) fan_in *= ref.dims[i];
    if (ref.dims.size() < 2) fan_in = 100;  // biases and shifts: small values
    double bound = 1.0 / std::sqrt(static_cast<double>(std::max<int64_t>(fan_in, 1)));
    t.uniform_(-bound, bound, generator);
  }
  return t.to(options.dtype());
}

at::Tensor generate_input(const graph::Graph& g, graph::ValueId id, at::Generator& generator) {
  const auto& value = g.value(id);
  if (!graph::is_fully_known(value.shape))
    throw Error(fmt::format("input '{}' has shape {}: bind its dims (--batch, --dim, --input)", value.name,
                            graph::to_string(value.shape)));
  auto dims = graph::known_dims(value.shape);
  auto options = at::TensorOptions().dtype(scalar_type(value.dtype));
  if (graph::is_floating(value.dtype)) return at::randn(dims, generator, at::kFloat).to(options.dtype());
  if (value.dtype == DType::kBool) return at::ones(dims, options);
  if (auto table = gathered_table_size(g, id)) return at::randint(*table, dims, generator, options);
  return at::ones(dims, options);
}

}  // namespace ridge::exec::aten
