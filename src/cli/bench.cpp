#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cmath>
#include <iostream>
#include <limits>
#include <optional>

#include "cli/command.h"
#include "cli/common.h"
#include "cli/exec_options.h"
#include "cli/output_options.h"
#include "cli/store_options.h"
#include "exec/bench_codec.h"
#include "exec/bench_matrix.h"
#include "exec/layer_costs.h"
#include "exec/prepare.h"
#include "onnx/model_reader.h"
#include "power/bench_meter.h"
#include "report/bench_report.h"
#include "report/choices_report.h"
#include "report/result_codec.h"
#include "report/result_import.h"
#include "util/error.h"
#include "util/timestamp.h"

namespace ridge::cli {
namespace {

struct BenchCliOptions {
  ModelOptions model;
  ExecCliOptions exec;
  std::vector<std::string> sweeps;
  int64_t iters = 0;
  double max_time = 10, warmup = 0.5, target_rse = 0.01, learning_rate = 1e-3;
  int64_t min_runs = 10;
  bool no_per_node = false, list_algorithms = false;
  int top = 10;
  std::string format = "table", csv_dir;
  StoreOptions store;
  std::string power;  // a live power source; empty: power is not measured
  double idle_time_s = 1, power_min_time_s = -1;
  bool dynamic_only = false;
};

// Input-size sweep: images (rank 4) get H = W = size; sequences (rank 2 or 3) get dim 1 = size.
// The batch is --batch's, else the one the file fixes, else 1. H and W the file fixes are rebound
// (shapes re-inferred; a graph that forbids the size is a one-line error naming the node).
void bind_input_size(const graph::Model& model, analysis::Request& request, int64_t size) {
  if (!shape::bind_input_size(model, request.bindings, size))
    throw Error("--sweep input: no input is an image (N,C,H,W) or a sequence (N,S[,F]) with known channels");
}

// One shape point of the matrix, bound, inferred and checked before anything is measured.
struct Point {
  std::string label;
  std::string input_size;
  exec::Prepared prepared;
};

// The options that cannot be honoured together are refused before any work.
void check_conflicts(const BenchCliOptions& o, const analysis::Request& base, bool sweeps_batch, bool sweeps_input) {
  if (!o.exec.inputs_dir.empty()) {
    if (sweeps_batch || sweeps_input) throw Error("--inputs fixes the input shapes: it cannot be swept");
    if (base.bindings.batch || !base.bindings.dims.empty() || !base.bindings.inputs.empty())
      throw Error("--inputs fixes the input shapes: --batch, --dim and --input cannot change them");
  }
  if (sweeps_batch) check_sweep_conflicts(base, "batch");
  if (sweeps_input && !base.bindings.inputs.empty())
    throw Error("--sweep input=... and --input both set the input shape: give one");
}

std::vector<Point> plan_points(const BenchCliOptions& o, const analysis::Request& base) {
  std::vector<int64_t> batches{0}, sizes{0};
  for (const auto& text : o.sweeps) {
    auto [key, values] = parse_sweep(text);
    if (key == "batch")
      batches = values;
    else if (key == "input")
      sizes = values;
    else
      throw Error(fmt::format("--sweep {}: bench sweeps batch=... and input=...", key));
  }
  check_conflicts(o, base, batches.size() > 1 || batches[0] > 0, sizes.size() > 1 || sizes[0] > 0);
  onnx::LoadOptions load;
  load.max_typed_elements = std::numeric_limits<int64_t>::max();
  auto pristine = onnx::load_model(base.model_path, load);
  std::vector<exec::HostTensor> given;
  if (!o.exec.inputs_dir.empty()) given = exec::prepare(base, o.exec.inputs_dir).inputs;
  std::vector<Point> points;
  for (auto batch : batches)
    for (auto size : sizes) {
      auto request = base;
      if (batch > 0) request.bindings.batch = batch;
      std::string where = fmt::format("{}{}", batch > 0 ? fmt::format("batch {}", batch) : "",
                                      size > 0 ? fmt::format("{}input {}", batch > 0 ? ", " : "", size) : "");
      try {
        if (size > 0) bind_input_size(pristine, request, size);
        auto prepared = exec::prepare_again(pristine, request, given);
        if (o.exec.device == "cpu") {  // the GPU engine checks its own ops and memory once loaded
          exec::check_runnable(prepared.analysis.model);
          exec::check_memory(prepared.analysis.cost, o.model.training);
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

// "both" and "all" stand for several runs: each point sets its own mode and algorithm.
exec::BenchOptions bench_options(const BenchCliOptions& o, const std::string& mode, const std::string& algorithm) {
  exec::BenchOptions options;
  auto exec_cli = o.exec;
  exec_cli.mode = mode;
  exec_cli.conv_algo = algorithm;
  options.exec = to_exec_options(exec_cli);
  options.exec.profile_nodes = !o.no_per_node;
  options.training.enabled = o.model.training;
  options.training.optimizer = cost::parse_optimizer(o.model.optimizer);
  options.training.learning_rate = o.learning_rate;
  options.warmup_seconds = o.warmup;
  options.stopping.max_seconds = o.max_time;
  options.stopping.min_samples = o.min_runs;
  options.stopping.target_relative_error = o.target_rse;
  options.stopping.min_seconds = o.power.empty() ? 0 : o.power_min_time_s;
  options.fixed_iterations = o.iters > 0 ? o.iters : (o.model.training ? 10 : 0);
  return options;
}

int run_bench(const BenchCliOptions& o) {
  auto base = make_request(o.model);
  auto device = exec::parse_device(o.exec.device);
  std::vector<std::string> modes =
      o.exec.mode == exec::kBothModes ? exec::mode_names(device) : std::vector<std::string>{o.exec.mode};
  std::vector<std::string> algorithms = o.exec.conv_algo == exec::kAllConvAlgos
                                            ? exec::conv_algo_names(device)
                                            : std::vector<std::string>{o.exec.conv_algo};
  auto options = bench_options(o, modes.front(), algorithms.front());  // refuses what the device cannot honour
  // Every point is bound, inferred and checked (ops, memory) before libtorch is loaded.
  auto points = plan_points(o, base);
  std::optional<power::BenchMeter> meter;
  if (!o.power.empty()) {
    meter.emplace(power::BenchMeterOptions{o.power, o.idle_time_s, o.dynamic_only, [](const std::string& line) {
                                             if (!invocation().quiet) fmt::print(std::cerr, "bench: {}\n", line);
                                           }});
    if (options.stopping.min_seconds < 0) options.stopping.min_seconds = std::max(2.0, 10 * meter->interval_s());
  }
  auto& engine = exec::load_engine(device);
  // The GPU is opened (driver, device, handles) once here, so a machine without one gets one line.
  if (device == exec::Device::kCuda) (void)engine.environment(options.exec);
  std::vector<exec::BenchPoint> matrix;
  std::vector<const Point*> point_of;
  for (const auto& point : points)
    for (const auto& mode : modes)
      for (const auto& algorithm : algorithms) {
        exec::BenchPoint p{fmt::format("{}{}{} {}", point.label, point.label.empty() ? "" : ", ", mode, algorithm),
                           &point.prepared.analysis.model, &point.prepared.inputs, options};
        p.options = bench_options(o, mode, algorithm);
        if (meter) p.options.stopping.min_seconds = options.stopping.min_seconds;
        matrix.push_back(std::move(p));
        point_of.push_back(&point);
      }
  auto finish = [&](size_t i, exec::BenchResult& result) {
    const auto& point = *point_of[i];
    const auto& model = point.prepared.analysis.model;
    result.model = o.model.model;
    result.batch = analysis::bound_batch(model);
    result.input_size = point.input_size;
    result.throughput =
        result.latency_ms.mean > 0 ? static_cast<double>(result.batch) * 1e3 / result.latency_ms.mean : 0;
    result.timestamp = utc_now();
    exec::attach_layer_costs(result, model, point.prepared.analysis.cost);
    if (meter) meter->attach(result);
  };
  // Each point is written as it completes, so a run that fails later (or is killed) keeps it.
  auto on_result = [&](size_t i, const exec::BenchResult& result) {
    if (!o.csv_dir.empty()) report::append_bench_csv(o.csv_dir, {result});
    report::TypedResult value{.kind = "bench", .runs = {result}};
    keep_result(o.store, report::bench_run_document(result, o.top), report::bench_params(result), value);
    if (!invocation().quiet)
      fmt::print(std::cerr, "bench: [{}/{}] {}: {:.3f} ms\n", i + 1, matrix.size(), matrix[i].label,
                 result.latency_ms.mean);
  };
  auto on_failure = [&](size_t i, const std::string& why) {
    if (!invocation().quiet)
      fmt::print(std::cerr, "bench: [{}/{}] {}: failed: {}\n", i + 1, matrix.size(), matrix[i].label, why);
  };
  auto [runs, failures] = exec::run_bench_matrix(engine, matrix, finish, on_result, on_failure);
  size_t total = matrix.size();
  if (!runs.empty()) emit(report::bench_document(runs, o.top), o.format, [&] { return exec::encode_bench(runs); });
  if (failures.empty()) return 0;
  // A sweep cell is one point: its failure is the cell's error, which the sweep stores.
  if (invocation().quiet) throw Error(failures.front());
  for (const auto& f : failures) fmt::print(std::cerr, "ridge: error: {}\n", f);
  if (!runs.empty())
    fmt::print(std::cerr, "ridge: {} of {} points failed; the {} measured are above{}\n", failures.size(), total,
               runs.size(), o.csv_dir.empty() ? "" : " and in " + o.csv_dir);
  return 1;
}

}  // namespace

Command add_bench_command(CLI::App& parent) {
  auto o = std::make_shared<BenchCliOptions>();
  auto* app = parent.add_subcommand("bench", "measure a model on the executor: latency statistics, per-node times");
  add_model_options(*app, o->model, false, true);
  auto* training = app->add_flag("--training", o->model.training,
                                 "time a training step (forward, backward, optimizer update) instead of inference");
  app->add_option("--optimizer", o->model.optimizer, "optimizer of the training step: sgd (default), momentum, adam")
      ->check(CLI::IsMember({"sgd", "momentum", "adam"}))
      ->needs(training);
  auto modes = exec::mode_names();
  modes.emplace_back(exec::kBothModes);
  auto algorithms = exec::all_conv_algo_names();
  algorithms.emplace_back(exec::kAllConvAlgos);
  add_exec_options(*app, o->exec, modes, algorithms);
  app->add_option("--sweep", o->sweeps,
                  "measure several points in one call: batch=1,2,4 and/or input=224,256 (images: H=W; sequences: "
                  "length); repeatable, points are all combinations, each checked before the first is measured");
  app->add_option("--learning-rate", o->learning_rate, "learning rate of the training step (default 0.001)")
      ->check(CLI::Range(0.0, 1e6));
  app->add_option("--iters", o->iters, "exactly N timed runs instead of the stopping rule (training default: 10)")
      ->check(integer_in(1, int64_t{1} << 30));
  app->add_option("--max-time", o->max_time, "time budget of the timed runs per point, seconds (default 10)")
      ->check(CLI::Range(0.0, 1e6));
  app->add_option("--target-rse", o->target_rse,
                  "stop when the mean's relative standard error is below this (default 0.01 = 1%)")
      ->check(CLI::Range(1e-6, 1.0));
  app->add_option("--min-runs", o->min_runs, "timed runs before the stopping rule may stop (default 10)")
      ->check(integer_in(2, int64_t{1} << 30));
  app->add_option("--warmup", o->warmup, "warm-up time before timing, seconds (default 0.5; at least 2 runs)")
      ->check(CLI::Range(0.0, 1e6));
  app->add_flag("--no-per-node", o->no_per_node, "skip the per-node profile pass");
  auto* power = app->add_option(
      "--power", o->power,
      "measure power while each point's timed runs go, from a live source: nvml, nvml:INDEX, jetson, tegrastats, "
      "rapl, rapl:dram (e.g. --power jetson); adds power_mean_w and energy_per_inference_j (energy of the timed "
      "runs / their count: one inference = one run of the batch)");
  app->add_option("--idle-time", o->idle_time_s,
                  "seconds of idle power measured before the first point (default 1; 0: none), e.g. --idle-time 3")
      ->check(CLI::Range(0.0, 3600.0))
      ->needs(power);
  app->add_flag("--dynamic-only", o->dynamic_only,
                "subtract the idle power from the mean power and the energies (the output says so)")
      ->needs(power);
  app->add_option("--power-min-time", o->power_min_time_s,
                  "with --power, time each point at least this many seconds so its window holds several sensor "
                  "samples (default: 10 sampling intervals, at least 2 s), e.g. --power-min-time 5")
      ->check(CLI::Range(0.0, 1e6))
      ->needs(power);
  app->add_option("--top", o->top, "slowest nodes listed in the table (default 10)")->check(integer_in(0, 100000));
  auto* format = add_format_option(*app, o->format);
  auto* list = app->add_flag("--list-algorithms", o->list_algorithms,
                             "print the values of --conv-algo, --mode, --precision and --memory-format with what each "
                             "does and what it applies to, and exit (no MODEL)");
  // MODEL is required unless --list-algorithms is given, which takes no other option but -f.
  app->get_option("model")->required(false);
  app->parse_complete_callback([o, app, list, format] {
    if (!o->list_algorithms) {
      if (o->model.model.empty()) throw CLI::RequiredError("model");
      return;
    }
    for (const auto* option : app->get_options())
      if (option != list && option != format && option->count() > 0 && option != app->get_help_ptr())
        throw CLI::ExcludesError(list->get_name(), option->get_name());
  });
  add_store_options(*app, o->store);
  app->add_option("--csv", o->csv_dir,
                  "append every measured point to DIR/overall.csv, layers.csv and nodes.csv (`ridge calibrate "
                  "--measured`) as it completes; each row names its run (batch, input, mode, precision, threads, "
                  "algorithm, revision, time)");
  app->footer(
      "Progress goes to stderr, one line per measured point. A point that fails is reported and the others are\n"
      "still measured, printed and written; the exit code is then 1.\n"
      "Examples:\n"
      "  ridge bench models/resnet50.onnx --batch 8 --threads 2\n"
      "  ridge bench models/mobilenet_v2.onnx --sweep batch=1,2,4 --mode both --csv results/\n"
      "  ridge bench models/resnet50.onnx --conv-algo all --max-time 2 -f md\n"
      "  ridge bench models/resnet50.onnx --device cuda --batch 32 --precision tf32 --conv-algo all\n"
      "  ridge bench models/bert_base.onnx --dim seq=128 --training --optimizer adam --iters 5\n"
      "  ridge bench models/resnet50.onnx --power jetson --idle-time 3 --dynamic-only\n"
      "  ridge bench --list-algorithms");
  return {app, [o] {
            if (!o->list_algorithms) return run_bench(*o);
            emit(report::choices_document(exec::choices(true)), o->format);
            return 0;
          }};
}

}  // namespace ridge::cli
