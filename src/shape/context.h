#pragma once
// What a shape rule sees of one node: its inputs' types, shapes and (small) constant values,
// and the setters for its outputs.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace ridge::shape {

// Thrown by a rule when an output depends on values not known before running the model
// (data-dependent shapes, or a shape input computed from unknown data). Not a user error:
// the node is reported as unresolved.
struct Unresolved {
  std::string reason;
};

class Scope;

class InferenceContext {
 public:
  InferenceContext(graph::Graph& g, graph::Node& node, int64_t opset, Scope& scope)
      : graph_(g), node_(node), opset_(opset), scope_(scope) {}

  const graph::Node& node() const { return node_; }
  graph::Node& mutable_node() { return node_; }
  graph::Graph& graph() { return graph_; }
  Scope& scope() { return scope_; }
  int64_t opset() const { return opset_; }
  size_t input_count() const { return node_.inputs.size(); }
  size_t output_count() const { return node_.outputs.size(); }
  bool has_input(size_t i) const { return node_.input(i) != graph::kNoValue; }
  bool has_output(size_t i) const { return i < node_.outputs.size() && node_.outputs[i] != graph::kNoValue; }

  const graph::Value& input(size_t i) const;
  graph::DType in_dtype(size_t i) const { return input(i).dtype; }
  // The input's dims; fails (as a model error) when the input is missing.
  std::vector<int64_t> in_dims(size_t i) const;
  int64_t in_rank(size_t i) const { return static_cast<int64_t>(in_dims(i).size()); }
  // Known values of an input (decoded on demand from small initializers), or null.
  const graph::ConstantData* in_const(size_t i);
  // Integer values of a constant input; throws Unresolved when not known.
  std::vector<int64_t> in_ints(size_t i, const char* what);
  std::optional<std::vector<int64_t>> in_ints_if_known(size_t i);

  bool in_is_sequence(size_t i) const { return input(i).is_sequence; }
  // A sequence input; fails (as a model error) where input i is a tensor.
  const graph::Value& in_sequence(size_t i) const;

  void set_output(size_t i, graph::DType dtype, const std::vector<int64_t>& dims);
  void set_output_const(size_t i, graph::ConstantData data);
  // A sequence output: its elements' dtype and, where its length is known, each one's dims; `common` what every
  // element's shape shares where the elements are not known one by one (graph::Value::element_shape).
  void set_sequence_output(size_t i, graph::DType dtype, std::optional<std::vector<std::vector<int64_t>>> elements,
                           graph::SharedShape common = {});
  // Same type and shape as input `from` (a tensor's or a sequence's).
  void pass_through(size_t out, size_t from);
  // Output `out` takes the type, shape and known values of `v` (a subgraph's output, an enclosing graph's value).
  void set_like(size_t out, const graph::Value& v);

  [[noreturn]] void fail(const std::string& message) const;
  // Normalizes a possibly negative axis into [0, rank); fails when out of range.
  int64_t axis(int64_t value, int64_t rank, const char* what = "axis") const;
  void require_inputs(size_t count) const;

 private:
  graph::Graph& graph_;
  graph::Node& node_;
  int64_t opset_;
  Scope& scope_;
};

// Largest constant that values are propagated for (elements); shape tensors are tiny.
inline constexpr int64_t kMaxPropagatedElements = 1 << 16;

// Numpy-style multidirectional broadcasting; fails through `ctx` when shapes are incompatible.
std::vector<int64_t> broadcast_dims(const InferenceContext& ctx, const std::vector<std::vector<int64_t>>& shapes);

}  // namespace ridge::shape
