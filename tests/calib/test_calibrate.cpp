// calib::calibrate and calib::predict_on_device in process: the shape-aware fit of ridge's GPU executor from the
// H200's ResNet-50 runs (eager and CUDA graph, batch 1 and 32, the shared set), each run predicted back from the
// device file the fit wrote, and what the inputs themselves refuse. tests/cli/test_calibrate.cpp checks what the
// command line adds (option combinations, printed text, the store).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <variant>

#include "calib/calibrate.h"
#include "calib/device_prediction.h"
#include "hw/device_db.h"
#include "support/device_fixtures.h"
#include "support/error_text.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;

// The runs name models/resnet50.onnx: it is found beside them.
std::string gpu_runs(const std::string& dir) {
  fs::create_directories(dir + "/models");
  fs::copy_file(source_path("tests/data/bench/h200/ridge-bench-resnet50.json"), dir + "/runs.json",
                fs::copy_options::overwrite_existing);
  fs::copy_file(model_path("resnet50"), dir + "/models/resnet50.onnx", fs::copy_options::overwrite_existing);
  return dir + "/runs.json";
}

TEST(Calibrate, GpuRunsFitTheGpuExecutorAndPredictThemBack) {
  auto dir = temp_dir() + "/calibrate-in-process";
  calib::CalibrateRequest request;
  request.device = "h200";
  request.measured = {gpu_runs(dir)};
  request.output = dir + "/h200.yaml";
  auto result = calib::calibrate(request);
  ASSERT_TRUE(std::holds_alternative<calib::ShapeCalibration>(result));
  const auto& fit = std::get<calib::ShapeCalibration>(result);
  EXPECT_EQ(fit.device, "h200");
  EXPECT_EQ(fit.output, dir + "/h200.yaml");
  for (const auto& file : {fit.samples_file, fit.overhead_file, fit.model_file, fit.output})
    EXPECT_TRUE(fs::exists(file)) << file;
  std::ifstream model_file(fit.model_file);
  EXPECT_EQ(nlohmann::json::parse(model_file)["executor"], "cuda");

  // Each run's median (read from the file) against the prediction of the device file the fit wrote.
  std::ifstream runs_file(request.measured.front());
  auto runs = nlohmann::json::parse(runs_file)["runs"];
  ASSERT_EQ(runs.size(), 4u);
  auto device = hw::find_device(fit.output);
  ASSERT_TRUE(device.calibration.has_value());
  auto roofline = hw::roofline_for(device, hw::resolve_mode(device, ""));
  for (const auto& run : runs) {
    analysis::Request model;
    model.model_path = dir + "/models/resnet50.onnx";
    model.bindings.batch = run["batch"].get<int64_t>();
    auto analysis = analysis::run(model);
    calib::DevicePredictionOptions options;
    options.roofline.batch = *model.bindings.batch;
    options.exec_mode = run["mode"].get<std::string>();
    auto prediction = calib::predict_on_device(analysis, device, roofline, options, model.model_path);
    double measured_ms = run["latency_ms"]["median"].get<double>();
    EXPECT_NEAR(prediction.time_s * 1e3 / measured_ms, 1.0, 0.10) << run["batch"] << " " << options.exec_mode;
    // The GPU executor has no optimized mode and no thread count: refused, not dropped.
    options.exec_mode = "optimized";
    EXPECT_THROW(calib::predict_on_device(analysis, device, roofline, options, model.model_path), Error);
    options.exec_mode = "eager";
    options.threads = 2;
    EXPECT_THROW(calib::predict_on_device(analysis, device, roofline, options, model.model_path), Error);
  }
}

