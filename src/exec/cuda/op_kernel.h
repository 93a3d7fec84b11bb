#pragma once
// A GPU op's kernel: reads its node's input tensors and attributes, sets its outputs (shapes come
// from shape inference). Families register their kernels in one table (op families as in shape/,
// cost/ and exec/aten/kernels/), and may keep per-node state (cuDNN descriptors, the algorithm
// chosen) across runs in `state`.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "exec/cuda/gpu.h"
#include "exec/cuda/kernels.h"
#include "exec/cuda/tensor.h"
#include "exec/options.h"
#include "graph/graph.h"
#include "util/error.h"
#include "util/registry.h"

namespace ridge::exec::cuda {

// Per-node state a kernel builds on its first call and reuses.
struct NodeState {
  virtual ~NodeState() = default;
};

// What a convolution chose, for the per-node profile.
struct AlgorithmChoice {
  std::string name;  // the cuDNN algorithm that ran
  int64_t workspace_bytes = -1;
  std::string note;  // why it is not the one asked for
};

struct KernelContext {
  const graph::Node& node;
  const graph::Graph& graph;
  Gpu& gpu;
  const ExecOptions& options;
  int64_t opset = 0;
  std::vector<GpuTensor> inputs;  // undefined where an optional input is omitted
  std::vector<GpuTensor> outputs;
  std::unique_ptr<NodeState>& state;
  AlgorithmChoice* algorithm = nullptr;  // set for convolutions
  // Weights change between runs (a training step updates them): a converted copy of one is made per run, never kept.
  bool weights_change = false;
  // The type this kernel's fp32 activations are kept in: fp32, or the run's 16-bit type where the run keeps
  // activations in 16 bits and the kernel's row takes them (storage_plan.h). Outputs the graph declares fp32 are
  // allocated in it.
  graph::DType storage = graph::DType::kFloat32;
  // The kernel writes its 4-D outputs channels-last (a channels-last run, and a row that reads them so): allocated
  // outputs are marked where the order differs (tensor.h).
  bool channels_last = false;
  // Where the model's external data lies (a tensor attribute that is stored outside the file is read from there).
  std::string_view model_directory = {};

  bool has(size_t i) const { return i < inputs.size() && inputs[i].defined(); }
  // The i-th input; fails naming the node when it is absent.
  const GpuTensor& in(size_t i) const;
  // The dims shape inference found for output i (bound, fully known).
  std::vector<int64_t> output_dims(size_t i) const;
  graph::DType output_dtype(size_t i) const;
  bool wants_output(size_t i) const { return i < node.outputs.size() && node.outputs[i] != graph::kNoValue; }
  // A fresh tensor for output i with its inferred dims and dtype.
  GpuTensor& allocate_output(size_t i);
  GpuTensor& allocate_output(size_t i, graph::DType dtype, std::vector<int64_t> dims);
  // A temporary tensor (converted inputs, padded copies), freed when the last owner drops it.
  GpuTensor scratch(graph::DType dtype, std::vector<int64_t> dims) const;
  // Output i as a view of `source` with the inferred dims (reshapes).
  void alias_output(size_t i, const GpuTensor& source);
  // Integer values of a constant input (shape inference's values): axes, pads, shapes.
  std::vector<int64_t> constant_ints(size_t i) const;
  // The same where the input is known before the run; else its int64/int32 values read back from the device (a
  // synchronization, refused in one line while a CUDA graph is being captured: such a run cannot be replayed).
  std::vector<int64_t> host_ints(size_t i) const;
  // The values of input i of any numeric type as doubles, a constant's or read back as host_ints does (an integer
  // input's exact to 2^53; OneHot's depth, which ONNX lets be a float).
  std::vector<double> host_reals(size_t i) const;
  // One int64 the run computed on the device (a data-dependent output's size) read back: a synchronization, refused
  // in one line naming `what` while a CUDA graph is being captured.
  int64_t read_back(const GpuTensor& count, std::string_view what) const;
  // Fails in one line (`why`, then that a CUDA graph cannot read it back) while a CUDA graph is being captured.
  void require_eager(const std::string& why) const;
  // Copies `bytes` from the device and waits for them (and for everything enqueued before).
  void copy_to_host(void* host, const void* device, size_t bytes) const;
  // A uint64 on the device, zeroed when first made and kept in `slot` (the node's state): a count of runs that kernels
  // advance on the device, so CUDA-graph replays see it move (random draws).
  uint64_t* run_counter(std::shared_ptr<void>& slot) const;
  bool input_is_constant(size_t i) const;
  // A constant input whose converted copy may be kept across runs (not a weight a training step updates).
  bool input_is_unchanging(size_t i) const { return input_is_constant(i) && !weights_change; }
  // An fp32 input, or a named failure.
  const GpuTensor& float_input(size_t i) const;
  // An activation: fp32, or of the kernel's 16-bit storage type (the inputs its row's `storage` names); else a named
  // failure.
  const GpuTensor& activation(size_t i) const;
  // Checks the last launch.
  void check_launch(std::string_view what) const;
  [[noreturn]] void fail(const std::string& what) const;

