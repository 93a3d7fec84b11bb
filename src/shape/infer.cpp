#include "shape/infer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "onnx/tensor_decode.h"
#include "shape/context.h"
#include "shape/registry.h"
#include "shape/scope.h"
#include "util/error.h"

namespace ridge::shape {

const graph::Value* Scope::lookup(const std::string& name) const {
  for (const Scope* s = this; s; s = s->parent_) {
    if (auto id = s->graph_.find(name)) {
      const auto& v = s->graph_.value(*id);
      if (!v.from_outer_scope) return &v;
    }
  }
  return nullptr;
}

namespace {

std::string dims_text(const std::vector<int64_t>& dims) { return graph::to_string(graph::make_shape(dims)); }

// The model file's defaults for symbolic dims: metadata_props "ridge.default_dims" = "height=224,width=224".
std::map<std::string, int64_t> file_default_dims(const graph::Model& model) {
  std::map<std::string, int64_t> defaults;
  auto it = model.metadata.find(std::string(kDefaultDimsKey));
  if (it == model.metadata.end()) return defaults;
  const std::string& text = it->second;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw Error(fmt::format("model metadata {}: '{}' is not NAME=VALUE", kDefaultDimsKey, item));
    auto values = graph::parse_integer_list(item.substr(eq + 1), ",", std::string(kDefaultDimsKey));
    if (values.size() != 1 || values[0] <= 0)
      throw Error(fmt::format("model metadata {}: '{}' needs one positive integer", kDefaultDimsKey, item));
    defaults[item.substr(0, eq)] = values[0];
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return defaults;
}

// Declared (value_info) shapes of computed values were worked out by the exporter for the old input
// shapes; once an input dim the file fixes changes, they are forgotten and inferred afresh.
void forget_declared_shapes(graph::Graph& g) {
  for (auto& v : g.values)
    if (v.producer >= 0 && !v.is_graph_input && !v.initializer) {
      v.has_shape = false;
      v.shape.clear();
      v.constant.reset();
      v.elements.reset();
      v.element_shape = {};
    }
}

}  // namespace

std::string describe(const Bindings& bindings) {
  std::string text;
  for (const auto& [name, dims] : bindings.inputs)
    text += fmt::format("{}--input {}={}", text.empty() ? "" : ", ", name, fmt::join(dims, "x"));
  for (const auto& [name, value] : bindings.dims)
    text += fmt::format("{}--dim {}={}", text.empty() ? "" : ", ", name, value);
  return text;
}

std::vector<std::string> bind_inputs(graph::Model& model, const Bindings& bindings) {
  auto& g = model.graph;
  std::vector<std::string> notes;
  std::set<std::string> used_dims;
  bool batch_used = false;
  bool rebound = false;
  for (const auto& [name, dims] : bindings.inputs) {
    auto id = g.find(name);
    if (!id || !g.value(*id).is_graph_input) {
      std::string known;
      for (auto in : g.inputs) known += (known.empty() ? "" : ", ") + g.value(in).name;
      throw Error(fmt::format("--input: the model has no input '{}' (inputs: {})", name, known));
    }
    auto& v = g.value(*id);
    if (v.has_shape && v.shape.size() != dims.size())
      throw Error(fmt::format("--input {}: shape {} has rank {}, the model declares rank {} ({})", name,
                              dims_text(dims), dims.size(), v.shape.size(), graph::to_string(v.shape)));
    for (auto d : dims)
      if (d < 0) throw Error(fmt::format("--input {}: negative dimension {}", name, d));
    bool changes_fixed = false;
    if (v.has_shape)
      for (size_t i = 0; i < dims.size(); ++i)
        changes_fixed = changes_fixed || (v.shape[i].is_known() && v.shape[i].value != dims[i]);
    if (changes_fixed) {
      notes.push_back(fmt::format("--input {}={} replaces the model's fixed {}; shapes re-inferred", name,
                                  fmt::join(dims, "x"), graph::to_string(v.shape)));
      rebound = true;
    }
    v.shape = graph::make_shape(dims);
    v.has_shape = true;
  }
  if (rebound) forget_declared_shapes(g);
  auto defaults = file_default_dims(model);
  std::vector<std::string> defaulted;  // dims bound from the file's defaults, in order of appearance
  for (auto id : g.inputs) {
    auto& v = g.value(id);
    // A sequence input has no dims to bind: its elements are known only to the run (the executors refuse it).
    if (v.is_sequence) continue;
    if (!v.has_shape)
      throw Error(fmt::format("input '{}' has no declared shape: give it with --input {}=DIMS", v.name, v.name));
    for (size_t i = 0; i < v.shape.size(); ++i) {
      auto& d = v.shape[i];
      if (d.is_known()) continue;
      auto it = d.symbol.empty() ? bindings.dims.end() : bindings.dims.find(d.symbol);
      auto file_default = d.symbol.empty() ? defaults.end() : defaults.find(d.symbol);
      if (it != bindings.dims.end()) {
        used_dims.insert(d.symbol);
        d = graph::Dim::known(it->second);
      } else if (file_default != defaults.end() && !(i == 0 && bindings.batch)) {
        if (std::find(defaulted.begin(), defaulted.end(), d.symbol) == defaulted.end()) defaulted.push_back(d.symbol);
        d = graph::Dim::known(file_default->second);
      } else if (i == 0) {
        int64_t batch = bindings.batch.value_or(1);
        if (!bindings.batch) {
          std::string note = fmt::format("batch=1 (default) for dim '{}'", d.symbol.empty() ? "?" : d.symbol);
          if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
        }
        d = graph::Dim::known(batch);
        batch_used = true;
      } else {
        throw Error(
            fmt::format("input '{}' has unbound dimension '{}' (dim {}): bind it with --dim {}=N or --input {}=DIMS",
                        v.name, d.symbol.empty() ? "?" : d.symbol, i, d.symbol.empty() ? "NAME" : d.symbol, v.name));
      }
    }
  }
  if (!defaulted.empty()) {
    std::string values, names;
    for (const auto& name : defaulted) {
      values += fmt::format("{}{}={}", values.empty() ? "" : ", ", name, defaults.at(name));
      names += fmt::format("{}'{}'", names.empty() ? "" : ",", name);
    }
    notes.push_back(
        fmt::format("{} (default from the model file) for dim{} {}", values, defaulted.size() > 1 ? "s" : "", names));
  }
  if (bindings.batch && !batch_used)
    notes.push_back(fmt::format("--batch {} had no effect: no input has a symbolic first dim", *bindings.batch));
  for (const auto& [name, value] : bindings.dims)
    if (!used_dims.count(name)) {
      // A name may also be bound through the batch rule; only a name no input uses is an error.
      bool exists = false;
      for (auto id : g.inputs)
        for (const auto& d : g.value(id).shape) exists = exists || d.symbol == name;
      if (!exists) throw Error(fmt::format("--dim {}: no input of the model has a dimension named '{}'", name, name));
    }
  return notes;
}

namespace {

void copy_outer_values(Scope& scope) {
  for (auto& v : scope.graph().values) {
    if (!v.from_outer_scope) continue;
    if (const auto* outer = scope.lookup(v.name)) {
      v.dtype = outer->dtype;
      v.shape = outer->shape;
      v.has_shape = outer->has_shape;
      v.constant = outer->constant;
      v.is_sequence = outer->is_sequence;
      v.elements = outer->elements;
      v.element_shape = outer->element_shape;
      // A small initializer of an enclosing graph that no node there read yet (a nested Loop's trip count kept as a
      // weight of the model) is known here as it is there: decoded on demand, as InferenceContext::in_const does.
      if (!v.constant && outer->initializer)
        v.constant = onnx::decode_constant(*outer->initializer, scope.directory(), kMaxPropagatedElements);
    }
  }
}

}  // namespace

void infer_graph(Scope& scope, InferenceSummary& summary) {
  auto& g = scope.graph();
  copy_outer_values(scope);
  const auto& registry = ShapeRegistry::instance();
  for (auto& node : g.nodes) {
    node.unresolved_reason.clear();
    node.unknown_op = false;
    const auto* row = node.is_default_domain() ? registry.find(node.op_type) : nullptr;
    ShapeRule rule = row ? row->rule : nullptr;
    if (!rule) {
      node.unknown_op = true;
      std::string key = node.is_default_domain() ? node.op_type : node.domain + "::" + node.op_type;
      ++summary.unknown_ops[key];
      bool declared = true;  // the file may still declare its outputs' shapes (value_info)
      for (auto out : node.outputs)
        if (out != graph::kNoValue)
          declared = declared && g.value(out).has_shape && graph::is_fully_known(g.value(out).shape);
      if (!declared) node.unresolved_reason = "no shape rule for op " + key;
    } else {
      // Sequences go only to the sequence ops, Identity and control flow (a Loop's carried value, a branch's output).
      if (row->family != "sequence" && row->family != "control" && node.op_type != "Identity")
        for (auto in : node.inputs)
          if (in != graph::kNoValue && g.value(in).is_sequence)
            throw Error(fmt::format("node '{}' ({}): input '{}' is a sequence; {} takes tensors", node.name,
                                    node.op_type, g.value(in).name, node.op_type));
      for (auto in : node.inputs)
        if (in != graph::kNoValue && !g.value(in).has_shape) {
          node.unresolved_reason = fmt::format("input '{}' has no known shape", g.value(in).name);
          break;
        }
      if (node.unresolved_reason.empty()) {
        InferenceContext ctx(g, node, scope.opset(), scope);
        try {
          rule(ctx);
        } catch (const Unresolved& unresolved) {
          node.unresolved_reason = unresolved.reason;
        }
      }
    }
    if (!node.unresolved_reason.empty()) {
      ++summary.unresolved_nodes;
      if (summary.first_unresolved.empty())
        summary.first_unresolved = fmt::format("node '{}' ({}): {}", node.name, node.op_type, node.unresolved_reason);
      for (auto out : node.outputs)
        if (out != graph::kNoValue && !(node.unknown_op && g.value(out).has_shape)) {
          g.value(out).has_shape = false;
          g.value(out).constant.reset();
        }
    }
  }
}

InferenceSummary infer_shapes(graph::Model& model) {
  InferenceSummary summary;
  Scope scope(model.graph, nullptr, model.directory, model.default_opset());
  infer_graph(scope, summary);
  return summary;
}

bool bind_input_size(const graph::Model& model, Bindings& bindings, int64_t size) {
  bool any = false;
  for (auto id : model.graph.inputs) {
    const auto& v = model.graph.value(id);
    if (!v.has_shape || v.shape.empty()) continue;
    auto dim = [&](size_t i) { return v.shape[i].is_known() ? v.shape[i].value : -1; };
    int64_t batch = bindings.batch.value_or(dim(0) > 0 ? dim(0) : 1);
    std::vector<int64_t> shape;
    if (v.shape.size() == 4 && dim(1) > 0)
      shape = {batch, dim(1), size, size};
    else if (v.shape.size() == 2)
      shape = {batch, size};
    else if (v.shape.size() == 3 && dim(2) > 0)
      shape = {batch, size, dim(2)};
    else
      continue;
    bindings.inputs[v.name] = shape;
    any = true;
  }
  return any;
}

}  // namespace ridge::shape
