#pragma once
// Moving tensors between ridge's types and ATen's: weights from the model file (or random ones
// when the file has none), generated inputs, and host copies of outputs.
#include <ATen/ATen.h>

#include <string>

#include "exec/host_tensor.h"
#include "graph/graph.h"

namespace ridge::exec::aten {

at::Tensor from_host(const HostTensor& host);
HostTensor to_host(const at::Tensor& tensor, const std::string& name);

// An initializer's values. When its external data file is absent (ridge's bundled weightless
// models) the values are random, drawn as PyTorch initializes layers (uniform in +-1/sqrt(fan_in);
// normalization scales and variances near 1), and `random` is set.
at::Tensor load_initializer(const graph::Graph& graph, graph::ValueId id, const std::string& model_directory,
                            at::Generator& generator, bool& random);

// An input generated from its bound shape: normal noise for floats; for integer inputs read as
// indices by Gather, uniform ids below the gathered dimension; other integers (masks) are ones.
at::Tensor generate_input(const graph::Graph& graph, graph::ValueId id, at::Generator& generator);

}  // namespace ridge::exec::aten
