// `ridge bench`'s entry point in process: sweeps of batch and input size crossed with modes, training steps, and
// every point checked before anything is measured; --sweep bound into the request, and the options refused together.
#include <gtest/gtest.h>

#include <utility>

#include "exec/bench.h"
#include "support/error_text.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

exec::BenchRequest quick_request(const std::string& model) {
  exec::BenchRequest r;
  r.model.model_path = model_path(model);
  r.exec.threads = 1;
  r.max_time_s = 0.3;
  r.warmup_s = 0;
  r.per_node = false;
  return r;
}

TEST(Bench, SweepsAndModesInOneCall) {
  auto r = quick_request("mobilenet_v2");
  r.batches = {1, 2};
  r.exec.mode = exec::kBothModes;
  std::vector<std::string> labels;
  exec::BenchHooks hooks;
  hooks.on_result = [&](size_t, size_t total, const std::string& label, const exec::BenchResult&) {
    EXPECT_EQ(total, 4u);
    labels.push_back(label);
  };
  auto outcome = exec::bench(r, hooks);
  EXPECT_TRUE(outcome.failures.empty());
  ASSERT_EQ(outcome.runs.size(), 4u);
  EXPECT_EQ(labels, (std::vector<std::string>{"batch 1, eager auto", "batch 1, optimized auto", "batch 2, eager auto",
                                              "batch 2, optimized auto"}));
  std::vector<std::pair<int64_t, std::string>> points;
  for (const auto& run : outcome.runs) points.emplace_back(run.batch, run.mode);
  EXPECT_EQ(points, (std::vector<std::pair<int64_t, std::string>>{
                        {1, "eager"}, {1, "optimized"}, {2, "eager"}, {2, "optimized"}}));
  EXPECT_TRUE(outcome.runs[0].random_weights);
  EXPECT_EQ(outcome.runs[0].model, model_path("mobilenet_v2"));
  // Optimized mode folds the shape subgraph and the exporter's leftovers: fewer nodes run.
  EXPECT_LT(outcome.runs[1].executed_nodes, outcome.runs[0].executed_nodes);
}

TEST(Bench, InputSizeSweepOnBundledCnn) {
  auto r = quick_request("mobilenet_v2");
  r.max_time_s = 0.05;
  r.input_sizes = {64, 96};
  auto outcome = exec::bench(r, {});
  ASSERT_EQ(outcome.runs.size(), 2u);
  EXPECT_EQ(outcome.runs[0].input_size, "64");
  EXPECT_EQ(outcome.runs[1].input_size, "96");
}

TEST(Bench, InputSizeSweepAndTraining) {
  auto r = quick_request("lstm_2layer");
  r.per_node = true;
  r.input_sizes = {5, 9};
  r.model.options.training = true;
  r.model.options.optimizer = cost::Optimizer::kAdam;
  r.iters = 2;
  auto outcome = exec::bench(r, {});
  ASSERT_EQ(outcome.runs.size(), 2u);
  EXPECT_EQ(outcome.runs[0].input_size, "5");
  EXPECT_EQ(outcome.runs[1].input_size, "9");
  EXPECT_TRUE(outcome.runs[0].training);
  EXPECT_EQ(outcome.runs[0].latency_ms.samples, 2);
  EXPECT_EQ(outcome.runs[0].training_losses.size(), 2u);
}

TEST(Bench, APointThatDoesNotBindIsNamedBeforeAnythingRuns) {
  // AlexNet's classifier takes 256*6*6 features: at 320 they no longer fit.
  auto r = quick_request("alexnet");
  r.input_sizes = {224, 320};
  bool measured = false;
  exec::BenchHooks hooks;
  hooks.on_result = [&](size_t, size_t, const std::string&, const exec::BenchResult&) { measured = true; };
  try {
    (void)exec::bench(r, hooks);
    FAIL() << "input 320 was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("input 320: ", 0), 0u) << e.what();
  }
  EXPECT_FALSE(measured);
}

TEST(BenchSweeps, BatchAndInputSweepsBindTheRequest) {
  exec::BenchRequest r;
  exec::bind_sweeps(r, {"batch=1,2,4", "input=224,256"});
  EXPECT_EQ(r.batches, (std::vector<int64_t>{1, 2, 4}));
  EXPECT_EQ(r.input_sizes, (std::vector<int64_t>{224, 256}));
  exec::BenchRequest none;
  exec::bind_sweeps(none, {});
  EXPECT_EQ(none.batches, (std::vector<int64_t>{0}));  // as bound
  EXPECT_EQ(none.input_sizes, (std::vector<int64_t>{0}));
  // With --inputs and nothing swept or bound, the request stands.
  none.exec.inputs_dir = "inputs/";
  EXPECT_EQ(error_text([&] { exec::bind_sweeps(none, {}); }), "accepted");
}

TEST(BenchSweeps, OptionsThatCannotGoTogetherAreRefused) {
  auto error = [](exec::BenchRequest r, const std::vector<std::string>& sweeps) {
    return error_text([&] { exec::bind_sweeps(r, sweeps); });
  };
  exec::BenchRequest plain;
  EXPECT_EQ(error(plain, {"seq=128"}), "--sweep seq: bench sweeps batch=... and input=...");
  EXPECT_EQ(error(plain, {"batch=0"}), "--sweep batch: 0 is not a positive integer");
  auto given = plain;
  given.exec.inputs_dir = "inputs/";
  EXPECT_EQ(error(given, {"batch=1,2"}), "--inputs fixes the input shapes: it cannot be swept");
  EXPECT_EQ(error(given, {"input=64"}), "--inputs fixes the input shapes: it cannot be swept");
  auto batched = given;
  batched.model.bindings.batch = 2;
  EXPECT_EQ(error(batched, {}), "--inputs fixes the input shapes: --batch, --dim and --input cannot change them");
  auto dimmed = given;
  dimmed.model.bindings.dims["seq"] = 8;
  EXPECT_EQ(error(dimmed, {}), "--inputs fixes the input shapes: --batch, --dim and --input cannot change them");
  auto batch = plain;
  batch.model.bindings.batch = 8;
  EXPECT_EQ(error(batch, {"batch=1,2"}), "--sweep batch=... and --batch 8 both set the batch: give one");
  EXPECT_EQ(error(batch, {"input=64"}), "accepted");  // the batch stays, the input size is swept
  auto shaped = plain;
  shaped.model.bindings.inputs["image"] = {1, 3, 64, 64};
  EXPECT_EQ(error(shaped, {"input=64"}), "--sweep input=... and --input both set the input shape: give one");
  EXPECT_EQ(error(shaped, {"batch=2"}), "accepted");
}

}  // namespace
}  // namespace ridge::test
