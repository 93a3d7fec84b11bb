#include "cli/command.h"
#include "cli/device_options.h"
#include "cli/output_options.h"
#include "cli/store_options.h"
#include "report/predict_request.h"

namespace ridge::cli {
namespace {

struct PredictOptions {
  DeviceOptions device;
  StoreOptions store;
  std::string modes, sweep, format = "table";
};

int run_predict(const PredictOptions& o) {
  report::PredictRequest request{.model = make_request(o.device.model),
                                 .device = o.device.device,
                                 .modes = o.modes,
                                 .choices = o.device.choices()};
  report::predict_and_keep(request, o.sweep, o.device.model, o.format, o.store);
  return 0;
}

}  // namespace

Command add_predict_command(CLI::App& parent) {
  auto o = std::make_shared<PredictOptions>();
  auto* app =
      parent.add_subcommand("predict", "roofline prediction of each node's time and the model's latency on a device");
  app->footer(
      "time = max(FLOPs / compute ceiling, bytes / DRAM bandwidth) + per-op overhead, per node.\n"
      "Examples:\n"
      "  ridge predict models/resnet50.onnx --device h100-sxm --dtype bf16\n"
      "  ridge predict models/resnet50.onnx --device jetson-agx-orin-64gb --modes all --sweep batch=1,8\n"
      "  ridge predict models/bert_base.onnx --dim seq=128 --device a100-sxm-80gb --training --format json\n"
      "With a device calibrated by `ridge calibrate --sample`, each node's time is the fitted model's estimate\n"
      "for --exec-mode and --threads, and the output states the calibration's validation error.");
  add_model_options(*app, o->device.model, true);
  add_device_options(*app, o->device);
  add_calibrated_options(*app, o->device);
  app->add_option("--modes", o->modes, "power modes to sweep: all, or MODE1,MODE2,...");
  app->add_option("--sweep", o->sweep, "batch sizes to sweep: batch=1,2,4,8");
  add_output_options(*app, o->format, o->store);
  return {app, [o] { return run_predict(*o); }};
}

}  // namespace ridge::cli
