#include "cli/device_options.h"

#include "graph/dtype.h"

namespace ridge::cli {

roofline::PredictOptions predict_options(const DeviceOptions& o, const analysis::Request& request) {
  roofline::PredictOptions p;
  p.precision = o.precision.empty() ? (request.options.activation_dtype
                                           ? std::string(graph::dtype_name(*request.options.activation_dtype))
                                           : "fp32")
                                    : o.precision;
  p.allow_tf32 = o.allow_tf32;
  p.traffic = o.traffic == "fused" ? roofline::Traffic::kFused : roofline::Traffic::kUnfused;
  p.batch = request.bindings.batch.value_or(1);
  return p;
}

void add_device_options(CLI::App& app, DeviceOptions& o) {
  app.add_option("-d,--device", o.device, "ID[:MODE], host, or path/to/device.yaml[:MODE] (see `ridge devices`)")
      ->required();
  app.add_option("--precision", o.precision,
                 "arithmetic precision: fp32 (default, or --dtype's), fp16, bf16, int8, fp64")
      ->check(CLI::IsMember({"fp32", "fp16", "bf16", "int8", "fp64", "fp8"}));
  app.add_flag("--allow-tf32", o.allow_tf32, "let fp32 convolutions and matrix products use TF32 tensor units");
  app.add_option("--traffic", o.traffic, "memory traffic per node: unfused (default) or fused")
      ->check(CLI::IsMember({"unfused", "fused"}));
}

}  // namespace ridge::cli
