#pragma once
// An op's kernel: reads its node's input tensors and attributes, sets its outputs. Families
// register their kernels in one table, as shape/ and cost/ register theirs.
#include <ATen/ATen.h>

#include <string_view>
#include <vector>

#include "exec/options.h"
#include "graph/graph.h"
#include "util/registry.h"

namespace ridge::exec::aten {

class Interpreter;

struct KernelContext {
  const graph::Node& node;
  const graph::Graph& graph;
  Interpreter& interpreter;
  int64_t opset = 0;
  std::vector<at::Tensor> inputs;   // undefined where an optional input is omitted
  std::vector<at::Tensor> outputs;  // one per node output; undefined for an omitted one
  std::string algorithm;            // set by kernels that choose one (convolution)

  bool has(size_t i) const { return i < inputs.size() && inputs[i].defined(); }
  // The i-th input; throws ridge::Error naming the node when it is absent.
  const at::Tensor& in(size_t i) const;
  // An integer input (shape, axes, pads...) as a vector.
  std::vector<int64_t> ints(size_t i) const;
  // The dtype the graph declares (or inference found) for the i-th output.
  graph::DType output_dtype(size_t i) const;
  // Whether input i is a constant of the graph (a weight, or a value optimized mode folded).
  bool is_constant(size_t i) const;
  bool wants_output(size_t i) const { return i < node.outputs.size() && node.outputs[i] != graph::kNoValue; }
  void set(size_t i, at::Tensor value);
  // A tensor-valued attribute (Constant's value, ConstantOfShape's fill); undefined when absent.
  at::Tensor attribute_tensor(std::string_view name) const;
  [[noreturn]] void fail(const std::string& what) const;
};

using Kernel = void (*)(KernelContext&);

struct KernelRow {
  std::string_view op_type;
  Kernel kernel;
  std::string_view family = {};
};

using KernelRegistry = Registry<KernelRow>;

}  // namespace ridge::exec::aten

namespace ridge {
template <>
const exec::aten::KernelRegistry& exec::aten::KernelRegistry::instance();  // kernel.cpp: the families
}  // namespace ridge

namespace ridge::exec::aten {

void register_elementwise_kernels(KernelRegistry& registry);
void register_conv_kernels(KernelRegistry& registry);
void register_matmul_kernels(KernelRegistry& registry);
void register_normalization_kernels(KernelRegistry& registry);
void register_pooling_kernels(KernelRegistry& registry);
void register_reduction_kernels(KernelRegistry& registry);
void register_manipulation_kernels(KernelRegistry& registry);
void register_generator_kernels(KernelRegistry& registry);
void register_quantization_kernels(KernelRegistry& registry);
void register_resize_kernels(KernelRegistry& registry);
void register_attention_kernels(KernelRegistry& registry);
void register_detection_kernels(KernelRegistry& registry);
void register_recurrent_kernels(KernelRegistry& registry);
void register_loss_kernels(KernelRegistry& registry);
void register_control_kernels(KernelRegistry& registry);
void register_sequence_kernels(KernelRegistry& registry);
void register_signal_kernels(KernelRegistry& registry);

// Helpers shared by the families.
int64_t normalize_axis(int64_t axis, int64_t rank, const KernelContext& ctx);
std::vector<int64_t> to_vector(const at::Tensor& t);
at::ScalarType scalar_type(graph::DType type);  // throws ridge::Error for types ATen lacks
graph::DType dtype_of(at::ScalarType type);

}  // namespace ridge::exec::aten
