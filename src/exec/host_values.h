#pragma once
// A model's weights, constants and generated inputs as host tensors, for executors that do not use
// ATen's tensors (the GPU module): the same rules as the ATen executor's (exec/aten/tensors.h), drawn
// from a seeded std::mt19937_64, so a GPU run is repeatable for a seed.
#include <optional>
#include <random>

#include "exec/host_tensor.h"
#include "graph/graph.h"

namespace ridge::exec {

// Whether `id` feeds an input that multiplies (a normalization's scale, a running variance): random
// values for it are drawn near one, as frameworks initialize them.
bool is_scale_input(const graph::Graph& g, graph::ValueId id);

// The size of the table an integer input indexes (the gathered axis of a Gather reading it as ids),
// so generated ids stay in range; nullopt when no Gather reads it or the size is unknown.
std::optional<int64_t> gathered_table_size(const graph::Graph& g, graph::ValueId id);

// An initializer's values from the model file; when its external data file is absent (ridge's
// bundled weightless models) random values as PyTorch initializes layers (uniform in
// +-1/sqrt(fan_in); scales near one; integers zero), and `random` is set.
HostTensor load_initializer(const graph::Graph& g, graph::ValueId id, const std::string& model_directory,
                            std::mt19937_64& rng, bool& random);

// A tensor attribute's values from the model (a Constant's `value`, ConstantOfShape's fill), read as the file stores
// them; throws ridge::Error when they are missing or of a type no executor kernel takes (strings, 8- and 4-bit
// floats).
HostTensor attribute_tensor(const graph::TensorRef& tensor, const std::string& model_directory);

// A value's known constant (shape inference's value propagation) in its dtype's layout; throws
// ridge::Error for types no executor kernel takes (strings, 8- and 4-bit floats).
HostTensor constant_tensor(const graph::Value& value);

// A generated input: normal noise for floats, ones for bools and masks, ids below the size of the
// table a Gather reads with them. Throws ridge::Error when the input's dims are not bound.
HostTensor generate_input(const graph::Graph& g, graph::ValueId id, std::mt19937_64& rng);

}  // namespace ridge::exec
