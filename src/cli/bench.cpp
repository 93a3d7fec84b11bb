#include <fmt/format.h>
#include <fmt/ostream.h>

#include <iostream>
#include <limits>

#include "cli/command.h"
#include "cli/common.h"
#include "cli/exec_options.h"
#include "exec/layer_costs.h"
#include "exec/prepare.h"
#include "onnx/model_reader.h"
#include "report/analysis_report.h"
#include "report/bench_report.h"
#include "util/error.h"

namespace ridge::cli {
namespace {

struct BenchCliOptions {
  ModelOptions model;
  ExecCliOptions exec;
  std::vector<std::string> sweeps;
  int64_t iters = 0;
  double max_time = 10, warmup = 0.5, target_rse = 0.01, learning_rate = 1e-3;
  int64_t min_runs = 10;
  bool no_per_node = false;
  int top = 10;
  std::string format = "table", csv_dir;
};

// Input-size sweep: images (rank 4) get H = W = size; sequences (rank 2 or 3) get dim 1 = size.
void bind_input_size(const graph::Model& model, analysis::Request& request, int64_t size) {
  int64_t batch = request.bindings.batch.value_or(1);
  bool any = false;
  for (auto id : model.graph.inputs) {
    const auto& v = model.graph.value(id);
    if (!v.has_shape) continue;
    auto dim = [&](size_t i) { return v.shape[i].is_known() ? v.shape[i].value : -1; };
    std::vector<int64_t> shape;
    if (v.shape.size() == 4 && dim(1) > 0)
      shape = {batch, dim(1), size, size};
    else if (v.shape.size() == 2)
      shape = {batch, size};
    else if (v.shape.size() == 3 && dim(2) > 0)
      shape = {batch, size, dim(2)};
    else
      continue;
    request.bindings.inputs[v.name] = shape;
    any = true;
  }
  if (!any) throw Error("--sweep input: no input is an image (N,C,H,W) or a sequence (N,S[,F]) with known channels");
}

int64_t bound_batch(const graph::Model& model) {
  if (model.graph.inputs.empty()) return 1;
  const auto& v = model.graph.value(model.graph.inputs.front());
  return v.has_shape && !v.shape.empty() && v.shape[0].is_known() ? v.shape[0].value : 1;
}

int run_bench(const BenchCliOptions& o) {
  auto format = report::parse_format(o.format);
  if (format == report::Format::kMarkdown) throw Error("bench writes table, csv or json");
  auto base = make_request(o.model);
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
  std::vector<std::string> modes = o.exec.mode == "both" ? exec::mode_names() : std::vector<std::string>{o.exec.mode};
  std::vector<std::string> algorithms =
      o.exec.conv_algo == "all" ? exec::conv_algo_names() : std::vector<std::string>{o.exec.conv_algo};
  exec::BenchOptions options;
  auto exec_cli = o.exec;  // "both" and "all" stand for several runs: each sets its own below
  exec_cli.mode = modes.front();
  exec_cli.conv_algo = algorithms.front();
  options.exec = to_exec_options(exec_cli);
  options.exec.profile_nodes = !o.no_per_node;
  options.training.enabled = o.model.training;
  options.training.optimizer = cost::parse_optimizer(o.model.optimizer);
  options.training.learning_rate = o.learning_rate;
  options.warmup_seconds = o.warmup;
  options.stopping.max_seconds = o.max_time;
  options.stopping.min_samples = o.min_runs;
  options.stopping.target_relative_error = o.target_rse;
  options.fixed_iterations = o.iters > 0 ? o.iters : (o.model.training ? 10 : 0);

  auto& engine = exec::load_engine();
  onnx::LoadOptions load;
  load.max_typed_elements = std::numeric_limits<int64_t>::max();
  auto pristine = onnx::load_model(base.model_path, load);
  std::vector<exec::HostTensor> given;
  if (!o.exec.inputs_dir.empty()) {
    if (batches.size() > 1 || sizes.size() > 1) throw Error("--inputs fixes the input shapes: it cannot be swept");
    given = exec::prepare(base, o.exec.inputs_dir).inputs;
  }
  std::vector<exec::BenchResult> runs;
  for (auto batch : batches)
    for (auto size : sizes) {
      auto request = base;
      if (batch > 0) request.bindings.batch = batch;
      if (size > 0) bind_input_size(pristine, request, size);
      auto prepared = exec::prepare_again(pristine, request, given);
      const auto& model = prepared.analysis.model;
      exec::check_runnable(model, engine);
      exec::check_memory(prepared.analysis.cost, o.model.training);
      std::string input_size = size > 0 ? std::to_string(size)
                                        : (prepared.analysis.inputs.empty() ? "" : prepared.analysis.inputs[0].second);
      for (const auto& mode : modes)
        for (const auto& algorithm : algorithms) {
          auto run_options = options;
          run_options.exec.mode = exec::parse_mode(mode);
          run_options.exec.conv_algo = exec::parse_conv_algo(algorithm);
          auto result = engine.bench(model, prepared.inputs, run_options);
          result.model = o.model.model;
          result.batch = bound_batch(model);
          result.input_size = input_size;
          result.throughput =
              result.latency_ms.mean > 0 ? static_cast<double>(result.batch) * 1e3 / result.latency_ms.mean : 0;
          exec::attach_layer_costs(result, model, prepared.analysis.cost);
          runs.push_back(std::move(result));
          if (format == report::Format::kTable)
            fmt::print(std::cerr, "measured {} batch {} {} {}: {:.3f} ms\n", o.model.model, runs.back().batch, mode,
                       algorithm, runs.back().latency_ms.mean);
        }
    }
  if (!o.csv_dir.empty()) report::write_bench_csv_dir(o.csv_dir, runs);
  switch (format) {
    case report::Format::kJson:
      report::write_bench_json(std::cout, runs);
      break;
    case report::Format::kCsv:
      report::write_overall_csv(std::cout, runs);
      break;
    default:
      report::write_bench_table(std::cout, runs, o.top);
  }
  return 0;
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
  add_exec_options(*app, o->exec, {"eager", "optimized", "both"}, {"auto", "direct", "gemm", "fft", "winograd", "all"});
  app->add_option("--sweep", o->sweeps,
                  "measure several points in one call: batch=1,2,4 and/or input=224,256 (images: H=W; sequences: "
                  "length); repeatable, points are all combinations");
  app->add_option("--learning-rate", o->learning_rate, "learning rate of the training step (default 0.001)")
      ->check(CLI::Range(0.0, 1e6));
  app->add_option("--iters", o->iters, "exactly N timed runs instead of the stopping rule (training default: 10)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
  app->add_option("--max-time", o->max_time, "time budget of the timed runs per point, seconds (default 10)")
      ->check(CLI::Range(0.0, 1e6));
  app->add_option("--target-rse", o->target_rse,
                  "stop when the mean's relative standard error is below this (default 0.01 = 1%)")
      ->check(CLI::Range(1e-6, 1.0));
  app->add_option("--min-runs", o->min_runs, "timed runs before the stopping rule may stop (default 10)")
      ->check(CLI::Range(int64_t{2}, int64_t{1} << 30));
  app->add_option("--warmup", o->warmup, "warm-up time before timing, seconds (default 0.5; at least 2 runs)")
      ->check(CLI::Range(0.0, 1e6));
  app->add_flag("--no-per-node", o->no_per_node, "skip the per-node profile pass");
  app->add_option("--top", o->top, "slowest nodes listed in the table (default 10)")->check(CLI::Range(0, 100000));
  app->add_option("-f,--format", o->format, "table (default), csv (overall.csv columns) or json");
  app->add_option("--csv", o->csv_dir,
                  "also write overall.csv, layers.csv and nodes.csv (for `ridge calibrate --measured`) here");
  app->footer(
      "Examples:\n"
      "  ridge bench models/resnet50.onnx --batch 8 --threads 2\n"
      "  ridge bench models/mobilenet_v2.onnx --sweep batch=1,2,4 --mode both --csv results/\n"
      "  ridge bench models/resnet50.onnx --conv-algo all --max-time 2\n"
      "  ridge bench models/bert_base.onnx --dim seq=128 --training --optimizer adam --iters 5");
  return {app, [o] { return run_bench(*o); }};
}

}  // namespace ridge::cli
