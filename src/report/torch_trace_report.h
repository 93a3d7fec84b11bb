#pragma once
// `ridge import torch` results as a document: per-trace totals, steps, layers, ops, kernels and
// what could not be mapped to a layer. `-f csv` prints the layers table (`ridge calibrate --measured`).
#include <string>
#include <vector>

#include "profile/torch_import.h"
#include "report/document.h"

namespace ridge::report {

// `model_path`: the ONNX model the layers were mapped to; empty: layers are the trace's annotations.
Document torch_trace_document(const std::vector<profile::TorchImport>& imports, const std::string& model_path);

}  // namespace ridge::report
