#include "report/compare_request.h"

#include <fmt/format.h>

#include "exec/engine.h"
#include "exec/prepare.h"
#include "hw/device_db.h"
#include "onnx/model_reader.h"
#include "report/compare_codec.h"
#include "report/result_codec.h"
#include "util/error.h"

namespace ridge::report {
namespace {

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
calib::PredictionChoices choices_for(const CompareRequest& o, const hw::Device& device, const std::string& mode,
                                     int threads) {
  auto c = o.choices;
  c.exec_mode = has_shape_aware_calibration(device) ? mode : "";
  c.threads = has_shape_aware_calibration(device) ? threads : 0;
  return c;
}

roofline::Prediction predict(const analysis::Result& analysis, const hw::Device& device, const hw::Roofline& roofline,
                             const calib::PredictionChoices& choices, const analysis::Request& request) {
  return calib::predict_on_device(analysis, device, roofline, calib::prediction_options(choices, request),
                                  request.model_path);
}

Comparison compare_with_file(const CompareRequest& o, const hw::Device& device, const hw::Roofline& roofline) {
  auto request = o.model;
  RunSelection want;
  want.batch = request.bindings.batch;
  want.mode = o.choices.exec_mode;
  want.training = request.options.training;
  if (want.training) want.optimizer = std::string(cost::name(request.options.optimizer));
  auto loaded = select_bench_run(o.measured, want);
  const auto& run = loaded.run;
  int threads = run.environment.threads;
  // What the file says decides the prediction's conditions; a given option may not contradict it.
  if (o.choices.threads > 0 && threads > 0 && o.choices.threads != threads)
    throw Error(
        fmt::format("--threads {} contradicts '{}', measured with {} threads", o.choices.threads, o.measured, threads));
  auto choices = choices_for(o, device, run.mode, o.choices.threads > 0 ? o.choices.threads : threads);
  if (!o.choices.precision.empty() && o.choices.precision != run.precision)
    throw Error(
        fmt::format("--precision {} contradicts '{}', measured in {}", o.choices.precision, o.measured, run.precision));
  choices.precision = run.precision;
  auto pristine = onnx::load_model(request.model_path);
  if (!request.bindings.batch && first_dim_is_symbolic(pristine)) request.bindings.batch = run.batch;
  auto analysis = analysis::rerun(std::move(pristine), request);
  check_same_shapes(run, loaded.path, analysis);
  auto prediction = predict(analysis, device, roofline, choices, request);
  auto comparison = compare(o.model_name, prediction, run, loaded.path);
  comparison.inputs = analysis.inputs;
  comparison.notes.insert(comparison.notes.begin(), analysis.notes.begin(), analysis.notes.end());
  return comparison;
}

Comparison compare_with_run(const CompareRequest& o, const hw::Device& device, const hw::Roofline& roofline) {
  if (!o.choices.precision.empty() && o.choices.precision != "fp32" && o.choices.precision != "bf16")
    throw Error(fmt::format("--run measures fp32 or bf16 (the executor's precisions), not {}", o.choices.precision));
  auto request = o.model;
  std::string mode = o.choices.exec_mode.empty() ? "eager" : o.choices.exec_mode;
  // Everything that can fail is checked before the executor is loaded and the model measured:
  // the model runs, fits in memory, and the device predicts it.
  auto prepared = exec::prepare(request, "");
  exec::check_runnable(prepared.analysis.model);
  exec::check_memory(prepared.analysis.cost, request.options.training);
  predict(prepared.analysis, device, roofline, choices_for(o, device, mode, o.choices.threads), request);

  exec::BenchOptions bench;
  bench.exec.threads = o.choices.threads;
  bench.exec.mode = exec::parse_mode(mode);
  bench.exec.precision = exec::parse_precision(o.choices.precision.empty() ? "fp32" : o.choices.precision);
  bench.exec.profile_nodes = true;  // a training step's profile: each node's forward and backward
  bench.training.enabled = request.options.training;
  bench.training.optimizer = request.options.optimizer;
  if (bench.training.enabled) {
    exec::check_training_options(bench.exec.mode);
    bench.fixed_iterations = 10;  // as `ridge bench --training`: a step is long, a fixed count is the budget
  }
  bench.stopping.max_seconds = o.max_time_s;
  auto& engine = exec::load_engine();
  if (o.progress)
    o.progress(fmt::format("compare: measuring {} ({} mode{}) ...", o.model_name, mode,
                           o.choices.threads > 0 ? fmt::format(", {} threads", o.choices.threads) : ""));
  auto result = engine.bench(prepared.analysis.model, prepared.inputs, bench);
  result.model = o.model_name;
  result.batch = ridge::analysis::bound_batch(prepared.analysis.model);
  result.input_size = prepared.analysis.inputs.empty() ? "" : prepared.analysis.inputs.front().second;
  if (o.progress)
    o.progress(fmt::format("compare: measured {:.3f} ms (median of {} runs, {} threads)", result.latency_ms.median,
                           result.latency_ms.samples, result.environment.threads));
  auto prediction =
      predict(prepared.analysis, device, roofline, choices_for(o, device, mode, result.environment.threads), request);
  auto comparison = compare(o.model_name, prediction, result, "measured now");
  comparison.inputs = prepared.analysis.inputs;
  comparison.notes.insert(comparison.notes.begin(), prepared.analysis.notes.begin(), prepared.analysis.notes.end());
  for (const auto& note : result.notes) comparison.notes.push_back(note);
  return comparison;
}

}  // namespace

Comparison compare_model(const CompareRequest& o) {
  if (o.run == !o.measured.empty())
    throw Error(o.run ? "give --measured FILE or --run, not both"
                      : "give the measurements: --measured bench.json (from `ridge bench -f json`) or --run");
  auto [device_id, mode_text] = hw::split_device_and_mode(o.device);
  auto device = load_device(device_id);
  auto roofline = hw::roofline_for(device, hw::resolve_mode(device, mode_text));
  return o.run ? compare_with_run(o, device, roofline) : compare_with_file(o, device, roofline);
}

void compare_and_keep(const CompareRequest& request, int top, const std::string& format, const StoreOptions& store,
                      const store::Params& params, std::ostream& out) {
  TypedResult value{.kind = "compare", .comparison = compare_model(request)};
  auto doc = compare_document(*value.comparison, top);
  emit(
      doc, format, [&] { return encode_comparison(*value.comparison); }, out);
  keep_result(store, doc, params, value);
}

}  // namespace ridge::report
