#include <fmt/format.h>
#include <fmt/ostream.h>

#include <iostream>

#include "cli/command.h"
#include "cli/device_options.h"
#include "cli/output_options.h"
#include "cli/store_options.h"
#include "exec/engine.h"
#include "exec/prepare.h"
#include "hw/device_db.h"
#include "onnx/model_reader.h"
#include "report/compare_codec.h"
#include "report/compare_report.h"
#include "report/result_codec.h"
#include "util/error.h"

namespace ridge::cli {
namespace {

struct CompareOptions {
  DeviceOptions device;  // with the model options, --exec-mode and --threads
  std::string measured;
  bool run = false;
  double max_time = 10;
  int top = 20;
  std::string format = "table";
  StoreOptions store;
};

hw::Device load_device(const std::string& device_id) {
  auto device = hw::find_device(device_id);
  if (device.file == "(detected)")
    throw Error(
        "device 'host' has no DRAM bandwidth or measured peaks yet: measure this machine with `ridge ert --profile "
        "host.yaml`, then compare with --device host.yaml");
  return device;
}

bool has_shape_aware_calibration(const hw::Device& device) {
  return device.calibration && !device.calibration->model_file.empty();
}

bool first_dim_is_symbolic(const graph::Model& model) {
  if (model.graph.inputs.empty()) return false;
  const auto& v = model.graph.value(model.graph.inputs.front());
  return v.has_shape && !v.shape.empty() && !v.shape[0].is_known();
}

// The run and the prediction must be of the same shapes: a bench sweep over input sizes records
// the size ("256"), otherwise the first input's shape ("1x3x224x224").
void check_same_shapes(const exec::BenchResult& run, const std::string& source, const analysis::Result& analysis) {
  int64_t batch = ridge::analysis::bound_batch(analysis.model);
  if (batch != run.batch)
    throw Error(fmt::format("the run in '{}' measured batch {}, the model is bound to batch {}: give --batch {}",
                            source, run.batch, batch, run.batch));
  if (run.input_size.empty() || analysis.inputs.empty()) return;
  const auto& shape = analysis.inputs.front().second;
  bool same =
      run.input_size.find('x') != std::string::npos
          ? shape == run.input_size
          : shape.find("x" + run.input_size + "x") != std::string::npos || shape.ends_with("x" + run.input_size);
  if (!same)
    throw Error(
        fmt::format("the run in '{}' measured input size {}, the model is bound to {}={}: bind the same "
                    "shape with --input or --dim",
                    source, run.input_size, analysis.inputs.front().first, shape));
}

// The executor conditions a shape-aware calibration predicts are the run's; without one they
// change nothing in the prediction and are left out (predict_on_device would refuse them).
DeviceOptions prediction_options(const CompareOptions& o, const hw::Device& device, const std::string& mode,
                                 int threads) {
  DeviceOptions d = o.device;
  d.exec_mode = has_shape_aware_calibration(device) ? mode : "";
  d.threads = has_shape_aware_calibration(device) ? threads : 0;
  return d;
}

report::Comparison compare_with_file(const CompareOptions& o, const hw::Device& device, const hw::Roofline& roofline) {
  auto request = make_request(o.device.model);
  report::RunSelection want;
  want.batch = request.bindings.batch;
  want.mode = o.device.exec_mode;
  auto loaded = report::select_bench_run(o.measured, want);
  const auto& run = loaded.run;
  int threads = run.environment.threads;
  // What the file says decides the prediction's conditions; a given option may not contradict it.
  if (o.device.threads > 0 && threads > 0 && o.device.threads != threads)
    throw Error(
        fmt::format("--threads {} contradicts '{}', measured with {} threads", o.device.threads, o.measured, threads));
  auto options = prediction_options(o, device, run.mode, o.device.threads > 0 ? o.device.threads : threads);
  if (!o.device.precision.empty() && o.device.precision != run.precision)
    throw Error(
        fmt::format("--precision {} contradicts '{}', measured in {}", o.device.precision, o.measured, run.precision));
  options.precision = run.precision;
  auto pristine = onnx::load_model(request.model_path);
  if (!request.bindings.batch && first_dim_is_symbolic(pristine)) request.bindings.batch = run.batch;
  auto analysis = analysis::rerun(std::move(pristine), request);
  check_same_shapes(run, loaded.path, analysis);
  auto prediction = predict_on_device(analysis, device, roofline, options, request);
  auto comparison = report::compare(o.device.model.model, prediction, run, loaded.path);
  comparison.inputs = analysis.inputs;
  comparison.notes.insert(comparison.notes.begin(), analysis.notes.begin(), analysis.notes.end());
  return comparison;
}

report::Comparison compare_with_run(const CompareOptions& o, const hw::Device& device, const hw::Roofline& roofline) {
  if (!o.device.precision.empty() && o.device.precision != "fp32" && o.device.precision != "bf16")
    throw Error(fmt::format("--run measures fp32 or bf16 (the executor's precisions), not {}", o.device.precision));
  auto request = make_request(o.device.model);
  std::string mode = o.device.exec_mode.empty() ? "eager" : o.device.exec_mode;
  // Everything that can fail is checked before the executor is loaded and the model measured:
  // the model runs, fits in memory, and the device predicts it.
  auto prepared = exec::prepare(request, "");
  exec::check_runnable(prepared.analysis.model);
  exec::check_memory(prepared.analysis.cost, false);
  predict_on_device(prepared.analysis, device, roofline, prediction_options(o, device, mode, o.device.threads),
                    request);

  exec::BenchOptions bench;
  bench.exec.threads = o.device.threads;
  bench.exec.mode = exec::parse_mode(mode);
  bench.exec.precision = exec::parse_precision(o.device.precision.empty() ? "fp32" : o.device.precision);
  bench.exec.profile_nodes = true;
  bench.stopping.max_seconds = o.max_time;
  auto& engine = exec::load_engine();
  fmt::print(std::cerr, "compare: measuring {} ({} mode{}) ...\n", o.device.model.model, mode,
             o.device.threads > 0 ? fmt::format(", {} threads", o.device.threads) : "");
  auto result = engine.bench(prepared.analysis.model, prepared.inputs, bench);
  result.model = o.device.model.model;
  result.batch = ridge::analysis::bound_batch(prepared.analysis.model);
  result.input_size = prepared.analysis.inputs.empty() ? "" : prepared.analysis.inputs.front().second;
  fmt::print(std::cerr, "compare: measured {:.3f} ms (median of {} runs, {} threads)\n", result.latency_ms.median,
             result.latency_ms.samples, result.environment.threads);
  auto prediction = predict_on_device(prepared.analysis, device, roofline,
                                      prediction_options(o, device, mode, result.environment.threads), request);
  auto comparison = report::compare(o.device.model.model, prediction, result, "measured now");
  comparison.inputs = prepared.analysis.inputs;
  comparison.notes.insert(comparison.notes.begin(), prepared.analysis.notes.begin(), prepared.analysis.notes.end());
  for (const auto& note : result.notes) comparison.notes.push_back(note);
  return comparison;
}

int run_compare(const CompareOptions& o) {
  if (o.run == !o.measured.empty())
    throw Error(o.run ? "give --measured FILE or --run, not both"
                      : "give the measurements: --measured bench.json (from `ridge bench -f json`) or --run");
  auto [device_id, mode_text] = hw::split_device_and_mode(o.device.device);
  auto device = load_device(device_id);
  auto roofline = hw::roofline_for(device, hw::resolve_mode(device, mode_text));
  auto comparison = o.run ? compare_with_run(o, device, roofline) : compare_with_file(o, device, roofline);
  auto doc = report::compare_document(comparison, o.top);
  // JSON: the codec's (the document's JSON plus the values), which the store and `results import` read back.
  emit(doc, o.format, [&] { return report::encode_comparison(comparison); });
  auto params = params_of(o.device.model);
  params.device = o.device.device;
  params.mode = o.device.exec_mode;
  if (o.device.threads > 0) params.threads = o.device.threads;
  report::TypedResult value{.kind = "compare"};
  value.comparison = std::move(comparison);
  keep_result(o.store, doc, params, value);
  return 0;
}

}  // namespace

Command add_compare_command(CLI::App& parent) {
  auto o = std::make_shared<CompareOptions>();
  auto* app = parent.add_subcommand(
      "compare", "predicted against measured: each node's error and share of the difference, and the whole model's");
  add_model_options(*app, o->device.model, false, true);
  add_device_options(*app, o->device);
  add_calibrated_options(*app, o->device);
  // Here they also choose the run (--measured) or how it runs (--run), calibrated device or not.
  app->get_option("--exec-mode")
      ->description(
          "executor mode: the run of --measured's file to compare, or how --run runs (default eager); a device with a "
          "shape-aware calibration predicts that mode");
  app->get_option("--threads")
      ->description(
          "executor threads: must match --measured's file; --run's thread count (default: ATen's); a device with a "
          "shape-aware calibration predicts them");
  app->add_option("--measured", o->measured,
                  "the measurements: a `ridge bench -f json` file or a `ridge bench --csv` directory; with several "
                  "runs, the one --batch and --exec-mode select. Its mode, threads and precision are the prediction's");
  app->add_flag("--run", o->run, "measure now on the executor (--exec-mode, --threads), then compare");
  app->add_option("--max-time", o->max_time, "with --run: time budget of the timed runs, seconds (default 10)")
      ->check(CLI::Range(0.0, 1e6));
  app->add_option("--top", o->top, "nodes people see, largest difference first (default 20; 0: all)")
      ->check(integer_in(0, 1000000));
  add_format_option(*app, o->format);
  add_store_options(*app, o->store);
  app->footer(
      "Per node: predicted and measured time, error = predicted / measured - 1, share of the summed\n"
      "|predicted - measured|, roofline bound, and the fraction of its ceiling achieved (roofline time /\n"
      "measured time). Whole model: the predicted latency against the run's median latency. Nodes only one\n"
      "side has are listed, never dropped. Exactly one of --measured and --run.\n"
      "Examples:\n"
      "  ridge bench models/alexnet.onnx --threads 2 -f json > bench.json\n"
      "  ridge compare models/alexnet.onnx --device host.yaml --measured bench.json\n"
      "  ridge compare models/resnet50.onnx --device host.yaml --run --exec-mode optimized --threads 2 -f csv\n"
      "  ridge compare models/mobilenet_v2.onnx --device host-cal.yaml --measured sweep.json --batch 4 "
      "--exec-mode optimized\n"
      "(host.yaml: `ridge ert --profile host.yaml`; a device calibrated with `ridge calibrate --sample` predicts\n"
      "the run's executor mode and threads.)");
  return {app, [o] { return run_compare(*o); }};
}

}  // namespace ridge::cli
