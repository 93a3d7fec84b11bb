#pragma once
// `ridge import torch` results as a document: per-trace totals, steps, layers, ops, kernels and
// what could not be mapped to a layer. `-f csv` prints the layers table (`ridge calibrate --measured`).
#include <string>
#include <vector>

#include "profile/torch_trace.h"
#include "report/document.h"

namespace ridge::report {

// One imported trace with its layers mapped and its summary. The result is the summary, the mapping and the trace's
// head (source, layout, steps, passes, skipped events) with how many ops and GPU activities it held: a trace read
// back from the store (report/torch_import_codec) has no events of its own, since the summary is what every figure
// comes from and a trace may hold millions of them.
struct TorchImport {
  profile::TorchTrace trace;
  profile::LayerMapping mapping;
  profile::TorchSummary summary;
  int64_t ops_read = 0, kernels_read = 0;  // events of the trace
  int64_t unlinked_kernels = 0;            // GPU activities linked to no op
};

// The import of `trace` after profile::map_layers: its summary and counts.
TorchImport make_torch_import(profile::TorchTrace trace, profile::LayerMapping mapping);

// `model_path`: the ONNX model the layers were mapped to; empty: layers are the trace's annotations.
Document torch_trace_document(const std::vector<TorchImport>& imports, const std::string& model_path);

}  // namespace ridge::report
