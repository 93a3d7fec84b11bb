// `ridge tune` as one call (report/tune_request): the modes searched, the best one and its commands, and what it
// refuses, in process.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "hw/device_db.h"
#include "report/tune_request.h"
#include "store/store.h"
#include "support/error_text.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

report::TuneRequest alexnet_on(const std::string& device) {
  report::TuneRequest r;
  r.model.model_path = model_path("alexnet");
  r.batches = {1, 8};
  r.device = device;
  r.options.named_only = true;
  return r;
}

TEST(TuneRequest, EveryNamedModeAtEveryBatch) {
  auto t = report::tune_model(alexnet_on("jetson-agx-orin-64gb"));
  auto device = hw::find_device("jetson-agx-orin-64gb");
  EXPECT_EQ(t.device_id, "jetson-agx-orin-64gb");
  // Named modes only, each at both batch sizes.
  EXPECT_EQ(t.result.modes.size(), 2 * device.modes.size());
  ASSERT_TRUE(t.result.best);
  EXPECT_EQ(t.context.batches, (std::vector<int64_t>{1, 8}));
  EXPECT_EQ(t.context.precision, "fp32");
  // A named mode is set with nvpmodel.
  ASSERT_FALSE(t.context.commands.empty());
  EXPECT_NE(t.context.commands.front().find("nvpmodel"), std::string::npos) << t.context.commands.front();
  EXPECT_TRUE(t.context.applied.empty());
}

TEST(TuneRequest, RefusesAModeTheHostAndApplyingOffAJetson) {
  EXPECT_NE(error_text([] { report::tune_model(alexnet_on("jetson-agx-orin-64gb:MAXN")); }).find("without ':MAXN'"),
            std::string::npos);
  EXPECT_NE(error_text([] { report::tune_model(alexnet_on("host")); }).find("ridge ert --profile"), std::string::npos);
  auto apply = alexnet_on("h100-sxm");
  apply.apply = true;
  EXPECT_NE(error_text([&] { report::tune_model(apply); }).find("not a Jetson module; nothing was changed"),
            std::string::npos);
}

// --sweep's batch sizes: the model's batch without one (1 unbound), batch=... only, never beside --batch.
TEST(TuneRequest, BatchesFromTheSweep) {
  analysis::Request model;
  EXPECT_EQ(report::tune_batches(model, ""), (std::vector<int64_t>{1}));
  EXPECT_EQ(report::tune_batches(model, "batch=1,4,16"), (std::vector<int64_t>{1, 4, 16}));
  EXPECT_EQ(error_text([&] { report::tune_batches(model, "seq=128,256"); }),
            "tune sweeps batch sizes only: --sweep batch=v1,v2,...");
  model.bindings.batch = 8;
  EXPECT_EQ(report::tune_batches(model, ""), (std::vector<int64_t>{8}));
  EXPECT_EQ(error_text([&] { report::tune_batches(model, "batch=1,2"); }),
            "--sweep batch=... and --batch 8 both set the batch: give one");
}

// --latency-max is in ms and --power-max in W; 0 is no limit. The store keeps the device as found and the precision
// predicted, with the batch when one was compared.
TEST(TuneRequest, LimitsAndStoredParams) {
  roofline::TuneOptions options;
  report::set_tune_limits(options, "edp", 20, 0);
  EXPECT_EQ(options.objective, roofline::Objective::kEdp);
  ASSERT_TRUE(options.latency_max_s);
  EXPECT_DOUBLE_EQ(*options.latency_max_s, 0.02);
  EXPECT_FALSE(options.power_max_w);
  report::set_tune_limits(options, "energy", 0, 15);
  EXPECT_EQ(*options.power_max_w, 15);
  EXPECT_THROW(report::set_tune_limits(options, "speed", 0, 0), Error);

  analysis::ModelOptions model{.model = "models/alexnet.onnx", .training = true, .optimizer = "adam"};
  report::TuneRequest r;
  r.batches = {4};
  report::Tuning tuning;
  tuning.device_id = "jetson-agx-orin-64gb";
  tuning.context.precision = "fp16";
  auto p = report::tune_params(model, r, tuning);
  EXPECT_EQ(p.model, "models/alexnet.onnx");
  EXPECT_EQ(p.device, "jetson-agx-orin-64gb");
  EXPECT_EQ(p.precision, "fp16");
  EXPECT_EQ(p.batch, 4);
  EXPECT_EQ(p.optimizer, "adam");
  r.batches = {1, 8};
  EXPECT_FALSE(report::tune_params(model, r, tuning).batch);
}

TEST(TuneRequest, PrintedAsItsCodecAndKept) {
  auto dir = std::filesystem::path(temp_dir()) / "tune-and-keep";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto path = (dir / "ridge.db").string();
  analysis::ModelOptions model{.model = "models/alexnet.onnx"};
  std::ostringstream out;
  report::tune_and_keep(alexnet_on("jetson-agx-orin-64gb"), model, "json", {.path = path}, out);
  auto printed = nlohmann::json::parse(out.str());
  ASSERT_TRUE(report::is_tuning(printed)) << out.str().substr(0, 200);
  EXPECT_EQ(report::decode_tuning(printed, "out").context.batches, (std::vector<int64_t>{1, 8}));
  auto records = store::Store(path, true).query({});
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].command, "tune");
  EXPECT_EQ(records[0].params.model, "models/alexnet.onnx");
  EXPECT_EQ(records[0].params.device, "jetson-agx-orin-64gb");
  EXPECT_FALSE(records[0].params.batch) << "two batch sizes were compared";
}

}  // namespace
}  // namespace ridge::test
