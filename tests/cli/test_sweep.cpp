// `ridge sweep` / `ridge status` through the real binary: cells stored as they complete, a rerun skipping
// them, a failed cell stored with its error while the others run, SLURM scripts, a kill.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "support/paths.h"
#include "support/sweep_fixtures.h"
#include "sweep/matrix.h"
#include "sweep/progress.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using namespace sweep_fixtures;  // NOLINT(google-build-using-namespace)

namespace fs = std::filesystem;

TEST(SweepCli, CellsAreStoredSkippedOnRerunAndFailuresKept) {
  auto dir = temp_dir() + "/sweep-run";
  fs::create_directories(dir);
  // A file that is not ONNX: its cells fail, the others still run.
  std::ofstream(dir + "/broken.onnx") << "not a model";
  auto file = write_sweep("run", "name: run-test\nmodels: [" + model_path("alexnet") + ", " + dir +
                                     "/broken.onnx]\nbatch: [1, 2]\ndevices: [t4]\nmeasure: false\n");
  auto store = dir + "/store.db";
  auto first = run_ridge("sweep " + file + " --store " + store + " -f json");
  EXPECT_EQ(first.exit_code, 1) << first.err;
  auto summary = nlohmann::json::parse(first.out);
  EXPECT_EQ(summary["cells"], 4);
  EXPECT_EQ(summary["done"], 2);
  EXPECT_EQ(summary["failed"], 2);
  ASSERT_EQ(summary["failures"].size(), 2u);
  EXPECT_NE(summary["failures"][0]["error"].get<std::string>().find("broken.onnx"), std::string::npos)
      << summary["failures"][0];
  // Plain progress lines (stderr is not a terminal here), one per cell.
  EXPECT_NE(first.err.find("sweep: [4/4]"), std::string::npos) << first.err;
  // Stored: two predictions and two failed cells with their errors.
  auto results = nlohmann::json::parse(run_ridge("results --store " + store + " -f json").out)["results"];
  ASSERT_EQ(results.size(), 4u);
  int ok = 0;
  for (const auto& r : results) {
    EXPECT_EQ(r["sweep"], "run-test");
    EXPECT_EQ(r["stage"], "full");
    ok += r["status"] == "ok";
    if (r["status"] == "failed") {
      EXPECT_FALSE(r["error"].get<std::string>().empty());
    }
  }
  EXPECT_EQ(ok, 2);
  // A rerun skips the two done cells and retries the failed ones.
  auto second = nlohmann::json::parse(run_ridge("sweep " + file + " --store " + store + " -f json").out);
  EXPECT_EQ(second["skipped"], 2);
  EXPECT_EQ(second["failed"], 2);
  EXPECT_EQ(second["done"], 0);
  auto status = nlohmann::json::parse(run_ridge("status " + file + " --store " + store + " -f json").out);
  EXPECT_EQ(status["done"], 2);
  EXPECT_EQ(status["failed"], 2);
  EXPECT_EQ(status["pending"], 0);
  EXPECT_EQ(status["running"], 0);
  // Without a file: the sweeps in the store.
  auto sweeps = nlohmann::json::parse(run_ridge("status --store " + store + " -f json").out)["sweeps"];
  ASSERT_EQ(sweeps.size(), 1u);
  EXPECT_EQ(sweeps[0]["sweep"], "run-test");
  EXPECT_EQ(sweeps[0]["done"], 2);
  EXPECT_EQ(sweeps[0]["failed"], 4);
}

TEST(SweepCli, BenchCellsTakeTheMeasurementOptionsAndStagesShareCells) {
  auto dir = temp_dir() + "/sweep-bench";
  fs::create_directories(dir);
  auto file = write_sweep("bench", "models: [" + model_path("alexnet") + "]\nbatch: [1, 2]\nthreads: [1]\n");
  auto store = dir + "/store.db";
  auto sanity = run_ridge("sweep " + file + " --store " + store +
                          " --stage sanity --max-time 0.1 --warmup 0 --min-runs 2 --no-per-node -f json");
  ASSERT_EQ(sanity.exit_code, 0) << sanity.err;
  EXPECT_EQ(nlohmann::json::parse(sanity.out)["done"], 1);
  auto results = nlohmann::json::parse(run_ridge("results --store " + store + " -f json").out)["results"];
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0]["batch"], 1);
  EXPECT_EQ(results[0]["stage"], "sanity");
  EXPECT_NE(results[0]["command_line"].get<std::string>().find("--max-time 0.1"), std::string::npos)
      << results[0]["command_line"];
  EXPECT_NE(results[0]["command_line"].get<std::string>().find("--no-per-node"), std::string::npos);
  // The full stage reuses the sanity cell and runs only the other.
  auto full = nlohmann::json::parse(
      run_ridge("sweep " + file + " --store " + store + " --max-time 0.1 --warmup 0 --min-runs 2 --no-per-node -f json")
          .out);
  EXPECT_EQ(full["skipped"], 1);
  EXPECT_EQ(full["done"], 1);
  // --dry-run lists the cells and what the store holds, and runs nothing.
  auto plan = nlohmann::json::parse(run_ridge("sweep " + file + " --store " + store + " --dry-run -f json").out);
  ASSERT_EQ(plan["cells"].size(), 2u);
  EXPECT_EQ(plan["cells"][1]["stored"], "ok");
}

