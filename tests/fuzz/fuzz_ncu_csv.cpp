// libFuzzer target: arbitrary text through the Nsight Compute CSV reader (`ridge import ncu`), then
// each launch's roofline figures (NVTX ranges parsed), the mapping to a small model's layers and the checks of
// passes and batch. Any input must end in
// kernels or a ridge::Error.
// fuzz-max-len: 16384 (the longest input scripts/test.sh gives it, in bytes)
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "profile/export_fit.h"
#include "profile/layer_map.h"
#include "profile/ncu_export.h"
#include "profile/ncu_kernel.h"
#include "report/ncu_report.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto exported =
        ridge::profile::parse_ncu_export(std::string(reinterpret_cast<const char*>(data), size), "fuzz.csv");
    ridge::profile::NcuRun run;
    run.path = run.label = "fuzz.csv";
    for (const auto& launch : exported.launches)
      run.kernels.push_back(ridge::profile::kernel_figures(launch, "fuzz.csv"));
    static const std::vector<ridge::profile::ModelLayer> layers{
        {"conv1", "Conv", "conv"}, {"relu1", "Relu", "elementwise"}, {"fc", "Gemm", "matmul"}};
    run.layers = ridge::profile::map_kernels_to_layers(run.kernels, layers);
    run.passes = ridge::profile::passes_to_use(run.layers, 0, "fuzz.csv");
    ridge::profile::batch_mismatch(ridge::profile::work_ratio(run.kernels, run.layers, layers, run.passes), 1, "m");
    ridge::profile::NcuImport import;
    import.runs.push_back(std::move(run));
    ridge::report::ncu_import_document(import);
  } catch (const ridge::Error&) {
  }
  return 0;
}
