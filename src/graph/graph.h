#pragma once
// The IR: values (tensors) and nodes that read and write them, with subgraphs for control flow.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "graph/attribute.h"
#include "graph/dtype.h"
#include "graph/shape.h"
#include "graph/tensor.h"

namespace ridge::graph {

using ValueId = int32_t;
using NodeId = int32_t;
inline constexpr ValueId kNoValue = -1;

struct Value {
  std::string name;
  DType dtype = DType::kUndefined;
  Shape shape;
  bool has_shape = false;  // false until declared or inferred (rank unknown otherwise)
  bool is_graph_input = false;
  bool is_graph_output = false;
  std::shared_ptr<TensorRef> initializer;  // set for initializers (weights and constants)
  std::shared_ptr<ConstantData> constant;  // known values, for shape/value propagation
  NodeId producer = -1;
  std::vector<NodeId> consumers;
  bool from_outer_scope = false;  // a subgraph's reference to a value of an enclosing graph
  // An ONNX sequence (a list of tensors: SequenceConstruct, SplitToSequence, a Loop collecting a Python list). dtype is
  // its elements'; has_shape says its type is known (shape stays empty); `elements`, where its length is known, each
  // element's shape in order; `element_shape` what every element's shape shares (graph::SharedShape).
  bool is_sequence = false;
  std::optional<std::vector<Shape>> elements;
  SharedShape element_shape;
};

// A value's shape as text: a tensor's ("1x3x224x224"), or a sequence's ("sequence[3] of 2x3", "sequence[2] of 2x3,4x3",
// "sequence of 2x3" where the length is known only at run time); "?" where not known.
std::string shape_text(const Value& v);

struct Node {
  std::string name;
  std::string op_type;
  std::string domain;           // "" or "ai.onnx" for the default domain
  std::vector<ValueId> inputs;  // kNoValue for an omitted optional input
  std::vector<ValueId> outputs;
  std::vector<Attribute> attributes;
  // Set by shape inference when this node's output shapes could not be determined
  // (unknown op, data-dependent shape, or an unresolved input); empty when resolved.
  std::string unresolved_reason;
  bool unknown_op = false;

  const Attribute* attribute(std::string_view attr_name) const;
  bool has(std::string_view attr_name) const { return attribute(attr_name) != nullptr; }
  int64_t get_int(std::string_view attr_name, int64_t fallback) const;
  double get_float(std::string_view attr_name, double fallback) const;
  std::string get_string(std::string_view attr_name, const std::string& fallback) const;
  std::vector<int64_t> get_ints(std::string_view attr_name, std::vector<int64_t> fallback = {}) const;
  bool is_default_domain() const { return domain.empty() || domain == "ai.onnx"; }
  ValueId input(size_t i) const { return i < inputs.size() ? inputs[i] : kNoValue; }
  std::vector<const Graph*> subgraphs() const;
};

struct Graph {
  std::string name;
  std::vector<Value> values;
  std::vector<Node> nodes;
  std::vector<ValueId> inputs;  // graph inputs that are not initializers
  std::vector<ValueId> outputs;
  std::unordered_map<std::string, ValueId> value_by_name;

  // Returns the id of the value called `name`, creating it if needed.
  ValueId intern(const std::string& value_name);
  std::optional<ValueId> find(const std::string& value_name) const;
  Value& value(ValueId id) { return values[static_cast<size_t>(id)]; }
  const Value& value(ValueId id) const { return values[static_cast<size_t>(id)]; }
  // Fills producer/consumer links and orders nodes topologically (stable: keeps file order
  // where it is already valid). Throws ridge::Error on a cycle or a value with two producers.
  void link_and_sort();
};

struct Model {
  Graph graph;
  int64_t ir_version = 0;
  std::map<std::string, int64_t> opsets;  // domain ("" = default) -> version
  std::string producer;
  std::map<std::string, std::string> metadata;  // metadata_props (e.g. ridge.default_dims)
  std::string path;                             // the model file
  std::string directory;                        // where external data is looked for
  std::shared_ptr<const ByteSource> source;     // the model's bytes, for values read on demand
  int64_t file_bytes = 0;

  int64_t default_opset() const;
};

}  // namespace ridge::graph
