#pragma once
// Runs a Graph node by node in topological order with ATen kernels. Weights are turned into
// tensors once; every intermediate tensor is released after its last reader.
#include <ATen/ATen.h>

#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "exec/aten/onednn/onednn.h"
#include "exec/options.h"
#include "graph/graph.h"

namespace ridge::exec::aten {

struct KernelRow;

// Values visible while a (sub)graph runs: its own, then those of the graphs enclosing it.
struct Frame {
  const graph::Graph* graph = nullptr;
  std::vector<at::Tensor>* values = nullptr;
  const Frame* parent = nullptr;
};

// Receives each main-graph node's wall time when profiling.
using NodeObserver = std::function<void(size_t node_index, double seconds, const std::string& algorithm)>;

class Interpreter {
 public:
  // `model` must outlive the interpreter. Optimized mode rewrites a private copy of the graph.
  Interpreter(const graph::Model& model, const ExecOptions& options);

  const graph::Graph& graph() const { return *graph_; }
  const graph::Model& model() const { return model_; }
  const ExecOptions& options() const { return options_; }
  bool random_weights() const { return random_weights_; }
  int64_t opset() const { return opset_; }
  std::vector<std::string> notes() const { return notes_; }
  at::Generator& generator() { return generator_; }

  // Inputs in the order of graph().inputs. Returns the graph outputs.
  std::vector<at::Tensor> run(const std::vector<at::Tensor>& inputs, const NodeObserver& observer = {});
  // Runs a subgraph (If/Loop/Scan bodies) with its formal inputs bound, in `parent`'s scope.
  std::vector<at::Tensor> run_subgraph(const graph::Graph& g, const std::vector<at::Tensor>& inputs,
                                       const Frame& parent);
  // Weights the executor trains (float initializers of the main graph), by value id.
  std::vector<std::pair<graph::ValueId, at::Tensor*>> trainable_weights();

  // Checks the given inputs against the graph's declared types and bound shapes.
  void check_inputs(const std::vector<at::Tensor>& inputs) const;
  std::vector<at::Tensor> generate_inputs();

  // Constants of a graph (initializers), by value id; used by the optimizer.
  std::vector<at::Tensor>& constants(const graph::Graph& g);
  // Replaces the main graph (optimized mode) and its constants.
  // `fusions`: what optimized mode fused into each layer of `g`, by the layer's first output.
  void replace_graph(std::unique_ptr<graph::Graph> g, std::vector<at::Tensor> constants,
                     std::unordered_map<graph::ValueId, Epilogue> fusions = {});
  // What optimized mode fused into a node of `g` (nothing for other graphs and other nodes).
  const Epilogue& epilogue(const graph::Graph& g, const graph::Node& node) const;
  const Frame* current_frame() const { return current_frame_; }
  // A tensor derived once from an unchanging object (an attribute, a constant value), then shared.
  enum class Derived { kAttributeValue, kConvWeight };
  template <typename Make>
  at::Tensor cached(const void* object, Derived what, Make make) {
    auto key = std::make_pair(object, what);
    auto it = cache_.find(key);
    if (it == cache_.end()) it = cache_.emplace(key, make()).first;
    return it->second;
  }
  // State a kernel keeps between runs (compiled primitives, packed weights), one per key (its
  // node). `make` returns a std::shared_ptr<T>.
  template <typename T, typename Make>
  T& kernel_state(const void* key, Make make) {
    auto it = kernel_states_.find(key);
    if (it == kernel_states_.end()) it = kernel_states_.emplace(key, std::shared_ptr<void>(make())).first;
    return *static_cast<T*>(it->second.get());
  }

 private:
  struct Plan {
    std::vector<const KernelRow*> kernels;
    std::vector<std::vector<graph::ValueId>> release_after;  // per node: values read for the last time
  };
  const Plan& plan(const graph::Graph& g);
  void load_constants(const graph::Graph& g);
  std::vector<at::Tensor> execute(const graph::Graph& g, std::vector<at::Tensor>& values, const Frame* parent,
                                  const NodeObserver* observer);

  const graph::Model& model_;
  ExecOptions options_;
  std::unique_ptr<graph::Graph> optimized_graph_;
  std::unordered_map<graph::ValueId, Epilogue> fusions_;  // of optimized_graph_
  const graph::Graph* graph_;
  int64_t opset_ = 0;
  at::Generator generator_;  // the random ops' (RandomNormal, Dropout in training, Bernoulli)
  std::mt19937_64 rng_;      // random weights and inputs: exec/host_values' stream, as every backend draws them
  bool random_weights_ = false;
  std::vector<std::string> notes_;
  std::unordered_map<const graph::Graph*, std::vector<at::Tensor>> constants_;
  std::unordered_map<const graph::Graph*, Plan> plans_;
  const Frame* current_frame_ = nullptr;
  std::map<std::pair<const void*, Derived>, at::Tensor> cache_;
  std::unordered_map<const void*, std::shared_ptr<void>> kernel_states_;
};

}  // namespace ridge::exec::aten
