#include "report/status_report.h"

#include <fmt/format.h>

#include "report/format.h"

namespace ridge::report {

Document sweep_summary_document(const sweep::Matrix& matrix, const std::string& stage, const std::string& shard,
                                const std::string& store_path, const sweep::RunSummary& summary) {
  Document doc;
  doc.command = "sweep";
  doc.subject = matrix.name;
  doc.field("sweep", "sweep", fmt::format("{} ({})", matrix.name, matrix.file), matrix.name);
  doc.field("stage", "stage", stage + (shard.empty() ? "" : ", shard " + shard), stage);
  doc.field("store", "store", store_path, store_path);
  doc.field("cells", "cells", std::to_string(summary.cells), static_cast<int64_t>(summary.cells));
  doc.field("skipped", "already stored (skipped)", std::to_string(summary.skipped),
            static_cast<int64_t>(summary.skipped));
  doc.field("done", "run now", std::to_string(summary.done), static_cast<int64_t>(summary.done));
  doc.field("failed", "failed", std::to_string(summary.failed), static_cast<int64_t>(summary.failed));
  doc.field("seconds", "time", duration(summary.seconds), summary.seconds);
  doc.field("overhead_per_cell_s", "sweep overhead per cell",
            summary.done + summary.failed ? duration(summary.overhead_per_cell_s()) : "-",
            summary.overhead_per_cell_s());
  auto& t = doc.table("failures", "failed cells (stored with their error; a rerun retries them):");
  t.column({.key = "cell"}).column({.key = "error"});
  for (const auto& [cell, error] : summary.failures) t.add({cell, error});
  if (summary.failures.empty()) t.audience = kJson;  // people need no empty table
  doc.csv_table = "failures";
  return doc;
}

Document stored_sweeps_document(const std::vector<sweep::StoredSweep>& sweeps, const std::string& store_path) {
  Document doc;
  doc.command = "status";
  doc.subject = store_path;
  doc.field("store", "store", store_path, store_path);
  auto& t = doc.table("sweeps", "");
  t.column({.key = "sweep"}).column({.key = "done"}).column({.key = "failed"}).column({.key = "last_result"});
  for (const auto& s : sweeps) t.add({s.name, s.done, s.failed, s.last_result});
  t.footer.push_back("give a sweep file for pending and running cells per stage and shard");
  return doc;
}

Document sweep_status_document(const sweep::SweepStatus& s, const std::string& stage) {
  Document doc;
  doc.command = "status";
  doc.subject = s.name;
  doc.field("sweep", "sweep", fmt::format("{} ({})", s.name, s.file), s.name);
  doc.field("store", "store", s.store, s.store);
  auto& stages = doc.table("stages", "");
  stages.column({.key = "stage"})
      .column({.key = "cells"})
      .column({.key = "done"})
      .column({.key = "failed"})
      .column({.key = "running"})
      .column({.key = "pending"});
  sweep::StageCounts chosen;
  for (const auto& c : s.stages) {
    stages.add({c.stage, c.cells, c.done, c.failed, c.running, c.pending});
    if (c.stage == stage) chosen = c;
  }
  doc.field("done", "", "", chosen.done, kJson);
  doc.field("failed", "", "", chosen.failed, kJson);
  doc.field("running", "", "", chosen.running, kJson);
  doc.field("pending", "", "", chosen.pending, kJson);
  if (!s.array_job.empty() || !s.shards.empty()) {
    auto& t = doc.table("shards",
                        fmt::format("SLURM array job {} (merge job {}), {}:", s.array_job, s.merge_job, s.slurm_dir));
    t.column({.key = "shard"})
        .column({.key = "cells"})
        .column({.key = "done"})
        .column({.key = "failed"})
        .column({.key = "state"});
    for (const auto& sh : s.shards)
      t.add({fmt::format("{}/{}", sh.shard, sh.shards), sh.cells, sh.done, sh.failed, sh.state});
  }
  return doc;
}

Document sweep_plan_document(const sweep::Matrix& m, const std::vector<sweep::Cell>& cells,
                             const std::map<std::string, std::string>& status, const std::string& stage) {
  Document doc;
  doc.command = "sweep";
  doc.subject = m.name;
  doc.field("sweep", "sweep", fmt::format("{} ({}), stage {}", m.name, m.file, stage), m.name);
  auto& t = doc.table("cells", "");
  t.column({.key = "index", .title = "#"}).column({.key = "cell"}).column({.key = "stored"}).column({.key = "command"});
  for (const auto& c : cells) {
    auto it = status.find(c.key);
    std::string line = "ridge";
    for (const auto& a : c.args) line += " " + a;
    t.add({static_cast<int64_t>(c.index), c.key, it == status.end() ? "no" : it->second, line});
  }
  return doc;
}

}  // namespace ridge::report
