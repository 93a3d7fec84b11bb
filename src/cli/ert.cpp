#include "hw/ert/ert.h"

#include <fmt/format.h>

#include <iostream>
#include <sstream>

#include "cli/command.h"
#include "cli/common.h"
#include "cli/output_options.h"
#include "cli/store_options.h"
#include "hw/ert/gpu_ert.h"
#include "report/ert_codec.h"
#include "report/ert_report.h"
#include "report/gpu_ert_report.h"
#include "report/result_codec.h"
#include "util/error.h"
#include "util/file.h"

namespace ridge::cli {
namespace {

struct Options {
  bool quick = false;
  int threads = 0;
  std::string device = "cpu";
  int gpu = 0;
  std::string format = "table", profile, csv;
  StoreOptions store;
};

std::string csv_text(const report::Table& points) {
  std::ostringstream out;
  out << report::csv_header(points) << "\n";
  report::print_csv_rows(out, points);
  return out.str();
}

// Progress on stderr whatever the format: stdout holds only the document.
void progress(const std::string& line) { std::cerr << "ert: " << line << "\n"; }

int run_cpu(const Options& o) {
  hw::ert::ErtOptions options;
  options.quick = o.quick;
  options.max_threads = o.threads;
  options.progress = progress;
  auto result = hw::ert::run_ert(options);
  // Files first: a profile that cannot be written must not be lost after a long run's output.
  if (!o.profile.empty()) write_file(o.profile, hw::ert::ert_device_yaml(result));
  if (!o.csv.empty()) write_file(o.csv, csv_text(report::ert_points_table(result)));
  auto doc = report::ert_document(result);
  report::TypedResult value{.kind = "ert"};
  value.ert = result;
  // JSON: the codec's (the document's JSON plus the measurement), which the store and `results import` read back.
  emit(doc, o.format, [&] { return report::encode_ert(*value.ert); });
  store::Params params;
  params.device = "host";
  params.threads = result.threads;
  keep_result(o.store, doc, params, value);
  return 0;
}

int run_cuda(const Options& o) {
  hw::ert::GpuErtOptions options;
  options.device = o.gpu;
  options.quick = o.quick;
  options.progress = progress;
  auto result = hw::ert::run_gpu_ert(options);
  if (!o.profile.empty()) write_file(o.profile, hw::ert::gpu_ert_device_yaml(result));
  if (!o.csv.empty()) write_file(o.csv, csv_text(report::gpu_ert_points_table(result)));
  auto doc = report::gpu_ert_document(result);
  report::TypedResult value{.kind = "ert"};
  value.ert = result;
  emit(doc, o.format, [&] { return report::encode_ert(*value.ert); });
  store::Params params;
  params.device = "cuda:" + result.gpu.name;
  keep_result(o.store, doc, params, value);
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
  app->add_flag("--quick", o->quick, "fewer repetitions and sizes: well under a minute instead of several");
  app->add_option("--device", o->device,
                  "cpu (default: this machine's CPU) or cuda (an NVIDIA GPU, through the CUDA module: FMA peaks per "
                  "precision, cuBLASLt tensor-core peaks, DRAM/L2/L1 bandwidth; see docs/gpu-ert.md)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  app->add_option("--gpu", o->gpu,
                  "with --device cuda: the GPU's index (default 0, in the CUDA runtime's order; "
                  "CUDA_DEVICE_ORDER=PCI_BUS_ID matches nvidia-smi's)")
      ->check(integer_in(0, 1023));
  app->add_option("--threads", o->threads, "with --device cpu: largest thread count (default: every online CPU)")
      ->check(integer_in(1, 4096));
  add_format_option(*app, o->format);
  add_store_options(*app, o->store);
  app->add_option("--profile", o->profile, "write the measured roofline as a device file (YAML)");
  app->add_option("--csv", o->csv, "also write every measured point as CSV (what -f csv prints)");
  return {app, [o, app] {
            if (o->device == "cuda") {
              if (app->count("--threads") > 0)
                throw Error("--threads sets the CPU's thread counts: it has no meaning with --device cuda");
              return run_cuda(*o);
            }
            if (app->count("--gpu") > 0) throw Error("--gpu picks a GPU: it needs --device cuda");
            return run_cpu(*o);
          }};
}

}  // namespace ridge::cli
