// Power samplers and energy: the tegrastats and CSV parsers on real logs, fake sysfs trees of the
// Jetson INA3221 layouts and RAPL, NVML through a fake function table, trapezoids by hand.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "power/csv_trace.h"
#include "power/energy.h"
#include "power/jetson_rails.h"
#include "power/nvml.h"
#include "power/rapl.h"
#include "power/recorder.h"
#include "power/source.h"
#include "power/tegrastats.h"
#include "support/files.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;

std::string power_data(const std::string& name) { return source_path("tests/data/power/" + name); }

void write(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << text << "\n";
}

template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Sets RIDGE_SYSFS_ROOT for one test.
struct SysfsRoot {
  explicit SysfsRoot(const std::string& root) { setenv("RIDGE_SYSFS_ROOT", root.c_str(), 1); }
  ~SysfsRoot() { unsetenv("RIDGE_SYSFS_ROOT"); }
};

const char* kOrinLine = "Muxindawang_jetson_dla_tutorial_README_line24_agx_orin64.txt";

TEST(PowerTegrastats, ReadsTheRealOrinLineFourRails) {
  auto line = power::parse_tegrastats_line(slurp(power_data(kOrinLine)));
  ASSERT_TRUE(line);
  ASSERT_EQ(line->rails_w.size(), 4u);
  EXPECT_EQ(line->rails_w[0].first, "VDD_GPU_SOC");
  EXPECT_DOUBLE_EQ(line->rails_w[0].second, 3.150);
  EXPECT_EQ(line->rails_w[1].first, "VDD_CPU_CV");
  EXPECT_DOUBLE_EQ(line->rails_w[1].second, 14.312);
  EXPECT_EQ(line->rails_w[2].first, "VIN_SYS_5V0");
  EXPECT_DOUBLE_EQ(line->rails_w[2].second, 4.968);
  EXPECT_EQ(line->rails_w[3].first, "VDDQ_VDD2_1V8AO");
  EXPECT_DOUBLE_EQ(line->rails_w[3].second, 1.091);
  ASSERT_TRUE(line->clock_s);
  // AGX Orin has no input rail: the total sums the four, 3150 + 14312 + 4968 + 1091 = 23521 mW.
  auto trace = power::parse_tegrastats(slurp(power_data(kOrinLine)), "orin", 1.0);
  EXPECT_EQ(trace.input_rail, -1);
  EXPECT_NEAR(trace.total_w(trace.samples.at(0)), 23.521, 1e-9);
}

TEST(PowerTegrastats, LogsWithoutRailsAskForRoot) {
  for (auto file : {"sachinkmohan_thesis_jetson_ssd_keras_tegrastats.txt",
                    "sachinkmohan_thesis_jetson_isk_gpu_tensorrt_isk_agx_1006.txt"}) {
    auto e = error_of([&] { power::parse_tegrastats(slurp(power_data(file)), file, 1.0); });
    EXPECT_NE(e.find("no power rails: run tegrastats as root"), std::string::npos) << e;
  }
  // The `script` recording: its header, prompt, ^C and footer are not tegrastats lines; 20 are.
  auto isk = slurp(power_data("sachinkmohan_thesis_jetson_isk_gpu_tensorrt_isk_agx_1006.txt"));
  int64_t lines = 0, parsed = 0;
  for (size_t start = 0; start < isk.size();) {
    auto end = isk.find('\n', start);
    if (end == std::string::npos) end = isk.size();
    ++lines;
    parsed += power::parse_tegrastats_line(isk.substr(start, end - start)).has_value();
    start = end + 1;
  }
  EXPECT_EQ(parsed, 20);
  EXPECT_GT(lines, parsed);
}

TEST(PowerTegrastats, JetPack4LinesWithoutUnitsAndTheInputRail) {
  // Nano, JetPack 4: mW without a unit; POM_5V_IN is the module's input, so the total.
  std::string log =
      "Script started on 2022-06-10\n"
      "RAM 1500/3964MB (lfb 1x1MB) CPU [10%@1479,off,off,off] POM_5V_IN 3962/3962 POM_5V_GPU 0/0 POM_5V_CPU 800/800\n"
      "\x1b]0;user@nano: ~\x07user@nano:~$ ^C\n"
      "RAM 1500/3964MB (lfb 1x1MB) CPU [10%@1479,off,off,off] POM_5V_IN 2000/2981 POM_5V_GPU 0/0 POM_5V_CPU 400/600\n";
  auto t = power::parse_tegrastats(log, "nano", 0.5);
  ASSERT_EQ(t.samples.size(), 2u);
  EXPECT_EQ(t.skipped_lines, 2);
  EXPECT_EQ(t.rails[t.input_rail], "POM_5V_IN");
  EXPECT_DOUBLE_EQ(t.total_w(t.samples[0]), 3.962);
  EXPECT_DOUBLE_EQ(t.samples[1].time_s, 0.5);  // no timestamps: the interval
  // Trapezoid: 0.5 s x (3.962 + 2.000) / 2 = 1.4905 J.
  EXPECT_NEAR(power::integrate(t).energy_j, 1.4905, 1e-12);
}

