#pragma once
// Moving tensors between ridge's types and ATen's: weights from the model file (or random ones
// when the file has none), generated inputs, and host copies of outputs.
#include <ATen/ATen.h>

#include <random>
#include <string>

#include "exec/host_tensor.h"
#include "graph/graph.h"

namespace ridge::exec::aten {

at::Tensor from_host(const HostTensor& host);
HostTensor to_host(const at::Tensor& tensor, const std::string& name);

// exec::load_initializer and exec::generate_input (host_values.h: the rule every backend uses, drawn from
// `rng`) as ATen tensors.
at::Tensor load_initializer(const graph::Graph& graph, graph::ValueId id, const std::string& model_directory,
                            std::mt19937_64& rng, bool& random);
at::Tensor generate_input(const graph::Graph& graph, graph::ValueId id, std::mt19937_64& rng);

}  // namespace ridge::exec::aten
