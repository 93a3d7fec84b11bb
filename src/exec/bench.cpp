#include "exec/bench.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "analysis/request_builder.h"
#include "exec/backends.h"
#include "exec/layer_costs.h"
#include "exec/prepare.h"
#include "onnx/model_reader.h"
#include "shape/infer.h"
#include "util/error.h"
#include "util/timestamp.h"

namespace ridge::exec {
namespace {

// One shape point of the matrix, bound, inferred and checked before anything is measured.
struct Point {
  std::string label;
  std::string input_size;
  Prepared prepared;
};

// Input-size sweep: images (rank 4) get H = W = size; sequences (rank 2 or 3) get dim 1 = size.
// The batch is --batch's, else the one the file fixes, else 1. H and W the file fixes are rebound
// (shapes re-inferred; a graph that forbids the size is a one-line error naming the node).
void bind_input_size(const graph::Model& model, analysis::Request& request, int64_t size) {
  if (!shape::bind_input_size(model, request.bindings, size))
    throw Error("--sweep input: no input is an image (N,C,H,W) or a sequence (N,S[,F]) with known channels");
}

std::vector<Point> plan_points(const BenchRequest& r) {
  onnx::LoadOptions load;
  load.max_typed_elements = std::numeric_limits<int64_t>::max();
  auto pristine = onnx::load_model(r.model.model_path, load);
  std::vector<HostTensor> given;
  if (!r.exec.inputs_dir.empty()) given = prepare(r.model, r.exec.inputs_dir).inputs;
  std::vector<Point> points;
  for (auto batch : r.batches)
    for (auto size : r.input_sizes) {
      auto request = r.model;
      if (batch > 0) request.bindings.batch = batch;
      std::string where = fmt::format("{}{}", batch > 0 ? fmt::format("batch {}", batch) : "",
                                      size > 0 ? fmt::format("{}input {}", batch > 0 ? ", " : "", size) : "");
      try {
        if (size > 0) bind_input_size(pristine, request, size);
        auto prepared = prepare_again(pristine, request, given);
        // A sweep binds a symbolic first dim; on a fixed one every point would measure the same batch under
        // another label.
        if (batch > 0 && r.batches.size() > 1 && analysis::bound_batch(prepared.analysis.model) != batch)
          throw Error(
              fmt::format("--sweep batch: the model's batch is fixed at {} (its first input is not symbolic): "
                          "there is no batch to sweep",
                          analysis::bound_batch(prepared.analysis.model)));
        if (r.exec.device == "cpu") {  // the GPU engine checks its own ops and memory once loaded
          check_runnable(prepared.analysis.model);
          check_memory(prepared.analysis.cost, r.model.options.training);
        }
        std::string input_size = size > 0
                                     ? std::to_string(size)
                                     : (prepared.analysis.inputs.empty() ? "" : prepared.analysis.inputs[0].second);
        points.push_back({where, input_size, std::move(prepared)});
      } catch (const Error& e) {
        throw Error(where.empty() ? std::string(e.what()) : fmt::format("{}: {}", where, e.what()));
      }
    }
  return points;
}

// kBothModes and kAllConvAlgos stand for several runs: each point sets its own mode and algorithm.
BenchOptions bench_options(const BenchRequest& r, const std::string& mode, const std::string& algorithm, bool metered) {
  BenchOptions options;
  auto exec = r.exec;
  exec.mode = mode;
  exec.conv_algo = algorithm;
  options.exec = exec_options(exec);
  options.exec.profile_nodes = r.per_node;
  options.training.enabled = r.model.options.training;
  options.training.optimizer = r.model.options.optimizer;
  options.training.learning_rate = r.learning_rate;
  options.warmup_seconds = r.warmup_s;
  options.stopping.max_seconds = r.max_time_s;
  options.stopping.min_samples = r.min_runs;
  options.stopping.target_relative_error = r.target_rse;
  options.stopping.min_seconds = metered ? r.power_min_time_s : 0;
  options.fixed_iterations = r.iters > 0 ? r.iters : (r.model.options.training ? 10 : 0);
  return options;
}

}  // namespace

void bind_sweeps(BenchRequest& r, const std::vector<std::string>& sweeps) {
  for (const auto& text : sweeps) {
    auto [key, values] = analysis::parse_sweep(text);
    if (key == "batch")
      r.batches = values;
    else if (key == "input")
      r.input_sizes = values;
    else
      throw Error(fmt::format("--sweep {}: bench sweeps batch=... and input=...", key));
  }
  bool sweeps_batch = r.batches.size() > 1 || r.batches[0] > 0;
  bool sweeps_input = r.input_sizes.size() > 1 || r.input_sizes[0] > 0;
  const auto& bindings = r.model.bindings;
  if (!r.exec.inputs_dir.empty()) {
    if (sweeps_batch || sweeps_input) throw Error("--inputs fixes the input shapes: it cannot be swept");
    if (bindings.batch || !bindings.dims.empty() || !bindings.inputs.empty())
      throw Error("--inputs fixes the input shapes: --batch, --dim and --input cannot change them");
  }
  if (sweeps_batch) analysis::check_sweep_conflicts(r.model, "batch");
  if (sweeps_input && !bindings.inputs.empty())
    throw Error("--sweep input=... and --input both set the input shape: give one");
}

BenchOutcome bench(const BenchRequest& r, const BenchHooks& hooks) {
  auto device = parse_backend(r.exec.device);
  auto modes = r.exec.mode == kBothModes ? both_mode_names(device) : std::vector<std::string>{r.exec.mode};
  auto algorithms =
      r.exec.conv_algo == kAllConvAlgos ? conv_algo_names(device) : std::vector<std::string>{r.exec.conv_algo};
  bool metered = static_cast<bool>(hooks.open_meter);
  // Refuses what the device cannot honour before any work.
  auto options = bench_options(r, modes.front(), algorithms.front(), metered);
  if (options.training.enabled)
    for (const auto& mode : modes) check_training_options(parse_mode(mode));
  // Every point is bound, inferred and checked (ops, memory) before libtorch is loaded.
  auto points = plan_points(r);
  std::unique_ptr<EnergyMeter> meter;
  if (metered) {
    meter = hooks.open_meter();
    if (options.stopping.min_seconds < 0) options.stopping.min_seconds = std::max(2.0, 10 * meter->interval_s());
  }
  auto& engine = load_engine(device);
  // The GPU is opened (driver, device, handles) once here, so a machine without one gets one line.
  if (backend_row(device).opens_device) (void)engine.environment(options.exec);
  std::vector<BenchPoint> matrix;
  std::vector<const Point*> point_of;
  for (const auto& point : points)
    for (const auto& mode : modes)
      for (const auto& algorithm : algorithms) {
        BenchPoint p{fmt::format("{}{}{} {}", point.label, point.label.empty() ? "" : ", ", mode, algorithm),
                     &point.prepared.analysis.model, &point.prepared.inputs, options};
        p.options = bench_options(r, mode, algorithm, metered);
        if (meter) p.options.stopping.min_seconds = options.stopping.min_seconds;
        matrix.push_back(std::move(p));
        point_of.push_back(&point);
      }
  auto finish = [&](size_t i, BenchResult& result) {
    const auto& point = *point_of[i];
    const auto& model = point.prepared.analysis.model;
    result.model = r.model.model_path;
    result.batch = analysis::bound_batch(model);
    result.input_size = point.input_size;
    result.throughput =
        result.latency_ms.mean > 0 ? static_cast<double>(result.batch) * 1e3 / result.latency_ms.mean : 0;
    result.timestamp = utc_now();
    attach_layer_costs(result, model, point.prepared.analysis.cost);
    if (meter) meter->attach(result);
  };
  auto on_result = [&](size_t i, const BenchResult& result) {
    if (hooks.on_result) hooks.on_result(i, matrix.size(), matrix[i].label, result);
  };
  auto on_failure = [&](size_t i, const std::string& why) {
    if (hooks.on_failure) hooks.on_failure(i, matrix.size(), matrix[i].label, why);
  };
  auto [runs, failures] = run_bench_matrix(engine, matrix, finish, on_result, on_failure);
  return {std::move(runs), std::move(failures), matrix.size()};
}

}  // namespace ridge::exec
