#include <fmt/format.h>
#include <fmt/ostream.h>

#include <iostream>

#include "cli/command.h"
#include "cli/device_options.h"
#include "cli/output_options.h"
#include "cli/store_options.h"
#include "report/compare_request.h"
#include "report/result_record.h"

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

int run_compare(const CompareOptions& o) {
  report::CompareRequest request{.model = make_request(o.device.model),
                                 .model_name = o.device.model.model,
                                 .device = o.device.device,
                                 .choices = o.device.choices(),
                                 .measured = o.measured,
                                 .run = o.run,
                                 .max_time_s = o.max_time,
                                 .progress = [](const std::string& line) { fmt::print(std::cerr, "{}\n", line); }};
  auto params = report::prediction_params(o.device.model, o.device.device, o.device.choices());
  report::compare_and_keep(request, o.top, o.format, o.store, params);
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
  auto* training = app->add_flag("--training", o->device.model.training,
                                 "compare a training step (forward, backward, optimizer update): predicted, and "
                                 "--measured's training run or one measured now");
  app->add_option("--optimizer", o->device.model.optimizer,
                  "optimizer of the training step: sgd (default), momentum, adam")
      ->check(CLI::IsMember({"sgd", "momentum", "adam"}))
      ->needs(training);
  app->add_option("--max-time", o->max_time, "with --run: time budget of the timed runs, seconds (default 10)")
      ->check(CLI::Range(0.0, 1e6));
  app->add_option("--top", o->top, "nodes people see, largest difference first (default 20; 0: all)")
      ->check(integer_in(0, 1000000));
  add_output_options(*app, o->format, o->store);
  app->footer(
      "Per node: predicted and measured time, error = predicted / measured - 1, share of the summed\n"
      "|predicted - measured|, roofline bound, and the fraction of its ceiling achieved (roofline time /\n"
      "measured time). Whole model: the predicted latency against the run's median latency. Nodes only one\n"
      "side has are listed, never dropped. Exactly one of --measured and --run. A training step (--training) is\n"
      "compared per node where the run has per-node times (each node's forward and backward summed), else whole.\n"
      "Examples:\n"
      "  ridge bench models/alexnet.onnx --threads 2 -f json > bench.json\n"
      "  ridge compare models/alexnet.onnx --device host.yaml --measured bench.json\n"
      "  ridge compare models/resnet50.onnx --device host.yaml --run --exec-mode optimized --threads 2 -f csv\n"
      "  ridge compare models/mobilenet_v2.onnx --device host-cal.yaml --measured sweep.json --batch 4 "
      "--exec-mode optimized\n"
      "  ridge compare models/resnet50_train.onnx --device h200 --measured train.json --batch 32 --training\n"
      "(host.yaml: `ridge ert --profile host.yaml`; a device calibrated with `ridge calibrate --sample` predicts\n"
      "the run's executor mode and threads.)");
  return {app, [o] { return run_compare(*o); }};
}

}  // namespace ridge::cli
