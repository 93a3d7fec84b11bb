#pragma once
// `ridge doctor` as a document: one row per platform check; with `--for FEATURE`, which rows that
// feature needs and whether it is ready.
#include <ostream>
#include <string>
#include <vector>

#include "doctor/check.h"
#include "doctor/feature.h"
#include "report/document.h"

namespace ridge::doctor {

// `feature` may be null (no --for). JSON: {"checks": [{"area", "check", "status", "detail", "fix",
// "required"}], "for": ..., "ready": ...}.
report::Document doctor_document(const std::vector<Check>& checks, const Feature* feature);

// Prints the document of `checks` on `out` in `format` (table, csv, json, md). Without a feature the exit code is 0;
// with one, 1 when it is not ready, with one line on `err` naming it and what it lacks ("ridge: not ready for ncu:
// ...").
int print_doctor(const std::vector<Check>& checks, const Feature* feature, const std::string& format, std::ostream& out,
                 std::ostream& err);
// `ridge doctor` as one call: every check (the store --store names, `store` "": $RIDGE_STORE, else ridge-results.db),
// printed on stdout, for `feature` (a name of features(); "": none). Returns the exit code.
int run_doctor(const std::string& feature, const std::string& store, const std::string& format);

}  // namespace ridge::doctor
