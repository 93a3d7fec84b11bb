#pragma once
// The one JSON codec of Nsight Compute imports: `ridge import ncu -f json` writes with it, the results store keeps
// what it writes, and `ridge report` and `ridge plot roofline --result` decode it into the same NcuImport the import
// built. It writes the document's JSON (runs, kernels with their figures per level, layers against ridge's
// analysis, unmapped kernels, notes: what people and tools read, docs/import-ncu.md) and, under `import`, the
// import itself: each run's kernels as they were read (every counted precision, bytes per level, NVTX ranges,
// what was not counted and why), their layers, the analytic model and the device (its id and power mode, resolved
// again from the device files when read).
#include <nlohmann/json.hpp>
#include <string>

#include "report/ncu_report.h"

namespace ridge::report {

nlohmann::ordered_json encode_ncu_import(const profile::NcuImport& import);

// Throws ridge::Error with one line naming `where` and the field on a document that is not an ncu import. A device
// whose file is no longer found leaves the import without ceilings, and says so in `missing_device`.
struct DecodedNcuImport {
  profile::NcuImport import;
  std::string missing_device;  // why the device could not be resolved; empty when it was, or there was none
};
DecodedNcuImport decode_ncu_import(const nlohmann::json& doc, const std::string& where);
bool is_ncu_import(const nlohmann::json& doc);

}  // namespace ridge::report
