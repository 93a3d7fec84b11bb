#include "calib/bench_evidence.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "analysis/run.h"
#include "calib/shape_prediction.h"
#include "calib/torch_timings.h"
#include "exec/bench_codec.h"
#include "exec/bench_csv.h"
#include "onnx/model_reader.h"
#include "util/csv.h"
#include "util/error.h"

namespace ridge::calib {
namespace {

namespace fs = std::filesystem;

// Notes: counted per path and reason, so a directory of many runs gives a few lines.
class Notes {
 public:
  // "WHERE: COUNT WHAT (first: EXAMPLE)", one line per (where, what).
  void add(const std::string& where, const std::string& what, int count = 1, const std::string& example = "") {
    if (count <= 0) return;
    auto it =
        std::find_if(items_.begin(), items_.end(), [&](const Item& i) { return i.where == where && i.what == what; });
    if (it == items_.end())
      items_.push_back({where, what, example, count});
    else
      it->count += count;
  }
  std::vector<std::string> lines() const {
    std::vector<std::string> out;
    for (const auto& i : items_)
      out.push_back(
          fmt::format("{}: {} {}{}", i.where, i.count, i.what, i.example.empty() ? "" : " (first: " + i.example + ")"));
    return out;
  }

 private:
  struct Item {
    std::string where, what, example;
    int count = 0;
  };
  std::vector<Item> items_;
};

// ---- the models, analysed once per (file, batch, input size) ----

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::optional<std::string> find_bench_model(const std::string& model, const std::vector<fs::path>& dirs) {
  std::error_code ec;
  if (fs::is_regular_file(model, ec)) return model;
  if (fs::path(model).is_absolute()) return std::nullopt;
  for (const auto& dir : dirs) {
    auto candidate = dir / model;
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
  }
  return std::nullopt;
}

shape::Bindings bindings_for(const graph::Model& model, int64_t batch, const std::string& input_size) {
  shape::Bindings b;
  b.batch = batch;
  const auto& g = model.graph;
  if (input_size.empty() || input_size == "scalar" || g.inputs.empty()) return b;
  if (all_digits(input_size)) {
    if (input_size.size() > 9) throw Error(fmt::format("input size {} is not a size", input_size));
    int64_t size = std::stoll(input_size);
    if (!shape::bind_input_size(model, b, size))
      throw Error(fmt::format("input size {}: no input is an image or a sequence", input_size));
    return b;
  }
  auto dims = graph::parse_dims(input_size);
  const auto& first = g.value(g.inputs.front());
  b.inputs[first.name] = dims;
  // A symbol the first input shares with others (a sequence length) had the same size in the run.
  if (first.has_shape && first.shape.size() == dims.size())
    for (size_t i = 0; i < dims.size(); ++i) {
      const auto& symbol = first.shape[i].symbol;
      if (first.shape[i].is_known() || symbol.empty()) continue;
      for (size_t k = 1; k < g.inputs.size(); ++k)
        for (const auto& d : g.value(g.inputs[k]).shape)
          if (d.symbol == symbol) b.dims[symbol] = dims[i];
    }
  return b;
}

namespace {

class Analyses {
 public:
  struct Entry {
    std::optional<analysis::Result> result;
    std::string error;  // why the model could not be analysed at this point
    std::unordered_map<std::string, int> index;
    std::optional<FusionPlan> eager, optimized, gpu;

    const FusionPlan& plan(const std::string& executor, const std::string& mode) {
      auto& slot = executor == "cuda" || executor == "pytorch" ? gpu : mode == "optimized" ? optimized : eager;
      if (!slot) slot = plan_for(executor, mode, result->model.graph, result->cost, result->model.directory);
      return *slot;
    }
  };

  explicit Analyses(std::map<std::string, int64_t> dims) : dims_(std::move(dims)) {}

  Entry& get(const std::string& file, int64_t batch, const std::string& input_size) {
    auto key = std::make_tuple(file, batch, input_size);
    auto it = entries_.find(key);
    if (it != entries_.end()) return it->second;
    Entry& e = entries_[key];
    try {
      const auto& pristine = load(file);
      analysis::Request request;
      request.model_path = file;
      request.bindings = bindings_for(pristine, batch, input_size);
      // A run that recorded no input size (PyTorch's timings): the caller's named dims, those the model has.
      if (input_size.empty())
        for (const auto& [name, value] : dims_)
          for (const auto& in : pristine.graph.inputs)
            for (const auto& d : pristine.graph.value(in).shape)
              if (d.symbol == name) request.bindings.dims[name] = value;
      e.result = analysis::rerun(pristine, request);
      const auto& nodes = e.result->model.graph.nodes;
      for (size_t n = 0; n < nodes.size(); ++n) e.index.emplace(nodes[n].name, static_cast<int>(n));
    } catch (const Error& err) {
      e.result.reset();
      e.error = err.what();
    }
    return e;
  }

