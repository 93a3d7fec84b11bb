// Sweeps: run matrices read from YAML (checked, with the line of a bad key), their cells per stage and
// shard, and `ridge sweep` / `ridge status` through the real binary: cells stored as they complete,
// a rerun skipping them, a failed cell stored with its error while the others run, SLURM scripts.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "support/paths.h"
#include "sweep/matrix.h"
#include "sweep/progress.h"
#include "util/error.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;

std::string write_sweep(const std::string& name, const std::string& text) {
  auto path = temp_dir() + "/" + name + ".yaml";
  std::ofstream(path) << text;
  return path;
}

std::string message_of(const std::string& path) {
  try {
    sweep::read_matrix(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(SweepMatrix, CellsAreTheProductOfTheAxesPerModel) {
  auto path = write_sweep("product", "models: [" + model_path("alexnet") + ", " + model_path("mobilenet_v2") +
                                         "]\nbatch: [1, 8]\nmode: [eager, optimized]\nthreads: 2\n");
  auto m = sweep::read_matrix(path);
  EXPECT_EQ(m.name, "product");
  auto cells = sweep::expand(m, sweep::Stage::kFull);
  ASSERT_EQ(cells.size(), 8u);  // 2 models x 2 batches x 2 modes
  EXPECT_EQ(cells[0].key, "bench alexnet.onnx batch=1 mode=eager threads=2");
  EXPECT_EQ(cells[3].key, "bench alexnet.onnx batch=8 mode=optimized threads=2");
  EXPECT_EQ(cells[4].key, "bench mobilenet_v2.onnx batch=1 mode=eager threads=2");
  std::vector<std::string> want{"bench",  model_path("alexnet"), "--batch",   "8",
                                "--mode", "optimized",           "--threads", "2"};
  EXPECT_EQ(cells[3].args, want);
  // sanity: one cell per model, the first value of every axis.
  auto sanity = sweep::expand(m, sweep::Stage::kSanity);
  ASSERT_EQ(sanity.size(), 2u);
  EXPECT_EQ(sanity[1].key, "bench mobilenet_v2.onnx batch=1 mode=eager threads=2");
  // Shards partition the cells: every cell in exactly one.
  std::set<std::string> seen;
  for (int k = 0; k < 3; ++k)
    for (const auto& c : sweep::shard(cells, k, 3)) EXPECT_TRUE(seen.insert(c.key).second) << c.key;
  EXPECT_EQ(seen.size(), cells.size());
}

TEST(SweepMatrix, QuickStageSpreadsTenInputSizes) {
  std::string sizes;
  for (int s = 64; s <= 64 + 32 * 19; s += 32) sizes += (sizes.empty() ? "" : ", ") + std::to_string(s);
  auto m =
      sweep::read_matrix(write_sweep("sizes", "models: [" + model_path("alexnet") + "]\ninput: [" + sizes + "]\n"));
  EXPECT_EQ(sweep::expand(m, sweep::Stage::kFull).size(), 20u);
  auto quick = sweep::expand(m, sweep::Stage::kQuick);
  ASSERT_EQ(quick.size(), 10u);
  // Index i * 19 / 9 of the 20 sizes: both ends included.
  EXPECT_EQ(quick.front().key, "bench alexnet.onnx input=64");
  EXPECT_EQ(quick[1].key, "bench alexnet.onnx input=128");  // index 2
  EXPECT_EQ(quick.back().key, "bench alexnet.onnx input=672");
  std::vector<std::string> args{"bench", model_path("alexnet"), "--sweep", "input=672"};
  EXPECT_EQ(quick.back().args, args);
}

TEST(SweepMatrix, OptimizerOnlyMultipliesTrainingCellsAndDevicesAddPredictions) {
  auto m = sweep::read_matrix(write_sweep("train", "models: [" + model_path("alexnet") +
                                                       "]\ntraining: [false, true]\noptimizer: [sgd, adam]\n"
                                                       "batch: [2]\ndevices: [t4, h100-sxm]\n"));
  auto cells = sweep::expand(m, sweep::Stage::kFull);
  std::vector<std::string> keys;
  for (const auto& c : cells) keys.push_back(c.key);
  std::vector<std::string> want{
      "bench alexnet.onnx batch=2 training=false",
      "predict alexnet.onnx device=t4 batch=2 training=false",
      "predict alexnet.onnx device=h100-sxm batch=2 training=false",
      "bench alexnet.onnx batch=2 training=true optimizer=sgd",
      "predict alexnet.onnx device=t4 batch=2 training=true optimizer=sgd",
      "predict alexnet.onnx device=h100-sxm batch=2 training=true optimizer=sgd",
      "bench alexnet.onnx batch=2 training=true optimizer=adam",
      "predict alexnet.onnx device=t4 batch=2 training=true optimizer=adam",
      "predict alexnet.onnx device=h100-sxm batch=2 training=true optimizer=adam",
  };
  EXPECT_EQ(keys, want);
  std::vector<std::string> predict{"predict", model_path("alexnet"), "--device",    "h100-sxm", "--batch",
                                   "2",       "--training",          "--optimizer", "adam"};
  EXPECT_EQ(cells.back().args, predict);
}

TEST(SweepMatrix, BadFilesAreNamedWithTheirLine) {
  auto model = model_path("alexnet");
  EXPECT_NE(message_of(write_sweep("typo", "models: [" + model + "]\nbatchsize: [1]\n"))
                .find("typo.yaml:2: unknown key 'batchsize'"),
            std::string::npos);
  EXPECT_NE(message_of(write_sweep("mode", "models: [" + model + "]\nmode: [eager, fast]\n"))
                .find("'fast' is not one of eager, optimized"),
            std::string::npos);
  EXPECT_NE(
      message_of(write_sweep("batch0", "models: [" + model + "]\nbatch: [0]\n")).find("'0' is not a whole number"),
      std::string::npos);
  EXPECT_NE(message_of(write_sweep("nomodel", "batch: [1]\n")).find("no models"), std::string::npos);
  EXPECT_NE(message_of(write_sweep("missing", "models: [nowhere.onnx]\n")).find("no file 'nowhere.onnx'"),
            std::string::npos);
  EXPECT_NE(message_of(write_sweep("twice", "models: [" + model + "]\nbatch: [1, 1]\n")).find("'1' is listed twice"),
            std::string::npos);
  EXPECT_NE(message_of(write_sweep("yaml", "models: [" + model + "\n")).find("not valid YAML"), std::string::npos);
  EXPECT_NE(message_of(write_sweep("inputdev", "models: [" + model + "]\ninput: [224]\ndevices: [t4]\n"))
                .find("predictions cannot take an input size"),
            std::string::npos);
  EXPECT_NE(
      message_of(write_sweep("opt", "models: [" + model + "]\noptimizer: [adam]\n")).find("optimizer without training"),
      std::string::npos);
}

TEST(SweepProgress, EtaSpreadsTheTimeSoFarOverTheCostLeft) {
  std::FILE* sink = std::tmpfile();
  sweep::Progress progress({1.0, 3.0, 4.0}, false, sink);
  EXPECT_LT(progress.eta_s(), 0);  // nothing finished: unknown
  progress.started(0, "a");
  progress.finished(0, true, "a");
  double per_unit = progress.eta_s() / 7.0;  // 7 units left after the first (cost 1)
  EXPECT_GE(per_unit, 0);
  EXPECT_EQ(sweep::Progress::clock_text(200), "3m20s");
  EXPECT_EQ(sweep::Progress::clock_text(3720), "1h02m");
  EXPECT_EQ(sweep::Progress::clock_text(45), "45s");
  std::fclose(sink);
}

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

}  // namespace
}  // namespace ridge::test

namespace ridge::test {
namespace {

// A sweep killed with SIGKILL keeps every cell that completed: the rerun skips them and runs the rest.
TEST(SweepCli, AKillLosesAtMostTheCellInFlight) {
  auto dir = temp_dir() + "/sweep-kill";
  fs::create_directories(dir);
  auto file = write_sweep("kill", "models: [" + model_path("alexnet") + "]\nbatch: [1, 2, 3, 4, 5, 6]\nthreads: [1]\n");
  auto store = dir + "/store.db";
  std::string sweep =
      std::string(RIDGE_BINARY) + " sweep " + file + " --store " + store + " --max-time 0.3 --warmup 0 --no-per-node";
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
