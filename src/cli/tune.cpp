#include "roofline/tune.h"

#include <fmt/format.h>

#include <map>

#include "cli/command.h"
#include "cli/device_options.h"
#include "cli/output_options.h"
#include "cli/store_options.h"
#include "hw/device_db.h"
#include "hw/mode_control.h"
#include "onnx/model_reader.h"
#include "report/prediction_report.h"
#include "report/result_codec.h"
#include "report/tune_report.h"
#include "util/error.h"

namespace ridge::cli {
namespace {

struct TuneCliOptions {
  DeviceOptions device;
  StoreOptions store;
  std::string sweep, objective = "energy", format = "table";
  double latency_max_ms = 0, power_max_w = 0;
  bool all_domains = false, named_only = false, apply = false;
};

int run_tune(const TuneCliOptions& o) {
  auto request = make_request(o.device.model);
  auto [id, mode_text] = hw::split_device_and_mode(o.device.device);
  if (!mode_text.empty())
    throw Error(fmt::format("tune searches every power mode: give --device {} without ':{}'", id, mode_text));
  auto device = hw::find_device(id);
  if (device.file == "(detected)")
    throw Error(
        "device 'host' has no DRAM bandwidth or measured peaks yet: measure it with `ridge ert --profile "
        "host.yaml`, then tune with --device host.yaml");
  if (o.apply) {
    if (device.kind != "soc")
      throw Error(fmt::format("--apply refused: '{}' is not a Jetson module; nothing was changed", device.id));
    if (auto why = hw::not_a_jetson_reason(); !why.empty())
      throw Error("--apply refused: " + why + "; nothing was changed");
  }
  std::vector<int64_t> batches{request.bindings.batch.value_or(1)};
  if (!o.sweep.empty()) {
    auto [key, values] = parse_sweep(o.sweep);
    if (key != "batch") throw Error("tune sweeps batch sizes only: --sweep batch=v1,v2,...");
    check_sweep_conflicts(request, key);
    batches = values;
  }
  roofline::TuneOptions options;
  options.objective = roofline::parse_objective(o.objective);
  if (o.latency_max_ms > 0) options.latency_max_s = o.latency_max_ms / 1e3;
  if (o.power_max_w > 0) options.power_max_w = o.power_max_w;
  options.all_domains = o.all_domains;
  options.named_only = o.named_only;

  // One analysis per batch size, reused by every mode: only the ceilings change between modes.
  auto pristine = onnx::load_model(request.model_path);
  std::map<int64_t, std::pair<analysis::Request, analysis::Result>> analyses;
  std::string calibration;
  auto predict = [&](const hw::Roofline& roofline, int64_t batch) {
    auto it = analyses.find(batch);
    if (it == analyses.end()) {
      auto point = request;
      point.bindings.batch = batch;
      auto analysis = analysis::rerun(pristine, point);
      it = analyses.emplace(batch, std::pair{point, std::move(analysis)}).first;
    }
    auto p = predict_on_device(it->second.second, device, roofline, o.device, it->second.first);
    if (calibration.empty()) calibration = report::calibration_text(p);
    return p;
  };
  auto result = roofline::tune(device, batches, predict, options);

  report::TuneContext context;
  context.model = request.model_path;
  context.precision = predict_options(o.device, request).precision;
  context.batches = batches;
  context.options = options;
  context.calibration = calibration;
  auto set_best = roofline::mode_commands(device, result, result.modes.at(*result.best));
  context.commands = set_best.commands;
  context.command_notes = set_best.notes;
  if (o.apply) context.applied = hw::apply_mode_steps(set_best.steps);
  report::TypedResult value{.kind = "tune"};
  value.tuning = report::Tuning{device.id, device.name, std::move(result), std::move(context)};
  auto doc = report::tune_document(*value.tuning);
  // JSON: the codec's (the document's JSON plus the tuning), which the store and `results import` read back.
  emit(doc, o.format, [&] { return report::encode_tuning(*value.tuning); });
  auto params = params_of(o.device.model, batches.size() == 1 ? batches.front() : 0);
  params.device = device.id;
  params.precision = value.tuning->context.precision;
  keep_result(o.store, doc, params, value);
  return 0;
}

}  // namespace

Command add_tune_command(CLI::App& parent) {
  auto o = std::make_shared<TuneCliOptions>();
  auto* app = parent.add_subcommand(
      "tune", "best power mode for a model on a device: predicted time and energy of every mode, Pareto front");
  app->footer(
      "Modes: the device file's named modes, plus the custom modes its clock tables (steps_mhz) allow, over the\n"
      "clock domains that change this prediction (--all-domains: every domain). Energy per inference is\n"
      "E = e_flop x FLOPs + e_byte x DRAM bytes + p_static x time (docs/tune.md).\n"
      "Examples:\n"
      "  ridge tune models/resnet50.onnx --device jetson-agx-orin-64gb\n"
      "  ridge tune models/resnet50.onnx --device jetson-agx-orin-64gb --objective edp --latency-max 20\n"
      "  ridge tune models/mobilenet_v2.onnx --device jetson-agx-orin-64gb --sweep batch=1,4,16 -f json");
  add_model_options(*app, o->device.model, true);
  add_device_options(*app, o->device);
  add_calibrated_options(*app, o->device);
  app->add_option("--sweep", o->sweep, "batch sizes to compare: batch=1,2,4 (energy per sample decides)");
  app->add_option("--objective", o->objective, "what to minimise: energy (per sample, default), latency, edp")
      ->check(CLI::IsMember({"energy", "latency", "edp"}));
  app->add_option("--latency-max", o->latency_max_ms, "reject modes slower than this (ms)")->check(CLI::PositiveNumber);
  app->add_option("--power-max", o->power_max_w, "reject modes whose predicted average power exceeds this (W)")
      ->check(CLI::PositiveNumber);
  app->add_flag("--all-domains", o->all_domains,
                "enumerate every clock domain, also those that change neither time nor energy (ties collapse)");
  app->add_flag("--named-only", o->named_only, "only the device file's named modes");
  app->add_flag("--apply", o->apply, "set the best mode on this Jetson (root; nvpmodel or sysfs writes)");
  add_format_option(*app, o->format);
  add_store_options(*app, o->store);
  return {app, [o] { return run_tune(*o); }};
}

}  // namespace ridge::cli
