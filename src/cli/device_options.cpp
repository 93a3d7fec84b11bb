#include "cli/device_options.h"

namespace ridge::cli {

void add_device_options(CLI::App& app, DeviceOptions& o) {
  app.add_option("-d,--device", o.device, "ID[:MODE], host, or path/to/device.yaml[:MODE] (see `ridge devices`)")
      ->required();
  add_prediction_choice_options(app, o);
}

void add_prediction_choice_options(CLI::App& app, DeviceOptions& o) {
  app.add_option("--precision", o.precision,
                 "arithmetic precision: fp32 (default, or --dtype's), fp16, bf16, fp8, int8, fp64")
      ->check(CLI::IsMember({"fp32", "fp16", "bf16", "int8", "fp64", "fp8"}));
  app.add_flag("--allow-tf32", o.allow_tf32, "let fp32 convolutions and matrix products use TF32 tensor units");
  app.add_option("--traffic", o.traffic, "memory traffic per node: unfused (default) or fused")
      ->check(CLI::IsMember({"unfused", "fused"}));
}

void add_calibrated_options(CLI::App& app, DeviceOptions& o) {
  app.add_option("--exec-mode", o.exec_mode,
                 "executor mode a calibrated device predicts: eager (default) or optimized (bench's --mode); "
                 "cuda-graph selects a GPU run")
      ->check(CLI::IsMember({"eager", "optimized", "cuda-graph"}));
  app.add_option("--threads", o.threads, "executor threads a calibrated device predicts (default: logical CPUs)")
      ->check(CLI::Range(1, 4096));
}

}  // namespace ridge::cli
