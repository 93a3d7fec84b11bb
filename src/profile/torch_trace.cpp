#include "profile/torch_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include "util/error.h"
#include "util/file.h"

namespace ridge::profile {
namespace {

using json = nlohmann::json;

constexpr double kUs = 1e-6;  // Chrome-trace ts and dur are microseconds
constexpr std::string_view kModulePrefix = "nn.Module: ";
constexpr std::string_view kStepPrefix = "ProfilerStep#";

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::string id_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer() || v.is_number_unsigned()) return std::to_string(v.get<int64_t>());
  if (v.is_number()) return fmt::format("{}", v.get<double>());
  return "";
}

int64_t int_arg(const json& args, const char* key) {
  if (!args.is_object()) return -1;
  auto it = args.find(key);
  if (it == args.end()) return -1;
  if (it->is_number_integer() || it->is_number_unsigned()) return it->get<int64_t>();
  if (it->is_number_float()) {  // whole numbers in int64's range only: a cast beyond it is undefined
    double v = it->get<double>();
    return v >= 0 && v < 9.2e18 ? static_cast<int64_t>(v) : -1;
  }
  return -1;
}

enum class EventKind { kSkip, kStep, kOp, kAnnotation, kRuntime, kGpu };

// What an event is, from its category (Kineto) or, in legacy traces without one, its name.
EventKind classify(const std::string& category, const std::string& name) {
  if (starts_with(name, kStepPrefix)) return EventKind::kStep;
  auto cat = lower(category);
  if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset" || cat == "memcpy" || cat == "memset")
    return EventKind::kGpu;
  if (cat == "cpu_op" || cat == "operator") return EventKind::kOp;
  if (cat == "user_annotation") return EventKind::kAnnotation;
  if (cat == "cuda_runtime" || cat == "cuda_driver" || cat == "runtime") return EventKind::kRuntime;
  if (cat == "python_function") return starts_with(name, kModulePrefix) ? EventKind::kAnnotation : EventKind::kSkip;
  if (!cat.empty()) return EventKind::kSkip;  // gpu_user_annotation, overhead, Trace, flows, ...
  // Legacy (torch.autograd.profiler) traces: operators are namespaced, record_function ranges are not.
  return name.find("::") != std::string::npos ? EventKind::kOp : EventKind::kAnnotation;
}

double time_field(const json& event, const char* key, const std::string& source, size_t index) {
  auto it = event.find(key);
  if (it == event.end() || !it->is_number())
    throw Error(fmt::format("torch trace '{}': event {} has no numeric '{}'", source, index, key));
  double v = it->get<double>();
  if (!std::isfinite(v) || (std::string_view(key) == "dur" && v < 0))
    throw Error(fmt::format("torch trace '{}': event {} has a bad '{}' ({})", source, index, key, v));
  return v;
}

// Ranges of one thread nest by time: each gets its innermost enclosing range as parent.
void nest(std::vector<TorchOp>& ops, std::vector<size_t> order) {
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (ops[a].start_s != ops[b].start_s) return ops[a].start_s < ops[b].start_s;
    return ops[a].duration_s > ops[b].duration_s;
  });
  std::vector<size_t> stack;
  std::vector<double> children_s(ops.size(), 0);
  for (size_t i : order) {
    auto& op = ops[i];
    while (!stack.empty()) {
      const auto& top = ops[stack.back()];
      double end = top.start_s + top.duration_s;
      if (end < op.start_s || (end == op.start_s && top.duration_s > 0))
        stack.pop_back();
      else
        break;
    }
    if (!stack.empty()) {
      const auto& top = ops[stack.back()];
      op.parent = static_cast<int>(stack.back());
      // Exporters round ts and dur each to whole microseconds, so a child can overrun its parent by
      // one: it is cut at the parent's end, or its time would be counted twice.
      op.duration_s = std::min(op.duration_s, top.start_s + top.duration_s - op.start_s);
      children_s[stack.back()] += op.duration_s;
    }
    stack.push_back(i);
  }
  for (size_t i : order) ops[i].self_s = std::max(0.0, ops[i].duration_s - children_s[i]);
}

}  // namespace

