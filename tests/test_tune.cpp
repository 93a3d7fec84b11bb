// `ridge tune`: mode enumeration, the time and energy of every mode against values computed here from
// E = e_flop W + e_byte Q + p_static T, the Pareto front, objectives, constraints, JSON, --apply.
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
#include "roofline/predict.h"
#include "roofline/tune.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// GPU 1 TFLOP/s fp32 at 1000 MHz (steps 200, 600, 1000), DRAM 100 GB/s at EMC 2000 MHz (steps 500,
// 2000), a CPU domain the model does not use, no per-op overhead. Both named modes carry measured
// energy coefficients; custom modes get MAXN's scaled by (V/Vmax)^2 (labelled estimate).
const char* kDevice = R"(id: tune-test
name: Tune test board
kind: soc
clocks:
  gpu: {max_mhz: 1000, min_mhz: 200, steps_mhz: [200, 600, 1000], source: test}
  emc: {max_mhz: 2000, min_mhz: 500, steps_mhz: [500, 2000], source: test}
  cpu: {max_mhz: 2000, min_mhz: 1000, cores: 4, steps_mhz: [1000, 2000], source: test}
units:
  - {name: gpu-cores, type: vector, clock: gpu, peak_flops: {fp32: 1.0e12}, source: test}
  - {name: cpu-simd, type: vector, clock: cpu, scales_with_cores: true, key_prefix: cpu_, peak_flops: {fp32: 1.0e11}, source: test}
memory:
  - {level: dram, bandwidth: 1.0e11, clock: emc, source: test}
overhead: {seconds: 0, source: test}
modes:
  - {name: MAXN, nvpmodel_id: 0, clocks: {gpu: 1000, emc: 2000, cpu: 2000}, cores: {cpu: 4}, source: test}
  - {name: SLOW, nvpmodel_id: 7, clocks: {gpu: 200, emc: 500, cpu: 1000}, cores: {cpu: 2}, power_budget_w: 5, source: test}
energy:
  - {mode: MAXN, e_flop_j: 2.0e-11, e_byte_j: 1.0e-10, p_static_w: 2, source: test, label: measured}
  - {mode: SLOW, e_flop_j: 1.0e-11, e_byte_j: 0.5e-10, p_static_w: 2, source: test, label: measured}
)";

std::string device_file() {
  auto path = temp_dir() + "/tune-test.yaml";
  std::ofstream(path) << kDevice;
  return path;
}

// gemm: A[64,256] x W[256,256], 21.3 FLOP/B (compute-bound at MAXN); add: two 2^16 vectors
// (memory-bound everywhere).
std::string model_file() {
  ModelBuilder b;
  b.input("a", {int64_t{64}, int64_t{256}}).weight("w", {256, 256});
  b.input("x", {int64_t{1} << 16}).input("y", {int64_t{1} << 16});
  b.output("g").output("z");
  b.node("MatMul", {"a", "w"}, {"g"}, "gemm");
  b.node("Add", {"x", "y"}, {"z"}, "add");
  return b.save("tune");
}

// The work of the two nodes, by hand.
constexpr double kGemmFlops = 2.0 * 64 * 256 * 256;
constexpr double kGemmBytes = 4.0 * (64 * 256 + 256 * 256 + 64 * 256);
constexpr double kAddFlops = 65536;
constexpr double kAddBytes = 3.0 * 65536 * 4;

struct Expected {
  std::string name;
  double time_s = 0, energy_j = 0;
};

// (V/Vmax)^2 of the estimate rule: V linear in the clock from 0.6 Vmax at min_mhz to Vmax at max_mhz.
double v2(double mhz, double min_mhz, double max_mhz) {
  double v = 0.6 + 0.4 * (mhz - min_mhz) / (max_mhz - min_mhz);
  return v * v;
}

Expected expect(const std::string& name, double gpu_mhz, double emc_mhz, double e_flop, double e_byte) {
  const double peak = 1e12 * gpu_mhz / 1000, bandwidth = 1e11 * emc_mhz / 2000, p_static = 2;
  Expected e{name};
  for (auto [flops, bytes] : {std::pair{kGemmFlops, kGemmBytes}, std::pair{kAddFlops, kAddBytes}}) {
    double t = std::max(flops / peak, bytes / bandwidth);
    e.time_s += t;
    e.energy_j += e_flop * flops + e_byte * bytes + p_static * t;
  }
  return e;
}

