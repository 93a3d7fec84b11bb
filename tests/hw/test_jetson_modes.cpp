// The Jetson power-mode tables: each board's nvpmodel modes as NVIDIA's nvpmodel configuration file gives them (the
// file cited in the device file), the peaks derived from them, and properties a wrong table would break.
#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "hw/device_db.h"
#include "hw/roofline.h"
#include "roofline/tune.h"

namespace ridge::test {
namespace {

struct Mode {
  const char* name;
  int nvpmodel_id;
  double gpu_mhz, emc_mhz, cpu_mhz;
  int cpus;
  std::optional<double> budget_w;
};

struct Board {
  const char* id;
  const char* conf;         // NVIDIA's nvpmodel file the modes cite
  std::vector<Mode> modes;  // in the device file's order, the unconstrained mode (nvpmodel 0) first
};

// Written out from NVIDIA's nvpmodel configuration files of the Jetson Linux r35 (JetPack 5) BSP: CPU MAX_FREQ in
// kHz / 1000, GPU and EMC MAX_FREQ in Hz / 1e6, CPU_ONLINE cores counted, the budget from the mode's name. A cap of -1
// (or 0 for EMC) leaves the domain at its maximum: the datasheet figure in the device file's clocks.
const std::vector<Board>& boards() {
  static const std::vector<Board> all = {
      // github.com/LineageOS/android_device_nvidia_concord, nvpmodel/nvpmodel_p3767_0000.conf at commit 640733e6.
      {"jetson-orin-nx-16gb",
       "nvpmodel_p3767_0000.conf",
       {{"MAXN", 0, 918, 3200, 2000, 8, std::nullopt},
        {"25W", 3, 408, 3200, 1497.6, 8, 25},
        {"15W", 2, 612, 3200, 1651.2, 4, 15},
        {"10W", 1, 612, 2133, 1190.4, 4, 10}}},
      // Same repository, nvpmodel/nvpmodel_p3767_0003.conf at commit 640733e6 (mode 0 is named 15W there).
      {"jetson-orin-nano-8gb",
       "nvpmodel_p3767_0003.conf",
       {{"MAXN", 0, 625, 2133, 1500, 6, 15}, {"7W", 1, 408, 2133, 960, 4, 7}}},
      // Same repository, nvpmodel/nvpmodel_p3701_0004.conf at commit 640733e6.
      {"jetson-agx-orin-32gb",
       "nvpmodel_p3701_0004.conf",
       {{"MAXN", 0, 930, 3200, 2200, 8, std::nullopt},
        {"MODE_40W", 3, 816, 3200, 1497.6, 8, 40},
        {"MODE_30W", 2, 612, 3200, 1728, 8, 30},
        {"MODE_15W", 1, 408, 2133, 1113.6, 4, 15}}},
      // github.com/LineageOS/android_device_nvidia_galen, nvpmodel/nvpmodel_t194.conf at commit 51d9adcb.
      {"jetson-agx-xavier",
       "nvpmodel_t194.conf",
       {{"MAXN", 0, 1377, 2133, 2265.6, 8, std::nullopt},
        {"MODE_30W_ALL", 3, 900, 1600, 1200, 8, 30},
        {"MODE_30W_6CORE", 4, 900, 1600, 1450, 6, 30},
        {"MODE_30W_4CORE", 5, 900, 1600, 1780, 4, 30},
        {"MODE_30W_2CORE", 6, 900, 1600, 2100, 2, 30},
        {"MODE_15W", 2, 670, 1331.2, 1200, 4, 15},
        {"MODE_15W_DESKTOP", 7, 670, 1331.2, 2188.8, 4, 15},
        {"MODE_10W", 1, 520, 1065.6, 1200, 2, 10}}},
  };
  return all;
}

double peak(const std::string& spec, const std::string& key) {
  auto [id, mode] = hw::split_device_and_mode(spec);
  auto device = hw::find_device(id);
  return hw::roofline_for(device, hw::resolve_mode(device, mode)).peak_flops.at(key).value;
}

double dram(const std::string& spec) {
  auto [id, mode] = hw::split_device_and_mode(spec);
  auto device = hw::find_device(id);
  return hw::roofline_for(device, hw::resolve_mode(device, mode)).bandwidth.at("dram").value;
}

TEST(JetsonModes, TablesMatchTheNvpmodelFiles) {
  for (const auto& board : boards()) {
    auto device = hw::find_device(board.id);
    ASSERT_EQ(device.modes.size(), board.modes.size()) << board.id;
    for (size_t i = 0; i < board.modes.size(); ++i) {
      const auto& want = board.modes[i];
      const auto& got = device.modes[i];
      SCOPED_TRACE(std::string(board.id) + ":" + want.name);
      EXPECT_EQ(got.name, want.name);
      EXPECT_EQ(got.nvpmodel_id, want.nvpmodel_id);
      EXPECT_DOUBLE_EQ(got.clocks_mhz.at("gpu"), want.gpu_mhz);
      EXPECT_DOUBLE_EQ(got.clocks_mhz.at("emc"), want.emc_mhz);
      EXPECT_DOUBLE_EQ(got.clocks_mhz.at("cpu"), want.cpu_mhz);
      EXPECT_EQ(got.cores.at("cpu"), want.cpus);
      EXPECT_EQ(got.power_budget_w, want.budget_w);
      EXPECT_NE(got.source.find(board.conf), std::string::npos) << got.source;
      EXPECT_NE(got.source.find("r35"), std::string::npos) << got.source;
    }
  }
}

// Every Jetson file (the AGX Orin 64GB's JetPack 6 table too): mode 0 first and unconstrained, no mode above it or
// above the clock domains' maxima, every other mode capped somewhere, nvpmodel ids unique, budgets within the TDP.
TEST(JetsonModes, NoModeRunsAboveTheFirstAndIdsAreUnique) {
  int jetsons = 0;
  for (const auto& device : hw::list_devices()) {
    if (device.id.rfind("jetson-", 0) != 0) continue;
    ++jetsons;
    SCOPED_TRACE(device.id);
    ASSERT_GE(device.modes.size(), 2u) << "one mode: tune would search MAXN alone";
    const auto& top = device.modes.front();
    EXPECT_EQ(top.nvpmodel_id, 0);
    std::set<int> ids;
    for (const auto& m : device.modes) {
      ASSERT_TRUE(m.nvpmodel_id.has_value()) << m.name;
      EXPECT_TRUE(ids.insert(*m.nvpmodel_id).second) << m.name << " repeats nvpmodel id " << *m.nvpmodel_id;
      bool capped = false;
      for (const char* domain : {"gpu", "emc", "cpu"}) {
        double mhz = m.clocks_mhz.at(domain), top_mhz = top.clocks_mhz.at(domain);
        EXPECT_LE(mhz, top_mhz) << m.name << " " << domain;
        EXPECT_LE(mhz, device.clocks.at(domain).max_mhz) << m.name << " " << domain;
        EXPECT_GT(mhz, 0) << m.name << " " << domain;
        capped = capped || mhz < top_mhz;
      }
      int cpus = m.cores.at("cpu");
      EXPECT_GE(cpus, 1) << m.name;
      EXPECT_LE(cpus, top.cores.at("cpu")) << m.name;
      EXPECT_EQ(top.cores.at("cpu"), device.clocks.at("cpu").cores);
      capped = capped || cpus < top.cores.at("cpu");
      if (&m != &top) {
        EXPECT_TRUE(capped) << m.name << " caps nothing";
        ASSERT_TRUE(m.power_budget_w.has_value()) << m.name;
      }
      if (m.power_budget_w) {
        ASSERT_TRUE(device.tdp_w.has_value());
        EXPECT_LE(*m.power_budget_w, device.tdp_w->value) << m.name;
        EXPECT_GT(*m.power_budget_w, 0) << m.name;
      }
    }
  }
  EXPECT_EQ(jetsons, 5);
}

// Power budgets rise with the clocks: a mode with a smaller budget never has every clock and as many CPUs as one
// with a larger budget (it would buy more for less power: a table copied wrong).
TEST(JetsonModes, ASmallerBudgetNeverBuysEverything) {
  for (const auto& device : hw::list_devices()) {
    if (device.id.rfind("jetson-", 0) != 0) continue;
    auto budget = [&](const hw::PowerMode& m) { return m.power_budget_w ? *m.power_budget_w : device.tdp_w->value; };
    for (const auto& low : device.modes)
      for (const auto& high : device.modes) {
        if (budget(low) >= budget(high)) continue;
        bool dominates = low.cores.at("cpu") >= high.cores.at("cpu");
        for (const char* domain : {"gpu", "emc", "cpu"})
          dominates = dominates && low.clocks_mhz.at(domain) >= high.clocks_mhz.at(domain);
        EXPECT_FALSE(dominates) << device.id << ": " << low.name << " (" << budget(low) << " W) runs every clock of "
                                << high.name << " (" << budget(high) << " W)";
      }
  }
}

// The peaks scale with the mode's clocks, the CPU ceiling with its online cores and the GPU's with its powered TPCs
// (the conf files' TPC_PG_MASK), from the file's MAXN figures.
TEST(JetsonModes, PeaksFollowTheModeClocks) {
  // Orin NX 16GB 10W: GPU 2 of 4 TPCs at 612 of 918 MHz, 4 of 8 CPUs at 1190.4 of 2000 MHz, EMC 2133 of 3200 MHz.
  EXPECT_NEAR(peak("jetson-orin-nx-16gb:10W", "fp32"), 1.88e12 * 612 / 918 * 2 / 4, 1);
  EXPECT_NEAR(peak("jetson-orin-nx-16gb:10W", "cpu_fp32"), 2.56e11 * 1190.4 / 2000 * 4 / 8, 1);
  EXPECT_NEAR(dram("jetson-orin-nx-16gb:10W"), 102.4e9 * 2133 / 3200, 1);
  EXPECT_NEAR(peak("jetson-orin-nx-16gb:25W", "fp16_tensor"), 1.504e13 * 408 / 918, 1);
  // Orin Nano 8GB 7W: GPU 2 of 4 TPCs at 408 of 625 MHz, 4 of 6 CPUs at 960 of 1500 MHz, EMC at its 2133 MHz maximum.
  EXPECT_NEAR(peak("jetson-orin-nano-8gb:7W", "fp32"), 1.28e12 * 408 / 625 * 2 / 4, 1);
  EXPECT_NEAR(peak("jetson-orin-nano-8gb:7W", "cpu_fp32"), 1.44e11 * 960 / 1500 * 4 / 6, 1);
  EXPECT_DOUBLE_EQ(dram("jetson-orin-nano-8gb:7W"), 68e9);
  // AGX Orin 32GB MODE_15W: GPU 3 of 7 TPCs at 408 of 930 MHz, EMC 2133 of 3200 MHz; MODE_40W all 7 at 816 MHz.
  EXPECT_NEAR(peak("jetson-agx-orin-32gb:MODE_15W", "fp32"), 3.333e12 * 408 / 930 * 3 / 7, 1);
  EXPECT_NEAR(peak("jetson-agx-orin-32gb:MODE_40W", "fp32"), 3.333e12 * 816 / 930, 1);
  EXPECT_NEAR(dram("jetson-agx-orin-32gb:MODE_15W"), 204.8e9 * 2133 / 3200, 1);
  // AGX Xavier MODE_10W: GPU 2 of 4 TPCs at 520 of 1377 MHz, 2 of 8 CPUs at 1200 of 2265.6 MHz, EMC 1065.6 of 2133
  // MHz.
  EXPECT_NEAR(peak("jetson-agx-xavier:MODE_10W", "fp32"), 1.41e12 * 520 / 1377 * 2 / 4, 1);
  EXPECT_NEAR(peak("jetson-agx-xavier:MODE_10W", "cpu_fp32"), 2.9e11 * 1200 / 2265.6 * 2 / 8, 1);
  EXPECT_NEAR(dram("jetson-agx-xavier:MODE_10W"), 136.5e9 * 1065.6 / 2133, 1);
  auto xavier = hw::find_device("jetson-agx-xavier");
  EXPECT_EQ(hw::roofline_for(xavier, hw::resolve_mode(xavier, "MODE_30W_4CORE")).power_budget_w, 30);
}

// `ridge tune` searches every named mode (with --named-only, those alone), each selected by `nvpmodel -m ID`.
TEST(JetsonModes, TuneSearchesEveryNamedMode) {
  roofline::TuneOptions named;
  named.named_only = true;
  for (const auto& board : boards()) {
    auto device = hw::find_device(board.id);
    auto modes = roofline::enumerate_modes(device, {}, named);
    ASSERT_EQ(modes.size(), board.modes.size()) << board.id;
    for (size_t i = 0; i < modes.size(); ++i) {
      EXPECT_EQ(modes[i].name, board.modes[i].name) << board.id;
      EXPECT_EQ(modes[i].nvpmodel_id, board.modes[i].nvpmodel_id) << board.id;
    }
  }
}

}  // namespace
}  // namespace ridge::test