TEST(SweepCli, SlurmDryRunPrintsTheArrayAndTheMergeJob) {
  auto file = write_sweep("slurmplan", "name: plan\nmodels: [" + model_path("alexnet") + "]\nbatch: [1, 2, 4]\n");
  auto r =
      run_ridge("sweep " + file + " --store " + temp_dir() +
                "/plan.db --slurm --parallel 2 --partition gpu --gres gpu:1 --time 01:00:00 --max-time 3 --dry-run");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("#SBATCH --array=0-1\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("#SBATCH --partition=gpu\n"), std::string::npos);
  EXPECT_NE(r.out.find("#SBATCH --gres=gpu:1\n"), std::string::npos);
  EXPECT_NE(r.out.find("#SBATCH --time=01:00:00\n"), std::string::npos);
  EXPECT_NE(r.out.find("--shard \"${SLURM_ARRAY_TASK_ID}/2\""), std::string::npos);
  EXPECT_NE(r.out.find("--max-time 3"), std::string::npos);
  EXPECT_NE(r.out.find("store merge"), std::string::npos);
  EXPECT_NE(r.out.find("--dependency=afterany:"), std::string::npos);
  EXPECT_FALSE(fs::exists(temp_dir() + "/ridge-slurm/plan"));  // a dry run writes nothing
  // More shards than cells: one per cell.
  auto small = run_ridge("sweep " + file + " --store " + temp_dir() + "/plan.db --slurm --parallel 16 --dry-run");
  EXPECT_NE(small.out.find("#SBATCH --array=0-2\n"), std::string::npos) << small.out;
  auto bad = run_ridge("sweep " + file + " --shard 3/2");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("--shard '3/2'"), std::string::npos) << bad.err;
}

// A sweep killed with SIGKILL keeps every cell that completed: the rerun skips them and runs the rest.
TEST(SweepCli, AKillLosesAtMostTheCellInFlight) {
  auto dir = temp_dir() + "/sweep-kill";
  fs::create_directories(dir);
  auto file = write_sweep("kill", "models: [" + model_path("alexnet") + "]\nbatch: [1, 2, 3, 4, 5, 6]\nthreads: [1]\n");
  auto store = dir + "/store.db";
  std::string sweep =
      ridge_binary() + " sweep " + file + " --store " + store + " --max-time 0.3 --warmup 0 --no-per-node";
  auto pid_file = dir + "/pid";
  ASSERT_EQ(std::system((sweep + " >/dev/null 2>&1 & echo $! > " + pid_file).c_str()), 0);
  std::string pid;
  std::ifstream(pid_file) >> pid;
  ASSERT_FALSE(pid.empty());
  // Wait for the first stored cell (up to 60 s on a loaded machine), then kill the sweep mid-run.
  size_t stored = 0;
  for (int i = 0; i < 600 && stored == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (!fs::exists(store)) continue;
    auto listed = run_ridge("results --store " + store + " -f json");
    if (listed.exit_code == 0) stored = nlohmann::json::parse(listed.out)["results"].size();
  }
  ASSERT_EQ(std::system(("kill -9 " + pid + " 2>/dev/null").c_str()), 0) << "the sweep ended before it was killed";
  ASSERT_GE(stored, 1u);
  auto kept = nlohmann::json::parse(run_ridge("results --store " + store + " -f json").out)["results"].size();
  EXPECT_GE(kept, stored);
  EXPECT_LT(kept, 6u);
  auto rerun = run_ridge("sweep " + file + " --store " + store + " --max-time 0.3 --warmup 0 --no-per-node -f json");
  ASSERT_EQ(rerun.exit_code, 0) << rerun.err;
  auto summary = nlohmann::json::parse(rerun.out);
  EXPECT_EQ(summary["skipped"].get<size_t>(), kept);
  EXPECT_EQ(summary["done"].get<size_t>(), 6 - kept);
  auto all = nlohmann::json::parse(run_ridge("results --store " + store + " -f json").out)["results"];
  EXPECT_EQ(all.size(), 6u);  // each cell once
}

}  // namespace
}  // namespace ridge::test
