// Sweeps: run matrices read from YAML (checked, with the line of a bad key), their cells per stage and
// shard, and the progress estimate.
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

TEST(SweepMatrix, ShardsAreKOfN) {
  EXPECT_EQ(sweep::parse_shard("0/1"), (std::pair<int, int>{0, 1}));
  EXPECT_EQ(sweep::parse_shard("3/4"), (std::pair<int, int>{3, 4}));
  for (const char* bad : {"4/4", "-1/3", "1-2", "a/b", "1/0", "1/2x", ""}) {
    try {
      sweep::parse_shard(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("give K/N"), std::string::npos) << e.what();
    }
  }
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

}  // namespace
}  // namespace ridge::test