TorchTrace parse_torch_trace(std::string_view text, const std::string& source) {
  json doc;
  try {
    doc = json::parse(text.begin(), text.end());
  } catch (const json::exception&) {
    throw Error(fmt::format("torch trace '{}': not JSON (truncated or damaged file?)", source));
  }
  TorchTrace trace;
  trace.source = source;
  const json* events = nullptr;
  if (doc.is_array()) {
    events = &doc;
    trace.layout = "legacy";
  } else if (doc.is_object() && doc.contains("traceEvents") && doc["traceEvents"].is_array()) {
    events = &doc["traceEvents"];
    trace.layout = "kineto";
  } else {
    throw Error(fmt::format("torch trace '{}': not a Chrome trace (no traceEvents array)", source));
  }

  std::map<std::string, std::vector<size_t>> threads;
  for (size_t index = 0; index < events->size(); ++index) {
    const auto& e = (*events)[index];
    if (!e.is_object()) throw Error(fmt::format("torch trace '{}': event {} is not an object", source, index));
    auto ph = e.find("ph");
    auto name_it = e.find("name");
    if (ph == e.end() || !ph->is_string() || ph->get<std::string>() != "X" || name_it == e.end() ||
        !name_it->is_string()) {
      ++trace.skipped_events;  // metadata (M), flows (s/f), instants (i), counters (C)
      continue;
    }
    std::string name = name_it->get<std::string>();
    std::string category;
    if (auto cat = e.find("cat"); cat != e.end() && cat->is_string()) category = cat->get<std::string>();
    auto kind = classify(category, name);
    if (kind == EventKind::kSkip) {
      ++trace.skipped_events;
      continue;
    }
    double start_s = time_field(e, "ts", source, index) * kUs;
    double duration_s = time_field(e, "dur", source, index) * kUs;
    static const json kNoArgs = json::object();
    const json& args = e.contains("args") ? e["args"] : kNoArgs;
    if (kind == EventKind::kStep) {
      TorchStep step{.name = name, .start_s = start_s, .duration_s = duration_s};
      try {
        step.number = std::stoll(name.substr(kStepPrefix.size()));
      } catch (const std::exception&) {
        throw Error(fmt::format("torch trace '{}': event {} '{}' has no step number", source, index, name));
      }
      trace.steps.push_back(std::move(step));
      continue;
    }
    if (kind == EventKind::kGpu) {
      TorchKernel k{.name = name, .category = lower(category), .start_s = start_s, .duration_s = duration_s};
      if (k.category == "memcpy" || k.category == "memset") k.category = "gpu_" + k.category;
      int64_t device = int_arg(args, "device");
      k.device = device >= 0 ? fmt::format("cuda:{}", device) : "cuda";
      k.stream = int_arg(args, "stream");
      k.correlation = int_arg(args, "correlation");
      k.external_id = int_arg(args, "External id");
      trace.kernels.push_back(std::move(k));
      continue;
    }
    TorchOp op{.name = name, .category = category, .start_s = start_s, .duration_s = duration_s};
    op.kind = kind == EventKind::kAnnotation ? TorchOp::Kind::kAnnotation
              : kind == EventKind::kRuntime  ? TorchOp::Kind::kRuntime
                                             : TorchOp::Kind::kOp;
    op.thread = id_text(e.value("pid", json())) + "/" + id_text(e.value("tid", json()));
    op.external_id = int_arg(args, "External id");
    op.correlation = int_arg(args, "correlation");
    if (args.is_object())
      if (auto dims = args.find("Input Dims"); dims != args.end()) op.input_dims = dims->dump();
    threads[op.thread].push_back(trace.ops.size());
    trace.ops.push_back(std::move(op));
  }
  if (trace.ops.empty() && trace.kernels.empty())
    throw Error(fmt::format("torch trace '{}': no op or kernel events (not a torch.profiler export?)", source));

  for (auto& [thread, order] : threads) nest(trace.ops, order);
  std::stable_sort(trace.steps.begin(), trace.steps.end(),
                   [](const TorchStep& a, const TorchStep& b) { return a.start_s < b.start_s; });
  auto step_at = [&](double t) {
    for (size_t s = 0; s < trace.steps.size(); ++s)
      if (t >= trace.steps[s].start_s && t < trace.steps[s].start_s + trace.steps[s].duration_s)
        return static_cast<int>(s);
    return -1;
  };
  for (auto& op : trace.ops) op.step = step_at(op.start_s);

  // Kernels: correlation -> the runtime call that launched it -> the op around that call; else the
  // op with the kernel's External id.
  std::unordered_map<int64_t, int> by_correlation, by_external;
  for (size_t i = 0; i < trace.ops.size(); ++i) {
    const auto& op = trace.ops[i];
    if (op.kind == TorchOp::Kind::kRuntime) {
      if (op.correlation >= 0) by_correlation.emplace(op.correlation, static_cast<int>(i));
    } else if (op.external_id >= 0) {
      by_external.emplace(op.external_id, static_cast<int>(i));
    }
  }
  for (auto& k : trace.kernels) {
    if (auto it = by_correlation.find(k.correlation); k.correlation >= 0 && it != by_correlation.end())
      k.op = trace.ops[static_cast<size_t>(it->second)].parent;
    if (k.op < 0)
      if (auto it = by_external.find(k.external_id); k.external_id >= 0 && it != by_external.end()) k.op = it->second;
    k.step = k.op >= 0 ? trace.ops[static_cast<size_t>(k.op)].step : step_at(k.start_s);
  }
  find_passes(trace, nullptr);
  return trace;
}