  template <class State>
  State& cached() {
    if (!state) state = std::make_unique<State>();
    return static_cast<State&>(*state);
  }
  // What `make` returns (a kernel's plan, worked out on the host), its ridge::Error the node's one-line failure.
  template <class Make>
  auto planned(Make make) const {
    try {
      return make();
    } catch (const Error& e) {
      fail(e.what());
    }
  }
};

using Kernel = void (*)(KernelContext&);

// The inputs, a bit each, that a kernel reads in the run's 16-bit storage type when the run keeps activations in 16
// bits (storage_plan.h); such a kernel writes its outputs the graph declares fp32 in that type too.
using StorageInputs = uint32_t;
constexpr StorageInputs kNoStorage = 0;
constexpr StorageInputs kAllStorage = ~StorageInputs{0};
constexpr StorageInputs storage_input(int i) { return StorageInputs{1} << i; }

// `channels_last`: the inputs, a bit each, a kernel reads channels-last (NHWC) in a --memory-format channels-last run
// where they are 4-D; such a kernel writes its 4-D outputs channels-last too (storage_plan.h).
struct KernelRow {
  std::string_view op_type;
  Kernel kernel;
  StorageInputs storage = kNoStorage;
  StorageInputs channels_last = kNoStorage;
  std::string_view family = {};
};

using KernelRegistry = Registry<KernelRow>;

// Layouts for broadcasting: `dims` read over `out_dims` (right-aligned, numpy rules), strides of a
// dense tensor with 0 where a dim is broadcast.
Layout broadcast_layout(const std::vector<int64_t>& dims, const std::vector<int64_t>& out_dims);
Layout dense_layout(const std::vector<int64_t>& dims);
// `t` read over `out_dims` in logical (N, C, H, W) order: broadcast strides, channels-last strides where `t` is held
// NHWC (then its dims are out_dims').
Layout logical_layout(const GpuTensor& t, const std::vector<int64_t>& out_dims);
// A rank-4 layout with its dims in NHWC order (0, 2, 3, 1): the order a channels-last output is dense in.
Layout nhwc_order(const Layout& l);
// pad_constant of `x` into `out` (dims `out_dims`, x's type) at `begin` per dim, in NHWC's memory order where
// `channels_last` (4-D; a side whose order does not differ from NCHW is the same bytes either way).
void pad_held(const GpuTensor& x, const std::vector<int64_t>& begin, void* out, const std::vector<int64_t>& out_dims,
              float value, bool channels_last, cudaStream_t stream);
// The kernels' element type of a dtype; false for a type they do not convert.
bool element_type(graph::DType dtype, ElementType& type);
// The same for a float type (fp32, fp16, bf16); fp32 for any other (an integer type too: only for values known to be
// float, such as a kernel's own output; element_type where the type is the model's).
ElementType element_type_of(graph::DType dtype);
// Converts `n` elements; false (nothing launched) for a pair the kernels do not convert.
bool cast(graph::DType from, const void* in, graph::DType to, void* out, int64_t n, cudaStream_t stream);

}  // namespace ridge::exec::cuda

namespace ridge {
template <>
const exec::cuda::KernelRegistry& exec::cuda::KernelRegistry::instance();  // interpreter.cpp: the families
}  // namespace ridge

namespace ridge::exec::cuda {

void register_conv_kernels(KernelRegistry& registry);
void register_matmul_kernels(KernelRegistry& registry);
void register_elementwise_kernels(KernelRegistry& registry);
void register_normalization_kernels(KernelRegistry& registry);
void register_pooling_kernels(KernelRegistry& registry);
void register_manipulation_kernels(KernelRegistry& registry);
void register_resize_kernels(KernelRegistry& registry);
void register_recurrent_kernels(KernelRegistry& registry);
void register_reduce_kernels(KernelRegistry& registry);
void register_indexing_kernels(KernelRegistry& registry);
void register_attention_kernels(KernelRegistry& registry);
void register_quantization_kernels(KernelRegistry& registry);
void register_generator_kernels(KernelRegistry& registry);
void register_loss_kernels(KernelRegistry& registry);
void register_detection_kernels(KernelRegistry& registry);

}  // namespace ridge::exec::cuda
