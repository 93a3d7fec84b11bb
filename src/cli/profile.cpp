// `ridge profile MODEL --device cuda`: ridge's own GPU executor run under Nsight Compute, its export imported with the
// model (every kernel mapped to its layer through the executor's NVTX ranges), as `ridge ncu run -m MODEL -- ridge
// run MODEL --device cuda` would; this command only spells that out.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <filesystem>
#include <iostream>

#include "cli/command.h"
#include "cli/ncu_runs.h"
#include "cli/output_options.h"
#include "profile/ncu_metrics.h"
#include "util/error.h"

namespace ridge::cli {
namespace {

struct ProfileOptions {
  std::string model, device = "cuda", precision, conv_algo, ncu_path, output_dir, clock_control = "base", cc;
  int64_t batch = 1;
  int gpu = -1;
  NcuImportOptions import;
};

// The ridge binary running now: the profiled program is this very build.
std::string this_ridge() {
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error("ridge profile: cannot tell where this ridge binary is (/proc/self/exe)");
  return self.string();
}

int run_profile(ProfileOptions o) {
  if (o.device != "cuda")
    throw Error("ridge profile runs the GPU executor under Nsight Compute: --device cuda (the CPU has no ncu)");
  NcuCliOptions ncu;
  ncu.ncu.program = {this_ridge(), "run", o.model, "--device", "cuda", "--batch", std::to_string(o.batch)};
  if (o.gpu >= 0) ncu.ncu.program.insert(ncu.ncu.program.end(), {"--gpu", std::to_string(o.gpu)});
  if (!o.precision.empty()) ncu.ncu.program.insert(ncu.ncu.program.end(), {"--precision", o.precision});
  if (!o.conv_algo.empty()) ncu.ncu.program.insert(ncu.ncu.program.end(), {"--conv-algo", o.conv_algo});
  ncu.ncu.output_dir = o.output_dir;
  ncu.ncu.clock_control = o.clock_control;
  ncu.ncu.cc = o.cc;
  auto import = o.import;
  import.model = o.model;
  import.batch = o.batch;
  int code = run_ncu_points(ncu, o.ncu_path, true, import);
  // ridge run runs the model once, eager: every node inside its NVTX range. A CUDA-graph replay launches no host
  // code and so carries no ranges: the profile is of eager mode.
  fmt::print(std::cerr,
             "note: ridge run {} at batch {} on the GPU, eager (a CUDA graph's replay has no NVTX ranges to map its "
             "kernels by); kernels outside every node's range (cuDNN's algorithm search with --conv-algo benchmark) "
             "are listed as unmapped\n",
             o.model, o.batch);
  return code;
}

}  // namespace

Command add_profile_command(CLI::App& parent) {
  auto o = std::make_shared<ProfileOptions>();
  auto* app = parent.add_subcommand(
      "profile", "run a model on ridge's GPU executor under Nsight Compute and map every kernel to its layer");
  app->add_option("model", o->model, "the ONNX model")->required()->check(CLI::ExistingFile);
  app->add_option("--device", o->device, "the executor: cuda (the only one ncu profiles)")
      ->check(CLI::IsMember({"cuda", "cpu"}));
  app->add_option("-b,--batch", o->batch, "batch size (default 1)")->check(CLI::PositiveNumber);
  app->add_option("--gpu", o->gpu, "the GPU's index (default 0)")->check(CLI::NonNegativeNumber);
  app->add_option("--precision", o->precision, "fp32 (default), tf32, fp16 or bf16, as `ridge run` takes it")
      ->check(CLI::IsMember({"fp32", "tf32", "fp16", "bf16"}));
  app->add_option("--conv-algo", o->conv_algo, "cuDNN's convolution algorithm, as `ridge run --conv-algo` takes it");
  app->add_option("--ceilings", o->import.device,
                  "a device of ridge's database (h100-sxm, h200, ...): each kernel and layer as a fraction of its "
                  "ceilings, and the hierarchical roofline against them");
  app->add_option("--ncu", o->ncu_path, "the ncu program (default: ncu on PATH, else the CUDA toolkit's)");
  app->add_option("--output-dir", o->output_dir,
                  "the directory for the export and ridge run's log (default: ./ncu-YYYYmmdd-HHMMSS)");
  app->add_option("--clock-control", o->clock_control,
                  "base: ncu locks the GPU clocks to base (its default); none: the clocks as they are (what the "
                  "model sees when not profiled; use it for kernel times a calibration fits: calibrate --ncu)")
      ->check(CLI::IsMember({"base", "none"}));
  app->add_option("--cc", o->cc, "the GPU's compute capability (default: nvidia-smi's), for its tensor-core counters")
      ->check(CLI::IsMember(profile::ncu_cc_tables()));
  add_format_option(*app, o->import.format);
  add_store_options(*app, o->import.store);
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
