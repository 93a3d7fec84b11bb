#include <fmt/format.h>

#include "cli/app.h"
#include "cli/command.h"
#include "cli/common.h"
#include "cli/output_options.h"
#include "cli/store_options.h"
#include "report/sweep_request.h"

namespace ridge::cli {
namespace {

struct SweepOptions {
  report::SweepRequest request;
  std::string store, format = "table";
};

int run_sweep_command(SweepOptions& o) {
  auto& r = o.request;
  r.store = store_path(StoreOptions{o.store, false});
  auto out =
      report::run_sweep(r, store::shared_store, [&r](const std::vector<std::string>& args, const store::Cell& cell) {
        return report::run_cell(args, cell, r.store, run_in_process);
      });
  fmt::print("{}", out.text);
  if (out.document) emit(*out.document, o.format);
  return out.exit_code;
}

}  // namespace

Command add_sweep_command(CLI::App& parent) {
  auto o = std::make_shared<SweepOptions>();
  auto& r = o->request;
  auto* app = parent.add_subcommand("sweep", "run a matrix of bench / predict cells from YAML, kept in the store");
  app->add_option("file", r.file, "the run matrix (YAML)")->required();
  app->add_option("--store", o->store, "results store (default: $RIDGE_STORE, else ./ridge-results.db)");
  app->add_option("--stage", r.stage, "sanity: one cell per model; quick: at most ten input sizes; full (default)")
      ->check(CLI::IsMember({"sanity", "quick", "full"}));
  app->add_option("--max-time", r.measurement.max_time, "bench cells: time budget of the timed runs, seconds")
      ->check(CLI::Range(0.0, 1e6));
  app->add_option("--warmup", r.measurement.warmup, "bench cells: warm-up seconds")->check(CLI::Range(0.0, 1e6));
  app->add_option("--min-runs", r.measurement.min_runs, "bench cells: timed runs before the stopping rule may stop")
      ->check(integer_in(2, int64_t{1} << 30));
  app->add_option("--target-rse", r.measurement.target_rse,
                  "bench cells: stop at this relative standard error of the mean")
      ->check(CLI::Range(1e-6, 1.0));
  app->add_flag("--no-per-node", r.measurement.no_per_node, "bench cells: skip the per-node profile pass");
  app->add_option("--shard", r.shard, "run only shard K of N (K/N): every N-th cell from K (SLURM tasks use it)");
  app->add_option("--done-in", r.done_in, "cells finished in this store count as done too (repeatable)");
  app->add_flag("--dry-run", r.dry_run, "list the cells (with --slurm: print the job scripts) and run nothing");
  auto* slurm = app->add_flag("--slurm", r.slurm, "submit as a SLURM job array of shards plus a merge job");
  app->add_option("--partition", r.slurm_options.partition, "SLURM partition")->needs(slurm);
  app->add_option("--gres", r.slurm_options.gres, "SLURM generic resources per task, e.g. gpu:1")->needs(slurm);
  app->add_option("--time", r.slurm_options.time, "SLURM time limit per task, e.g. 02:00:00")->needs(slurm);
  app->add_option("--parallel", r.slurm_options.parallel, "SLURM array tasks (shards) (default 4)")
      ->check(CLI::Range(1, 100000))
      ->needs(slurm);
  app->add_option("--slurm-dir", r.slurm_options.dir,
                  "where the scripts, logs and shard stores go (default: ridge-slurm/NAME beside the store)")
      ->needs(slurm);
  add_format_option(*app, o->format);
  app->footer(
      "A sweep file names models (paths) and axes as bench's options: batch, input, mode, precision,\n"
      "memory_format, conv_algo, threads, training, optimizer; `devices:` adds a predict cell per device\n"
      "(predictions vary over batch, precision, training and optimizer); `measure: false` runs predictions only.\n"
      "  models: [models/resnet50.onnx, models/mobilenet_v2.onnx]\n"
      "  batch: [1, 8]\n"
      "  mode: [eager, optimized]\n"
      "Each cell is stored as it completes; a rerun skips stored cells and retries failed ones. Progress goes\n"
      "to stderr: a bar with an ETA on a terminal (from the analytical FLOPs of the cells left), lines otherwise.\n"
      "Examples:\n"
      "  ridge sweep study.yaml --stage sanity\n"
      "  ridge sweep study.yaml --max-time 2 --no-per-node\n"
      "  ridge sweep study.yaml --slurm --partition gpu --gres gpu:1 --time 02:00:00 --parallel 8\n"
      "  ridge status study.yaml");
  return {app, [o] { return run_sweep_command(*o); }};
}

}  // namespace ridge::cli
