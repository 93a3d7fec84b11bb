#include "report/sweep_request.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>

#include "report/command_output.h"
#include "report/status_report.h"
#include "sweep/matrix.h"
#include "util/error.h"

namespace ridge::report {
namespace {

// The SLURM scripts run this very binary, wherever it was started from.
std::string self_binary() {
  std::error_code ec;
  auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("ridge") : path.string();
}

SweepOutcome submit(const SweepRequest& r, const sweep::Matrix& matrix, size_t cells) {
  if (!r.shard.empty()) throw Error("--slurm shards the matrix itself: drop --shard");
  std::vector<std::string> sweep_args{"--stage", r.stage};
  for (const auto& a : sweep::measurement_args(r.measurement)) sweep_args.push_back(a);
  auto plan = sweep::plan_slurm(matrix, cells, r.ridge_binary.empty() ? self_binary() : r.ridge_binary, r.store,
                                sweep_args, r.slurm_options);
  SweepOutcome out;
  if (r.dry_run) {
    out.text =
        fmt::format("# {}\n{}\n# {}\n{}", plan.array_path, plan.array_script, plan.merge_path, plan.merge_script);
    out.text += fmt::format("# submit: sbatch --parsable {}; then sbatch --dependency=afterany:ARRAY_JOB {}\n",
                            plan.array_path, plan.merge_path);
    return out;
  }
  auto jobs = sweep::submit_slurm(plan);
  out.text = fmt::format("submitted array job {} ({} shards, {} cells, stage {})\n", jobs.array_job, plan.shards, cells,
                         r.stage);
  out.text += fmt::format("submitted merge job {} (into {} once the array has ended)\n", jobs.merge_job, r.store);
  out.text += fmt::format("scripts, logs and shard stores: {}\nfollow it with: ridge status {} --store {}\n", plan.dir,
                          r.file, r.store);
  return out;
}

}  // namespace

CellRun run_cell(const std::vector<std::string>& args, const store::Cell& cell, const std::string& store,
                 const std::function<int(const std::vector<std::string>& args, std::string& error)>& run) {
  auto& inv = invocation();
  auto saved = inv;
  inv.cell = cell;
  inv.quiet = true;
  inv.store_path = store;
  inv.stored_ids.clear();
  inv.command_line = "ridge";
  for (const auto& a : args) inv.command_line += " " + a;
  CellRun ran;
  ran.exit_code = run(args, ran.error);
  ran.stored = inv.stored_ids;
  inv = saved;
  return ran;
}

SweepOutcome run_sweep(const SweepRequest& r, const StoreOpener& open_store, const CellCommand& run_cell) {
  auto matrix = sweep::read_matrix(r.file);
  auto stage = sweep::parse_stage(r.stage);
  auto cells = sweep::expand(matrix, stage);
  if (!r.shard.empty()) {
    auto [index, count] = sweep::parse_shard(r.shard);
    cells = sweep::shard(cells, index, count);
  }
  if (r.slurm) return submit(r, matrix, cells.size());

  auto& store = open_store(r.store);
  SweepOutcome out;
  if (r.dry_run) {
    out.document =
        sweep_plan_document(matrix, cells, sweep::stored_cell_status(matrix.name, store, r.done_in), r.stage);
    return out;
  }
  auto extra = sweep::measurement_args(r.measurement);
  auto runner = [&](const sweep::Cell& cell) {
    auto args = cell.args;
    if (cell.kind == "bench") args.insert(args.end(), extra.begin(), extra.end());
    auto ran = run_cell(args, store::Cell{matrix.name, cell.key, r.stage, r.shard});
    return sweep::cell_outcome(ran.exit_code, ran.error, ran.stored, store);
  };
  sweep::RunOptions options;
  options.stage = stage;
  options.shard = r.shard;
  options.done_stores = r.done_in;
  options.terminal = ::isatty(STDERR_FILENO);
  auto summary = sweep::run_sweep(matrix, cells, store, options, runner);
  out.document = sweep_summary_document(matrix, r.stage, r.shard, r.store, summary);
  out.exit_code = summary.failed ? 1 : 0;
  return out;
}

}  // namespace ridge::report