TorchTrace read_torch_trace(const std::string& path) { return parse_torch_trace(read_file(path), path); }

std::string passes_from_name(TorchPasses::From from) {
  switch (from) {
    case TorchPasses::From::kSteps:
      return "steps";
    case TorchPasses::From::kOpSequence:
      return "op_sequence";
    case TorchPasses::From::kModel:
      return "model";
    case TorchPasses::From::kNone:
      break;
  }
  return "none";
}

namespace {

// Whether `seq` is `copies` copies of its first seq.size() / copies entries.
bool repeats(const std::vector<std::string>& seq, size_t copies) {
  if (copies < 1 || seq.size() % copies != 0) return false;
  size_t period = seq.size() / copies;
  for (size_t i = period; i < seq.size(); ++i)
    if (seq[i] != seq[i - period]) return false;
  return true;
}

}  // namespace

void find_passes(TorchTrace& trace, const ModelFit* fit) {
  auto& ops = trace.ops;
  TorchPasses passes;
  for (auto& op : ops) op.pass = -1;
  for (auto& k : trace.kernels) k.pass = -1;
  if (!trace.steps.empty()) {
    passes.count = static_cast<int64_t>(trace.steps.size());
    passes.from = TorchPasses::From::kSteps;
    passes.windows = trace.steps;
    for (auto& op : ops) op.pass = op.step;
    for (auto& k : trace.kernels) k.pass = k.step;
    trace.passes = std::move(passes);
    return;
  }
  // The top-level ops of the thread that runs most of them: other threads (data loading, the
  // autograd engine) interleave with it differently in each pass. Runtime calls are left out: a
  // torch.cuda.synchronize() between passes is not part of the model.
  std::map<std::string, int64_t> per_thread;
  for (const auto& op : ops)
    if (op.parent < 0 && op.kind != TorchOp::Kind::kRuntime) ++per_thread[op.thread];
  std::string main_thread;
  int64_t most = 0;
  for (const auto& [thread, n] : per_thread)
    if (n > most) std::tie(main_thread, most) = std::tie(thread, n);
  std::vector<size_t> top;
  for (size_t i = 0; i < ops.size(); ++i)
    if (ops[i].parent < 0 && ops[i].kind != TorchOp::Kind::kRuntime && ops[i].thread == main_thread) top.push_back(i);
  std::stable_sort(top.begin(), top.end(), [&](size_t a, size_t b) { return ops[a].start_s < ops[b].start_s; });
  // Input shapes tell apart layers of one type that a name alone would make look like passes.
  std::vector<std::string> seq;
  for (size_t i : top) seq.push_back(ops[i].name + '\x1f' + ops[i].input_dims);
  for (size_t copies = seq.size(); copies >= 2; --copies)
    if (repeats(seq, copies)) {
      passes.sequence_repeats = static_cast<int64_t>(copies);
      break;
    }
  passes.count = passes.sequence_repeats;
  if (passes.count > 1) passes.from = TorchPasses::From::kOpSequence;
  if (fit && fit->fits() && (fit->passes != passes.count || passes.count == 1)) {
    passes.count = fit->passes;
    passes.from = TorchPasses::From::kModel;
  }
  if (passes.count > 1 && repeats(seq, static_cast<size_t>(passes.count))) {
    double end_s = 0;
    for (const auto& op : ops) end_s = std::max(end_s, op.start_s + op.duration_s);
    size_t period = seq.size() / static_cast<size_t>(passes.count);
    for (int64_t p = 0; p < passes.count; ++p) {
      double start_s = ops[top[static_cast<size_t>(p) * period]].start_s;
      double next_s = p + 1 < passes.count ? ops[top[static_cast<size_t>(p + 1) * period]].start_s : end_s;
      passes.windows.push_back(
          {.name = fmt::format("pass {}", p + 1), .number = p + 1, .start_s = start_s, .duration_s = next_s - start_s});
    }
    auto pass_at = [&](double t) {
      for (size_t w = 0; w < passes.windows.size(); ++w) {
        const auto& window = passes.windows[w];
        // The last window holds the trace's last range, which ends exactly at its end.
        bool last = w + 1 == passes.windows.size();
        if (t >= window.start_s && (t < window.start_s + window.duration_s || (last && t <= end_s)))
          return static_cast<int>(w);
      }
      return -1;
    };
    for (auto& op : ops) op.pass = pass_at(op.start_s);
    for (auto& k : trace.kernels) k.pass = k.op >= 0 ? ops[static_cast<size_t>(k.op)].pass : pass_at(k.start_s);
  }
  trace.passes = std::move(passes);
}

