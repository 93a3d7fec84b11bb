#include "exec/sequence_elimination.h"

#include <fmt/format.h>

#include <optional>
#include <set>

#include "exec/graph_rewrite.h"
#include "exec/node_plan.h"
#include "onnx/tensor_decode.h"
#include "shape/infer.h"
#include "util/error.h"

namespace ridge::exec {

namespace {

using graph::kNoValue;
using graph::ValueId;
using Elements = std::vector<ValueId>;

const std::set<std::string> kSequenceOps{"SequenceEmpty", "SequenceConstruct", "SequenceInsert",     "SequenceErase",
                                         "SequenceAt",    "SequenceLength",    "ConcatFromSequence", "SplitToSequence"};
// The ops that only build a sequence: removed once nothing reads what they built.
const std::set<std::string> kBuilders{"SequenceEmpty", "SequenceConstruct", "SequenceInsert", "SequenceErase"};

bool is_sequence_op(const graph::Node& node) { return node.is_default_domain() && kSequenceOps.count(node.op_type); }

class Eliminator {
 public:
  Eliminator(graph::Model& model, const std::map<ValueId, Origin>* outer, SequenceElimination& result)
      : model_(model), g_(model.graph), outer_(outer), result_(result) {}

  void run() {
    for (const auto& node : g_.nodes) follow(node);
    std::vector<graph::Node> nodes;
    bool changed = false;
    for (auto& node : g_.nodes) {
      auto replacement = replace(node);
      if (replacement.empty()) {
        nodes.push_back(std::move(node));
        continue;
      }
      changed = true;
      for (auto& n : replacement) nodes.push_back(std::move(n));
      // A split's Split gives its pieces to what reads them; the SplitToSequence itself goes, as a builder does, once
      // nothing reads its sequence (a reader that stays keeps it, and the GPU names that reader).
      if (node.op_type == "SplitToSequence")
        nodes.push_back(std::move(node));
      else
        ++result_.rewritten;
    }
    g_.nodes = std::move(nodes);
    g_.link_and_sort();
    changed = remove_dead_builders() || changed;
    auto outer_reads = subgraph_outer_reads(g_);
    for (const auto& node : g_.nodes)
      if (is_sequence_op(node))
        result_.kept.push_back(fmt::format("{} ({}): {}", node.name, node.op_type, why(node, outer_reads)));
    if (changed) shape::infer_shapes(model_);
  }

 private:
  // An integer input's value where it is a known scalar (a constant, an initializer).
  std::optional<int64_t> constant_int(ValueId id) const {
    if (id == kNoValue) return std::nullopt;
    const auto& v = g_.value(id);
    auto c = v.constant;
    if (!c && v.initializer) {
      try {
        c = onnx::decode_constant(*v.initializer, model_.directory, 1);
      } catch (const Error&) {
        return std::nullopt;  // damaged bytes: the executor reports them when it loads the constants
      }
    }
    if (!c || c->size() != 1 || !c->is_integral()) return std::nullopt;
    return c->as_int(0);
  }

  // A position input as an index into `length` elements (as ONNX bounds it), where known; `absent` where omitted.
  std::optional<size_t> position(const graph::Node& node, size_t input, size_t length, bool insert,
                                 int64_t absent) const {
    auto pos = node.input(input) == kNoValue ? std::optional<int64_t>(absent) : constant_int(node.input(input));
    if (!pos) return std::nullopt;
    auto n = static_cast<int64_t>(length);
    int64_t p = *pos < 0 ? *pos + n : *pos;
    if (p < 0 || p > n || (!insert && p == n))
      return std::nullopt;  // out of range: the op stays and fails as the CPU's
    return static_cast<size_t>(p);
  }

  const Elements* known(ValueId id) const {
    auto it = known_.find(id);
    return it == known_.end() ? nullptr : &it->second;
  }

  // What each sequence the graph builds holds, where every element is a value of the graph.
  void follow(const graph::Node& node) {
    if (!node.is_default_domain() || node.outputs.empty() || node.outputs[0] == kNoValue) return;
    auto out = node.outputs[0];
    const auto& op = node.op_type;
    const auto* in = node.inputs.empty() ? nullptr : known(node.inputs[0]);
    if (op == "SequenceEmpty") {
      known_[out] = {};
    } else if (op == "SequenceConstruct") {
      known_[out] = node.inputs;
    } else if (op == "Identity" && in) {
      known_[out] = *in;
    } else if (op == "SequenceInsert" && in) {
      if (auto at = position(node, 2, in->size(), true, static_cast<int64_t>(in->size()))) {
        Elements e = *in;
        e.insert(e.begin() + static_cast<long>(*at), node.input(1));
        known_[out] = std::move(e);
      }
    } else if (op == "SequenceErase" && in) {
      if (auto at = position(node, 1, in->size(), false, -1)) {
        Elements e = *in;
        e.erase(e.begin() + static_cast<long>(*at));
        known_[out] = std::move(e);
      }
    } else if (op == "SplitToSequence") {
      // Shape inference knows each piece where the split is known: each becomes a value of its own (none of an empty
      // axis: the sequence is empty).
      if (!g_.value(out).elements) return;
      // Copied: interning a value may move the graph's values.
      auto count = g_.value(out).elements->size();
      if (count == 0) {
        known_[out] = {};
        return;
      }
      auto name = g_.value(out).name;
      auto dtype = g_.value(out).dtype;
      Elements pieces;
      for (size_t k = 0; k < count; ++k) {
        auto id = g_.intern(unique_name(g_, fmt::format("{}/{}", name, k)));
        g_.value(id).dtype = dtype;
        pieces.push_back(id);
      }
      known_[out] = std::move(pieces);
      splits_.insert(out);
    }
  }

