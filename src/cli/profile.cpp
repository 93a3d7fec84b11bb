// `ridge profile MODEL --device cuda`: ridge's own GPU executor run under Nsight Compute, its export imported with the
// model (every kernel mapped to its layer through the executor's NVTX ranges), as `ridge ncu run -m MODEL -- ridge
// run MODEL --device cuda` would; this command only spells that out.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <iostream>

#include "cli/command.h"
#include "cli/import_ncu.h"
#include "cli/output_options.h"
#include "cli/store_options.h"
#include "profile/executor_profile.h"
#include "profile/ncu_metrics.h"

namespace ridge::cli {
namespace {

struct ProfileOptions {
  profile::ExecutorProfileRequest request;
  NcuImportOptions import;
};

int run_profile(ProfileOptions o) {
  o.import.request.model = o.request.model;
  o.import.request.batch = o.request.batch;
  int code = report::run_ncu_points(profile::executor_ncu_request(o.request), true, o.import);
  fmt::print(std::cerr, "{}\n", profile::executor_profile_note(o.request));
  return code;
}

}  // namespace

Command add_profile_command(CLI::App& parent) {
  auto o = std::make_shared<ProfileOptions>();
  auto* app = parent.add_subcommand(
      "profile", "run a model on ridge's GPU executor under Nsight Compute and map every kernel to its layer");
  app->add_option("model", o->request.model, "the ONNX model")->required()->check(CLI::ExistingFile);
  app->add_option("--device", o->request.device, "the executor: cuda (the only one ncu profiles)")
      ->check(CLI::IsMember({"cuda", "cpu"}));
  app->add_option("-b,--batch", o->request.batch, "batch size (default 1)")->check(CLI::PositiveNumber);
  app->add_option("--gpu", o->request.gpu, "the GPU's index (default 0)")->check(CLI::NonNegativeNumber);
  app->add_option("--precision", o->request.precision, "fp32 (default), tf32, fp16 or bf16, as `ridge run` takes it")
      ->check(CLI::IsMember({"fp32", "tf32", "fp16", "bf16"}));
  app->add_option("--conv-algo", o->request.conv_algo,
                  "cuDNN's convolution algorithm, as `ridge run --conv-algo` takes it");
  app->add_option("--ceilings", o->import.request.device,
                  "a device of ridge's database (h100-sxm, h200, ...): each kernel and layer as a fraction of its "
                  "ceilings, and the hierarchical roofline against them");
  app->add_option("--ncu", o->request.ncu, "the ncu program (default: ncu on PATH, else the CUDA toolkit's)");
  app->add_option("--output-dir", o->request.output_dir,
                  "the directory for the export and ridge run's log (default: ./ncu-YYYYmmdd-HHMMSS)");
  app->add_option("--clock-control", o->request.clock_control,
                  "base: ncu locks the GPU clocks to base (its default); none: the clocks as they are (what the "
                  "model sees when not profiled; use it for kernel times a calibration fits: calibrate --ncu)")
      ->check(CLI::IsMember({"base", "none"}));
  app->add_option("--cc", o->request.cc,
                  "the GPU's compute capability (default: nvidia-smi's), for its tensor-core counters")
      ->check(CLI::IsMember(profile::ncu_cc_tables()));
  add_output_options(*app, o->import.format, o->import.store);
  app->footer(
      "Runs `ridge run MODEL --device cuda --batch N` under ncu with the hierarchical roofline's metrics "
      "(docs/ncu.md),\n"
      "then imports the export with the model: the executor pushes an NVTX range per node named as the ONNX node, so\n"
      "every kernel maps to its layer (docs/import-ncu.md). The output is `ridge import ncu`'s: kernels, the "
      "per-layer\n"
      "table (measured FLOPs and bytes at L1, L2 and DRAM against ridge's analysis), unmapped kernels, and with\n"
      "--ceilings the fractions of the roofline; the result is kept in the store.\n"
      "Examples:\n"
      "  ridge profile models/resnet50.onnx --device cuda --batch 32 --ceilings h100-sxm\n"
      "  ridge profile models/vit_b_16.onnx --device cuda --precision tf32 --clock-control none -f json");
  return {app, [o] { return run_profile(*o); }};
}

}  // namespace ridge::cli
