#pragma once
// Runs a model's graph on one GPU, node by node on one stream: weights and constants uploaded once,
// nodes whose outputs shape inference already knows (shape arithmetic) folded into those constants,
// every other node on its kernel from the table; activations freed after their last reader.
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "exec/cuda/op_kernel.h"
#include "exec/cuda/storage_plan.h"
#include "exec/host_tensor.h"
#include "exec/inlined_rows.h"
#include "exec/measurement.h"
#include "exec/node_plan.h"
#include "exec/optimized_graph.h"

namespace ridge::exec::cuda {

// Called before (`after` false) and after each executed node, with its index in the graph.
using NodeHook = std::function<void(size_t node, bool after)>;

// The ops of `model` (with counts) that have no GPU kernel and are not folded into constants by
// shape inference or uploaded as constants (a Constant's tensor too large for shape inference to hold), once its Ifs of
// known condition are replaced by their taken branch and its loops of known iterations by them, nested ones too
// (exec/control_flow_rewrite.h); the model must be bound and inferred.
std::vector<std::pair<std::string, int>> missing_kernels(const graph::Model& model);

// The graph optimized mode runs on the GPU: the shared optimization plan, with the epilogues the GPU takes, the
// transposes and scalings its matrix products read and write in place (exec/product_views.h), and in fp32 attention's
// products, mask and Softmax fused into one node (exec/attention_fusion.h) that the attention kernel runs.
OptimizedGraph gpu_optimized_graph(const graph::Model& model, Precision precision);

class Interpreter {
 public:
  // Throws ridge::Error naming the ops (with counts) that have no GPU kernel and are not folded.
  Interpreter(const graph::Model& model, Gpu& gpu, const ExecOptions& options);

  // Inputs from the host, in the graph's order; empty: generated from the bound shapes (seeded).
  void set_inputs(const std::vector<HostTensor>& inputs);
  // One run; the outputs stay on the device until the next run.
  std::vector<GpuTensor> run(const NodeHook& hook = {});
  // One run that keeps every value, by value id: a training step's forward, whose backward reads them.
  std::vector<GpuTensor> run_keeping_values(const NodeHook& hook = {});
  // Node n as its kernel saw it in the run that computed `values` (its inputs, outputs and state): the view its
  // backward takes.
  KernelContext node_context(size_t n, const std::vector<GpuTensor>& values);
  // A weight or folded constant, shared with every run: an optimizer updates weights in place.
  const GpuTensor& constant(graph::ValueId id) const { return constants_.at(static_cast<size_t>(id)); }
  const ExecOptions& options() const { return options_; }
  // A training step updates the weights between runs: kernels convert them per run instead of keeping copies, and
  // values computed from a weight are computed every run, not folded (exec/node_plan.h). Throws ridge::Error naming a
  // node that must now run and has no kernel.
  void set_weights_change();
  std::vector<HostTensor> download(const std::vector<GpuTensor>& outputs) const;

  const graph::Graph& graph() const { return *graph_; }
  bool executes(size_t node) const { return kernels_[node] != nullptr; }
  int64_t executed_nodes() const;
  int64_t folded_nodes() const;
  bool random_weights() const { return random_weights_; }
  // The algorithm each convolution ran with in the last run (empty name for other nodes).
  const std::vector<AlgorithmChoice>& algorithms() const { return algorithms_; }
  int64_t weight_bytes() const { return weight_bytes_; }
  // Optimized mode: what the rewrite did (exec/optimized_graph.h), for a run's notes; empty in the other modes.
  const std::string& optimization() const { return optimization_; }
  // The If nodes run as their taken branch and the loops run as their iterations (exec/control_flow_rewrite.h), for a
  // run's notes; empty where there were none.
  const std::string& inlining() const { return inlining_; }
  // Per node: the If, Loop or Scan of the model it runs for, where it came from an inlined branch or an unrolled loop
  // (empty otherwise); and its NVTX range's name (that node's, else the ONNX node's, else its op type).
  const Origin& origin(size_t node) const { return origins_[node]; }
  const std::string& range_name(size_t node) const { return range_names_[node]; }
  // Where the run keeps activations in 16 bits (storage_plan.h); its storage is fp32 otherwise.
  const StoragePlan& storage() const { return storage_; }
  // Per node: the forward row its kernel ran (null: folded, or nothing to do).
  const std::vector<const KernelRow*>& kernels() const { return kernels_; }
  // `t` copied into channels-last (NHWC) or back to NCHW (the training step's backward takes copies in its rows'
  // layouts).
  GpuTensor relaid(const GpuTensor& t, bool channels_last);

 private:
  GpuTensor upload(const HostTensor& host);
  std::vector<GpuTensor> execute(const NodeHook& hook, bool keep_values);
  // `t` (value `id`) in `to`: a constant's copy kept from its first conversion, any other value's made now.
  GpuTensor stored_as(const GpuTensor& t, graph::ValueId id, graph::DType to);
  // `t` (value `id`, in the type a kernel reads) relaid for a kernel reading it channels-last or not: a constant's copy
  // kept from its first relayout (storage_plan.h counts none per run for constants), any other value's made now.
  GpuTensor relaid_input(const GpuTensor& t, graph::ValueId id, bool channels_last);

  std::unique_ptr<graph::Model> inlined_;    // the model with its Ifs of known condition inlined, where it has one
  std::unique_ptr<graph::Graph> optimized_;  // optimized mode: the rewritten graph graph_ points to
  std::string optimization_;
  std::string inlining_;
  const graph::Graph* graph_;
  std::string directory_;  // the model's, for tensor attributes stored outside it
  Gpu& gpu_;
  ExecOptions options_;
  int64_t opset_ = 0;
  std::mt19937_64 rng_;
  bool random_weights_ = false;
  bool weights_change_ = false;
  int64_t weight_bytes_ = 0;
  std::vector<GpuTensor> constants_;  // per value: weights, initializers and folded values
  std::vector<GpuTensor> inputs_;
  bool inputs_set_ = false;                // (a model whose inputs are all initializers has none)
  std::vector<const KernelRow*> kernels_;  // null: folded (or nothing to do)
  std::vector<std::string> range_names_;   // per node: its NVTX range (see range_name)
  std::vector<Origin> origins_;            // per node: the If, Loop or Scan it runs for, or empty
  NodePlan plan_;                          // which nodes run, what each releases
  std::vector<std::unique_ptr<NodeState>> states_;
  std::vector<AlgorithmChoice> algorithms_;
  StoragePlan storage_;                         // fp32 storage: nothing converted
  std::vector<GpuTensor> converted_constants_;  // per value: a constant in the 16-bit storage type
  std::vector<GpuTensor> relaid_constants_;     // per value: a constant in the other layout (channels-last runs)
};

}  // namespace ridge::exec::cuda
