#pragma once
// PyTorch profiler traces imported, printed and kept (`ridge import torch`).
#include <iostream>
#include <string>

#include "profile/torch_import.h"
#include "report/command_output.h"

namespace ridge::report {

// profile::import_torch, its document (torch_trace_document) printed on `out` in `format` (-f json: the imports'
// codec) and kept in the store as one result about the model.
void import_torch_traces(const profile::TorchImportRequest& request, const std::string& format,
                         const StoreOptions& store, std::ostream& out = std::cout);

}  // namespace ridge::report