FamilyCounts trace_family_counts(const TorchTrace& trace) {
  FamilyCounts counts;
  const auto& ops = trace.ops;
  for (const auto& op : ops) {
    if (op.kind != TorchOp::Kind::kOp || (!trace.steps.empty() && op.step < 0)) continue;
    auto family = aten_family(op.name);
    if (family.family.empty()) continue;
    // Only the outermost operator counts: aten::linear, not the aten::addmm inside it, nor an
    // aten::add_ the autograd engine runs inside AccumulateGrad.
    bool under_op = false;
    for (int p = op.parent; p >= 0 && !under_op; p = ops[static_cast<size_t>(p)].parent)
      under_op = ops[static_cast<size_t>(p)].kind == TorchOp::Kind::kOp;
    if (!under_op) counts[family.family] += family.nodes;
  }
  return counts;
}

std::string module_path_of_node(const std::string& node_name) {
  auto last = node_name.rfind('/');
  if (node_name.empty() || node_name[0] != '/' || last == 0 || last == std::string::npos) return "";
  std::string path;
  std::stringstream scope(node_name.substr(1, last - 1));
  std::string part;
  while (std::getline(scope, part, '/')) {
    if (part.empty()) continue;
    // torch names a scope by the full path of nested containers ("layer1.0" under "layer1").
    if (!path.empty() && starts_with(part, path + "."))
      path = part;
    else
      path = path.empty() ? part : path + "." + part;
  }
  return path;
}