TEST(PowerTegrastats, TimestampsWithAThirdValueAndLinesWithinOneSecond) {
  std::string a = "RAM 1/2MB VDD_GPU_SOC 1000mW/1000mW/1500mW VDD_CPU_CV 2000mW/2000mW/2000mW\n";
  std::string log =
      "11-21-2025 08:49:48 " + a + "11-21-2025 08:49:48 " + a + "11-21-2025 08:49:49 " + a + "12-31-2025 23:59:59 " + a;
  auto t = power::parse_tegrastats(log, "orin", 0.1);
  ASSERT_EQ(t.samples.size(), 4u);
  EXPECT_DOUBLE_EQ(t.samples[0].time_s, 0);
  EXPECT_NEAR(t.samples[1].time_s, 0.1, 1e-9);  // the same second: spread by the interval
  EXPECT_NEAR(t.samples[2].time_s, 1, 1e-9);
  // 08:49:48 on Nov 21 to 23:59:59 on Dec 31: 40 days + 15 h 10 min 11 s.
  EXPECT_NEAR(t.samples[3].time_s, 40 * 86400 + 15 * 3600 + 10 * 60 + 11, 1e-6);
  EXPECT_DOUBLE_EQ(t.samples[0].power_w[0], 1.0);  // the current value, not the max
}

TEST(PowerTegrastats, NoTegrastatsLinesIsAnError) {
  auto e = error_of([] { power::parse_tegrastats("hello\nworld\n", "x.log", 1.0); });
  EXPECT_NE(e.find("no tegrastats lines"), std::string::npos) << e;
}

TEST(PowerCsv, TheRealNvmlLogIntegratesLikeAnIndependentTrapezoid) {
  auto t = power::read_trace_file("csv:" + power_data("Olajide-Badejo_GPU-Roofline-Profiler_nvml.csv"));
  ASSERT_EQ(t.samples.size(), 293u);
  EXPECT_DOUBLE_EQ(t.samples[0].power_w[0], 25.864);
  auto e = power::integrate(t);
  // python3: rows = csv.DictReader(f); t = [datetime.fromisoformat(ts.replace('Z', '+00:00')).timestamp()];
  // sum((t[i] - t[i-1]) * (p[i] + p[i-1]) / 2) = 3812.1871235768767 J over t[-1] - t[0] = 31.728 s.
  EXPECT_NEAR(e.energy_j, 3812.1871235768767, 1e-6);
  EXPECT_NEAR(e.duration_s, 31.728, 1e-6);
  EXPECT_NEAR(e.mean_w, 120.1521401874711, 1e-6);
}

TEST(PowerCsv, SecondsAndMilliwattsColumnsAndBadRows) {
  auto t = power::parse_power_csv("time_s,power_mw,other\n0,1000,x\n2,3000,y\n", "m.csv");
  EXPECT_NEAR(power::integrate(t).energy_j, 4.0, 1e-12);  // 2 s x (1 + 3) / 2 W
  EXPECT_NE(error_of([] { power::parse_power_csv("when,power_w\n1,2\n", "m.csv"); }).find("no timestamp column"),
            std::string::npos);
  EXPECT_NE(error_of([] { power::parse_power_csv("time,volts\n1,2\n", "m.csv"); }).find("no watts column"),
            std::string::npos);
  EXPECT_NE(error_of([] { power::parse_power_csv("time,W\n1,abc\n", "m.csv"); }).find("line 2"), std::string::npos);
}

