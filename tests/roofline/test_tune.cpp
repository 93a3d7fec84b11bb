// `ridge tune`'s library side: node work by hand, clock-step tables, and mode enumeration.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "hw/device_db.h"
#include "hw/device_file.h"
#include "hw/roofline.h"
#include "report/printer.h"
#include "report/tune_report.h"
#include "roofline/predict.h"
#include "roofline/tune.h"
#include "support/error_text.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "support/tune_fixtures.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using namespace tune_fixtures;  // NOLINT(google-build-using-namespace)

namespace fs = std::filesystem;
using nlohmann::json;

TEST(Tune, NodeWorkIsAsComputedByHand) {
  auto r = analyze_file(model_file());
  EXPECT_DOUBLE_EQ(static_cast<double>(node_named(r, "gemm").flops), kGemmFlops);
  EXPECT_DOUBLE_EQ(static_cast<double>(node_named(r, "gemm").bytes()), kGemmBytes);
  EXPECT_DOUBLE_EQ(static_cast<double>(node_named(r, "add").flops), kAddFlops);
  EXPECT_DOUBLE_EQ(static_cast<double>(node_named(r, "add").bytes()), kAddBytes);
}

TEST(Tune, StepsAreParsedAndChecked) {
  auto with_steps = [](const std::string& steps) {
    std::string text = kDevice;
    auto at = text.find("steps_mhz: [200, 600, 1000]");
    text.replace(at, std::string("steps_mhz: [200, 600, 1000]").size(), "steps_mhz: " + steps);
    return hw::parse_device_yaml(text, "t.yaml");
  };
  EXPECT_EQ(with_steps("[200, 1000]").clocks.at("gpu").steps_mhz, (std::vector<double>{200, 1000}));
  auto error = [&](const std::string& steps) {
    try {
      with_steps(steps);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error("[200, 1200]").find("clocks.gpu.steps_mhz[1] 1200 MHz is outside [min_mhz, max_mhz]"),
            std::string::npos)
      << error("[200, 1200]");
  EXPECT_NE(error("[100]").find("outside"), std::string::npos);
  EXPECT_NE(error("[600, 200]").find("does not ascend"), std::string::npos);
  EXPECT_NE(error("[600, 600]").find("does not ascend"), std::string::npos);
  EXPECT_NE(error("[abc]").find("not a number"), std::string::npos);
  EXPECT_NE(error("600").find("must list"), std::string::npos);
  EXPECT_NE(error("[]").find("must list"), std::string::npos);
  EXPECT_EQ(error("[200]").find('\n'), std::string::npos);
  auto device = hw::parse_device_yaml(kDevice, "t.yaml");
  EXPECT_EQ(device.modes[1].nvpmodel_id, 7);
}

TEST(Tune, OrinEnumeratesThousandsOfModesWhenEveryDomainCounts) {
  auto orin = hw::find_device("jetson-agx-orin-64gb");
  roofline::TuneOptions all;
  all.all_domains = true;
  auto axes = roofline::mode_axes(orin, roofline::Prediction{}, all);
  auto modes = roofline::enumerate_modes(orin, axes, all);
  const auto& c = orin.clocks;
  size_t custom = c.at("gpu").steps_mhz.size() * c.at("emc").steps_mhz.size() * c.at("cpu").steps_mhz.size() *
                  static_cast<size_t>(c.at("cpu").cores);
  EXPECT_EQ(modes.size(), orin.modes.size() + custom);
  EXPECT_GE(custom, 1000u);
  // Every custom mode's name is a spec `ridge predict --device D:SPEC` accepts, with the same clocks.
  for (size_t i = orin.modes.size(); i < modes.size(); i += 97) {
    auto resolved = hw::resolve_mode(orin, modes[i].name);
    EXPECT_EQ(resolved.clocks_mhz, modes[i].clocks_mhz) << modes[i].name;
    EXPECT_EQ(resolved.cores, modes[i].cores) << modes[i].name;
  }
}

TEST(Tune, OrinHoldsTheCpuForAGpuModel) {
  auto orin = hw::find_device("jetson-agx-orin-64gb");
  auto r = analyze_file(model_file());
  auto p = roofline::predict(r.cost, hw::roofline_for(orin, orin.modes.front()), {});
  roofline::TuneOptions options;
  auto axes = roofline::mode_axes(orin, p, options);
  auto modes = roofline::enumerate_modes(orin, axes, options);
  EXPECT_EQ(modes.size(),
            orin.modes.size() + orin.clocks.at("gpu").steps_mhz.size() * orin.clocks.at("emc").steps_mhz.size());
  for (const auto& a : axes) {
    if (a.domain == "cpu") {
      EXPECT_TRUE(a.held);
    }
  }
}

TEST(Tune, ADomainWithoutATableGetsEvenlySpacedFrequencies) {
  std::string text = kDevice;
  text.replace(text.find(", steps_mhz: [200, 600, 1000]"), std::string(", steps_mhz: [200, 600, 1000]").size(), "");
  auto device = hw::parse_device_yaml(text, "t.yaml");
  auto r = analyze_file(model_file());
  auto p = roofline::predict(r.cost, hw::roofline_for(device, device.modes.front()), {});
  auto axes = roofline::mode_axes(device, p, {});
  auto gpu = std::find_if(axes.begin(), axes.end(), [](const auto& a) { return a.domain == "gpu"; });
  ASSERT_EQ(gpu->mhz.size(), static_cast<size_t>(roofline::kEvenSteps));
  EXPECT_DOUBLE_EQ(gpu->mhz.front(), 200);
  EXPECT_DOUBLE_EQ(gpu->mhz.back(), 1000);
  EXPECT_NE(gpu->values_from.find("evenly spaced"), std::string::npos);
}

// The tune codec: a tuning round-trips with every member (modes with their clocks, budgets and nvpmodel ids, the
// axes, the options with an absent constraint, the commands), encodes again to the same text, and its JSON is the
// document's plus the value.
TEST(TuneCodec, ATuningRoundTripsWithEveryMember) {
  auto device = hw::parse_device_yaml(kDevice, "t.yaml");
  auto a = analyze_file(model_file());
  auto predict = [&](const hw::Roofline& roofline, int64_t) { return roofline::predict(a.cost, roofline, {}); };
  roofline::TuneOptions options;
  options.latency_max_s = 1.0;
  report::Tuning t{device.id, device.name, roofline::tune(device, {1}, predict, options), {}};
  t.context.model = "m.onnx";
  t.context.precision = "fp32";
  t.context.batches = {1};
  t.context.options = options;
  t.context.calibration = "uncalibrated (roofline bound)";
  t.context.commands = {"sudo nvpmodel -m 0"};
  auto text = report::encode_tuning(t).dump();
  auto back = report::decode_tuning(json::parse(text), "test");
  EXPECT_EQ(report::encode_tuning(back).dump(), text);
  EXPECT_EQ(back.device_id, "tune-test");
  EXPECT_EQ(back.device_name, "Tune test board");
  ASSERT_EQ(back.result.modes.size(), t.result.modes.size());
  ASSERT_GT(back.result.modes.size(), 2u);
  for (size_t i = 0; i < t.result.modes.size(); ++i) {
    const auto &m = back.result.modes[i], &w = t.result.modes[i];
    EXPECT_EQ(m.mode.name, w.mode.name);
    EXPECT_EQ(m.mode.clocks_mhz, w.mode.clocks_mhz);
    EXPECT_EQ(m.mode.cores, w.mode.cores);
    EXPECT_EQ(m.mode.power_budget_w, w.mode.power_budget_w);
    EXPECT_EQ(m.mode.nvpmodel_id, w.mode.nvpmodel_id);
    EXPECT_EQ(m.time_s, w.time_s);
    EXPECT_EQ(m.energy_j, w.energy_j);
    EXPECT_EQ(m.energy_label, w.energy_label);
    EXPECT_EQ(m.feasible, w.feasible);
    EXPECT_EQ(m.pareto, w.pareto);
  }
  EXPECT_EQ(back.result.modes[1].mode.power_budget_w, 5.0);  // SLOW
  EXPECT_EQ(back.result.modes[1].mode.nvpmodel_id, 7);
  EXPECT_EQ(back.result.best, t.result.best);
  EXPECT_EQ(back.result.pareto, t.result.pareto);
  EXPECT_EQ(back.result.axes.size(), t.result.axes.size());
  EXPECT_EQ(back.context.options.latency_max_s, 1.0);
  EXPECT_FALSE(back.context.options.power_max_w);
  EXPECT_EQ(back.context.options.objective, roofline::Objective::kEnergy);
  EXPECT_EQ(back.context.commands, t.context.commands);
  auto printed = report::to_json(report::tune_document(t));
  auto encoded = json::parse(text);
  encoded.erase("tuning");
  EXPECT_EQ(encoded, json(printed));
  const auto& best = t.result.modes[*t.result.best];
  EXPECT_EQ(report::tuning_headline(t),
            fmt::format("best {}: {:.1f}% less energy", best.mode.name,
                        roofline::energy_saved_percent(best, t.result.modes[t.result.reference])));
  // Indices that name no mode are refused in one line.
  auto bad = json::parse(text);
  bad["tuning"]["result"]["best"] = 999;
  EXPECT_NE(error_text([&] { report::decode_tuning(bad, "x.json"); }).find("name no mode of its"), std::string::npos);
  bad = json::parse(text);
  bad["tuning"]["result"]["modes"][0]["time_s"] = "fast";
  EXPECT_NE(error_text([&] { report::decode_tuning(bad, "x.json"); }).find("x.json: tuning is malformed"),
            std::string::npos);
}

}  // namespace
}  // namespace ridge::test
