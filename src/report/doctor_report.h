#pragma once
// `ridge doctor` as a document: one row per platform check; with `--for FEATURE`, which rows that
// feature needs and whether it is ready.
#include <vector>

#include "hw/platform/check.h"
#include "hw/platform/feature.h"
#include "report/document.h"

namespace ridge::report {

// `feature` may be null (no --for). JSON: {"checks": [{"area", "check", "status", "detail", "fix",
// "required"}], "for": ..., "ready": ...}.
Document doctor_document(const std::vector<hw::platform::Check>& checks, const hw::platform::Feature* feature);

}  // namespace ridge::report
