// `ridge tune` as one call (report/tune_request): the modes searched, the best one and its commands, and what it
// refuses, in process. Also, on a hand-made board, the time and energy of every mode against values computed here from
// E = e_flop W + e_byte Q + p_static T, the Pareto front, objectives, constraints, the JSON, the store and --apply on a
// fake Jetson (its sysfs under RIDGE_SYSFS_ROOT, nvpmodel on PATH).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "analysis/request_builder.h"
#include "hw/device_db.h"
#include "hw/device_file.h"
#include "report/tune_request.h"
#include "store/store.h"
#include "support/error_text.h"
#include "support/files.h"
#include "support/paths.h"
#include "support/scoped_env.h"
#include "support/stored_results.h"
#include "support/tune_fixtures.h"
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

// ---- a hand-made board: every mode against the formulas ----

namespace tf = tune_fixtures;
namespace fs = std::filesystem;
using nlohmann::json;
using tf::kAddBytes;
using tf::kAddFlops;
using tf::kGemmBytes;
using tf::kGemmFlops;

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

// `ridge tune MODEL --device tune-test.yaml [--objective O] [--latency-max MS] [--power-max W] [--named-only]
// [--apply]`.
struct TuneArgs {
  std::string objective = "energy";
  double latency_max_ms = 0, power_max_w = 0;
  bool named_only = false, apply = false;
};

// What that command prints with -f json, kept as `store` says.
json tune_json(const TuneArgs& args = {}, const report::StoreOptions& store = {.disabled = true}) {
  analysis::ModelOptions model{.model = tf::model_file()};
  report::TuneRequest r{.model = analysis::make_request(model), .device = tf::tune_device_file()};
  r.batches = report::tune_batches(r.model, "");
  report::set_tune_limits(r.options, args.objective, args.latency_max_ms, args.power_max_w);
  r.options.named_only = args.named_only;
  r.apply = args.apply;
  std::ostringstream out;
  report::tune_and_keep(r, model, "json", store, out);
  EXPECT_TRUE(json::accept(out.str())) << out.str().substr(0, 200);
  return json::accept(out.str()) ? json::parse(out.str()) : json::object();
}

void expect_one_line_naming(const std::string& error, const std::string& expected) {
  EXPECT_NE(error, "accepted") << expected;
  EXPECT_EQ(error.find('\n'), std::string::npos) << "more than one line: " << error;
  EXPECT_NE(error.find(expected), std::string::npos) << error;
}

