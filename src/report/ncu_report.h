#pragma once
// `ridge import ncu`: profiled kernels as a document. Per kernel: time, FLOPs per precision,
// bytes and intensity at L1, L2 and DRAM, achieved FLOP/s and bandwidth, and, with a device, the
// fraction of its ceilings; per run: totals; with a model: each layer's measured FLOPs and DRAM
// bytes against ridge's analytical figures. JSON keeps `kernels[]` in the layout the hierarchical
// roofline plot reads (name, time_s, flops, bytes.{l1,l2,dram}).
#include <string>

#include "profile/ncu_import.h"
#include "profile/ncu_kernel.h"
#include "report/document.h"
#include "store/record.h"

namespace ridge::report {

Document ncu_import_document(const profile::NcuImport& import);
// The parameters the store keeps with run `run` of `import` (each run is a result of its own): the model and device
// the import was asked for, and the run's batch (its `batch` sweep value, else the model's at that pass).
store::Params ncu_run_params(const profile::NcuImportRequest& request, const profile::NcuImport& import, size_t run);

// A kernel's main precision, the device ceiling its FLOP/s is compared with: the key with the most operations
// (fp64, fp32, fp16 on CUDA cores; SRC_tensor on tensor cores; Volta's `tensor` estimate: fp16_tensor). Empty
// when no precision was counted or every one is zero.
std::string peak_key_of(const profile::KernelFigures& kernel);

}  // namespace ridge::report