  graph::Node make(const std::string& name, const std::string& op, Elements inputs, Elements outputs) const {
    graph::Node n;
    n.name = name;
    n.op_type = op;
    n.inputs = std::move(inputs);
    n.outputs = std::move(outputs);
    return n;
  }

  // Each node a rewritten one becomes runs for the node it replaces (or what that one ran for): a profile times them as
  // it, named and typed as it.
  void mark(const graph::Node& original, const std::vector<graph::Node>& nodes) {
    Origin origin{original.name, original.op_type};
    if (outer_)
      if (auto it = outer_->find(original.outputs[0]); it != outer_->end()) origin = it->second;
    for (const auto& n : nodes)
      for (auto id : n.outputs)
        if (id != kNoValue) result_.origin_of_output[id] = origin;
  }

  // An axes or split input (opset 13 on) or attribute (before), as the model's opset reads it.
  void add_axes(graph::Node& node, const char* attribute, std::vector<int64_t> values, const std::string& label) {
    if (model_.default_opset() < 13) return add_ints(node, attribute, std::move(values));
    auto dims = std::vector<int64_t>{static_cast<int64_t>(values.size())};
    node.inputs.push_back(add_int_constant(g_, unique_name(g_, label), graph::DType::kInt64, dims, std::move(values)));
  }

  // The tensor ops `node` becomes; none where it stays as it is (or, a builder, goes once nothing reads it).
  std::vector<graph::Node> replace(const graph::Node& node) {
    std::vector<graph::Node> out;
    if (!is_sequence_op(node) || node.outputs.empty() || node.outputs[0] == kNoValue) return out;
    const auto& op = node.op_type;
    auto result = node.outputs[0];
    const auto* in = node.inputs.empty() ? nullptr : known(node.inputs[0]);
    if (op == "SequenceAt" && in) {
      if (auto at = position(node, 1, in->size(), false, 0))
        out.push_back(make(node.name, "Identity", {(*in)[*at]}, {result}));
    } else if (op == "SequenceLength" && in) {
      auto n = make(node.name, "Constant", {}, {result});
      auto ref = std::make_shared<graph::TensorRef>();
      ref->name = g_.value(result).name;
      ref->dtype = graph::DType::kInt64;
      ref->location.kind = graph::TensorLocation::Kind::kTypedFields;
      ref->typed_values = std::make_shared<graph::ConstantData>();
      ref->typed_values->dtype = graph::DType::kInt64;
      ref->typed_values->ints = {static_cast<int64_t>(in->size())};
      graph::Attribute value;
      value.name = "value";
      value.kind = graph::Attribute::Kind::kTensor;
      value.tensor = ref;
      n.attributes.push_back(std::move(value));
      out.push_back(std::move(n));
    } else if (op == "ConcatFromSequence" && in && !in->empty()) {
      // The elements' rank: the sequence's inferred elements' (a piece of a split just rewritten has no shape yet).
      const auto& sequence = g_.value(node.input(0));
      if (!sequence.elements || sequence.elements->empty()) return out;
      auto rank = static_cast<int64_t>(sequence.elements->front().size());
      bool new_axis = node.get_int("new_axis", 0) != 0;
      int64_t axis = node.get_int("axis", 0);
      int64_t out_rank = new_axis ? rank + 1 : rank;
      if (axis < -out_rank || axis >= out_rank) return out;  // the op stays and fails as the CPU's does
      if (axis < 0) axis += out_rank;
      Elements parts = *in;
      if (new_axis)
        for (size_t k = 0; k < parts.size(); ++k) {
          auto u = g_.intern(unique_name(g_, fmt::format("{}/unsqueezed_{}", node.name, k)));
          auto n = make(fmt::format("{}/unsqueeze_{}", node.name, k), "Unsqueeze", {parts[k]}, {u});
          add_axes(n, "axes", {axis}, fmt::format("{}/axes", node.name));
          out.push_back(std::move(n));
          parts[k] = u;
        }
      auto concat = make(node.name, "Concat", parts, {result});
      add_int(concat, "axis", axis);
      out.push_back(std::move(concat));
    } else if (op == "SplitToSequence" && splits_.count(result)) {
      const auto& pieces = known_.at(result);
      const auto elements = *g_.value(result).elements;  // copied: adding values below may move the graph's values
      if (!g_.value(node.input(0)).has_shape) return out;
      auto rank = static_cast<int64_t>(g_.value(node.input(0)).shape.size());
      int64_t axis = node.get_int("axis", 0);
      if (axis < -rank || axis >= rank) return out;
      if (axis < 0) axis += rank;
      bool squeeze = node.input(1) == kNoValue && node.get_int("keepdims", 1) == 0;
      std::vector<int64_t> sizes;
      for (const auto& e : elements) sizes.push_back(squeeze ? 1 : e.at(static_cast<size_t>(axis)).value);
      Elements split_outputs = pieces;
      if (squeeze)
        for (size_t k = 0; k < pieces.size(); ++k)
          split_outputs[k] = g_.intern(unique_name(g_, fmt::format("{}/piece_{}", node.name, k)));
      auto split = make(node.name, "Split", {node.input(0)}, split_outputs);
      add_int(split, "axis", axis);
      add_axes(split, "split", sizes, fmt::format("{}/split", node.name));
      out.push_back(std::move(split));
      if (squeeze)
        for (size_t k = 0; k < pieces.size(); ++k) {
          auto n = make(fmt::format("{}/squeeze_{}", node.name, k), "Squeeze", {split_outputs[k]}, {pieces[k]});
          add_axes(n, "axes", {axis}, fmt::format("{}/axes", node.name));
          out.push_back(std::move(n));
        }
    }
    if (!out.empty()) mark(node, out);
    return out;
  }

