// `ridge ert`: the empirical roofline of this machine's CPU, or of a GPU; measured in hw/ert/ert_request, kept as
// report/ert_run says.
#include <iostream>

#include "cli/command.h"
#include "cli/common.h"
#include "cli/output_options.h"
#include "cli/store_options.h"
#include "hw/ert/ert_request.h"
#include "report/ert_run.h"
#include "util/file.h"

namespace ridge::cli {
namespace {

struct Options {
  hw::ert::ErtRequest request;
  std::string format = "table", profile, csv;
  StoreOptions store;
};

int run_ert(const Options& o) {
  // Progress on stderr whatever the format: stdout holds only the document.
  auto result = hw::ert::measure(o.request, [](const std::string& line) { std::cerr << "ert: " << line << "\n"; });
  // Files first: a profile that cannot be written must not be lost after a long run's output.
  if (!o.profile.empty()) write_file(o.profile, hw::ert::device_yaml(result));
  auto run = report::ert_run(result, o.csv);
  // JSON: the codec's (the document's JSON plus the measurement), which the store and `results import` read back.
  emit(run.document, o.format, [&] { return report::encode_ert(*run.value.ert); });
  keep_result(o.store, run.document, run.params, run.value);
  return 0;
}

}  // namespace

Command add_ert_command(CLI::App& parent) {
  auto o = std::make_shared<Options>();
  auto* app = parent.add_subcommand(
      "ert",
      "measure the empirical roofline of this machine's CPU (FMA peaks, bandwidths, GEMM) or, with --device cuda, of "
      "a GPU (FMA and tensor-core peaks, DRAM/L2/L1 bandwidth)");
  app->footer(
      "Examples:\n"
      "  ridge ert --quick\n"
      "  ridge ert --profile host.yaml --csv ert-points.csv   # then: ridge predict MODEL --device host.yaml\n"
      "  ridge ert --device cuda --quick\n"
      "  ridge ert --device cuda --gpu 1 --profile gpu.yaml   # then: ridge predict MODEL --device gpu.yaml");
  app->add_flag("--quick", o->request.quick, "fewer repetitions and sizes: well under a minute instead of several");
  app->add_option("--device", o->request.device,
                  "cpu (default: this machine's CPU) or cuda (an NVIDIA GPU, through the CUDA module: FMA peaks per "
                  "precision, cuBLASLt tensor-core peaks, DRAM/L2/L1 bandwidth; see docs/gpu-ert.md)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  app->add_option("--gpu", o->request.gpu,
                  "with --device cuda: the GPU's index (default 0, in the CUDA runtime's order; "
                  "CUDA_DEVICE_ORDER=PCI_BUS_ID matches nvidia-smi's)")
      ->check(integer_in(0, 1023));
  app->add_option("--threads", o->request.threads,
                  "with --device cpu: largest thread count (default: every online CPU)")
      ->check(integer_in(1, 4096));
  add_output_options(*app, o->format, o->store);
  app->add_option("--profile", o->profile, "write the measured roofline as a device file (YAML)");
  app->add_option("--csv", o->csv, "also write every measured point as CSV (what -f csv prints)");
  return {app, [o] { return run_ert(*o); }};
}

}  // namespace ridge::cli