TEST(PowerEnergy, TrapezoidWithInterpolatedEdgesByHand) {
  power::Trace t;
  t.source = "hand";
  t.rails = {"a", "b"};
  t.samples = {{0, {10, 1}, {}}, {1, {20, 1}, {}}, {2, {20, 1}, {}}};
  // Window [0.5, 2]: a is 15 W at 0.5, so (0.5 x (15 + 20) / 2) + (1 x 20) = 28.75 J; b 1.5 J.
  auto e = power::integrate(t, 0.5, 2);
  EXPECT_DOUBLE_EQ(e.rail_energy_j[0], 28.75);
  EXPECT_DOUBLE_EQ(e.rail_energy_j[1], 1.5);
  EXPECT_DOUBLE_EQ(e.energy_j, 30.25);
  EXPECT_DOUBLE_EQ(e.mean_w, 30.25 / 1.5);
  EXPECT_EQ(e.samples, 2);
  // Inside one interval: [0.25, 0.75] gives 0.5 x (12.5 + 17.5) / 2 = 7.5 J for a.
  EXPECT_DOUBLE_EQ(power::integrate(t, 0.25, 0.75).rail_energy_j[0], 7.5);
  // A window the samples do not cover is an error, never zero.
  EXPECT_NE(error_of([&] { power::integrate(t, 1, 3); }).find("do not cover"), std::string::npos);
  t.samples.resize(1);
  EXPECT_NE(error_of([&] { power::integrate(t); }).find("at least 2"), std::string::npos);
}

TEST(PowerEnergy, CountersUseTheirDifferenceAndWrap) {
  power::Trace t;
  t.source = "rapl";
  t.rails = {"package-0"};
  t.counter_range_j = {100};
  // 90 J -> 98 J -> (wrapped) 6 J: 8 + 8 = 16 J over 2 s, whatever the power readings say.
  t.samples = {{0, {0}, {90}}, {1, {0}, {98}}, {2, {0}, {6}}};
  auto e = power::integrate(t);
  EXPECT_TRUE(e.from_counters);
  EXPECT_DOUBLE_EQ(e.energy_j, 16);
  EXPECT_DOUBLE_EQ(power::integrate(t, 0.5, 1.5).energy_j, 8);  // interpolated at both edges
}

TEST(PowerJetson, OrinHwmonLayoutMultipliesVoltsAndAmps) {
  auto root = temp_dir() + "/orin";
  auto d = root + "/bus/i2c/drivers/ina3221/1-0040/hwmon/hwmon3/";
  write(d + "in1_label", "VDD_GPU_SOC");
  write(d + "in1_input", "5000");   // mV
  write(d + "curr1_input", "630");  // mA: 3.15 W
  write(d + "in2_label", "VDD_CPU_CV");
  write(d + "in2_input", "4800");
  write(d + "curr2_input", "2500");  // 12 W
  write(d + "in3_label", "NC");
  write(d + "in3_input", "0");
  write(d + "curr3_input", "0");
  SysfsRoot env(root);
  auto s = power::jetson_rails_sampler();
  EXPECT_EQ(s->rails(), (std::vector<std::string>{"VDD_GPU_SOC", "VDD_CPU_CV"}));
  EXPECT_EQ(s->input_rail(), -1);
  auto r = s->read();
  EXPECT_DOUBLE_EQ(r.power_w[0], 3.15);
  EXPECT_DOUBLE_EQ(r.power_w[1], 12.0);
}

TEST(PowerJetson, XavierAndNanoIioLayouts) {
  auto root = temp_dir() + "/nano";
  auto d = root + "/bus/i2c/drivers/ina3221x/6-0040/iio:device0/";
  write(d + "rail_name_0", "POM_5V_IN");
  write(d + "in_power0_input", "3962");  // mW
  write(d + "rail_name_1", "POM_5V_GPU");
  write(d + "in_power1_input", "120");
  write(d + "rail_name_2", "POM_5V_CPU");  // no in_power: voltage x current
  write(d + "in_voltage2_input", "5000");
  write(d + "in_current2_input", "160");
  {
    SysfsRoot env(root);
    auto s = power::jetson_rails_sampler();
    EXPECT_EQ(s->rails(), (std::vector<std::string>{"POM_5V_IN", "POM_5V_GPU", "POM_5V_CPU"}));
    EXPECT_EQ(s->input_rail(), 0);
    auto r = s->read();
    EXPECT_DOUBLE_EQ(r.power_w[0], 3.962);
    EXPECT_DOUBLE_EQ(r.power_w[1], 0.12);
    EXPECT_DOUBLE_EQ(r.power_w[2], 0.8);
  }
  auto xavier = temp_dir() + "/xavier";
  const char* names[2][3] = {{"GPU", "CPU", "SOC"}, {"CV", "VDDRQ", "SYS5V"}};
  for (int chip = 0; chip < 2; ++chip)
    for (int n = 0; n < 3; ++n) {
      auto dir = xavier + "/bus/i2c/drivers/ina3221x/1-004" + std::to_string(chip) + "/iio:device" +
                 std::to_string(chip) + "/";
      write(dir + "rail_name_" + std::to_string(n), names[chip][n]);
      write(dir + "in_power" + std::to_string(n) + "_input", std::to_string(1000 * (chip * 3 + n + 1)));
    }
  SysfsRoot env(xavier);
  auto s = power::jetson_rails_sampler();
  ASSERT_EQ(s->rails().size(), 6u);
  EXPECT_EQ(s->input_rail(), -1);
  power::Trace t;
  t.rails = s->rails();
  t.samples = {{0, s->read().power_w, {}}};
  EXPECT_DOUBLE_EQ(t.total_w(t.samples[0]), 21.0);  // 1 + 2 + ... + 6 W, all parallel
}

