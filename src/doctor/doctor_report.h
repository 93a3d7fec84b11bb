#pragma once
// `ridge doctor` as a document: one row per platform check; with `--for FEATURE`, which rows that
// feature needs and whether it is ready.
#include <vector>

#include "doctor/check.h"
#include "doctor/feature.h"
#include "report/document.h"

namespace ridge::doctor {

// `feature` may be null (no --for). JSON: {"checks": [{"area", "check", "status", "detail", "fix",
// "required"}], "for": ..., "ready": ...}.
report::Document doctor_document(const std::vector<Check>& checks, const Feature* feature);

}  // namespace ridge::doctor
