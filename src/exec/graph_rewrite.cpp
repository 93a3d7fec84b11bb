#include "exec/graph_rewrite.h"

#include <fmt/format.h>

#include "exec/node_plan.h"
#include "onnx/tensor_decode.h"
#include "util/error.h"

namespace ridge::exec {

RewriteQueries::RewriteQueries(const graph::Graph& g, const std::string& model_directory)
    : g_(g), directory_(model_directory), outer_(subgraph_outer_reads(g)) {}

bool RewriteQueries::only_read_by(graph::ValueId id, size_t reader) const {
  const auto& v = g_.value(id);
  return !v.is_graph_output && !outer_.count(v.name) && v.consumers.size() == 1 &&
         static_cast<size_t>(v.consumers[0]) == reader;
}

std::optional<std::vector<int64_t>> RewriteQueries::known_dims(graph::ValueId id) const {
  const auto& v = g_.value(id);
  if (!v.has_shape || !graph::is_fully_known(v.shape)) return std::nullopt;
  return graph::known_dims(v.shape);
}

std::optional<double> RewriteQueries::scalar(graph::ValueId id) const {
  if (id == graph::kNoValue) return std::nullopt;
  const auto& v = g_.value(id);
  if (v.dtype != graph::DType::kFloat32) return std::nullopt;
  auto c = v.constant;
  if (!c && v.initializer) {
    try {
      c = onnx::decode_constant(*v.initializer, directory_, 1);
    } catch (const Error&) {
      return std::nullopt;  // damaged bytes: the executor reports them when it loads the weights
    }
  }
  if (!c || c->size() != 1) return std::nullopt;
  return c->as_real(0);
}

std::string unique_name(const graph::Graph& g, const std::string& name) {
  if (!g.find(name)) return name;
  for (int k = 2;; ++k)
    if (auto candidate = fmt::format("{}#{}", name, k); !g.find(candidate)) return candidate;
}

void add_int(graph::Node& node, const std::string& name, int64_t value) {
  graph::Attribute a;
  a.name = name;
  a.kind = graph::Attribute::Kind::kInt;
  a.i = value;
  node.attributes.push_back(std::move(a));
}

graph::ValueId add_int_constant(graph::Graph& g, const std::string& name, graph::DType dtype, std::vector<int64_t> dims,
                                std::vector<int64_t> ints) {
  auto data = std::make_shared<graph::ConstantData>();
  data->dtype = dtype;
  data->dims = std::move(dims);
  data->ints = std::move(ints);
  auto id = g.intern(name);
  auto& v = g.value(id);
  auto ref = std::make_shared<graph::TensorRef>();
  ref->name = v.name;
  ref->dtype = dtype;
  ref->dims = data->dims;
  ref->location.kind = graph::TensorLocation::Kind::kTypedFields;
  ref->typed_values = data;
  v.dtype = dtype;
  v.shape = graph::make_shape(data->dims);
  v.has_shape = true;
  v.initializer = ref;
  v.constant = data;
  return id;
}

void add_ints(graph::Node& node, const std::string& name, std::vector<int64_t> ints) {
  graph::Attribute a;
  a.name = name;
  a.kind = graph::Attribute::Kind::kInts;
  a.ints = std::move(ints);
  node.attributes.push_back(std::move(a));
}

void add_float(graph::Node& node, const std::string& name, double value) {
  graph::Attribute a;
  a.name = name;
  a.kind = graph::Attribute::Kind::kFloat;
  a.f = value;
  node.attributes.push_back(std::move(a));
}

void add_string(graph::Node& node, const std::string& name, std::string value) {
  graph::Attribute a;
  a.name = name;
  a.kind = graph::Attribute::Kind::kString;
  a.s = std::move(value);
  node.attributes.push_back(std::move(a));
}

void erase_nodes(graph::Graph& g, const std::set<size_t>& removed) {
  if (removed.empty()) return;
  std::vector<graph::Node> kept;
  for (size_t n = 0; n < g.nodes.size(); ++n)
    if (!removed.count(n)) kept.push_back(std::move(g.nodes[n]));
  g.nodes = std::move(kept);
  g.link_and_sort();
}

}  // namespace ridge::exec
