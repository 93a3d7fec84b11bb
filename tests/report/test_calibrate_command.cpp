// `ridge calibrate` printed and kept (report/calibrate_command), in process: the GPU executor's fit from the H200's
// ResNet-50 runs, printed as the calibration's JSON and kept with the parameters given. Also the shape-aware
// calibration end to end: a small layer sample timed here, CPU bench runs of two models (one left out), the H200's GPU
// runs, PyTorch's own timings and Nsight Compute kernel times; the files each fit keeps, `ridge predict` with the
// device file it writes (report/predict_request), a refit from the kept evidence, and what each refuses.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>
#include <variant>
#include <vector>

#include "report/bench_request.h"
#include "report/calibrate_command.h"
#include "report/calibration_report.h"
#include "report/predict_request.h"
#include "report/result_codec.h"
#include "store/store.h"
#include "support/device_fixtures.h"
#include "support/energy_fit_fixtures.h"
#include "support/error_text.h"
#include "support/files.h"
#include "support/ncu_import_fixtures.h"
#include "support/paths.h"
#include "support/stored_results.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;

TEST(CalibrateCommand, TheFitIsPrintedAndKept) {
  auto dir = fs::path(temp_dir()) / "calibrate-command";
  fs::remove_all(dir);
  fs::create_directories(dir / "models");
  // The runs name models/resnet50.onnx: it is found beside them.
  fs::copy_file(source_path("tests/data/bench/h200/ridge-bench-resnet50.json"), dir / "runs.json");
  fs::copy_file(model_path("resnet50"), dir / "models/resnet50.onnx");
  calib::CalibrateRequest request;
  request.device = "h200";
  request.measured = {(dir / "runs.json").string()};
  request.output = (dir / "h200.yaml").string();
  auto path = (dir / "ridge.db").string();
  std::ostringstream out;
  report::calibrate_and_keep(request, {.device = "h200"}, "json", {.path = path}, {}, out);
  auto printed = nlohmann::json::parse(out.str());
  ASSERT_TRUE(report::is_calibration(printed)) << out.str().substr(0, 200);
  auto fit = report::decode_calibration(printed, "out");
  ASSERT_TRUE(std::holds_alternative<calib::ShapeCalibration>(fit));
  EXPECT_EQ(std::get<calib::ShapeCalibration>(fit).output, request.output);
  auto records = store::Store(path, true).query({});
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].command, "calibrate");
  EXPECT_EQ(records[0].params.device, "h200");
  auto typed = report::decode_typed(records[0].result, "store");
  ASSERT_TRUE(typed.calibration);
  EXPECT_TRUE(std::holds_alternative<calib::ShapeCalibration>(*typed.calibration));
}

using json = nlohmann::json;

