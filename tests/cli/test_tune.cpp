// `ridge tune` through the binary: the time and energy of every mode against values computed here from
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
#include "support/tune_fixtures.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using namespace tune_fixtures;  // NOLINT(google-build-using-namespace)

namespace fs = std::filesystem;
using nlohmann::json;

std::string device_file() {
  auto path = temp_dir() + "/tune-test.yaml";
  std::ofstream(path) << kDevice;
  return path;
}

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

// A tuning is stored typed (its headline from the value, found by --command tune), and the same tuning printed as
// JSON elsewhere comes in through `results import` as the same value.
TEST(Tune, StoredTypedAndImportedAsTheSameValue) {
  auto dir = temp_dir();
  auto store = dir + "/tune.db";
  fs::remove(store);
  auto r = run_ridge(fmt::format("tune {} --device {} --store {}", model_file(), device_file(), store));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = tune_json("");
  auto list = json::parse(run_ridge("results --store " + store + " --command tune -f json").out);
  ASSERT_EQ(list["results"].size(), 1u);
  auto best = j["best"]["name"].get<std::string>();
  EXPECT_EQ(list["results"][0]["result"],
            fmt::format("best {}: {:.1f}% less energy", best, j["best"]["energy_saved_pct"].get<double>()));
  std::ofstream(dir + "/tune.json") << j.dump();
  auto other = dir + "/tune-other.db";
  fs::remove(other);
  auto imported = run_ridge("results import " + dir + "/tune.json --store " + other);
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  auto other_list = json::parse(run_ridge("results --store " + other + " -f json").out);
  ASSERT_EQ(other_list["results"].size(), 1u);
  EXPECT_EQ(other_list["results"][0]["command"], "tune");
  EXPECT_EQ(other_list["results"][0]["device"], "tune-test");
  EXPECT_EQ(other_list["results"][0]["result"], list["results"][0]["result"]);
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

}  // namespace
}  // namespace ridge::test
