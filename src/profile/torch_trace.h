#pragma once
// PyTorch profiler traces (`torch.profiler` / `torch.autograd.profiler` Chrome-trace JSON exports)
// read into ops (CPU ranges, nested), GPU kernels (linked to the op that launched them), passes of
// the model (profiler steps, or a repeated op sequence) and layers. Every time is measured in the
// trace; nothing is estimated.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"
#include "profile/model_fit.h"

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
  int pass = -1;      // index into TorchTrace::passes.windows of the pass it lies in, -1: none
  int64_t external_id = -1, correlation = -1;
  std::string input_dims;   // args "Input Dims" as JSON text (record_shapes=True), "" without
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
  int pass = -1;  // the same for passes
  std::string layer;
};

// One iteration marked by a "ProfilerStep#N" range.
struct TorchStep {
  std::string name;
  int64_t number = 0;
  double start_s = 0, duration_s = 0;
};

// How many passes (iterations) of the model a trace holds, and how that was found. Per-pass figures
// divide by `count`; with `windows`, only what lies inside them counts.
struct TorchPasses {
  enum class From {
    kNone,        // no steps, no repeated op sequence, no model fit: the whole trace is one pass
    kSteps,       // one pass per ProfilerStep range
    kOpSequence,  // the sequence of top-level ops (name and input shapes) is `count` copies of one pass
    kModel,       // the model's op counts (ModelFit::passes), where the op sequence gives no such count > 1
  };
  int64_t count = 1;
  From from = From::kNone;
  int64_t sequence_repeats = 1;    // copies of one sequence the top-level ops are (1: no repetition); 1 with steps
  std::vector<TorchStep> windows;  // the steps, or where each copy of the op sequence starts to where the
                                   // next does (the last: to the end of the last CPU range); empty: unknown
};

// "steps", "op_sequence", "model", "none".
std::string passes_from_name(TorchPasses::From from);

struct TorchTrace {
  std::string source;        // the file
  std::string layout;        // "kineto" (an object with traceEvents) or "legacy" (a bare event array)
  std::vector<TorchOp> ops;  // in start order within each thread
  std::vector<TorchKernel> kernels;
  std::vector<TorchStep> steps;
  TorchPasses passes;          // set by parse_torch_trace from the trace alone; map_layers refines it with a model
  int64_t skipped_events = 0;  // metadata, flows, instants, Python frames, GPU-side annotations
};

// Parses the text of a trace; `source` names it in errors. Throws ridge::Error with one line naming
// the source and the problem (not JSON, not a trace, no op or kernel events, a malformed event).
TorchTrace parse_torch_trace(std::string_view text, const std::string& source);
TorchTrace read_torch_trace(const std::string& path);

// Finds the trace's passes (trace.passes, and every op's and kernel's `pass`): its ProfilerSteps
// when it has them; else the number of times the sequence of top-level ops (on the thread that runs
// most of them; names and input shapes) repeats exactly; with a `fit` to a model, the model's op
// counts decide, since one pass of a model made of a repeated block looks like several.
void find_passes(TorchTrace& trace, const ModelFit* fit);

// The trace's ops per family of the model fit (profile/model_fit.h): the outermost operators (no
// operator around them; annotations may be), inside the steps when there are steps.
FamilyCounts trace_family_counts(const TorchTrace& trace);

// How layers were found (for notes): counts of ranges mapped each way.
struct LayerMapping {
  int by_annotation = 0;               // a range named like the layer (record_function, nn.Module)
  int by_node_name = 0;                // a range named exactly like a model node
  int by_module_path = 0;              // a range named by a module path that holds exactly one node
  int by_op_order = 0;                 // an op matched to a node by op type and order
  std::vector<std::string> ambiguous;  // ranges that name several nodes (a block) or none
  std::optional<ModelFit> fit;         // with a model: whether the trace's op counts fit it
};

// Sets every op's and kernel's layer. Without a graph, each annotation range is a layer and an op
// belongs to its innermost one. With the model's graph, layers are its nodes: a range named like a
// node, or by the module path of exactly one node ("layer1.0.conv1" for "/layer1/layer1.0/conv1/Conv"),
// maps to it; the remaining outermost ops map by op type and order to the nodes not yet claimed, in
// each pass and module block, where the counts agree (or are a whole multiple, where the trace fits
// the model). With a model, it also checks the trace's op counts against it (`fit`) and refines the
// trace's passes by them; a trace that does not fit gets nothing mapped by op order, since that would
// pair ops with the wrong nodes. Everything else stays unmapped.
LayerMapping map_layers(TorchTrace& trace, const graph::Graph* graph);

// The dotted module path of an exported ONNX node name: "/layer1/layer1.0/conv1/Conv" ->
// "layer1.0.conv1", "/fc/Gemm" -> "fc", "/Flatten" -> "".
std::string module_path_of_node(const std::string& node_name);

// The trace aggregated for reports. Per-pass figures divide by `passes` (trace.passes.count); with
// pass windows (steps, or copies of the op sequence) only what lies inside them counts.
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
    int64_t ops = 0, kernels = 0;  // events attributed to it, all passes
    double cpu_s = 0;              // per pass: self time of its CPU ranges
    std::optional<double> gpu_s;   // per pass: time of its kernels; none when the trace has no GPU
  };
  struct Step {  // a ProfilerStep, or a pass found from the op sequence
    std::string name;
    int64_t number = 0;
    double duration_s = 0, cpu_op_s = 0;  // cpu_op_s: outermost ranges inside it
    std::optional<double> kernel_s;
  };
  struct Unmapped {          // per (what, name)
    std::string what, name;  // what: "op", "annotation", "runtime", "kernel"
    int64_t calls = 0;
    double time_s = 0;  // self time of ranges, duration of kernels
  };
  int64_t passes = 1;
  TorchPasses::From passes_from = TorchPasses::From::kNone;
  bool has_gpu = false;
  double cpu_s = 0, kernel_s = 0;  // whole trace: top-level CPU ranges, all GPU activities
  double cpu_per_pass_s = 0;       // per pass: top-level CPU ranges inside the passes
  std::optional<double> kernel_per_pass_s;
  std::vector<Op> ops;
  std::vector<Kernel> kernels;
  std::vector<Layer> layers;  // in first-seen order
  std::vector<Step> windows;  // the passes' windows (ProfilerSteps when passes_from is kSteps)
  std::vector<Unmapped> unmapped;
  int64_t outside_passes = 0;  // ranges and kernels outside every pass window (left out of per-pass figures)
};
TorchSummary summarize(const TorchTrace& trace);

}  // namespace ridge::profile