TEST(Calibrate, InputsThatDoNotBelongTogetherAreRefused) {
  auto dir = temp_dir() + "/calibrate-refusals";
  auto runs = gpu_runs(dir);
  auto message = [&](calib::CalibrateRequest request) {
    request.output = dir + "/out.yaml";
    return error_text([&] { calib::calibrate(request); });
  };
  auto cpu = round_cpu_device(dir);
  calib::CalibrateRequest gpu_on_cpu;
  gpu_on_cpu.device = cpu;
  gpu_on_cpu.measured = {runs};
  EXPECT_NE(message(gpu_on_cpu).find("holds GPU runs"), std::string::npos) << message(gpu_on_cpu);

  calib::CalibrateRequest dims;  // --dim binds what PyTorch's timings do not record; these runs record theirs
  dims.device = "h200";
  dims.measured = {runs};
  dims.model.bindings.dims = {{"seq", 128}};
  EXPECT_NE(message(dims).find("--dim applies to"), std::string::npos) << message(dims);

  calib::CalibrateRequest energy;  // a mode the device does not have
  energy.fit = calib::Fit::kEnergy;
  energy.device = "h200:no-such-mode";
  energy.measured = {runs};
  EXPECT_NE(message(energy).find("no-such-mode"), std::string::npos) << message(energy);

  calib::CalibrateRequest energy_of_cpu_mode;  // energy coefficients need runs with energy figures
  energy_of_cpu_mode.fit = calib::Fit::kEnergy;
  energy_of_cpu_mode.device = cpu;
  energy_of_cpu_mode.measured = {runs};
  EXPECT_NE(message(energy_of_cpu_mode).find("no run with an energy figure"), std::string::npos)
      << message(energy_of_cpu_mode);
}

// --threads as given: N or N1,N2,...; anything else is named.
TEST(Calibrate, ThreadCountsAsGiven) {
  EXPECT_TRUE(calib::parse_threads("").empty());  // every logical CPU
  EXPECT_EQ(calib::parse_threads("4"), (std::vector<int>{4}));
  EXPECT_EQ(calib::parse_threads("1,2,4"), (std::vector<int>{1, 2, 4}));
  for (const auto* bad : {"0", "2x", "4097", "-1"})
    EXPECT_EQ(error_text([&] { calib::parse_threads(bad); }),
              std::string("--threads: '") + bad + "' is not a thread count (give N or N1,N2,...)");
  EXPECT_EQ(error_text([&] { calib::parse_threads("1,two"); }),
            "--threads: 'two' is not a thread count (give N or N1,N2,...)");
}