// Every mode tune should see, in its order: the named ones, then emc fastest, then gpu.
std::vector<Expected> expected_modes() {
  std::vector<Expected> out{expect("MAXN", 1000, 2000, 2e-11, 1e-10), expect("SLOW", 200, 500, 1e-11, 0.5e-10)};
  for (double gpu : {200.0, 600.0, 1000.0})
    for (double emc : {500.0, 2000.0})
      out.push_back(expect(fmt::format("emc={:g}MHz,gpu={:g}MHz", emc, gpu), gpu, emc, 2e-11 * v2(gpu, 200, 1000),
                           1e-10 * v2(emc, 500, 2000)));
  return out;
}

bool near(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b)); }

// The Pareto front by its definition: modes no other mode matches or beats in both time and energy
// (of modes with equal time and energy, only the first).
std::set<std::string> pareto_of(const std::vector<Expected>& modes) {
  std::set<std::string> front;
  for (size_t i = 0; i < modes.size(); ++i) {
    bool dominated = false;
    for (size_t j = 0; j < modes.size() && !dominated; ++j) {
      if (i == j) continue;
      bool le =
          modes[j].time_s <= modes[i].time_s * (1 + 1e-12) && modes[j].energy_j <= modes[i].energy_j * (1 + 1e-12);
      bool tie = near(modes[j].time_s, modes[i].time_s) && near(modes[j].energy_j, modes[i].energy_j);
      dominated = le && (!tie || j < i);
    }
    if (!dominated) front.insert(modes[i].name);
  }
  return front;
}

json tune_json(const std::string& options, const std::string& environment = "") {
  auto r = run_ridge(fmt::format("tune {} --device {} {} -f json", model_file(), device_file(), options), environment);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(r.out);
}

TEST(Tune, NodeWorkIsAsComputedByHand) {
  auto r = analyze_file(model_file());
  EXPECT_DOUBLE_EQ(static_cast<double>(node_named(r, "gemm").flops), kGemmFlops);
  EXPECT_DOUBLE_EQ(static_cast<double>(node_named(r, "gemm").bytes()), kGemmBytes);
  EXPECT_DOUBLE_EQ(static_cast<double>(node_named(r, "add").flops), kAddFlops);
  EXPECT_DOUBLE_EQ(static_cast<double>(node_named(r, "add").bytes()), kAddBytes);
}

TEST(Tune, EveryModeHasTheTimeAndEnergyOfTheFormulas) {
  auto j = tune_json("");
  auto expected = expected_modes();
  ASSERT_EQ(j["modes"].size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const auto& m = j["modes"][i];
    SCOPED_TRACE(expected[i].name);
    EXPECT_EQ(m["name"], expected[i].name);
    EXPECT_NEAR(m["time_s"].get<double>(), expected[i].time_s, 1e-9 * expected[i].time_s);
    EXPECT_NEAR(m["energy_j"].get<double>(), expected[i].energy_j, 1e-9 * expected[i].energy_j);
    EXPECT_NEAR(m["power_w"].get<double>(), expected[i].energy_j / expected[i].time_s, 1e-6);
    EXPECT_EQ(m["energy_label"], i < 2 ? "measured" : "estimate");
  }
  // The CPU domain changes nothing for a GPU model: held, and said so.
  bool held = false;
  for (const auto& d : j["enumeration"]["domains"])
    if (d["domain"] == "cpu") held = d["held"].get<bool>();
  EXPECT_TRUE(held);
  EXPECT_EQ(j["enumeration"]["custom"], 6);
}

TEST(Tune, ParetoFrontIsExactlyTheNonDominatedModes) {
  auto j = tune_json("");
  auto expected = pareto_of(expected_modes());
  std::set<std::string> got;
  for (const auto& name : j["pareto"]) got.insert(name.get<std::string>());
  EXPECT_EQ(got, expected);
  // The custom twin of MAXN (same clocks, same coefficients) is a tie, never on the front.
  EXPECT_FALSE(got.count("emc=2000MHz,gpu=1000MHz"));
  EXPECT_TRUE(got.count("MAXN"));
}

TEST(Tune, BestModeForEachObjectiveMatchesTheFormulas) {
  auto modes = expected_modes();
  auto argmin = [&](auto merit) {
    size_t best = 0;
    for (size_t i = 1; i < modes.size(); ++i)
      if (merit(modes[i]) < merit(modes[best]) * (1 - 1e-12)) best = i;
    return modes[best].name;
  };
  auto energy = argmin([](const Expected& e) { return e.energy_j; });
  auto latency = argmin([](const Expected& e) { return e.time_s; });
  auto edp = argmin([](const Expected& e) { return e.energy_j * e.time_s; });
  EXPECT_EQ(tune_json("--objective energy")["best"]["name"], energy);
  EXPECT_EQ(tune_json("--objective latency")["best"]["name"], latency);
  EXPECT_EQ(tune_json("--objective edp")["best"]["name"], edp);
  // By hand: MAXN is the fastest (every node at its highest ceiling); the lowest energy is not MAXN.
  EXPECT_EQ(latency, "MAXN");
  EXPECT_NE(energy, "MAXN");
}

