#pragma once
// Stored results as documents (`ridge results`), and the exports in the CSV layouts other tooling
// reads, rebuilt from the stored documents.
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "report/document.h"
#include "store/record.h"
#include "store/store.h"

namespace ridge::report {

// One row per result: id, time, command, what it ran, status and its headline figure; JSON adds the
// environment and the sweep cell of each.
Document results_document(const std::vector<store::Record>& records, const std::string& store_path);

// Writes DIR/overall.csv, layers.csv, metrics.csv and benchmark_results.csv (replacing them) from the
// bench results among `records`; returns the paths written. Results of other commands are skipped.
std::vector<std::string> export_bench_csv(const std::vector<store::Record>& records, const std::string& directory);

// `ridge results`: the results of the store at `store_path` (which must exist) that `filter` selects.
struct ResultsRequest {
  std::string store_path;
  store::Filter filter;
  std::string format = "table";  // table, csv, json, md
  bool show = false;             // each stored document as its command printed it
  std::string export_dir;        // the bench results written as CSVs here (export_bench_csv)
};
// Prints on `out` the CSVs written (a line "wrote PATH" each), or with `show` each stored document in `format` (after a
// line naming the result, in table and md; a failed result is that line with its error), else the results as a list
// (results_document). Throws ridge::Error when --export or --show selects nothing.
void print_results(const ResultsRequest& request, std::ostream& out);

// "STORE now holds N results (A added)": the last line of `ridge results import` and `ridge store merge`.
std::string holds_line(const std::string& store_path, int64_t held, int64_t added);

// `ridge store merge`: copies the results of the stores `inputs` into `output` (created when missing), each result
// once, handing on a line per input as it is merged ("IN: N results, A added, K already in OUT"), then what `output`
// holds. Throws ridge::Error for a store that cannot be read; the inputs merged before it stay merged.
void merge_stores(const std::vector<std::string>& inputs, const std::string& output,
                  const std::function<void(const std::string&)>& line);

}  // namespace ridge::report
