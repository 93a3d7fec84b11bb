#include "sweep/status.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "store/store.h"
#include "sweep/matrix.h"
#include "sweep/runner.h"
#include "sweep/slurm.h"
#include "util/program.h"

namespace ridge::sweep {

std::map<int, std::string> slurm_task_states(const std::string& job) {
  std::map<int, std::string> states;
  if (job.empty()) return states;
  if (auto squeue = find_on_path("squeue")) {
    auto run = run_program(*squeue, {"-h", "-r", "-j", job, "-o", "%K %T"});
    std::istringstream in(run.exit_code == 0 ? run.output : "");
    for (std::string task, state; in >> task >> state;)
      if (task.find_first_not_of("0123456789") == std::string::npos) states[std::stoi(task)] = state;
  }
  if (auto sacct = find_on_path("sacct")) {
    auto run = run_program(*sacct, {"-n", "-X", "-P", "-j", job, "-o", "JobID,State"});
    std::istringstream in(run.exit_code == 0 ? run.output : "");
    for (std::string line; std::getline(in, line);) {
      auto bar = line.find('|'), underscore = line.find('_');
      if (bar == std::string::npos || underscore == std::string::npos || underscore > bar) continue;
      auto task = line.substr(underscore + 1, bar - underscore - 1);
      if (task.empty() || task.find_first_not_of("0123456789") != std::string::npos) continue;
      states.emplace(std::stoi(task), line.substr(bar + 1));  // squeue's word wins: it is live
    }
  }
  return states;
}

std::vector<StoredSweep> sweeps_in_store(const std::string& store_path) {
  store::Store store(store_path, true);
  std::map<std::string, StoredSweep> sweeps;
  for (const auto& r : store.query({}, false)) {
    if (r.cell.sweep.empty()) continue;
    auto& s = sweeps[r.cell.sweep];
    s.name = r.cell.sweep;
    (r.status == "ok" ? s.done : s.failed) += 1;
    s.last_result = std::max(s.last_result, r.environment.created_at);
  }
  std::vector<StoredSweep> out;
  for (auto& [name, s] : sweeps) out.push_back(std::move(s));
  return out;
}

SweepStatus sweep_status(const std::string& sweep_file, const std::string& store_path, const std::string& slurm_dir,
                         const std::string& shard_stage) {
  auto matrix = read_matrix(sweep_file);
  auto dir = slurm_dir.empty() ? default_slurm_dir(matrix, store_path) : slurm_dir;
  // Shard stores not merged yet count too.
  std::vector<std::string> shard_stores;
  for (int k = 0; std::filesystem::exists(shard_store(dir, k)); ++k) shard_stores.push_back(shard_store(dir, k));
  std::map<std::string, std::string> status;
  if (std::filesystem::exists(store_path)) {
    store::Store store(store_path, true);
    status = stored_cell_status(matrix.name, store, shard_stores);
  } else if (!shard_stores.empty()) {
    store::Store first(shard_stores.front(), true);
    status = stored_cell_status(matrix.name, first, shard_stores);
  }
  auto jobs = recorded_jobs(dir);
  auto tasks = slurm_task_states(jobs.array_job);
  int64_t running_tasks = 0;
  for (const auto& [task, state] : tasks) running_tasks += state == "RUNNING";
  auto count = [&](const std::vector<Cell>& cells, int64_t& done, int64_t& failed) {
    for (const auto& c : cells) {
      auto it = status.find(c.key);
      if (it != status.end()) (it->second == "ok" ? done : failed) += 1;
    }
  };

  SweepStatus s;
  s.name = matrix.name;
  s.file = matrix.file;
  s.store = store_path;
  for (auto stage : {Stage::kSanity, Stage::kQuick, Stage::kFull}) {
    auto cells = expand(matrix, stage);
    StageCounts c{.stage = stage_name(stage), .cells = static_cast<int64_t>(cells.size())};
    count(cells, c.done, c.failed);
    int64_t left = c.cells - c.done - c.failed;
    // A running array task works on one cell of the full matrix at a time.
    c.running = std::min(left, running_tasks);
    c.pending = left - c.running;
    s.stages.push_back(c);
  }
  if (jobs.array_job.empty() && jobs.shards == 0) return s;
  s.array_job = jobs.array_job;
  s.merge_job = jobs.merge_job;
  s.slurm_dir = dir;
  s.shard_stage = shard_stage;
  auto full = expand(matrix, parse_stage(shard_stage));
  const bool have_squeue = find_on_path("squeue").has_value();
  for (int k = 0; k < jobs.shards; ++k) {
    auto mine = shard(full, k, jobs.shards);
    ShardState st{.shard = k, .shards = jobs.shards, .cells = static_cast<int64_t>(mine.size())};
    count(mine, st.done, st.failed);
    st.state = tasks.count(k)                    ? tasks[k]
               : !have_squeue                    ? "unknown (no squeue)"
               : st.done + st.failed == st.cells ? "ended"
                                                 : "not queued";
    s.shards.push_back(st);
  }
  return s;
}

}  // namespace ridge::sweep