TEST(PowerJetson, NoBoardIsAnError) {
  SysfsRoot env(temp_dir() + "/empty");
  EXPECT_NE(error_of([] { power::jetson_rails_sampler(); }).find("no INA3221"), std::string::npos);
}

void rapl_domain(const std::string& dir, const std::string& name, const std::string& uj, const std::string& range) {
  write(dir + "/name", name);
  write(dir + "/energy_uj", uj);
  write(dir + "/max_energy_range_uj", range);
}

TEST(PowerRapl, PackageAndDramDomainsWithAWrap) {
  auto root = temp_dir() + "/rapl";
  auto base = root + "/class/powercap/";
  rapl_domain(base + "intel-rapl:0", "package-0", "999000000", "1000000000");  // 1 s before the wrap at 1000 J
  rapl_domain(base + "intel-rapl:0:0", "core", "5", "1000000000");
  rapl_domain(base + "intel-rapl:0:1", "dram", "2000000", "1000000000");
  SysfsRoot env(root);
  auto s = power::rapl_sampler("package");
  EXPECT_EQ(s->rails(), std::vector<std::string>{"package-0"});
  EXPECT_EQ(s->counter_range_j(), std::vector<double>{1000});
  write(base + "intel-rapl:0/energy_uj", "3000000");  // wrapped: 1 + 3 = 4 J later
  auto r = s->read();
  EXPECT_DOUBLE_EQ(r.energy_j[0], 3);
  EXPECT_GT(r.power_w[0], 0);  // 4 J over the (short) time between the reads
  power::Trace t;
  t.source = "rapl";
  t.rails = s->rails();
  t.counter_range_j = s->counter_range_j();
  t.samples = {{0, {0}, {999}}, {2, {0}, r.energy_j}};
  EXPECT_DOUBLE_EQ(power::integrate(t).energy_j, 4);
  EXPECT_EQ(power::rapl_sampler("dram")->rails(), std::vector<std::string>{"dram-0"});
}

TEST(PowerRapl, UnreadableCounterSaysHowToFixIt) {
  auto root = temp_dir() + "/rapl_denied";
  auto dir = root + "/class/powercap/intel-rapl:0";
  write(dir + "/name", "package-0");
  write(dir + "/max_energy_range_uj", "1000");
  // Root reads any file, so the unreadable counter is simulated by a directory in its place
  // (read() fails with EISDIR); without root, a mode-000 file fails with EACCES as on Linux 5.10+.
  fs::create_directories(dir + "/energy_uj");
  SysfsRoot env(root);
  auto e = error_of([] { power::rapl_sampler("package"); });
  EXPECT_NE(e.find("readable by root only since Linux 5.10"), std::string::npos) << e;
  EXPECT_NE(e.find("sudo chmod o+r " + dir + "/energy_uj"), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos);
  if (geteuid() != 0) {
    fs::remove(dir + "/energy_uj");
    write(dir + "/energy_uj", "5");
    fs::permissions(dir + "/energy_uj", fs::perms::none);
    auto denied = error_of([] { power::rapl_sampler("package"); });
    EXPECT_NE(denied.find("Permission denied"), std::string::npos) << denied;
  }
  EXPECT_NE(power::rapl_unreadable("/x/energy_uj", EACCES).find("(Permission denied)"), std::string::npos);
}