namespace {

// The ONNX op types an ATen operator is exported as, most likely first.
const std::vector<std::string>* onnx_types_of(const std::string& op_name) {
  static const std::map<std::string, std::vector<std::string>> kTypes{
      {"aten::conv1d", {"Conv"}},
      {"aten::conv2d", {"Conv"}},
      {"aten::conv3d", {"Conv"}},
      {"aten::convolution", {"Conv", "ConvTranspose"}},
      {"aten::_convolution", {"Conv", "ConvTranspose"}},
      {"aten::conv_transpose1d", {"ConvTranspose"}},
      {"aten::conv_transpose2d", {"ConvTranspose"}},
      {"aten::conv_transpose3d", {"ConvTranspose"}},
      {"aten::linear", {"Gemm", "MatMul"}},
      {"aten::addmm", {"Gemm", "MatMul"}},
      {"aten::matmul", {"MatMul", "Gemm"}},
      {"aten::mm", {"MatMul", "Gemm"}},
      {"aten::bmm", {"MatMul"}},
      {"aten::relu", {"Relu"}},
      {"aten::relu_", {"Relu"}},
      {"aten::sigmoid", {"Sigmoid"}},
      {"aten::tanh", {"Tanh"}},
      {"aten::gelu", {"Gelu", "Erf"}},
      {"aten::hardswish", {"HardSwish"}},
      {"aten::hardswish_", {"HardSwish"}},
      {"aten::max_pool1d", {"MaxPool"}},
      {"aten::max_pool2d", {"MaxPool"}},
      {"aten::max_pool3d", {"MaxPool"}},
      {"aten::avg_pool2d", {"AveragePool"}},
      {"aten::adaptive_avg_pool2d", {"GlobalAveragePool", "AveragePool"}},
      {"aten::batch_norm", {"BatchNormalization"}},
      {"aten::layer_norm", {"LayerNormalization"}},
      {"aten::softmax", {"Softmax"}},
      {"aten::_softmax", {"Softmax"}},
      {"aten::log_softmax", {"LogSoftmax"}},
      {"aten::add", {"Add"}},
      {"aten::add_", {"Add"}},
      {"aten::sub", {"Sub"}},
      {"aten::mul", {"Mul"}},
      {"aten::div", {"Div"}},
      {"aten::cat", {"Concat"}},
      {"aten::flatten", {"Flatten"}},
      {"aten::reshape", {"Reshape"}},
      {"aten::transpose", {"Transpose"}},
      {"aten::permute", {"Transpose"}},
      {"aten::mean", {"ReduceMean", "GlobalAveragePool"}},
  };
  auto it = kTypes.find(op_name);
  return it == kTypes.end() ? nullptr : &it->second;
}

std::string layer_name_of(const std::string& range_name) {
  return starts_with(range_name, kModulePrefix) ? range_name.substr(kModulePrefix.size()) : range_name;
}

}  // namespace

