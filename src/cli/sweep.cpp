#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <optional>

#include "cli/app.h"
#include "cli/command.h"
#include "cli/common.h"
#include "cli/output_options.h"
#include "cli/store_options.h"
#include "report/status_report.h"
#include "store/store.h"
#include "sweep/matrix.h"
#include "sweep/progress.h"
#include "sweep/runner.h"
#include "sweep/slurm.h"
#include "util/error.h"

namespace ridge::cli {
namespace {

struct SweepOptions {
  std::string file, store, stage = "full", shard, format = "table";
  std::vector<std::string> done_in;
  // bench's measurement options, for every bench cell (unset: bench's defaults)
  std::optional<double> max_time, warmup, target_rse;
  std::optional<int64_t> min_runs;
  bool no_per_node = false;
  // SLURM
  bool slurm = false, dry_run = false;
  sweep::SlurmOptions slurm_options;
};

// The options a bench cell gets from the sweep's command line.
std::vector<std::string> measurement_args(const SweepOptions& o) {
  std::vector<std::string> args;
  if (o.max_time) args.insert(args.end(), {"--max-time", fmt::format("{}", *o.max_time)});
  if (o.warmup) args.insert(args.end(), {"--warmup", fmt::format("{}", *o.warmup)});
  if (o.target_rse) args.insert(args.end(), {"--target-rse", fmt::format("{}", *o.target_rse)});
  if (o.min_runs) args.insert(args.end(), {"--min-runs", std::to_string(*o.min_runs)});
  if (o.no_per_node) args.emplace_back("--no-per-node");
  return args;
}

std::string self_binary() {
  std::error_code ec;
  auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("ridge") : path.string();
}

int run_sweep_command(const SweepOptions& o) {
  auto matrix = sweep::read_matrix(o.file);
  auto stage = sweep::parse_stage(o.stage);
  auto cells = sweep::expand(matrix, stage);
  std::string shard_label;
  if (!o.shard.empty()) {
    auto [index, count] = sweep::parse_shard(o.shard);
    cells = sweep::shard(cells, index, count);
    shard_label = o.shard;
  }
  auto store_file = store_path(StoreOptions{o.store, false});
  std::vector<std::string> sweep_args{"--stage", o.stage};
  for (const auto& a : measurement_args(o)) sweep_args.push_back(a);

  if (o.slurm) {
    if (!o.shard.empty()) throw Error("--slurm shards the matrix itself: drop --shard");
    auto plan = sweep::plan_slurm(matrix, cells.size(), self_binary(), store_file, sweep_args, o.slurm_options);
    if (o.dry_run) {
      fmt::print("# {}\n{}\n# {}\n{}", plan.array_path, plan.array_script, plan.merge_path, plan.merge_script);
      fmt::print("# submit: sbatch --parsable {}; then sbatch --dependency=afterany:ARRAY_JOB {}\n", plan.array_path,
                 plan.merge_path);
      return 0;
    }
    auto jobs = sweep::submit_slurm(plan);
    fmt::print("submitted array job {} ({} shards, {} cells, stage {})\n", jobs.array_job, plan.shards, cells.size(),
               o.stage);
    fmt::print("submitted merge job {} (into {} once the array has ended)\n", jobs.merge_job, store_file);
    fmt::print("scripts, logs and shard stores: {}\nfollow it with: ridge status {} --store {}\n", plan.dir, o.file,
               store_file);
    return 0;
  }

  auto& store = open_store(store_file);
  if (o.dry_run) {
    emit(report::sweep_plan_document(matrix, cells, sweep::stored_cell_status(matrix.name, store, o.done_in), o.stage),
         o.format);
    return 0;
  }
  auto extra = measurement_args(o);
  auto runner = [&](const sweep::Cell& cell) {
    auto args = cell.args;
    if (cell.kind == "bench") args.insert(args.end(), extra.begin(), extra.end());
    auto& inv = invocation();
    auto saved = inv;
    inv.cell = {matrix.name, cell.key, o.stage, shard_label};
    inv.quiet = true;
    inv.store_path = store_file;
    inv.stored_ids.clear();
    inv.command_line = "ridge";
    for (const auto& a : args) inv.command_line += " " + a;
    std::string error;
    int rc = run_in_process(args, error);
    auto stored = inv.stored_ids;
    inv = saved;
    sweep::CellOutcome outcome;
    outcome.ok = rc == 0 && !stored.empty();
    if (!outcome.ok) {
      outcome.error = !error.empty() ? error
                      : rc == 0      ? "the command stored no result"
                                     : fmt::format("exit code {}", rc);
      return outcome;
    }
    store::Filter f;
    f.ids = stored;
    for (const auto& r : store.query(f, false)) outcome.summary += (outcome.summary.empty() ? "" : "; ") + r.summary;
    return outcome;
  };
  sweep::RunOptions run_options;
  run_options.stage = stage;
  run_options.shard = shard_label;
  run_options.done_stores = o.done_in;
  run_options.terminal = ::isatty(STDERR_FILENO);
  auto summary = sweep::run_sweep(matrix, cells, store, run_options, runner);

  emit(report::sweep_summary_document(matrix, o.stage, shard_label, store_file, summary), o.format);
  return summary.failed ? 1 : 0;
}

}  // namespace

Command add_sweep_command(CLI::App& parent) {
  auto o = std::make_shared<SweepOptions>();
  auto* app = parent.add_subcommand("sweep", "run a matrix of bench / predict cells from YAML, kept in the store");
  app->add_option("file", o->file, "the run matrix (YAML)")->required();
  app->add_option("--store", o->store, "results store (default: $RIDGE_STORE, else ./ridge-results.db)");
  app->add_option("--stage", o->stage, "sanity: one cell per model; quick: at most ten input sizes; full (default)")
      ->check(CLI::IsMember({"sanity", "quick", "full"}));
  app->add_option("--max-time", o->max_time, "bench cells: time budget of the timed runs, seconds")
      ->check(CLI::Range(0.0, 1e6));
  app->add_option("--warmup", o->warmup, "bench cells: warm-up seconds")->check(CLI::Range(0.0, 1e6));
  app->add_option("--min-runs", o->min_runs, "bench cells: timed runs before the stopping rule may stop")
      ->check(integer_in(2, int64_t{1} << 30));
  app->add_option("--target-rse", o->target_rse, "bench cells: stop at this relative standard error of the mean")
      ->check(CLI::Range(1e-6, 1.0));
  app->add_flag("--no-per-node", o->no_per_node, "bench cells: skip the per-node profile pass");
  app->add_option("--shard", o->shard, "run only shard K of N (K/N): every N-th cell from K (SLURM tasks use it)");
  app->add_option("--done-in", o->done_in, "cells finished in this store count as done too (repeatable)");
  app->add_flag("--dry-run", o->dry_run, "list the cells (with --slurm: print the job scripts) and run nothing");
  auto* slurm = app->add_flag("--slurm", o->slurm, "submit as a SLURM job array of shards plus a merge job");
  app->add_option("--partition", o->slurm_options.partition, "SLURM partition")->needs(slurm);
  app->add_option("--gres", o->slurm_options.gres, "SLURM generic resources per task, e.g. gpu:1")->needs(slurm);
  app->add_option("--time", o->slurm_options.time, "SLURM time limit per task, e.g. 02:00:00")->needs(slurm);
  app->add_option("--parallel", o->slurm_options.parallel, "SLURM array tasks (shards) (default 4)")
      ->check(CLI::Range(1, 100000))
      ->needs(slurm);
  app->add_option("--slurm-dir", o->slurm_options.dir,
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