// A fake NVML: two GPUs at 50 and 70 W; GPU 1 has no energy counter.
unsigned fake_count = 2;
int fake_init() { return power::kNvmlSuccess; }
int fake_shutdown() { return power::kNvmlSuccess; }
int fake_device_count(unsigned* n) {
  *n = fake_count;
  return power::kNvmlSuccess;
}
int fake_handle(unsigned i, power::NvmlApi::Device* d) {
  *d = reinterpret_cast<void*>(static_cast<uintptr_t>(i + 1));
  return power::kNvmlSuccess;
}
int fake_power(power::NvmlApi::Device d, unsigned* mw) {
  *mw = reinterpret_cast<uintptr_t>(d) == 1 ? 50000 : 70000;
  return power::kNvmlSuccess;
}
int fake_energy(power::NvmlApi::Device d, unsigned long long* mj) {
  *mj = 123456;
  return reinterpret_cast<uintptr_t>(d) == 1 ? power::kNvmlSuccess : power::kNvmlNotSupported;
}
int fake_failing_power(power::NvmlApi::Device, unsigned*) { return 999; }
const char* fake_error(int) { return "Unknown Error"; }

power::NvmlApi fake_nvml() {
  power::NvmlApi api;
  api.init = fake_init;
  api.shutdown = fake_shutdown;
  api.device_count = fake_device_count;
  api.handle_by_index = fake_handle;
  api.power_usage_mw = fake_power;
  api.total_energy_mj = fake_energy;
  api.error_string = fake_error;
  return api;
}

TEST(PowerNvml, AllGpusAreRailsAndOneIndexIsOne) {
  auto all = power::nvml_sampler(fake_nvml(), -1);
  EXPECT_EQ(all->rails(), (std::vector<std::string>{"gpu0", "gpu1"}));
  auto r = all->read();
  EXPECT_EQ(r.power_w, (std::vector<double>{50, 70}));
  EXPECT_TRUE(r.energy_j.empty());  // GPU 1 has no counter: none are used
  auto one = power::nvml_sampler(fake_nvml(), 0);
  auto r0 = one->read();
  EXPECT_EQ(r0.power_w, std::vector<double>{50});
  EXPECT_EQ(r0.energy_j, std::vector<double>{123.456});  // mJ to J
  EXPECT_NE(error_of([] { power::nvml_sampler(fake_nvml(), 2); }).find("indices 0 to 1"), std::string::npos);
  auto api = fake_nvml();
  api.power_usage_mw = fake_failing_power;
  auto failing = power::nvml_sampler(api, 0);
  EXPECT_NE(error_of([&] { failing->read(); }).find("nvmlDeviceGetPowerUsage failed: Unknown Error"),
            std::string::npos);
}

TEST(PowerNvml, AMissingLibraryIsOneLine) {
  auto e = error_of([] { power::load_nvml("libnvidia-ml-absent.so.1"); });
  EXPECT_NE(e.find("NVIDIA's driver library libnvidia-ml-absent.so.1 was not found (no NVIDIA driver"),
            std::string::npos)
      << e;
}

TEST(PowerSource, SpecsAreCheckedAndFilesAreNotLive) {
  EXPECT_TRUE(power::is_file_source("tegrastats:run.log"));
  EXPECT_FALSE(power::is_file_source("tegrastats"));
  EXPECT_NE(error_of([] { power::open_sampler("csv:m.csv"); }).find("ridge power integrate"), std::string::npos);
  EXPECT_NE(error_of([] { power::open_sampler("watts"); }).find("unknown power source"), std::string::npos);
  EXPECT_NE(error_of([] { power::open_sampler("nvml:x"); }).find("GPU index"), std::string::npos);
  EXPECT_NE(error_of([] { power::open_sampler("rapl:core"); }).find("rapl:package and rapl:dram"), std::string::npos);
}

TEST(PowerRecorder, SamplesAConstantTreeOnItsThread) {
  auto root = temp_dir() + "/constant";
  auto d = root + "/bus/i2c/drivers/ina3221/1-0040/hwmon/hwmon1/";
  write(d + "in1_label", "VDD_IN");
  write(d + "in1_input", "5000");
  write(d + "curr1_input", "1000");
  SysfsRoot env(root);
  power::Recorder recorder(power::jetson_rails_sampler(), "jetson", 0.01);
  auto start = power::now_s();
  recorder.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  auto end = power::now_s();
  recorder.wait_past(end);
  recorder.stop();
  auto trace = recorder.trace();
  EXPECT_GE(trace.samples.size(), 5u);
  EXPECT_LE(trace.samples.front().time_s, start + 0.05);
  auto e = power::integrate(trace, trace.samples.front().time_s, end);
  EXPECT_NEAR(e.mean_w, 5.0, 1e-9);
  EXPECT_NE(error_of([&] { power::only_rail(trace, "VDD_GPU"); }).find("(it has: VDD_IN)"), std::string::npos);
}

}  // namespace
}  // namespace ridge::test
