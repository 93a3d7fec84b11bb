#pragma once
// Nsight Compute exports imported as one result: each file's kernels with their roofline figures, mapped to a
// model's layers and, with the model, ridge's analytical figures at each run's batch. What `ridge import ncu`,
// `ridge ncu run` and `ridge profile` print and keep (report/ncu_report.h, report/ncu_import_codec.h).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hw/roofline.h"
#include "profile/layer_map.h"
#include "profile/ncu_export.h"
#include "profile/ncu_kernel.h"

namespace ridge::profile {

struct NcuRun {
  std::string label, path;
  int64_t batch = 0;  // 0: unknown
  NcuLayout layout = NcuLayout::kDetails;
  std::vector<std::string> messages;
  size_t skipped_rows = 0, first_skipped_line = 0;
  std::vector<KernelFigures> kernels;
  LayerMap layers;
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

struct NcuImportRequest {
  std::vector<std::string> files;  // ncu CSV exports
  // One label per file (`ridge ncu run --sweep batch=8` labels its run "batch=8"); empty: the file name.
  std::vector<std::string> run_labels;
  std::vector<int64_t> batches;  // the batch of each file's run, where known (0: unknown)
  std::string device;            // a device of ridge's database (ID[:MODE]): fractions of its ceilings
  std::string model;             // an ONNX model: kernels mapped to its layers and compared
  int64_t batch = 0;             // the batch of runs without one of their own (0: the model's)
  int64_t repetitions = 0;       // times each run ran the model (0: what the export shows)
};

// Reads every export, maps its kernels to the model's layers (analysed once per batch the runs ran at) and finds
// the passes each run holds. Throws ridge::Error (one line): no file, an export it cannot read, an unknown device, a
// --repetitions the export contradicts, an export of the model at another batch.
NcuImport import_ncu(const NcuImportRequest& request);

// Run `index` of `import` alone, with the import's device and model: each run is kept as its own result, so a
// sweep's runs are found by their batch.
NcuImport ncu_run_alone(const NcuImport& import, size_t index);

}  // namespace ridge::profile