TEST(Tune, SavingsAreAgainstTheDefaultMode) {
  auto j = tune_json("--objective energy");
  auto modes = expected_modes();
  const auto& maxn = modes[0];
  auto name = j["best"]["name"].get<std::string>();
  auto best = *std::find_if(modes.begin(), modes.end(), [&](const Expected& e) { return e.name == name; });
  EXPECT_NEAR(j["best"]["energy_saved_pct"].get<double>(), 100 * (maxn.energy_j - best.energy_j) / maxn.energy_j, 1e-6);
  EXPECT_NEAR(j["best"]["latency_change_pct"].get<double>(), 100 * (best.time_s - maxn.time_s) / maxn.time_s, 1e-6);
  EXPECT_EQ(j["savings"]["reference"]["name"], "MAXN");
}

TEST(Tune, ConstraintsFilterModes) {
  auto modes = expected_modes();
  // A latency limit between the fastest and the slowest: the best is the least energy among those within it.
  double limit_s = (modes[0].time_s + modes[1].time_s) / 2;
  auto j = tune_json(fmt::format("--objective energy --latency-max {}", limit_s * 1e3));
  std::string expected;
  double lowest = INFINITY;
  for (const auto& m : modes)
    if (m.time_s <= limit_s && m.energy_j < lowest * (1 - 1e-12)) lowest = m.energy_j, expected = m.name;
  EXPECT_EQ(j["best"]["name"], expected);
  for (const auto& m : j["modes"])
    EXPECT_EQ(m["feasible"].get<bool>(), m["time_s"].get<double>() <= limit_s) << m["name"];
  for (const auto& name : j["pareto"]) {
    auto it = std::find_if(modes.begin(), modes.end(), [&](const Expected& e) { return e.name == name; });
    EXPECT_LE(it->time_s, limit_s);
  }
  // A power limit: no chosen mode draws more on average.
  double power_limit = (modes[0].energy_j / modes[0].time_s + modes[1].energy_j / modes[1].time_s) / 2;
  auto p = tune_json(fmt::format("--objective latency --power-max {}", power_limit));
  EXPECT_LE(p["best"]["power_w"].get<double>(), power_limit);
  EXPECT_NE(p["best"]["name"], "MAXN");
  // Nothing meets an impossible limit: one line saying so.
  auto r = run_ridge(fmt::format("tune {} --device {} --latency-max 1e-9", model_file(), device_file()));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("no power mode"), std::string::npos) << r.err;
}

TEST(Tune, JsonCarriesTheDocumentedFields) {
  auto j = tune_json("--objective edp");
  for (const auto& m : j["modes"])
    for (const char* key : {"name", "time_s", "energy_j", "power_w", "energy_label", "pareto", "feasible"})
      EXPECT_TRUE(m.contains(key)) << key;
  EXPECT_TRUE(j["pareto"].is_array());
  EXPECT_TRUE(j["best"]["name"].is_string());
  EXPECT_TRUE(j["best"]["commands"].is_array());
  EXPECT_EQ(j["objective"], "edp");
  EXPECT_TRUE(j["constraints"]["latency_max_s"].is_null());
  EXPECT_EQ(j["energy_label"], "estimate");  // custom modes' coefficients are scaled: an estimate
}

TEST(Tune, NamedOnlyUsesTheFileCoefficientsAndNvpmodel) {
  auto j = tune_json("--named-only --objective energy");
  ASSERT_EQ(j["modes"].size(), 2u);
  EXPECT_EQ(j["energy_label"], "measured");
  auto modes = expected_modes();
  auto best = modes[0].energy_j < modes[1].energy_j ? modes[0] : modes[1];
  EXPECT_EQ(j["best"]["name"], best.name);
  auto commands = j["best"]["commands"];
  ASSERT_EQ(commands.size(), 2u);
  EXPECT_EQ(commands[0], fmt::format("sudo nvpmodel -m {}", best.name == "MAXN" ? 0 : 7));
  EXPECT_EQ(commands[1], "sudo jetson_clocks");
}

TEST(Tune, ACustomModeIsSetThroughSysfs) {
  auto j = tune_json("--objective energy");
  auto name = j["best"]["name"].get<std::string>();
  ASSERT_NE(name.find("gpu="), std::string::npos);
  std::string commands;
  for (const auto& c : j["best"]["commands"]) commands += c.get<std::string>() + "\n";
  EXPECT_NE(commands.find("/sys/class/devfreq/17000000.*/max_freq"), std::string::npos) << commands;
  EXPECT_NE(commands.find("/sys/kernel/nvpmodel_emc_cap/emc_iso_cap"), std::string::npos) << commands;
  EXPECT_EQ(commands.find("cpufreq"), std::string::npos) << "the held CPU domain is left alone";
}

