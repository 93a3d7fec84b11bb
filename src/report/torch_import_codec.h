#pragma once
// The one JSON codec of PyTorch profiler imports: `ridge import torch -f json` writes with it, the results store keeps
// what it writes, and readers of stored imports decode it into the same TorchImport values. It writes the document's
// JSON (traces, steps, passes, layers, ops, kernels, unmapped, notes: docs/json-schema.md) and, under `import`, the
// imports themselves: each trace's head (source, layout, steps, passes, skipped events), how many ops and GPU
// activities it held, its layer mapping with the model fit, and its summary, from which every printed figure is
// computed again. The trace's events are not kept (report/torch_trace_report.h says why).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "profile/torch_import.h"
#include "report/torch_trace_report.h"

namespace ridge::report {

nlohmann::ordered_json encode_torch_imports(const profile::TorchImports& imports);
// Throws ridge::Error with one line naming `where` and the field on a document that is not a torch import.
profile::TorchImports decode_torch_imports(const nlohmann::json& doc, const std::string& where);
bool is_torch_import(const nlohmann::json& doc);

}  // namespace ridge::report