LayerMapping map_layers(TorchTrace& trace, const graph::Graph* graph) {
  LayerMapping mapping;
  auto& ops = trace.ops;
  // Parents start before children; visiting by start makes every parent's layer known first.
  std::vector<size_t> order(ops.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (ops[a].start_s != ops[b].start_s) return ops[a].start_s < ops[b].start_s;
    return ops[a].duration_s > ops[b].duration_s;
  });
  auto inherit = [&](size_t i) {
    if (ops[i].parent >= 0 && ops[i].layer.empty()) ops[i].layer = ops[static_cast<size_t>(ops[i].parent)].layer;
  };

  if (!graph) {
    for (size_t i : order) {
      if (ops[i].kind == TorchOp::Kind::kAnnotation) {
        ops[i].layer = layer_name_of(ops[i].name);
        ops[i].layer_root = true;
        ++mapping.by_annotation;
      }
      inherit(i);
    }
  } else {
    mapping.fit = fit_model(trace_family_counts(trace), model_family_counts(*graph));
    find_passes(trace, &*mapping.fit);
    std::map<std::string, int> node_index;
    std::map<std::string, std::vector<size_t>> by_path;  // module path -> nodes (in it or below)
    std::vector<std::string> node_path(graph->nodes.size());
    for (size_t n = 0; n < graph->nodes.size(); ++n) {
      node_index.emplace(graph->nodes[n].name, static_cast<int>(n));
      node_path[n] = module_path_of_node(graph->nodes[n].name);
    }
    auto nodes_under = [&](const std::string& path) {
      std::vector<size_t> found;
      for (size_t n = 0; n < node_path.size(); ++n)
        if (!path.empty() && (node_path[n] == path || starts_with(node_path[n], path + "."))) found.push_back(n);
      return found;
    };
    // Annotations: a node's name, a module path of one node (a layer), of several (a block), or nothing.
    std::vector<std::string> block(ops.size());  // innermost block around each op
    std::set<size_t> claimed;
    std::set<std::string> blocks;
    for (size_t i : order) {
      auto& op = ops[i];
      const TorchOp* parent = op.parent >= 0 ? &ops[static_cast<size_t>(op.parent)] : nullptr;
      if (parent) block[i] = block[static_cast<size_t>(op.parent)];
      if (op.kind == TorchOp::Kind::kAnnotation && (!parent || parent->layer.empty())) {
        auto name = layer_name_of(op.name);
        if (auto it = node_index.find(name); it != node_index.end()) {
          op.layer = name;
          op.layer_root = true;
          claimed.insert(static_cast<size_t>(it->second));
          ++mapping.by_node_name;
        } else if (auto under = nodes_under(name); under.size() == 1) {
          op.layer = graph->nodes[under[0]].name;
          op.layer_root = true;
          claimed.insert(under[0]);
          ++mapping.by_module_path;
        } else if (under.size() > 1) {
          block[i] = name;
          blocks.insert(name);
        } else if (std::find(mapping.ambiguous.begin(), mapping.ambiguous.end(), op.name) == mapping.ambiguous.end()) {
          mapping.ambiguous.push_back(op.name);
        }
      }
      inherit(i);
    }
    // The outermost mappable ops left, by (pass, block, ONNX type), against the unclaimed nodes of
    // that block, in graph order; none when the trace's op counts do not fit the model.
    std::map<std::tuple<int, std::string, std::string>, std::vector<size_t>> candidates;
    std::vector<bool> inside_candidate(ops.size(), false);
    for (size_t i : order) {
      auto& op = ops[i];
      bool covered = op.parent >= 0 && (inside_candidate[static_cast<size_t>(op.parent)] ||
                                        !ops[static_cast<size_t>(op.parent)].layer.empty());
      if (op.parent >= 0 && inside_candidate[static_cast<size_t>(op.parent)]) inside_candidate[i] = true;
      if (covered || !op.layer.empty() || op.kind != TorchOp::Kind::kOp ||
          mapping.fit->verdict == ModelFit::Verdict::kMismatch)
        continue;
      const auto* types = onnx_types_of(op.name);
      if (!types) continue;
      inside_candidate[i] = true;
      for (const auto& type : *types) {
        bool present = false;
        for (size_t n = 0; n < graph->nodes.size() && !present; ++n)
          present = graph->nodes[n].op_type == type && !claimed.count(n);
        if (present) {
          candidates[{op.pass, block[i], type}].push_back(i);
          break;
        }
      }
    }
    int64_t per_group = 1;
    if (mapping.fit->fits()) {
      auto windows = static_cast<int64_t>(trace.passes.windows.size());
      per_group = windows == 0                         ? mapping.fit->passes
                  : mapping.fit->passes % windows == 0 ? mapping.fit->passes / windows
                                                       : 1;
    }
    for (auto& [key, list] : candidates) {
      const auto& [step, scope, type] = key;
      std::vector<size_t> nodes;
      for (size_t n = 0; n < graph->nodes.size(); ++n) {
        if (graph->nodes[n].op_type != type || claimed.count(n)) continue;
        bool in_scope = scope.empty() ? std::none_of(blocks.begin(), blocks.end(),
                                                     [&](const std::string& b) {
                                                       return node_path[n] == b || starts_with(node_path[n], b + ".");
                                                     })
                                      : node_path[n] == scope || starts_with(node_path[n], scope + ".");
        if (in_scope) nodes.push_back(n);
      }
      // Equal counts; or, where the trace fits the model, as many copies as one group holds passes (all
      // k without pass windows): the i-th op is node i modulo their count. Else ambiguous: unmapped.
      bool multiple = per_group > 1 && list.size() == static_cast<size_t>(per_group) * nodes.size();
      if (nodes.size() != list.size() && !multiple) continue;
      for (size_t k = 0; k < list.size(); ++k) {
        ops[list[k]].layer = graph->nodes[nodes[k % nodes.size()]].name;
        ops[list[k]].layer_root = true;
        ++mapping.by_op_order;
      }
    }
    for (size_t i : order) inherit(i);
  }
  for (auto& k : trace.kernels)
    if (k.op >= 0) k.layer = ops[static_cast<size_t>(k.op)].layer;
  return mapping;
}

