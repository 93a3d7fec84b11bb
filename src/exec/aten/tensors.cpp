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

// Weights and inputs come from exec/host_values (one rule and one random stream for every backend: the
// same seed gives the same random weights and inputs on the CPU and the GPU), then become ATen tensors.
at::Tensor load_initializer(const graph::Graph& g, graph::ValueId id, const std::string& directory,
                            std::mt19937_64& rng, bool& random) {
  return from_host(exec::load_initializer(g, id, directory, rng, random));
}

at::Tensor generate_input(const graph::Graph& g, graph::ValueId id, std::mt19937_64& rng) {
  return from_host(exec::generate_input(g, id, rng));
}

}  // namespace ridge::exec::aten
