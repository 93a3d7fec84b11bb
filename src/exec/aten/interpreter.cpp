#include "exec/aten/interpreter.h"

#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>

#include <chrono>

#include "exec/aten/kernels/kernel.h"
#include "exec/aten/tensors.h"
#include "exec/node_plan.h"
#include "util/error.h"

namespace ridge::exec::aten {

using graph::ValueId;

Interpreter::Interpreter(const graph::Model& model, const ExecOptions& options)
    : model_(model),
      options_(options),
      graph_(&model.graph),
      opset_(model.default_opset()),
      generator_(at::make_generator<at::CPUGeneratorImpl>(options.seed)),
      rng_(options.seed) {
  load_constants(model.graph);
  // A named string: GCC 12 warns (falsely, -Warray-bounds) on push_back of this literal.
  static const std::string random_note =
      "random weights: the model file holds no weight values (outputs are not meaningful)";
  if (random_weights_) notes_.push_back(random_note);
}

void Interpreter::load_constants(const graph::Graph& g) {
  auto& constants = constants_[&g];
  constants.assign(g.values.size(), at::Tensor());
  for (size_t i = 0; i < g.values.size(); ++i) {
    const auto& v = g.values[i];
    if (v.initializer && !v.is_graph_input)
      constants[i] = load_initializer(g, static_cast<ValueId>(i), model_.directory, rng_, random_weights_);
  }
  for (const auto& node : g.nodes)
    for (const auto* sub : node.subgraphs()) load_constants(*sub);
}

std::vector<at::Tensor>& Interpreter::constants(const graph::Graph& g) { return constants_[&g]; }

void Interpreter::replace_graph(std::unique_ptr<graph::Graph> g, std::vector<at::Tensor> constants,
                                std::unordered_map<graph::ValueId, Epilogue> fusions) {
  optimized_graph_ = std::move(g);
  fusions_ = std::move(fusions);
  graph_ = optimized_graph_.get();
  constants_[graph_] = std::move(constants);
  plans_.erase(graph_);
  kernel_states_.clear();  // keyed by nodes of the graph being replaced
}

const Epilogue& Interpreter::epilogue(const graph::Graph& g, const graph::Node& node) const {
  static const Epilogue none;
  if (&g != optimized_graph_.get() || node.outputs.empty()) return none;
  auto it = fusions_.find(node.outputs[0]);
  return it == fusions_.end() ? none : it->second;
}

const Interpreter::Plan& Interpreter::plan(const graph::Graph& g) {
  auto it = plans_.find(&g);
  if (it != plans_.end()) return it->second;
  Plan p;
  const auto& registry = KernelRegistry::instance();
  for (const auto& node : g.nodes) {
    const KernelRow* row = node.is_default_domain() ? registry.find(node.op_type) : nullptr;
    if (!row)
      throw Error(fmt::format("the executor has no kernel for op {}{} (node '{}')",
                              node.is_default_domain() ? "" : node.domain + ".", node.op_type, node.name));
    p.kernels.push_back(row);
  }
  // The CPU runs shape arithmetic too (it costs microseconds): nothing is folded, the release rule is shared.
  p.release_after = plan_nodes(g, false).release_after;
  return plans_.emplace(&g, std::move(p)).first->second;
}

void Interpreter::check_inputs(const std::vector<at::Tensor>& inputs) const {
  const auto& g = *graph_;
  if (inputs.size() != g.inputs.size())
    throw Error(fmt::format("the model takes {} inputs, {} given", g.inputs.size(), inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto& v = g.value(g.inputs[i]);
    auto given = dtype_of(inputs[i].scalar_type());
    if (v.dtype != graph::DType::kUndefined && given != v.dtype)
      throw Error(
          fmt::format("input '{}' must be {}, got {}", v.name, graph::dtype_name(v.dtype), graph::dtype_name(given)));
    if (!v.has_shape) continue;
    auto sizes = inputs[i].sizes();
    bool ok = sizes.size() == v.shape.size();
    for (size_t d = 0; ok && d < sizes.size(); ++d) ok = !v.shape[d].is_known() || v.shape[d].value == sizes[d];
    if (!ok) {
      std::vector<int64_t> got(sizes.begin(), sizes.end());
      throw Error(fmt::format("input '{}' must have shape {}, got {}", v.name, graph::to_string(v.shape),
                              graph::to_string(graph::make_shape(got))));
    }
  }
}

std::vector<at::Tensor> Interpreter::generate_inputs() {
  std::vector<at::Tensor> inputs;
  for (auto id : graph_->inputs) inputs.push_back(generate_input(*graph_, id, rng_));
  return inputs;
}

std::vector<std::pair<ValueId, at::Tensor*>> Interpreter::trainable_weights() {
  std::vector<std::pair<ValueId, at::Tensor*>> weights;
  auto& constants = constants_[graph_];
  for (size_t i = 0; i < constants.size(); ++i)
    if (constants[i].defined() && at::isFloatingType(constants[i].scalar_type()) && constants[i].dim() >= 1)
      weights.emplace_back(static_cast<ValueId>(i), &constants[i]);
  return weights;
}

std::vector<at::Tensor> Interpreter::run(const std::vector<at::Tensor>& inputs, const NodeObserver& observer) {
  const auto& g = *graph_;
  std::vector<at::Tensor> values = constants_[graph_];
  for (size_t i = 0; i < g.inputs.size() && i < inputs.size(); ++i)
    values[static_cast<size_t>(g.inputs[i])] = inputs[i];
  return execute(g, values, nullptr, observer ? &observer : nullptr);
}

std::vector<at::Tensor> Interpreter::run_subgraph(const graph::Graph& g, const std::vector<at::Tensor>& inputs,
                                                  const Frame& parent) {
  if (!constants_.count(&g)) load_constants(g);
  std::vector<at::Tensor> values = constants_[&g];
  if (inputs.size() != g.inputs.size())
    throw Error(fmt::format("subgraph '{}' takes {} inputs, {} given", g.name, g.inputs.size(), inputs.size()));
  for (size_t i = 0; i < g.inputs.size(); ++i) values[static_cast<size_t>(g.inputs[i])] = inputs[i];
  return execute(g, values, &parent, nullptr);
}

std::vector<at::Tensor> Interpreter::execute(const graph::Graph& g, std::vector<at::Tensor>& values,
                                             const Frame* parent, const NodeObserver* observer) {
  const Plan& p = plan(g);
  Frame frame{&g, &values, parent};
  const Frame* saved = current_frame_;
  current_frame_ = &frame;
  auto lookup = [&](ValueId id) -> at::Tensor {
    const auto& v = g.value(id);
    if (!v.from_outer_scope || values[static_cast<size_t>(id)].defined()) return values[static_cast<size_t>(id)];
    for (const Frame* f = parent; f; f = f->parent)
      if (auto outer = f->graph->find(v.name)) {
        const auto& t = (*f->values)[static_cast<size_t>(*outer)];
        if (t.defined()) return t;
      }
    throw Error(fmt::format("value '{}' is read before it is computed", v.name));
  };
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const auto& node = g.nodes[n];
    KernelContext ctx{node, g, *this, opset_, {}, {}, {}};
    ctx.inputs.reserve(node.inputs.size());
    for (auto id : node.inputs) ctx.inputs.push_back(id == graph::kNoValue ? at::Tensor() : lookup(id));
    ctx.outputs.resize(node.outputs.size());
    auto start = observer ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    try {
      p.kernels[n]->kernel(ctx);
    } catch (const Error&) {
      current_frame_ = saved;
      throw;
    } catch (const std::exception& e) {
      current_frame_ = saved;
      std::string what = e.what();
      auto newline = what.find('\n');  // ATen's messages carry a backtrace after the first line
      throw Error(fmt::format("node '{}' ({}) failed: {}", node.name, node.op_type, what.substr(0, newline)));
    }
    if (observer)
      (*observer)(n, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), ctx.algorithm);
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      if (node.outputs[o] == graph::kNoValue) continue;
      if (!ctx.outputs[o].defined()) {
        if (g.value(node.outputs[o]).consumers.empty() && !g.value(node.outputs[o]).is_graph_output) continue;
        current_frame_ = saved;
        throw Error(fmt::format("node '{}' ({}): output {} was not produced", node.name, node.op_type, o));
      }
      values[static_cast<size_t>(node.outputs[o])] = std::move(ctx.outputs[o]);
    }
    for (auto id : p.release_after[n]) values[static_cast<size_t>(id)].reset();
  }
  current_frame_ = saved;
  std::vector<at::Tensor> outputs;
  for (auto id : g.outputs) outputs.push_back(lookup(id));
  return outputs;
}

}  // namespace ridge::exec::aten
