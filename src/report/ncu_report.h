#pragma once
// `ridge import ncu`: profiled kernels as a document. Per kernel: time, FLOPs per precision,
// bytes and intensity at L1, L2 and DRAM, achieved FLOP/s and bandwidth, and, with a device, the
// fraction of its ceilings; per run: totals; with a model: each layer's measured FLOPs and DRAM
// bytes against ridge's analytical figures. JSON keeps `kernels[]` in the layout the hierarchical
// roofline plot reads (name, time_s, flops, bytes.{l1,l2,dram}).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hw/roofline.h"
#include "profile/layer_map.h"
#include "profile/ncu_export.h"
#include "profile/ncu_kernel.h"
#include "report/document.h"

namespace ridge::report {

struct NcuRun {
  std::string label, path;
  int64_t batch = 0;  // 0: unknown
  profile::NcuLayout layout = profile::NcuLayout::kDetails;
  std::vector<std::string> messages;
  size_t skipped_rows = 0, first_skipped_line = 0;
  std::vector<profile::KernelFigures> kernels;
  profile::LayerMap layers;
  int64_t passes = 1;       // passes of the model the run holds: per-pass figures divide by it
  std::string passes_from;  // how it was found ("--repetitions", NVTX ranges, kernel counts); empty: assumed
};

// ridge's analytical figures of one layer (a node with work) at the run's batch.
struct AnalyticLayer {
  std::string name, op_type, family;
  double flops = 0, bytes = 0;
};
struct AnalyticModel {
  std::string path;
  int64_t batch = 0;
  std::vector<AnalyticLayer> layers;  // graph order
  double flops = 0, bytes = 0;
};

struct NcuImport {
  std::vector<NcuRun> runs;
  std::optional<hw::Roofline> roofline;    // --device
  std::map<int64_t, AnalyticModel> model;  // by batch (0: the model's own batch), with --model
};

Document ncu_import_document(const NcuImport& import);

// A kernel's main precision, the device ceiling its FLOP/s is compared with: the key with the most operations
// (fp64, fp32, fp16 on CUDA cores; SRC_tensor on tensor cores; Volta's `tensor` estimate: fp16_tensor). Empty
// when no precision was counted or every one is zero.
std::string peak_key_of(const profile::KernelFigures& kernel);

}  // namespace ridge::report
