// `ridge sweep` as one call (report/sweep_request), in process: the cell list of a dry run, the SLURM scripts of a
// dry run, what it refuses, and a run whose cells are given by the caller (here: commands that fail), each with the
// bench cells' measurement options. tests/cli/test_sweep.cpp runs real cells through the binary.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>

#include "report/command_output.h"
#include "report/sweep_request.h"
#include "support/error_text.h"
#include "support/paths.h"
#include "support/sweep_fixtures.h"

namespace ridge::test {
namespace {

using namespace sweep_fixtures;  // NOLINT(google-build-using-namespace)

const report::Field& field(const report::Document& doc, const std::string& key) {
  for (const auto& f : doc.fields)
    if (f.key == key) return f;
  throw std::runtime_error("no field " + key);
}

struct Stores {
  std::map<std::string, std::unique_ptr<store::Store>> open;
  report::StoreOpener opener() {
    return [this](const std::string& path) -> store::Store& {
      auto& slot = open[path];
      if (!slot) slot = std::make_unique<store::Store>(path);
      return *slot;
    };
  }
};

report::SweepRequest request_for(const std::string& name) {
  report::SweepRequest r;
  r.file = write_sweep(name, "name: " + name + "\nmodels: [" + model_path("alexnet") + "]\nbatch: [1, 2]\n");
  auto dir = std::filesystem::path(temp_dir()) / ("sweep-request-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  r.store = (dir / "cells.db").string();
  return r;
}

const report::CellCommand kNoCell = [](const std::vector<std::string>&, const store::Cell&) -> report::CellRun {
  throw std::runtime_error("no cell runs here");
};

TEST(SweepRequest, DryRunListsTheCellsAndRunsNone) {
  auto r = request_for("dry");
  r.dry_run = true;
  Stores stores;
  auto out = report::run_sweep(r, stores.opener(), kNoCell);
  ASSERT_TRUE(out.document);
  EXPECT_TRUE(out.text.empty());
  EXPECT_EQ(out.exit_code, 0);
  EXPECT_EQ(out.document->command, "sweep");
}

TEST(SweepRequest, SlurmDryRunPrintsTheScriptsAndOpensNoStore) {
  auto r = request_for("slurmdry");
  r.slurm = r.dry_run = true;
  r.slurm_options.parallel = 2;
  r.slurm_options.dir = std::filesystem::path(r.store).parent_path().string() + "/slurm";
  r.measurement.max_time = 3;
  r.ridge_binary = "/opt/ridge/bin/ridge";
  Stores stores;
  auto out = report::run_sweep(r, stores.opener(), kNoCell);
  EXPECT_FALSE(out.document);
  EXPECT_TRUE(stores.open.empty());
  EXPECT_FALSE(std::filesystem::exists(r.store));
  EXPECT_EQ(out.text.rfind("# " + r.slurm_options.dir, 0), 0u) << out.text;
  EXPECT_NE(out.text.find("/opt/ridge/bin/ridge"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("--max-time 3"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("# submit: sbatch --parsable "), std::string::npos) << out.text;
  // SLURM shards the matrix itself.
  r.shard = "0/2";
  EXPECT_EQ(error_text([&] { report::run_sweep(r, stores.opener(), kNoCell); }),
            "--slurm shards the matrix itself: drop --shard");
}

TEST(SweepRequest, CellsRunThroughTheCallerAndFailuresAreCounted) {
  auto r = request_for("failing");
  r.stage = "full";
  r.measurement.no_per_node = true;
  Stores stores;
  std::vector<std::vector<std::string>> ran;
  std::vector<store::Cell> cells;
  auto out = report::run_sweep(r, stores.opener(), [&](const std::vector<std::string>& args, const store::Cell& cell) {
    ran.push_back(args);
    cells.push_back(cell);
    return report::CellRun{.exit_code = 1, .error = "no executor here"};
  });
  ASSERT_EQ(ran.size(), 2u);
  EXPECT_EQ(ran[0].front(), "bench");
  EXPECT_EQ(ran[0].back(), "--no-per-node");  // bench cells get the measurement options
  EXPECT_EQ(cells[1].sweep, "failing");
  EXPECT_EQ(cells[1].stage, "full");
  EXPECT_NE(cells[1].key.find("batch=2"), std::string::npos) << cells[1].key;
  EXPECT_EQ(out.exit_code, 1);
  ASSERT_TRUE(out.document);
  EXPECT_EQ(field(*out.document, "cells").json, 2);
}

// A cell runs with the invocation quiet, set to the cell and the sweep's store, its command line the cell's; the ids
// saved meanwhile are the cell's, and the invocation is put back after.
TEST(SweepRequest, ACellRunsInTheInvocationOfItsCellAndPutsItBack) {
  auto& inv = report::invocation();
  auto saved = inv;
  inv = report::Invocation{.command_line = "ridge sweep s.yaml", .quiet = false, .stored_ids = {7}};
  report::Invocation during;
  auto ran = report::run_cell({"bench", "m.onnx", "--batch", "2"}, store::Cell{.sweep = "s", .key = "m/b2"}, "cells.db",
                              [&](const std::vector<std::string>& args, std::string& error) {
                                during = report::invocation();
                                report::invocation().stored_ids.push_back(41);
                                report::invocation().stored_ids.push_back(42);
                                error = "failed: " + args.front();
                                return 3;
                              });
  auto after = report::invocation();
  inv = saved;
  EXPECT_TRUE(during.quiet);
  EXPECT_EQ(during.command_line, "ridge bench m.onnx --batch 2");
  EXPECT_EQ(during.store_path, "cells.db");
  EXPECT_EQ(during.cell.sweep, "s");
  EXPECT_EQ(during.cell.key, "m/b2");
  EXPECT_TRUE(during.stored_ids.empty()) << "the sweep's own ids are not the cell's";
  EXPECT_EQ(ran.exit_code, 3);
  EXPECT_EQ(ran.error, "failed: bench");
  EXPECT_EQ(ran.stored, (std::vector<int64_t>{41, 42}));
  EXPECT_EQ(after.command_line, "ridge sweep s.yaml");
  EXPECT_FALSE(after.quiet);
  EXPECT_TRUE(after.store_path.empty());
  EXPECT_EQ(after.stored_ids, (std::vector<int64_t>{7}));
}

}  // namespace
}  // namespace ridge::test
