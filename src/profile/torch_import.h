#pragma once
// PyTorch profiler traces imported as one result: each trace with its layers mapped (to a model's nodes, or to the
// trace's own annotations) and its summary. What `ridge import torch` prints and keeps (report/torch_trace_report.h,
// report/torch_import_codec.h).
#include <cstdint>
#include <string>
#include <vector>

#include "profile/torch_trace.h"

namespace ridge::profile {

// One imported trace with its layers mapped and its summary. The result is the summary, the mapping and the trace's
// head (source, layout, steps, passes, skipped events) with how many ops and GPU activities it held: a trace read
// back from the store (report/torch_import_codec) has no events of its own, since the summary is what every figure
// comes from and a trace may hold millions of them.
struct TorchImport {
  TorchTrace trace;
  LayerMapping mapping;
  TorchSummary summary;
  int64_t ops_read = 0, kernels_read = 0;  // events of the trace
  int64_t unlinked_kernels = 0;            // GPU activities linked to no op
};

struct TorchImports {
  std::vector<TorchImport> imports;
  std::string model_path;  // the model the layers were mapped to; empty: the trace's own annotations
};

struct TorchImportRequest {
  std::vector<std::string> files;  // trace files (.json)
  std::string model;               // the ONNX export of the profiled model; empty: layers are the trace's ranges
};

// Reads every trace and maps its layers. Throws ridge::Error (one line naming the file) on a trace or model it cannot
// read.
TorchImports import_torch(const TorchImportRequest& request);

}  // namespace ridge::profile