size_t lines_of(const std::string& path) {
  auto text = slurp(path);
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

// What `ridge calibrate ... --no-store` prints in `format`.
std::string calibrate_text(const calib::CalibrateRequest& request, const std::string& format) {
  std::ostringstream out;
  report::calibrate_and_keep(request, {.device = request.device}, format, {.disabled = true}, {}, out);
  return out.str();
}

// `ridge calibrate ... -f json --no-store`, parsed.
json calibrate_json(const calib::CalibrateRequest& request) {
  auto text = calibrate_text(request, "json");
  EXPECT_TRUE(json::accept(text)) << text.substr(0, 200);
  return json::accept(text) ? json::parse(text) : json::object();
}

// What `ridge predict MODEL --device DEVICE [--exec-mode, --threads as `choices`] [--batch BATCH] --no-store` prints
// in `format`.
std::string predict_text(const std::string& model, const std::string& device, const calib::PredictionChoices& choices,
                         const std::string& format, int64_t batch = 0) {
  analysis::ModelOptions options{.model = model, .batch = batch};
  std::ostringstream out;
  report::predict_and_keep({.model = analysis::make_request(options), .device = device, .choices = choices}, "",
                           options, format, {.disabled = true}, out);
  return out.str();
}

json predict_json(const std::string& model, const std::string& device, const calib::PredictionChoices& choices,
                  int64_t batch = 0) {
  return json::parse(predict_text(model, device, choices, "json", batch));
}

// The one line a refused prediction gives, "accepted" when it was not refused.
std::string predict_error(const std::string& model, const std::string& device,
                          const calib::PredictionChoices& choices) {
  return error_text([&] { predict_text(model, device, choices, "table"); });
}

void expect_one_line_naming(const std::string& error, const std::string& expected) {
  EXPECT_NE(error, "accepted") << expected;
  EXPECT_EQ(error.find('\n'), std::string::npos) << "more than one line: " << error;
  EXPECT_NE(error.find(expected), std::string::npos) << error;
}

// `ridge calibrate --device DEVICE --sample --sample-size 1 --threads 1 -o OUT -f json`: the fit, its evidence kept
// beside the device file it writes, predictions with that file, and a refit from the evidence.
TEST(CalibrateCommand, LayerSampleFitsKeepsItsEvidenceAndPredicts) {
  auto dir = temp_dir() + "/calibrate-sample";
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto device = round_cpu_device(dir);  // 100 GFLOP/s, 10 GB/s
  calib::CalibrateRequest request;
  request.device = device;
  request.sample = true;
  request.sample_size = 1;
  request.quick = true;  // the smaller sample: this checks the workflow, not the fit's accuracy
  request.threads = calib::parse_threads("1");
  request.output = dir + "/cal.yaml";
  auto doc = calibrate_json(request);
  int64_t fitted = doc["samples"].get<int64_t>();
  EXPECT_GT(fitted, 40);
  // Every kind the sample covers has a cross-validated model in both modes.
  std::set<std::string> models;
  for (const auto& m : doc["models"]) models.insert(m["model"].get<std::string>());
  for (auto key : {"all", "conv/eager", "conv/optimized", "grouped_conv/eager", "matmul/optimized", "elementwise/eager",
                   "norm/eager", "pool/eager", "softmax/eager", "data_movement/eager"})
    EXPECT_TRUE(models.count(key)) << key << " missing in " << doc.dump();
  // The evidence is kept beside the device file: one CSV row per fitted layer.
  EXPECT_EQ(lines_of(dir + "/cal.samples.csv"), static_cast<size_t>(fitted) + 1);
  EXPECT_GT(lines_of(dir + "/cal.overhead.csv"), 1u);
  EXPECT_TRUE(fs::exists(dir + "/cal.model.json"));
  auto yaml = slurp(dir + "/cal.yaml");
  EXPECT_NE(yaml.find("cal.model.json"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("peak_flops"), std::string::npos) << yaml;  // the device itself is kept

  // Predictions with it are estimates for the mode and threads asked, naming the calibration.
  auto pred = predict_json(model_path("alexnet"), dir + "/cal.yaml", {.exec_mode = "optimized", .threads = 1});
  EXPECT_EQ(pred["calibration"]["model"], dir + "/cal.model.json") << pred.dump();  // resolved beside the device file
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
  calib::CalibrateRequest refit;
  refit.device = device;
  refit.sample_files = {dir + "/cal.samples.csv"};
  refit.output = dir + "/refit.yaml";
  auto again = calibrate_json(refit);
  EXPECT_EQ(again["samples"].get<int64_t>(), fitted);
  EXPECT_EQ(again["models"][0], doc["models"][0]);  // "all": the same held-out errors
}

// Whole-model bench runs of two models as evidence, and leave-one-model-out: the calibration
// fitted without AlexNet's runs still predicts AlexNet (from MobileNetV2's layers).
TEST(CalibrateCommand, BenchRunsOfSeveralModelsAndOneLeftOut) {
  auto dir = temp_dir() + "/calibrate-measured";
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto device = round_cpu_device(dir);
  for (const auto& model : {model_path("alexnet"), model_path("mobilenet_v2")}) {
    // `ridge bench MODEL --mode both --iters 3 --warmup 0 --threads 1 -f json --csv DIR/runs`
    report::BenchCommand bench;
    bench.bench.model = analysis::make_request({.model = model});
    bench.bench.exec.mode = std::string(exec::kBothModes);
    bench.bench.exec.threads = 1;
    bench.bench.iters = 3;
    bench.bench.warmup_s = 0;
    bench.csv_dir = dir + "/runs";
    std::ostringstream out, err;
    ASSERT_EQ(report::bench_and_keep(bench, "json", {.disabled = true}, out, err), 0) << err.str();
  }
  calib::CalibrateRequest both;
  both.device = device;
  both.measured = {dir + "/runs"};
  both.output = dir + "/both.yaml";
  auto all = calibrate_json(both);
  EXPECT_NE(all["evidence"][0].get<std::string>().find("4 bench run(s) of 2 model(s)"), std::string::npos)
      << all.dump();
  auto lomo = both;
  lomo.exclude_model = model_path("alexnet");
  lomo.output = dir + "/lomo.yaml";
  auto without = calibrate_json(lomo);
  EXPECT_NE(without["evidence"][0].get<std::string>().find("2 bench run(s) of 1 model(s)"), std::string::npos)
      << without.dump();
  // AlexNet has 20 nodes in eager mode (one run) and fewer in optimized mode: that many layers fewer.
  int64_t left_out = all["samples"].get<int64_t>() - without["samples"].get<int64_t>();
  EXPECT_GT(left_out, 20);
  EXPECT_LT(left_out, 40);
  auto pred = predict_json(model_path("alexnet"), dir + "/lomo.yaml", {.exec_mode = "eager", .threads = 1});
  EXPECT_TRUE(pred["estimate"].get<bool>());
  EXPECT_GT(pred["totals"]["time_s"].get<double>(), 0);
}

// ridge's own GPU bench runs (the real H200 file: ResNet-50 at batch 1 and 32, eager and CUDA graph) calibrate the
// GPU executor: the fit is of the GPU (executor cuda in its model file, device and host times per layer kind),
// and predictions name the mode. In sample, each point comes back within 10% of its median.
TEST(CalibrateCommand, GpuBenchRunsCalibrateTheGpuExecutor) {
  auto dir = temp_dir() + "/gpu-cal";
  fs::create_directories(dir + "/models");
  fs::copy_file(source_path("tests/data/bench/h200/ridge-bench-resnet50.json"), dir + "/runs.json",
                fs::copy_options::overwrite_existing);
  // The runs name models/resnet50.onnx: found beside the results, wherever the tests run from.
  fs::copy_file(model_path("resnet50"), dir + "/models/resnet50.onnx", fs::copy_options::overwrite_existing);
  calib::CalibrateRequest request;
  request.device = "h200";
  request.measured = {dir + "/runs.json"};
  request.output = dir + "/h200.yaml";
  auto fit = calibrate_json(request);
  std::ifstream model_file(dir + "/h200.model.json");
  auto model = json::parse(model_file);
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
  auto runs = json::parse(runs_file)["runs"];
  auto resnet = dir + "/models/resnet50.onnx";
  for (const auto& [batch, mode, median_ms] : measured) {
    bool found = false;
    for (const auto& run : runs)
      if (run["batch"] == batch && run["mode"] == mode) {
        EXPECT_NEAR(run["latency_ms"]["median"].get<double>(), median_ms, 1e-6);
        found = true;
      }
    ASSERT_TRUE(found) << batch << " " << mode;
    auto doc = predict_json(resnet, dir + "/h200.yaml", {.exec_mode = mode}, batch);
    EXPECT_TRUE(doc["estimate"].get<bool>());
    EXPECT_EQ(doc["calibration"]["exec_mode"], mode);
    EXPECT_EQ(doc["calibration"]["threads"], 0);
    auto table = predict_text(resnet, dir + "/h200.yaml", {.exec_mode = mode}, "table", batch);
    EXPECT_NE(table.find("calibrated estimate for " + mode + " mode, the GPU executor"), std::string::npos) << table;
    double predicted_ms = doc["totals"]["time_s"].get<double>() * 1e3;
    EXPECT_NEAR(predicted_ms / median_ms, 1.0, 0.10) << batch << " " << mode << ": " << predicted_ms;
    // Eager nodes are placed on the host/device pipeline: they sum to the run, and at batch 1 the device waits for
    // cuDNN's convolution launches (overhead-bound) while at batch 32 the launches hide behind its work.
    double node_sum_s = 0;
    int conv_overhead = 0, convs = 0;
    for (const auto& node : doc["nodes"]) {
      node_sum_s += node["time_s"].get<double>();
      if (node["op"] == "Conv") ++convs, conv_overhead += node["bound"] == "overhead";
    }
    if (mode != "eager") continue;
    EXPECT_NEAR(node_sum_s * 1e3, predicted_ms, 1e-6 * predicted_ms);
    ASSERT_EQ(convs, 53);
    if (batch == 1) {
      EXPECT_GT(conv_overhead, 40) << conv_overhead;
    } else {
      EXPECT_LT(conv_overhead, 10) << conv_overhead;
    }
  }
  // The kept evidence refits the same GPU model (its runs named in both files, thread count 0).
  calib::CalibrateRequest refit;
  refit.device = "h200";
  refit.sample_files = {dir + "/h200.samples.csv"};
  refit.output = dir + "/refit.yaml";
  calibrate_json(refit);
  std::ifstream refit_file(dir + "/refit.model.json");
  auto refitted = json::parse(refit_file);
  EXPECT_EQ(refitted["executor"], "cuda");
  EXPECT_EQ(refitted["gpu"], model["gpu"]);
  auto mixed = refit;
  mixed.measured = {source_path("tests/data/bench/h200/ridge-bench-resnet50.json"), dir + "/runs.json"};
  mixed.output = dir + "/mixed.yaml";
  EXPECT_EQ(error_text([&] { calibrate_text(mixed, "table"); }), "accepted");  // GPU layers and GPU runs: one device
  // The GPU executor has no optimized mode and no thread count: refused, not dropped.
  expect_one_line_naming(predict_error(resnet, dir + "/h200.yaml", {.exec_mode = "optimized"}),
                         "--exec-mode optimized: the calibration of 'h200' covers the GPU executor");
  expect_one_line_naming(predict_error(resnet, dir + "/h200.yaml", {.threads = 2}),
                         "--threads: the calibration of 'h200' is of the GPU executor");
  // Reduced-precision runs are named, not fitted.
  calib::CalibrateRequest tf32;
  tf32.device = "h200";
  tf32.measured = {source_path("tests/data/bench/h200/ridge-bench-resnet50-tf32.json")};
  tf32.output = dir + "/tf32.yaml";
  auto tf32_error = error_text([&] { calibrate_text(tf32, "table"); });
  expect_one_line_naming(tf32_error, "no bench run could be fitted");
  EXPECT_NE(tf32_error.find("tf32 run(s) skipped (the calibration covers fp32)"), std::string::npos) << tf32_error;
}

// PyTorch's own timings on the H200 (bench/torch_gpu_peer.py's JSON Lines, the shared set) calibrate a prediction of
// PyTorch, labelled with the framework: the calibrated model's runs come back close in sample, and what does not
// belong with them is refused.
TEST(CalibrateCommand, PyTorchTimingsCalibrateAPredictionOfPyTorch) {
  auto dir = temp_dir() + "/torch-cal";
  fs::create_directories(dir);
  fs::copy_file(source_path("tests/data/bench/h200/pytorch-peer.jsonl"), dir + "/peer.jsonl",
                fs::copy_options::overwrite_existing);
  // The lines name networks ("resnet50"): found as models/NAME.onnx beside the file, wherever the tests run from.
  std::error_code ec;
  fs::create_directory_symlink(source_path("models"), dir + "/models", ec);
  // --dim seq=128: what the timings do not record.
  auto seq128 = analysis::make_request({.dims = {"seq=128"}});
  calib::CalibrateRequest request;
  request.device = "h200";
  request.measured = {dir + "/peer.jsonl"};
  request.model = seq128;
  request.output = dir + "/torch.yaml";
  auto fit = calibrate_json(request);
  EXPECT_NE(fit.dump().find("24 PyTorch 2.11.0+cu130 run(s) of 6 model(s)"), std::string::npos) << fit.dump();
  std::ifstream model_file(dir + "/torch.model.json");
  auto model = json::parse(model_file);
  EXPECT_EQ(model["executor"], "pytorch");
  EXPECT_EQ(model["framework"], "PyTorch 2.11.0+cu130");
  // ResNet-50 at batch 32 in a CUDA graph: 11.29 ms in the file.
  auto doc = predict_json(model_path("resnet50"), dir + "/torch.yaml", {.exec_mode = "cuda-graph"}, 32);
  EXPECT_EQ(doc["calibration"]["predicts"], "PyTorch 2.11.0+cu130");
  EXPECT_EQ(doc["calibration"]["validation"]["unit"], "runs");
  EXPECT_NEAR(doc["totals"]["time_s"].get<double>() * 1e3 / 11.293439865112305, 1.0, 0.10);
  auto table = predict_text(model_path("resnet50"), dir + "/torch.yaml", {.exec_mode = "cuda-graph"}, "table", 32);
  EXPECT_NE(table.find("calibrated estimate for cuda-graph mode, PyTorch 2.11.0+cu130"), std::string::npos) << table;
  expect_one_line_naming(predict_error(model_path("resnet50"), dir + "/torch.yaml", {.threads = 2}),
                         "is of PyTorch 2.11.0+cu130 on the GPU, which has no thread count");

  // A CPU device file, ridge's own GPU runs beside PyTorch's, and --dim without PyTorch timings: refused.
  auto cpu = request;
  cpu.device = "host";
  cpu.output = dir + "/x.yaml";
  EXPECT_NE(error_text([&] { calibrate_text(cpu, "table"); }), "accepted");
  fs::create_directories(dir + "/models");
  fs::copy_file(source_path("tests/data/bench/h200/ridge-bench-resnet50.json"), dir + "/runs.json",
                fs::copy_options::overwrite_existing);
  auto mixed = request;
  mixed.measured = {dir + "/peer.jsonl", dir + "/runs.json"};
  mixed.output = dir + "/x.yaml";
  expect_one_line_naming(error_text([&] { calibrate_text(mixed, "table"); }),
                         "mixes runs of PyTorch and of the GPU executor");
  auto dims = request;
  dims.measured = {dir + "/runs.json"};
  dims.output = dir + "/x.yaml";
  expect_one_line_naming(error_text([&] { calibrate_text(dims, "table"); }),
                         "--dim applies to the per-family fit of a MODEL and to PyTorch timings");
}

// Kernel times of the GPU executor (the real H100 Nsight Compute export of ResNet-50 at batch 1, NVTX-mapped) join
// the H100's bench runs as device times: each layer the executor runs is one more sample, named in the summary; a
// malformed --ncu and one without GPU runs are refused; leaving the model out leaves its export out.
TEST(CalibrateCommand, NcuKernelTimesJoinTheGpuFit) {
  auto dir = temp_dir() + "/ncu-cal";
  fs::create_directories(dir + "/models");
  fs::copy_file(source_path("bench/results/gpu-h100-2026-11-26/ridge-resnet50-fp32.json"), dir + "/runs.json",
                fs::copy_options::overwrite_existing);
  fs::copy_file(model_path("resnet50"), dir + "/models/resnet50.onnx", fs::copy_options::overwrite_existing);
  auto ncu = model_path("resnet50") +
             ":1=" + source_path("tests/data/ncu/h100/details-ridge-cuda-executor-resnet50-b1-fp32-nvtx.csv");
  calib::CalibrateRequest request;
  request.device = "h100-sxm";
  request.measured = {dir + "/runs.json"};
  request.ncu = {ncu};
  request.output = dir + "/h100.yaml";
  auto fit = calibrate_json(request);
  auto evidence = fit.dump();
  auto at = evidence.find("1 Nsight Compute export(s): ");
  ASSERT_NE(at, std::string::npos) << evidence;
  int layers = std::stoi(evidence.substr(at + std::string("1 Nsight Compute export(s): ").size()));
  EXPECT_GE(layers, 100);  // 121 NVTX ranges, less what the executor's plan folds
  EXPECT_LE(layers, 122);
  std::ifstream model_file(dir + "/h100.model.json");
  auto model = json::parse(model_file);
  int kernel_timed = 0;
  for (const auto& k : model["gpu"]["kinds"]) kernel_timed += k["kernel_timed"].get<int>();
  EXPECT_EQ(kernel_timed, layers);
  // ResNet-50 at batch 1 in a CUDA graph on the H100: 2.191 ms in the runs file.
  auto p = predict_json(model_path("resnet50"), dir + "/h100.yaml", {.exec_mode = "cuda-graph"});
  EXPECT_NEAR(p["totals"]["time_s"].get<double>() * 1e3 / 2.191, 1.0, 0.10);

  auto bad_ncu = [&](const std::string& given) {
    auto bad = request;
    bad.ncu = {given};
    bad.output = dir + "/x.yaml";
    return error_text([&] { calibrate_text(bad, "table"); });
  };
  expect_one_line_naming(bad_ncu(model_path("resnet50") + "=x.csv"), "expected MODEL:BATCH=");
  expect_one_line_naming(bad_ncu(model_path("resnet50") + ":0=x.csv"), "is not a positive");
  // --sample --threads 1 --ncu: kernel times without the runs they belong with.
  calib::CalibrateRequest sample;
  sample.device = "h100-sxm";
  sample.sample = true;
  sample.threads = calib::parse_threads("1");
  sample.ncu = {ncu};
  sample.output = dir + "/x.yaml";
  expect_one_line_naming(error_text([&] { calibrate_text(sample, "table"); }), "give its bench runs in --measured too");
  fs::copy_file(source_path("bench/results/gpu-h100-2026-11-26/ridge-vgg16-fp32.json"), dir + "/vgg16.json",
                fs::copy_options::overwrite_existing);
  fs::copy_file(model_path("vgg16"), dir + "/models/vgg16.onnx", fs::copy_options::overwrite_existing);
  auto left_out = request;
  left_out.measured = {dir + "/runs.json", dir + "/vgg16.json"};
  left_out.exclude_model = "resnet50.onnx";
  left_out.output = dir + "/x.yaml";
  auto printed = calibrate_text(left_out, "table");
  EXPECT_NE(printed.find("left out with its model"), std::string::npos) << printed;
}

// `ridge calibrate MODEL --measured EXPORT`: the export's kernels, mapped to layers, are the node
// times, per pass of the model the export holds (--repetitions, where the export does not show it).
TEST(CalibrateCommand, PerFamilyFitsTheMappedKernelTimesOfAnNcuExport) {
  using ncu_import_fixtures::details_csv;
  using ncu_import_fixtures::Launch;
  auto model = ncu_import_fixtures::two_conv_model();
  auto metrics = [](const std::string& time_us) {
    return std::vector<std::array<std::string, 3>>{{"gpu__time_duration.sum", "usecond", time_us}};
  };
  std::vector<Launch> launches{{"implicit_convolve_sgemm", "conv1", metrics("30")},
                               {"elementwise_kernel", "relu1", metrics("8")},
                               {"implicit_convolve_sgemm", "conv2", metrics("50")},
                               {"memcpy_kernel", "", metrics("5")}};
  auto dir = temp_dir();
  std::ofstream(dir + "/cal.csv") << details_csv(launches, true);
  // `ridge calibrate MODEL --device t4 --measured EXPORT [--repetitions N] -o OUT --no-store`
  auto family = [&](const std::string& measured, const std::string& output, int64_t repetitions = 0) {
    calib::CalibrateRequest r;
    r.fit = calib::Fit::kFamily;
    r.device = "t4";
    r.model = analysis::make_request({.model = model});
    r.measured = {measured};
    r.output = output;
    r.repetitions = repetitions;
    return r;
  };
  auto a = calibrate_json(family(dir + "/cal.csv", dir + "/t4a.yaml"));
  EXPECT_EQ(a["nodes"], 3);
  EXPECT_EQ(a["unmatched"], 0);
  bool said = false;
  for (const auto& note : a["notes"]) said |= note.get<std::string>().find("1 of 4 kernels") != std::string::npos;
  EXPECT_TRUE(said) << a["notes"].dump();
  // The same launches twice: the export holds two passes (every layer's range twice), and the fit is per pass.
  auto doubled = launches;
  doubled.insert(doubled.end(), launches.begin(), launches.end());
  std::ofstream(dir + "/cal2.csv") << details_csv(doubled, true);
  auto b = calibrate_json(family(dir + "/cal2.csv", dir + "/t4b.yaml"));
  EXPECT_NEAR(b["overhead_s"].get<double>(), a["overhead_s"].get<double>(), 1e-12);
  auto halved = calibrate_json(family(dir + "/cal2.csv", dir + "/t4c.yaml", 2));
  EXPECT_NEAR(halved["overhead_s"].get<double>(), a["overhead_s"].get<double>(), 1e-12);
  // A count the export contradicts is refused in one line.
  expect_one_line_naming(error_text([&] { calibrate_text(family(dir + "/cal.csv", dir + "/t4d.yaml", 2), "table"); }),
                         "--repetitions 2 contradicts the export, which holds 1 pass");
  expect_one_line_naming(
      error_text([&] { calibrate_text(family(source_path("tests/data/ncu/README.md"), "", 2), "table"); }),
      "--repetitions applies to an Nsight Compute export");
}

// ---- calibrate --energy: bench results with energy fitted into a device file that loads back and predicts ----

namespace ef = energy_fit_fixtures;

// `ridge calibrate --energy --device DEVICE --measured MEASURED... -o OUTPUT`.
calib::CalibrateRequest energy_request(const std::string& device, const std::vector<std::string>& measured,
                                       const std::string& output = "") {
  calib::CalibrateRequest r;
  r.fit = calib::Fit::kEnergy;
  r.device = device;
  r.measured = measured;
  r.output = output;
  return r;
}

TEST(CalibrateEnergy, BenchResultsWithEnergyFitIntoADeviceFileThatPredictsWithThem) {
  auto dir = temp_dir() + "/energy-fit-inprocess";
  fs::remove_all(dir);
  fs::create_directories(dir + "/bench");
  auto device = ef::device_file(dir);
  auto alexnet = model_path("alexnet"), mobilenet = model_path("mobilenet_v2");
  std::vector<ef::Point> csv_points = {ef::point(alexnet, 1), ef::point(alexnet, 4), ef::point(alexnet, 16),
                                       ef::point(alexnet, 2)};
  std::ofstream(dir + "/bench/overall.csv") << ef::overall_csv(csv_points, true);  // the last run has no energy
  std::ofstream(dir + "/mobilenet.json") << ef::bench_json({ef::point(mobilenet, 1), ef::point(mobilenet, 8)});
  auto out = dir + "/cpu-energy.yaml";
  auto printed =
      calibrate_text(energy_request(device + ":fast", {dir + "/bench", dir + "/mobilenet.json"}, out), "json");
  ASSERT_TRUE(json::accept(printed)) << printed.substr(0, 200);
  auto doc = json::parse(printed);
  EXPECT_NEAR(doc["e_flop_j"].get<double>(), ef::kFlop, ef::kFlop * 1e-6);
  EXPECT_NEAR(doc["e_byte_j"].get<double>(), ef::kByte, ef::kByte * 1e-6);
  EXPECT_NEAR(doc["p_static_w"].get<double>(), ef::kStatic, ef::kStatic * 1e-6);
  EXPECT_LT(doc["error"]["max_rel"].get<double>(), 1e-6);
  EXPECT_LE(doc["error"]["median_rel"].get<double>(), doc["error"]["max_rel"].get<double>());
  EXPECT_NEAR(doc["r2"].get<double>(), 1, 1e-9);
  EXPECT_EQ(doc["mode"], "fast");
  EXPECT_EQ(doc["traffic"], "unfused");
  ASSERT_EQ(doc["runs"].size(), 5u);
  for (const auto& run : doc["runs"]) {
    EXPECT_NEAR(run["fitted_j"].get<double>(), run["measured_j"].get<double>(), 1e-6 * run["measured_j"].get<double>());
    EXPECT_TRUE(run.contains("flops") && run.contains("bytes") && run.contains("time_s") && run.contains("rel_error"));
  }
  // W and Q of the first run are the cost model's; T its mean latency.
  auto [w, q] = ef::work_of(alexnet, 1);
  EXPECT_DOUBLE_EQ(doc["runs"][0]["flops"].get<double>(), w);
  EXPECT_DOUBLE_EQ(doc["runs"][0]["bytes"].get<double>(), q);
  EXPECT_DOUBLE_EQ(doc["runs"][0]["time_s"].get<double>(), csv_points[0].mean_ms / 1e3);
  // The run without energy is named, not fitted as zero.
  std::string notes = doc["notes"].dump();
  EXPECT_NE(notes.find("skipped"), std::string::npos) << notes;
  EXPECT_NE(notes.find("batch 2"), std::string::npos) << notes;
  EXPECT_NE(notes.find("no energy_per_inference_j"), std::string::npos) << notes;

  // The device file written loads back with the coefficients, labelled measured, for mode fast.
  auto loaded = hw::load_device_file(out);
  ASSERT_EQ(loaded.energy.size(), 1u);
  const auto& e = loaded.energy[0];
  EXPECT_EQ(e.mode, "fast");
  EXPECT_EQ(e.label, hw::kMeasured);
  EXPECT_DOUBLE_EQ(e.e_flop_j.at("*"), doc["e_flop_j"].get<double>());
  EXPECT_DOUBLE_EQ(e.e_byte_j, doc["e_byte_j"].get<double>());
  EXPECT_DOUBLE_EQ(e.p_static_w, doc["p_static_w"].get<double>());
  EXPECT_NE(e.source.find("median |error|"), std::string::npos) << e.source;
  EXPECT_NE(e.source.find("mobilenet.json"), std::string::npos) << e.source;

  // A prediction on mode fast uses them (measured); mode slow gets them scaled (estimate).
  auto fast = hw::roofline_for(loaded, hw::resolve_mode(loaded, "fast"));
  ASSERT_TRUE(fast.energy.has_value());
  EXPECT_EQ(fast.energy->label, hw::kMeasured);
  auto a = analyze_file(alexnet, {.batch = 4});
  auto prediction = roofline::predict(a.cost, fast, {});
  EXPECT_TRUE(prediction.energy_predicted);
  EXPECT_EQ(prediction.energy_label, hw::kMeasured);
  auto [w4, q4] = ef::work_of(alexnet, 4);
  EXPECT_NEAR(prediction.energy_j, e.e_flop_j.at("*") * w4 + e.e_byte_j * q4 + e.p_static_w * prediction.time_s,
              1e-9 * prediction.energy_j);
  auto slow = hw::roofline_for(loaded, hw::resolve_mode(loaded, "slow"));
  ASSERT_TRUE(slow.energy.has_value());
  EXPECT_EQ(slow.energy->label, hw::kEstimate);
  EXPECT_LT(slow.energy->e_flop("fp32"), e.e_flop_j.at("*"));
  EXPECT_DOUBLE_EQ(slow.energy->p_static_w, e.p_static_w);

  // Fitting again over the written file replaces the entry of mode fast rather than adding one.
  auto store = dir + "/energy.db";
  fs::remove(store);
  std::ostringstream again;
  report::calibrate_and_keep(
      energy_request(out + ":fast", {dir + "/bench", dir + "/mobilenet.json"}, dir + "/again.yaml"),
      {.device = out + ":fast"}, "table", {.path = store}, {}, again);
  EXPECT_NE(again.str().find("e_flop"), std::string::npos) << again.str();
  EXPECT_EQ(hw::load_device_file(dir + "/again.yaml").energy.size(), 1u);

  // The store keeps the fit typed: its headline is the fit's, and the same fit printed as JSON elsewhere comes in
  // through `results import` with the same headline.
  auto list = stored_results(store);
  ASSERT_EQ(list["results"].size(), 1u);
  auto headline = fmt::format("5 runs, median |error| {:.1f}%, R^2 {:.4f}",
                              doc["error"]["median_rel"].get<double>() * 100, doc["r2"].get<double>());
  EXPECT_EQ(list["results"][0]["result"], headline) << list.dump();
  std::ofstream(dir + "/fit.json") << printed;
  auto other = dir + "/energy-other.db";
  fs::remove(other);
  EXPECT_NE(import_into(dir + "/fit.json", other).find("1 result, 1 added"), std::string::npos);
  auto other_list = stored_results(other);
  ASSERT_EQ(other_list["results"].size(), 1u);
  EXPECT_EQ(other_list["results"][0]["command"], "calibrate");
  EXPECT_EQ(other_list["results"][0]["result"], headline);
}

TEST(CalibrateEnergy, RefusesRunsWithoutEnergyNodeTimesFallingEnergiesAndAModel) {
  auto dir = temp_dir() + "/energy-fit-refuse-inprocess";
  fs::remove_all(dir);
  fs::create_directories(dir + "/bench");
  auto device = ef::device_file(dir);
  auto alexnet = model_path("alexnet");
  auto refusal = [&](const calib::CalibrateRequest& request) {
    return error_text([&] { calibrate_text(request, "table"); });
  };
  // Every run without energy: nothing to fit, said in one line.
  std::ofstream(dir + "/bench/overall.csv") << ef::overall_csv({ef::point(alexnet, 2)}, true);
  expect_one_line_naming(refusal(energy_request(device, {dir + "/bench"})), "no run with an energy figure");

  // A node-times file is not an energy source.
  std::ofstream(dir + "/nodes.csv") << "node,time_s\nconv,0.001\n";
  expect_one_line_naming(refusal(energy_request(device, {dir + "/nodes.csv"})), "neither an energy CSV");

  // Energies that fall with the FLOPs: e_flop would be held at 0, which no device file may hold.
  std::string csv = "flops,bytes,time_s,energy_j\n";
  for (auto r : ef::synthetic(0, ef::kByte, ef::kStatic, 8)) {
    r.energy_j -= 1e-12 * r.flops;
    csv += fmt::format("{:.17g},{:.17g},{:.17g},{:.17g}\n", r.flops, r.bytes, r.time_s, r.energy_j);
  }
  std::ofstream(dir + "/falling.csv") << csv;
  expect_one_line_naming(refusal(energy_request(device, {dir + "/falling.csv"})), "the runs want e_flop_j negative");

  // A model with --energy is refused.
  auto with_model = energy_request(device, {dir + "/bench"});
  with_model.model = analysis::make_request({.model = alexnet});
  expect_one_line_naming(refusal(with_model), "give no MODEL");
}

// An energy CSV from a meter: the table names the coefficients with their errors, the fit's quality, the runs and the
// file written.
TEST(CalibrateEnergy, AnEnergyCsvFitsAndTheTablePrintsTheCoefficients) {
  auto dir = temp_dir() + "/energy-fit-csv-inprocess";
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto device = ef::device_file(dir);
  std::string csv = "label,flops,bytes,time_s,energy_j\n";
  for (const auto& r : ef::synthetic(ef::kFlop, ef::kByte, ef::kStatic, 6, ef::wobble))
    csv += fmt::format("{},{:.17g},{:.17g},{:.17g},{:.17g}\n", r.label, r.flops, r.bytes, r.time_s, r.energy_j);
  std::ofstream(dir + "/meter.csv") << csv;
  auto table = calibrate_text(energy_request(device + ":slow", {dir + "/meter.csv"}, dir + "/out.yaml"), "table");
  for (const char* text : {"e_flop", "e_byte", "p_static", "+-", "median |error|", "R^2", "run 5", "out.yaml"})
    EXPECT_NE(table.find(text), std::string::npos) << text << "\n" << table;
  auto loaded = hw::load_device_file(dir + "/out.yaml");
  ASSERT_EQ(loaded.energy.size(), 1u);
  EXPECT_EQ(loaded.energy[0].mode, "slow");
}

// Time and energy calibrations live in one device file: fitting energy on a device file that carries a shape-aware
// calibration keeps it, and where the copy is written elsewhere its model file is named relative to the copy.
TEST(CalibrateEnergy, AnEnergyFitKeepsTheTimeCalibrationWhereverItIsWritten) {
  auto dir = temp_dir() + "/energy-fit-both-inprocess";
  fs::remove_all(dir);
  fs::create_directories(dir + "/elsewhere");
  auto device = ef::device_file(dir);
  std::ofstream(device, std::ios::app) << "calibration: {fitted_from: runs, nodes: 12, overhead_s: 0, model: "
                                          "cpu.model.json}\n";
  std::ofstream(dir + "/cpu.model.json") << "{}\n";
  std::string csv = "label,flops,bytes,time_s,energy_j\n";
  for (const auto& r : ef::synthetic(ef::kFlop, ef::kByte, ef::kStatic, 6, ef::wobble))
    csv += fmt::format("{},{:.17g},{:.17g},{:.17g},{:.17g}\n", r.label, r.flops, r.bytes, r.time_s, r.energy_j);
  std::ofstream(dir + "/meter.csv") << csv;
  auto out = dir + "/elsewhere/both.yaml";
  calibrate_text(energy_request(device + ":slow", {dir + "/meter.csv"}, out), "table");
  auto text = slurp(out);
  EXPECT_NE(text.find("model: ../cpu.model.json"), std::string::npos) << text;
  auto loaded = hw::load_device_file(out);
  ASSERT_EQ(loaded.energy.size(), 1u);
  ASSERT_TRUE(loaded.calibration);
  EXPECT_EQ(loaded.calibration->nodes, 12);
  EXPECT_TRUE(fs::equivalent(loaded.calibration->model_file, dir + "/cpu.model.json"))
      << loaded.calibration->model_file;
}

}  // namespace
}  // namespace ridge::test