 private:
  const graph::Model& load(const std::string& file) {
    auto it = models_.find(file);
    if (it == models_.end()) it = models_.emplace(file, onnx::load_model(file)).first;
    return it->second;
  }
  std::map<std::string, int64_t> dims_;
  std::map<std::string, graph::Model> models_;
  std::map<std::tuple<std::string, int64_t, std::string>, Entry> entries_;
};

// Whether a run measured the GPU executor: its device names a GPU, or (a CSV row) it ran with no CPU threads.
bool gpu_run(const exec::BenchResult& r) { return exec::on_gpu(r.environment) || r.environment.threads <= 0; }

// Why a run cannot serve as evidence for fp32 inference with the executor's own choices; empty if it can.
std::string skip_reason(const exec::BenchResult& r, bool whole_runs) {
  bool gpu = gpu_run(r);
  if (r.training) return "training run(s) skipped (the calibration covers inference)";
  if (r.precision != "fp32") return fmt::format("{} run(s) skipped (the calibration covers fp32)", r.precision);
  // The default choice: auto on the CPU, cuDNN's heuristic (its "auto") on the GPU.
  if (r.conv_algo != "auto" && r.conv_algo != "heuristic" && !r.conv_algo.empty())
    return fmt::format("run(s) with --conv-algo {} skipped (predictions assume the default choice)", r.conv_algo);
  if (r.memory_format != "nchw" && !r.memory_format.empty())
    return fmt::format("{} run(s) skipped (predictions assume nchw)", r.memory_format);
  if (gpu ? r.mode != "eager" && r.mode != "cuda-graph" : r.mode != "eager" && r.mode != "optimized")
    return fmt::format("{} run(s) of mode '{}' skipped (not a mode the calibration fits)", gpu ? "GPU" : "CPU", r.mode);
  if (r.nodes.empty() && !whole_runs) return "run(s) without a per-node profile skipped (--no-per-node)";
  return "";
}

// The environment a sample records: what measured it, as the run says.
std::map<std::string, std::string> environment_of(const exec::BenchResult& r) {
  std::map<std::string, std::string> environment;
  const std::pair<const char*, const std::string*> kept[] = {{"cpu", &r.environment.cpu_model},
                                                             {"torch", &r.environment.torch_version},
                                                             {"ridge_revision", &r.environment.ridge_revision},
                                                             {"timestamp", &r.timestamp}};
  for (auto [name, text] : kept)
    if (!text->empty()) environment[name] = *text;
  if (gpu_run(r) && !r.environment.device.empty()) environment["device"] = r.environment.device;
  environment["batch"] = std::to_string(r.batch);
  environment["threads"] = std::to_string(r.environment.threads);
  if (!r.input_size.empty()) environment["input_size"] = r.input_size;
  return environment;
}

// Counts a run used and checks that every run is of one executor: a calibration fits one device.
void count_run(const exec::LoadedRun& loaded, const std::string& executor, BenchEvidence& out) {
  const auto& r = loaded.run;
  ++out.runs;
  if (std::find(out.models.begin(), out.models.end(), r.model) == out.models.end()) out.models.push_back(r.model);
  if (!out.executor.empty() && out.executor != executor)
    throw Error(fmt::format(
        "--measured mixes runs of {} and of {} ({} is of {}): a calibration predicts one executor on one device, so "
        "calibrate each with its own runs",
        executor_name(out.executor), executor_name(executor), loaded.path, executor_name(executor)));
  out.executor = executor;
  if (executor != "cpu" && out.gpu.empty()) out.gpu = r.environment.device;
  if (executor == "pytorch" && out.framework.empty())
    out.framework = r.environment.torch_version.empty() ? "PyTorch" : "PyTorch " + r.environment.torch_version;
}

// A run timed whole (PyTorch's timings): every layer the GPU executor would run, untimed (measured 0), named with
// the run, whose time the GPU fit sets them against together.
void use_whole_run(const exec::LoadedRun& loaded, Analyses::Entry& entry, const FusionPlan& plan,
                   const std::string& run_id, const std::string& source,
                   const std::map<std::string, std::string>& environment, BenchEvidence& out, Notes& notes) {
  const auto& r = loaded.run;
  const auto& g = entry.result->model.graph;
  const auto& cost = entry.result->cost;
  int layers = 0, uncosted = 0;
  std::string first_uncosted;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    if (plan.leader[n] != static_cast<int>(n)) continue;
    auto status = cost.nodes[n].status;
    if (status == cost::NodeStatus::kUnknownOp || status == cost::NodeStatus::kUnresolved) {
      if (uncosted++ == 0) first_uncosted = "'" + g.nodes[n].name + "'";
      continue;
    }
    Sample s;
    s.features = layer_features(g, cost, plan, static_cast<int>(n), 0);
    s.mode = r.mode;
    s.measured_s = 0;  // the run is timed whole
    s.source = source;
    s.run = run_id;
    s.label = g.nodes[n].name;
    s.environment = environment;
    s.environment["framework"] =
        r.environment.torch_version.empty() ? "PyTorch" : "PyTorch " + r.environment.torch_version;
    out.samples.push_back(std::move(s));
    ++layers;
  }
  notes.add(loaded.path,
            fmt::format("layer(s) of {} have no cost (unknown op or shape), left out of its runs' fit", r.model),
            uncosted, first_uncosted);
  OverheadSample o;
  o.mode = r.mode;
  o.threads = 0;
  o.nodes = layers;
  o.node_sum_s = 0;
  o.run_s = r.latency_ms.median / 1e3;
  o.source = source;
  o.run = run_id;
  out.overheads.push_back(std::move(o));
  count_run(loaded, "pytorch", out);
}

void use_run(const exec::LoadedRun& loaded, Analyses& analyses, BenchEvidence& out, Notes& notes) {
  const auto& r = loaded.run;
  const auto& path = loaded.path;
  const bool torch = loaded.framework == "pytorch";
  if (auto why = skip_reason(r, torch); !why.empty()) {
    notes.add(path, why);
    return;
  }
  auto file = find_bench_model(r.model, loaded.model_dirs);
  // PyTorch's timings name a network ("resnet50"): its ONNX file as NAME.onnx or models/NAME.onnx.
  if (!file && torch) file = find_bench_model(r.model + ".onnx", loaded.model_dirs);
  if (!file && torch) file = find_bench_model("models/" + r.model + ".onnx", loaded.model_dirs);
  if (!file) {
    notes.add(path, fmt::format("run(s) skipped: model '{}' not found ({}, here or next to the results)", r.model,
                                torch ? "as given, as NAME.onnx or models/NAME.onnx" : "as given"));
    return;
  }
  auto& entry = analyses.get(*file, r.batch, r.input_size);
  if (!entry.result) {
    notes.add(path, fmt::format("run(s) of {} at batch {}{} skipped: {}", r.model, r.batch,
                                r.input_size.empty() ? "" : ", input " + r.input_size, entry.error));
    return;
  }
  const auto& g = entry.result->model.graph;
  const auto& cost = entry.result->cost;
  const auto& plan = entry.plan(gpu_run(r) ? "cuda" : "cpu", r.mode);
  auto environment = environment_of(r);
  std::string source = "bench:" + r.model;
  // Whole-run figures anchor the node times (node_time_anchor): a CPU run's nodes are scaled down alike where they
  // sum to more than its median; GPU node times are kept as measured.
  const bool gpu = gpu_run(r);
  double node_sum_s = 0;
  for (const auto& row : r.nodes) node_sum_s += exec::typical_ms(row) / 1e3;
  const double run_s = (r.latency_ms.median > 0 ? r.latency_ms.median : r.latency_ms.mean) / 1e3;
  const double anchor = node_time_anchor(node_sum_s, run_s, gpu);
  const auto run_id =
      fmt::format("{} batch {}{} {}", source, r.batch, r.input_size.empty() ? "" : " " + r.input_size, r.mode);
  if (torch) {
    use_whole_run(loaded, entry, plan, run_id, source, environment, out, notes);
    return;
  }
  std::string missing, uncosted, removed, idle, unfused;
  int n_missing = 0, n_uncosted = 0, n_removed = 0, n_idle = 0, n_unfused = 0;
  auto count = [](int& n, std::string& first, const std::string& name) {
    if (n++ == 0) first = "'" + name + "'";
  };
  for (const auto& row : r.nodes) {
    auto it = entry.index.find(row.name);
    if (it == entry.index.end()) {
      count(n_missing, missing, row.name);
      continue;
    }
    auto n = static_cast<size_t>(it->second);
    auto status = cost.nodes[n].status;
    if (status == cost::NodeStatus::kUnknownOp || status == cost::NodeStatus::kUnresolved) {
      count(n_uncosted, uncosted, row.name);
      continue;
    }
    if (plan.leader[n] == FusionPlan::kRemoved) {
      count(n_removed, removed, row.name);
      continue;
    }
    // The fit works on log(time): a node timed at zero has no logarithm.
    if (!(exec::typical_ms(row) > 0)) {
      count(n_idle, idle, row.name);
      continue;
    }
    // Timed on its own although the plan fuses it: the executor decided otherwise; its own features hold.
    if (plan.leader[n] != static_cast<int>(n)) count(n_unfused, unfused, row.name);
    Sample s;
    s.features = layer_features(g, cost, plan, static_cast<int>(n), std::max(0, r.environment.threads));
    s.mode = r.mode;
    s.measured_s = exec::typical_ms(row) / 1e3 * anchor;
    s.source = source;
    s.run = run_id;
    s.label = row.name;
    s.environment = environment;
    out.samples.push_back(std::move(s));
  }
  auto of = fmt::format("of {} ({})", r.model, r.mode);
  notes.add(path, fmt::format("node row(s) {} name no node of the model, not used", of), n_missing, missing);
  notes.add(path, fmt::format("node row(s) {} have no cost (unknown op or shape), not used", of), n_uncosted, uncosted);
  notes.add(path, fmt::format("node row(s) {} are removed by the fusion plan, not used", of), n_removed, removed);
  notes.add(path, fmt::format("node row(s) {} timed at 0 ms, not used", of), n_idle, idle);
  notes.add(path, fmt::format("node row(s) {} timed alone that the fusion plan fuses (used alone)", of), n_unfused,
            unfused);
  if (anchor < 1)
    notes.add(path,
              fmt::format("run(s) {} whose nodes sum to more than the run: node times scaled to the run's median", of),
              1, fmt::format("{:.0f}% at batch {}", 100 * anchor, r.batch));
  if (run_s > 0) {
    OverheadSample o;
    o.mode = r.mode;
    o.threads = std::max(0, r.environment.threads);
    o.nodes = static_cast<int>(r.nodes.size());
    o.node_sum_s = node_sum_s * anchor;
    o.run_s = run_s;
    o.source = source;
    o.run = run_id;
    out.overheads.push_back(std::move(o));
  } else {
    notes.add(path, "run(s) without a latency in overall.csv: no overhead sample");
  }
  count_run(loaded, gpu ? "cuda" : "cpu", out);
}

}  // namespace

bool excluded_model(const std::string& model, const std::string& exclude) {
  if (exclude.empty()) return false;
  // PyTorch's timings name a network without its file ("resnet50" for models/resnet50.onnx).
  auto bare = [](const std::string& m) {
    return fs::path(m).extension() == ".onnx" ? fs::path(m).stem() : fs::path(m);
  };
  return model == exclude || fs::path(model).filename() == fs::path(exclude).filename() ||
         bare(model).filename() == bare(exclude).filename();
}

std::vector<Sample> kernel_time_samples(const analysis::Result& analysis, const std::string& model, int64_t batch,
                                        const std::vector<std::pair<std::string, double>>& layer_seconds,
                                        const std::string& label, std::vector<std::string>& notes) {
  const auto& g = analysis.model.graph;
  auto plan = gpu_plan(g);
  std::map<std::string, int> index;
  for (size_t n = 0; n < g.nodes.size(); ++n) index.emplace(g.nodes[n].name, static_cast<int>(n));
  std::vector<Sample> out;
  int folded = 0;
  for (const auto& [name, seconds] : layer_seconds) {
    auto it = index.find(name);
    if (it == index.end() || !(seconds > 0)) continue;
    if (plan.leader[static_cast<size_t>(it->second)] != it->second) {
      ++folded;  // the executor folds it into another layer or runs nothing for it
      continue;
    }
    Sample s;
    s.features = layer_features(g, analysis.cost, plan, it->second, 0);
    s.mode = "device";
    s.measured_s = seconds;
    s.source = "bench:" + model;
    s.label = name;
    s.environment = {{"batch", std::to_string(batch)}, {"threads", "0"}};
    out.push_back(std::move(s));
  }
  if (folded > 0)
    notes.push_back(
        fmt::format("{}: {} layer(s) with kernels that the GPU executor's plan folds, not fitted", label, folded));
  return out;
}

BenchEvidence read_bench_evidence(const std::vector<std::string>& paths, const std::string& exclude_model,
                                  const std::map<std::string, int64_t>& dims) {
  BenchEvidence out;
  Notes notes;
  Analyses analyses(dims);
  std::vector<std::string> file_notes;
  for (const auto& path : paths) {
    auto runs = is_torch_timings(path) ? read_torch_timings(path, file_notes)
                                       : exec::read_bench_runs(path, "a `ridge bench --csv` directory");
    for (const auto& loaded : runs) {
      if (excluded_model(loaded.run.model, exclude_model)) {
        notes.add(path,
                  fmt::format("run(s) of {} left out (validation on a model the fit never saw)", loaded.run.model));
        continue;
      }
      use_run(loaded, analyses, out, notes);
    }
  }
  out.notes = notes.lines();
  out.notes.insert(out.notes.end(), file_notes.begin(), file_notes.end());
  return out;
}

}  // namespace ridge::calib