TEST(TuneRequest, EveryModeHasTheTimeAndEnergyOfTheFormulas) {
  auto j = tune_json();
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

TEST(TuneRequest, ParetoFrontIsExactlyTheNonDominatedModes) {
  auto j = tune_json();
  auto expected = pareto_of(expected_modes());
  std::set<std::string> got;
  for (const auto& name : j["pareto"]) got.insert(name.get<std::string>());
  EXPECT_EQ(got, expected);
  // The custom twin of MAXN (same clocks, same coefficients) is a tie, never on the front.
  EXPECT_FALSE(got.count("emc=2000MHz,gpu=1000MHz"));
  EXPECT_TRUE(got.count("MAXN"));
}

TEST(TuneRequest, BestModeForEachObjectiveMatchesTheFormulas) {
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
  EXPECT_EQ(tune_json({.objective = "energy"})["best"]["name"], energy);
  EXPECT_EQ(tune_json({.objective = "latency"})["best"]["name"], latency);
  EXPECT_EQ(tune_json({.objective = "edp"})["best"]["name"], edp);
  // By hand: MAXN is the fastest (every node at its highest ceiling); the lowest energy is not MAXN.
  EXPECT_EQ(latency, "MAXN");
  EXPECT_NE(energy, "MAXN");
}

TEST(TuneRequest, SavingsAreAgainstTheDefaultMode) {
  auto j = tune_json({.objective = "energy"});
  auto modes = expected_modes();
  const auto& maxn = modes[0];
  auto name = j["best"]["name"].get<std::string>();
  auto best = *std::find_if(modes.begin(), modes.end(), [&](const Expected& e) { return e.name == name; });
  EXPECT_NEAR(j["best"]["energy_saved_pct"].get<double>(), 100 * (maxn.energy_j - best.energy_j) / maxn.energy_j, 1e-6);
  EXPECT_NEAR(j["best"]["latency_change_pct"].get<double>(), 100 * (best.time_s - maxn.time_s) / maxn.time_s, 1e-6);
  EXPECT_EQ(j["savings"]["reference"]["name"], "MAXN");
}

TEST(TuneRequest, ConstraintsFilterModes) {
  auto modes = expected_modes();
  // A latency limit between the fastest and the slowest: the best is the least energy among those within it.
  double limit_s = (modes[0].time_s + modes[1].time_s) / 2;
  auto j = tune_json({.objective = "energy", .latency_max_ms = limit_s * 1e3});
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
  auto p = tune_json({.objective = "latency", .power_max_w = power_limit});
  EXPECT_LE(p["best"]["power_w"].get<double>(), power_limit);
  EXPECT_NE(p["best"]["name"], "MAXN");
  // Nothing meets an impossible limit: one line saying so.
  expect_one_line_naming(error_text([&] { tune_json({.latency_max_ms = 1e-9}); }), "no power mode");
}

TEST(TuneRequest, JsonCarriesTheDocumentedFields) {
  auto j = tune_json({.objective = "edp"});
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
TEST(TuneRequest, StoredTypedAndImportedAsTheSameValue) {
  auto dir = fresh_dir("tune-stored");
  auto store = dir + "/tune.db";
  tune_json({}, {.path = store});
  auto j = tune_json();
  std::ostringstream listed;
  report::print_results({.store_path = store, .filter = {.command = "tune"}, .format = "json"}, listed);
  auto list = json::parse(listed.str());
  ASSERT_EQ(list["results"].size(), 1u);
  auto best = j["best"]["name"].get<std::string>();
  EXPECT_EQ(list["results"][0]["result"],
            fmt::format("best {}: {:.1f}% less energy", best, j["best"]["energy_saved_pct"].get<double>()));
  std::ofstream(dir + "/tune.json") << j.dump();
  auto other = dir + "/tune-other.db";
  EXPECT_NE(import_into(dir + "/tune.json", other).find("1 result, 1 added"), std::string::npos);
  auto other_list = stored_results(other);
  ASSERT_EQ(other_list["results"].size(), 1u);
  EXPECT_EQ(other_list["results"][0]["command"], "tune");
  EXPECT_EQ(other_list["results"][0]["device"], "tune-test");
  EXPECT_EQ(other_list["results"][0]["result"], list["results"][0]["result"]);
}

TEST(TuneRequest, NamedOnlyUsesTheFileCoefficientsAndNvpmodel) {
  auto j = tune_json({.objective = "energy", .named_only = true});
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

TEST(TuneRequest, ACustomModeIsSetThroughSysfs) {
  auto j = tune_json({.objective = "energy"});
  auto name = j["best"]["name"].get<std::string>();
  ASSERT_NE(name.find("gpu="), std::string::npos);
  std::string commands;
  for (const auto& c : j["best"]["commands"]) commands += c.get<std::string>() + "\n";
  EXPECT_NE(commands.find("/sys/class/devfreq/17000000.*/max_freq"), std::string::npos) << commands;
  EXPECT_NE(commands.find("/sys/kernel/nvpmodel_emc_cap/emc_iso_cap"), std::string::npos) << commands;
  EXPECT_EQ(commands.find("cpufreq"), std::string::npos) << "the held CPU domain is left alone";
}

// A fake Jetson: a device tree naming nvidia,tegra and the sysfs files a custom mode writes.
std::string fake_jetson() {
  auto root = fresh_dir("fake-sys");
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

TEST(TuneRequest, ApplyWritesTheCustomModeToSysfs) {
  auto root = fake_jetson();
  ScopedEnvironment sysfs("RIDGE_SYSFS_ROOT", root);
  auto j = tune_json({.objective = "energy", .apply = true});
  auto name = j["best"]["name"].get<std::string>();
  auto mode = hw::resolve_mode(hw::load_device_file(tf::tune_device_file()), name);
  double gpu = mode.clocks_mhz.at("gpu"), emc = mode.clocks_mhz.at("emc");
  EXPECT_EQ(slurp(root + "/class/devfreq/17000000.gpu/max_freq"), fmt::format("{}\n", std::llround((gpu + 1) * 1e6)));
  EXPECT_EQ(slurp(root + "/class/devfreq/17000000.gpu/min_freq"), fmt::format("{}\n", std::llround((gpu - 1) * 1e6)));
  EXPECT_EQ(slurp(root + "/kernel/nvpmodel_emc_cap/emc_iso_cap"), fmt::format("{}\n", std::llround((emc + 1) * 1e6)));
  EXPECT_EQ(slurp(root + "/kernel/debug/bpmp/debug/clk/emc/rate"), fmt::format("{}\n", std::llround(emc * 1e6)));
  EXPECT_EQ(slurp(root + "/kernel/debug/bpmp/debug/clk/emc/mrq_rate_locked"), "1\n");
  EXPECT_FALSE(j["applied"].empty());
}

TEST(TuneRequest, ApplyRunsNvpmodelForANamedMode) {
  auto root = fake_jetson();
  auto bin = fresh_dir("fake-bin");
  auto log = bin + "/nvpmodel.log";
  for (const char* tool : {"nvpmodel", "jetson_clocks"}) {
    auto path = bin + "/" + tool;
    std::ofstream(path) << fmt::format("#!/bin/sh\necho {} \"$@\" >> {}\n", tool, log);
    fs::permissions(path, fs::perms::owner_all);
  }
  ScopedEnvironment sysfs("RIDGE_SYSFS_ROOT", root), path("PATH", bin + ":/usr/bin:/bin");
  auto j = tune_json({.objective = "latency", .named_only = true, .apply = true});
  EXPECT_EQ(j["best"]["name"], "MAXN");
  EXPECT_EQ(slurp(log), "nvpmodel -m 0\njetson_clocks\n");
}

}  // namespace
}  // namespace ridge::test
