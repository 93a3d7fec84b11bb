#pragma once
// PyTorch profiler traces (`torch.profiler` / `torch.autograd.profiler` Chrome-trace JSON exports)
// read into ops (CPU ranges, nested), GPU kernels (linked to the op that launched them), profiler
// steps and layers. Every time is measured in the trace; nothing is estimated.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"

namespace ridge::profile {

// One CPU range of the trace: an operator ("aten::conv2d"), a user annotation (record_function,
// "nn.Module: ..."), or a runtime call (cudaLaunchKernel).
struct TorchOp {
  enum class Kind { kOp, kAnnotation, kRuntime };
  std::string name, category;  // category as the trace has it ("cpu_op", ...); "" in legacy traces
  Kind kind = Kind::kOp;
  std::string thread;  // "pid/tid": ranges nest only within one thread
  double start_s = 0, duration_s = 0;
  double self_s = 0;  // duration less the time of its direct children
  int parent = -1;    // enclosing range (op or annotation), -1: top level
  int step = -1;      // index into TorchTrace::steps of the ProfilerStep it lies in, -1: none
  int64_t external_id = -1, correlation = -1;
  std::string layer;        // the layer its time belongs to; empty: unmapped
  bool layer_root = false;  // this range names or was mapped to its layer (its descendants inherit it)
};

// One GPU activity: a kernel, a memcpy or a memset.
struct TorchKernel {
  std::string name, category;  // "kernel", "gpu_memcpy", "gpu_memset"
  std::string device;          // "cuda:0"
  int64_t stream = -1, correlation = -1, external_id = -1;
  double start_s = 0, duration_s = 0;
  int op = -1;    // the innermost op that launched it, -1: not linked
  int step = -1;  // the step of its op (else the step its start falls in)
  std::string layer;
};

// One iteration marked by a "ProfilerStep#N" range.
struct TorchStep {
  std::string name;
  int64_t number = 0;
  double start_s = 0, duration_s = 0;
};

struct TorchTrace {
  std::string source;        // the file
  std::string layout;        // "kineto" (an object with traceEvents) or "legacy" (a bare event array)
  std::vector<TorchOp> ops;  // in start order within each thread
  std::vector<TorchKernel> kernels;
  std::vector<TorchStep> steps;
  int64_t skipped_events = 0;  // metadata, flows, instants, Python frames, GPU-side annotations
};

// Parses the text of a trace; `source` names it in errors. Throws ridge::Error with one line naming
// the source and the problem (not JSON, not a trace, no op or kernel events, a malformed event).
TorchTrace parse_torch_trace(std::string_view text, const std::string& source);
TorchTrace read_torch_trace(const std::string& path);

// How layers were found (for notes): counts of ranges mapped each way.
struct LayerMapping {
  int by_annotation = 0;               // a range named like the layer (record_function, nn.Module)
  int by_node_name = 0;                // a range named exactly like a model node
  int by_module_path = 0;              // a range named by a module path that holds exactly one node
  int by_op_order = 0;                 // an op matched to a node by op type and order
  std::vector<std::string> ambiguous;  // ranges that name several nodes (a block) or none
};

// Sets every op's and kernel's layer. Without a graph, each annotation range is a layer and an op
// belongs to its innermost one. With the model's graph, layers are its nodes: a range named like a
// node, or by the module path of exactly one node ("layer1.0.conv1" for "/layer1/layer1.0/conv1/Conv"),
// maps to it; the remaining outermost ops map by op type and order to the nodes not yet claimed, in
// each step and module block, where the counts agree. Everything else stays unmapped.
LayerMapping map_layers(TorchTrace& trace, const graph::Graph* graph);

// The dotted module path of an exported ONNX node name: "/layer1/layer1.0/conv1/Conv" ->
// "layer1.0.conv1", "/fc/Gemm" -> "fc", "/Flatten" -> "".
std::string module_path_of_node(const std::string& node_name);

// The trace aggregated for reports. Per-iteration figures divide by `iterations`: the number of
// ProfilerStep ranges (only what lies inside them counts), else 1 (the whole trace).
struct TorchSummary {
  struct Op {                       // per (name, layer)
    std::string name, kind, layer;  // kind: "op", "annotation", "runtime"
    int64_t calls = 0;
    double self_s = 0, total_s = 0;  // total: nested calls of the same name counted once
    std::optional<double> cuda_s;    // kernels launched within these calls; none when the trace has no GPU
  };
  struct Kernel {  // per (name, device, op, layer)
    std::string name, category, device, op, layer;
    int64_t calls = 0;
    double total_s = 0;
  };
  struct Layer {
    std::string layer;
    int64_t ops = 0, kernels = 0;  // events attributed to it, all iterations
    double cpu_s = 0;              // per iteration: self time of its CPU ranges
    std::optional<double> gpu_s;   // per iteration: time of its kernels; none when the trace has no GPU
  };
  struct Step {
    std::string name;
    int64_t number = 0;
    double duration_s = 0, cpu_op_s = 0;  // cpu_op_s: top-level ranges inside it
    std::optional<double> kernel_s;
  };
  struct Unmapped {          // per (what, name)
    std::string what, name;  // what: "op", "annotation", "runtime", "kernel"
    int64_t calls = 0;
    double time_s = 0;  // self time of ranges, duration of kernels
  };
  int64_t iterations = 1;
  bool has_gpu = false;
  double cpu_s = 0, kernel_s = 0;  // whole trace: top-level CPU ranges, all GPU activities
  std::vector<Op> ops;
  std::vector<Kernel> kernels;
  std::vector<Layer> layers;  // in first-seen order
  std::vector<Step> steps;
  std::vector<Unmapped> unmapped;
  int64_t outside_steps = 0;  // ranges and kernels outside every step (left out of per-step figures)
};
TorchSummary summarize(const TorchTrace& trace);

}  // namespace ridge::profile
