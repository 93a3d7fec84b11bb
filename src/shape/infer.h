#pragma once
// Binds symbolic input dims and infers every value's type, shape and (small) constant values.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace ridge::shape {

struct Bindings {
  std::optional<int64_t> batch;                        // first dim of every input, if symbolic
  std::map<std::string, int64_t> dims;                 // named dims
  std::map<std::string, std::vector<int64_t>> inputs;  // whole input shapes
};

struct InferenceSummary {
  std::vector<std::string> notes;          // e.g. "batch=1 (default)" assumptions, said in outputs
  std::map<std::string, int> unknown_ops;  // op type (with domain when not default) -> count
  int unresolved_nodes = 0;                // nodes whose output shapes stay unknown
  std::string first_unresolved;            // "node 'x' (Op): reason", for messages
};

// metadata_props key of a model file's defaults for its symbolic dims, "height=224,width=224":
// applied, with a note, to dims no binding names (as batch=1 is to a symbolic first dim).
inline constexpr const char* kDefaultDimsKey = "ridge.default_dims";

// Applies `bindings` to the model's inputs and returns the notes to show (defaults assumed, fixed
// dims replaced). An --input shape may change dims the file fixes: declared shapes of computed
// values are then dropped and inferred again. Throws ridge::Error when a binding names no input
// or dim, a given shape has the wrong rank, or a symbolic dim stays unbound.
std::vector<std::string> bind_inputs(graph::Model& model, const Bindings& bindings);

// One point of an input-size sweep (`ridge bench --sweep input=S`) as whole-shape bindings: images
// (rank 4, known channels) get H = W = size, sequences (rank 2, or 3 with a known feature dim)
// dim 1 = size; the batch is bindings.batch, else the one the file fixes, else 1. Returns false
// when no input is an image or a sequence.
bool bind_input_size(const graph::Model& model, Bindings& bindings, int64_t size);

// "--input x=1x3x320x320, --dim seq=128": the explicit bindings, to say under which ones an
// inference error arose; empty when there are none.
std::string describe(const Bindings& bindings);

// Infers shapes of the whole model, subgraphs included.
InferenceSummary infer_shapes(graph::Model& model);

}  // namespace ridge::shape
