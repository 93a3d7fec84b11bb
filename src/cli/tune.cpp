#include "roofline/tune.h"

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/device_options.h"
#include "cli/output_options.h"
#include "cli/store_options.h"
#include "report/tune_request.h"

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
  report::TuneRequest r{
      .model = make_request(o.device.model), .device = o.device.device, .choices = o.device.choices()};
  r.batches = report::tune_batches(r.model, o.sweep);
  report::set_tune_limits(r.options, o.objective, o.latency_max_ms, o.power_max_w);
  r.options.all_domains = o.all_domains;
  r.options.named_only = o.named_only;
  r.apply = o.apply;
  report::tune_and_keep(r, o.device.model, o.format, o.store);
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
  add_output_options(*app, o->format, o->store);
  return {app, [o] { return run_tune(*o); }};
}

}  // namespace ridge::cli