TEST(Tune, TableNamesTheEstimate) {
  auto r = run_ridge(fmt::format("tune {} --device {}", model_file(), device_file()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("ESTIMATED"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("against MAXN"), std::string::npos) << r.out;
}

// A fake Jetson: a device tree naming nvidia,tegra and the sysfs files a custom mode writes.
std::string fake_jetson() {
  auto root = temp_dir() + "/fake-sys";
  fs::create_directories(root + "/firmware/devicetree/base");
  std::ofstream(root + "/firmware/devicetree/base/compatible") << std::string("nvidia,p3737-0000\0nvidia,tegra234", 33);
  for (const char* dir :
       {"/class/devfreq/17000000.gpu", "/kernel/nvpmodel_emc_cap", "/kernel/debug/bpmp/debug/clk/emc"})
    fs::create_directories(root + dir);
  for (const char* file : {"/class/devfreq/17000000.gpu/max_freq", "/class/devfreq/17000000.gpu/min_freq",
                           "/kernel/nvpmodel_emc_cap/emc_iso_cap", "/kernel/debug/bpmp/debug/clk/emc/mrq_rate_locked",
                           "/kernel/debug/bpmp/debug/clk/emc/rate"})
    std::ofstream(root + file) << "0\n";
  return root;
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Tune, ApplyIsRefusedOffAJetson) {
  auto empty = temp_dir() + "/not-a-jetson";
  fs::create_directories(empty);
  auto r =
      run_ridge(fmt::format("tune {} --device {} --apply", model_file(), device_file()), "RIDGE_SYSFS_ROOT=" + empty);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--apply refused"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nvidia,tegra"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  // A device file that is no Jetson module is refused whatever the machine.
  auto h100 = run_ridge(fmt::format("tune {} --device h100-sxm --objective latency --apply", model_file()));
  EXPECT_NE(h100.exit_code, 0);
  EXPECT_NE(h100.err.find("not a Jetson"), std::string::npos) << h100.err;
}

TEST(Tune, ApplyWritesTheCustomModeToSysfs) {
  auto root = fake_jetson();
  auto j = tune_json("--objective energy --apply", "RIDGE_SYSFS_ROOT=" + root);
  auto name = j["best"]["name"].get<std::string>();
  auto mode = hw::resolve_mode(hw::load_device_file(device_file()), name);
  double gpu = mode.clocks_mhz.at("gpu"), emc = mode.clocks_mhz.at("emc");
  EXPECT_EQ(read(root + "/class/devfreq/17000000.gpu/max_freq"), fmt::format("{}\n", std::llround((gpu + 1) * 1e6)));
  EXPECT_EQ(read(root + "/class/devfreq/17000000.gpu/min_freq"), fmt::format("{}\n", std::llround((gpu - 1) * 1e6)));
  EXPECT_EQ(read(root + "/kernel/nvpmodel_emc_cap/emc_iso_cap"), fmt::format("{}\n", std::llround((emc + 1) * 1e6)));
  EXPECT_EQ(read(root + "/kernel/debug/bpmp/debug/clk/emc/rate"), fmt::format("{}\n", std::llround(emc * 1e6)));
  EXPECT_EQ(read(root + "/kernel/debug/bpmp/debug/clk/emc/mrq_rate_locked"), "1\n");
  EXPECT_FALSE(j["applied"].empty());
}

TEST(Tune, ApplyRunsNvpmodelForANamedMode) {
  auto root = fake_jetson();
  auto bin = temp_dir() + "/fake-bin";
  fs::create_directories(bin);
  auto log = temp_dir() + "/nvpmodel.log";
  for (const char* tool : {"nvpmodel", "jetson_clocks"}) {
    auto path = bin + "/" + tool;
    std::ofstream(path) << fmt::format("#!/bin/sh\necho {} \"$@\" >> {}\n", tool, log);
    fs::permissions(path, fs::perms::owner_all);
  }
  auto j = tune_json("--named-only --objective latency --apply",
                     fmt::format("RIDGE_SYSFS_ROOT={} PATH={}:/usr/bin:/bin", root, bin));
  EXPECT_EQ(j["best"]["name"], "MAXN");
  EXPECT_EQ(read(log), "nvpmodel -m 0\njetson_clocks\n");
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

}  // namespace
}  // namespace ridge::test
