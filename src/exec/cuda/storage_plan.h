#pragma once
// Where a GPU run keeps its activations in 16 bits. In optimized mode with --precision fp16 or bf16 (inference; a
// training step keeps fp32 values and converts per layer, as autocast does), the values the graph declares fp32 stay
// in the precision's 16-bit type between the kernels that take it, as a PyTorch model made half() runs: each such
// kernel reads and writes 16 bits and computes in fp32 (its row's `storage`, op_kernel.h). A kernel without a 16-bit
// form reads fp32, so its 16-bit inputs are converted for it; fp32 values (the graph's inputs, weights, outputs of
// fp32 kernels) are converted for the kernels that take 16 bits, a constant once. The graph's outputs are returned in
// fp32. Eager and CUDA-graph modes keep fp32 activations and convert per layer (autocast's way).
// With --memory-format channels-last (inference, any mode), 4-D activations are held NHWC between the kernels that
// read them so (their rows' `channels_last`: convolutions, pooling, activations, arithmetic, concatenation), as a
// PyTorch model made channels_last runs; every other kernel is given NCHW, converted per run, and the graph's outputs
// are returned NCHW.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "exec/cuda/op_kernel.h"
#include "exec/options.h"
#include "graph/graph.h"

namespace ridge::exec::cuda {

// The 16-bit type a run keeps its activations in, or fp32 where it keeps them in fp32.
graph::DType activation_storage(const ExecOptions& options, bool training);

// The type a kernel reads its input i in: for a value the graph declares fp32, `storage` where the row takes input i
// in 16 bits and fp32 otherwise; for any other value, its declared type.
graph::DType input_type(const KernelRow& row, size_t i, graph::DType declared, graph::DType storage);

// Whether a kernel reads its input i, of `dims`, channels-last: in a channels-last run, where its row says so and the
// order differs from NCHW's (tensor.h: layout_differs).
bool reads_channels_last(const KernelRow& row, size_t i, const std::vector<int64_t>& dims, bool channels_last);

// A value converted at a node's input (its type, its layout or both): a constant (a weight, a folded value) once, at
// the first run; any other value on every run.
struct StorageConversion {
  size_t node = 0, input = 0;
  bool retype = false;  // to `to`
  graph::DType to = graph::DType::kFloat32;
  bool relayout = false, to_channels_last = false;  // NCHW -> NHWC, or back
  bool constant = false;
};

struct StoragePlan {
  graph::DType storage = graph::DType::kFloat32;
  bool channels_last = false;
  std::vector<graph::DType> value_types;  // per value: the type the run holds it in
  std::vector<bool> value_channels_last;  // per value: held NHWC
  std::vector<StorageConversion> conversions;
  int64_t output_conversions = 0;  // graph outputs converted back to fp32
  // The op types (with counts) whose kernels read fp32 and are given 16-bit inputs: what keeps the run from 16 bits
  // end to end.
  std::map<std::string, int> fp32_kernels;
  // The op types (with counts) given NCHW copies of channels-last values; the graph's outputs converted back.
  std::map<std::string, int> nchw_kernels;
  int64_t output_relayouts = 0;

  // Type conversions every run makes: activations converted at nodes' inputs, and the graph's outputs.
  int64_t per_run() const;
  // One line for the run's notes ("" where activations stay fp32).
  std::string summary() const;
  // Layout conversions every run makes, at nodes' inputs and of the graph's outputs.
  int64_t relayouts_per_run() const;
  // One line for the run's notes ("" where the run is NCHW).
  std::string layout_summary() const;
};

// The plan of a graph whose nodes run on `kernels` (null: folded or not run), in node order.
StoragePlan plan_storage(const graph::Graph& g, const std::vector<const KernelRow*>& kernels, graph::DType storage,
                         bool channels_last = false);

}  // namespace ridge::exec::cuda
