#include "sweep/runner.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <map>

#include "store/environment.h"
#include "sweep/cost.h"
#include "sweep/progress.h"
#include "util/error.h"

namespace ridge::sweep {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

store::Params params_of(const Cell& cell) {
  store::Params p;
  p.model = cell.model;
  p.device = cell.device;
  for (const auto& [name, value] : cell.settings) {
    if (name == "batch") p.batch = std::stoll(value);
    if (name == "threads") p.threads = std::stoll(value);
    if (name == "input") p.input_size = value;
    if (name == "mode") p.mode = value;
    if (name == "precision") p.precision = value;
    if (name == "memory_format") p.memory_format = value;
    if (name == "conv_algo") p.conv_algo = value;
    if (name == "training") p.training = value == "true";
    if (name == "optimizer") p.optimizer = value;
  }
  return p;
}

std::string fmt_detail(const Cell& cell, const CellOutcome& outcome) {
  if (!outcome.ok) return cell.key + ": " + outcome.error;
  return outcome.summary.empty() ? cell.key : cell.key + ": " + outcome.summary;
}

}  // namespace

double RunSummary::overhead_per_cell_s() const {
  size_t ran = done + failed;
  return ran ? (seconds - cell_seconds) / static_cast<double>(ran) : 0;
}

std::map<std::string, std::string> stored_cell_status(const std::string& sweep, store::Store& store,
                                                      const std::vector<std::string>& others) {
  auto status = store.cell_status(sweep);
  for (const auto& path : others) {
    if (!std::filesystem::exists(path) || std::filesystem::equivalent(path, store.path())) continue;
    store::Store other(path, true);
    for (const auto& [cell, s] : other.cell_status(sweep))
      if (status[cell] != "ok") status[cell] = s;
  }
  return status;
}

RunSummary run_sweep(const Matrix& matrix, const std::vector<Cell>& cells, store::Store& store,
                     const RunOptions& options, const CellRunner& run) {
  auto start = Clock::now();
  RunSummary summary;
  summary.cells = cells.size();
  auto status = stored_cell_status(matrix.name, store, options.done_stores);
  std::vector<const Cell*> todo;
  for (const auto& c : cells) {
    auto it = status.find(c.key);
    if (it != status.end() && it->second == "ok")
      ++summary.skipped;
    else
      todo.push_back(&c);
  }
  std::vector<Cell> plan;
  for (const auto* c : todo) plan.push_back(*c);
  Progress progress(cell_costs(plan), options.terminal);
  for (size_t i = 0; i < plan.size(); ++i) {
    const auto& cell = plan[i];
    progress.started(i, cell.key);
    auto cell_start = Clock::now();
    CellOutcome outcome;
    try {
      outcome = run(cell);
    } catch (const std::exception& e) {
      outcome = {false, e.what(), ""};
    }
    summary.cell_seconds += since(cell_start);
    if (outcome.ok) {
      ++summary.done;
    } else {
      ++summary.failed;
      summary.failures.emplace_back(cell.key, outcome.error);
      store::Record failed;
      failed.command = cell.kind;
      failed.subject = cell.model;
      failed.status = "failed";
      failed.error = outcome.error.empty() ? "failed without a message" : outcome.error;
      failed.params = params_of(cell);
      std::string line = "ridge";
      for (const auto& a : cell.args) line += " " + a;
      failed.environment = store::collect_environment(line);
      failed.cell = {matrix.name, cell.key, stage_name(options.stage), options.shard};
      store.save(failed);
    }
    progress.finished(i, outcome.ok, fmt_detail(cell, outcome));
  }
  progress.close();
  summary.seconds = since(start);
  return summary;
}

std::vector<std::string> measurement_args(const Measurement& m) {
  std::vector<std::string> args;
  if (m.max_time) args.insert(args.end(), {"--max-time", fmt::format("{}", *m.max_time)});
  if (m.warmup) args.insert(args.end(), {"--warmup", fmt::format("{}", *m.warmup)});
  if (m.target_rse) args.insert(args.end(), {"--target-rse", fmt::format("{}", *m.target_rse)});
  if (m.min_runs) args.insert(args.end(), {"--min-runs", std::to_string(*m.min_runs)});
  if (m.no_per_node) args.emplace_back("--no-per-node");
  return args;
}

CellOutcome cell_outcome(int exit_code, const std::string& error, const std::vector<int64_t>& stored,
                         store::Store& store) {
  CellOutcome outcome;
  outcome.ok = exit_code == 0 && !stored.empty();
  if (!outcome.ok) {
    outcome.error = !error.empty()   ? error
                    : exit_code == 0 ? "the command stored no result"
                                     : fmt::format("exit code {}", exit_code);
    return outcome;
  }
  store::Filter f;
  f.ids = stored;
  for (const auto& r : store.query(f, false)) outcome.summary += (outcome.summary.empty() ? "" : "; ") + r.summary;
  return outcome;
}

}  // namespace ridge::sweep
