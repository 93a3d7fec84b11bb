#pragma once
// Stored results as documents (`ridge results`), and the exports in the CSV layouts other tooling
// reads, rebuilt from the stored documents.
#include <string>
#include <vector>

#include "report/document.h"
#include "store/record.h"

namespace ridge::report {

// One row per result: id, time, command, what it ran, status and its headline figure; JSON adds the
// environment and the sweep cell of each.
Document results_document(const std::vector<store::Record>& records, const std::string& store_path);

// Writes DIR/overall.csv, layers.csv, metrics.csv and benchmark_results.csv (replacing them) from the
// bench results among `records`; returns the paths written. Results of other commands are skipped.
std::vector<std::string> export_bench_csv(const std::vector<store::Record>& records, const std::string& directory);

}  // namespace ridge::report
