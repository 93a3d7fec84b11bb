#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <sstream>

#include "cli/command.h"
#include "cli/output_options.h"
#include "cli/store_options.h"
#include "store/store.h"
#include "sweep/matrix.h"
#include "sweep/runner.h"
#include "sweep/slurm.h"
#include "util/error.h"
#include "util/program.h"

namespace ridge::cli {
namespace {

struct StatusOptions {
  std::string file, store, slurm_dir, stage = "full", format = "table";
};

// The state of each array task of `job` from squeue (queued or running) or, once it has left the
// queue, sacct; empty when neither knows it.
std::map<int, std::string> task_states(const std::string& job) {
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

report::Document sweeps_in_store(const std::string& path) {
  store::Store store(path, true);
  struct Counts {
    int64_t done = 0, failed = 0;
    std::string last;
  };
  std::map<std::string, Counts> sweeps;
  for (const auto& r : store.query({}, false)) {
    if (r.cell.sweep.empty()) continue;
    auto& c = sweeps[r.cell.sweep];
    (r.status == "ok" ? c.done : c.failed) += 1;
    c.last = std::max(c.last, r.environment.created_at);
  }
  report::Document doc;
  doc.command = "status";
  doc.subject = path;
  doc.field("store", "store", path, path);
  auto& t = doc.table("sweeps", "");
  t.column({.key = "sweep"}).column({.key = "done"}).column({.key = "failed"}).column({.key = "last_result"});
  for (const auto& [name, c] : sweeps) t.add({name, c.done, c.failed, c.last});
  t.footer.push_back("give a sweep file for pending and running cells per stage and shard");
  return doc;
}

int run_status(const StatusOptions& o) {
  auto path = store_path(StoreOptions{o.store, false});
  if (o.file.empty()) {
    emit(sweeps_in_store(path), o.format);
    return 0;
  }
  auto matrix = sweep::read_matrix(o.file);
  auto dir = o.slurm_dir.empty() ? sweep::default_slurm_dir(matrix, path) : o.slurm_dir;
  // Shard stores not merged yet count too.
  std::vector<std::string> shard_stores;
  for (int k = 0; std::filesystem::exists(sweep::shard_store(dir, k)); ++k)
    shard_stores.push_back(sweep::shard_store(dir, k));
  std::map<std::string, std::string> status;
  if (std::filesystem::exists(path)) {
    store::Store store(path, true);
    status = sweep::stored_cell_status(matrix.name, store, shard_stores);
  } else if (!shard_stores.empty()) {
    store::Store first(shard_stores.front(), true);
    status = sweep::stored_cell_status(matrix.name, first, shard_stores);
  }
  auto jobs = sweep::recorded_jobs(dir);
  auto tasks = task_states(jobs.array_job);
  int shards = jobs.shards;
  int64_t running_tasks = 0;
  for (const auto& [task, state] : tasks) running_tasks += state == "RUNNING";

  report::Document doc;
  doc.command = "status";
  doc.subject = matrix.name;
  doc.field("sweep", "sweep", fmt::format("{} ({})", matrix.name, matrix.file), matrix.name);
  doc.field("store", "store", path, path);
  auto& stages = doc.table("stages", "");
  stages.column({.key = "stage"})
      .column({.key = "cells"})
      .column({.key = "done"})
      .column({.key = "failed"})
      .column({.key = "running"})
      .column({.key = "pending"});
  int64_t chosen[4] = {0, 0, 0, 0};
  for (auto stage : {sweep::Stage::kSanity, sweep::Stage::kQuick, sweep::Stage::kFull}) {
    auto cells = sweep::expand(matrix, stage);
    int64_t done = 0, failed = 0;
    for (const auto& c : cells) {
      auto it = status.find(c.key);
      if (it == status.end()) continue;
      (it->second == "ok" ? done : failed) += 1;
    }
    int64_t left = static_cast<int64_t>(cells.size()) - done - failed;
    // A running array task works on one cell of the full matrix at a time.
    int64_t running = std::min(left, running_tasks);
    stages.add({sweep::stage_name(stage), static_cast<int64_t>(cells.size()), done, failed, running, left - running});
    if (sweep::stage_name(stage) == o.stage)
      chosen[0] = done, chosen[1] = failed, chosen[2] = running, chosen[3] = left - running;
  }
  doc.field("done", "", "", chosen[0], report::kJson);
  doc.field("failed", "", "", chosen[1], report::kJson);
  doc.field("running", "", "", chosen[2], report::kJson);
  doc.field("pending", "", "", chosen[3], report::kJson);
  if (!jobs.array_job.empty() || shards > 0) {
    auto full = sweep::expand(matrix, sweep::parse_stage(o.stage));
    auto& t =
        doc.table("shards", fmt::format("SLURM array job {} (merge job {}), {}:", jobs.array_job, jobs.merge_job, dir));
    t.column({.key = "shard"})
        .column({.key = "cells"})
        .column({.key = "done"})
        .column({.key = "failed"})
        .column({.key = "state"});
    for (int k = 0; k < shards; ++k) {
      auto mine = sweep::shard(full, k, shards);
      int64_t done = 0, failed = 0;
      for (const auto& c : mine) {
        auto it = status.find(c.key);
        if (it != status.end()) (it->second == "ok" ? done : failed) += 1;
      }
      std::string state = tasks.count(k)                                       ? tasks[k]
                          : !find_on_path("squeue")                            ? "unknown (no squeue)"
                          : done + failed == static_cast<int64_t>(mine.size()) ? "ended"
                                                                               : "not queued";
      t.add({fmt::format("{}/{}", k, shards), static_cast<int64_t>(mine.size()), done, failed, state});
    }
  }
  emit(doc, o.format);
  return 0;
}

}  // namespace

Command add_status_command(CLI::App& parent) {
  auto o = std::make_shared<StatusOptions>();
  auto* app = parent.add_subcommand("status", "a sweep's cells done / running / failed / pending, per stage and shard");
  app->add_option("file", o->file, "the sweep file (without one: the sweeps in the store and their counts)");
  app->add_option("--store", o->store, "results store (default: $RIDGE_STORE, else ./ridge-results.db)");
  app->add_option("--slurm-dir", o->slurm_dir, "the sweep's SLURM directory, when not the default");
  app->add_option("--stage", o->stage, "the stage whose counts JSON reports at the top level (default full)")
      ->check(CLI::IsMember({"sanity", "quick", "full"}));
  add_format_option(*app, o->format);
  app->footer(
      "Counts come from the store and the shard stores not merged yet; running array tasks from squeue, and\n"
      "the state of finished ones from sacct, when they are on PATH.\n"
      "Examples:\n"
      "  ridge status\n"
      "  ridge status study.yaml -f json");
  return {app, [o] { return run_status(*o); }};
}

}  // namespace ridge::cli
