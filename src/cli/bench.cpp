#include "exec/bench.h"

#include <memory>

#include "cli/command.h"
#include "cli/common.h"
#include "cli/exec_options.h"
#include "cli/output_options.h"
#include "cli/store_options.h"
#include "report/bench_request.h"
#include "report/choices_report.h"

namespace ridge::cli {
namespace {

struct BenchCliOptions {
  ModelOptions model;
  report::BenchCommand request;
  std::vector<std::string> sweeps;
  bool no_per_node = false, list_algorithms = false;
  std::string format = "table";
  StoreOptions store;
};

int run_bench(BenchCliOptions& o) {
  auto& r = o.request;
  r.bench.model = make_request(o.model);
  r.bench.per_node = !o.no_per_node;
  exec::bind_sweeps(r.bench, o.sweeps);
  return report::bench_and_keep(r, o.format, o.store);
}

}  // namespace

Command add_bench_command(CLI::App& parent) {
  auto o = std::make_shared<BenchCliOptions>();
  auto& r = o->request.bench;
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
  add_exec_options(*app, r.exec, modes, algorithms);
  app->add_option("--sweep", o->sweeps,
                  "measure several points in one call: batch=1,2,4 and/or input=224,256 (images: H=W; sequences: "
                  "length); repeatable, points are all combinations, each checked before the first is measured");
  app->add_option("--learning-rate", r.learning_rate, "learning rate of the training step (default 0.001)")
      ->check(CLI::Range(0.0, 1e6));
  app->add_option("--iters", r.iters, "exactly N timed runs instead of the stopping rule (training default: 10)")
      ->check(integer_in(1, int64_t{1} << 30));
  app->add_option("--max-time", r.max_time_s, "time budget of the timed runs per point, seconds (default 10)")
      ->check(CLI::Range(0.0, 1e6));
  app->add_option("--target-rse", r.target_rse,
                  "stop when the mean's relative standard error is below this (default 0.01 = 1%)")
      ->check(CLI::Range(1e-6, 1.0));
  app->add_option("--min-runs", r.min_runs, "timed runs before the stopping rule may stop (default 10)")
      ->check(integer_in(2, int64_t{1} << 30));
  app->add_option("--warmup", r.warmup_s, "warm-up time before timing, seconds (default 0.5; at least 2 runs)")
      ->check(CLI::Range(0.0, 1e6));
  app->add_flag("--no-per-node", o->no_per_node, "skip the per-node profile pass");
  auto* power = app->add_option(
      "--power", o->request.power,
      "measure power while each point's timed runs go, from a live source: nvml, nvml:INDEX, jetson, tegrastats, "
      "rapl, rapl:dram (e.g. --power jetson); adds power_mean_w and energy_per_inference_j (energy of the timed "
      "runs / their count: one inference = one run of the batch)");
  app->add_option("--idle-time", o->request.idle_time_s,
                  "seconds of idle power measured before the first point (default 1; 0: none), e.g. --idle-time 3")
      ->check(CLI::Range(0.0, 3600.0))
      ->needs(power);
  app->add_flag("--dynamic-only", o->request.dynamic_only,
                "subtract the idle power from the mean power and the energies (the output says so)")
      ->needs(power);
  app->add_option("--power-min-time", r.power_min_time_s,
                  "with --power, time each point at least this many seconds so its window holds several sensor "
                  "samples (default: 10 sampling intervals, at least 2 s), e.g. --power-min-time 5")
      ->check(CLI::Range(0.0, 1e6))
      ->needs(power);
  app->add_option("--top", o->request.top, "slowest nodes listed in the table (default 10)")
      ->check(integer_in(0, 100000));
  add_format_option(*app, o->format);
  auto* list = app->add_flag("--list-algorithms", o->list_algorithms,
                             "print the values of --conv-algo, --mode, --precision and --memory-format with what each "
                             "does and what it applies to, and exit (no MODEL)");
  // MODEL is required unless --list-algorithms is given, which takes no other option but -f.
  app->get_option("model")->required(false);
  app->parse_complete_callback([o, app, list] {
    if (!o->list_algorithms) {
      if (o->model.model.empty()) throw CLI::RequiredError("model");
      return;
    }
    std::vector<std::string> given;
    for (const auto* option : app->get_options())
      if (option->count() > 0) given.push_back(option->get_name());
    auto excluded = report::list_algorithms_excludes(given);
    if (!excluded.empty()) throw CLI::ExcludesError(list->get_name(), excluded);
  });
  add_store_options(*app, o->store);
  app->add_option("--csv", o->request.csv_dir,
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
