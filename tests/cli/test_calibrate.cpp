// `ridge calibrate` for the shape-aware calibration, end to end: a small layer sample timed here,
// the files it keeps, a prediction with the device file it writes, a refit from the kept
// evidence, and the options it refuses.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>
#include <vector>

#include "support/device_fixtures.h"
#include "support/one_line_error.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;

// A CPU with round ceilings: 100 GFLOP/s, 10 GB/s.
std::string device_file(const std::string& dir) { return round_cpu_device(dir); }

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

size_t lines_of(const std::string& path) {
  auto text = read_text(path);
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

TEST(CalibrateCli, LayerSampleFitsKeepsItsEvidenceAndPredicts) {
  auto dir = temp_dir() + "/calibrate-sample";
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto device = device_file(dir);
  auto r = run_ridge("calibrate --device " + device + " --sample --sample-size 1 --threads 1 -o " + dir +
                     "/cal.yaml -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  int64_t fitted = doc["samples"].get<int64_t>();
  EXPECT_GT(fitted, 40);
  // Every kind the sample covers has a cross-validated model in both modes.
  std::set<std::string> models;
  for (const auto& m : doc["models"]) models.insert(m["model"].get<std::string>());
  for (auto key : {"all", "conv/eager", "conv/optimized", "grouped_conv/eager", "matmul/optimized", "elementwise/eager",
                   "norm/eager", "pool/eager", "softmax/eager", "data_movement/eager"})
    EXPECT_TRUE(models.count(key)) << key << " missing in " << r.out;
  // The evidence is kept beside the device file: one CSV row per fitted layer.
  EXPECT_EQ(lines_of(dir + "/cal.samples.csv"), static_cast<size_t>(fitted) + 1);
  EXPECT_GT(lines_of(dir + "/cal.overhead.csv"), 1u);
  EXPECT_TRUE(fs::exists(dir + "/cal.model.json"));
  auto yaml = read_text(dir + "/cal.yaml");
  EXPECT_NE(yaml.find("cal.model.json"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("peak_flops"), std::string::npos) << yaml;  // the device itself is kept

  // Predictions with it are estimates for the mode and threads asked, naming the calibration.
  auto p = run_ridge("predict " + model_path("alexnet") + " --device " + dir +
                     "/cal.yaml --exec-mode optimized --threads 1 -f json");
  ASSERT_EQ(p.exit_code, 0) << p.err;
  auto pred = nlohmann::json::parse(p.out);
  EXPECT_EQ(pred["calibration"]["model"], dir + "/cal.model.json") << p.out;  // resolved beside the device file
  EXPECT_EQ(pred["calibration"]["exec_mode"], "optimized");
  EXPECT_EQ(pred["calibration"]["threads"], 1);
  EXPECT_GT(pred["calibration"]["validation"]["points"].get<int>(), 0);
  int fused = 0, estimated = 0;
  for (const auto& n : pred["nodes"]) {
    if (n.contains("fused_into") && !n["fused_into"].get<std::string>().empty()) ++fused;
    if (n.value("estimated", false)) ++estimated;
  }
  EXPECT_GT(fused, 0) << "alexnet's Relus run inside its convolutions in optimized mode";
  EXPECT_GT(estimated, 0);
  EXPECT_GT(pred["totals"]["time_s"].get<double>(), 0);

  // The kept evidence refits to the same model (same samples, same seed).
  auto refit = run_ridge("calibrate --device " + device + " --samples " + dir + "/cal.samples.csv -o " + dir +
                         "/refit.yaml -f json");
  ASSERT_EQ(refit.exit_code, 0) << refit.err;
  auto again = nlohmann::json::parse(refit.out);
  EXPECT_EQ(again["samples"].get<int64_t>(), fitted);
  EXPECT_EQ(again["models"][0], doc["models"][0]);  // "all": the same held-out errors
}

// Whole-model bench runs of two models as evidence, and leave-one-model-out: the calibration
// fitted without AlexNet's runs still predicts AlexNet (from MobileNetV2's layers).
TEST(CalibrateCli, BenchRunsOfSeveralModelsAndOneLeftOut) {
  auto dir = temp_dir() + "/calibrate-measured";
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto device = device_file(dir);
  for (const auto& model : {model_path("alexnet"), model_path("mobilenet_v2")}) {
    auto bench =
        run_ridge("bench " + model + " --mode both --iters 3 --warmup 0 --threads 1 -f json --csv " + dir + "/runs");
    ASSERT_EQ(bench.exit_code, 0) << bench.err;
  }
  auto both =
      run_ridge("calibrate --device " + device + " --measured " + dir + "/runs -o " + dir + "/both.yaml -f json");
  ASSERT_EQ(both.exit_code, 0) << both.err;
  auto all = nlohmann::json::parse(both.out);
  EXPECT_NE(all["evidence"][0].get<std::string>().find("4 bench run(s) of 2 model(s)"), std::string::npos) << both.out;
  auto lomo = run_ridge("calibrate --device " + device + " --measured " + dir + "/runs --exclude-model " +
                        model_path("alexnet") + " -o " + dir + "/lomo.yaml -f json");
  ASSERT_EQ(lomo.exit_code, 0) << lomo.err;
  auto without = nlohmann::json::parse(lomo.out);
  EXPECT_NE(without["evidence"][0].get<std::string>().find("2 bench run(s) of 1 model(s)"), std::string::npos)
      << lomo.out;
  // AlexNet has 20 nodes in eager mode (one run) and fewer in optimized mode: that many layers fewer.
  int64_t left_out = all["samples"].get<int64_t>() - without["samples"].get<int64_t>();
  EXPECT_GT(left_out, 20);
  EXPECT_LT(left_out, 40);
  auto p = run_ridge("predict " + model_path("alexnet") + " --device " + dir +
                     "/lomo.yaml --exec-mode eager --threads 1 -f json");
  ASSERT_EQ(p.exit_code, 0) << p.err;
  auto pred = nlohmann::json::parse(p.out);
  EXPECT_TRUE(pred["estimate"].get<bool>());
  EXPECT_GT(pred["totals"]["time_s"].get<double>(), 0);
}

TEST(CalibrateCli, RefusesWhatItCannotHonour) {
  auto dir = temp_dir() + "/calibrate-refusals";
  fs::create_directories(dir);
  auto device = device_file(dir);
  for (const auto& args : std::vector<std::string>{
           "--device " + device, "--device " + device + " --quick --measured " + dir,
           "--device " + device + " --sample --threads 0", "--device " + device + " --sample --threads two",
           "--device " + device + " --sample --modes fast", "--device " + device + " --exclude-model x.onnx --sample",
           model_path("alexnet") + " --device " + device + " --sample",
           "--device " + device + " --samples " + dir + "/missing.samples.csv", std::string("--device host --sample"),
           "--device " + device + " --sample --batch 8", "--device " + device + " --sample --precision bf16",
           "--device " + device + " --sample --dim seq=128",
           // Every refusal is tested in process (tests/calib/test_calibrate.cpp); these check that the command
           // gives what it parsed: --seed 0 is given, not the default.
           model_path("alexnet") + " --device " + device + " --measured " + dir + "/t.csv --seed 0"}) {
    auto r = run_ridge("calibrate " + args + " -o " + dir + "/out.yaml");
    EXPECT_NE(r.exit_code, 0) << args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
    EXPECT_NE(r.err.find("error"), std::string::npos) << args << ": " << r.err;
  }
}

// ridge's own GPU bench runs (the real H200 file: ResNet-50 at batch 1 and 32, eager and CUDA graph) calibrate the
// GPU executor: the fit is of the GPU (executor cuda in its model file, device and host times per layer kind),
// and predictions name the mode. In sample, each point comes back within 10% of its median.
TEST(CalibrateCli, GpuBenchRunsCalibrateTheGpuExecutor) {
  auto dir = temp_dir() + "/gpu-cal";
  std::filesystem::create_directories(dir + "/models");
  std::filesystem::copy_file(source_path("tests/data/bench/h200/ridge-bench-resnet50.json"), dir + "/runs.json",
                             std::filesystem::copy_options::overwrite_existing);
  // The runs name models/resnet50.onnx: found beside the results, wherever the tests run from.
  std::filesystem::copy_file(model_path("resnet50"), dir + "/models/resnet50.onnx",
                             std::filesystem::copy_options::overwrite_existing);
  auto r = run_ridge("calibrate --device h200 --measured " + dir + "/runs.json -o " + dir + "/h200.yaml -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto fit = nlohmann::json::parse(r.out);
  std::ifstream model_file(dir + "/h200.model.json");
  auto model = nlohmann::json::parse(model_file);
  EXPECT_EQ(model["executor"], "cuda");
  std::set<std::string> kinds;
  for (const auto& k : model["gpu"]["kinds"]) kinds.insert(k["kind"].get<std::string>());
  EXPECT_TRUE(kinds.count("conv") && kinds.count("elementwise")) << model["gpu"].dump();
  EXPECT_NE(fit.dump().find("device/conv"), std::string::npos) << fit.dump();

  // The medians of the four runs, read from the file.
  const std::vector<std::tuple<int, std::string, double>> measured = {{1, "eager", 5.37340784072876},
                                                                      {1, "cuda-graph", 2.2200160026550293},
                                                                      {32, "eager", 14.255375862121582},
                                                                      {32, "cuda-graph", 13.948847770690918}};
  std::ifstream runs_file(dir + "/runs.json");
  auto runs = nlohmann::json::parse(runs_file)["runs"];
  for (const auto& [batch, mode, median_ms] : measured) {
    bool found = false;
    for (const auto& run : runs)
      if (run["batch"] == batch && run["mode"] == mode) {
        EXPECT_NEAR(run["latency_ms"]["median"].get<double>(), median_ms, 1e-6);
        found = true;
      }
    ASSERT_TRUE(found) << batch << " " << mode;
    auto p = run_ridge("predict " + dir + "/models/resnet50.onnx --device " + dir + "/h200.yaml --exec-mode " + mode +
                       " --batch " + std::to_string(batch) + " -f json --no-store");
    ASSERT_EQ(p.exit_code, 0) << p.err;
    auto doc = nlohmann::json::parse(p.out);
    EXPECT_TRUE(doc["estimate"].get<bool>());
    EXPECT_EQ(doc["calibration"]["exec_mode"], mode);
    EXPECT_EQ(doc["calibration"]["threads"], 0);
    auto table = run_ridge("predict " + dir + "/models/resnet50.onnx --device " + dir + "/h200.yaml --exec-mode " +
                           mode + " --batch " + std::to_string(batch) + " --no-store");
    EXPECT_NE(table.out.find("calibrated estimate for " + mode + " mode, the GPU executor"), std::string::npos)
        << table.out;
    double predicted_ms = doc["totals"]["time_s"].get<double>() * 1e3;
    EXPECT_NEAR(predicted_ms / median_ms, 1.0, 0.10) << batch << " " << mode << ": " << predicted_ms;
  }
  // The kept evidence refits the same GPU model (its runs named in both files, thread count 0).
  auto refit = run_ridge("calibrate --device h200 --samples " + dir + "/h200.samples.csv -o " + dir +
                         "/refit.yaml --no-store -f json");
  ASSERT_EQ(refit.exit_code, 0) << refit.err;
  std::ifstream refit_file(dir + "/refit.model.json");
  auto refitted = nlohmann::json::parse(refit_file);
  EXPECT_EQ(refitted["executor"], "cuda");
  EXPECT_EQ(refitted["gpu"], model["gpu"]);
  auto mixed = run_ridge("calibrate --device h200 --samples " + dir + "/h200.samples.csv --measured " +
                         source_path("tests/data/bench/h200/ridge-bench-resnet50.json") + " --measured " + dir +
                         "/runs.json -o " + dir + "/mixed.yaml --no-store");
  EXPECT_EQ(mixed.exit_code, 0) << mixed.err;  // GPU layers and GPU runs: one device
  // The GPU executor has no optimized mode and no thread count: refused, not dropped.
  auto optimized = run_ridge("predict " + dir + "/models/resnet50.onnx --device " + dir +
                             "/h200.yaml --exec-mode optimized --no-store");
  expect_one_line_error(optimized, "--exec-mode optimized: the calibration of 'h200' covers the GPU executor");
  auto threads =
      run_ridge("predict " + dir + "/models/resnet50.onnx --device " + dir + "/h200.yaml --threads 2 --no-store");
  expect_one_line_error(threads, "--threads: the calibration of 'h200' is of the GPU executor");
  // Reduced-precision runs are named, not fitted.
  auto tf32 = run_ridge("calibrate --device h200 --measured " +
                        source_path("tests/data/bench/h200/ridge-bench-resnet50-tf32.json") + " -o " + dir +
                        "/tf32.yaml --no-store");
  expect_one_line_error(tf32, "no bench run could be fitted");
  EXPECT_NE(tf32.err.find("tf32 run(s) skipped (the calibration covers fp32)"), std::string::npos) << tf32.err;
}

// PyTorch's own timings on the H200 (bench/torch_gpu_peer.py's JSON Lines, the shared set) calibrate a prediction of
// PyTorch, labelled with the framework: the calibrated model's runs come back close in sample, and what does not
// belong with them is refused.
TEST(CalibrateCli, PyTorchTimingsCalibrateAPredictionOfPyTorch) {
  auto dir = temp_dir() + "/torch-cal";
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(source_path("tests/data/bench/h200/pytorch-peer.jsonl"), dir + "/peer.jsonl",
                             std::filesystem::copy_options::overwrite_existing);
  // The lines name networks ("resnet50"): found as models/NAME.onnx beside the file, wherever the tests run from.
  std::error_code ec;
  std::filesystem::create_directory_symlink(source_path("models"), dir + "/models", ec);
  auto r = run_ridge("calibrate --device h200 --measured " + dir + "/peer.jsonl --dim seq=128 -o " + dir +
                     "/torch.yaml --no-store -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto fit = nlohmann::json::parse(r.out);
  EXPECT_NE(fit.dump().find("24 PyTorch 2.11.0+cu130 run(s) of 6 model(s)"), std::string::npos) << fit.dump();
  std::ifstream model_file(dir + "/torch.model.json");
  auto model = nlohmann::json::parse(model_file);
  EXPECT_EQ(model["executor"], "pytorch");
  EXPECT_EQ(model["framework"], "PyTorch 2.11.0+cu130");
  // ResNet-50 at batch 32 in a CUDA graph: 11.29 ms in the file.
  auto p = run_ridge("predict " + model_path("resnet50") + " --device " + dir +
                     "/torch.yaml --exec-mode cuda-graph --batch 32 --no-store -f json");
  ASSERT_EQ(p.exit_code, 0) << p.err;
  auto doc = nlohmann::json::parse(p.out);
  EXPECT_EQ(doc["calibration"]["predicts"], "PyTorch 2.11.0+cu130");
  EXPECT_EQ(doc["calibration"]["validation"]["unit"], "runs");
  EXPECT_NEAR(doc["totals"]["time_s"].get<double>() * 1e3 / 11.293439865112305, 1.0, 0.10);
  auto table = run_ridge("predict " + model_path("resnet50") + " --device " + dir +
                         "/torch.yaml --exec-mode cuda-graph --batch 32 --no-store");
  EXPECT_NE(table.out.find("calibrated estimate for cuda-graph mode, PyTorch 2.11.0+cu130"), std::string::npos)
      << table.out;
  auto threads =
      run_ridge("predict " + model_path("resnet50") + " --device " + dir + "/torch.yaml --threads 2 --no-store");
  expect_one_line_error(threads, "is of PyTorch 2.11.0+cu130 on the GPU, which has no thread count");

  // A CPU device file, ridge's own GPU runs beside PyTorch's, and --dim without PyTorch timings: refused.
  auto cpu = run_ridge("calibrate --device host --measured " + dir + "/peer.jsonl --dim seq=128 -o " + dir +
                       "/x.yaml --no-store");
  EXPECT_NE(cpu.exit_code, 0);
  std::filesystem::create_directories(dir + "/models");
  std::filesystem::copy_file(source_path("tests/data/bench/h200/ridge-bench-resnet50.json"), dir + "/runs.json",
                             std::filesystem::copy_options::overwrite_existing);
  auto mixed = run_ridge("calibrate --device h200 --measured " + dir + "/peer.jsonl " + dir +
                         "/runs.json --dim seq=128 -o " + dir + "/x.yaml --no-store");
  expect_one_line_error(mixed, "mixes runs of PyTorch and of the GPU executor");
  auto dims = run_ridge("calibrate --device h200 --measured " + dir + "/runs.json --dim seq=128 -o " + dir +
                        "/x.yaml --no-store");
  expect_one_line_error(dims, "--dim applies to the per-family fit of a MODEL and to PyTorch timings");
}

// Kernel times of the GPU executor (the real H100 Nsight Compute export of ResNet-50 at batch 1, NVTX-mapped) join
// the H100's bench runs as device times: each layer the executor runs is one more sample, named in the summary; a
// malformed --ncu and one without GPU runs are refused; leaving the model out leaves its export out.
TEST(CalibrateCli, NcuKernelTimesJoinTheGpuFit) {
  auto dir = temp_dir() + "/ncu-cal";
  std::filesystem::create_directories(dir + "/models");
  std::filesystem::copy_file(source_path("bench/results/gpu-h100-2026-11-26/ridge-resnet50-fp32.json"),
                             dir + "/runs.json", std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(model_path("resnet50"), dir + "/models/resnet50.onnx",
                             std::filesystem::copy_options::overwrite_existing);
  auto ncu = model_path("resnet50") +
             ":1=" + source_path("tests/data/ncu/h100/details-ridge-cuda-executor-resnet50-b1-fp32-nvtx.csv");
  auto r = run_ridge("calibrate --device h100-sxm --measured " + dir + "/runs.json --ncu " + ncu + " -o " + dir +
                     "/h100.yaml --no-store -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto fit = nlohmann::json::parse(r.out);
  auto evidence = fit.dump();
  auto at = evidence.find("1 Nsight Compute export(s): ");
  ASSERT_NE(at, std::string::npos) << evidence;
  int layers = std::stoi(evidence.substr(at + std::string("1 Nsight Compute export(s): ").size()));
  EXPECT_GE(layers, 100);  // 121 NVTX ranges, less what the executor's plan folds
  EXPECT_LE(layers, 122);
  std::ifstream model_file(dir + "/h100.model.json");
  auto model = nlohmann::json::parse(model_file);
  int kernel_timed = 0;
  for (const auto& k : model["gpu"]["kinds"]) kernel_timed += k["kernel_timed"].get<int>();
  EXPECT_EQ(kernel_timed, layers);
  // ResNet-50 at batch 1 in a CUDA graph on the H100: 2.191 ms in the runs file.
  auto p = run_ridge("predict " + model_path("resnet50") + " --device " + dir +
                     "/h100.yaml --exec-mode cuda-graph --no-store -f json");
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_NEAR(nlohmann::json::parse(p.out)["totals"]["time_s"].get<double>() * 1e3 / 2.191, 1.0, 0.10);

  for (const auto& [args, why] : std::vector<std::pair<std::string, std::string>>{
           {"--measured " + dir + "/runs.json --ncu " + model_path("resnet50") + "=x.csv", "expected MODEL:BATCH="},
           {"--measured " + dir + "/runs.json --ncu " + model_path("resnet50") + ":0=x.csv", "is not a positive"},
           {"--sample --threads 1 --ncu " + ncu, "give its bench runs in --measured too"}}) {
    auto bad = run_ridge("calibrate --device h100-sxm " + args + " -o " + dir + "/x.yaml --no-store");
    expect_one_line_error(bad, why);
  }
  std::filesystem::copy_file(source_path("bench/results/gpu-h100-2026-11-26/ridge-vgg16-fp32.json"),
                             dir + "/vgg16.json", std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(model_path("vgg16"), dir + "/models/vgg16.onnx",
                             std::filesystem::copy_options::overwrite_existing);
  auto left_out =
      run_ridge("calibrate --device h100-sxm --measured " + dir + "/runs.json " + dir + "/vgg16.json --ncu " + ncu +
                " --exclude-model resnet50.onnx -o " + dir + "/x.yaml --no-store");
  EXPECT_NE(left_out.out.find("left out with its model"), std::string::npos) << left_out.out << left_out.err;
}

}  // namespace
}  // namespace ridge::test