// What a fit would drop is refused before any work, each in one line naming the options as the command spells them.
TEST(Calibrate, OptionsAFitWouldDropAreRefused) {
  auto refused = [](calib::CalibrateRequest request) {
    request.device = "t4";
    return error_text([&] { calib::calibrate(request); });
  };
  const std::string csv = temp_dir() + "/no-such-node-times.csv";
  auto family = [&] {
    calib::CalibrateRequest r;
    r.fit = calib::Fit::kFamily;
    r.model.model_path = model_path("alexnet");
    r.measured = {csv};
    return r;
  };
  const std::string kFamilyDrops =
      "--quick, --sample-size, --visits, --threads, --modes, --exclude-model, --folds and --seed apply to the "
      "shape-aware calibration (no MODEL); the per-family fit of a MODEL takes its node times as measured";
  for (auto change : std::vector<std::function<void(calib::CalibrateRequest&)>>{
           [](auto& r) { r.quick = true; }, [](auto& r) { r.sample_size = 4; }, [](auto& r) { r.visits = 1; },
           [](auto& r) { r.threads = {2}; }, [](auto& r) { r.modes = "eager"; }, [](auto& r) { r.exclude_model = "x"; },
           [](auto& r) { r.folds = 3; }, [](auto& r) { r.seed = 0; }}) {
    auto r = family();
    change(r);
    EXPECT_EQ(refused(r), kFamilyDrops);
  }
  auto sampled = family();
  sampled.sample = true;
  EXPECT_EQ(refused(sampled), "--sample and --samples fit the shape-aware calibration: give them without a MODEL");
  auto two = family();
  two.measured.push_back(csv);
  EXPECT_NE(refused(two).find("give exactly one --measured CSV"), std::string::npos);
  auto ncu = family();
  ncu.ncu = {"m:1=x.csv"};
  EXPECT_NE(refused(ncu).find("--ncu adds kernel times to the shape-aware GPU fit"), std::string::npos);
  // The per-family fit takes its options and gets as far as reading the file.
  EXPECT_NE(refused(family()).find("no-such-node-times.csv"), std::string::npos) << refused(family());

  calib::CalibrateRequest nothing;
  EXPECT_EQ(refused(nothing),
            "nothing to calibrate from: give --sample (time a layer sample here), --measured DIR (bench runs) or "
            "--samples FILE");
  auto shape = [&] {
    calib::CalibrateRequest r;
    r.measured = {csv};
    return r;
  };
  auto quick = shape();
  quick.quick = true;
  EXPECT_EQ(refused(quick), "--quick, --sample-size and --visits apply to --sample");
  auto visits = shape();
  visits.visits = 3;
  EXPECT_EQ(refused(visits), "--quick, --sample-size and --visits apply to --sample");
  const std::string kShapeDrops =
      "--batch, --input, --dtype, --weight-dtype, --strict, --allow-tf32 and --traffic apply to the per-family fit of "
      "a MODEL, not to the shape-aware calibration";
  for (auto change : std::vector<std::function<void(calib::CalibrateRequest&)>>{
           [](auto& r) { r.model.bindings.batch = 8; },
           [](auto& r) {
             r.model.bindings.inputs["x"] = {1, 3, 8, 8};
           },
           [](auto& r) { r.model.options.activation_dtype = graph::DType::kFloat16; },
           [](auto& r) { r.model.options.weight_dtype = graph::DType::kFloat16; },
           [](auto& r) { r.model.strict = true; }, [](auto& r) { r.choices.allow_tf32 = true; },
           [](auto& r) { r.choices.traffic = "fused"; }}) {
    auto r = shape();
    change(r);
    EXPECT_EQ(refused(r), kShapeDrops);
  }
  auto bf16 = shape();
  bf16.choices.precision = "bf16";
  EXPECT_EQ(refused(bf16), "the shape-aware calibration is fitted in fp32 (the executor's precision), not bf16");
  auto repetitions = shape();
  repetitions.repetitions = 2;
  EXPECT_EQ(refused(repetitions), "--repetitions applies to an Nsight Compute export given to a MODEL's --measured");
  auto exclude = shape();
  exclude.measured.clear();
  exclude.sample = true;
  exclude.exclude_model = "x";
  EXPECT_EQ(refused(exclude), "--exclude-model applies to --measured");

  auto energy = [&] {
    calib::CalibrateRequest r;
    r.fit = calib::Fit::kEnergy;
    r.measured = {csv};
    return r;
  };
  auto with_model = energy();
  with_model.model.model_path = model_path("alexnet");
  EXPECT_NE(refused(with_model).find("give no MODEL"), std::string::npos);
  auto folds = energy();
  folds.folds = 3;
  EXPECT_NE(refused(folds).find("fit time calibrations, not --energy"), std::string::npos);
  auto seq = energy();
  seq.model.bindings.dims["seq"] = 128;
  EXPECT_NE(refused(seq).find("do not apply to --energy"), std::string::npos);
  auto none = energy();
  none.measured.clear();
  EXPECT_NE(refused(none).find("--energy needs --measured"), std::string::npos);
}

// The first measurement's line, then one when five seconds of the sample passed since the last line printed.
TEST(Calibrate, ProgressLinesComeAtMostEveryFiveSeconds) {
  std::vector<std::string> lines;
  auto progress = calib::progress_lines([&](const std::string& line) { lines.push_back(line); });
  for (auto [done, elapsed] : std::initializer_list<std::pair<int, double>>{
           {0, 0.0}, {1, 1.0}, {2, 4.9}, {3, 5.2}, {4, 9.0}, {5, 10.5}, {6, 10.6}})
    progress(
        {.done = done, .total = 7, .stage = "sample", .label = "conv " + std::to_string(done), .elapsed_s = elapsed});
  EXPECT_EQ(lines, (std::vector<std::string>{"calibrate: [1/7] sample: conv 0", "calibrate: [4/7] sample: conv 3",
                                             "calibrate: [6/7] sample: conv 5"}));
  lines.clear();
  auto every_second = calib::progress_lines([&](const std::string& line) { lines.push_back(line); }, 1);
  every_second({.done = 0, .total = 2, .stage = "refine 1", .label = "a", .elapsed_s = 3});
  every_second({.done = 1, .total = 2, .stage = "refine 1", .label = "b", .elapsed_s = 4});
  EXPECT_EQ(lines, (std::vector<std::string>{"calibrate: [1/2] refine 1: a", "calibrate: [2/2] refine 1: b"}));
}

}  // namespace
}  // namespace ridge::test