TorchSummary summarize(const TorchTrace& trace) {
  TorchSummary s;
  const auto& ops = trace.ops;
  s.has_gpu = !trace.kernels.empty();
  const auto& passes = trace.passes;
  s.passes = std::max<int64_t>(1, passes.count);
  s.passes_from = passes.from;
  auto counted = [&](int pass) { return passes.windows.empty() || pass >= 0; };
  auto kind_name = [](TorchOp::Kind k) {
    return k == TorchOp::Kind::kAnnotation ? "annotation" : k == TorchOp::Kind::kRuntime ? "runtime" : "op";
  };

  // GPU time launched within each op's subtree.
  std::vector<double> cuda_s(ops.size(), 0);
  for (const auto& k : trace.kernels)
    for (int o = k.op; o >= 0; o = ops[static_cast<size_t>(o)].parent) cuda_s[static_cast<size_t>(o)] += k.duration_s;

  std::map<std::pair<std::string, std::string>, size_t> op_row;
  std::map<std::string, size_t> layer_row;
  std::map<std::pair<std::string, std::string>, size_t> unmapped_row;
  auto layer = [&](const std::string& name) -> TorchSummary::Layer& {
    auto [it, inserted] = layer_row.emplace(name, s.layers.size());
    if (inserted) s.layers.push_back({.layer = name, .gpu_s = s.has_gpu ? std::optional<double>(0) : std::nullopt});
    return s.layers[it->second];
  };
  auto unmapped = [&](const std::string& what, const std::string& name, double time_s) {
    auto [it, inserted] = unmapped_row.emplace(std::make_pair(what, name), s.unmapped.size());
    if (inserted) s.unmapped.push_back({.what = what, .name = name});
    s.unmapped[it->second].calls += 1;
    s.unmapped[it->second].time_s += time_s;
  };
  for (size_t i = 0; i < ops.size(); ++i) {
    const auto& op = ops[i];
    if (op.parent < 0) s.cpu_s += op.duration_s;
    auto [it, inserted] = op_row.emplace(std::make_pair(op.name, op.layer), s.ops.size());
    if (inserted) {
      s.ops.push_back({.name = op.name, .kind = kind_name(op.kind), .layer = op.layer});
      // A runtime call's kernels are its op's: the call itself shows none rather than a zero.
      if (s.has_gpu && op.kind != TorchOp::Kind::kRuntime) s.ops.back().cuda_s = 0;
    }
    auto& row = s.ops[it->second];
    row.calls += 1;
    row.self_s += op.self_s;
    bool nested_in_same = false;  // a recursive call's time is inside its outer call's already
    for (int p = op.parent; p >= 0 && !nested_in_same; p = ops[static_cast<size_t>(p)].parent)
      nested_in_same = ops[static_cast<size_t>(p)].name == op.name;
    if (!nested_in_same) {
      row.total_s += op.duration_s;
      if (row.cuda_s) *row.cuda_s += cuda_s[i];
    }
    if (!counted(op.pass)) {
      ++s.outside_passes;
      continue;
    }
    if (op.layer.empty()) {
      unmapped(kind_name(op.kind), op.name, op.self_s);
    } else {
      auto& l = layer(op.layer);
      l.ops += 1;
      l.cpu_s += op.self_s;
    }
  }
  std::map<std::tuple<std::string, std::string, std::string, std::string>, size_t> kernel_row;
  for (const auto& k : trace.kernels) {
    s.kernel_s += k.duration_s;
    std::string op_name = k.op >= 0 ? ops[static_cast<size_t>(k.op)].name : "";
    auto [it, inserted] = kernel_row.emplace(std::make_tuple(k.name, k.device, op_name, k.layer), s.kernels.size());
    if (inserted)
      s.kernels.push_back(
          {.name = k.name, .category = k.category, .device = k.device, .op = op_name, .layer = k.layer});
    s.kernels[it->second].calls += 1;
    s.kernels[it->second].total_s += k.duration_s;
    if (!counted(k.pass)) {
      ++s.outside_passes;
      continue;
    }
    if (k.layer.empty()) {
      unmapped("kernel", k.name, k.duration_s);
    } else {
      auto& l = layer(k.layer);
      l.kernels += 1;
      *l.gpu_s += k.duration_s;
    }
  }
  auto per_pass = static_cast<double>(s.passes);
  for (auto& l : s.layers) {
    l.cpu_s /= per_pass;
    if (l.gpu_s) *l.gpu_s /= per_pass;
  }
  for (size_t w = 0; w < passes.windows.size(); ++w) {
    const auto& window = passes.windows[w];
    TorchSummary::Step row{.name = window.name, .number = window.number, .duration_s = window.duration_s};
    for (const auto& op : ops)
      if (op.pass == static_cast<int>(w) && (op.parent < 0 || ops[static_cast<size_t>(op.parent)].pass != op.pass))
        row.cpu_op_s += op.duration_s;
    if (s.has_gpu) {
      row.kernel_s = 0;
      for (const auto& k : trace.kernels)
        if (k.pass == static_cast<int>(w)) *row.kernel_s += k.duration_s;
    }
    s.windows.push_back(row);
  }
  // Totals per pass: of what lies inside the windows, or of the whole trace without them.
  if (passes.windows.empty()) {
    s.cpu_per_pass_s = s.cpu_s / per_pass;
    if (s.has_gpu) s.kernel_per_pass_s = s.kernel_s / per_pass;
  } else {
    for (const auto& w : s.windows) s.cpu_per_pass_s += w.cpu_op_s / per_pass;
    if (s.has_gpu) {
      s.kernel_per_pass_s = 0;
      for (const auto& w : s.windows) *s.kernel_per_pass_s += *w.kernel_s / per_pass;
    }
  }
  std::stable_sort(s.ops.begin(), s.ops.end(), [](const auto& a, const auto& b) { return a.total_s > b.total_s; });
  std::stable_sort(s.kernels.begin(), s.kernels.end(),
                   [](const auto& a, const auto& b) { return a.total_s > b.total_s; });
  std::stable_sort(s.unmapped.begin(), s.unmapped.end(),
                   [](const auto& a, const auto& b) { return a.time_s > b.time_s; });
  return s;
}

}  // namespace ridge::profile