  // An op that only builds a sequence: a builder, an Identity of a known sequence, a split whose pieces are values.
  bool is_builder(const graph::Node& node) const {
    if (!node.is_default_domain()) return false;
    if (kBuilders.count(node.op_type)) return true;
    if (node.op_type == "Identity") return known(node.input(0)) != nullptr;
    return node.op_type == "SplitToSequence" && !node.outputs.empty() && known(node.outputs[0]);
  }

  bool is_dead_builder(const graph::Node& node, const std::set<std::string>& outer_reads) const {
    if (!is_builder(node)) return false;
    for (auto id : node.outputs) {
      if (id == kNoValue) continue;
      const auto& v = g_.value(id);
      if (!v.consumers.empty() || v.is_graph_output || outer_reads.count(v.name)) return false;
    }
    return true;
  }

  // Removes the builders nothing reads any more, back to front (one built from another goes with it).
  bool remove_dead_builders() {
    auto outer_reads = subgraph_outer_reads(g_);
    bool any = false;
    for (;;) {
      std::set<size_t> dead;
      for (size_t n = 0; n < g_.nodes.size(); ++n)
        if (is_dead_builder(g_.nodes[n], outer_reads)) dead.insert(n);
      if (dead.empty()) return any;
      result_.rewritten += static_cast<int>(dead.size());
      erase_nodes(g_, dead);
      any = true;
    }
  }

  // Why a sequence op stays: what reads the sequence it builds, or what is known only during the run.
  std::string why(const graph::Node& node, const std::set<std::string>& outer_reads) const {
    if (node.outputs.empty() || node.outputs[0] == kNoValue) return "it writes nothing";
    const auto& out = g_.value(node.outputs[0]);
    if (is_builder(node) && known(node.outputs[0])) {
      if (out.is_graph_output) return "the sequence it builds is an output of the graph";
      if (outer_reads.count(out.name)) return "a subgraph (a branch, a loop's body) reads the sequence it builds";
      for (auto reader : out.consumers) {
        const auto& r = g_.nodes[static_cast<size_t>(reader)];
        return fmt::format("{} ({}) reads the sequence it builds and stays", r.name, r.op_type);
      }
    }
    if (kBuilders.count(node.op_type))
      return "its sequence or position is known only during the run (a loop that stays, a position computed from data)";
    if (node.op_type == "SplitToSequence") return "its pieces' sizes are known only during the run";
    if (!node.inputs.empty() && !known(node.input(0)))
      return "its sequence is built during the run (a loop that stays, or a position computed from data)";
    if (node.op_type == "ConcatFromSequence") return "it concatenates an empty sequence";
    return "its position is computed during the run";
  }

  graph::Model& model_;
  graph::Graph& g_;
  const std::map<ValueId, Origin>* outer_;
  SequenceElimination& result_;
  std::map<ValueId, Elements> known_;
  std::set<ValueId> splits_;
};

}  // namespace

bool has_sequence_ops(const graph::Graph& g) {
  for (const auto& node : g.nodes)
    if (is_sequence_op(node)) return true;
  return false;
}

SequenceElimination eliminate_sequences(graph::Model& model, const std::map<ValueId, Origin>* outer) {
  SequenceElimination result;
  if (!has_sequence_ops(model.graph)) return result;
  Eliminator(model, outer, result).run();
  return result;
}

}  // namespace ridge::exec
